//! Rate limiting: `requests` per `window_sec` per client, with up to `burst` at once, counted in this process
//! (`governor`) or in Redis for a fleet of proxies (`redis_limit.rs`).
//!
//! Both backends run the same algorithm, GCRA (the generic cell rate algorithm): one stored time per client,
//! the "theoretical arrival time"; a request moves it one emission interval (`window / requests`) later and is
//! refused when that would put it more than `burst` intervals ahead of now. A steady client gets `requests` per
//! window; an idle one may send `burst` at once.
//!
//! Keys: an IPv4 client is one key; an IPv6 client is keyed by its /64, because one subscriber usually holds a
//! whole /64 and could otherwise take a fresh address (and a fresh limit) per request.
use super::ip_lists::point;
use super::redis_limit::RedisLimiter;
use crate::config::{RateLimitBackend, RateLimitConfig};
use crate::metrics::Metrics;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Clients tracked at most per in-process limiter: about 100 bytes each, so some 20 MB at most. A flood of
/// distinct addresses beyond this (after stale keys are pruned) is counted in `waf_rate_limit_table_full_total`
/// and not limited per address until the table has room again: refusing every new client instead would hand
/// the flood a way to lock everyone else out.
pub const MAX_TRACKED_CLIENTS: usize = 200_000;

/// How often the table's size is read on the request path (it sums the map's shards): every this many checks.
const SIZE_CHECK_EVERY: u64 = 64;

/// A refused request: when the client may try again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limited {
    pub retry_after: Duration,
}

/// What a limiter says about one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    Limited(Limited),
    /// The shared backend could not be asked (Redis down or slow): the caller applies `fail_open`.
    BackendDown,
}

/// The key of a client: its address, or its /64 for IPv6.
pub fn client_key(ip: IpAddr) -> u128 {
    let p = point(ip);
    match ip.to_canonical() {
        IpAddr::V4(_) => p,
        IpAddr::V6(_) => p & !((1u128 << 64) - 1),
    }
}

/// One scope's limiter (global, or a domain's), with the settings it was built from.
pub struct Limiter {
    pub config: RateLimitConfig,
    backend: Backend,
}

enum Backend {
    Memory(MemoryLimiter),
    Redis(RedisLimiter),
}

impl Limiter {
    /// `scope` names the limiter in Redis keys: proxies share a count only for the same scope.
    pub fn new(config: &RateLimitConfig, scope: &str, metrics: &'static Metrics) -> Limiter {
        let backend = match (config.backend, &config.redis_url) {
            (RateLimitBackend::Redis, Some(url)) => {
                Backend::Redis(RedisLimiter::new(config, url, scope, metrics))
            }
            _ => Backend::Memory(MemoryLimiter::new(config, MAX_TRACKED_CLIENTS, metrics)),
        };
        Limiter {
            config: config.clone(),
            backend,
        }
    }

    pub async fn check(&self, ip: IpAddr) -> Verdict {
        let key = client_key(ip);
        match &self.backend {
            Backend::Memory(m) => m.check(key),
            Backend::Redis(r) => r.check(key).await,
        }
    }

    /// Drops clients whose state is back to fresh (periodic upkeep, off the request path).
    pub fn prune(&self) {
        if let Backend::Memory(m) = &self.backend {
            m.prune();
        }
    }
}

/// The emission interval and burst of a configuration (validated in `config/traffic.rs`: both non-zero).
pub fn quota(config: &RateLimitConfig) -> (Duration, u32) {
    let window = Duration::from_secs(config.window_sec);
    let interval = window / config.requests.max(1);
    (interval.max(Duration::from_nanos(1)), config.burst.max(1))
}

pub struct MemoryLimiter {
    limiter: DefaultKeyedRateLimiter<u128>,
    clock: DefaultClock,
    cap: usize,
    checks: AtomicU64,
    full: AtomicBool,
    /// When a full table was last pruned on the request path, in ms since `born`: at most once a second.
    last_full_prune: AtomicU64,
    born: Instant,
    metrics: &'static Metrics,
}

impl MemoryLimiter {
    pub fn new(config: &RateLimitConfig, cap: usize, metrics: &'static Metrics) -> MemoryLimiter {
        let (interval, burst) = quota(config);
        let quota = Quota::with_period(interval)
            .expect("the interval is at least a nanosecond")
            .allow_burst(NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN));
        MemoryLimiter {
            limiter: DefaultKeyedRateLimiter::keyed(quota),
            clock: DefaultClock::default(),
            cap,
            checks: AtomicU64::new(0),
            full: AtomicBool::new(false),
            last_full_prune: AtomicU64::new(0),
            born: Instant::now(),
            metrics,
        }
    }

    pub fn check(&self, key: u128) -> Verdict {
        if self
            .checks
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(SIZE_CHECK_EVERY)
        {
            self.full
                .store(self.limiter.len() >= self.cap, Ordering::Relaxed);
        }
        if self.full.load(Ordering::Relaxed) && !self.make_room() {
            self.metrics.rate_limit_table_full.increment(1);
            return Verdict::Allowed;
        }
        match self.limiter.check_key(&key) {
            Ok(()) => Verdict::Allowed,
            Err(not_until) => Verdict::Limited(Limited {
                retry_after: not_until.wait_time_from(self.clock.now()),
            }),
        }
    }

    /// With the table full: prunes it (at most once a second) and says whether there is room now.
    fn make_room(&self) -> bool {
        let now = self.born.elapsed().as_millis() as u64;
        let last = self.last_full_prune.load(Ordering::Relaxed);
        if now.saturating_sub(last) >= 1_000
            && self
                .last_full_prune
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.prune();
        }
        let full = self.limiter.len() >= self.cap;
        self.full.store(full, Ordering::Relaxed);
        !full
    }

    pub fn prune(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.limiter.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RateLimitBackend;

    fn config(requests: u32, window_sec: u64, burst: u32) -> RateLimitConfig {
        RateLimitConfig {
            enabled: true,
            requests,
            window_sec,
            burst,
            backend: RateLimitBackend::Memory,
            redis_url: None,
            redis_timeout_ms: 50,
            fail_open: true,
        }
    }

    fn metrics() -> &'static Metrics {
        Metrics::install().unwrap()
    }

    #[test]
    fn burst_then_refused_with_a_retry_time() {
        let m = MemoryLimiter::new(&config(60, 60, 3), 100, metrics());
        for _ in 0..3 {
            assert_eq!(m.check(1), Verdict::Allowed);
        }
        let Verdict::Limited(l) = m.check(1) else {
            panic!("the fourth request of a burst of 3 must be refused")
        };
        assert!(l.retry_after <= Duration::from_secs(1), "{l:?}");
        assert_eq!(
            m.check(2),
            Verdict::Allowed,
            "another client has its own count"
        );
    }

    #[test]
    fn a_full_table_admits_new_clients_and_stays_bounded() {
        let m = MemoryLimiter::new(&config(1, 3600, 1), 8, metrics());
        for key in 0..1_000u128 {
            assert_eq!(m.check(key), Verdict::Allowed);
        }
        // The size is read every SIZE_CHECK_EVERY checks: the table may pass the cap by at most that many.
        assert!(
            m.tracked() <= 8 + SIZE_CHECK_EVERY as usize,
            "{}",
            m.tracked()
        );
    }

    #[test]
    fn ipv6_clients_are_keyed_by_their_64() {
        let a = client_key("2001:db8:1:2::1".parse().unwrap());
        let b = client_key("2001:db8:1:2:ffff::9".parse().unwrap());
        let c = client_key("2001:db8:1:3::1".parse().unwrap());
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(
            client_key("10.0.0.1".parse().unwrap()),
            client_key("10.0.0.2".parse().unwrap())
        );
    }
}
