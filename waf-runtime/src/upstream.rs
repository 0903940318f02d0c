//! The pooled keep-alive client that talks to upstreams, and how its failures are classified.
//!
//! Each worker (`workers.rs`) has its own client, so an upstream connection is used only by the thread that
//! opened it; one client serves every upstream (the pool is keyed by address). The clients are rebuilt only when
//! their own settings change on a config reload; a change of domains or upstream addresses keeps the warm pools.
use crate::body::ProxyBody;
use crate::config::UpstreamConfig;
use crate::metrics::UpstreamFailure;
use http::{Request, Response};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use std::time::Duration;

pub struct Upstreams {
    /// One per worker, indexed by the worker's number.
    clients: Vec<Client<HttpConnector, ProxyBody>>,
    response_timeout: Duration,
    settings: UpstreamConfig,
}

impl Upstreams {
    /// Clients for `workers` workers. Building one opens no connection: pools fill on first use.
    pub fn new(cfg: &UpstreamConfig, workers: usize) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(Duration::from_millis(cfg.connect_timeout_ms)));
        connector.set_nodelay(true);
        let clients = (0..workers)
            .map(|_| {
                Client::builder(TokioExecutor::new())
                    .pool_timer(TokioTimer::new())
                    .pool_idle_timeout(Duration::from_secs(cfg.pool_idle_timeout_sec))
                    .pool_max_idle_per_host(cfg.pool_max_idle_per_host)
                    .build(connector.clone())
            })
            .collect();
        Upstreams {
            clients,
            response_timeout: Duration::from_millis(cfg.response_timeout_ms),
            settings: cfg.clone(),
        }
    }

    /// Whether this client was built from settings equal to `cfg` (only the default upstream may differ: it
    /// is not a client setting).
    pub fn matches(&self, cfg: &UpstreamConfig) -> bool {
        UpstreamConfig {
            default: cfg.default.clone(),
            ..self.settings.clone()
        } == *cfg
    }

    /// Sends a request with worker `worker`'s client and waits for the response head, within the response
    /// timeout. The body is not awaited: it streams back to the client as it arrives.
    pub async fn send(
        &self,
        worker: usize,
        req: Request<ProxyBody>,
    ) -> Result<Response<Incoming>, (UpstreamFailure, String)> {
        let client = &self.clients[worker];
        match tokio::time::timeout(self.response_timeout, client.request(req)).await {
            Err(_) => Err((UpstreamFailure::Timeout, "no response head in time".into())),
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => {
                let detail = error_chain(&e);
                let failure = if is_timeout(&e) {
                    UpstreamFailure::Timeout
                } else {
                    UpstreamFailure::Unavailable
                };
                Err((failure, detail))
            }
        }
    }
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
