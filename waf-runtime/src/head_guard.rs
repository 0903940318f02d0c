//! The proxy's front line: every HTTP/1 byte from a client passes here before hyper parses it.
//!
//! `HeadGuard` wraps the connection's read side and frames the byte stream exactly as hyper will: request heads
//! by httparse's rules (the parser hyper uses, with the same configuration), bodies by hyper's rules (a
//! `Content-Length`, or hyper's chunked decoder, which wants CRLF after every chunk line). For each head it
//! decides, before hyper sees it:
//!
//! - limits (`limits.rs`): a request line, a header line, a head or a header count over the limit is refused
//!   as soon as it is over, without buffering the rest;
//! - framing (`framing::body_framing`): two lengths, both a length and a transfer coding, or a coding other
//!   than `chunked` is refused, and the request that carries it is the one refused;
//! - the target (`request_target.rs`): bytes httparse accepts but `http::Uri` refuses are percent-encoded.
//!
//! A refused head never reaches hyper: hyper is handed a stand-in request instead (`STAND_IN`, which asks for the
//! connection to close), the pipeline answers it with the refusal (`HeadNote::refusal`), and nothing after it
//! on the connection is read. So a refusal never reaches the rules or the upstream.
//!
//! Bare LF: RFC 9112 §2.2 lets a recipient accept a bare LF as a line terminator, httparse does (so hyper does),
//! and so does nginx. The guard accepts it too, in the request line and header lines, because what matters is
//! that the guard and the parser agree on where a head ends; refusing bare LF in the guard alone would also be
//! consistent but refuse clients that nginx and the upstream serve. Chunked bodies stay CRLF-only, as in hyper.
//! A head is handed on only when httparse, run by the guard on the same bytes, ends it exactly where the
//! guard's scan did; anything else is refused.
//!
//! HTTP/2 (a connection that opens with the h2 preface, when h2 is on) and the bytes after a `101 Switching
//! Protocols` are not HTTP/1: the guard passes them on untouched. After a request that asks to switch, the
//! guard reads nothing more until the pipeline says how it was answered (`HeadNotes::upgrade_answered`).
//!
//! Time (`timeouts.rs`): the guard is where every read from an HTTP/1 client waits, so it holds each wait to its
//! bound (`HeadGuard::with_clock`): the first byte, a head from its first byte to its end, each read of a body,
//! the idle time between a response and the next head, an HTTP/2 connection without requests or whose client
//! has not acknowledged the proxy's SETTINGS (`settings_ack.rs`). A head not complete in time is answered 408
//! through the stand-in, like any refused head, and never handed on as a request: the client sent something,
//! and 408 tells a real (slow) client what happened, at the cost of one small write. A connection with nothing started (no byte yet, idle keep-alive, idle HTTP/2) is closed without
//! an answer, as nginx does: there is no request to answer, and a client that reuses an idle connection at the
//! moment it closes retries on a new one, which a 408 would only confuse.
use crate::framing::{self, BodyFraming, Refusal};
use crate::limits::{self, Limits};
use crate::request_target;
use crate::settings_ack::SettingsAck;
use crate::timeouts::{Clock, Stage, Wait};
use bytes::{Buf, BytesMut};
use http::StatusCode;
use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;

/// What hyper is handed in place of a refused head: a request without a body that asks for the connection to
/// be closed after its answer. The pipeline never routes it; it answers with the note's refusal.
pub const STAND_IN: &[u8] = b"GET / HTTP/1.1\r\nhost: refused.invalid\r\nconnection: close\r\n\r\n";

/// How a connection that speaks HTTP/2 with prior knowledge opens (RFC 9113 §3.4).
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Bytes read from the socket at a time.
const READ_SIZE: usize = 16 * 1024;

/// What a client whose head is not complete in time is answered (408, then the connection closes).
const HEAD_TIMEOUT: Refusal = Refusal {
    status: StatusCode::REQUEST_TIMEOUT,
    reason: "request head not received in time",
};

/// What the guard learnt about one request head, for the request pipeline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeadNote {
    /// The head was refused: hyper got `STAND_IN` in its place, to be answered with this.
    pub refusal: Option<Refusal>,
    /// The target as the client sent it, when it was percent-encoded for the parser (and is UTF-8): what the
    /// rules inspect.
    pub sent_target: Option<String>,
    /// The body framing the guard followed.
    pub framing: Option<BodyFraming>,
    /// The request asks to switch protocols (hyper's rule: `Upgrade` in HTTP/1.1, or CONNECT).
    pub upgrade: bool,
}

/// The notes of one connection, shared between the guard (writer) and the request pipeline (reader).
#[derive(Clone, Default)]
pub struct HeadNotes(Arc<Mutex<Shared>>);

#[derive(Default)]
struct Shared {
    notes: VecDeque<HeadNote>,
    /// How the request that asked to switch protocols was answered, once it was.
    switched: Option<bool>,
    waker: Option<Waker>,
    /// Requests of this connection being answered (their response bodies not yet done).
    in_flight: usize,
    /// When the last request in flight was answered.
    idle_since: Option<Instant>,
    /// The HTTP/2 answers waiting for the client to open its flow-control window: each answer's number (from
    /// `answers`) and when it began to wait. A handful at most (one per stream in flight).
    stalled: Vec<(u64, Instant)>,
    /// Answers numbered so far.
    answers: u64,
    /// The guard's task, woken when an answer starts to wait so that it arms the bound.
    reader: Option<Waker>,
}

/// One request of a connection being answered: held by its response body, dropped when hyper is done with it
/// (or with the request, when the connection ends first).
pub struct InFlight {
    notes: HeadNotes,
    /// Its number among the connection's answers.
    id: u64,
    /// Whether it is waiting for the client (in `Shared::stalled`).
    stalled: bool,
}

impl InFlight {
    /// An HTTP/2 answer handed hyper a piece and is not asked for the next: hyper holds the piece until the
    /// client's flow-control window has room. The guard bounds that wait by `send_timeout_sec`, as the socket's
    /// writes are (`send_timeout.rs`): h2 buffers what it may not send yet, so the socket never waits and that
    /// bound never sees a client that keeps its window shut.
    pub fn awaits_client(&mut self) {
        if self.stalled {
            return;
        }
        self.stalled = true;
        let mut shared = self.notes.shared();
        shared.stalled.push((self.id, Instant::now()));
        if let Some(reader) = shared.reader.take() {
            reader.wake();
        }
    }

    /// hyper asked for the next piece: the client made room.
    pub fn progressed(&mut self) {
        if self.stalled {
            self.stalled = false;
            self.notes.shared().stalled.retain(|(id, _)| *id != self.id);
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut shared = self.notes.shared();
        if self.stalled {
            shared.stalled.retain(|(id, _)| *id != self.id);
        }
        shared.in_flight -= 1;
        if shared.in_flight == 0 {
            shared.idle_since = Some(Instant::now());
        }
    }
}

/// Whether a connection has requests being answered.
enum Activity {
    /// Since when the longest-waiting HTTP/2 answer has waited for the client's window, if one does.
    Busy(Option<Instant>),
    /// Idle since this instant (`None`: no request yet).
    Idle(Option<Instant>),
}

impl HeadNotes {
    fn shared(&self) -> MutexGuard<'_, Shared> {
        // The lock is never held across anything that can panic; a poisoned one still holds consistent notes.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The note for the next request of this connection (a default one for requests the guard does not see:
    /// HTTP/2).
    pub fn next(&self) -> HeadNote {
        self.shared().notes.pop_front().unwrap_or_default()
    }

    /// Tells the guard how the request that asked to switch protocols was answered: it reads on as HTTP/1, or
    /// passes the rest through.
    pub fn upgrade_answered(&self, switched: bool) {
        let mut shared = self.shared();
        shared.switched = Some(switched);
        if let Some(waker) = shared.waker.take() {
            waker.wake();
        }
    }

    /// Marks a request of this connection as being answered until the token is dropped.
    pub fn in_flight(&self) -> InFlight {
        let mut shared = self.shared();
        shared.in_flight += 1;
        shared.answers += 1;
        InFlight {
            notes: self.clone(),
            id: shared.answers,
            stalled: false,
        }
    }

    /// What the connection is doing; `reader` (the guard's task) is woken when an answer starts to wait for the
    /// client.
    fn activity(&self, reader: &Waker) -> Activity {
        let mut shared = self.shared();
        match shared.in_flight {
            0 => Activity::Idle(shared.idle_since),
            _ => {
                if !shared.reader.as_ref().is_some_and(|w| w.will_wake(reader)) {
                    shared.reader = Some(reader.clone());
                }
                Activity::Busy(shared.stalled.iter().map(|(_, since)| *since).min())
            }
        }
    }

    fn push(&self, note: HeadNote) {
        self.shared().notes.push_back(note);
    }

    fn upgrade_decision(&self, waker: &Waker) -> Option<bool> {
        let mut shared = self.shared();
        let decided = shared.switched.take();
        if decided.is_none() {
            shared.waker = Some(waker.clone());
        }
        decided
    }
}

/// Progress through a request head: positions in the guard's input, which starts at the request line.
#[derive(Default, Clone, Copy)]
struct HeadScan {
    /// Input examined for line ends so far.
    scanned: usize,
    /// Where the current line starts.
    line_start: usize,
    /// Complete lines so far, the request line included.
    lines: usize,
}

/// hyper's chunked decoder, state for state (`hyper::proto::h1::decode`), carrying the chunk size.
#[derive(Clone, Copy)]
enum Chunk {
    Start,
    Size(u64),
    SizeLws(u64),
    Extension(u64),
    SizeLf(u64),
    Data(u64),
    DataCr,
    DataLf,
    EndCr,
    Trailer,
    TrailerLf,
    EndLf,
}

enum Phase {
    Head(HeadScan),
    Length(u64),
    Chunked(Chunk),
    /// After a request that asks to switch protocols: waiting for its answer.
    AwaitUpgrade,
    /// Not HTTP/1 (HTTP/2, or a switched protocol): passed on untouched.
    Passthrough,
    /// After a refusal, or a body hyper will fail on: nothing more is handed on.
    Closed,
    /// A wait past its bound: the connection reads as ended.
    TimedOut,
}

pub struct HeadGuard<T> {
    inner: T,
    limits: Limits,
    /// Whether the connection may open with the HTTP/2 preface.
    h2: bool,
    notes: HeadNotes,
    phase: Phase,
    /// Read from the client, not yet handed on: the head being assembled and what came after it.
    input: BytesMut,
    /// Ready for hyper, handed out by the next reads.
    output: BytesMut,
    /// Whether no head was seen yet on this connection (only the first may be the HTTP/2 preface).
    first: bool,
    /// The current request asks to switch protocols: after its body, wait for the answer.
    upgrading: bool,
    /// The connection opened with the HTTP/2 preface (its passthrough is timed as HTTP/2).
    h2_open: bool,
    /// Whether the HTTP/2 client has acknowledged the proxy's SETTINGS yet.
    settings_ack: SettingsAck,
    /// Holds each wait to its bound; none in the fuzz target and unit tests, which have no runtime.
    clock: Option<Clock>,
    /// When the first byte of the head being assembled arrived.
    head_started: Option<Instant>,
    /// When the client's last bytes arrived.
    last_read: Instant,
    /// Heads completed so far: tells a read that finished one head and started the next.
    heads: u64,
}

impl<T> HeadGuard<T> {
    pub fn new(inner: T, notes: HeadNotes, limits: Limits, h2: bool) -> Self {
        HeadGuard {
            inner,
            limits,
            h2,
            notes,
            phase: Phase::Head(HeadScan::default()),
            input: BytesMut::new(),
            output: BytesMut::new(),
            first: true,
            upgrading: false,
            h2_open: false,
            settings_ack: SettingsAck::default(),
            clock: None,
            head_started: None,
            last_read: Instant::now(),
            heads: 0,
        }
    }

    /// Holds the connection's waits to the clock's bounds.
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Takes bytes read from the client and moves what can be decided on to the output. Public for the fuzz
    /// target, which drives the guard without a socket.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.input.extend_from_slice(bytes);
        self.process();
    }

    /// Takes what is ready for the parser.
    pub fn take_output(&mut self) -> BytesMut {
        self.output.split()
    }

    fn process(&mut self) {
        while !self.input.is_empty() {
            let phase = std::mem::replace(&mut self.phase, Phase::Closed);
            self.phase = match phase {
                Phase::Head(scan) => match self.head(scan) {
                    Some(next) => next,
                    None => return,
                },
                Phase::Length(n) => {
                    let take =
                        usize::try_from(n).map_or(self.input.len(), |n| n.min(self.input.len()));
                    self.pass(take);
                    match n - take as u64 {
                        0 => self.after_request(),
                        rest => Phase::Length(rest),
                    }
                }
                Phase::Chunked(state) => self.chunked(state),
                Phase::Passthrough => {
                    if self.h2_open {
                        self.settings_ack.scan(&self.input);
                    }
                    self.pass(self.input.len());
                    Phase::Passthrough
                }
                Phase::AwaitUpgrade => {
                    self.phase = Phase::AwaitUpgrade;
                    return;
                }
                Phase::Closed => {
                    self.input.clear();
                    return;
                }
                Phase::TimedOut => {
                    self.phase = Phase::TimedOut;
                    self.input.clear();
                    return;
                }
            };
        }
    }

    /// Hands the first `n` input bytes on unchanged.
    fn pass(&mut self, n: usize) {
        let bytes = self.input.split_to(n);
        self.output.extend_from_slice(&bytes);
    }

    fn after_request(&mut self) -> Phase {
        if std::mem::take(&mut self.upgrading) {
            Phase::AwaitUpgrade
        } else {
            Phase::Head(HeadScan::default())
        }
    }

    fn refuse(&mut self, refusal: Refusal) -> Phase {
        self.output.extend_from_slice(STAND_IN);
        self.notes.push(HeadNote {
            refusal: Some(refusal),
            ..HeadNote::default()
        });
        self.input.clear();
        Phase::Closed
    }

    /// Looks for the end of the head; `None` while more bytes are needed.
    fn head(&mut self, mut scan: HeadScan) -> Option<Phase> {
        if scan.scanned == 0 {
            if self.first && self.h2 {
                let n = self.input.len().min(H2_PREFACE.len());
                if self.input[..n] == H2_PREFACE[..n] {
                    if n < H2_PREFACE.len() {
                        self.phase = Phase::Head(scan);
                        return None;
                    }
                    self.h2_open = true;
                    return Some(Phase::Passthrough);
                }
            }
            // Empty lines before a request line are skipped, as httparse does (a CR must be followed by LF).
            let blank = self
                .input
                .iter()
                .position(|b| *b != b'\n' && *b != b'\r')
                .unwrap_or(self.input.len());
            let mut skip = 0;
            while skip < blank {
                match self.input[skip] {
                    b'\n' => skip += 1,
                    _ if self.input.get(skip + 1) == Some(&b'\n') => skip += 2,
                    _ if skip + 1 == self.input.len() => break,
                    _ => return Some(self.refuse(bad("malformed request head"))),
                }
            }
            self.input.advance(skip);
            if self.input.is_empty() || self.input[0] == b'\r' {
                self.phase = Phase::Head(scan);
                return None;
            }
        }
        let end = match scan_head(&self.input, &mut scan, &self.limits) {
            Ok(Some(end)) => end,
            Ok(None) => {
                self.phase = Phase::Head(scan);
                return None;
            }
            Err(refusal) => return Some(self.refuse(refusal)),
        };
        self.first = false;
        self.heads += 1;
        let head = self.input.split_to(end);
        // A target with bytes the parser refuses is encoded first, so the parser checks what hyper will get.
        let (sent_target, encoded) = match encode_target(&head) {
            Some((target, encoded)) => {
                (String::from_utf8(head[target].to_vec()).ok(), Some(encoded))
            }
            None => (None, None),
        };
        let parsed = match parse_head(encoded.as_deref().unwrap_or(&head), scan.lines - 1) {
            Ok(parsed) => parsed,
            Err(refusal) => return Some(self.refuse(refusal)),
        };
        self.output
            .extend_from_slice(encoded.as_deref().unwrap_or(&head));
        let note = HeadNote {
            framing: Some(parsed.framing),
            upgrade: parsed.upgrade,
            sent_target,
            refusal: None,
        };
        self.notes.push(note);
        self.upgrading = parsed.upgrade;
        Some(match parsed.framing {
            BodyFraming::Empty | BodyFraming::Length(0) => self.after_request(),
            BodyFraming::Length(n) => Phase::Length(n),
            BodyFraming::Chunked => Phase::Chunked(Chunk::Start),
        })
    }

    /// Follows a chunked body through the input. Everything examined is handed on, including a byte hyper will
    /// refuse: hyper then fails the body, and the guard hands on nothing more.
    fn chunked(&mut self, mut state: Chunk) -> Phase {
        let mut used = 0;
        let next = loop {
            let Some(&byte) = self.input.get(used) else {
                break Phase::Chunked(state);
            };
            if let Chunk::Data(n) = state {
                let available = (self.input.len() - used) as u64;
                let take = n.min(available);
                used += take as usize;
                state = match n - take {
                    0 => Chunk::DataCr,
                    rest => Chunk::Data(rest),
                };
                continue;
            }
            used += 1;
            state = match (state, byte) {
                (Chunk::Start, b) => match hex(b) {
                    Some(d) => Chunk::Size(d),
                    None => break Phase::Closed,
                },
                (Chunk::Size(n), b) => match hex(b) {
                    Some(d) => match n.checked_mul(16).and_then(|n| n.checked_add(d)) {
                        Some(n) => Chunk::Size(n),
                        None => break Phase::Closed,
                    },
                    None => match b {
                        b'\t' | b' ' => Chunk::SizeLws(n),
                        b';' => Chunk::Extension(n),
                        b'\r' => Chunk::SizeLf(n),
                        _ => break Phase::Closed,
                    },
                },
                (Chunk::SizeLws(n), b'\t' | b' ') => Chunk::SizeLws(n),
                (Chunk::SizeLws(n), b';') => Chunk::Extension(n),
                (Chunk::SizeLws(n) | Chunk::Extension(n), b'\r') => Chunk::SizeLf(n),
                (Chunk::Extension(_), b'\n') => break Phase::Closed,
                (Chunk::Extension(n), _) => Chunk::Extension(n),
                (Chunk::SizeLf(0), b'\n') => Chunk::EndCr,
                (Chunk::SizeLf(n), b'\n') => Chunk::Data(n),
                (Chunk::DataCr, b'\r') => Chunk::DataLf,
                (Chunk::DataLf, b'\n') => Chunk::Start,
                (Chunk::EndCr, b'\r') => Chunk::EndLf,
                (Chunk::Trailer, b'\r') => Chunk::TrailerLf,
                (Chunk::EndCr | Chunk::Trailer, _) => Chunk::Trailer,
                (Chunk::TrailerLf, b'\n') => Chunk::EndCr,
                (Chunk::EndLf, b'\n') => {
                    self.pass(used);
                    return self.after_request();
                }
                _ => break Phase::Closed,
            };
        };
        self.pass(used);
        next
    }
}

/// Scans `input` (which starts at the request line) for the end of the head, by lines ending in LF or CRLF,
/// applying the limits as it goes. `Ok(None)` while more bytes are needed, `Ok(Some(end))` once the blank line
/// that ends the head is in.
fn scan_head(input: &[u8], scan: &mut HeadScan, limits: &Limits) -> Result<Option<usize>, Refusal> {
    for at in memchr::memchr_iter(b'\n', &input[scan.scanned..]) {
        let lf = scan.scanned + at;
        let line = &input[scan.line_start..lf];
        let len = line.strip_suffix(b"\r").unwrap_or(line).len();
        if len == 0 {
            // The request line is never empty (empty lines before it were skipped), so this ends the head.
            return if lf + 1 > limits.max_head_bytes {
                Err(limits::head_too_large())
            } else {
                Ok(Some(lf + 1))
            };
        }
        if scan.lines == 0 {
            if len > limits.max_request_line_bytes {
                return Err(limits::target_too_long());
            }
        } else if len > limits.max_header_line_bytes {
            return Err(limits::header_line_too_long());
        } else if scan.lines > limits.max_headers {
            return Err(limits::too_many_headers());
        }
        scan.lines += 1;
        scan.line_start = lf + 1;
    }
    // Refused as soon as over a limit, not once the rest has arrived: an endless line costs nothing. A line's
    // CR may be here while its LF is not yet: one byte of slack.
    let partial = (input.len() - scan.line_start).saturating_sub(1);
    if scan.lines == 0 && partial > limits.max_request_line_bytes {
        return Err(limits::target_too_long());
    }
    if scan.lines > 0 && partial > limits.max_header_line_bytes {
        return Err(limits::header_line_too_long());
    }
    if input.len() > limits.max_head_bytes {
        return Err(limits::head_too_large());
    }
    scan.scanned = input.len();
    Ok(None)
}

/// What the guard needs of a complete head.
struct ParsedHead {
    framing: BodyFraming,
    upgrade: bool,
}

/// The target's place in `head` and the head with the target percent-encoded (`request_target.rs`), when the
/// target has bytes that need it. The target is what lies between the request line's first and last space:
/// where httparse finds it in a request line it accepts; in one it refuses, only bytes of the encoding set in
/// that span change, and the line stays refused.
fn encode_target(head: &[u8]) -> Option<(std::ops::Range<usize>, Vec<u8>)> {
    let line = &head[..memchr::memchr(b'\n', head)?];
    let first = memchr::memchr(b' ', line)?;
    let last = memchr::memrchr(b' ', line)?;
    let target = first + 1..last.max(first + 1);
    let encoded = request_target::encode_for_parser(&head[target.clone()])?;
    let mut out = Vec::with_capacity(head.len() + encoded.len() - target.len());
    out.extend_from_slice(&head[..target.start]);
    out.extend_from_slice(&encoded);
    out.extend_from_slice(&head[target.end..]);
    Some((target, out))
}

/// Parses a complete head (`fields` header lines) with httparse, as hyper will, and decides its framing.
fn parse_head(head: &[u8], fields: usize) -> Result<ParsedHead, Refusal> {
    let mut headers = vec![httparse::EMPTY_HEADER; fields];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(head) {
        Ok(httparse::Status::Complete(n)) if n == head.len() => {}
        // Cannot happen for a head that ends with a blank line; refused rather than trusted.
        Ok(_) => return Err(bad("request head the parser ends elsewhere")),
        Err(e) => return Err(bad(parse_error(e))),
    }
    let (Some(method), Some(version)) = (req.method, req.version) else {
        return Err(bad("malformed request head"));
    };
    let http11 = version == 1;
    let fields = req.headers.iter().map(|h| (h.name.as_bytes(), h.value));
    let framing = framing::body_framing(http11, fields)?;
    let upgrade = method == "CONNECT"
        || (http11
            && req
                .headers
                .iter()
                .any(|h| h.name.eq_ignore_ascii_case("upgrade")));
    Ok(ParsedHead { framing, upgrade })
}

fn hex(b: u8) -> Option<u64> {
    char::from(b).to_digit(16).map(u64::from)
}

const fn bad(reason: &'static str) -> Refusal {
    Refusal {
        status: StatusCode::BAD_REQUEST,
        reason,
    }
}

/// The reason for a head httparse refuses (what hyper would have answered with 400, or 431 for the count).
fn parse_error(e: httparse::Error) -> &'static str {
    match e {
        httparse::Error::HeaderName => "invalid header name",
        httparse::Error::HeaderValue => "invalid header value",
        httparse::Error::NewLine => "invalid line ending",
        httparse::Error::Token => "invalid method or request target",
        httparse::Error::Version => "invalid HTTP version",
        httparse::Error::Status | httparse::Error::TooManyHeaders => "malformed request head",
    }
}

impl<T> HeadGuard<T> {
    /// Takes bytes the client sent, noting when the head they belong to started.
    fn read(&mut self, bytes: &[u8]) {
        if self.clock.is_none() {
            self.feed(bytes);
            return;
        }
        let now = Instant::now();
        self.last_read = now;
        let heads = self.heads;
        self.feed(bytes);
        // Blank lines before a head are dropped as they come (`input` stays empty): they start nothing, and the
        // wait they are part of (first byte, keep-alive) keeps its bound.
        self.head_started = match self.phase {
            Phase::Head(_) if !self.input.is_empty() => match self.head_started {
                Some(at) if heads == self.heads => Some(at),
                _ => Some(now),
            },
            _ => None,
        };
    }

    /// What the connection waits for now, and until when.
    fn wait(&self, clock: &Clock, reader: &Waker) -> Wait {
        let t = &clock.timeouts;
        let idle = |stage| match self.notes.activity(reader) {
            // Only HTTP/2 answers wait for a window (`InFlight::awaits_client`).
            Activity::Busy(Some(since)) => Wait::Until(Stage::Send, since + t.send),
            Activity::Busy(None) => Wait::Busy,
            Activity::Idle(since) => {
                Wait::Until(stage, since.unwrap_or(clock.started) + t.keepalive)
            }
        };
        match self.phase {
            Phase::Head(_) => match self.head_started {
                Some(at) => Wait::Until(Stage::Head, at + t.head),
                None if self.first => Wait::Until(Stage::FirstByte, clock.started + t.first_byte),
                None => idle(Stage::KeepAlive),
            },
            Phase::Length(_) | Phase::Chunked(_) => {
                Wait::Until(Stage::Body, self.last_read + t.body)
            }
            // RFC 9113 §6.5.3: SETTINGS not acknowledged in reasonable time may end the connection.
            Phase::Passthrough if self.h2_open && !self.settings_ack.seen() => {
                Wait::Until(Stage::Http2Settings, clock.started + t.head)
            }
            Phase::Passthrough if self.h2_open => idle(Stage::Http2Idle),
            Phase::Passthrough | Phase::AwaitUpgrade | Phase::Closed | Phase::TimedOut => {
                Wait::Unbounded
            }
        }
    }

    /// The stage whose bound the current wait is past, if any (never without a clock).
    fn expired(&mut self, cx: &mut Context<'_>) -> Option<Stage> {
        let mut clock = self.clock.take()?;
        let wait = self.wait(&clock, cx.waker());
        let expired = clock.expired(cx, wait);
        self.clock = Some(clock);
        expired
    }

    /// Ends the current wait: a started head is answered 408 (the stand-in goes to hyper), a body read fails,
    /// anything else reads as the end of the connection.
    fn time_out(&mut self, stage: Stage) -> io::Result<()> {
        let outcome = match stage {
            Stage::Head if !self.input.is_empty() => {
                self.phase = self.refuse(HEAD_TIMEOUT);
                "answered 408, then closed"
            }
            Stage::Body => {
                self.phase = Phase::TimedOut;
                "request failed, connection closed"
            }
            _ => {
                self.phase = Phase::TimedOut;
                "closed"
            }
        };
        if let Some(clock) = &self.clock {
            clock.timed_out(stage, outcome);
        }
        match stage {
            Stage::Body => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "request body not received in time",
            )),
            _ => Ok(()),
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for HeadGuard<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if !this.output.is_empty() {
                let n = this.output.len().min(buf.remaining());
                buf.put_slice(&this.output[..n]);
                this.output.advance(n);
                return Poll::Ready(Ok(()));
            }
            match this.phase {
                // hyper closes the connection after answering; until then it gets nothing more.
                Phase::Closed => return Poll::Pending,
                Phase::TimedOut => return Poll::Ready(Ok(())),
                Phase::AwaitUpgrade => {
                    match this.notes.upgrade_decision(cx.waker()) {
                        None => return Poll::Pending,
                        Some(true) => this.phase = Phase::Passthrough,
                        Some(false) => this.phase = Phase::Head(HeadScan::default()),
                    }
                    this.process();
                    continue;
                }
                Phase::Passthrough if this.input.is_empty() => {
                    let before = buf.filled().len();
                    let read = Pin::new(&mut this.inner).poll_read(cx, buf);
                    if this.h2_open && !this.settings_ack.seen() {
                        this.settings_ack.scan(&buf.filled()[before..]);
                    }
                    // Only HTTP/2 idleness is bounded here: a switched protocol is relayed as long as it lasts.
                    if read.is_pending()
                        && this.h2_open
                        && let Some(stage) = this.expired(cx)
                    {
                        this.time_out(stage)?;
                        return Poll::Ready(Ok(()));
                    }
                    return read;
                }
                _ => {}
            }
            if !ready!(this.poll_fill(cx))? {
                // End of the stream: an unfinished head is dropped, hyper sees the connection close.
                return Poll::Ready(Ok(()));
            }
        }
    }
}

impl<T: AsyncRead + Unpin> HeadGuard<T> {
    /// Waits, before any parser is made for the connection, for the first thing to hand one: a whole first head
    /// (or the stand-in of a refused one) or, when HTTP/2 is on, the HTTP/2 preface. Then `Some(true)` when the
    /// connection speaks HTTP/2, `Some(false)` for HTTP/1; `None` when it ended, or its first wait ran out,
    /// before that: nothing to serve. Every wait is bounded as in `poll_read`.
    ///
    /// So a connection that never completes a head (the slow shapes of `benches/slow-clients.sh`) never costs
    /// hyper's connection state and buffers, nor a pass through hyper for each piece it trickles; and the
    /// parser gets the whole first head in one read, as it gets every later one.
    pub fn poll_first(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<bool>>> {
        loop {
            if !self.output.is_empty() {
                return Poll::Ready(Ok(Some(self.h2_open)));
            }
            if matches!(self.phase, Phase::TimedOut | Phase::Closed) || !ready!(self.poll_fill(cx))?
            {
                return Poll::Ready(Ok(None));
            }
        }
    }

    /// Reads what the client sent into the guard, or, when nothing came, ends the current wait if it is past its
    /// bound. `Ok(false)` at the end of the stream.
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<bool>> {
        // Not zeroed: most polls of a keep-alive connection find nothing to read, and zeroing 16 KiB for each was
        // a fifth of a proxied request's instructions (the socket writes what `filled` returns).
        let mut chunk = [std::mem::MaybeUninit::<u8>::uninit(); READ_SIZE];
        let mut read = ReadBuf::uninit(&mut chunk);
        if Pin::new(&mut self.inner)
            .poll_read(cx, &mut read)?
            .is_pending()
        {
            let Some(stage) = self.expired(cx) else {
                return Poll::Pending;
            };
            self.time_out(stage)?;
            return Poll::Ready(Ok(true));
        }
        if read.filled().is_empty() {
            return Poll::Ready(Ok(false));
        }
        self.read(read.filled());
        Poll::Ready(Ok(true))
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

    /// Feeds `stream` in pieces of `piece` bytes; returns the notes and what the parser would be handed.
    fn run(stream: &[u8], piece: usize, limits: Limits) -> (Vec<HeadNote>, Vec<u8>) {
        let notes = HeadNotes::default();
        let mut guard = HeadGuard::new((), notes.clone(), limits, true);
        let mut out = Vec::new();
        for part in stream.chunks(piece) {
            guard.feed(part);
            out.extend_from_slice(&guard.take_output());
        }
        let taken = notes.shared().notes.iter().cloned().collect();
        (taken, out)
    }

    fn refusals(stream: &[u8], piece: usize) -> Vec<Option<&'static str>> {
        run(stream, piece, Limits::default())
            .0
            .iter()
            .map(|n| n.refusal.map(|r| r.reason))
            .collect()
    }

    #[test]
    fn follows_pipelined_requests_in_any_piece_size() {
        let stream = b"\r\n\nPOST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello\
GET /b HTTP/1.1\nHost: a\n\n\
POST /c HTTP/1.1\r\nHost: a\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n\
POST /d HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\ncontent-length: 4\r\n\r\nabcd";
        for piece in [1, 2, 3, 7, 64, 4096] {
            let (notes, out) = run(stream, piece, Limits::default());
            let reasons: Vec<_> = notes.iter().map(|n| n.refusal.map(|r| r.reason)).collect();
            assert_eq!(
                reasons,
                vec![None, None, None, Some("more than one Content-Length")],
                "piece size {piece}"
            );
            // The first three go on unchanged (without the leading empty lines), the fourth is the stand-in.
            let fourth = stream.windows(7).position(|w| w == b"POST /d").unwrap();
            let mut expected = stream[3..fourth].to_vec();
            expected.extend_from_slice(STAND_IN);
            assert_eq!(out, expected, "piece size {piece}");
        }
    }

    #[test]
    fn a_conflict_is_pinned_on_its_own_request_and_ends_the_stream() {
        let stream = b"GET /1 HTTP/1.1\nHost: a\n\nPOST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n";
        assert_eq!(
            refusals(stream, 5),
            vec![None, Some("both Content-Length and Transfer-Encoding")]
        );
    }

    #[test]
    fn limits_are_applied_before_the_head_is_complete() {
        let long_target = format!("GET /{} HTTP/1.1\r\n", "a".repeat(9000));
        assert_eq!(
            refusals(long_target.as_bytes(), 100),
            vec![Some("request line over the limit")]
        );
        let long_line = format!("GET / HTTP/1.1\r\nx: {}", "a".repeat(9000));
        assert_eq!(
            refusals(long_line.as_bytes(), 100),
            vec![Some("header line over the limit")]
        );
        let mut big = "GET / HTTP/1.1\r\n".to_string();
        for i in 0..10 {
            big.push_str(&format!("x{i}: {}\r\n", "a".repeat(4000)));
        }
        assert_eq!(
            refusals(big.as_bytes(), 1000),
            vec![Some("request head over the limit")]
        );
        let mut many = "GET / HTTP/1.1\r\n".to_string();
        for i in 0..101 {
            many.push_str(&format!("x{i}: 1\r\n"));
        }
        many.push_str("\r\n");
        assert_eq!(
            refusals(many.as_bytes(), 1000),
            vec![Some("more header fields than the limit")]
        );
        // Exactly at every limit is fine.
        let mut at = format!("GET /{} HTTP/1.1\r\n", "a".repeat(8192 - 15));
        for i in 0..2 {
            at.push_str(&format!("x{i}: {}\r\n", "b".repeat(8192 - 4)));
        }
        for i in 2..100 {
            at.push_str(&format!("x{i}: 1\r\n"));
        }
        at.push_str("\r\n");
        assert!(at.len() <= 32 * 1024, "{}", at.len());
        assert_eq!(refusals(at.as_bytes(), 999), vec![None]);
    }

    #[test]
    fn targets_are_encoded_for_the_parser_and_kept_as_sent() {
        let (notes, out) = run(
            b"GET /?json={\"a\":1} HTTP/1.1\r\nHost: a\r\n\r\n",
            3,
            Limits::default(),
        );
        assert_eq!(notes[0].sent_target.as_deref(), Some("/?json={\"a\":1}"));
        assert_eq!(
            out,
            b"GET /?json=%7B%22a%22:1%7D HTTP/1.1\r\nHost: a\r\n\r\n"
        );
        // Not UTF-8: httparse alone would refuse it.
        let (notes, out) = run(
            b"GET /caf\xe9 HTTP/1.1\nHost: a\n\n",
            100,
            Limits::default(),
        );
        assert_eq!(notes[0].sent_target, None);
        assert_eq!(notes[0].refusal, None);
        assert_eq!(out, b"GET /caf%E9 HTTP/1.1\nHost: a\n\n");
        for bad_target in [
            &b"GET /a\x01b HTTP/1.1\r\n\r\n"[..],
            b"GET /a\0 HTTP/1.1\r\n\r\n",
        ] {
            assert_eq!(
                refusals(bad_target, 4),
                vec![Some("invalid method or request target")]
            );
        }
    }

    #[test]
    fn http2_and_switched_protocols_pass_untouched() {
        let h2 = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04";
        let (notes, out) = run(h2, 5, Limits::default());
        assert!(notes.is_empty());
        assert_eq!(out, h2);

        let notes = HeadNotes::default();
        let mut guard = HeadGuard::new((), notes.clone(), Limits::default(), false);
        guard.feed(b"GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n\x81\x05hello");
        assert_eq!(guard.take_output().len(), 38);
        assert!(notes.next().upgrade);
        assert_eq!(notes.upgrade_decision(Waker::noop()), None);
        notes.upgrade_answered(true);
        assert_eq!(notes.upgrade_decision(Waker::noop()), Some(true));
    }
}
