//! Why the proxy did not start, or did not stop cleanly: [`StartError`], what [`crate::run`] returns.
use crate::admin::AdminStartError;
use crate::inspect::RulesError;
use crate::tls::CertStartError;
use crate::traffic::TrafficError;
use std::net::SocketAddr;

/// Why the proxy did not start, or did not stop cleanly, by the step that failed; each message names the setting
/// or file at fault and the system's reason.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A runtime, thread, signal handler or socket handle the process needs (`step` says which).
    #[error("{step}: {source}")]
    Process {
        step: &'static str,
        source: std::io::Error,
    },
    #[error("installing the metrics recorder: {0}")]
    Metrics(#[from] metrics_exporter_prometheus::BuildError),
    #[error("loading rules: {0}")]
    Rules(#[from] RulesError),
    /// The rule loading task, or the wait for the workers, ended abnormally.
    #[error("{step}: {source}")]
    Task {
        step: &'static str,
        source: tokio::task::JoinError,
    },
    #[error("waf.server.listen_address: {0}")]
    ListenAddress(std::net::AddrParseError),
    #[error("binding {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Certificates(#[from] CertStartError),
    #[error("the TLS settings: {0}")]
    Tls(#[from] rustls::Error),
    #[error("building the traffic controls: {0}")]
    Traffic(#[from] TrafficError),
    #[error("starting the admin panel: {0}")]
    Admin(#[from] AdminStartError),
}

impl StartError {
    /// A closure turning an I/O error of `step` into a [`StartError::Process`].
    pub(crate) fn at(step: &'static str) -> impl FnOnce(std::io::Error) -> StartError {
        move |source| StartError::Process { step, source }
    }
}
