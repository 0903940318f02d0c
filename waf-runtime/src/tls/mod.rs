//! HTTPS: TLS on the same per-core workers as plain HTTP (`server.rs`), with certificates chosen per SNI name.
//!
//! - `certs.rs`: one certificate (PEM chain and key) and what is reported about it;
//! - `sni.rs`: the table of served certificates and the choice per handshake;
//! - `watch.rs`: loading the configured files, and again when they change on disk;
//! - `self_signed.rs`: `tls.auto_generate` (a local CA and a leaf, for testing);
//! - `acme.rs`: certificates ordered from an ACME server, and renewed, for the ACME domains in force;
//!   `challenge.rs`: its HTTP-01 answers;
//! - `private_file.rs`: writing keys atomically, owner-only.
//!
//! Only TLS 1.2 and 1.3, with rustls's aws-lc-rs provider, whose suites are all AEAD with forward secrecy. The
//! provider is passed explicitly rather than taken from the process default: other crates in the workspace enable
//! ring as well, and rustls refuses to guess between two.
mod acme;
mod certs;
pub mod challenge;
mod private_file;
mod self_signed;
pub mod sni;
mod watch;

pub use acme::AcmeTasks;
pub use certs::Source;
pub use challenge::Challenges;
pub use sni::{CertTable, Certs};
pub use watch::{CertPaths, CertStartError, CertWatcher, keep_refreshing};

use crate::config::Config;
use crate::metrics::Metrics;
use crate::timeouts::{Stage, Timeouts, timed_out};
use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpStream;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

/// What the request path and the admin panel know about HTTPS.
pub struct Https {
    /// The port HTTPS is served on (the bound one when the configured port is 0), for `force_https` redirects.
    pub port: u16,
    pub certs: Certs,
    /// HTTP-01 tokens of the ACME orders in progress, answered on the HTTP listener.
    pub challenges: Arc<Challenges>,
    /// What keeps `certs` in line with the configuration and the files: present exactly when the HTTPS listener
    /// runs (it is opened at start only). Shared by its periodic check and the admin panel's changes.
    pub watcher: Option<std::sync::Mutex<CertWatcher>>,
    /// The ACME orders and renewals, following the configuration in force once started (`acme.rs`).
    pub acme: AcmeTasks,
}

/// Makes sure the certificate `config` names for the domain `name` can be served: its files are read and parsed
/// and the key belongs to the leaf, or its self-signed certificate is made. The admin panel checks this before it
/// applies a change, as the start does; the watcher then serves the same files.
pub fn check_domain(config: &Config, name: &str) -> Result<(), DomainCertError> {
    let Some(paths) = config
        .domains
        .get(name)
        .and_then(|d| watch::domain_paths(config, name, d))
    else {
        return Ok(());
    };
    if paths.source == Source::SelfSigned {
        self_signed::ensure_domain(&config.server.tls.auto_cert_dir, name)
            .map_err(DomainCertError::SelfSigned)?;
    }
    certs::PemFiles::read(&paths.cert, &paths.key)
        .and_then(|files| files.parse(&provider(), paths.source, &paths.cert, &paths.key))
        .map(drop)
        .map_err(DomainCertError::Files)
}

/// Why a domain's certificate cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum DomainCertError {
    /// Its self-signed certificate could not be made.
    #[error(transparent)]
    SelfSigned(#[from] self_signed::SelfSignedError),
    #[error(transparent)]
    Files(#[from] certs::CertError),
}

pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// The global certificate's files: the configured ones, or generated ones with `tls.auto_generate`.
fn global_files(config: &Config) -> Result<Option<CertPaths>, self_signed::SelfSignedError> {
    let tls = &config.server.tls;
    if let (Some(cert), Some(key)) = (&tls.cert_file, &tls.key_file) {
        return Ok(Some(CertPaths {
            source: Source::GlobalFiles,
            cert: cert.clone(),
            key: key.clone(),
        }));
    }
    if !tls.auto_generate {
        return Ok(None);
    }
    let generated = self_signed::ensure(
        &tls.auto_cert_dir,
        config.domains.keys().map(String::as_str),
    )?;
    Ok(Some(CertPaths {
        source: Source::SelfSigned,
        cert: generated.cert,
        key: generated.key,
    }))
}

/// The acceptor every worker shares: protocol versions, ALPN and the SNI resolver over `certs`.
pub fn acceptor(
    certs: Certs,
    http2: bool,
    provider: Arc<CryptoProvider>,
) -> Result<TlsAcceptor, rustls::Error> {
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(sni::SniResolver(certs)));
    // HTTP/2 only when enabled: hyper serves h2 on the connection exactly when the client chose it here.
    config.alpn_protocols = if http2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// Runs the server side of a handshake from `peer`, bounded twice (`timeouts.rs`): the first byte (the
/// ClientHello's) within `timeouts.first_byte`, the whole handshake within `timeouts.tls_handshake` of accept. A
/// client that opens a connection and sends nothing, or trickles its hello, would otherwise hold the connection
/// and its task for ever. The handshake is a task of its own on the worker, so it never delays another
/// connection.
pub async fn handshake(
    acceptor: &TlsAcceptor,
    stream: TcpStream,
    peer: SocketAddr,
    timeouts: Timeouts,
    metrics: &'static Metrics,
) -> Option<TlsStream<TcpStream>> {
    // In its plain IPv4 form when it arrived mapped on a dual-stack listener, as every log names a client.
    let peer = peer.ip().to_canonical();
    let handshake = async {
        let mut first = [0u8; 1];
        match tokio::time::timeout(timeouts.first_byte, stream.peek(&mut first)).await {
            Ok(Ok(n)) if n > 0 => {}
            Ok(_) => return Err(None),
            Err(_) => return Err(Some(Stage::FirstByte)),
        }
        acceptor.accept(stream).await.map_err(|e| {
            tracing::debug!("TLS handshake with {peer} failed: {e}");
            None
        })
    };
    match tokio::time::timeout(timeouts.tls_handshake, handshake).await {
        Ok(Ok(tls)) => {
            metrics.tls_handshakes.increment(1);
            Some(tls)
        }
        Ok(Err(None)) => {
            metrics.tls_handshake_failed("error");
            None
        }
        Ok(Err(Some(stage))) => {
            metrics.tls_handshake_failed("timeout");
            timed_out(metrics, peer, stage, timeouts.first_byte, "closed");
            None
        }
        Err(_) => {
            metrics.tls_handshake_failed("timeout");
            timed_out(
                metrics,
                peer,
                Stage::TlsHandshake,
                timeouts.tls_handshake,
                "closed",
            );
            None
        }
    }
}

/// The TLS version a connection negotiated, as the access log writes it (`1.3`).
pub fn version(stream: &TlsStream<TcpStream>) -> &'static str {
    match stream.get_ref().1.protocol_version() {
        Some(rustls::ProtocolVersion::TLSv1_3) => "1.3",
        Some(rustls::ProtocolVersion::TLSv1_2) => "1.2",
        _ => "unknown",
    }
}

/// `/health`'s `tls` part: per configured domain (and `*` for any other name), where its certificate comes from
/// and when it expires.
pub fn health(config: &Config, table: &CertTable) -> serde_json::Value {
    if !config.server.https_enabled {
        return serde_json::json!({ "enabled": false });
    }
    let entry = |name: Option<&str>| match table.for_name(name) {
        Some(served) => serde_json::json!({
            "source": served.source,
            "not_after_unix": served.not_after,
        }),
        None => serde_json::json!({ "source": "none" }),
    };
    let mut domains = serde_json::Map::new();
    domains.insert("*".into(), entry(None));
    for name in config.domains.keys() {
        domains.insert(name.clone(), entry(Some(name)));
    }
    serde_json::json!({ "enabled": true, "certificates": domains })
}
