//! Rows the busiest endpoints read on every request (the authority of the host, the OAuth client of a token
//! request), kept for [`TTL`] so a request skips a database round trip. An edit of a row (a login URL, a client's
//! secret) or its removal takes effect within that time. Only found rows are kept, so a map holds at most one
//! entry per row that exists, and unknown keys cannot grow it.

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
