//! Loading the certificate files the configuration names, and again whenever one changes on disk or the
//! configuration names others.
//!
//! Operators rotate certificates by replacing the files; the proxy checks them every reload interval (the same
//! period as the rule files) and swaps in the new table at once: new handshakes get the new certificate, open
//! connections keep the one they were made with. The admin panel asks for the same check right after it applied a
//! change ([`State::refresh_certs`]), so a domain it adds is served at once. A file that is missing, unreadable or
//! broken is logged (once per change) and counted, and the certificate served so far for that name stays in
//! service. At start, a broken file is an error instead: the proxy does not come up serving something else than
//! configured.
use super::certs::{PemFiles, Served, Source};
use super::sni::{CertTable, Certs};
use super::{DomainCertError, self_signed};
use crate::config::{Config, DomainConfig, TlsConfig};
use crate::metrics::Metrics;
use crate::state::State;
use rustls::crypto::CryptoProvider;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The files of one certificate and where they come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertPaths {
    pub source: Source,
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// What was last read for one name (`None`: the global certificate), and what is served for it.
struct Kept {
    paths: CertPaths,
    seen: Seen,
    served: Option<Arc<Served>>,
}

/// What the last read of the files gave: compared with the next read to tell whether anything changed.
enum Seen {
    Files(PemFiles),
    Failed(DomainCertError),
}

impl PartialEq for Seen {
    /// Two failures are the same when they say the same (the errors hold `io::Error`s, which do not compare): a
    /// broken file is logged once, and again when it fails otherwise.
    fn eq(&self, other: &Seen) -> bool {
        match (self, other) {
            (Seen::Files(a), Seen::Files(b)) => a == b,
            (Seen::Failed(a), Seen::Failed(b)) => a.to_string() == b.to_string(),
            _ => false,
        }
    }
}

/// Why the certificates named at start cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum CertStartError {
    #[error("the global certificate (server.tls): {0}")]
    Global(self_signed::SelfSignedError),
    /// `name`: a domain, or `(global)`. Boxed: the error is large, and a start fails once.
    #[error("TLS certificate for {name}: {error}")]
    Certificate {
        name: String,
        error: Box<DomainCertError>,
    },
}

pub struct CertWatcher {
    provider: Arc<CryptoProvider>,
    /// The global files (configured or generated), and what they were worked out from.
    global: Option<CertPaths>,
    global_from: GlobalFrom,
    kept: HashMap<Option<String>, Kept>,
    certs: Certs,
    metrics: &'static Metrics,
}

/// What decides the global certificate's files: `server.tls`, and with `auto_generate` the domain names its leaf
/// covers.
#[derive(PartialEq)]
struct GlobalFrom(TlsConfig, Vec<String>);

impl GlobalFrom {
    fn of(config: &Config) -> GlobalFrom {
        let tls = &config.server.tls;
        let names = match tls.auto_generate {
            true => config.domains.keys().cloned().collect(),
            false => Vec::new(),
        };
        GlobalFrom(tls.clone(), names)
    }
}

impl CertWatcher {
    /// Loads (or, with `auto_generate` and `self_signed`, makes) every certificate `config` names; any failure is
    /// an error naming the file.
    pub fn start(
        config: &Config,
        provider: Arc<CryptoProvider>,
        certs: Certs,
        metrics: &'static Metrics,
    ) -> Result<CertWatcher, CertStartError> {
        let mut watcher = CertWatcher {
            provider,
            global: super::global_files(config).map_err(CertStartError::Global)?,
            global_from: GlobalFrom::of(config),
            kept: HashMap::new(),
            certs,
            metrics,
        };
        watcher.load(config, true)?;
        Ok(watcher)
    }

    /// Follows `config` and the files on disk; what fails is logged and counted, and what was served stays.
    pub fn refresh(&mut self, config: &Config) {
        let from = GlobalFrom::of(config);
        if from != self.global_from {
            match super::global_files(config) {
                Ok(global) => self.global = global,
                Err(e) => {
                    self.metrics.certificate_load_failed();
                    tracing::error!(
                        "TLS: the global certificate: {e:#}; keeping the one served so far"
                    );
                }
            }
            self.global_from = from;
        }
        // Not strict: every error is handled (logged, old certificate kept) inside.
        let _ = self.load(config, false);
    }

    fn wanted(&self, config: &Config) -> Vec<(Option<String>, CertPaths)> {
        let domains = config
            .domains
            .iter()
            .filter_map(|(name, d)| Some((Some(name.clone()), domain_paths(config, name, d)?)));
        self.global
            .iter()
            .map(|g| (None, g.clone()))
            .chain(domains)
            .collect()
    }

    /// Reads the files, parses what changed, and swaps in a new table when anything did. `strict`: fail on the
    /// first broken file instead of keeping the old certificate.
    fn load(&mut self, config: &Config, strict: bool) -> Result<(), CertStartError> {
        let wanted = self.wanted(config);
        let mut changed = wanted.len() != self.kept.len();
        let mut kept = HashMap::with_capacity(wanted.len());
        for (name, paths) in wanted {
            let shown = name.as_deref().unwrap_or("(global)");
            let not_served = |error: DomainCertError| CertStartError::Certificate {
                name: shown.to_string(),
                error: Box::new(error),
            };
            let seen = match self.read(config, name.as_deref(), &paths) {
                Ok(files) => Seen::Files(files),
                Err(error) if strict => return Err(not_served(error)),
                Err(error) => Seen::Failed(error),
            };
            let previous = match self.kept.remove(&name) {
                Some(p) if p.paths == paths && p.seen == seen => {
                    kept.insert(name, p);
                    continue;
                }
                other => other,
            };
            changed = true;
            let served = match &seen {
                // Only when not strict: a strict read failure returned above.
                Seen::Failed(error) => self.keep_previous(shown, error, previous),
                Seen::Files(files) => {
                    match files.parse(&self.provider, paths.source, &paths.cert, &paths.key) {
                        Ok(served) => {
                            tracing::info!(
                                "TLS: certificate for {shown} loaded from {} ({:?}, not after {} Unix time)",
                                paths.cert.display(),
                                served.source,
                                served.not_after
                            );
                            self.metrics.certificate_loaded(shown, served.not_after);
                            Some(Arc::new(served))
                        }
                        Err(error) if strict => return Err(not_served(error.into())),
                        Err(error) => self.keep_previous(shown, &error.into(), previous),
                    }
                }
            };
            kept.insert(
                name,
                Kept {
                    paths,
                    seen,
                    served,
                },
            );
        }
        self.kept = kept;
        if changed {
            self.swap_table();
        }
        Ok(())
    }

    /// The files of `name` (`None`: the global certificate). A domain's self-signed certificate is made when it
    /// is first wanted, or again when its files were unusable; after that its files are watched like any others.
    fn read(
        &self,
        config: &Config,
        name: Option<&str>,
        paths: &CertPaths,
    ) -> Result<PemFiles, DomainCertError> {
        if let Some(domain) = name
            && paths.source == Source::SelfSigned
            && self
                .kept
                .get(&Some(domain.to_string()))
                .is_none_or(|k| k.paths != *paths || matches!(k.seen, Seen::Failed(_)))
        {
            self_signed::ensure_domain(&config.server.tls.auto_cert_dir, domain)?;
        }
        Ok(PemFiles::read(&paths.cert, &paths.key)?)
    }

    /// After `error` reading `shown`'s certificate: counted and logged, and what was served so far stays.
    fn keep_previous(
        &self,
        shown: &str,
        error: &DomainCertError,
        previous: Option<Kept>,
    ) -> Option<Arc<Served>> {
        self.metrics.certificate_load_failed();
        let old = previous.and_then(|p| p.served);
        let keeping = if old.is_some() {
            "keeping the certificate served so far"
        } else {
            "no certificate for it until the files are fixed"
        };
        tracing::error!("TLS certificate for {shown}: {error}; {keeping}");
        old
    }

    /// Swaps in the table of what is kept.
    fn swap_table(&self) {
        let mut files = CertTable::default();
        for (name, k) in &self.kept {
            let Some(served) = k.served.clone() else {
                continue;
            };
            match name {
                Some(domain) => {
                    files.domains.insert(domain.clone(), served);
                }
                None => files.global = Some(served),
            }
        }
        // ACME swaps its part of the table too: keep whatever it holds at the moment of the swap.
        self.certs.rcu(|current| CertTable {
            acme: current.acme.clone(),
            ..files.clone()
        });
    }
}

/// The files of `name`'s own certificate, if it has one: its `cert_file` and `key_file`, or its `self_signed`
/// certificate's (made by [`self_signed::ensure_domain`]).
pub fn domain_paths(config: &Config, name: &str, domain: &DomainConfig) -> Option<CertPaths> {
    if domain.self_signed {
        let files = self_signed::domain_files(&config.server.tls.auto_cert_dir, name);
        return Some(CertPaths {
            source: Source::SelfSigned,
            cert: files.cert,
            key: files.key,
        });
    }
    Some(CertPaths {
        source: Source::DomainFiles,
        cert: domain.cert_file.clone()?,
        key: domain.key_file.clone()?,
    })
}

/// Checks the files every reload interval of the configuration in force.
pub async fn keep_refreshing(state: Arc<State>) {
    loop {
        let interval = state.live.load().config.rules.reload_interval_sec;
        tokio::time::sleep(Duration::from_secs(interval)).await;
        state.refresh_certs();
    }
}
