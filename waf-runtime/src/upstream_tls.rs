//! The TLS client towards `https://` upstreams: one per distinct `upstream.tls` / `domains.<host>.upstream_tls`.
//!
//! rustls with the proxy's own aws-lc-rs provider (`tls::provider`), TLS 1.2 and 1.3. Certificates are verified
//! against the system's roots, read with `rustls-native-certs` rather than compiled in from `webpki-roots`: the
//! trust store is then the operator's (Debian's `ca-certificates`, kept current by the system's security updates,
//! plus any company CA added with `update-ca-certificates`), not a list frozen into the binary at build time. The
//! auth service trusts the same store. `ca_file` replaces the system's roots (a private backend's CA then vouches
//! for that backend only, and no public CA can issue a certificate the proxy would accept for it).
//!
//! One `ClientConfig` per setting, shared by every worker and connection: its session store is what resumes TLS
//! sessions across the pool's connections (a new connection to a known upstream skips the full handshake).
use crate::config::{UpstreamHttp2, UpstreamTls};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_rustls::TlsConnector;

/// A setting that cannot work. It shows as `<path>: <why>`; [`TlsSettingError::key`] says which key (under its
/// `upstream_tls`) is at fault.
#[derive(Debug, thiserror::Error)]
pub enum TlsSettingError {
    /// `ca_file` or `cert_file` (`key`) cannot be read, or is not PEM.
    #[error("{}: {source}", path.display())]
    Pem {
        key: &'static str,
        path: PathBuf,
        source: rustls::pki_types::pem::Error,
    },
    #[error("{}: no CERTIFICATE block", path.display())]
    NoCertificate { key: &'static str, path: PathBuf },
    /// A certificate of `ca_file` that cannot be a trust anchor.
    #[error("{}: {source}", path.display())]
    CaCertificate {
        path: PathBuf,
        source: rustls::Error,
    },
    /// The TLS versions the proxy offers do not go with its provider.
    #[error("{0}")]
    Versions(rustls::Error),
    /// `key_file` cannot be read or is no PEM private key.
    #[error("{}: {source}", path.display())]
    PrivateKey {
        path: PathBuf,
        source: rustls::pki_types::pem::Error,
    },
    /// `key_file` does not go with `cert_file`'s chain.
    #[error("{}: {source}", path.display())]
    ClientCertificate {
        path: PathBuf,
        source: rustls::Error,
    },
}

impl TlsSettingError {
    /// The key at fault, under its `upstream_tls`.
    pub fn key(&self) -> &'static str {
        match self {
            TlsSettingError::Pem { key, .. } | TlsSettingError::NoCertificate { key, .. } => key,
            TlsSettingError::CaCertificate { .. } => "ca_file",
            TlsSettingError::Versions(_) => "verify",
            TlsSettingError::PrivateKey { .. } | TlsSettingError::ClientCertificate { .. } => {
                "key_file"
            }
        }
    }
}

/// What the files of a setting (`ca_file`, `cert_file`, `key_file`) held when read: a SHA-256 of each (rather
/// than the bytes: no second copy of a private key in memory), or the error reading it.
#[derive(Clone, PartialEq, Eq)]
pub struct FilesRead(Vec<Result<[u8; 32], std::io::ErrorKind>>);

impl FilesRead {
    pub fn of(tls: &UpstreamTls) -> FilesRead {
        use sha2::Digest;
        FilesRead(
            [&tls.ca_file, &tls.cert_file, &tls.key_file]
                .into_iter()
                .flatten()
                .map(|path| {
                    std::fs::read(path)
                        .map(|bytes| sha2::Sha256::digest(&bytes).into())
                        .map_err(|e| e.kind())
                })
                .collect(),
        )
    }
}

impl UpstreamTls {
    /// The files it names, for a log line.
    pub fn files(&self) -> Vec<String> {
        [&self.ca_file, &self.cert_file, &self.key_file]
            .into_iter()
            .flatten()
            .map(|p| p.display().to_string())
            .collect()
    }
}

/// The connectors of one setting: with HTTP/2 offered by ALPN (when `upstream.http2` allows), and with HTTP/1.1
/// only, for the requests that may switch protocols (an upgrade exists in HTTP/1.1 only). Both share one
/// session store.
#[derive(Clone)]
pub struct Connectors {
    pub any: TlsConnector,
    pub http1: TlsConnector,
}

/// Reads and parses the files of `tls` as [`connectors`] does, without the system's roots: what the
/// configuration check runs.
pub fn check(tls: &UpstreamTls) -> Result<(), TlsSettingError> {
    client_config(tls, RootCertStore::empty()).map(drop)
}

/// The connectors for `tls`. With `verify: false`, a warning says that certificates are not checked.
pub fn connectors(tls: &UpstreamTls, http2: UpstreamHttp2) -> Result<Connectors, TlsSettingError> {
    let roots = match &tls.ca_file {
        // `client_config` reads the file into the store itself.
        Some(_) => RootCertStore::empty(),
        None => system_roots(),
    };
    let mut any = client_config(tls, roots)?;
    if !tls.verify {
        tracing::warn!(
            "upstream TLS certificates are NOT verified (upstream_tls.verify: false): anyone on the path to the \
             upstream can read and change the traffic"
        );
    }
    let mut http1 = any.clone();
    http1.alpn_protocols = vec![b"http/1.1".to_vec()];
    any.alpn_protocols = match http2 {
        UpstreamHttp2::Auto => vec![b"h2".to_vec(), b"http/1.1".to_vec()],
        UpstreamHttp2::Off => vec![b"http/1.1".to_vec()],
    };
    Ok(Connectors {
        any: TlsConnector::from(Arc::new(any)),
        http1: TlsConnector::from(Arc::new(http1)),
    })
}

/// The system's CA certificates. A bundle with a few unreadable entries still yields the others; none at all
/// leaves every verified `https://` upstream refused, which the log says.
fn system_roots() -> RootCertStore {
    let mut roots = RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    for error in &found.errors {
        tracing::warn!("system CA certificates: {error}");
    }
    roots.add_parsable_certificates(found.certs);
    if roots.is_empty() {
        tracing::warn!(
            "no system CA certificate found: verified https:// upstreams will be refused (set upstream.tls.ca_file)"
        );
    }
    roots
}

fn client_config(
    tls: &UpstreamTls,
    mut roots: RootCertStore,
) -> Result<ClientConfig, TlsSettingError> {
    let provider = crate::tls::provider();
    if let Some(path) = &tls.ca_file {
        for cert in certificates(path, "ca_file")? {
            roots
                .add(cert)
                .map_err(|source| TlsSettingError::CaCertificate {
                    path: path.clone(),
                    source,
                })?;
        }
    }
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(TlsSettingError::Versions)?;
    let builder = if tls.verify {
        builder.with_root_certificates(roots)
    } else {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
    };
    match (&tls.cert_file, &tls.key_file) {
        (Some(cert), Some(key)) => {
            let chain = certificates(cert, "cert_file")?;
            let private = PrivateKeyDer::from_pem_file(key).map_err(|source| {
                TlsSettingError::PrivateKey {
                    path: key.clone(),
                    source,
                }
            })?;
            builder
                .with_client_auth_cert(chain, private)
                .map_err(|source| TlsSettingError::ClientCertificate {
                    path: key.clone(),
                    source,
                })
        }
        _ => Ok(builder.with_no_client_auth()),
    }
}

/// The certificates of a PEM file, at least one.
fn certificates(
    path: &Path,
    key: &'static str,
) -> Result<Vec<CertificateDer<'static>>, TlsSettingError> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|source| TlsSettingError::Pem {
            key,
            path: path.to_path_buf(),
            source,
        })?;
    if certs.is_empty() {
        return Err(TlsSettingError::NoCertificate {
            key,
            path: path.to_path_buf(),
        });
    }
    Ok(certs)
}

/// The name sent as SNI and verified: `server_name`, else the upstream URL's host (an IP address is verified
/// against the certificate's IP addresses, and sent no SNI).
pub fn server_name(tls: &UpstreamTls, host: &str) -> Result<ServerName<'static>, ServerNameError> {
    let name = tls.server_name.as_deref().unwrap_or(host);
    ServerName::try_from(name.to_string()).map_err(|source| ServerNameError {
        name: name.to_string(),
        source,
    })
}

/// A name that cannot be sent as SNI nor verified against a certificate.
#[derive(Debug, thiserror::Error)]
#[error("{name:?} cannot be a TLS server name: {source}")]
pub struct ServerNameError {
    name: String,
    source: rustls::pki_types::InvalidDnsNameError,
}

/// `verify: false`: any certificate is accepted, but the handshake signatures are still checked (the
/// connection is still encrypted to whoever holds the presented certificate's key).
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
