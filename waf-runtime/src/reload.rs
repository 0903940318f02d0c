//! Hot reload of the configuration file, the rule sources, and the traffic controls' files (IP list files, the
//! GeoIP database).
//!
//! Three triggers, one loop: file-system events (`notify`) for promptness, a periodic check every reload interval
//! as the fallback when events are lost or unsupported (network file systems, some container mounts), and SIGHUP
//! for "now". A check compares a cheap fingerprint (file names, sizes, modification times) and rebuilds only on a
//! change; SIGHUP rebuilds regardless. Building happens on a blocking thread, never on the request path, and the
//! result is swapped in whole (`state.rs`). A build that fails keeps what is in force.
use crate::config::{self, Config};
use crate::inspect;
use crate::metrics::Reloaded;
use crate::state::State;
use crate::traffic::{self, Traffic};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::Notify;

/// Editors and `cp` produce bursts of events for one change: wait for the burst to end before rebuilding.
const SETTLE: Duration = Duration::from_millis(200);

/// Deepest directory level scanned for rule files: a symlink loop must not hang the scan.
const MAX_DEPTH: usize = 16;

pub struct Reloader {
    state: Arc<State>,
    wake: Arc<Notify>,
    watchers: Vec<RecommendedWatcher>,
    config_text: Option<String>,
    rules_fingerprint: u64,
    traffic_fingerprint: u64,
}

impl Reloader {
    pub fn new(state: Arc<State>, config_text: Option<String>) -> Self {
        let rules_fingerprint = fingerprint(&state.live.load().config);
        let traffic_fingerprint = traffic_fingerprint(&state.live.load().config);
        let mut reloader = Reloader {
            state,
            wake: Arc::new(Notify::new()),
            watchers: Vec::new(),
            config_text,
            rules_fingerprint,
            traffic_fingerprint,
        };
        reloader.watch();
        reloader
    }

    /// (Re)creates the file-system watchers for the config file, the current rule directories and the traffic
    /// controls' files.
    fn watch(&mut self) {
        self.watchers.clear();
        let config = &self.state.live.load().config;
        let mut targets: Vec<(PathBuf, RecursiveMode)> = config
            .rules
            .directories
            .iter()
            .map(|d| (d.clone(), RecursiveMode::Recursive))
            .collect();
        // Directories, not the files: editors and `rulec compile` replace files by renaming, which ends a watch on
        // the file itself.
        let parent = |path: &Path| {
            path.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf()
        };
        let traffic_files = traffic::files(config);
        for file in [
            self.state.config_path.as_deref(),
            config.rules.artifact.as_deref(),
        ]
        .into_iter()
        .flatten()
        .chain(traffic_files.iter().map(PathBuf::as_path))
        {
            let dir = parent(file);
            if !targets.iter().any(|(t, _)| *t == dir) {
                targets.push((dir, RecursiveMode::NonRecursive));
            }
        }
        for (path, mode) in targets {
            let wake = self.wake.clone();
            let watcher =
                notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                    if event.is_ok_and(|e| !e.kind.is_access()) {
                        wake.notify_one();
                    }
                });
            match watcher.and_then(|mut w| w.watch(&path, mode).map(|()| w)) {
                Ok(w) => self.watchers.push(w),
                Err(e) => tracing::warn!(
                    "cannot watch {} ({e}); changes are picked up by the periodic check",
                    path.display()
                ),
            }
        }
    }

    pub async fn run(mut self) {
        let mut hangup = match signal(SignalKind::hangup()) {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!("SIGHUP handler unavailable: {e}");
                None
            }
        };
        loop {
            let interval =
                Duration::from_secs(self.state.live.load().config.rules.reload_interval_sec);
            tokio::select! {
                () = tokio::time::sleep(interval) => self.check(false).await,
                () = self.wake.notified() => {
                    tokio::time::sleep(SETTLE).await;
                    self.check(false).await;
                }
                Some(()) = async { match hangup.as_mut() { Some(h) => h.recv().await, None => None } } => {
                    tracing::info!("SIGHUP: reloading configuration and rules");
                    self.check(true).await;
                }
            }
        }
    }

    async fn check(&mut self, force: bool) {
        let changed = self.check_config(force).await;
        if changed.rule_sources || changed.traffic_files {
            self.watch();
        }
        if !changed.traffic {
            self.check_traffic(force).await;
        }
        self.check_rules(force || changed.rule_sources).await;
    }

    /// Rebuilds the traffic controls when one of their files changed (or on SIGHUP); a build that fails (a bad
    /// line in a list, an unreadable database) keeps the controls in force.
    async fn check_traffic(&mut self, force: bool) {
        let live = self.state.live.load_full();
        let now = traffic_fingerprint(&live.config);
        if !force && now == self.traffic_fingerprint {
            return;
        }
        self.traffic_fingerprint = now;
        let metrics = self.state.metrics;
        let built = tokio::task::spawn_blocking(move || {
            Traffic::build(&live.config, Some(&live.traffic), metrics)
        })
        .await;
        match built {
            Ok(Ok(traffic)) => {
                tracing::info!("traffic controls reloaded (IP lists, GeoIP database)");
                self.state.apply_traffic(traffic);
                self.state.metrics.reloaded(Reloaded::Traffic, true);
            }
            Ok(Err(e)) => {
                tracing::error!("traffic controls reload failed, keeping those in force: {e}");
                self.state.metrics.reloaded(Reloaded::Traffic, false);
            }
            Err(e) => {
                tracing::error!("traffic controls reload task failed: {e}");
                self.state.metrics.reloaded(Reloaded::Traffic, false);
            }
        }
    }

    /// Reloads the config file if its text changed (and with it the traffic controls). Says what changed.
    async fn check_config(&mut self, force: bool) -> ConfigChange {
        let unchanged = ConfigChange::default();
        let Some(path) = self.state.config_path.clone() else {
            return unchanged;
        };
        let seen = self.state.swaps();
        let text = match tokio::fs::read_to_string(&path).await {
            Ok(t) => t,
            Err(e) => {
                if self.config_text.take().is_some() {
                    tracing::error!(
                        "cannot read config file {}: {e}; keeping the configuration in force",
                        path.display()
                    );
                    self.state.metrics.reloaded(Reloaded::Config, false);
                }
                return unchanged;
            }
        };
        if !force && self.config_text.as_deref() == Some(text.as_str()) {
            return unchanged;
        }
        self.config_text = Some(text.clone());
        let resolved = config::resolve(&text, &path, &|name| std::env::var(name).ok());
        let new = match resolved {
            Ok(c) => c,
            Err(e) => {
                tracing::error!("config reload failed, keeping the configuration in force: {e}");
                self.state.metrics.reloaded(Reloaded::Config, false);
                return unchanged;
            }
        };
        let live = self.state.live.load_full();
        let metrics = self.state.metrics;
        let built = tokio::task::spawn_blocking(move || {
            let traffic = Traffic::build(&new, Some(&live.traffic), metrics);
            (new, traffic)
        })
        .await;
        let (new, traffic) = match built {
            Ok((new, Ok(traffic))) => (new, traffic),
            Ok((_, Err(e))) => {
                tracing::error!("config reload failed, keeping the configuration in force: {e}");
                self.state.metrics.reloaded(Reloaded::Config, false);
                return unchanged;
            }
            Err(e) => {
                tracing::error!("config reload task failed: {e}");
                self.state.metrics.reloaded(Reloaded::Config, false);
                return unchanged;
            }
        };
        let old = &self.state.live.load().config;
        warn_restart_needed(old, &new);
        // Rule exclusions per domain are checked against the rules in force when those stay (else at their load).
        if old.rule_sources() == new.rule_sources() {
            for error in inspect::domain_rule_errors(&new, &self.state.rules.load()) {
                tracing::error!("rule exclusion ignored: {error}");
            }
        }
        let change = ConfigChange {
            rule_sources: old.rule_sources() != new.rule_sources(),
            traffic_files: traffic::files(old) != traffic::files(&new),
            traffic: true,
        };
        let fingerprint = traffic_fingerprint(&new);
        let mode = new.mode;
        if !self.state.apply_config_since(seen, new, traffic) {
            // The admin panel applied a change meanwhile: what was read may be older than it. Read again next time.
            self.config_text = None;
            return unchanged;
        }
        self.traffic_fingerprint = fingerprint;
        tracing::info!(
            "configuration reloaded from {} (mode {mode:?})",
            path.display()
        );
        self.state.metrics.reloaded(Reloaded::Config, true);
        change
    }

    async fn check_rules(&mut self, force: bool) {
        let seen = self.state.swaps();
        let config = self.state.live.load_full();
        let previous = self.rules_fingerprint;
        let work = tokio::task::spawn_blocking(move || {
            let now = fingerprint(&config.config);
            if !force && now == previous {
                return (now, None);
            }
            (now, Some(inspect::load(&config.config)))
        });
        let (now, loaded) = match work.await {
            Ok(r) => r,
            Err(e) => {
                tracing::error!("rule reload task failed: {e}");
                self.state.metrics.reloaded(Reloaded::Rules, false);
                return;
            }
        };
        self.rules_fingerprint = now;
        match loaded {
            None => {}
            Some(Ok(rules)) => {
                for error in &rules.errors {
                    tracing::error!("rule file skipped: {error}");
                }
                let summary = format!(
                    "rules reloaded from {}: {} rules, {} files skipped, hash {}",
                    rules.source,
                    rules.count(),
                    rules.errors.len(),
                    rules.hash()
                );
                if !self.state.apply_rules_since(seen, rules) {
                    // Built from a configuration the admin panel has replaced meanwhile: load again next time.
                    self.rules_fingerprint = 0;
                    return;
                }
                tracing::info!("{summary}");
                self.state.metrics.reloaded(Reloaded::Rules, true);
            }
            Some(Err(e)) => {
                tracing::error!("rule reload failed, keeping the rules in force: {e}");
                self.state.metrics.reloaded(Reloaded::Rules, false);
            }
        }
    }
}

/// What a configuration reload changed.
#[derive(Default)]
struct ConfigChange {
    /// The rule directories, artifact or paranoia level: the rules are loaded again.
    rule_sources: bool,
    /// Which files the traffic controls read: the watchers follow.
    traffic_files: bool,
    /// The traffic controls were rebuilt (with the configuration).
    traffic: bool,
}

/// Settings read once at start-up: say so instead of pretending they applied.
fn warn_restart_needed(old: &Config, new: &Config) {
    // The certificates (server.tls) follow the configuration in force (`tls/watch.rs`).
    // The connection limits are read at each accept (`connection_limits.rs`).
    let listeners = |c: &Config| crate::config::ServerConfig {
        tls: new.server.tls.clone(),
        max_connections: new.server.max_connections,
        max_connections_per_client: new.server.max_connections_per_client,
        ..c.server.clone()
    };
    if listeners(old) != listeners(new) {
        tracing::warn!("changes under waf.server (but tls) apply at the next restart");
    }
    if old.admin != new.admin {
        tracing::warn!("changes under waf.admin apply at the next restart");
    }
    // traffic_level is read per decision from the live configuration: it applies at once.
    if (&old.logging.level, old.logging.format) != (&new.logging.level, new.logging.format) {
        tracing::warn!("changes to waf.logging.level and .format apply at the next restart");
    }
    // The file (or stdout) is chosen at start; enabled, format and query are read per request and apply at once.
    if old.logging.access.path != new.logging.access.path {
        tracing::warn!("changes to waf.logging.access.path apply at the next restart");
    }
}

/// Names, sizes, modification times and inodes of the traffic controls' files (a file replaced by a rename is a
/// new inode even when size and time agree).
fn traffic_fingerprint(config: &Config) -> u64 {
    let mut hasher = DefaultHasher::new();
    for path in traffic::files(config) {
        hash_file(&path, &mut hasher);
        if let Ok(meta) = std::fs::metadata(&path) {
            std::os::unix::fs::MetadataExt::ino(&meta).hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// Names, sizes and modification times of every rule file under the configured sources (the artifact's included).
pub fn fingerprint(config: &Config) -> u64 {
    let mut hasher = DefaultHasher::new();
    let sources = config.rule_sources();
    sources.paranoia_level.hash(&mut hasher);
    sources.unicode_code_page.hash(&mut hasher);
    for dir in sources.directories {
        dir.hash(&mut hasher);
        scan(dir, 0, &mut hasher);
    }
    if let Some(path) = sources.artifact {
        hash_file(path, &mut hasher);
    }
    hasher.finish()
}

fn scan(dir: &Path, depth: usize, hasher: &mut DefaultHasher) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        "missing".hash(hasher);
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            scan(&path, depth + 1, hasher);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            hash_file(&path, hasher);
        }
    }
}

fn hash_file(path: &Path, hasher: &mut DefaultHasher) {
    path.hash(hasher);
    if let Ok(meta) = std::fs::metadata(path) {
        meta.len().hash(hasher);
        meta.modified().ok().hash(hasher);
    }
}
