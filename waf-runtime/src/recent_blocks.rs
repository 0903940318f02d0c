//! The recent blocked (and, in observe mode, would-be-blocked) requests the admin panel shows: a bounded ring in
//! memory, plus a broadcast for the panel's live stream.
//!
//! Fed from the request path only when rules matched, so the common request pays nothing; a push takes one
//! short lock (no allocation beyond the entry itself once the ring is full) and a broadcast send, which never
//! waits for slow listeners (they skip ahead instead).
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Entries kept: enough for the dashboard's list, small enough (a few hundred KB at most) not to matter.
pub const CAPACITY: usize = 500;
/// Characters of the path kept per entry: the ring's memory stays bounded whatever clients send.
const MAX_PATH: usize = 256;

#[derive(Clone, Serialize, utoipa::ToSchema)]
pub struct BlockedRequest {
    /// Unix milliseconds.
    pub at_ms: u64,
    pub client: String,
    pub domain: String,
    pub method: String,
    pub path: String,
    pub rule_ids: Vec<u64>,
    /// The request's anomaly score (the sum of its `block` rules' scores; `deny` rules add nothing).
    pub anomaly_score: u32,
    /// `blocked` (enforce mode) or `observed` (observe mode: matched, forwarded).
    pub outcome: &'static str,
    /// The request's id (`X-Request-ID`, also in its 403 and its log lines).
    pub request_id: String,
}

pub struct RecentBlocks {
    ring: Mutex<VecDeque<Arc<BlockedRequest>>>,
    live: tokio::sync::broadcast::Sender<Arc<BlockedRequest>>,
}

impl Default for RecentBlocks {
    fn default() -> Self {
        RecentBlocks {
            ring: Mutex::new(VecDeque::with_capacity(CAPACITY)),
            live: tokio::sync::broadcast::channel(64).0,
        }
    }
}

impl RecentBlocks {
    pub fn record(&self, mut entry: BlockedRequest) {
        if entry.path.chars().count() > MAX_PATH {
            entry.path = entry.path.chars().take(MAX_PATH).collect::<String>() + "...";
        }
        let entry = Arc::new(entry);
        {
            let mut ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
            if ring.len() == CAPACITY {
                ring.pop_front();
            }
            ring.push_back(entry.clone());
        }
        // No listener is the usual case: that is not an error.
        let _ = self.live.send(entry);
    }

    /// The newest `limit` entries, newest first; only the request `request_id` when given.
    pub fn newest(&self, limit: usize, request_id: Option<&str>) -> Vec<Arc<BlockedRequest>> {
        let ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        ring.iter()
            .rev()
            .filter(|e| request_id.is_none_or(|id| e.request_id == id))
            .take(limit)
            .cloned()
            .collect()
    }

    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<Arc<BlockedRequest>> {
        self.live.subscribe()
    }
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: u64) -> BlockedRequest {
        BlockedRequest {
            at_ms: n,
            client: "127.0.0.1".into(),
            domain: "a.test".into(),
            method: "GET".into(),
            path: "/".repeat(1000),
            rule_ids: vec![n],
            anomaly_score: 5,
            outcome: "blocked",
            request_id: format!("id-{n}"),
        }
    }

    #[test]
    fn the_ring_keeps_the_newest_and_bounds_paths() {
        let recent = RecentBlocks::default();
        let mut live = recent.subscribe();
        for n in 0..(CAPACITY as u64 + 10) {
            recent.record(entry(n));
        }
        assert_eq!(recent.newest(10, Some("id-20"))[0].at_ms, 20);
        assert!(
            recent.newest(10, Some("id-2")).is_empty(),
            "the oldest are gone"
        );
        let newest = recent.newest(usize::MAX, None);
        assert_eq!(newest.len(), CAPACITY);
        assert_eq!(newest[0].at_ms, CAPACITY as u64 + 9);
        assert_eq!(newest[CAPACITY - 1].at_ms, 10);
        assert_eq!(newest[0].path.chars().count(), MAX_PATH + 3);
        // A listener that fell behind skips ahead rather than holding the pipeline.
        assert!(matches!(
            live.try_recv(),
            Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_))
        ));
    }
}
