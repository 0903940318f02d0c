//! Sees each HTTP/1 request head as it arrives on the socket, before hyper normalises it.
//!
//! hyper resolves conflicting framing itself: with both `Content-Length` and `Transfer-Encoding` it drops the
//! length (RFC 9112 §6.3) and closes the connection afterwards; repeated equal lengths are merged. That is safe
//! for hyper, but the request never looks conflicting to the code behind it, so it cannot be refused. The
//! specification wants such requests refused with 400, as any front proxy should: a request that two parsers
//! could frame differently is an attack or a broken client, and not something to guess about.
//!
//! `HeadGuard` wraps the connection's read side and follows the byte stream the way hyper frames it (head, then
//! a body by length or by chunks), noting for each head whether its framing headers conflict. The request
//! pipeline takes the notes in order, one per request (`HeadNotes::next`). The guard never changes the bytes and
//! never blocks: when it meets something it does not follow (a head larger than its bound, a malformed chunk
//! size, HTTP/2, a request to switch protocols) it stops noting for that connection, and hyper's own checks and
//! `framing.rs` remain.
use memchr::memmem;
use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, LazyLock, Mutex};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Largest request head followed. hyper's own limit is larger; a bigger head only ends the noting.
const MAX_HEAD: usize = 64 * 1024;
/// Longest chunk-size line followed (size plus extensions).
const MAX_CHUNK_LINE: usize = 1024;

const HEAD_END: &[u8] = b"\r\n\r\n";

/// The searcher for `HEAD_END`, built once: `memmem::find` would build one on every read.
static HEAD_END_FINDER: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(HEAD_END));

/// A conflict found in one request head.
pub type Conflict = Option<&'static str>;

/// The notes of one connection, shared between the guard (writer) and the request pipeline (reader).
#[derive(Clone, Default)]
pub struct HeadNotes(Arc<Mutex<VecDeque<Conflict>>>);

impl HeadNotes {
    /// The note for the next request of this connection (`None` when the guard did not follow it).
    pub fn next(&self) -> Conflict {
        self.0.lock().ok().and_then(|mut q| q.pop_front()).flatten()
    }

    fn push(&self, conflict: Conflict) {
        if let Ok(mut q) = self.0.lock() {
            q.push_back(conflict);
        }
    }
}

enum Phase {
    Head(Vec<u8>),
    Length(u64),
    ChunkSize(Vec<u8>),
    ChunkData(u64),
    ChunkDataEnd(u8),
    Trailers(Vec<u8>),
    /// Not following this connection any more.
    Off,
}

pub struct HeadGuard<T> {
    inner: T,
    phase: Phase,
    notes: HeadNotes,
}

impl<T> HeadGuard<T> {
    pub fn new(inner: T, notes: HeadNotes) -> Self {
        HeadGuard {
            inner,
            phase: Phase::Head(Vec::new()),
            notes,
        }
    }

    fn observe(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let (phase, used) = step(
                std::mem::replace(&mut self.phase, Phase::Off),
                bytes,
                &self.notes,
            );
            self.phase = phase;
            bytes = &bytes[used..];
            if matches!(self.phase, Phase::Off) {
                return;
            }
        }
    }
}

/// Advances by at most `bytes`, returning the next phase and how many bytes were consumed.
fn step(phase: Phase, bytes: &[u8], notes: &HeadNotes) -> (Phase, usize) {
    match phase {
        Phase::Off => (Phase::Off, bytes.len()),
        Phase::Head(mut buf) => {
            if buf.is_empty() {
                // hyper skips empty lines before a request line.
                let used = bytes
                    .iter()
                    .take_while(|b| **b == b'\r' || **b == b'\n')
                    .count();
                let rest = &bytes[used..];
                // The usual case: the whole head arrived in one read; look at it where it lies, no copy.
                if let Some(i) = HEAD_END_FINDER.find(rest) {
                    let end = i + HEAD_END.len();
                    return (after_head(&rest[..end], notes), used + end);
                }
                buf.extend_from_slice(rest);
                return (Phase::Head(buf), bytes.len());
            }
            let start = buf.len().saturating_sub(HEAD_END.len() - 1);
            buf.extend_from_slice(bytes);
            let Some(end) = HEAD_END_FINDER
                .find(&buf[start..])
                .map(|i| start + i + HEAD_END.len())
            else {
                return if buf.len() > MAX_HEAD {
                    (Phase::Off, bytes.len())
                } else {
                    (Phase::Head(buf), bytes.len())
                };
            };
            let consumed = bytes.len() - (buf.len() - end);
            (after_head(&buf[..end], notes), consumed)
        }
        Phase::Length(n) => {
            let take = n.min(bytes.len() as u64);
            let rest = n - take;
            let next = if rest == 0 {
                Phase::Head(Vec::new())
            } else {
                Phase::Length(rest)
            };
            (next, take as usize)
        }
        Phase::ChunkSize(mut line) => match bytes.iter().position(|b| *b == b'\n') {
            None => {
                line.extend_from_slice(bytes);
                if line.len() > MAX_CHUNK_LINE {
                    (Phase::Off, bytes.len())
                } else {
                    (Phase::ChunkSize(line), bytes.len())
                }
            }
            Some(i) => {
                line.extend_from_slice(&bytes[..i]);
                let size = line.split(|b| *b == b';').next().unwrap_or_default();
                let size = std::str::from_utf8(size)
                    .ok()
                    .map(|s| s.trim_matches([' ', '\t', '\r']));
                match size.and_then(|s| u64::from_str_radix(s, 16).ok()) {
                    Some(0) => (Phase::Trailers(Vec::new()), i + 1),
                    Some(n) => (Phase::ChunkData(n), i + 1),
                    None => (Phase::Off, bytes.len()),
                }
            }
        },
        Phase::ChunkData(n) => {
            let take = n.min(bytes.len() as u64);
            let rest = n - take;
            let next = if rest == 0 {
                Phase::ChunkDataEnd(2)
            } else {
                Phase::ChunkData(rest)
            };
            (next, take as usize)
        }
        Phase::ChunkDataEnd(n) => {
            let take = usize::from(n).min(bytes.len());
            let rest = n - take as u8;
            let next = if rest == 0 {
                Phase::ChunkSize(Vec::new())
            } else {
                Phase::ChunkDataEnd(rest)
            };
            (next, take)
        }
        Phase::Trailers(mut line) => match bytes.iter().position(|b| *b == b'\n') {
            None => {
                line.extend_from_slice(bytes);
                if line.len() > MAX_HEAD {
                    (Phase::Off, bytes.len())
                } else {
                    (Phase::Trailers(line), bytes.len())
                }
            }
            Some(i) => {
                line.extend_from_slice(&bytes[..i]);
                let blank = line.iter().all(|b| *b == b'\r');
                let next = if blank {
                    Phase::Head(Vec::new())
                } else {
                    Phase::Trailers(Vec::new())
                };
                (next, i + 1)
            }
        },
    }
}

/// Notes a complete head and chooses how its body is framed.
fn after_head(head: &[u8], notes: &HeadNotes) -> Phase {
    // Lines found with memchr: this runs over every request head, and a byte-by-byte split cost more than the
    // rest of the guard together.
    let mut start = 0;
    let mut lines = memchr::memchr_iter(b'\n', head)
        .chain(std::iter::once(head.len()))
        .map(|end| {
            let line = &head[start.min(end)..end];
            start = end + 1;
            line.strip_suffix(b"\r").unwrap_or(line)
        });
    let request_line = lines.next().unwrap_or_default();
    if !request_line.ends_with(b"HTTP/1.1") && !request_line.ends_with(b"HTTP/1.0") {
        return Phase::Off;
    }
    let mut lengths = Vec::new();
    let mut chunked = false;
    let mut codings = 0;
    let mut upgrade = false;
    for line in lines {
        // Only `Content-Length`, `Transfer-Encoding` and `Upgrade` matter: skip other lines by their first byte.
        if !matches!(line.first(), Some(b'c' | b'C' | b't' | b'T' | b'u' | b'U')) {
            continue;
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            continue;
        };
        let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
        if name.eq_ignore_ascii_case(b"content-length") {
            lengths.push(value);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            codings += 1;
            chunked = value.eq_ignore_ascii_case(b"chunked");
        } else if name.eq_ignore_ascii_case(b"upgrade") {
            upgrade = true;
        }
    }
    let conflict = if !lengths.is_empty() && codings > 0 {
        Some("both Content-Length and Transfer-Encoding")
    } else if lengths.len() > 1 {
        Some("more than one Content-Length")
    } else {
        None
    };
    notes.push(conflict);
    if conflict.is_some() {
        // hyper closes such a connection after answering: nothing after this head is a request.
        return Phase::Off;
    }
    if upgrade {
        // If the upstream switches protocols, what follows is not HTTP: stop rather than read it as heads.
        return Phase::Off;
    }
    if codings > 0 {
        return if chunked {
            Phase::ChunkSize(Vec::new())
        } else {
            Phase::Off
        };
    }
    match lengths.first() {
        None => Phase::Head(Vec::new()),
        Some(v) => match std::str::from_utf8(v)
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
        {
            Some(0) => Phase::Head(Vec::new()),
            Some(n) => Phase::Length(n),
            None => Phase::Off,
        },
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for HeadGuard<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            let this = self.get_mut();
            this.observe(&buf.filled()[before..]);
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for HeadGuard<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `stream` in pieces of `piece` bytes and returns the notes taken.
    fn notes(stream: &[u8], piece: usize) -> Vec<Conflict> {
        let notes = HeadNotes::default();
        let mut guard = HeadGuard::new((), notes.clone());
        for part in stream.chunks(piece) {
            guard.observe(part);
        }
        let taken: Vec<Conflict> = notes.0.lock().unwrap().iter().copied().collect();
        taken
    }

    #[test]
    fn follows_pipelined_requests_in_any_piece_size() {
        let stream = b"\r\nPOST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello\
GET /b HTTP/1.1\r\nHost: a\r\n\r\n\
POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n\
POST /d HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\ncontent-length: 4\r\n\r\nabcd";
        for piece in [1, 2, 3, 7, 64, 4096] {
            assert_eq!(
                notes(stream, piece),
                vec![None, None, None, Some("more than one Content-Length")],
                "piece size {piece}"
            );
        }
    }

    #[test]
    fn notes_both_framings_and_stops() {
        let stream = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n";
        assert_eq!(
            notes(stream, 5),
            vec![Some("both Content-Length and Transfer-Encoding")]
        );
    }

    #[test]
    fn gives_up_on_what_it_does_not_follow() {
        assert!(notes(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 100).is_empty());
        let bad_chunk =
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nGET / HTTP/1.1\r\n\r\n";
        assert_eq!(notes(bad_chunk, 100), vec![None]);
        let huge = vec![b'a'; MAX_HEAD + 10];
        assert!(notes(&huge, 1000).is_empty());
    }
}
