//! The keep-alive connections to upstreams, and how their failures are classified.
//!
//! Each worker (`workers.rs`) has its own pool, so an upstream connection is used only by the thread that opened
//! it, and one pool serves every upstream of that worker. A pooled connection is an HTTP/1.1 connection of
//! hyper's (`client::conn::http1`) whose task runs on the worker; the pool keeps the handles to send on them.
//!
//! Why not hyper-util's pooled client: it is built for any executor and any number of threads (a shared map
//! hashed with SipHash per request, a lock, a race between checkout and a new connection, boxed futures), and
//! that bookkeeping was about a tenth of a proxied request's instructions here. A worker needs less: a short list
//! per upstream, most recently used first.
//!
//! A connection goes back to its list as soon as the response head has arrived; while its body streams, it is
//! busy (`is_ready` false) and checkouts pass it by. One that the upstream closed, or that stayed idle longer than
//! `pool_idle_timeout_sec`, is dropped when a checkout meets it or at the worker's next sweep
//! ([`Upstreams::close_idle`], every second), which closes it. A request sent on a pooled connection that turns out
//! to be closed before the request was written is sent again on another connection (the upstream never saw it);
//! any other failure is the client's 502 or 504.
//!
//! The pools are rebuilt only when their own settings change on a config reload; a change of domains or
//! upstream addresses keeps the warm connections.
use crate::body::ProxyBody;
use crate::config::UpstreamConfig;
use crate::metrics::UpstreamFailure;
use http::uri::Authority;
use http::{Request, Response};
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;

pub struct Upstreams {
    /// One per worker, indexed by the worker's number.
    pools: Vec<Pool>,
    settings: UpstreamConfig,
}

/// One worker's connections. The lock is never contended (only its worker takes it) and never held across an
/// await; it is there because the request futures may be polled from any thread as far as the types know.
#[derive(Default)]
struct Pool(Mutex<Vec<Lane>>);

/// The connections to one upstream address, most recently returned last.
struct Lane {
    authority: Authority,
    connections: Vec<Pooled>,
}

struct Pooled {
    sender: SendRequest<ProxyBody>,
    returned: Instant,
}

type Failure = (UpstreamFailure, String);

impl Upstreams {
    /// Pools for `workers` workers. Building one opens no connection: pools fill on first use.
    pub fn new(cfg: &UpstreamConfig, workers: usize) -> Self {
        Upstreams {
            pools: (0..workers).map(|_| Pool::default()).collect(),
            settings: cfg.clone(),
        }
    }

    /// Whether these pools were built from settings equal to `cfg` (only the default upstream may differ: it
    /// is not a pool setting).
    pub fn matches(&self, cfg: &UpstreamConfig) -> bool {
        UpstreamConfig {
            default: cfg.default.clone(),
            ..self.settings.clone()
        } == *cfg
    }

    /// Sends a request (origin-form target, `Host` set) to `upstream` on a connection of worker `worker`'s
    /// pool, and waits for the response head within the response timeout (a new connection's connect timeout
    /// included). The body is not awaited: it streams back to the client as it arrives.
    pub async fn send(
        &self,
        worker: usize,
        upstream: &Authority,
        req: Request<ProxyBody>,
    ) -> Result<Response<Incoming>, Failure> {
        let pool = &self.pools[worker];
        let exchange = async {
            let mut req = req;
            loop {
                let (mut sender, pooled) = match pool.checkout(upstream, self.idle_timeout()) {
                    Some(sender) => (sender, true),
                    None => (self.connect(upstream).await?, false),
                };
                match sender.try_send_request(req).await {
                    Ok(response) => {
                        pool.checkin(upstream, sender, self.settings.pool_max_idle_per_host);
                        return Ok(response);
                    }
                    Err(mut e) => match e.take_message() {
                        // A pooled connection closed before the request was written: the upstream never saw it.
                        // Each retry takes another pooled connection or, at last, a new one, which is not retried.
                        Some(unsent) if pooled => req = unsent,
                        _ => return Err(classify(e.error())),
                    },
                }
            }
        };
        match tokio::time::timeout(
            Duration::from_millis(self.settings.response_timeout_ms),
            exchange,
        )
        .await
        {
            Err(_) => Err((UpstreamFailure::Timeout, "no response head in time".into())),
            Ok(result) => result,
        }
    }

    /// Closes worker `worker`'s stale connections (see [`Pooled::is_stale`]): an idle connection is closed after
    /// the idle timeout even when no request comes to notice it.
    pub fn close_idle(&self, worker: usize) {
        let Some(Ok(mut lanes)) = self.pools.get(worker).map(|pool| pool.0.lock()) else {
            return;
        };
        let now = Instant::now();
        for lane in lanes.iter_mut() {
            // Dropping the last handle to an idle connection closes it.
            lane.connections
                .retain(|pooled| !pooled.is_stale(now, self.idle_timeout()));
        }
        lanes.retain(|lane| !lane.connections.is_empty());
    }

    fn idle_timeout(&self) -> Duration {
        Duration::from_secs(self.settings.pool_idle_timeout_sec)
    }

    /// Opens a connection to `upstream` and starts its task on the current worker.
    async fn connect(&self, upstream: &Authority) -> Result<SendRequest<ProxyBody>, Failure> {
        // `[::1]` in a URL is `::1` to the resolver.
        let host = upstream
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        let port = upstream.port_u16().unwrap_or(80);
        let stream = match tokio::time::timeout(
            Duration::from_millis(self.settings.connect_timeout_ms),
            TcpStream::connect((host, port)),
        )
        .await
        {
            Err(_) => return Err((UpstreamFailure::Timeout, "connect timed out".into())),
            Ok(Err(e)) => return Err((UpstreamFailure::Unavailable, format!("connect: {e}"))),
            Ok(Ok(stream)) => stream,
        };
        // Requests and answers are small writes that should leave at once.
        let _ = stream.set_nodelay(true);
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| classify(&e))?;
        tokio::spawn(async move {
            // Upgrades: a 101 answer hands the connection over to `upgrade::relay`.
            if let Err(e) = connection.with_upgrades().await {
                tracing::debug!("upstream connection ended: {e}");
            }
        });
        Ok(sender)
    }
}

impl Pooled {
    /// Closed by the upstream, or idle since longer than `idle_timeout` before `now`. A busy connection (its
    /// response still streaming) is neither.
    fn is_stale(&self, now: Instant, idle_timeout: Duration) -> bool {
        self.sender.is_closed()
            || (self.sender.is_ready() && now.duration_since(self.returned) > idle_timeout)
    }
}

impl Pool {
    /// The most recently returned connection to `upstream` that is ready for a request, dropping on the way the
    /// stale ones.
    fn checkout(
        &self,
        upstream: &Authority,
        idle_timeout: Duration,
    ) -> Option<SendRequest<ProxyBody>> {
        let mut lanes = self.0.lock().ok()?;
        let lane = lanes.iter_mut().find(|l| l.authority == *upstream)?;
        let connections = &mut lane.connections;
        let now = Instant::now();
        let mut i = connections.len();
        while i > 0 {
            i -= 1;
            let pooled = &connections[i];
            if pooled.is_stale(now, idle_timeout) {
                connections.remove(i);
            } else if pooled.sender.is_ready() {
                return Some(connections.remove(i).sender);
            }
        }
        None
    }

    /// Returns a connection whose request was sent; beyond `max_idle` per upstream it is closed instead.
    fn checkin(&self, upstream: &Authority, sender: SendRequest<ProxyBody>, max_idle: usize) {
        let Ok(mut lanes) = self.0.lock() else {
            return;
        };
        let i = match lanes.iter().position(|l| l.authority == *upstream) {
            Some(i) => i,
            None => {
                lanes.push(Lane {
                    authority: upstream.clone(),
                    connections: Vec::new(),
                });
                lanes.len() - 1
            }
        };
        let lane = &mut lanes[i];
        if lane.connections.len() < max_idle {
            lane.connections.push(Pooled {
                sender,
                returned: Instant::now(),
            });
        }
    }
}

fn classify(e: &hyper::Error) -> Failure {
    let failure = if is_timeout(e) {
        UpstreamFailure::Timeout
    } else {
        UpstreamFailure::Unavailable
    };
    (failure, error_chain(e))
}

fn is_timeout(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::TimedOut
        {
            return true;
        }
        cur = err.source();
    }
    false
}

fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(err) = cur {
        out.push_str(": ");
        out.push_str(&err.to_string());
        cur = err.source();
    }
    out
}
