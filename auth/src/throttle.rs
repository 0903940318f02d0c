//! Sign-in throttling, per client address and per account.
//!
//! Each is a GCRA limiter (governor) allowing a burst of N attempts per minute and one more every 60/N seconds;
//! beyond it the answer is 429 with `Retry-After`. The address limit comes first, so one client cannot fill the
//! per-account table with invented emails faster than its own limit; both tables drop idle entries every minute
//! ([`Throttle::spawn_cleanup`]), which bounds their memory by the attempts of the last minute.
//!
//! Counting every attempt (not only failures) means a success needs no second bookkeeping step; a limit of 10 per
//! minute per account is far above what a person types.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Emails longer than this are cut for keying (RFC 5321 caps an address at 254 octets).
const MAX_ACCOUNT_KEY_LEN: usize = 320;

pub struct Throttle {
    by_address: DefaultKeyedRateLimiter<IpAddr>,
    by_account: DefaultKeyedRateLimiter<(String, String)>,
    clock: DefaultClock,
}

impl Throttle {
    pub fn new(per_address: NonZeroU32, per_account: NonZeroU32) -> Self {
        Throttle {
            by_address: RateLimiter::keyed(Quota::per_minute(per_address)),
            by_account: RateLimiter::keyed(Quota::per_minute(per_account)),
            clock: DefaultClock::default(),
        }
    }

    /// Counts one sign-in attempt; `Err(seconds to wait)` when over a limit.
    pub fn check(&self, address: IpAddr, authority_id: &str, email: &str) -> Result<(), u64> {
        let wait = |not_until: governor::NotUntil<_>| {
            not_until.wait_time_from(self.clock.now()).as_secs() + 1
        };
        self.by_address.check_key(&address).map_err(wait)?;
        let mut email = email.to_lowercase();
        email.truncate(email.floor_char_boundary(MAX_ACCOUNT_KEY_LEN));
        self.by_account
            .check_key(&(authority_id.to_string(), email))
            .map_err(wait)
    }

    /// Forgets idle entries once a minute, for as long as the service runs.
    pub fn spawn_cleanup(self: &Arc<Self>) {
        let throttle = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                let Some(throttle) = throttle.upgrade() else {
                    return;
                };
                throttle.by_address.retain_recent();
                throttle.by_account.retain_recent();
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_per_account_and_per_address() {
        let n = NonZeroU32::new(2).unwrap();
        let throttle = Throttle::new(NonZeroU32::new(3).unwrap(), n);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(throttle.check(a, "x", "U@x.test").is_ok());
        assert!(throttle.check(b, "x", "u@x.test").is_ok());
        let retry = throttle.check(a, "x", "u@X.test").unwrap_err();
        assert!((1..=61).contains(&retry), "{retry}");
        // Another account from a: allowed until a's own budget of 3 is spent.
        assert!(throttle.check(a, "x", "other@x.test").is_ok());
        assert!(throttle.check(a, "x", "third@x.test").is_err());
        // The same email in another authority is another account.
        assert!(throttle.check(b, "y", "u@x.test").is_ok());
    }
}
