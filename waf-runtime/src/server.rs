//! One worker's accept loops: accepts connections on the HTTP and HTTPS listeners, serves each with hyper on the
//! worker's own runtime, and drains them on shutdown.
use crate::access_log::AccessBody;
use crate::body::BodyError;
use crate::client_ip::Peer;
use crate::connection_limits::{self, Admitted};
use crate::head_guard::{HeadGuard, HeadNotes, InFlight};
use crate::limits::Limits;
use crate::pipeline;
use crate::send_timeout::SendTimeout;
use crate::state::State;
use crate::timeouts::{Clock, Timeouts};
use crate::tls;
use bytes::Bytes;
use http::{Method, Request, StatusCode, Version};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::{Future, poll_fn};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

/// Connections a worker accepts before it lets the tasks already queued run.
///
/// The accept loop is the worker's `block_on` future, which tokio polls ahead of its run queue (every 61 tasks
/// at most), and each poll used to accept until the listening socket was empty or tokio's budget of 128 ran out.
/// While connections arrived by thousands, every poll queued up to 128 new connection tasks ahead of the
/// requests of established connections, faster than the queue drained, and those requests waited behind them
/// (`benches/slow-clients.sh`: the benign p99 41 times its quiet value while 10,000 connections arrived). In
/// batches of 16 a request waits behind at most 16 new connections per turn of the queue; a turn takes well
/// under a millisecond, so the worker still accepts thousands a second, and the listen backlog (1024) holds the
/// rest meanwhile.
const ACCEPT_BATCH: usize = 16;

/// What one worker accepts on: either listener may be off (`server.http_enabled`, `server.https_enabled`).
pub struct Listeners {
    pub http: Option<TcpListener>,
    pub https: Option<(TcpListener, TlsAcceptor)>,
}

/// Serves until `shutdown` completes, then stops accepting and waits up to the configured grace period for the
/// requests in flight to finish. `worker` is this worker's index (`workers.rs`).
pub async fn serve(
    state: Arc<State>,
    worker: usize,
    listeners: Listeners,
    shutdown: impl Future<Output = ()>,
) {
    let server = state.live.load().config.server.clone();
    // Header names are not case-preserved: hyper would keep a second map of the original spellings for every
    // request, and HTTP/1 names are case-insensitive; they reach the upstream lower-cased.
    let mut http1 = http1::Builder::new();
    http1
        // Off: hyper's timer starts when hyper reads a head, and the head guard hands hyper only complete heads,
        // so it never timed a head a client did not finish. The guard bounds every wait instead (`timeouts.rs`).
        .header_read_timeout(None)
        // The guard refuses heads with more fields (431, counted); hyper's own bound must not be lower.
        .max_headers(server.limits.max_headers)
        .timer(TokioTimer::new());
    let http2 = server.http2_enabled.then(|| {
        let mut http2 = http2::Builder::new(TokioExecutor::new());
        // HTTP/2 heads have no socket-side guard: the header list size is announced and enforced by the h2
        // library.
        http2.max_header_list_size(server.limits.h2_max_header_list_size());
        http2
    });
    let timeouts = server.timeouts();

    // The worker's idle upstream connections are closed once past their idle timeout, traffic or not.
    let sweeper = tokio::spawn({
        let state = state.clone();
        async move {
            let mut every_second = tokio::time::interval(Duration::from_secs(1));
            loop {
                every_second.tick().await;
                state.live.load().upstreams.close_idle(worker);
            }
        }
    });
    // Told to every connection when the worker stops; closed once the last connection has dropped its receiver.
    let (drain, draining) = watch::channel(());
    let connection = Connection {
        state,
        worker,
        protocols: Arc::new(Protocols { http1, http2 }),
        limits: server.limits,
        timeouts,
        draining,
    };
    let Listeners { http, https } = listeners;
    tokio::pin!(shutdown);
    let mut in_a_row = 0;
    loop {
        if in_a_row == ACCEPT_BATCH {
            in_a_row = 0;
            // A task spawned now runs after every task already queued (the worker's run queue is first in, first
            // out), the requests of established connections among them: awaiting it lets them all run before
            // the next connection is accepted.
            let _ = tokio::spawn(async {}).await;
        }
        tokio::select! {
            accepted = accept(http.as_ref()) => if let Some((stream, peer)) = accepted
                && let Some(admitted) = connection.admit(peer)
            {
                in_a_row += 1;
                connection.serve(stream, peer, None, admitted);
            },
            accepted = accept(https.as_ref().map(|(l, _)| l)) => if let Some((stream, peer)) = accepted
                && let Some(admitted) = connection.admit(peer)
            {
                in_a_row += 1;
                let Some((_, acceptor)) = &https else { continue };
                let acceptor = acceptor.clone();
                let connection = connection.clone();
                // The handshake runs as its own task: a slow client never holds up this loop.
                tokio::spawn(async move {
                    let metrics = connection.state.metrics;
                    if let Some(stream) = tls::handshake(&acceptor, stream, peer, timeouts, metrics).await {
                        let version = tls::version(&stream);
                        connection.serve(stream, peer, Some(version), admitted);
                    }
                });
            },
            () = &mut shutdown => break,
        }
    }
    drop((http, https, connection));
    sweeper.abort();
    tracing::info!("shutting down: draining requests in flight");
    let grace = Duration::from_secs(server.shutdown_grace_sec);
    let _ = drain.send(());
    tokio::select! {
        () = drain.closed() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(grace) => tracing::warn!("grace period of {grace:?} over; closing the rest"),
    }
}

/// Accepts one connection on `listener`; never completes when there is none. `None` after an accept error.
/// The admin panel's HTTPS listener accepts with it too. Both listeners have TCP_NODELAY set, which Linux
/// gives every connection they accept: answers go out as written, not held back for more (Nagle).
pub(crate) async fn accept(listener: Option<&TcpListener>) -> Option<(TcpStream, SocketAddr)> {
    let Some(listener) = listener else {
        return std::future::pending().await;
    };
    match listener.accept().await {
        Ok(accepted) => Some(accepted),
        Err(e) => {
            // Typically out of file descriptors: back off instead of spinning on the error.
            tracing::warn!("accept failed: {e}");
            tokio::time::sleep(Duration::from_millis(50)).await;
            None
        }
    }
}

/// What serving a connection needs, shared by the connections of one worker.
#[derive(Clone)]
struct Connection {
    state: Arc<State>,
    worker: usize,
    protocols: Arc<Protocols>,
    /// The head guard's limits (read at start).
    limits: Limits,
    timeouts: Timeouts,
    /// Changes when the worker stops: each connection then finishes what it is answering and closes.
    draining: watch::Receiver<()>,
}

/// hyper's settings for each protocol; HTTP/2 only when on (`server.http2_enabled`).
///
/// Not hyper-util's `auto` builder, which tells the protocols apart by reading the first 24 bytes (the HTTP/2
/// preface's length) and hands them back to HTTP/1's parser as a read of their own: every new connection's first
/// head was parsed twice, once cut at 24 bytes, then whole after hyper scanned it for its end; and its
/// connection state and buffers were made at accept, for clients that never send a request too. The head guard
/// reads the opening anyway: hyper's connection is made once the guard has a first head or the HTTP/2 preface
/// for it (`HeadGuard::poll_first`). `benches/instructions.sh` with `PER_CONNECTION=1` counts what a new
/// connection costs.
struct Protocols {
    http1: http1::Builder,
    http2: Option<http2::Builder<TokioExecutor>>,
}

impl Connection {
    /// Counts a new connection from `peer` as open, or (over a limit in force) counts it refused: dropping the
    /// stream closes it before anything is read.
    fn admit(&self, peer: SocketAddr) -> Option<Admitted> {
        let live = self.state.live.load();
        let server = &live.config.server;
        let max = server
            .max_connections
            .map_or_else(connection_limits::default_max_connections, |n| {
                usize::try_from(n).unwrap_or(usize::MAX)
            });
        let per_client = usize::try_from(server.max_connections_per_client).unwrap_or(usize::MAX);
        match self.state.connections.admit(peer.ip(), max, per_client) {
            Ok(admitted) => Some(admitted),
            Err(limit) => {
                self.state.metrics.connection_refused(limit);
                tracing::debug!(
                    "connection from {} closed at accept: over the {} connection limit",
                    peer.ip().to_canonical(),
                    limit.name()
                );
                None
            }
        }
    }

    /// Serves HTTP on `io` (plain, or TLS of version `tls`) in a task of its own, closed gracefully when the
    /// worker stops; `admitted` counts it open until the task ends, or, when it switches protocols, until the
    /// relay does.
    fn serve<I>(&self, io: I, peer: SocketAddr, tls: Option<&'static str>, admitted: Admitted)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let state = self.state.clone();
        let worker = self.worker;
        let notes = HeadNotes::default();
        let admitted = Arc::new(admitted);
        let held = admitted.clone();
        let clock = Clock::new(self.timeouts, peer.ip(), state.metrics);
        // Reads wait in the guard, writes in the send bound beneath it.
        let io = SendTimeout::new(io, self.timeouts.send, peer.ip(), state.metrics);
        let protocols = self.protocols.clone();
        let mut guard = HeadGuard::new(io, notes.clone(), self.limits, protocols.http2.is_some())
            .with_clock(clock);
        let draining = self.draining.clone();
        tokio::spawn(async move {
            let _admitted = admitted;
            let mut draining = draining;
            // The address in its plain IPv4 form when it arrived mapped on a dual-stack socket, for the log.
            let ended = |e: &dyn std::fmt::Display| {
                tracing::debug!("connection from {} ended: {e}", peer.ip().to_canonical());
            };
            let h2 = tokio::select! {
                first = poll_fn(|cx| guard.poll_first(cx)) => match first {
                    Ok(Some(h2)) => h2,
                    // Closed, or timed out (counted and logged by the guard), before a request.
                    Ok(None) => return,
                    Err(e) => return ended(&e),
                },
                // The worker stops before the client sent a request: closed, as hyper closes an idle connection.
                _ = draining.changed() => return,
            };
            // Made once there is a request: the slow shapes never pay for the address's text and the service.
            let client = Peer::new(peer.ip(), tls);
            let service = service_fn(move |mut req: Request<Incoming>| {
                let state = state.clone();
                let note = notes.next();
                let in_flight = notes.in_flight();
                if note.upgrade {
                    // hyper's connection task ends when it hands the connection to the relay (`upgrade.rs`): the
                    // relay holds the count from then on.
                    req.extensions_mut().insert(held.clone());
                }
                let notes = notes.clone();
                let client = client.clone();
                let connect = req.method() == Method::CONNECT;
                let h2 = req.version() == Version::HTTP_2;
                async move {
                    let upgrade = note.upgrade;
                    let response = pipeline::handle(state, worker, client, note, req).await;
                    if upgrade {
                        // hyper switches on 101, or on a 2xx to CONNECT: the guard reads on as HTTP/1 only when it
                        // did not.
                        let status = response.status();
                        let switched = status == StatusCode::SWITCHING_PROTOCOLS
                            || (connect && status.is_success());
                        notes.upgrade_answered(switched);
                    }
                    Ok::<_, Infallible>(response.map(|body| Answer {
                        body,
                        in_flight,
                        h2,
                    }))
                }
            });
            let served = match &protocols.http2 {
                Some(http2) if h2 => {
                    let connection = Box::pin(http2.serve_connection(TokioIo::new(guard), service));
                    until_drained(connection, draining, |c| c.graceful_shutdown()).await
                }
                _ => {
                    let connection = protocols
                        .http1
                        .serve_connection(TokioIo::new(guard), service)
                        .with_upgrades();
                    until_drained(Box::pin(connection), draining, |c| c.graceful_shutdown()).await
                }
            };
            if let Err(e) = served {
                ended(&e);
            }
        });
    }
}

/// Runs a connection to its end; when the worker stops first, asks it to finish what it is answering and close
/// (`graceful`), and runs it to that end. Holds `draining` until then: the worker waits for every receiver.
///
/// The connection comes boxed: it is kilobytes (hyper's buffers and state), and a task is copied whole when it
/// is spawned and again as it ends; with a pointer to it, the connection's task is a few hundred bytes.
async fn until_drained<C>(
    mut connection: Pin<Box<C>>,
    mut draining: watch::Receiver<()>,
    graceful: impl FnOnce(Pin<&mut C>),
) -> Result<(), Box<dyn std::error::Error + Send + Sync>>
where
    C: Future<Output = hyper::Result<()>>,
{
    tokio::select! {
        ended = connection.as_mut() => return Ok(ended?),
        // The worker stopped (or is gone: the sender dropped).
        _ = draining.changed() => graceful(connection.as_mut()),
    }
    Ok(connection.await?)
}

/// A response body that keeps its request in flight on the connection until hyper is done with it: the
/// connection's keep-alive (or HTTP/2) idle time starts when the answer is over, not when the request came.
/// Over HTTP/2 it also tells the guard when hyper holds a piece of it for the client's flow-control window.
struct Answer {
    body: AccessBody,
    in_flight: InFlight,
    h2: bool,
}

impl Body for Answer {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = self.get_mut();
        if !this.h2 {
            return Pin::new(&mut this.body).poll_frame(cx);
        }
        // hyper asks for the next piece only once the last one fitted in the client's window.
        this.in_flight.progressed();
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && frame.data_ref().is_some_and(|data| !data.is_empty())
        {
            this.in_flight.awaits_client();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
