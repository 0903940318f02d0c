//! The fleet-wide rate limiter: the GCRA state of every client in one Redis, so proxies behind one load balancer
//! enforce one limit together.
//!
//! One round trip per request: a Lua script reads the client's time, decides and writes it back atomically
//! (scripts run alone in Redis), using Redis's own clock so the proxies' clocks need not agree. `EVALSHA` sends
//! only the script's hash; the script text goes once per Redis start (`NOSCRIPT`, then `EVAL`).
//!
//! Redis down or slower than `redis_timeout_ms`: the request is not held up; the verdict is `BackendDown`, the
//! caller applies `fail_open`, the metric `waf_rate_limit_backend_errors_total` counts it, and one log line per
//! `LOG_EVERY` says so. The connection is dropped on an error and made again at most once per `RECONNECT_EVERY`,
//! by the next request after that: the limiter recovers by itself when Redis returns.
use super::rate_limit::{Limited, Verdict, quota};
use crate::config::{RateLimitConfig, RedisUrl};
use crate::metrics::Metrics;
use arc_swap::ArcSwapOption;
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Client, Script};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const RECONNECT_EVERY: Duration = Duration::from_secs(1);
const LOG_EVERY: Duration = Duration::from_secs(10);

/// KEYS[1]: the client's key. ARGV[1]: emission interval in µs; ARGV[2]: burst.
/// Returns {1, remaining} when admitted, {0, µs until the next request would be}.
const GCRA: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local capacity = interval * tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local new_tat = tat + interval
local ahead = new_tat - now
if ahead > capacity then
  return {0, ahead - capacity}
end
redis.call('SET', KEYS[1], new_tat, 'PX', math.ceil(ahead / 1000) + 1)
return {1, math.floor((capacity - ahead) / interval)}
"#;

pub struct RedisLimiter {
    client: Option<Client>,
    connection: ArcSwapOption<MultiplexedConnection>,
    script: Script,
    /// `waf:rl:<scope>:`; the client's key in hex follows.
    prefix: String,
    interval_us: u64,
    burst: u32,
    timeout: Duration,
    born: Instant,
    /// Milliseconds since `born` of the last connection attempt and the last "Redis down" log line.
    last_connect: AtomicU64,
    last_log: AtomicU64,
    metrics: &'static Metrics,
}

impl RedisLimiter {
    pub fn new(
        config: &RateLimitConfig,
        url: &RedisUrl,
        scope: &str,
        metrics: &'static Metrics,
    ) -> RedisLimiter {
        let (interval, burst) = quota(config);
        RedisLimiter {
            // Checked when the configuration was resolved; a failure here still only means "backend down".
            client: Client::open(url.as_str()).ok(),
            connection: ArcSwapOption::empty(),
            script: Script::new(GCRA),
            prefix: format!("waf:rl:{scope}:"),
            interval_us: interval.as_micros().max(1) as u64,
            burst,
            timeout: Duration::from_millis(config.redis_timeout_ms),
            born: Instant::now(),
            last_connect: AtomicU64::new(0),
            last_log: AtomicU64::new(0),
            metrics,
        }
    }

    pub async fn check(&self, key: u128) -> Verdict {
        let Some(mut connection) = self.connection().await else {
            return self.down("not connected");
        };
        let mut call = self.script.key(format!("{}{key:032x}", self.prefix));
        call.arg(self.interval_us).arg(self.burst);
        let answer: Result<redis::RedisResult<(i64, i64)>, _> =
            tokio::time::timeout(self.timeout, call.invoke_async(&mut connection)).await;
        match answer {
            Ok(Ok((1, _))) => Verdict::Allowed,
            Ok(Ok((_, wait_us))) => Verdict::Limited(Limited {
                retry_after: Duration::from_micros(u64::try_from(wait_us).unwrap_or(0)),
            }),
            Ok(Err(e)) => {
                self.connection.store(None);
                self.down(&e.to_string())
            }
            Err(_) => {
                self.connection.store(None);
                self.down("timed out")
            }
        }
    }

    /// The shared connection, or a new one when none is open and the last attempt is long enough ago.
    async fn connection(&self) -> Option<MultiplexedConnection> {
        if let Some(c) = self.connection.load_full() {
            return Some((*c).clone());
        }
        let client = self.client.as_ref()?;
        let now = self.now_ms();
        let last = self.last_connect.load(Ordering::Relaxed);
        let due = last == 0 || now.saturating_sub(last) >= RECONNECT_EVERY.as_millis() as u64;
        // One request per interval tries; the others go on without waiting for it.
        if !due
            || self
                .last_connect
                .compare_exchange(last, now.max(1), Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return None;
        }
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout));
        let connect = client.get_multiplexed_async_connection_with_config(&config);
        match tokio::time::timeout(self.timeout, connect).await {
            Ok(Ok(c)) => {
                tracing::info!("rate limit: connected to Redis");
                self.connection.store(Some(Arc::new(c.clone())));
                Some(c)
            }
            Ok(Err(e)) => {
                self.down(&e.to_string());
                None
            }
            Err(_) => {
                self.down("connection timed out");
                None
            }
        }
    }

    fn down(&self, why: &str) -> Verdict {
        self.metrics.rate_limit_backend_errors.increment(1);
        let now = self.now_ms();
        let last = self.last_log.load(Ordering::Relaxed);
        if (last == 0 || now.saturating_sub(last) >= LOG_EVERY.as_millis() as u64)
            && self
                .last_log
                .compare_exchange(last, now.max(1), Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            tracing::error!(
                "rate limit: Redis unavailable ({why}); requests are {} until it returns \
                 (waf_rate_limit_backend_errors_total counts them; next such line in {}s at the earliest)",
                "decided by fail_open",
                LOG_EVERY.as_secs()
            );
        }
        Verdict::BackendDown
    }

    fn now_ms(&self) -> u64 {
        self.born.elapsed().as_millis() as u64
    }
}
