//! One-time assertions: an assertion id is accepted once, until it could no longer be accepted anyway.
//!
//! An assertion older than [`super::MAX_ISSUE_DELAY`] (plus the clock skew) is refused by its issue time, so an id
//! needs remembering only that long, which bounds the cache. The cache is per process: with several replicas a
//! replay must also carry the session cookie of the login it answers, whose pending login the first answer spent.

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, Utc};

/// Ids remembered at once. Reaching it means this many signed assertions arrived within the acceptance window;
/// new ones are then refused (a replay is never let through to make room).
const CAPACITY: usize = 100_000;

/// Why an assertion id is not accepted.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The id, shortened: an attacker chooses it and it goes into the log.
    #[error("assertion {0} was used already (replay)")]
    Replayed(String),
    #[error("too many assertions within the acceptance window")]
    Full,
}

#[derive(Default)]
pub struct ReplayCache {
    seen: Mutex<HashMap<String, DateTime<Utc>>>,
}

impl ReplayCache {
    /// Records `id` as used until `until`; `Err` when it was used already (or the cache is full of live ids).
    pub fn first_use(
        &self,
        id: &str,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(), ReplayError> {
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if seen.get(id).is_some_and(|&expiry| expiry > now) {
            return Err(ReplayError::Replayed(shorten(id)));
        }
        if seen.len() >= CAPACITY {
            seen.retain(|_, expiry| *expiry > now);
            if seen.len() >= CAPACITY {
                return Err(ReplayError::Full);
            }
        }
        seen.insert(id.to_string(), until);
        Ok(())
    }
}

/// An attacker-chosen id goes into the log: bounded.
fn shorten(id: &str) -> String {
    id.chars().take(64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    #[test]
    fn an_id_is_accepted_once_until_it_expires() {
        let cache = ReplayCache::default();
        let now = Utc::now();
        let until = now + Duration::seconds(60);
        cache.first_use("a", until, now).unwrap();
        assert!(matches!(
            cache.first_use("a", until, now),
            Err(ReplayError::Replayed(id)) if id == "a"
        ));
        cache.first_use("b", until, now).unwrap();
        // Past its window the id would be refused by its age; the cache forgets it.
        cache
            .first_use("a", until, until + Duration::seconds(1))
            .unwrap();
    }
}
