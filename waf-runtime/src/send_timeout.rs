//! The bound on a client that does not read what it is sent (nginx's `send_timeout`, `server.send_timeout_sec`).
//!
//! A client that asks for a large answer and then stops reading fills its receive window and the proxy's send
//! buffer; from then on every write waits, and without a bound the connection, its task and the upstream
//! connection streaming the answer are held until the client leaves (the slow-read shape of slowloris). As in
//! nginx, the bound is between two successive writes that make progress, not on the whole answer: a slow but
//! reading client is served as long as it takes. Past it the write fails, which ends the connection (hyper drops
//! it, and with it the upstream's answer), counted in `waf_connection_timeouts_total{stage="send"}` and logged at
//! debug. Both the proxy's listeners and the admin panel's wrap each client connection in it.
use crate::metrics::Metrics;
use crate::timeouts::{self, Stage, Stall};
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

pub struct SendTimeout<T> {
    inner: T,
    bound: Duration,
    peer: IpAddr,
    metrics: &'static Metrics,
    /// From a write that first finds no room to the next that makes progress.
    stall: Stall,
    /// The bound passed: every later write fails at once.
    expired: bool,
}

impl<T> SendTimeout<T> {
    pub fn new(inner: T, bound: Duration, peer: IpAddr, metrics: &'static Metrics) -> Self {
        SendTimeout {
            inner,
            bound,
            peer: peer.to_canonical(),
            metrics,
            stall: Stall::default(),
            expired: false,
        }
    }

    /// Holds the outcome of one write (or flush, or shutdown) to the bound: progress disarms the clock, a wait
    /// arms it (once per wait) and fails the write when it is over.
    fn bounded<R>(
        &mut self,
        cx: &mut Context<'_>,
        write: impl FnOnce(Pin<&mut T>, &mut Context<'_>) -> Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>>
    where
        T: Unpin,
    {
        if self.expired {
            return Poll::Ready(Err(send_timed_out()));
        }
        let polled = write(Pin::new(&mut self.inner), cx);
        if polled.is_ready() {
            self.stall.progressed();
            return polled;
        }
        if !self.stall.over(cx, self.bound) {
            return Poll::Pending;
        }
        self.expired = true;
        timeouts::timed_out(self.metrics, self.peer, Stage::Send, self.bound, "closed");
        Poll::Ready(Err(send_timed_out()))
    }
}

fn send_timed_out() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "client did not read the response in time",
    )
}

impl<T: AsyncRead + Unpin> AsyncRead for SendTimeout<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for SendTimeout<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().bounded(cx, |io, cx| io.poll_write(cx, buf))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().bounded(cx, |io, cx| io.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().bounded(cx, |io, cx| io.poll_shutdown(cx))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .bounded(cx, |io, cx| io.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
