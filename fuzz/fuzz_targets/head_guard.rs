//! Arbitrary byte streams of pipelined requests through the head guard into hyper, as in the proxy: the guard's
//! request boundaries must be the parser's. For every request hyper hands over, the guard's note for it must
//! describe that same request:
//!
//! - a refused head reaches hyper only as the guard's stand-in;
//! - a head the guard framed by a length gives hyper exactly that many body bytes (or fails, when the stream
//!   ends early), a head without a body gives none;
//! - hyper never sees more requests than the guard noted.
//!
//! If the two disagreed about where a request ends, the notes would slide against hyper's requests and one of
//! these breaks. The first input byte sets how many bytes each read returns (1 to 256), so heads are also cut
//! at every place. `fuzz/head_guard.dict` holds the tokens that make requests (run with
//! `-dict=head_guard.dict`).
#![no_main]

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use libfuzzer_sys::fuzz_target;
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use waf_runtime::BodyFraming;
use waf_runtime::{HeadGuard, HeadNotes};
use waf_runtime::Limits;

/// A client that sends `data` in reads of `piece` bytes, then closes; what it is sent is dropped.
struct Client {
    data: Vec<u8>,
    at: usize,
    piece: usize,
}

impl AsyncRead for Client {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = self
            .piece
            .min(self.data.len() - self.at)
            .min(buf.remaining());
        let at = self.at;
        buf.put_slice(&self.data[at..at + n]);
        self.at += n;
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Client {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&piece, stream)) = data.split_first() else {
        return;
    };
    // Small limits, so the fuzzer reaches them with short inputs.
    let limits = Limits {
        max_request_line_bytes: 200,
        max_header_line_bytes: 200,
        max_head_bytes: 600,
        max_headers: 8,
    };
    let notes = HeadNotes::default();
    let client = Client {
        data: stream.to_vec(),
        at: 0,
        piece: usize::from(piece) + 1,
    };
    let io = TokioIo::new(HeadGuard::new(client, notes.clone(), limits, false));
    let service = service_fn(move |req: hyper::Request<Incoming>| {
        let note = notes.next();
        let notes = notes.clone();
        async move {
            let stand_in = req.uri() == "/"
                && req.headers().get("host").is_some_and(|h| h == "refused.invalid");
            let body = req.into_body().collect().await.map(|b| b.to_bytes());
            match (&note.refusal, &note.framing) {
                (Some(_), _) => assert!(stand_in, "a refused head reached hyper as another request"),
                (None, None) => panic!("hyper parsed a request the guard did not note"),
                (None, Some(framing)) => match (framing, &body) {
                    (BodyFraming::Empty, Ok(b)) => assert!(b.is_empty()),
                    (BodyFraming::Empty, Err(e)) => panic!("an empty body failed: {e}"),
                    (BodyFraming::Length(n), Ok(b)) => assert_eq!(b.len() as u64, *n),
                    // A body cut short by the end of the stream fails; a chunked one has no length to compare.
                    (BodyFraming::Length(_) | BodyFraming::Chunked, _) => {}
                },
            }
            if note.upgrade {
                notes.upgrade_answered(false);
            }
            let mut response = hyper::Response::new(Full::new(Bytes::new()));
            if note.refusal.is_some() {
                response
                    .headers_mut()
                    .insert("connection", hyper::header::HeaderValue::from_static("close"));
            }
            Ok::<_, Infallible>(response)
        }
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let connection = hyper::server::conn::http1::Builder::new()
            .max_headers(limits.max_headers)
            .serve_connection(io, service);
        // With the clock paused, a connection waiting on nothing ends here at once instead of hanging.
        let _ = tokio::time::timeout(Duration::from_secs(3600), connection).await;
    });
});
