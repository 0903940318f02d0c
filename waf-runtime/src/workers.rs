//! The threads that serve requests: `server.workers` of them (default: one per core), each running its own
//! single-threaded tokio runtime that accepts on the shared listening sockets (HTTP, HTTPS) and serves the
//! connections it accepted from start to end, with its own keep-alive pool to the upstreams (`upstream.rs`).
//!
//! Why not one multi-threaded runtime: a proxied request is short (parse, a few microseconds of checks, a write
//! to a pooled upstream connection, a read back), and on a multi-threaded runtime its pieces wake each other
//! across threads: the upstream connection's task may run on one worker and the client's on another, and work
//! stealing moves tasks between cores. Each such hop is a cross-thread wakeup and cache misses, which cost more
//! than the load balancing saves when every task is this small (measured in README, "Load test"). Here a
//! connection, the upstream connections it uses and their tasks never leave their thread; the kernel spreads new
//! connections over the threads waiting in `accept`. What stays shared is read-mostly: the configuration and
//! rule set behind atomic swaps, and the metrics' atomic counters.
//!
//! The control plane (signals, reloads, metrics upkeep, rule compilation) runs on a separate small runtime in
//! `lib.rs`, so a reload never takes a request thread.
use crate::server::{self, Listeners};
use crate::start_error::StartError;
use crate::state::State;
use std::sync::Arc;
use std::thread::JoinHandle;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

/// The bound listening sockets (non-blocking), shared by all workers.
pub struct Bound {
    pub http: Option<std::net::TcpListener>,
    pub https: Option<(std::net::TcpListener, TlsAcceptor)>,
}

impl Bound {
    /// A worker's own handles to the sockets.
    fn share(&self) -> Result<Bound, StartError> {
        let share = |l: &std::net::TcpListener| {
            l.try_clone()
                .map_err(StartError::at("sharing the listening socket"))
        };
        Ok(Bound {
            http: self.http.as_ref().map(share).transpose()?,
            https: match &self.https {
                Some((l, acceptor)) => Some((share(l)?, acceptor.clone())),
                None => None,
            },
        })
    }

    /// The sockets registered with the calling worker's runtime.
    fn into_listeners(self) -> std::io::Result<Listeners> {
        let tokio = tokio::net::TcpListener::from_std;
        Ok(Listeners {
            http: self.http.map(tokio).transpose()?,
            https: match self.https {
                Some((l, acceptor)) => Some((tokio(l)?, acceptor)),
                None => None,
            },
        })
    }
}

/// The running worker threads.
pub struct Workers(Vec<JoinHandle<()>>);

impl Workers {
    /// Starts `state`'s configured number of workers, each accepting on its own handles to `bound`, until `stop`
    /// turns true; then each drains its connections (`server::serve`).
    pub fn start(
        state: &Arc<State>,
        bound: &Bound,
        stop: &watch::Receiver<bool>,
    ) -> Result<Workers, StartError> {
        let mut handles = Vec::with_capacity(state.workers);
        for id in 0..state.workers {
            let listener = bound.share()?;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(StartError::at("starting a worker runtime"))?;
            let state = state.clone();
            let mut stop = stop.clone();
            let handle = std::thread::Builder::new()
                .name(format!("waf-worker-{id}"))
                .spawn(move || {
                    runtime.block_on(async move {
                        let listeners = match listener.into_listeners() {
                            Ok(l) => l,
                            Err(e) => {
                                tracing::error!(
                                    "worker {id}: cannot use the listening socket: {e}"
                                );
                                return;
                            }
                        };
                        let stopped = async move {
                            // An error means the sender is gone: the process is ending either way.
                            let _ = stop.wait_for(|stop| *stop).await;
                        };
                        server::serve(state, id, listeners, stopped).await;
                    });
                })
                .map_err(StartError::at("starting a worker thread"))?;
            handles.push(handle);
        }
        Ok(Workers(handles))
    }

    /// Waits until every worker has drained and ended.
    pub fn join(self) {
        for handle in self.0 {
            if handle.join().is_err() {
                tracing::error!("a worker thread panicked");
            }
        }
    }
}
