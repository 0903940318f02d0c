//! The bound on each wait for a request body's next bytes (`server.body_read_timeout_sec`) where no head guard
//! sees the body's bytes: the admin panel's requests, and HTTP/2 requests to the proxy.
//!
//! The proxy's HTTP/1 listeners time bodies in the head guard. The panel has no guard (hyper parses its requests
//! directly), and an HTTP/2 connection carries many streams, so the guard cannot tell one stream's body from the
//! rest: these bodies are wrapped in this instead. Without it a client that announces a body and sends part of
//! it holds the handler (or the request forwarded upstream), its task and the connection for as long as it
//! likes. Past the bound the body fails with [`BodyTimedOut`], counted in
//! `waf_connection_timeouts_total{stage="body"}` and logged at debug, as the guard's are: on the panel the
//! handler's extractor (`admin::error::JsonBody`) answers 408 and hyper closes the connection (the rest of the
//! body was never read); on the proxy the request forwarded upstream fails (`forward.rs`).
use crate::metrics::Metrics;
use crate::timeouts::{self, Stage, Stall};
use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::net::IpAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

pub struct BodyTimeout<B> {
    inner: B,
    bound: Duration,
    peer: IpAddr,
    metrics: &'static Metrics,
    /// From a read that first finds nothing to the next bytes.
    stall: Stall,
    /// What the client gets when the bound passes, for the log line.
    outcome: &'static str,
}

impl<B> BodyTimeout<B> {
    pub fn new(
        inner: B,
        bound: Duration,
        peer: IpAddr,
        metrics: &'static Metrics,
        outcome: &'static str,
    ) -> Self {
        BodyTimeout {
            inner,
            bound,
            peer: peer.to_canonical(),
            metrics,
            stall: Stall::default(),
            outcome,
        }
    }
}

impl<B: std::fmt::Debug> std::fmt::Debug for BodyTimeout<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BodyTimeout")
            .field("inner", &self.inner)
            .field("bound", &self.bound)
            .finish_non_exhaustive()
    }
}

/// Why a bounded body failed, as the handler's extractor reports it.
#[derive(Debug, thiserror::Error)]
#[error("request body not received in time")]
pub struct BodyTimedOut;

impl<B> Body for BodyTimeout<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            this.stall.progressed();
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        if !this.stall.over(cx, this.bound) {
            return Poll::Pending;
        }
        timeouts::timed_out(
            this.metrics,
            this.peer,
            Stage::Body,
            this.bound,
            this.outcome,
        );
        Poll::Ready(Some(Err(Box::new(BodyTimedOut))))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
