//! Certificates from an ACME server (RFC 8555, instant-acme) for the domains with `acme_enabled`, validated by
//! HTTP-01 on the HTTP listener (`challenge.rs`).
//!
//! [`AcmeTasks`] runs one task per ACME domain of the configuration in force: started once the listeners are up
//! (the ACME server must be able to reach the challenge), then following every configuration swap, a reload's or
//! an admin panel change's (`State::apply_config`). A domain that gains `acme_enabled` gets its task at once; one
//! that loses it, or is removed, has its task stopped and its ACME certificate withdrawn from the SNI table at
//! once, so the handshake falls back to what the configuration names for it. A change of `waf.acme` or of
//! `server.tls.auto_cert_dir` restarts every task with the new settings. All this needs both listeners open at
//! start (the configuration refuses `acme_enabled` without them, and opening one is a restart).
//!
//! Per domain: the certificate kept in `auto_cert_dir/acme/` is served at once if it is still usable; a new one is
//! ordered when there is none or renewal is due, and served at once by swapping it into the SNI table (open
//! connections keep theirs). The account key and certificates are kept on disk (keys 0600, written atomically), so
//! a restart neither creates a new account nor orders again.
//!
//! Renewal is due 30 days before expiry, or once two thirds of the lifetime have passed when that is sooner (a
//! short-lived certificate, such as a test CA's, would otherwise be renewed without end); it is checked at least
//! every 12 hours. A failed order is logged, counted and retried with backoff.
use super::certs::{CertError, PemFiles, Served, Source};
use super::challenge::Challenges;
use super::private_file::{self, FileError};
use super::sni::{CertTable, Certs};
use crate::config::{AcmeConfig, Config};
use crate::metrics::Metrics;
use instant_acme::{
    Account, AccountCredentials, AuthorizationStatus, ChallengeType, Identifier, NewAccount,
    NewOrder, OrderStatus, RetryPolicy,
};
use rustls::crypto::CryptoProvider;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::task::AbortHandle;

/// How long before expiry renewal starts (Let's Encrypt's recommendation for its 90-day certificates).
const RENEW_BEFORE: Duration = Duration::from_secs(30 * 24 * 3600);
/// The longest wait between two checks of a certificate, so a clock jump or a suspended host cannot let a
/// certificate expire unnoticed.
const CHECK_EVERY: Duration = Duration::from_secs(12 * 3600);
/// The first retry after a failed order; each further failure waits four times longer, up to `RETRY_MAX`.
/// Let's Encrypt allows 5 failed validations per hostname and hour: 10 s, 40 s, 160 s, 640 s, 43 min stays
/// about within it.
const RETRY_FIRST: Duration = Duration::from_secs(10);
const RETRY_MAX: Duration = Duration::from_secs(6 * 3600);
/// One order from start to certificate; the ACME server answering slowly or not at all must not stall renewal.
const ORDER_LIMIT: Duration = Duration::from_secs(300);

/// Why an order for a certificate failed.
#[derive(Debug, thiserror::Error)]
pub enum OrderError {
    /// The ACME server or the connection to it (`step` says at which point).
    #[error("{step}: {source}")]
    Acme {
        step: &'static str,
        source: instant_acme::Error,
    },
    #[error("acme.ca_file {}: {source}", path.display())]
    CaFile {
        path: PathBuf,
        source: instant_acme::Error,
    },
    #[error("authorization is {0:?}")]
    Authorization(AuthorizationStatus),
    #[error("the ACME server offers no HTTP-01 challenge")]
    NoHttp01,
    #[error("order is {0:?} after validation")]
    NotReady(OrderStatus),
    #[error("no certificate within {ORDER_LIMIT:?}")]
    Timeout,
    #[error("the account credentials: {0}")]
    Credentials(serde_json::Error),
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Certificate(#[from] CertError),
}

/// `step`'s failure as an [`OrderError`].
fn at(step: &'static str) -> impl FnOnce(instant_acme::Error) -> OrderError {
    move |source| OrderError::Acme { step, source }
}

/// The ACME tasks of the running proxy, following the configuration in force.
pub struct AcmeTasks {
    challenges: Arc<Challenges>,
    certs: Certs,
    provider: Arc<CryptoProvider>,
    metrics: &'static Metrics,
    running: Mutex<Running>,
}

/// What runs now.
#[derive(Default)]
struct Running {
    /// The runtime the tasks run on, set by [`AcmeTasks::start`]: until then nothing is started.
    runtime: Option<tokio::runtime::Handle>,
    /// What the tasks share, made for the first ACME domain and again when its settings change.
    shared: Option<Arc<Acme>>,
    /// By domain name.
    tasks: HashMap<String, Task>,
}

/// One domain's task.
struct Task {
    abort: AbortHandle,
    /// Set when the task is stopped: a task caught between its last step and the abort never installs a
    /// certificate after its withdrawal ([`Acme::install`]).
    stopped: Arc<AtomicBool>,
}

impl AcmeTasks {
    pub fn new(
        challenges: Arc<Challenges>,
        certs: Certs,
        provider: Arc<CryptoProvider>,
        metrics: &'static Metrics,
    ) -> AcmeTasks {
        AcmeTasks {
            challenges,
            certs,
            provider,
            metrics,
            running: Mutex::default(),
        }
    }

    fn running(&self) -> MutexGuard<'_, Running> {
        // Every step below leaves the map consistent: a panic elsewhere while holding the lock changes nothing.
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts the tasks `config` asks for on the current runtime, and from now on follows [`Self::follow`]. Call
    /// once the HTTP and HTTPS listeners are up; without both, never (no ACME domain can then be in force).
    pub fn start(&self, config: &Config) {
        self.running().runtime = Some(tokio::runtime::Handle::current());
        self.follow(config);
    }

    /// Brings the tasks in line with `config`: starts those of new ACME domains, stops (and withdraws the
    /// certificates of) those no longer configured, and restarts all when `waf.acme` or the directory they keep
    /// their files in changed. Does nothing before [`Self::start`].
    pub fn follow(&self, config: &Config) {
        let mut running = self.running();
        let Some(runtime) = running.runtime.clone() else {
            return;
        };
        let settings = Settings::of(config);
        let changed = running
            .shared
            .as_ref()
            .is_some_and(|s| s.settings != settings);
        let stopping: Vec<String> = running
            .tasks
            .keys()
            .filter(|name| changed || !config.domains.get(*name).is_some_and(|d| d.acme_enabled))
            .cloned()
            .collect();
        for name in stopping {
            if let Some(task) = running.tasks.remove(&name) {
                task.stopped.store(true, Ordering::SeqCst);
                task.abort.abort();
            }
            self.certs.rcu(|current| {
                let mut table = CertTable::clone(current);
                table.acme.remove(&name);
                table
            });
            tracing::info!("ACME: {name} stopped, its ACME certificate is no longer served");
        }
        if changed {
            running.shared = None;
        }
        let starting: Vec<String> = config
            .acme_domains()
            .map(|(name, _)| name)
            .filter(|name| !running.tasks.contains_key(*name))
            .cloned()
            .collect();
        if !starting.is_empty() && running.shared.is_none() {
            running.shared = Some(self.share(settings));
        }
        let Some(shared) = running.shared.clone() else {
            return;
        };
        shared.set_contacts(contacts(config));
        for name in starting {
            tracing::info!("ACME: {name} started");
            let stopped = Arc::new(AtomicBool::new(false));
            let handle = runtime.spawn(shared.clone().keep(name.clone(), stopped.clone()));
            let abort = handle.abort_handle();
            running.tasks.insert(name, Task { abort, stopped });
        }
    }

    /// What the tasks of `settings` share.
    fn share(&self, settings: Settings) -> Arc<Acme> {
        // instant-acme's HTTPS client takes the process's default provider, and with both ring and aws-lc-rs in
        // the tree rustls cannot pick one itself. An error only means it is installed already.
        let _ = CryptoProvider::install_default(self.provider.as_ref().clone());
        tracing::info!("ACME: certificates from {}", settings.acme.directory_url);
        Arc::new(Acme {
            settings,
            contacts: Mutex::default(),
            challenges: self.challenges.clone(),
            certs: self.certs.clone(),
            provider: self.provider.clone(),
            metrics: self.metrics,
            account: tokio::sync::Mutex::new(None),
        })
    }
}

/// The account's contacts: the ACME domains' e-mail addresses. They are given to the ACME server when the account
/// is created; an account made earlier keeps its contacts.
fn contacts(config: &Config) -> Vec<String> {
    let mut contacts: Vec<String> = config
        .acme_domains()
        .filter_map(|(_, d)| d.acme_email.as_ref().map(|e| format!("mailto:{e}")))
        .collect();
    contacts.sort();
    contacts.dedup();
    contacts
}

/// What the tasks share, built from the configuration: a change restarts them.
#[derive(PartialEq)]
struct Settings {
    acme: AcmeConfig,
    dir: PathBuf,
}

impl Settings {
    fn of(config: &Config) -> Settings {
        Settings {
            acme: config.acme.clone(),
            dir: config.server.tls.auto_cert_dir.join("acme"),
        }
    }
}

/// What the ACME tasks share.
struct Acme {
    settings: Settings,
    contacts: Mutex<Vec<String>>,
    challenges: Arc<Challenges>,
    certs: Certs,
    provider: Arc<CryptoProvider>,
    metrics: &'static Metrics,
    account: tokio::sync::Mutex<Option<Account>>,
}

/// The account file: the credentials, and the directory they belong to (another CA does not know them).
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredAccount {
    directory_url: String,
    credentials: AccountCredentials,
}

impl Acme {
    fn set_contacts(&self, contacts: Vec<String>) {
        *self.contacts.lock().unwrap_or_else(|e| e.into_inner()) = contacts;
    }

    fn files(&self, domain: &str) -> (PathBuf, PathBuf) {
        (
            self.settings.dir.join(format!("{domain}.pem")),
            self.settings.dir.join(format!("{domain}.key")),
        )
    }

    /// Serves and renews `domain`'s certificate until its task is stopped (`stopped` set, then aborted).
    async fn keep(self: Arc<Self>, domain: String, stopped: Arc<AtomicBool>) {
        let (cert_path, key_path) = self.files(&domain);
        let mut current = match PemFiles::read(&cert_path, &key_path) {
            Ok(files) => match files.parse(&self.provider, Source::Acme, &cert_path, &key_path) {
                Ok(served) => {
                    tracing::info!("ACME: serving the certificate kept for {domain}");
                    Some(self.install(&domain, served, &stopped))
                }
                Err(e) => {
                    tracing::warn!(
                        "ACME: the kept certificate for {domain} is unusable ({e}): ordering one"
                    );
                    None
                }
            },
            Err(_) => None,
        };
        let mut failures = 0u32;
        loop {
            let wait = current.as_ref().map_or(Duration::ZERO, |s| {
                until_renewal(s.not_before, s.not_after, unix_now())
            });
            if !wait.is_zero() {
                tokio::time::sleep(wait.min(CHECK_EVERY)).await;
                continue;
            }
            self.metrics.acme_order();
            let ordered = tokio::time::timeout(ORDER_LIMIT, self.order(&domain))
                .await
                .unwrap_or(Err(OrderError::Timeout));
            match ordered.and_then(|(chain, key)| self.store(&domain, chain, key)) {
                Ok(served) => {
                    tracing::info!(
                        "ACME: new certificate for {domain}, not after {} Unix time",
                        served.not_after
                    );
                    failures = 0;
                    current = Some(self.install(&domain, served, &stopped));
                }
                Err(e) => {
                    self.metrics.acme_order_failed();
                    let retry = retry_delay(failures);
                    failures = failures.saturating_add(1);
                    let keeping = match &current {
                        Some(_) => "the current certificate is kept",
                        None => "no certificate for it yet",
                    };
                    tracing::error!(
                        "ACME: order for {domain} failed: {e}; {keeping}; retrying in {retry:?}"
                    );
                    tokio::time::sleep(retry).await;
                }
            }
        }
    }

    /// The account: the stored one for this directory, else a new one (stored before use).
    async fn account(&self) -> Result<Account, OrderError> {
        let mut slot = self.account.lock().await;
        if let Some(account) = slot.as_ref() {
            return Ok(account.clone());
        }
        let path = self.settings.dir.join("account.json");
        let stored = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<StoredAccount>(&bytes).ok())
            .filter(|s| s.directory_url == self.settings.acme.directory_url);
        let account = match stored {
            Some(stored) => self
                .builder()?
                .from_credentials(stored.credentials)
                .await
                .map_err(at("restoring the ACME account"))?,
            None => {
                let contacts = self
                    .contacts
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone();
                let contacts: Vec<&str> = contacts.iter().map(String::as_str).collect();
                let new = NewAccount {
                    contact: &contacts,
                    terms_of_service_agreed: true,
                    only_return_existing: false,
                };
                let (account, credentials) = self
                    .builder()?
                    .create(&new, self.settings.acme.directory_url.clone(), None)
                    .await
                    .map_err(at("creating the ACME account"))?;
                let stored = StoredAccount {
                    directory_url: self.settings.acme.directory_url.clone(),
                    credentials,
                };
                private_file::create_dir(&self.settings.dir)?;
                // The credentials hold the account's private key.
                let credentials = serde_json::to_vec(&stored).map_err(OrderError::Credentials)?;
                private_file::write(&path, &credentials)?;
                tracing::info!("ACME: account created, kept in {}", path.display());
                account
            }
        };
        *slot = Some(account.clone());
        Ok(account)
    }

    fn builder(&self) -> Result<instant_acme::AccountBuilder, OrderError> {
        match &self.settings.acme.ca_file {
            Some(ca) => Account::builder_with_root(ca).map_err(|source| OrderError::CaFile {
                path: ca.clone(),
                source,
            }),
            None => Account::builder().map_err(at("the ACME client")),
        }
    }

    /// One order for `domain`: HTTP-01, finalize with a new key; the chain and the key, as PEM.
    async fn order(&self, domain: &str) -> Result<(String, String), OrderError> {
        let account = self.account().await?;
        let identifiers = [Identifier::Dns(domain.to_string())];
        let mut order = account
            .new_order(&NewOrder::new(&identifiers))
            .await
            .map_err(at("new order"))?;
        let mut published = Published(&self.challenges, Vec::new());
        let mut authorizations = order.authorizations();
        while let Some(authorization) = authorizations.next().await {
            let mut authorization = authorization.map_err(at("authorization"))?;
            match authorization.status {
                AuthorizationStatus::Pending => {}
                AuthorizationStatus::Valid => continue,
                other => return Err(OrderError::Authorization(other)),
            }
            let mut challenge = authorization
                .challenge(ChallengeType::Http01)
                .ok_or(OrderError::NoHttp01)?;
            let token = challenge.token.clone();
            self.challenges
                .insert(&token, challenge.key_authorization().as_str());
            published.1.push(token);
            challenge.set_ready().await.map_err(at("challenge ready"))?;
        }
        let polling = RetryPolicy::new().timeout(Duration::from_secs(120));
        let status = order.poll_ready(&polling).await.map_err(at("validation"))?;
        if status != OrderStatus::Ready {
            return Err(OrderError::NotReady(status));
        }
        let key = order.finalize().await.map_err(at("finalize"))?;
        let chain = order
            .poll_certificate(&polling)
            .await
            .map_err(at("certificate"))?;
        Ok((chain, key))
    }

    /// Checks the new certificate, then writes it (key first, each atomically) where the next start finds it.
    fn store(&self, domain: &str, chain: String, key: String) -> Result<Served, OrderError> {
        let (cert_path, key_path) = self.files(domain);
        let files = PemFiles {
            cert: chain.into_bytes(),
            key: key.into_bytes(),
        };
        let served = files.parse(&self.provider, Source::Acme, &cert_path, &key_path)?;
        private_file::create_dir(&self.settings.dir)?;
        private_file::write(&key_path, &files.key)?;
        private_file::write_public(&cert_path, &files.cert)?;
        Ok(served)
    }

    /// Serves `served` for `domain` from the next handshake on, unless its task was stopped meanwhile: the check
    /// runs inside the swap, so it cannot slip between the stop and the withdrawal (`AcmeTasks::follow`).
    fn install(&self, domain: &str, served: Served, stopped: &AtomicBool) -> Arc<Served> {
        let served = Arc::new(served);
        self.metrics.certificate_loaded(domain, served.not_after);
        self.certs.rcu(|current| {
            let mut table = CertTable::clone(current);
            if !stopped.load(Ordering::SeqCst) {
                table.acme.insert(domain.to_string(), served.clone());
            }
            table
        });
        served
    }
}

/// Withdraws an order's tokens when it ends, however it ends.
struct Published<'a>(&'a Challenges, Vec<String>);

impl Drop for Published<'_> {
    fn drop(&mut self) {
        for token in &self.1 {
            self.0.remove(token);
        }
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// How long until a certificate valid from `not_before` to `not_after` is due for renewal at `now` (zero: due).
fn until_renewal(not_before: i64, not_after: i64, now: i64) -> Duration {
    let lifetime = (not_after - not_before).max(0);
    let before = (RENEW_BEFORE.as_secs() as i64).min(lifetime / 3);
    let due = not_after - before;
    Duration::from_secs((due - now).max(0) as u64)
}

fn retry_delay(failures: u32) -> Duration {
    RETRY_FIRST
        .saturating_mul(4u32.saturating_pow(failures))
        .min(RETRY_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renewal_is_due_30_days_before_expiry_or_at_two_thirds_of_a_short_lifetime() {
        let day = 24 * 3600;
        assert_eq!(
            until_renewal(0, 90 * day, 0),
            Duration::from_secs(60 * day as u64)
        );
        assert_eq!(until_renewal(0, 90 * day, 61 * day), Duration::ZERO);
        assert_eq!(until_renewal(1000, 1030, 1000), Duration::from_secs(20));
        assert_eq!(until_renewal(1000, 1030, 5000), Duration::ZERO);
    }

    #[test]
    fn retries_back_off_to_a_ceiling() {
        assert_eq!(retry_delay(0), Duration::from_secs(10));
        assert_eq!(retry_delay(1), Duration::from_secs(40));
        assert_eq!(retry_delay(3), Duration::from_secs(640));
        assert_eq!(retry_delay(40), RETRY_MAX);
    }
}
