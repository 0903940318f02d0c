//! The row every request reads first (the authority of the host), kept for [`TTL`] so a request skips a database
//! round trip. An edit of an authority (a login URL, its session timeout) or its removal takes effect within that
//! time on each replica. Only found rows are kept, so the map holds at most one entry per authority that exists,
//! and unknown hosts cannot grow it. Nothing that decides a security answer is cached: OAuth clients (secrets),
//! tokens (revocation), users (logout) and API keys are read from the store at every request.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How stale a cached row may be.
pub const TTL: Duration = Duration::from_secs(5);

pub struct RowCache<V> {
    entries: Mutex<HashMap<String, (Instant, V)>>,
}

impl<V> Default for RowCache<V> {
    fn default() -> Self {
        RowCache {
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl<V: Clone> RowCache<V> {
    pub fn get(&self, key: &str) -> Option<V> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .get(key)
            .filter(|(at, _)| at.elapsed() < TTL)
            .map(|(_, row)| row.clone())
    }

    pub fn put(&self, key: String, row: V) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.insert(key, (Instant::now(), row));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_kept_for_the_ttl_only() {
        let cache = RowCache::default();
        assert_eq!(cache.get("a"), None);
        cache.put("a".into(), 1);
        assert_eq!(cache.get("a"), Some(1));
        cache.entries.lock().unwrap().get_mut("a").unwrap().0 = Instant::now() - TTL;
        assert_eq!(cache.get("a"), None);
    }
}
