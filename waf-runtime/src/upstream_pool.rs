//! Pools of upstream servers: which server a request goes to, and which servers are out.
//!
//! Every upstream is a pool: a domain's `upstreams`, else its `default_upstream` (a pool of one), else the
//! global `upstream.servers` or `upstream.default`. [`Pools`] is built from the configuration at every swap (it
//! is small); the health of each server ([`ServerState`], by URL) lives in the [`Registry`] across swaps, so a
//! reload neither forgets that a server is out nor puts it back.
//!
//! Each pool has its settings (`PoolSettings`): a domain's own `balance`, `max_fails`, `fail_timeout_sec`,
//! `retries` and `health_check` where it sets them, else the global `upstream.*` ones. A server is out while either:
//! - passive health: it failed (refused or reset connection, timeout) `max_fails` times within
//!   `fail_timeout_sec`; it is then out for `fail_timeout_sec`, as nginx does, and tried again after;
//! - active health (`health_check`): its last check did not answer `expect_status` in time. A server no pool
//!   checks any more (the check was taken out of the configuration) is back in at once.
//!
//! A server listed in several pools is one server: its health is shared, and it is checked once per interval
//! (with the check of one of the pools that check it).
//!
//! Backups are chosen only when no other server is up. When every server is out, a request still goes to one
//! (the pool is not emptied by its own health: a backend that is merely slow to answer its check still serves).
use crate::config::{Balance, Config, HealthCheck, PoolServer, PoolSettings, UpstreamTls};
use crate::state::State;
use crate::upstream::ProbeError;
use crate::upstream_url::UpstreamUrl;
use metrics::{Counter, Gauge, Histogram};
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The health of every server configured so far, by URL.
#[derive(Default)]
pub struct Registry(Mutex<HashMap<String, Arc<ServerState>>>);

/// One server's health and counters, shared by every pool that lists it.
pub struct ServerState {
    pub url: UpstreamUrl,
    /// Failures since `window_start` (milliseconds on [`now_ms`]'s clock).
    fails: AtomicU32,
    window_start: AtomicU64,
    /// Out until then (passive health); 0: not out.
    down_until: AtomicU64,
    /// Its last active check failed, and why.
    check_failed: AtomicBool,
    check_error: Mutex<String>,
    /// When it was last checked (active health).
    last_check: AtomicU64,
    pub in_flight: AtomicUsize,
    up: Gauge,
    requests: Counter,
    failures: Counter,
    seconds: Histogram,
}

/// A server's health as the admin panel shows it.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ServerHealth {
    pub url: String,
    /// The pools it is in: `(default)` (the global one) and the domains whose servers it is.
    pub pools: Vec<String>,
    pub up: bool,
    /// Why it is out (a failed health check and its reason, or passive health and for how long).
    pub out: Option<String>,
    /// Requests sent to it now.
    pub in_flight: usize,
}

/// The pools of one configuration.
pub struct Pools {
    global: Pool,
    domains: HashMap<String, Pool>,
}

pub struct Pool {
    pub servers: Vec<Member>,
    /// How it chooses, when a server is out, how many other servers a request may be tried on, its checks.
    pub settings: PoolSettings,
    /// The TLS settings its `https://` servers are reached with.
    pub tls: UpstreamTls,
    next: AtomicUsize,
}

pub struct Member {
    pub config: PoolServer,
    pub state: Arc<ServerState>,
}

/// Milliseconds since the first call: the clock of the atomics above.
fn now_ms() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    // +1: 0 means "never" in the fields above.
    START.get_or_init(Instant::now).elapsed().as_millis() as u64 + 1
}

impl Registry {
    fn state(&self, url: &UpstreamUrl) -> Arc<ServerState> {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        all.entry(url.to_string())
            .or_insert_with(|| Arc::new(ServerState::new(url)))
            .clone()
    }
}

impl ServerState {
    fn new(url: &UpstreamUrl) -> ServerState {
        let label = url.to_string();
        let up = metrics::gauge!("waf_upstream_server_up", "server" => label.clone());
        up.set(1.0);
        ServerState {
            url: url.clone(),
            fails: AtomicU32::new(0),
            window_start: AtomicU64::new(0),
            down_until: AtomicU64::new(0),
            check_failed: AtomicBool::new(false),
            check_error: Mutex::default(),
            last_check: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            up,
            requests: metrics::counter!("waf_upstream_server_requests_total", "server" => label.clone()),
            failures: metrics::counter!("waf_upstream_server_failures_total", "server" => label.clone()),
            seconds: metrics::histogram!("waf_upstream_server_duration_seconds", "server" => label),
        }
    }

    /// Whether it may be chosen at `now` (milliseconds).
    pub fn is_up(&self, now: u64) -> bool {
        !self.check_failed.load(Ordering::Relaxed) && self.down_until.load(Ordering::Relaxed) <= now
    }

    /// A request to it answered (its head arrived) after `elapsed`.
    pub fn succeeded(&self, elapsed: Duration) {
        self.requests.increment(1);
        self.seconds.record(elapsed.as_secs_f64());
        self.fails.store(0, Ordering::Relaxed);
        self.refresh_gauge();
    }

    /// A request to it failed: out for `fail_timeout` once `max_fails` failures fall within `fail_timeout`.
    pub fn failed(&self, max_fails: u32, fail_timeout: Duration) {
        self.requests.increment(1);
        self.failures.increment(1);
        let now = now_ms();
        let window = fail_timeout.as_millis() as u64;
        if now.saturating_sub(self.window_start.load(Ordering::Relaxed)) > window {
            self.window_start.store(now, Ordering::Relaxed);
            self.fails.store(0, Ordering::Relaxed);
        }
        let fails = self.fails.fetch_add(1, Ordering::Relaxed) + 1;
        if fails >= max_fails && self.down_until.load(Ordering::Relaxed) <= now {
            self.down_until.store(now + window, Ordering::Relaxed);
            self.fails.store(0, Ordering::Relaxed);
            tracing::warn!(
                "upstream server {} is out for {}s after {fails} failure(s)",
                self.url,
                fail_timeout.as_secs()
            );
        }
        self.refresh_gauge();
    }

    /// The result of an active check: `Ok`, or why it failed.
    fn checked(&self, result: Result<(), CheckFailed>) {
        let failed = result.is_err();
        if let Err(why) = &result {
            *self.check_error.lock().unwrap_or_else(|e| e.into_inner()) = why.to_string();
        }
        let was = self.check_failed.swap(failed, Ordering::Relaxed);
        match result {
            Err(why) if !was => tracing::warn!(
                "upstream server {} failed its health check, out until it passes: {why}",
                self.url
            ),
            Ok(()) if was => tracing::info!("upstream server {} passed its health check", self.url),
            _ => {}
        }
        self.refresh_gauge();
    }

    fn health(&self, now: u64, pool: &str) -> ServerHealth {
        let down_until = self.down_until.load(Ordering::Relaxed);
        let out = if self.check_failed.load(Ordering::Relaxed) {
            let why = self.check_error.lock().unwrap_or_else(|e| e.into_inner());
            Some(format!("failed its health check: {why}"))
        } else if down_until > now {
            let left = (down_until - now).div_ceil(1000);
            Some(format!("out after failing, for {left} s more"))
        } else {
            None
        };
        ServerHealth {
            url: self.url.to_string(),
            pools: vec![pool.to_string()],
            up: out.is_none(),
            out,
            in_flight: self.in_flight.load(Ordering::Relaxed),
        }
    }

    /// No pool checks it any more: a failed check no longer keeps it out.
    fn unchecked(&self) {
        self.last_check.store(0, Ordering::Relaxed);
        if self.check_failed.swap(false, Ordering::Relaxed) {
            tracing::info!(
                "upstream server {} is no longer health-checked: back in",
                self.url
            );
        }
        self.refresh_gauge();
    }

    fn refresh_gauge(&self) {
        self.up.set(if self.is_up(now_ms()) { 1.0 } else { 0.0 });
    }
}

impl Pools {
    /// The pools of `config`, with the health kept in `registry`.
    pub fn build(config: &Config, registry: &Registry) -> Pools {
        let up = &config.upstream;
        let pool = |servers: Vec<PoolServer>, tls: &UpstreamTls, settings: PoolSettings| Pool {
            servers: servers
                .into_iter()
                .map(|config| Member {
                    state: registry.state(&config.url),
                    config,
                })
                .collect(),
            settings,
            tls: tls.clone(),
            next: AtomicUsize::new(0),
        };
        let single = |url: &UpstreamUrl| {
            vec![PoolServer {
                url: url.clone(),
                weight: 1,
                backup: false,
            }]
        };
        let global = pool(
            up.servers.clone().unwrap_or_else(|| single(&up.default)),
            &up.tls,
            up.pool.clone(),
        );
        let domains = config
            .domains
            .iter()
            .filter_map(|(name, d)| {
                let servers = match (&d.upstreams, &d.default_upstream) {
                    (Some(list), _) => list.clone(),
                    (None, Some(url)) => single(url),
                    (None, None) => return None,
                };
                let settings = config.pool_settings_for(name);
                Some((
                    name.clone(),
                    pool(servers, config.upstream_tls_for(name), settings),
                ))
            })
            .collect();
        Pools { global, domains }
    }

    /// The pool for a request to `host` (lower-cased, without port): the domain's, else the global one. Only
    /// configured servers are in a pool, so no client header can point the proxy at an address of its choosing.
    pub fn for_host(&self, host: &str) -> &Pool {
        self.domains.get(host).unwrap_or(&self.global)
    }

    fn all(&self) -> impl Iterator<Item = (&Member, &Pool)> {
        std::iter::once(&self.global)
            .chain(self.domains.values())
            .flat_map(|p| p.servers.iter().map(move |m| (m, p)))
    }

    /// Every server of every pool, each once, with the pools it serves and its health now: for the admin panel.
    pub fn health(&self) -> Vec<ServerHealth> {
        let now = now_ms();
        let named = std::iter::once(("(default)", &self.global)).chain(
            self.domains
                .iter()
                .map(|(name, pool)| (name.as_str(), pool)),
        );
        let mut servers: Vec<ServerHealth> = Vec::new();
        for (name, pool) in named {
            for member in &pool.servers {
                let url = member.state.url.to_string();
                if let Some(known) = servers.iter_mut().find(|s| s.url == url) {
                    known.pools.push(name.to_string());
                    continue;
                }
                servers.push(member.state.health(now, name));
            }
        }
        for server in &mut servers {
            server.pools.sort();
        }
        servers.sort_by(|a, b| a.url.cmp(&b.url));
        servers
    }

    /// The servers out now, each once: for `/health`.
    pub fn down(&self) -> Vec<String> {
        let now = now_ms();
        let mut down: Vec<String> = self
            .all()
            .filter(|(m, _)| !m.state.is_up(now))
            .map(|(m, _)| m.state.url.to_string())
            .collect();
        down.sort();
        down.dedup();
        down
    }
}

impl Pool {
    /// Records a failure of `server` with the pool's passive-health settings. The only server of a pool is never
    /// out (there is nothing else to send to), as in nginx: it is only counted.
    pub fn failed(&self, server: &ServerState) {
        match self.servers.len() {
            1 => {
                server.requests.increment(1);
                server.failures.increment(1);
            }
            _ => server.failed(
                self.settings.max_fails,
                Duration::from_secs(self.settings.fail_timeout_sec),
            ),
        }
    }

    /// The server for the next attempt of a request from `client`, never one of `tried` (indexes): an up
    /// server that is not a backup, else an up backup, else any untried one.
    pub fn choose(&self, tried: &[usize], client: IpAddr) -> Option<usize> {
        let now = now_ms();
        let untried = |i: usize| !tried.contains(&i);
        let servers = &self.servers;
        let primary_up =
            |i: usize| untried(i) && !servers[i].config.backup && servers[i].state.is_up(now);
        let up = |i: usize| untried(i) && servers[i].state.is_up(now);
        self.pick(&primary_up, client)
            .or_else(|| self.pick(&up, client))
            .or_else(|| self.pick(&untried, client))
    }

    fn pick(&self, eligible: &dyn Fn(usize) -> bool, client: IpAddr) -> Option<usize> {
        let candidates = || (0..self.servers.len()).filter(|&i| eligible(i));
        let total: u64 = candidates()
            .map(|i| u64::from(self.servers[i].config.weight))
            .sum();
        if total == 0 {
            return None;
        }
        let by_weight = |mut n: u64| {
            candidates().find(|&i| {
                let w = u64::from(self.servers[i].config.weight);
                if n < w {
                    return true;
                }
                n -= w;
                false
            })
        };
        match self.settings.balance {
            Balance::RoundRobin => {
                by_weight(self.next.fetch_add(1, Ordering::Relaxed) as u64 % total)
            }
            Balance::IpHash => {
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                client.hash(&mut hasher);
                by_weight(hasher.finish() % total)
            }
            Balance::LeastConn => {
                // Ties go round in turn, so equal servers share the load.
                let start = self.next.fetch_add(1, Ordering::Relaxed);
                let n = self.servers.len();
                (0..n)
                    .map(|k| (start + k) % n)
                    .filter(|&i| eligible(i))
                    .min_by_key(|&i| {
                        let s = &self.servers[i];
                        // In flight per unit of weight, scaled to keep integers.
                        s.state.in_flight.load(Ordering::Relaxed) * 1000 / s.config.weight as usize
                    })
            }
        }
    }
}

/// Active health checks for the configuration in force, following every swap: each server of a pool with a
/// `health_check` is checked every `interval_sec` on a connection of its own (not the request pools'), which is
/// closed after.
pub async fn keep_checking(state: Arc<State>) {
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    loop {
        tick.tick().await;
        let live = state.live.load_full();
        let now = now_ms();
        let mut checked = HashSet::new();
        for (member, pool) in live.pools.all() {
            let Some(check) = &pool.settings.health_check else {
                continue;
            };
            let server = &member.state;
            checked.insert(Arc::as_ptr(server));
            let last = server.last_check.load(Ordering::Relaxed);
            if last != 0 && now.saturating_sub(last) < check.interval_sec * 1000 {
                continue;
            }
            server.last_check.store(now, Ordering::Relaxed);
            let (server, tls, live, check) = (
                server.clone(),
                pool.tls.clone(),
                live.clone(),
                check.clone(),
            );
            tokio::spawn(async move {
                let result = probe(&live.upstreams, &server.url, &tls, &check).await;
                server.checked(result);
            });
        }
        // A server out by a check that no pool runs any more would stay out for good.
        for (member, _) in live.pools.all() {
            let server = &member.state;
            if !checked.contains(&Arc::as_ptr(server))
                && server.check_failed.load(Ordering::Relaxed)
            {
                server.unchecked();
            }
        }
    }
}

async fn probe(
    upstreams: &crate::upstream::Upstreams,
    url: &UpstreamUrl,
    tls: &UpstreamTls,
    check: &HealthCheck,
) -> Result<(), CheckFailed> {
    let status = upstreams
        .probe(
            url,
            tls,
            &check.path,
            Duration::from_millis(check.timeout_ms),
        )
        .await?;
    match status == check.expect_status {
        true => Ok(()),
        false => Err(CheckFailed::Status {
            path: check.path.clone(),
            status,
            expected: check.expect_status,
        }),
    }
}

/// Why a server failed its active health check.
#[derive(Debug, thiserror::Error)]
enum CheckFailed {
    #[error(transparent)]
    NoStatus(#[from] ProbeError),
    #[error("GET {path} answered {status}, expected {expected}")]
    Status {
        path: String,
        status: u16,
        expected: u16,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(balance: Balance, servers: &[(u32, bool)]) -> Pool {
        let registry = Registry::default();
        Pool {
            servers: servers
                .iter()
                .enumerate()
                .map(|(i, &(weight, backup))| {
                    let url: UpstreamUrl = format!("http://10.0.0.{i}").parse().unwrap();
                    Member {
                        state: registry.state(&url),
                        config: PoolServer {
                            url,
                            weight,
                            backup,
                        },
                    }
                })
                .collect(),
            settings: PoolSettings {
                balance,
                max_fails: 1,
                fail_timeout_sec: 10,
                retries: 2,
                health_check: None,
            },
            tls: UpstreamTls::default(),
            next: AtomicUsize::new(0),
        }
    }

    #[test]
    fn the_panel_sees_each_server_once_with_its_pools_and_why_it_is_out() {
        let config = crate::config::resolve(
            "waf: {upstream: {servers: ['http://10.0.0.1', 'http://10.0.0.2']}, domains: {a.test: \
             {upstreams: ['http://10.0.0.2', 'http://10.0.0.3']}}}",
            std::path::Path::new("t.yml"),
            &|_| None,
        )
        .unwrap();
        let pools = Pools::build(&config, &Registry::default());
        pools.global.servers[1]
            .state
            .checked(Err(CheckFailed::Status {
                path: "/".into(),
                status: 500,
                expected: 200,
            }));
        pools.domains["a.test"].servers[1]
            .state
            .failed(1, Duration::from_secs(10));
        let health = pools.health();
        let shown: Vec<_> = health
            .iter()
            .map(|s| (s.url.as_str(), s.pools.join(" "), s.up))
            .collect();
        assert_eq!(
            shown,
            [
                ("http://10.0.0.1", "(default)".to_string(), true),
                ("http://10.0.0.2", "(default) a.test".to_string(), false),
                ("http://10.0.0.3", "a.test".to_string(), false),
            ]
        );
        assert_eq!(
            health[1].out.as_deref(),
            Some("failed its health check: GET / answered 500, expected 200")
        );
        assert_eq!(
            health[2].out.as_deref(),
            Some("out after failing, for 10 s more")
        );
    }

    #[test]
    fn health_outlives_a_new_configuration() {
        let config = |servers: &str| {
            crate::config::resolve(
                &format!("waf: {{upstream: {{servers: [{servers}]}}}}"),
                std::path::Path::new("t.yml"),
                &|_| None,
            )
            .unwrap()
        };
        let registry = Registry::default();
        let before = Pools::build(&config("'http://10.0.0.1', 'http://10.0.0.2'"), &registry);
        before.global.servers[1].state.checked(Err(down()));
        assert_eq!(before.down(), ["http://10.0.0.2"]);
        // Another configuration listing the same server: still out until its check passes.
        let after = Pools::build(&config("'http://10.0.0.2', 'http://10.0.0.3'"), &registry);
        assert_eq!(after.down(), ["http://10.0.0.2"]);
        assert_eq!(after.global.choose(&[], CLIENT), Some(1));
    }

    /// A failed check: the server did not answer it.
    fn down() -> CheckFailed {
        ProbeError::NoAnswer(Duration::from_millis(500)).into()
    }

    const CLIENT: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    #[test]
    fn round_robin_follows_the_weights_and_leaves_backups_and_servers_out_aside() {
        let p = pool(Balance::RoundRobin, &[(1, false), (3, false), (5, true)]);
        let mut counts = [0; 3];
        for _ in 0..400 {
            counts[p.choose(&[], CLIENT).unwrap()] += 1;
        }
        assert_eq!(counts, [100, 300, 0]);
        // The second attempt never goes where the first went.
        assert_eq!(p.choose(&[1], CLIENT), Some(0));
        // Both primaries out: the backup; all tried: none.
        p.servers[0].state.failed(1, Duration::from_secs(10));
        p.servers[1].state.checked(Err(down()));
        assert_eq!(p.choose(&[], CLIENT), Some(2));
        assert_eq!(p.choose(&[0, 1, 2], CLIENT), None);
        // Every server out: still one (an untried one), rather than none.
        p.servers[2].state.checked(Err(down()));
        assert!(p.choose(&[], CLIENT).is_some());
    }

    #[test]
    fn ip_hash_keeps_a_client_on_its_server_and_least_conn_takes_the_idlest() {
        let p = pool(Balance::IpHash, &[(1, false), (1, false), (1, false)]);
        let first = p.choose(&[], CLIENT).unwrap();
        assert!((0..20).all(|_| p.choose(&[], CLIENT) == Some(first)));
        let p = pool(Balance::LeastConn, &[(1, false), (1, false), (2, false)]);
        p.servers[0].state.in_flight.store(3, Ordering::Relaxed);
        p.servers[1].state.in_flight.store(1, Ordering::Relaxed);
        p.servers[2].state.in_flight.store(3, Ordering::Relaxed);
        assert_eq!(p.choose(&[], CLIENT), Some(1));
        p.servers[1].state.in_flight.store(2, Ordering::Relaxed);
        // 3 in flight over a weight of 2 is less than 2 over 1.
        assert_eq!(p.choose(&[], CLIENT), Some(2));
    }
}
