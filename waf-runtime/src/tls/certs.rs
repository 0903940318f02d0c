//! One served certificate: a PEM chain and its private key read into what rustls serves, with the facts
//! `/health` and `/metrics` report about it.
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::sign::CertifiedKey;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The largest certificate or key file read: a full chain of a few certificates is a few KiB.
const MAX_FILE: u64 = 1024 * 1024;

/// Where a served certificate came from, in the order SNI prefers them for a domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The domain's own `cert_file`/`key_file`.
    DomainFiles,
    /// Issued by the ACME server for the domain.
    Acme,
    /// The global `tls.cert_file`/`key_file`.
    GlobalFiles,
    /// `tls.auto_generate` or a domain's `self_signed`: signed by a local CA, for testing only.
    SelfSigned,
}

/// A certificate ready to serve.
#[derive(Debug)]
pub struct Served {
    pub key: Arc<CertifiedKey>,
    pub source: Source,
    /// The leaf's validity, in seconds since the Unix epoch.
    pub not_before: i64,
    pub not_after: i64,
}

/// Why a certificate could not be loaded; always names the file.
#[derive(Debug, thiserror::Error)]
pub enum CertError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a regular file of at most {MAX_FILE} bytes")]
    NotACertificateFile { path: PathBuf },
    #[error("{path}: no PEM certificate in the file")]
    NoCertificate { path: PathBuf },
    #[error("{path}: {message}")]
    Pem { path: PathBuf, message: String },
    #[error("{path}: the first certificate cannot be parsed: {message}")]
    Leaf { path: PathBuf, message: String },
    #[error("{cert} with key {key}: {source}")]
    Key {
        cert: PathBuf,
        key: PathBuf,
        source: rustls::Error,
    },
}

/// The two files of a certificate, as read from disk: what the watcher compares to notice a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PemFiles {
    pub cert: Vec<u8>,
    pub key: Vec<u8>,
}

impl PemFiles {
    pub fn read(cert: &Path, key: &Path) -> Result<PemFiles, CertError> {
        let read = |path: &Path| {
            let failed = |source| CertError::Read {
                path: path.to_path_buf(),
                source,
            };
            // The path may come from the admin panel: a device (/dev/zero) or a huge file is refused rather than
            // read into memory.
            let meta = std::fs::metadata(path).map_err(failed)?;
            if !meta.is_file() || meta.len() > MAX_FILE {
                return Err(CertError::NotACertificateFile {
                    path: path.to_path_buf(),
                });
            }
            std::fs::read(path).map_err(failed)
        };
        Ok(PemFiles {
            cert: read(cert)?,
            key: read(key)?,
        })
    }

    /// Parses the chain (leaf first, as a full-chain file has it) and the key (PKCS#8, PKCS#1 RSA or SEC1 EC),
    /// and checks that the key belongs to the leaf: a mismatch would fail every handshake.
    pub fn parse(
        &self,
        provider: &CryptoProvider,
        source: Source,
        cert_path: &Path,
        key_path: &Path,
    ) -> Result<Served, CertError> {
        let pem = |message: String, path: &Path| CertError::Pem {
            path: path.to_path_buf(),
            message,
        };
        let chain = CertificateDer::pem_slice_iter(&self.cert)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| pem(format!("invalid PEM certificate: {e}"), cert_path))?;
        let Some(leaf) = chain.first() else {
            return Err(CertError::NoCertificate {
                path: cert_path.to_path_buf(),
            });
        };
        let validity = x509_parser::parse_x509_certificate(leaf)
            .map_err(|e| CertError::Leaf {
                path: cert_path.to_path_buf(),
                message: e.to_string(),
            })?
            .1
            .validity()
            .clone();
        let key = PrivateKeyDer::from_pem_slice(&self.key)
            .map_err(|e| pem(format!("no usable PEM private key: {e}"), key_path))?;
        let key =
            CertifiedKey::from_der(chain, key, provider).map_err(|source| CertError::Key {
                cert: cert_path.to_path_buf(),
                key: key_path.to_path_buf(),
                source,
            })?;
        Ok(Served {
            key: Arc::new(key),
            source,
            not_before: validity.not_before.timestamp(),
            not_after: validity.not_after.timestamp(),
        })
    }
}
