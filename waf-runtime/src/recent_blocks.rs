//! The recent blocked (and, in observe mode, would-be-blocked) requests and the traffic controls' refusals
//! (rate limit, IP lists, GeoIP) the admin panel shows: a bounded ring in memory, plus a broadcast that feeds the
//! panel's live stream and its event store (`admin/event_store.rs`).
//!
//! Fed from the request path only when rules matched or a control refused, so the common request pays nothing; a
//! push takes one short lock (no allocation beyond the entry itself once the ring is full) and a broadcast send,
//! which never waits for slow listeners (they skip ahead instead, and count what they missed).
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Entries kept: enough for the dashboard's list, small enough (a few hundred KB at most) not to matter.
pub const CAPACITY: usize = 500;
/// Characters of the path kept per entry: the ring's memory stays bounded whatever clients send.
const MAX_PATH: usize = 256;
/// Request headers kept per entry, and characters of each value: enough to read a request's head, bounded
/// whatever clients send.
const MAX_HEADERS: usize = 64;
const MAX_HEADER_VALUE: usize = 1024;
/// Headers whose values are secrets: kept as `***` (the event store and the panel never hold a session or a
/// password a client sent).
const MASKED: [&str; 4] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "x-api-key",
];
/// Events the broadcast holds for a listener that is behind: the event store writes in batches, and a burst of
/// refusals (a flood over the rate limit) must not make it skip.
const LIVE_BACKLOG: usize = 4096;

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
    /// `blocked` (enforce mode), `observed` (observe mode: matched, forwarded), `rate_limited`, `ip_denied`
    /// or `geo_denied` (a traffic control refused it before the rules).
    pub outcome: &'static str,
    /// Whether the request (or a traffic control) was refused, or the upstream's answer to it.
    pub phase: Phase,
    /// The request's id (`X-Request-ID`, also in its 403 and its log lines).
    pub request_id: String,
    /// The answer's status when the proxy answered itself (403, 429); none when it was forwarded.
    pub status: Option<u16>,
    /// The client's country, when a GeoIP refusal named it.
    pub country: Option<String>,
    /// Each rule that matched, as `rulec explain` shows it.
    pub matches: Vec<MatchDetail>,
    /// The request's headers, secrets masked ([`head`]).
    pub head: Vec<(String, String)>,
}

/// What an event refused: the request, or the upstream's answer to it (withheld with a 502 by the response
/// rules, `response_inspection.rs`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Request,
    Response,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Request => "request",
            Phase::Response => "response",
        }
    }
}

/// One rule's match in a request.
#[derive(Clone, Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct MatchDetail {
    pub rule_id: u64,
    /// The rule's message, macros expanded as ModSecurity expands them.
    pub message: String,
    /// The variable that matched (`ARGS_GET:q`).
    pub variable: String,
    /// The matched data, escaped and bounded by the engine.
    pub data: String,
    /// What the match added to the anomaly score.
    pub score: u32,
}

impl From<&crate::inspect::Finding> for MatchDetail {
    fn from(f: &crate::inspect::Finding) -> MatchDetail {
        MatchDetail {
            rule_id: f.rule_id,
            message: f.msg.clone(),
            variable: f.variable.clone(),
            data: f.excerpt.clone(),
            score: f.score,
        }
    }
}

/// A request's headers as an event keeps them: at most [`MAX_HEADERS`], each value bounded, and the values of
/// [`MASKED`] headers replaced by `***`.
pub fn head(headers: &http::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .take(MAX_HEADERS)
        .map(|(name, value)| {
            let shown = if MASKED.contains(&name.as_str()) {
                "***".to_string()
            } else {
                let text = String::from_utf8_lossy(value.as_bytes());
                text.chars().take(MAX_HEADER_VALUE).collect()
            };
            (name.as_str().to_string(), shown)
        })
        .collect()
}

pub struct RecentBlocks {
    ring: Mutex<VecDeque<Arc<BlockedRequest>>>,
    live: tokio::sync::broadcast::Sender<Arc<BlockedRequest>>,
}

impl Default for RecentBlocks {
    fn default() -> Self {
        RecentBlocks {
            ring: Mutex::new(VecDeque::with_capacity(CAPACITY)),
            live: tokio::sync::broadcast::channel(LIVE_BACKLOG).0,
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
            phase: Phase::Request,
            request_id: format!("id-{n}"),
            status: Some(403),
            country: None,
            matches: Vec::new(),
            head: Vec::new(),
        }
    }

    #[test]
    fn secrets_in_the_head_are_masked() {
        let mut headers = http::HeaderMap::new();
        headers.insert("cookie", "session=s3cret".parse().unwrap());
        headers.insert("authorization", "Bearer t0ken".parse().unwrap());
        headers.insert("user-agent", "probe".parse().unwrap());
        let kept = head(&headers);
        assert!(kept.contains(&("cookie".into(), "***".into())));
        assert!(kept.contains(&("authorization".into(), "***".into())));
        assert!(kept.contains(&("user-agent".into(), "probe".into())));
    }

    #[test]
    fn the_ring_keeps_the_newest_and_bounds_paths() {
        let recent = RecentBlocks::default();
        let mut live = recent.subscribe();
        // More than the live backlog, so the listener below falls behind.
        let total = LIVE_BACKLOG as u64 + 10;
        for n in 0..total {
            recent.record(entry(n));
        }
        let recent_id = format!("id-{}", total - 20);
        assert_eq!(recent.newest(10, Some(&recent_id))[0].at_ms, total - 20);
        assert!(
            recent.newest(10, Some("id-2")).is_empty(),
            "the oldest are gone"
        );
        let newest = recent.newest(usize::MAX, None);
        assert_eq!(newest.len(), CAPACITY);
        assert_eq!(newest[0].at_ms, total - 1);
        assert_eq!(newest[CAPACITY - 1].at_ms, total - CAPACITY as u64);
        assert_eq!(newest[0].path.chars().count(), MAX_PATH + 3);
        // A listener that fell behind skips ahead rather than holding the pipeline.
        assert!(matches!(
            live.try_recv(),
            Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_))
        ));
    }
}
