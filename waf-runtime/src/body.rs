//! Request and response bodies: one body type for everything the proxy sends, and the bounded read of a request
//! body before inspection.
//!
//! `ProxyBody` is an enum rather than a boxed trait object so the hot path does not allocate per request for it:
//! our own small answers are `Full`, an upstream response streams through as `Stream` (never buffered whole), and
//! a request body that was read for inspection is forwarded as `Full`, or as `Prefixed` (the part read, then the
//! rest of the stream) when the operator chose to inspect only the first part of large bodies. An HTTP/2
//! request's body streamed on is `Bounded`: no head guard times its reads (`body_timeout.rs`).
use crate::body_timeout::BodyTimeout;
use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use std::pin::Pin;
use std::task::{Context, Poll};

#[derive(Debug)]
pub enum ProxyBody {
    Full(Option<Bytes>),
    Stream(Incoming),
    Prefixed(Option<Bytes>, Incoming),
    /// An HTTP/2 request body streamed on (after the part read for inspection, if any), each wait for its next
    /// bytes bounded.
    Bounded(Option<Bytes>, BodyTimeout<Incoming>),
}

/// What a body may fail with: hyper's errors, or a bounded body's [`crate::body_timeout::BodyTimedOut`].
pub type BodyError = Box<dyn std::error::Error + Send + Sync>;

impl ProxyBody {
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        let bytes = bytes.into();
        ProxyBody::Full((!bytes.is_empty()).then_some(bytes))
    }
}

impl Body for ProxyBody {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let hyper = |polled: Poll<Option<Result<Frame<Bytes>, hyper::Error>>>| {
            polled.map(|frame| frame.map(|f| f.map_err(BodyError::from)))
        };
        match self.get_mut() {
            ProxyBody::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            ProxyBody::Stream(incoming) => hyper(Pin::new(incoming).poll_frame(cx)),
            ProxyBody::Prefixed(prefix, incoming) => match prefix.take() {
                Some(b) => Poll::Ready(Some(Ok(Frame::data(b)))),
                None => hyper(Pin::new(incoming).poll_frame(cx)),
            },
            ProxyBody::Bounded(prefix, rest) => match prefix.take() {
                Some(b) => Poll::Ready(Some(Ok(Frame::data(b)))),
                None => Pin::new(rest).poll_frame(cx),
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            ProxyBody::Full(bytes) => bytes.is_none(),
            ProxyBody::Stream(incoming) => incoming.is_end_stream(),
            ProxyBody::Prefixed(prefix, incoming) => prefix.is_none() && incoming.is_end_stream(),
            ProxyBody::Bounded(prefix, rest) => prefix.is_none() && rest.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ProxyBody::Full(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            ProxyBody::Stream(incoming) => incoming.size_hint(),
            ProxyBody::Prefixed(prefix, incoming) => prefixed(prefix, incoming.size_hint()),
            ProxyBody::Bounded(prefix, rest) => prefixed(prefix, rest.size_hint()),
        }
    }
}

/// The size of `prefix` followed by a body of size `rest`.
fn prefixed(prefix: &Option<Bytes>, rest: SizeHint) -> SizeHint {
    let extra = prefix.as_ref().map_or(0, |b| b.len() as u64);
    let mut hint = SizeHint::new();
    hint.set_lower(rest.lower().saturating_add(extra));
    if let Some(upper) = rest.upper() {
        hint.set_upper(upper.saturating_add(extra));
    }
    hint
}

/// The outcome of reading a request body up to the limit.
pub enum ReadBody {
    /// The whole body, no longer than the limit.
    Complete(Bytes),
    /// The body is longer than the limit: `read` holds what was read (the limit, plus at most the rest of the
    /// chunk that crossed it) and `rest` the unread remainder.
    OverLimit { read: Bytes, rest: Incoming },
}

/// Reads `body` until its end or until more than `limit` bytes have arrived, whichever is first.
///
/// Memory stays bounded by `limit` plus one chunk whatever the client announces or sends. Trailers of a chunked
/// request body are dropped: the body is forwarded with a length, and no rule reads trailers.
pub async fn read_limited(mut body: Incoming, limit: usize) -> Result<ReadBody, hyper::Error> {
    // Pre-size from the announced length, but never beyond the limit: the announcement is client input.
    let announced = usize::try_from(body.size_hint().lower()).unwrap_or(usize::MAX);
    let mut buf = BytesMut::with_capacity(announced.min(limit));
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame?.into_data() else {
            continue;
        };
        buf.extend_from_slice(&data);
        if buf.len() > limit {
            return Ok(ReadBody::OverLimit {
                read: buf.freeze(),
                rest: body,
            });
        }
    }
    Ok(ReadBody::Complete(buf.freeze()))
}
