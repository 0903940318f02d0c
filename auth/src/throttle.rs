//! Sign-in throttling, per client address and per account; and the limit of dynamic client registrations per client
//! address and hour.
//!
//! Each is a GCRA limiter (governor) allowing a burst of N attempts per minute and one more every 60/N seconds;
//! beyond it the answer is 429 with `Retry-After`. The address limit comes first, so one client cannot fill the
//! per-account table with invented emails faster than its own limit; both tables drop idle entries every minute
//! ([`Throttle::spawn_cleanup`]), which bounds their memory by the attempts of the last minute.
//!
//! Registrations (RFC 7591) are open to anyone, so each creates a row on an unauthenticated request: a burst of N
//! per address and hour (one more every 60/N minutes) keeps a client from filling the clients table, while an agent
//! that registers once per start never meets it.
//!
//! With `KVSTORE_URL` set the limits count in Redis instead ([`crate::shared_counter`], fixed windows of a minute
//! or an hour), shared by every replica, and in process only while Redis is unreachable.
//!
//! Counting every attempt (not only failures) means a success needs no second bookkeeping step; a limit of 10 per
//! minute per account is far above what a person types.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use sha2::{Digest, Sha256};

use crate::shared_counter::{Limit, SharedCounter};

/// Emails longer than this are cut for keying (RFC 5321 caps an address at 254 octets).
const MAX_ACCOUNT_KEY_LEN: usize = 320;
const MINUTE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3600);

/// The limits, as configured.
#[derive(Clone, Copy)]
pub struct Limits {
    pub signin_per_address: NonZeroU32,
    pub signin_per_account: NonZeroU32,
    pub registrations_per_hour: NonZeroU32,
}

pub struct Throttle {
    by_address: DefaultKeyedRateLimiter<IpAddr>,
    by_account: DefaultKeyedRateLimiter<(String, String)>,
    registrations: DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
    limits: Limits,
    /// The fleet's counters, when `KVSTORE_URL` is set.
    shared: Option<SharedCounter>,
}

impl Throttle {
    pub fn new(limits: Limits, shared: Option<SharedCounter>) -> Self {
        Throttle {
            by_address: RateLimiter::keyed(Quota::per_minute(limits.signin_per_address)),
            by_account: RateLimiter::keyed(Quota::per_minute(limits.signin_per_account)),
            registrations: RateLimiter::keyed(Quota::per_hour(limits.registrations_per_hour)),
            clock: DefaultClock::default(),
            limits,
            shared,
        }
    }

    fn wait(&self, not_until: governor::NotUntil<<DefaultClock as Clock>::Instant>) -> u64 {
        not_until.wait_time_from(self.clock.now()).as_secs() + 1
    }

    /// Counts one sign-in attempt; `Err(seconds to wait)` when over a limit.
    pub async fn check(&self, address: IpAddr, authority_id: &str, email: &str) -> Result<(), u64> {
        let mut email = email.to_lowercase();
        email.truncate(email.floor_char_boundary(MAX_ACCOUNT_KEY_LEN));
        if let Some(shared) = &self.shared {
            // The account is keyed by a digest: Redis holds no email addresses.
            let account = hex::encode(Sha256::digest(format!("{authority_id}\n{email}")));
            let limits = [
                Limit {
                    key: &format!("signin:address:{address}"),
                    limit: self.limits.signin_per_address.get(),
                    window: MINUTE,
                },
                Limit {
                    key: &format!("signin:account:{account}"),
                    limit: self.limits.signin_per_account.get(),
                    window: MINUTE,
                },
            ];
            if let Some(verdict) = shared.hit(&limits).await {
                return verdict;
            }
        }
        let wait = |not_until| self.wait(not_until);
        self.by_address.check_key(&address).map_err(wait)?;
        self.by_account
            .check_key(&(authority_id.to_string(), email))
            .map_err(wait)
    }

    /// Counts one client registration from `address`; `Err(seconds to wait)` when over the hourly limit.
    pub async fn check_registration(&self, address: IpAddr) -> Result<(), u64> {
        if let Some(shared) = &self.shared {
            let limit = Limit {
                key: &format!("register:address:{address}"),
                limit: self.limits.registrations_per_hour.get(),
                window: HOUR,
            };
            if let Some(verdict) = shared.hit(&[limit]).await {
                return verdict;
            }
        }
        self.registrations
            .check_key(&address)
            .map_err(|not_until| self.wait(not_until))
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
                throttle.registrations.retain_recent();
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn limits_per_account_and_per_address() {
        let n = NonZeroU32::new(2).unwrap();
        let limits = Limits {
            signin_per_address: NonZeroU32::new(3).unwrap(),
            signin_per_account: n,
            registrations_per_hour: n,
        };
        let throttle = Throttle::new(limits, None);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(throttle.check(a, "x", "U@x.test").await.is_ok());
        assert!(throttle.check(b, "x", "u@x.test").await.is_ok());
        let retry = throttle.check(a, "x", "u@X.test").await.unwrap_err();
        assert!((1..=61).contains(&retry), "{retry}");
        // Another account from a: allowed until a's own budget of 3 is spent.
        assert!(throttle.check(a, "x", "other@x.test").await.is_ok());
        assert!(throttle.check(a, "x", "third@x.test").await.is_err());
        // The same email in another authority is another account.
        assert!(throttle.check(b, "y", "u@x.test").await.is_ok());
        // Registrations: 2 an hour from a, whatever b does.
        assert!(throttle.check_registration(a).await.is_ok());
        assert!(throttle.check_registration(a).await.is_ok());
        let retry = throttle.check_registration(a).await.unwrap_err();
        assert!((1..=1801).contains(&retry), "{retry}");
        assert!(throttle.check_registration(b).await.is_ok());
    }
}
