//! Counters every replica shares, in the Redis at `KVSTORE_URL`: the sign-in throttles and the registration limit
//! count there, so an attack spread over the replicas meets one limit, not one per replica.
//!
//! Each limit is a fixed window: the first hit on a key starts it (`INCR`, then `PEXPIRE`), the `limit + 1`-th hit
//! within it is refused until it ends; one Lua script counts all the keys of a request atomically and stops at the
//! first one over its limit, so a refused attempt does not spend the budgets after it.
//!
//! Redis must never decide whether the service answers: every call gives up after [`REDIS_TIMEOUT`], and while
//! Redis is unreachable the caller counts in process instead (the per-replica limits still hold). The first failure
//! of an outage is logged once, every failure is counted in `auth_shared_counter_failures_total`, and after
//! [`RECONNECT_PAUSE`] the next request tries Redis again, logging the recovery.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use redis::aio::MultiplexedConnection;

/// A limiter on the request path waits at most this long for Redis (connecting, or the script).
const REDIS_TIMEOUT: Duration = Duration::from_millis(250);
/// After a failure, requests count in process for this long before Redis is tried again, so a black-holed Redis
/// costs one timeout per pause, not one per request.
const RECONNECT_PAUSE: Duration = Duration::from_secs(1);
/// Keys are namespaced so the counters share a Redis with other data.
const PREFIX: &str = "auth:limit:";

const SCRIPT: &str = r"
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  local window = tonumber(ARGV[2 * i])
  if n == 1 then redis.call('PEXPIRE', key, window) end
  if n > tonumber(ARGV[2 * i - 1]) then
    local left = redis.call('PTTL', key)
    if left < 0 then redis.call('PEXPIRE', key, window); left = window end
    return left
  end
end
return -1
";

/// One limit of a request: `limit` hits on `key` per `window`.
pub struct Limit<'a> {
    pub key: &'a str,
    pub limit: u32,
    pub window: Duration,
}

pub struct SharedCounter {
    client: redis::Client,
    script: redis::Script,
    connection: tokio::sync::Mutex<Option<MultiplexedConnection>>,
    /// Until when Redis is left alone after a failure.
    paused_until: Mutex<Option<Instant>>,
    /// An outage under way (logged once).
    down: AtomicBool,
}

impl SharedCounter {
    pub fn new(url: &str) -> Result<Self, redis::RedisError> {
        Ok(SharedCounter {
            client: redis::Client::open(url)?,
            script: redis::Script::new(SCRIPT),
            connection: tokio::sync::Mutex::new(None),
            paused_until: Mutex::new(None),
            down: AtomicBool::new(false),
        })
    }

    /// Counts one hit on every limit (in order, stopping at the first exceeded): `Some(Ok(()))` within them all,
    /// `Some(Err(seconds until the exceeded window ends))`, or `None` when Redis cannot answer now.
    pub async fn hit(&self, limits: &[Limit<'_>]) -> Option<Result<(), u64>> {
        if self
            .paused_until
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some_and(|until| Instant::now() < until)
        {
            return None;
        }
        match tokio::time::timeout(REDIS_TIMEOUT, self.run(limits)).await {
            Ok(Ok(left_ms)) => {
                if self.down.swap(false, Ordering::Relaxed) {
                    tracing::info!("shared limits count in Redis again");
                }
                Some(if left_ms < 0 {
                    Ok(())
                } else {
                    Err(u64::try_from(left_ms).unwrap_or(0).div_ceil(1000).max(1))
                })
            }
            Ok(Err(e)) => self.failed(&e),
            Err(_) => self.failed(&"timed out"),
        }
    }

    async fn run(&self, limits: &[Limit<'_>]) -> redis::RedisResult<i64> {
        let mut connection = {
            let mut slot = self.connection.lock().await;
            match slot.as_ref() {
                Some(c) => c.clone(),
                None => {
                    let config = redis::AsyncConnectionConfig::new()
                        .set_connection_timeout(Some(REDIS_TIMEOUT))
                        .set_response_timeout(Some(REDIS_TIMEOUT));
                    let c = self
                        .client
                        .get_multiplexed_async_connection_with_config(&config)
                        .await?;
                    *slot = Some(c.clone());
                    c
                }
            }
        };
        let mut invocation = self.script.prepare_invoke();
        for limit in limits {
            invocation
                .key(format!("{PREFIX}{}", limit.key))
                .arg(limit.limit)
                .arg(u64::try_from(limit.window.as_millis()).unwrap_or(u64::MAX));
        }
        let result = invocation.invoke_async(&mut connection).await;
        if result.is_err() {
            *self.connection.lock().await = None;
        }
        result
    }

    fn failed(&self, error: &dyn std::fmt::Display) -> Option<Result<(), u64>> {
        metrics::counter!("auth_shared_counter_failures_total").increment(1);
        *self.paused_until.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(Instant::now() + RECONNECT_PAUSE);
        if !self.down.swap(true, Ordering::Relaxed) {
            tracing::warn!(error = %error, "KVSTORE_URL Redis unreachable: limits count per process until it is back");
        }
        None
    }
}
