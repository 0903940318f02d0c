//! Sign-in throttling, per client address and per account name: GCRA limiters (governor). Every attempt counts,
//! so a success needs no bookkeeping; the limits are far above what a person types and far below what guessing
//! needs. Over a limit: 429 with `Retry-After`. Idle entries are dropped every minute, which bounds the tables by
//! the attempts of the last minute.
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

/// Attempts per minute from one address (a burst of this many, then one every 60/N seconds).
const PER_ADDRESS: NonZeroU32 = NonZeroU32::new(10).unwrap();
/// Attempts per minute on one account name, from anywhere.
const PER_ACCOUNT: NonZeroU32 = NonZeroU32::new(5).unwrap();
/// Account names are cut to this many bytes for keying (the API refuses longer names anyway).
const MAX_KEY: usize = 64;

pub struct Throttle {
    by_address: DefaultKeyedRateLimiter<IpAddr>,
    by_account: DefaultKeyedRateLimiter<String>,
    clock: DefaultClock,
}

impl Throttle {
    pub fn new() -> Arc<Throttle> {
        let throttle = Arc::new(Throttle {
            by_address: RateLimiter::keyed(Quota::per_minute(PER_ADDRESS)),
            by_account: RateLimiter::keyed(Quota::per_minute(PER_ACCOUNT)),
            clock: DefaultClock::default(),
        });
        let weak = Arc::downgrade(&throttle);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                let Some(t) = weak.upgrade() else { return };
                t.by_address.retain_recent();
                t.by_account.retain_recent();
            }
        });
        throttle
    }

    /// Counts one attempt; `Err(seconds to wait)` when over a limit. The address is checked first, so one client
    /// cannot fill the account table with invented names faster than its own limit.
    pub fn check(&self, address: IpAddr, username: &str) -> Result<(), u64> {
        let wait = |n: governor::NotUntil<_>| n.wait_time_from(self.clock.now()).as_secs().max(1);
        self.by_address.check_key(&address).map_err(wait)?;
        let mut key = username.to_lowercase();
        key.truncate(key.floor_char_boundary(MAX_KEY));
        self.by_account.check_key(&key).map_err(wait)
    }
}
