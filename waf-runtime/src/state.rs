//! The live state every request reads: configuration, upstream client and rule set, each behind an atomic swap.
//!
//! A request takes one snapshot of each at its start and keeps it to its end, so a reload never changes the rules
//! or the mode under a request in flight; the old snapshot is freed when its last request finishes.
//!
//! Two writers swap them: the reloader (built from the files) and the admin panel (built from its change, at once).
//! Each swap is counted; the reloader applies what it built only if nothing was swapped since it started
//! ([`State::swaps`], `apply_*_since`), so a reload built from the file as it was before a panel change can never
//! undo that change (it reads the file again on its next check instead).
use crate::access_log::AccessLog;
use crate::config::Config;
use crate::connection_limits::Connections;
use crate::inspect::LoadedRules;
use crate::metrics::Metrics;
use crate::recent_blocks::RecentBlocks;
use crate::tls::Https;
use crate::traffic::Traffic;
use crate::upstream::Upstreams;
use crate::upstream_pool::{Pools, Registry};
use arc_swap::ArcSwap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

/// The configuration and what is built from it (upstream client, traffic controls): they change together.
pub struct Live {
    pub config: Config,
    pub upstreams: Arc<Upstreams>,
    /// The pools of upstream servers and the choice among them (`upstream_pool.rs`).
    pub pools: Arc<Pools>,
    pub traffic: Arc<Traffic>,
}

pub struct State {
    pub live: ArcSwap<Live>,
    pub rules: ArcSwap<LoadedRules>,
    pub metrics: &'static Metrics,
    /// Request workers, fixed at start (`server.workers` changes apply at the next start).
    pub workers: usize,
    /// The file the configuration came from, watched for changes (none when running on env and defaults).
    pub config_path: Option<PathBuf>,
    /// The HTTPS listener's port and certificates (an empty table without HTTPS).
    pub https: Https,
    /// Requests the rules blocked lately, for the admin panel.
    pub recent_blocks: RecentBlocks,
    /// Where each request's access line goes (its writer is chosen at start).
    pub access_log: Arc<AccessLog>,
    /// Client connections open now, held to `server.max_connections` (`connection_limits.rs`).
    pub connections: Arc<Connections>,
    /// The configuration the proxy started with: its listeners follow it until a restart.
    pub started: Config,
    /// The health of every upstream server, kept across configuration swaps.
    pub servers: Registry,
    /// Configuration and rule swaps so far (see the module's doc); held while swapping.
    swaps: Mutex<Swaps>,
}

/// How many times each of the two was swapped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Swaps {
    pub config: u64,
    pub rules: u64,
}

impl State {
    /// `traffic` is built from `config` (`Traffic::build`), which can fail on its files: the caller reports that.
    pub fn new(
        config: Config,
        traffic: Traffic,
        rules: LoadedRules,
        metrics: &'static Metrics,
        config_path: Option<PathBuf>,
        https: Https,
        access_log: Arc<AccessLog>,
    ) -> Self {
        let workers = config.server.workers;
        let upstreams = Arc::new(Upstreams::new(&config, workers));
        record_rules(metrics, &rules);
        let servers = Registry::default();
        let pools = Arc::new(Pools::build(&config, &servers));
        State {
            servers,
            workers,
            started: config.clone(),
            live: ArcSwap::from_pointee(Live {
                config,
                upstreams,
                pools,
                traffic: Arc::new(traffic),
            }),
            rules: ArcSwap::from_pointee(rules),
            metrics,
            config_path,
            https,
            recent_blocks: RecentBlocks::default(),
            access_log,
            connections: Arc::default(),
            swaps: Mutex::new(Swaps::default()),
        }
    }

    fn swap_count(&self) -> MutexGuard<'_, Swaps> {
        self.swaps.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The swaps so far: what a reload started from.
    pub fn swaps(&self) -> Swaps {
        *self.swap_count()
    }

    /// [`Self::apply_config`] unless a configuration was swapped in since `seen`; whether it was applied.
    pub fn apply_config_since(&self, seen: Swaps, config: Config, traffic: Traffic) -> bool {
        let mut count = self.swap_count();
        if count.config != seen.config {
            return false;
        }
        self.store_config(config, traffic);
        count.config += 1;
        true
    }

    /// [`Self::apply_rules`] unless a rule set was swapped in since `seen`; whether it was applied.
    pub fn apply_rules_since(&self, seen: Swaps, rules: LoadedRules) -> bool {
        let mut count = self.swap_count();
        if count.rules != seen.rules {
            return false;
        }
        self.store_rules(rules);
        count.rules += 1;
        true
    }

    /// Swaps in a new configuration and the traffic controls built from it, keeping the warm upstream pool when
    /// its settings did not change.
    pub fn apply_config(&self, config: Config, traffic: Traffic) {
        let mut count = self.swap_count();
        self.store_config(config, traffic);
        count.config += 1;
    }

    fn store_config(&self, config: Config, traffic: Traffic) {
        let current = self.live.load();
        let upstreams = if current.upstreams.matches(&config) {
            current.upstreams.clone()
        } else {
            Arc::new(Upstreams::new(&config, self.workers))
        };
        let pools = Arc::new(Pools::build(&config, &self.servers));
        self.live.store(Arc::new(Live {
            config,
            upstreams,
            pools,
            traffic: Arc::new(traffic),
        }));
        // Under the swap count's lock (held by every caller), so the ACME tasks follow the swaps in their order.
        self.https.acme.follow(&self.live.load().config);
    }

    /// Starts the ACME tasks for the configuration in force, and lets them follow every swap from now on
    /// (`tls/acme.rs`). Call once the HTTP and HTTPS listeners accept.
    pub fn start_acme(&self) {
        let _ordered = self.swap_count();
        self.https.acme.start(&self.live.load().config);
    }

    /// Swaps in the upstream TLS clients built again when their files changed on disk (`upstream.rs`).
    pub fn reread_upstream_tls_files(&self) {
        let read_from = self.live.load().upstreams.clone();
        // Built outside the swap count's lock (reading and parsing files), applied under it only if the upstream
        // clients are still those it was built from: a configuration swapped meanwhile is never replaced by an
        // older one (its own clients read the files anew). Not counted as a swap: a reload built meanwhile still
        // applies, and keeps these clients (same settings).
        let Some(upstreams) = read_from.with_files_reread() else {
            return;
        };
        let _ordered = self.swap_count();
        let current = self.live.load();
        if !Arc::ptr_eq(&current.upstreams, &read_from) {
            return;
        }
        self.live.store(Arc::new(Live {
            config: current.config.clone(),
            upstreams: Arc::new(upstreams),
            pools: current.pools.clone(),
            traffic: current.traffic.clone(),
        }));
    }

    /// Swaps in traffic controls rebuilt because a list file or GeoIP database changed.
    pub fn apply_traffic(&self, traffic: Traffic) {
        let current = self.live.load();
        self.live.store(Arc::new(Live {
            config: current.config.clone(),
            upstreams: current.upstreams.clone(),
            pools: current.pools.clone(),
            traffic: Arc::new(traffic),
        }));
    }

    pub fn apply_rules(&self, rules: LoadedRules) {
        let mut count = self.swap_count();
        self.store_rules(rules);
        count.rules += 1;
    }

    /// Brings the served certificates in line with the configuration in force and the files on disk, when the
    /// HTTPS listener runs (`tls/watch.rs`).
    pub fn refresh_certs(&self) {
        if let Some(watcher) = &self.https.watcher {
            let mut watcher = watcher.lock().unwrap_or_else(|e| e.into_inner());
            // The configuration is read under the lock: a refresh for an older configuration never follows one
            // for a newer.
            watcher.refresh(&self.live.load().config);
        }
    }

    fn store_rules(&self, rules: LoadedRules) {
        record_rules(self.metrics, &rules);
        self.rules.store(Arc::new(rules));
    }
}

fn record_rules(metrics: &Metrics, rules: &LoadedRules) {
    metrics.rules_loaded.set(rules.count() as f64);
    metrics.rule_file_errors.set(rules.errors.len() as f64);
}
