//! `tls.auto_generate`: a local CA and a leaf certificate it signs, for the configured domains and `localhost`;
//! and a domain's `self_signed`: a leaf of the same CA for that domain alone.
//!
//! For testing only, and said so loudly in the log: no client trusts this CA unless told to (`ca.pem` in
//! `auto_cert_dir` is the file to give it). A CA certificate used directly as the server certificate is refused
//! by clients (`CaUsedAsEndEntity`), hence the two levels. Both are kept in `auto_cert_dir` and reused across
//! restarts, so a client told to trust the CA keeps trusting the proxy; the leaf is made again only when the names
//! it must cover changed or its files are unusable.
use super::private_file::{self, FileError};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The CA's subject: fixed, so a leaf made after a restart names the issuer the kept CA certificate has.
const CA_NAME: &str = "waf local testing CA (tls.auto_generate)";

/// Why a self-signed certificate could not be made or reused.
#[derive(Debug, thiserror::Error)]
pub enum SelfSignedError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{}: not a usable key: {source}", path.display())]
    CaKey { path: PathBuf, source: rcgen::Error },
    /// Generating a key, signing a certificate or naming it (`step` says which).
    #[error("{step}: {source}")]
    Certificate {
        step: &'static str,
        source: rcgen::Error,
    },
}

/// `step`'s failure as a [`SelfSignedError`].
fn step(step: &'static str) -> impl FnOnce(rcgen::Error) -> SelfSignedError {
    move |source| SelfSignedError::Certificate { step, source }
}

/// The generated leaf's files (chain: leaf then CA) and key.
pub struct Generated {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Makes (or reuses) the CA and a leaf for `domains` and `localhost` in `dir` (`tls.auto_generate`).
pub fn ensure<'a>(
    dir: &Path,
    domains: impl Iterator<Item = &'a str>,
) -> Result<Generated, SelfSignedError> {
    let names: BTreeSet<String> = domains
        .map(str::to_string)
        .chain(std::iter::once("localhost".to_string()))
        .collect();
    let generated = Generated {
        cert: dir.join("server.pem"),
        key: dir.join("server.key"),
    };
    leaf(dir, generated, &names, "tls.auto_generate")
}

/// Where the leaf of a domain's `self_signed` certificate is kept: `dir/domains/<name>.pem` and `.key`. A
/// subdirectory, so no domain name can collide with the CA's or the global leaf's files; `name` is a DNS name
/// (checked when the configuration is read), so it cannot leave the directory.
pub fn domain_files(dir: &Path, name: &str) -> Generated {
    let domains = dir.join("domains");
    Generated {
        cert: domains.join(format!("{name}.pem")),
        key: domains.join(format!("{name}.key")),
    }
}

/// Makes (or reuses) the CA in `dir` and a leaf for `name` alone (`waf.domains.<name>.self_signed`), signed by the
/// same CA as `tls.auto_generate`'s: clients told to trust `ca.pem` trust both.
pub fn ensure_domain(dir: &Path, name: &str) -> Result<Generated, SelfSignedError> {
    let generated = domain_files(dir, name);
    let names = BTreeSet::from([name.to_string()]);
    leaf(
        dir,
        generated,
        &names,
        &format!("waf.domains.{name}.self_signed"),
    )
}

/// Makes (or reuses) the CA in `dir` and the leaf `generated` for exactly `names`; `setting` is what asked for it,
/// for the log.
fn leaf(
    dir: &Path,
    generated: Generated,
    names: &BTreeSet<String>,
    setting: &str,
) -> Result<Generated, SelfSignedError> {
    if let Some(leaf_dir) = generated.cert.parent() {
        private_file::create_dir(leaf_dir)?;
    }
    let (ca_cert_path, ca_key_path) = (dir.join("ca.pem"), dir.join("ca.key"));

    let ca_key = match std::fs::read_to_string(&ca_key_path) {
        Ok(pem) if ca_cert_path.is_file() => {
            KeyPair::from_pem(&pem).map_err(|source| SelfSignedError::CaKey {
                path: ca_key_path.clone(),
                source,
            })?
        }
        _ => {
            let key = KeyPair::generate().map_err(step("generating the CA key"))?;
            let cert = ca_params()
                .self_signed(&key)
                .map_err(step("signing the CA"))?;
            private_file::write(&ca_key_path, key.serialize_pem().as_bytes())?;
            private_file::write_public(&ca_cert_path, cert.pem().as_bytes())?;
            key
        }
    };
    if leaf_covers(&generated.cert, names) && generated.key.is_file() {
        tracing::warn!(
            "TLS: serving the self-signed certificate kept in {} ({setting}: FOR TESTING ONLY, clients \
             must be told to trust {})",
            generated.cert.display(),
            ca_cert_path.display()
        );
        return Ok(generated);
    }
    let ca_pem =
        std::fs::read_to_string(&ca_cert_path).map_err(FileError::of("reading", &ca_cert_path))?;
    let issuer = Issuer::new(ca_params(), ca_key);
    let leaf_key = KeyPair::generate().map_err(step("generating the leaf key"))?;
    let mut params = CertificateParams::new(names.iter().cloned().collect::<Vec<_>>())
        .map_err(step("certificate names"))?;
    params
        .distinguished_name
        .push(DnType::CommonName, "waf self-signed (testing only)");
    let leaf = params
        .signed_by(&leaf_key, &issuer)
        .map_err(step("signing the leaf certificate"))?;
    private_file::write(&generated.key, leaf_key.serialize_pem().as_bytes())?;
    private_file::write_public(
        &generated.cert,
        format!("{}{ca_pem}", leaf.pem()).as_bytes(),
    )?;
    tracing::warn!(
        "TLS: generated a self-signed certificate for {names:?} in {} ({setting}: FOR TESTING ONLY, \
         clients must be told to trust {})",
        generated.cert.display(),
        ca_cert_path.display()
    );
    Ok(generated)
}

fn ca_params() -> CertificateParams {
    let mut params = CertificateParams::default();
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, CA_NAME);
    params.distinguished_name = name;
    params
}

/// Whether the kept leaf exists and names exactly `names`.
fn leaf_covers(path: &Path, names: &BTreeSet<String>) -> bool {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let Ok(leaf) = CertificateDer::from_pem_file(path) else {
        return false;
    };
    let Ok((_, cert)) = x509_parser::parse_x509_certificate(&leaf) else {
        return false;
    };
    let Ok(Some(san)) = cert.subject_alternative_name() else {
        return false;
    };
    let kept: BTreeSet<String> = san
        .value
        .general_names
        .iter()
        .filter_map(|n| match n {
            x509_parser::extensions::GeneralName::DNSName(d) => Some(d.to_string()),
            _ => None,
        })
        .collect();
    kept == *names
}
