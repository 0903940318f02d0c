//! Loading the certificate files the configuration names, and again whenever one changes on disk.
//!
//! Operators rotate certificates by replacing the files; the proxy checks them every reload interval (the same
//! period as the rule files) and swaps in the new table at once: new handshakes get the new certificate, open
//! connections keep the one they were made with. A file that is missing, unreadable or broken is logged (once per
//! change) and counted, and the certificate served so far for that name stays in service. At start, a broken
//! file is an error instead: the proxy does not come up serving something else than configured.
use super::certs::{PemFiles, Served, Source};
use super::sni::{CertTable, Certs};
use crate::config::Config;
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
    seen: Result<PemFiles, String>,
    served: Option<Arc<Served>>,
}

pub struct CertWatcher {
    provider: Arc<CryptoProvider>,
    /// Fixed at start, like the other `server` settings: the global files or the generated ones.
    global: Option<CertPaths>,
    kept: HashMap<Option<String>, Kept>,
    certs: Certs,
    metrics: &'static Metrics,
}

impl CertWatcher {
    /// Loads every certificate `config` names; any failure is an error naming the file.
    pub fn start(
        config: &Config,
        global: Option<CertPaths>,
        provider: Arc<CryptoProvider>,
        certs: Certs,
        metrics: &'static Metrics,
    ) -> anyhow::Result<CertWatcher> {
        let mut watcher = CertWatcher {
            provider,
            global,
            kept: HashMap::new(),
            certs,
            metrics,
        };
        watcher.refresh(config, true)?;
        Ok(watcher)
    }

    /// Checks the files every reload interval of the configuration in force.
    pub async fn run(mut self, state: Arc<State>) {
        loop {
            let live = state.live.load_full();
            tokio::time::sleep(Duration::from_secs(live.config.rules.reload_interval_sec)).await;
            // Not strict: every error is handled (logged, old certificate kept) inside.
            let _ = self.refresh(&state.live.load().config, false);
        }
    }

    fn wanted(&self, config: &Config) -> Vec<(Option<String>, CertPaths)> {
        let domains = config.domains.iter().filter_map(|(name, d)| {
            Some((
                Some(name.clone()),
                CertPaths {
                    source: Source::DomainFiles,
                    cert: d.cert_file.clone()?,
                    key: d.key_file.clone()?,
                },
            ))
        });
        self.global
            .iter()
            .map(|g| (None, g.clone()))
            .chain(domains)
            .collect()
    }

    /// Reads the files, parses what changed, and swaps in a new table when anything did. `strict`: fail on the
    /// first broken file instead of keeping the old certificate.
    fn refresh(&mut self, config: &Config, strict: bool) -> anyhow::Result<()> {
        let wanted = self.wanted(config);
        let mut changed = wanted.len() != self.kept.len();
        let mut kept = HashMap::with_capacity(wanted.len());
        for (name, paths) in wanted {
            let seen = PemFiles::read(&paths.cert, &paths.key).map_err(|e| e.to_string());
            let previous = match self.kept.remove(&name) {
                Some(p) if p.paths == paths && p.seen == seen => {
                    kept.insert(name, p);
                    continue;
                }
                other => other,
            };
            changed = true;
            let shown = name.as_deref().unwrap_or("(global)");
            let parsed = seen.clone().and_then(|files| {
                files
                    .parse(&self.provider, paths.source, &paths.cert, &paths.key)
                    .map_err(|e| e.to_string())
            });
            let served = match parsed {
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
                Err(e) if strict => anyhow::bail!("TLS certificate for {shown}: {e}"),
                Err(e) => {
                    self.metrics.certificate_load_failed();
                    let old = previous.and_then(|p| p.served);
                    let keeping = if old.is_some() {
                        "keeping the certificate served so far"
                    } else {
                        "no certificate for it until the files are fixed"
                    };
                    tracing::error!("TLS certificate for {shown}: {e}; {keeping}");
                    old
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
        Ok(())
    }
}
