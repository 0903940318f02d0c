//! One worker's accept loop: accepts connections, serves each with hyper on the worker's own runtime, and drains
//! them on shutdown.
use crate::client_ip::Peer;
use crate::head_guard::{HeadGuard, HeadNotes};
use crate::pipeline;
use crate::state::State;
use http::{Method, Request, StatusCode};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// Serves until `shutdown` completes, then stops accepting and waits up to the configured grace period for the
/// requests in flight to finish. `worker` is this worker's index (`workers.rs`).
pub async fn serve(
    state: Arc<State>,
    worker: usize,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) {
    let server = state.live.load().config.server.clone();
    let mut builder = auto::Builder::new(TokioExecutor::new());
    if !server.http2_enabled {
        builder = builder.http1_only();
    }
    // Header names are not case-preserved: hyper would keep a second map of the original spellings for every
    // request, and HTTP/1 names are case-insensitive; they reach the upstream lower-cased.
    builder
        .http1()
        // A client that trickles its headers holds a connection and a task: bound the time it may take.
        .header_read_timeout(Duration::from_secs(server.header_read_timeout_sec))
        // The guard refuses heads with more fields (431, counted); hyper's own bound must not be lower.
        .max_headers(server.limits.max_headers)
        .timer(TokioTimer::new());
    // HTTP/2 heads have no socket-side guard: the header list size is announced and enforced by the h2 library.
    builder
        .http2()
        .max_header_list_size(server.limits.h2_max_header_list_size());

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
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    let state = state.clone();
                    let notes = HeadNotes::default();
                    let client = Peer::new(peer.ip());
                    let guard = HeadGuard::new(stream, notes.clone(), server.limits, server.http2_enabled);
                    let io = TokioIo::new(guard);
                    let service = service_fn(move |req: Request<Incoming>| {
                        let state = state.clone();
                        let note = notes.next();
                        let notes = notes.clone();
                        let client = client.clone();
                        let connect = req.method() == Method::CONNECT;
                        async move {
                            let upgrade = note.upgrade;
                            let response = pipeline::handle(state, worker, client, note, req).await;
                            if upgrade {
                                // hyper switches on 101, or on a 2xx to CONNECT: the guard reads on as HTTP/1
                                // only when it did not.
                                let status = response.status();
                                let switched = status == StatusCode::SWITCHING_PROTOCOLS
                                    || (connect && status.is_success());
                                notes.upgrade_answered(switched);
                            }
                            Ok::<_, Infallible>(response)
                        }
                    });
                    let connection = builder.serve_connection_with_upgrades(io, service).into_owned();
                    let connection = graceful.watch(connection);
                    tokio::spawn(async move {
                        if let Err(e) = connection.await {
                            tracing::debug!("connection from {peer} ended: {e}");
                        }
                    });
                }
                Err(e) => {
                    // Typically out of file descriptors: back off instead of spinning on the error.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    sweeper.abort();
    tracing::info!("shutting down: draining requests in flight");
    let grace = Duration::from_secs(server.shutdown_grace_sec);
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(grace) => tracing::warn!("grace period of {grace:?} over; closing the rest"),
    }
}
