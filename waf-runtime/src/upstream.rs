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
//! An `https://` upstream is reached over TLS (`upstream_tls.rs`), and spoken to in HTTP/2 when it chooses `h2`
//! by ALPN (`upstream.http2: auto`, the default): such a connection carries many requests at once, so it stays in
//! its list while in use and every request of the worker shares it. A request that may switch protocols (an
//! upgrade, HTTP/1.1 only) goes on connections that offered HTTP/1.1 alone, kept in a list of their own.
//!
//! A connection goes back to its list as soon as the response head has arrived; while its body streams, it is
//! busy (`is_ready` false) and checkouts pass it by. One that the upstream closed, or that stayed idle longer than
//! `pool_idle_timeout_sec`, is dropped when a checkout meets it or at the worker's next sweep
//! ([`Upstreams::close_idle`], every second), which closes it. A request sent on a pooled connection that turns out
//! to be closed before the request was written is sent again on another connection (the upstream never saw it);
//! any other failure is the client's 502 or 504.
//!
//! The pools are rebuilt only when their own settings change on a config reload; a change of domains or
//! upstream addresses keeps the warm connections. The TLS files (`ca_file`, `cert_file`, `key_file`) are read
//! again every `rules.reload_interval_sec`, as the certificate files the proxy serves are
//! ([`keep_rereading_tls_files`]): when one changed, the TLS client of its setting is built again and the pools
//! start afresh, so every new connection is made with the new files. A file that became unreadable or broken is
//! logged, and the TLS client built before stays in service.
use crate::body::ProxyBody;
use crate::body_timeout::BodyTimedOut;
use crate::config::{Config, UpstreamConfig, UpstreamTls};
use crate::metrics::UpstreamFailure;
use crate::upstream_tls::{self, Connectors, TlsSettingError};
use crate::upstream_url::UpstreamUrl;
use http::uri::{Authority, Scheme};
use http::{HeaderValue, Request, Response, Uri, Version, header};
use hyper::body::Incoming;
use hyper::client::conn::{TrySendError, http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

pub struct Upstreams {
    /// One per worker, indexed by the worker's number.
    pools: Vec<Pool>,
    settings: UpstreamConfig,
    /// A TLS client per distinct TLS setting of the configuration (`Config::upstream_tls_settings`, in that
    /// order).
    tls: Vec<TlsClient>,
}

/// The TLS client of one setting, or why it could not be built (a file that became unreadable since the
/// configuration was checked: then each request to such an upstream is a 502 that says so), and what its files
/// held when they were read.
#[derive(Clone)]
struct TlsClient {
    settings: UpstreamTls,
    built: Result<Connectors, Arc<TlsSettingError>>,
    files: upstream_tls::FilesRead,
}

/// One worker's connections. The lock is never contended (only its worker takes it) and never held across an
/// await; it is there because the request futures may be polled from any thread as far as the types know.
#[derive(Default)]
struct Pool(Mutex<Vec<Lane>>);

/// Where a connection goes: the upstream, its TLS client (an index into `Upstreams::tls`, 0 for cleartext) and
/// whether the connection offered HTTP/1.1 only.
#[derive(Clone, PartialEq, Eq)]
struct Target {
    url: UpstreamUrl,
    tls: usize,
    http1_only: bool,
}

/// The connections to one target, most recently returned last.
struct Lane {
    target: Target,
    connections: Vec<Pooled>,
}

struct Pooled {
    sender: Sender,
    returned: Instant,
}

/// A connection's handle: HTTP/1.1 (one request at a time) or HTTP/2 (any number at once, so it is shared).
enum Sender {
    Http1(http1::SendRequest<ProxyBody>),
    Http2(http2::SendRequest<ProxyBody>),
}

type Failure = (UpstreamFailure, String);

/// Why a request got no response head, and the request itself when the upstream never saw a byte of it (it may
/// then go to another server).
pub struct SendError {
    pub failure: UpstreamFailure,
    pub detail: String,
    pub unsent: Option<Request<ProxyBody>>,
}

/// Why a health check's request got no status.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("no answer within {} ms", .0.as_millis())]
    NoAnswer(Duration),
    /// The connection or the exchange failed: why, as a request's 502 would log it.
    #[error("{0}")]
    Failed(String),
}

impl Upstreams {
    /// Pools for `workers` workers and the TLS clients `config` needs. Building one opens no connection: pools
    /// fill on first use.
    pub fn new(config: &Config, workers: usize) -> Self {
        let tls = config
            .upstream_tls_settings()
            .into_iter()
            .map(|settings| {
                let files = upstream_tls::FilesRead::of(settings);
                let built =
                    upstream_tls::connectors(settings, config.upstream.http2).map_err(Arc::new);
                if let Err(e) = &built {
                    tracing::error!("upstream TLS client: {}: {e}", e.key());
                }
                TlsClient {
                    settings: settings.clone(),
                    built,
                    files,
                }
            })
            .collect();
        Upstreams {
            pools: (0..workers).map(|_| Pool::default()).collect(),
            settings: config.upstream.clone(),
            tls,
        }
    }

    /// New pools with the TLS clients built again from the files that changed on disk since they were read;
    /// `None` when none did. A changed file that does not load leaves the client built before in service.
    pub fn with_files_reread(&self) -> Option<Upstreams> {
        let mut changed = false;
        let tls = self
            .tls
            .iter()
            .map(|client| {
                let files = upstream_tls::FilesRead::of(&client.settings);
                if files == client.files {
                    return client.clone();
                }
                changed = true;
                let built = match upstream_tls::connectors(&client.settings, self.settings.http2) {
                    Ok(built) => {
                        tracing::info!(
                            "upstream TLS files changed ({}): new connections use them",
                            client.settings.files().join(", ")
                        );
                        Ok(built)
                    }
                    Err(e) => {
                        tracing::error!(
                            "upstream TLS client: {}: {e}; keeping the one built from the files as they were",
                            e.key()
                        );
                        client.built.clone()
                    }
                };
                TlsClient {
                    settings: client.settings.clone(),
                    built,
                    files,
                }
            })
            .collect();
        changed.then(|| Upstreams {
            pools: (0..self.pools.len()).map(|_| Pool::default()).collect(),
            settings: self.settings.clone(),
            tls,
        })
    }

    /// Whether these pools were built from settings equal to `config`'s (the choice of servers may differ: it
    /// is not a connection setting).
    pub fn matches(&self, config: &Config) -> bool {
        self.settings.same_connections(&config.upstream)
            && config
                .upstream_tls_settings()
                .into_iter()
                .eq(self.tls.iter().map(|client| &client.settings))
    }

    /// Sends a request (origin-form target, `Host` set) to `upstream` (with the TLS settings `tls` when it is
    /// `https://`) on a connection of worker `worker`'s pool, and waits for the response head within the
    /// response timeout (a new connection's connect timeout included). The body is not awaited: it streams back
    /// to the client as it arrives. `upgrade`: the request may switch protocols, so it goes over HTTP/1.1.
    pub async fn send(
        &self,
        worker: usize,
        upstream: &UpstreamUrl,
        tls: &UpstreamTls,
        upgrade: bool,
        req: Request<ProxyBody>,
    ) -> Result<Response<Incoming>, SendError> {
        let target = match self.target(upstream, tls, upgrade) {
            Ok(target) => target,
            Err((failure, detail)) => {
                return Err(SendError {
                    failure,
                    detail,
                    unsent: Some(req),
                });
            }
        };
        let pool = &self.pools[worker];
        // The request, while no byte of it has been written: on a failure before then it comes back in the
        // error, to be tried on another server.
        let mut unsent = Some(req);
        let exchange = async {
            loop {
                let Some(req) = unsent.take() else {
                    return Err((UpstreamFailure::Unavailable, "no request".to_string()));
                };
                let (mut sender, pooled) = match pool.checkout(&target, self.idle_timeout()) {
                    Some(sender) => (sender, true),
                    // Boxed: opening a connection (TCP, a TLS handshake with its rustls state, the HTTP/2
                    // handshake) is a future of kilobytes, rare once the pool is warm. Inline, it would size
                    // every request's future, which is moved (copied) several times per request.
                    None => match Box::pin(self.connect(&target)).await {
                        Ok(sender) => (sender, false),
                        Err(failure) => {
                            unsent = Some(req);
                            return Err(failure);
                        }
                    },
                };
                match sender.try_send(req).await {
                    Ok(response) => {
                        // A shared HTTP/2 connection never left its list.
                        if !pooled || matches!(sender, Sender::Http1(_)) {
                            pool.checkin(&target, sender, self.settings.pool_max_idle_per_host);
                        }
                        return Ok(response);
                    }
                    Err(e) => {
                        unsent = e.request;
                        // A pooled connection closed before the request was written: the upstream never saw
                        // it. Each retry takes another pooled connection or, at last, a new one, which is not
                        // retried here.
                        if !(pooled && unsent.is_some()) {
                            return Err(classify(&e.error));
                        }
                    }
                }
            }
        };
        let result = tokio::time::timeout(
            Duration::from_millis(self.settings.response_timeout_ms),
            exchange,
        )
        .await;
        let (failure, detail) = match result {
            Ok(Ok(response)) => return Ok(response),
            Ok(Err(failure)) => failure,
            Err(_) => (UpstreamFailure::Timeout, "no response head in time".into()),
        };
        Err(SendError {
            failure,
            detail,
            unsent,
        })
    }

    /// Where a request to `upstream` goes (see [`Target`]).
    fn target(
        &self,
        upstream: &UpstreamUrl,
        tls: &UpstreamTls,
        http1_only: bool,
    ) -> Result<Target, Failure> {
        if !upstream.is_tls() {
            return Ok(Target {
                url: upstream.clone(),
                tls: 0,
                http1_only: true,
            });
        }
        let index = self
            .tls
            .iter()
            .position(|client| &client.settings == tls)
            .ok_or((
                UpstreamFailure::Unavailable,
                "no TLS client for this upstream's settings".to_string(),
            ))?;
        Ok(Target {
            url: upstream.clone(),
            tls: index,
            http1_only,
        })
    }

    /// An active health check: `GET path` to `upstream` on a connection of its own, closed after; its status.
    pub async fn probe(
        &self,
        upstream: &UpstreamUrl,
        tls: &UpstreamTls,
        path: &str,
        timeout: Duration,
    ) -> Result<u16, ProbeError> {
        let exchange = async {
            let target = self.target(upstream, tls, true)?;
            let mut sender = self.connect(&target).await?;
            let req = Request::get(path)
                .header(header::HOST, upstream.authority().as_str())
                .header(header::CONNECTION, "close")
                .body(ProxyBody::Full(None))
                .map_err(|e| (UpstreamFailure::Unavailable, e.to_string()))?;
            sender
                .try_send(req)
                .await
                .map(|response| response.status().as_u16())
                .map_err(|e| classify(&e.error))
        };
        match tokio::time::timeout(timeout, exchange).await {
            Err(_) => Err(ProbeError::NoAnswer(timeout)),
            Ok(Err((_, detail))) => Err(ProbeError::Failed(detail)),
            Ok(Ok(status)) => Ok(status),
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

    /// Opens a connection to `target` (TCP, TLS for `https://`, then HTTP/1.1 or the HTTP/2 the upstream chose)
    /// within the connect timeout, and starts its task on the current worker.
    async fn connect(&self, target: &Target) -> Result<Sender, Failure> {
        let url = &target.url;
        let connecting = async {
            let stream = TcpStream::connect((url.host(), url.port()))
                .await
                .map_err(|e| (UpstreamFailure::Unavailable, format!("connect: {e}")))?;
            // Requests and answers are small writes that should leave at once.
            let _ = stream.set_nodelay(true);
            if !url.is_tls() {
                return start_http1(stream).await;
            }
            let unavailable = |detail: String| (UpstreamFailure::Unavailable, detail);
            let TlsClient {
                settings, built, ..
            } = &self.tls[target.tls];
            let connectors = built
                .as_ref()
                .map_err(|e| unavailable(format!("upstream TLS client: {}: {e}", e.key())))?;
            let connector = match target.http1_only {
                true => &connectors.http1,
                false => &connectors.any,
            };
            let name = upstream_tls::server_name(settings, url.host())
                .map_err(|e| unavailable(e.to_string()))?;
            // The log line of the 502 says why, such as "invalid peer certificate: UnknownIssuer".
            let stream = connector
                .connect(name, stream)
                .await
                .map_err(|e| unavailable(format!("TLS handshake: {}", error_chain(&e))))?;
            if stream.get_ref().1.alpn_protocol() == Some(b"h2") {
                let (sender, connection) =
                    http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
                        .await
                        .map_err(|e| classify(&e))?;
                let upstream = url.clone();
                tokio::spawn(async move {
                    // The requests on it get "connection closed": the reason (a TLS alert such as
                    // CertificateRequired, a GOAWAY) is only known here.
                    if let Err(e) = connection.await {
                        tracing::warn!(
                            "upstream {upstream}: HTTP/2 connection failed: {}",
                            error_chain(&e)
                        );
                    }
                });
                return Ok(Sender::Http2(sender));
            }
            start_http1(stream).await
        };
        match tokio::time::timeout(
            Duration::from_millis(self.settings.connect_timeout_ms),
            connecting,
        )
        .await
        {
            Err(_) => Err((UpstreamFailure::Timeout, "connect timed out".into())),
            Ok(result) => result,
        }
    }
}

/// HTTP/1.1 on a connected stream, its task started on the current worker.
async fn start_http1<S>(stream: S) -> Result<Sender, Failure>
where
    S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let (sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| classify(&e))?;
    tokio::spawn(async move {
        // Upgrades: a 101 answer hands the connection over to `upgrade::relay`.
        if let Err(e) = connection.with_upgrades().await {
            tracing::debug!("upstream connection ended: {e}");
        }
    });
    Ok(Sender::Http1(sender))
}

impl Sender {
    fn is_ready(&self) -> bool {
        match self {
            Sender::Http1(s) => s.is_ready(),
            Sender::Http2(s) => s.is_ready(),
        }
    }

    fn is_closed(&self) -> bool {
        match self {
            Sender::Http1(s) => s.is_closed(),
            Sender::Http2(s) => s.is_closed(),
        }
    }

    /// Sends `req`; an error carries the request back when it was not written. Over HTTP/2 the request takes
    /// the absolute form (`:scheme`, `:authority` from its `Host`), and the response says HTTP/1.1 like any
    /// other the client gets.
    async fn try_send(&mut self, req: Request<ProxyBody>) -> Result<Response<Incoming>, Unsent> {
        let unsent = |mut e: TrySendError<Request<ProxyBody>>| Unsent {
            request: e.take_message(),
            error: e.into_error(),
        };
        match self {
            Sender::Http1(s) => s.try_send_request(req).await.map_err(unsent),
            Sender::Http2(s) => match s.try_send_request(to_http2(req)).await {
                Ok(mut response) => {
                    *response.version_mut() = Version::HTTP_11;
                    Ok(response)
                }
                Err(e) => {
                    let mut e = unsent(e);
                    e.request = e.request.map(to_http1);
                    Err(e)
                }
            },
        }
    }
}

/// A request that failed: the error, and the request when it was not written (the upstream never saw it).
struct Unsent {
    error: hyper::Error,
    request: Option<Request<ProxyBody>>,
}

/// An HTTP/1.1 request (origin-form target, `Host`) in the form HTTP/2 sends: `https://<Host><path>`.
fn to_http2(req: Request<ProxyBody>) -> Request<ProxyBody> {
    let (mut parts, body) = req.into_parts();
    let authority = parts
        .headers
        .remove(header::HOST)
        .and_then(|host| Authority::try_from(host.as_bytes()).ok());
    let mut uri = std::mem::take(&mut parts.uri).into_parts();
    uri.scheme = Some(Scheme::HTTPS);
    uri.authority = authority;
    // Only an authority that does not parse fails here; HTTP/2 then refuses the request, a 502.
    parts.uri = Uri::from_parts(uri).unwrap_or_default();
    parts.version = Version::HTTP_2;
    Request::from_parts(parts, body)
}

/// The inverse of [`to_http2`], for a request that was not sent and goes on another connection.
fn to_http1(req: Request<ProxyBody>) -> Request<ProxyBody> {
    let (mut parts, body) = req.into_parts();
    let uri = std::mem::take(&mut parts.uri).into_parts();
    if let Some(host) = uri
        .authority
        .and_then(|a| HeaderValue::from_str(a.as_str()).ok())
    {
        parts.headers.insert(header::HOST, host);
    }
    parts.uri = uri.path_and_query.map(Uri::from).unwrap_or_default();
    parts.version = Version::HTTP_11;
    Request::from_parts(parts, body)
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
    /// The most recently returned connection to `target` that is ready for a request, dropping on the way the
    /// stale ones. An HTTP/2 connection stays in the list (shared); an HTTP/1.1 one leaves it until checked in.
    fn checkout(&self, target: &Target, idle_timeout: Duration) -> Option<Sender> {
        let mut lanes = self.0.lock().ok()?;
        let lane = lanes.iter_mut().find(|l| l.target == *target)?;
        let connections = &mut lane.connections;
        let now = Instant::now();
        let mut i = connections.len();
        while i > 0 {
            i -= 1;
            let pooled = &mut connections[i];
            if pooled.is_stale(now, idle_timeout) {
                connections.remove(i);
            } else if let Sender::Http2(shared) = &pooled.sender {
                let shared = shared.clone();
                // In use: its idle time starts again from now.
                pooled.returned = now;
                return Some(Sender::Http2(shared));
            } else if pooled.sender.is_ready() {
                return Some(connections.remove(i).sender);
            }
        }
        None
    }

    /// Returns a connection whose request was sent; beyond `max_idle` per target it is closed instead.
    fn checkin(&self, target: &Target, sender: Sender, max_idle: usize) {
        let Ok(mut lanes) = self.0.lock() else {
            return;
        };
        let i = match lanes.iter().position(|l| l.target == *target) {
            Some(i) => i,
            None => {
                lanes.push(Lane {
                    target: target.clone(),
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
    let failure =
        if e.is_user() && caused_by(e, |cause| cause.is::<BodyTimedOut>() || timed_out(cause)) {
            // The request body failed while it was sent: the client's stopped arriving (the head guard's read
            // timeout over HTTP/1, `body_timeout.rs` over HTTP/2).
            UpstreamFailure::ClientBody
        } else if caused_by(e, timed_out) {
            UpstreamFailure::Timeout
        } else {
            UpstreamFailure::Unavailable
        };
    (failure, error_chain(e))
}

fn timed_out(e: &(dyn std::error::Error + 'static)) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
}

/// Whether `e` or one of its causes is `what`.
fn caused_by(
    e: &(dyn std::error::Error + 'static),
    what: impl Fn(&(dyn std::error::Error + 'static)) -> bool,
) -> bool {
    std::iter::successors(Some(e), |e| e.source()).any(what)
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

/// Every `rules.reload_interval_sec` of the configuration in force, the upstream TLS files are read again and the
/// TLS clients whose files changed are built again ([`Upstreams::with_files_reread`]).
pub async fn keep_rereading_tls_files(state: Arc<crate::state::State>) {
    loop {
        let interval = state.live.load().config.rules.reload_interval_sec;
        tokio::time::sleep(Duration::from_secs(interval)).await;
        let state = state.clone();
        // Reading files: off the control runtime's event loop.
        let _ = tokio::task::spawn_blocking(move || state.reread_upstream_tls_files()).await;
    }
}
