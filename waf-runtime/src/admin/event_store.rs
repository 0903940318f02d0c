//! The event store: every blocked or observed request and every traffic-control refusal (rate limit, IP lists,
//! GeoIP), with its matches and its head, in SQLite (`events.sqlite` in the admin data directory), for the Events
//! page, its export, and the charts (`GET /api/stats`).
//!
//! SQLite through sqlx, as the panel's other database (`store.rs`): no server to run, one file beside the others,
//! and the crate (with its bundled SQLite) already in the build; a separate file so a flood of events never
//! queues an admin's sign-in behind its writes.
//!
//! The request path never waits for it: events arrive over the broadcast of `recent_blocks.rs`, and one task
//! writes them in batches, one transaction each. A writer that falls behind the broadcast's backlog loses the
//! oldest and logs how many. The store is bounded by age and size (`admin.events`: [`EventBounds`]), enforced each
//! minute, when the proxy's request counter is also sampled for the request series of the charts.
use crate::config::EventBounds;
use crate::metrics::Metrics;
use crate::recent_blocks::{BlockedRequest, MatchDetail, now_ms};
use serde::Serialize;
use sqlx::sqlite::{
    SqliteAutoVacuum, SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::{QueryBuilder, Sqlite};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

/// Events written per transaction: large enough that a burst costs few commits, small enough that a reader
/// never waits long on the write lock.
const BATCH: usize = 500;
/// How often the bounds are enforced and the request counter sampled.
const TICK: Duration = Duration::from_secs(60);
/// Most events one page of `GET /api/events` returns.
pub const MAX_PAGE: i64 = 500;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    domain TEXT NOT NULL,
    client TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    status INTEGER,
    score INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    request_id TEXT NOT NULL,
    country TEXT,
    rule_ids TEXT NOT NULL,
    matches TEXT NOT NULL,
    head TEXT NOT NULL,
    phase TEXT NOT NULL DEFAULT 'request'
);
CREATE INDEX IF NOT EXISTS events_at ON events (at_ms);
CREATE TABLE IF NOT EXISTS requests_per_minute (
    minute INTEGER PRIMARY KEY,
    requests INTEGER NOT NULL
);
";

/// Columns added since the first schema, added to an older file when it is opened: `(name, definition)`.
const EVENT_COLUMNS: [(&str, &str); 1] = [("phase", "TEXT NOT NULL DEFAULT 'request'")];

/// An event as lists show it.
#[derive(Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Event {
    pub id: i64,
    /// RFC 3339, UTC, milliseconds.
    #[sqlx(skip)]
    pub at: String,
    /// Unix milliseconds.
    pub at_ms: i64,
    pub domain: String,
    pub client: String,
    pub method: String,
    pub path: String,
    /// The answer's status when the proxy answered itself; null when the request was forwarded (observed).
    pub status: Option<i64>,
    /// The anomaly score.
    pub score: i64,
    /// blocked, observed, rate_limited, ip_denied or geo_denied
    pub outcome: String,
    /// `request`, or `response` for an upstream's answer the response rules withheld (status 502) or, in observe
    /// mode, would have.
    pub phase: String,
    pub request_id: String,
    pub country: Option<String>,
    /// The rules that matched, as a JSON array.
    #[serde(skip)]
    #[schema(ignore)]
    #[sqlx(rename = "rule_ids")]
    pub rule_ids_json: String,
    #[sqlx(skip)]
    pub rule_ids: Vec<u64>,
}

/// An event with its matches and its request head.
#[derive(Serialize, utoipa::ToSchema)]
pub struct EventDetail {
    #[serde(flatten)]
    pub event: Event,
    pub matches: Vec<MatchDetail>,
    /// The request's headers as `[name, value]` pairs; cookies and credentials masked.
    pub head: Vec<(String, String)>,
}

/// What a listing keeps; every field optional.
#[derive(Default)]
pub struct Filter {
    pub domain: Option<String>,
    pub rule: Option<u64>,
    pub client: Option<String>,
    pub outcome: Option<String>,
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
    /// Free text, found in the path, client, domain, request id, matches or head.
    pub q: Option<String>,
    /// Only events older than this id (the `cursor` of the previous page).
    pub before_id: Option<i64>,
}

pub struct EventStore {
    pool: SqlitePool,
    /// Each event as stored, with its id, for the live stream.
    stored: broadcast::Sender<Arc<Event>>,
    /// The request counter at the last sample (the current minute's requests are the counter less this).
    sampled: AtomicU64,
    /// Events older than this many milliseconds are dropped.
    max_age_ms: i64,
    /// Past this size (pages in use), the oldest tenth is dropped.
    max_bytes: i64,
}

/// Requests the proxy has served since it started (the `/metrics` counter the dashboard reads).
fn requests_total(metrics: &Metrics) -> u64 {
    super::dashboard::read(metrics).requests
}

/// An event's time as RFC 3339 (UTC, milliseconds).
pub fn rfc3339(at_ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(at_ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default()
}

impl Event {
    fn finish(mut self) -> Event {
        self.at = rfc3339(self.at_ms);
        self.rule_ids = serde_json::from_str(&self.rule_ids_json).unwrap_or_default();
        self
    }
}

/// `text` as a LIKE pattern matching it anywhere, its own `%`, `_` and `\` taken literally (`ESCAPE '\'`).
fn contains_pattern(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len() + 2);
    pattern.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

impl EventStore {
    pub async fn open(dir: &Path, bounds: EventBounds) -> Result<Arc<EventStore>, sqlx::Error> {
        let options = SqliteConnectOptions::new()
            .filename(dir.join("events.sqlite"))
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // Events are a record, not a ledger: a power cut may lose the last batch, never the file.
            .synchronous(SqliteSynchronous::Normal)
            // Freed pages go back to the file system when the oldest are dropped (`enforce_bounds`).
            .auto_vacuum(SqliteAutoVacuum::Incremental)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await?;
        sqlx::raw_sql(SCHEMA).execute(&pool).await?;
        super::store::add_missing_columns(&pool, "events", &EVENT_COLUMNS).await?;
        Ok(Arc::new(EventStore {
            pool,
            stored: broadcast::channel(1024).0,
            sampled: AtomicU64::new(0),
            max_age_ms: i64::from(bounds.max_age_days) * 24 * 3600 * 1000,
            max_bytes: i64::from(bounds.max_size_mb) * 1024 * 1024,
        }))
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.stored.subscribe()
    }

    /// Runs the writer (events from `live`) and the minute tick (bounds, request samples) until `live` closes.
    pub async fn run(
        self: Arc<Self>,
        mut live: broadcast::Receiver<Arc<BlockedRequest>>,
        metrics: &'static Metrics,
    ) {
        self.sampled
            .store(requests_total(metrics), Ordering::Relaxed);
        let ticker = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(TICK);
            tick.tick().await;
            loop {
                tick.tick().await;
                if let Err(e) = ticker.minute(metrics).await {
                    tracing::error!("admin panel: event store upkeep: {e}");
                }
            }
        });
        loop {
            let mut batch = Vec::new();
            let mut lost = 0;
            match live.recv().await {
                Ok(event) => batch.push(event),
                Err(RecvError::Lagged(n)) => lost += n,
                Err(RecvError::Closed) => return,
            }
            while batch.len() < BATCH {
                match live.try_recv() {
                    Ok(event) => batch.push(event),
                    Err(broadcast::error::TryRecvError::Lagged(n)) => lost += n,
                    Err(_) => break,
                }
            }
            if lost > 0 {
                tracing::warn!(
                    "admin panel: the event store fell behind and lost {lost} events (a burst of refusals?)"
                );
            }
            if let Err(e) = self.insert(&batch).await {
                tracing::error!("admin panel: writing {} events: {e}", batch.len());
            }
        }
    }

    async fn insert(&self, batch: &[Arc<BlockedRequest>]) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let mut stored = Vec::with_capacity(batch.len());
        for e in batch {
            let rule_ids = serde_json::to_string(&e.rule_ids).unwrap_or_else(|_| "[]".into());
            let matches = serde_json::to_string(&e.matches).unwrap_or_else(|_| "[]".into());
            let head = serde_json::to_string(&e.head).unwrap_or_else(|_| "[]".into());
            let at_ms = e.at_ms as i64;
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO events (at_ms, domain, client, method, path, status, score, outcome, request_id,
                 country, rule_ids, matches, head, phase) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                 RETURNING id",
            )
            .bind(at_ms)
            .bind(&e.domain)
            .bind(&e.client)
            .bind(&e.method)
            .bind(&e.path)
            .bind(e.status.map(i64::from))
            .bind(i64::from(e.anomaly_score))
            .bind(e.outcome)
            .bind(&e.request_id)
            .bind(&e.country)
            .bind(&rule_ids)
            .bind(&matches)
            .bind(&head)
            .bind(e.phase.as_str())
            .fetch_one(&mut *tx)
            .await?;
            stored.push(Event {
                id,
                at: rfc3339(at_ms),
                at_ms,
                domain: e.domain.clone(),
                client: e.client.clone(),
                method: e.method.clone(),
                path: e.path.clone(),
                status: e.status.map(i64::from),
                score: i64::from(e.anomaly_score),
                outcome: e.outcome.to_string(),
                phase: e.phase.as_str().to_string(),
                request_id: e.request_id.clone(),
                country: e.country.clone(),
                rule_ids_json: String::new(),
                rule_ids: e.rule_ids.clone(),
            });
        }
        tx.commit().await?;
        for event in stored {
            // No listener is the usual case.
            let _ = self.stored.send(Arc::new(event));
        }
        Ok(())
    }

    /// The minute's upkeep: the request counter's increase since the last sample, then the bounds.
    async fn minute(&self, metrics: &Metrics) -> Result<(), sqlx::Error> {
        let now = requests_total(metrics);
        let before = self.sampled.swap(now, Ordering::Relaxed);
        let minute = now_ms() as i64 / 60_000;
        sqlx::query(
            "INSERT INTO requests_per_minute (minute, requests) VALUES (?, ?)
             ON CONFLICT (minute) DO UPDATE SET requests = requests + excluded.requests",
        )
        .bind(minute)
        .bind(now.saturating_sub(before) as i64)
        .execute(&self.pool)
        .await?;
        self.enforce_bounds().await
    }

    /// Drops what is older than the age bound, then the oldest tenth while the store is over the size bound.
    pub async fn enforce_bounds(&self) -> Result<(), sqlx::Error> {
        let oldest = now_ms() as i64 - self.max_age_ms;
        sqlx::query("DELETE FROM events WHERE at_ms < ?")
            .bind(oldest)
            .execute(&self.pool)
            .await?;
        sqlx::query("DELETE FROM requests_per_minute WHERE minute < ?")
            .bind(oldest / 60_000)
            .execute(&self.pool)
            .await?;
        while self.bytes_in_use().await? > self.max_bytes {
            let done = sqlx::query(
                "DELETE FROM events WHERE id <= (SELECT MIN(id) + (MAX(id) - MIN(id)) / 10 FROM events)",
            )
            .execute(&self.pool)
            .await?;
            if done.rows_affected() == 0 {
                break;
            }
        }
        sqlx::query("PRAGMA incremental_vacuum")
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn bytes_in_use(&self) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT (page_count - freelist_count) * page_size
             FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()",
        )
        .fetch_one(&self.pool)
        .await
    }

    fn push_filter(query: &mut QueryBuilder<Sqlite>, filter: &Filter) {
        query.push(" WHERE 1 = 1");
        if let Some(domain) = &filter.domain {
            query
                .push(" AND domain = ")
                .push_bind(domain.to_ascii_lowercase());
        }
        if let Some(client) = &filter.client {
            query.push(" AND client = ").push_bind(client.clone());
        }
        if let Some(outcome) = &filter.outcome {
            query.push(" AND outcome = ").push_bind(outcome.clone());
        }
        if let Some(rule) = filter.rule {
            query
                .push(" AND EXISTS (SELECT 1 FROM json_each(events.rule_ids) WHERE value = ")
                .push_bind(rule as i64)
                .push(")");
        }
        if let Some(since) = filter.since_ms {
            query.push(" AND at_ms >= ").push_bind(since);
        }
        if let Some(until) = filter.until_ms {
            query.push(" AND at_ms <= ").push_bind(until);
        }
        if let Some(q) = filter.q.as_deref().filter(|q| !q.is_empty()) {
            let pattern = contains_pattern(q);
            query.push(" AND (");
            for (i, column) in ["path", "client", "domain", "request_id", "matches", "head"]
                .iter()
                .enumerate()
            {
                if i > 0 {
                    query.push(" OR ");
                }
                query
                    .push(*column)
                    .push(" LIKE ")
                    .push_bind(pattern.clone())
                    .push(" ESCAPE '\\'");
            }
            query.push(")");
        }
        if let Some(before) = filter.before_id {
            query.push(" AND id < ").push_bind(before);
        }
    }

    /// Up to `limit` events matching `filter`, newest first.
    pub async fn list(&self, filter: &Filter, limit: i64) -> Result<Vec<Event>, sqlx::Error> {
        let mut query = QueryBuilder::new(
            "SELECT id, at_ms, domain, client, method, path, status, score, outcome, phase, request_id, country,
             rule_ids FROM events",
        );
        Self::push_filter(&mut query, filter);
        query.push(" ORDER BY id DESC LIMIT ").push_bind(limit);
        let rows: Vec<Event> = query.build_query_as().fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(Event::finish).collect())
    }

    pub async fn detail(&self, id: i64) -> Result<Option<EventDetail>, sqlx::Error> {
        let row: Option<(String, String)> =
            sqlx::query_as("SELECT matches, head FROM events WHERE id = ?")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        let Some((matches, head)) = row else {
            return Ok(None);
        };
        let filter = Filter {
            before_id: Some(id + 1),
            ..Filter::default()
        };
        let Some(event) = self.list(&filter, 1).await?.into_iter().next() else {
            return Ok(None);
        };
        Ok(Some(EventDetail {
            event,
            matches: serde_json::from_str(&matches).unwrap_or_default(),
            head: serde_json::from_str(&head).unwrap_or_default(),
        }))
    }

    /// Requests per bucket from the counter samples (and the current minute's requests not yet sampled), as
    /// `(bucket start in ms, requests)`.
    pub async fn requests(
        &self,
        since_ms: i64,
        bucket_ms: i64,
        metrics: &Metrics,
    ) -> Result<Vec<(i64, i64)>, sqlx::Error> {
        let mut rows: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT (minute * 60000 / ?) * ? AS bucket, SUM(requests) FROM requests_per_minute
             WHERE minute * 60000 >= ? GROUP BY bucket",
        )
        .bind(bucket_ms)
        .bind(bucket_ms)
        .bind(since_ms)
        .fetch_all(&self.pool)
        .await?;
        let unsampled =
            requests_total(metrics).saturating_sub(self.sampled.load(Ordering::Relaxed)) as i64;
        let now_bucket = now_ms() as i64 / bucket_ms * bucket_ms;
        match rows.iter_mut().find(|(b, _)| *b == now_bucket) {
            Some((_, n)) => *n += unsampled,
            None => rows.push((now_bucket, unsampled)),
        }
        Ok(rows)
    }

    /// Events per bucket and outcome since `since_ms`: `(bucket start in ms, outcome, count)`.
    pub async fn outcomes(
        &self,
        since_ms: i64,
        bucket_ms: i64,
    ) -> Result<Vec<(i64, String, i64)>, sqlx::Error> {
        sqlx::query_as(
            "SELECT (at_ms / ?) * ? AS bucket, outcome, COUNT(*) FROM events WHERE at_ms >= ?
             GROUP BY bucket, outcome",
        )
        .bind(bucket_ms)
        .bind(bucket_ms)
        .bind(since_ms)
        .fetch_all(&self.pool)
        .await
    }

    /// The `limit` most frequent values of `column` since `since_ms`, with their counts. `column` is one of a
    /// fixed set, never a client's text.
    pub async fn top(
        &self,
        column: TopOf,
        since_ms: i64,
        limit: i64,
    ) -> Result<Vec<(String, i64)>, sqlx::Error> {
        let sql = match column {
            TopOf::Rule => {
                "SELECT CAST(j.value AS TEXT), COUNT(*) AS n FROM events, json_each(events.rule_ids) j
                 WHERE at_ms >= ? GROUP BY j.value ORDER BY n DESC LIMIT ?"
            }
            TopOf::Client => {
                "SELECT client, COUNT(*) AS n FROM events WHERE at_ms >= ? GROUP BY client ORDER BY n DESC LIMIT ?"
            }
            TopOf::Path => {
                "SELECT path, COUNT(*) AS n FROM events WHERE at_ms >= ? GROUP BY path ORDER BY n DESC LIMIT ?"
            }
            TopOf::Country => {
                "SELECT country, COUNT(*) AS n FROM events WHERE at_ms >= ? AND country IS NOT NULL
                 GROUP BY country ORDER BY n DESC LIMIT ?"
            }
            TopOf::Status => {
                "SELECT CAST(status AS TEXT), COUNT(*) AS n FROM events WHERE at_ms >= ? AND status IS NOT NULL
                 GROUP BY status ORDER BY n DESC LIMIT ?"
            }
        };
        sqlx::query_as(sql)
            .bind(since_ms)
            .bind(limit)
            .fetch_all(&self.pool)
            .await
    }
}

impl EventStore {
    /// Per rule id, the events since `since_ms` in which it matched.
    pub async fn rule_hits(
        &self,
        since_ms: i64,
    ) -> Result<std::collections::HashMap<u64, u64>, sqlx::Error> {
        let rows: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT j.value, COUNT(*) FROM events, json_each(events.rule_ids) j WHERE at_ms >= ? GROUP BY j.value",
        )
        .bind(since_ms)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, n)| (id as u64, n as u64))
            .collect())
    }
}

/// What [`EventStore::top`] counts.
#[derive(Clone, Copy)]
pub enum TopOf {
    Rule,
    Client,
    Path,
    Country,
    Status,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_text_is_taken_literally() {
        assert_eq!(contains_pattern("50%_a\\b"), "%50\\%\\_a\\\\b%");
    }

    fn event(at_ms: u64, head: &str) -> Arc<BlockedRequest> {
        Arc::new(BlockedRequest {
            at_ms,
            client: "192.0.2.1".into(),
            domain: "shop.test".into(),
            method: "GET".into(),
            path: "/".into(),
            rule_ids: vec![],
            anomaly_score: 0,
            outcome: "ip_denied",
            phase: crate::recent_blocks::Phase::Request,
            request_id: "r".into(),
            status: Some(403),
            country: None,
            matches: vec![],
            head: vec![("user-agent".into(), head.into())],
        })
    }

    /// A store written before events had a phase gets the column, its events of phase `request`.
    #[tokio::test]
    async fn a_store_of_an_older_version_gets_the_phase() {
        let dir = tempfile::tempdir().unwrap();
        let bounds = EventBounds {
            max_age_days: 2,
            max_size_mb: 1,
        };
        let options = SqliteConnectOptions::new()
            .filename(dir.path().join("events.sqlite"))
            .create_if_missing(true);
        let old = SqlitePool::connect_with(options).await.unwrap();
        sqlx::raw_sql(
            "CREATE TABLE events (id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, domain TEXT NOT NULL,
             client TEXT NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL, status INTEGER,
             score INTEGER NOT NULL, outcome TEXT NOT NULL, request_id TEXT NOT NULL, country TEXT,
             rule_ids TEXT NOT NULL, matches TEXT NOT NULL, head TEXT NOT NULL);
             INSERT INTO events (at_ms, domain, client, method, path, status, score, outcome, request_id,
             rule_ids, matches, head) VALUES (1, 'a.test', '192.0.2.1', 'GET', '/', 403, 5, 'blocked', 'r0',
             '[]', '[]', '[]');",
        )
        .execute(&old)
        .await
        .unwrap();
        old.close().await;
        let store = EventStore::open(dir.path(), bounds).await.unwrap();
        let mut response = (*event(now_ms(), "new")).clone();
        response.phase = crate::recent_blocks::Phase::Response;
        store.insert(&[Arc::new(response)]).await.unwrap();
        let events = store.list(&Filter::default(), 10).await.unwrap();
        let phases: Vec<&str> = events.iter().map(|e| e.phase.as_str()).collect();
        assert_eq!(phases, ["response", "request"]);
    }

    #[tokio::test]
    async fn the_configured_bounds_drop_the_oldest_events() {
        let dir = tempfile::tempdir().unwrap();
        let bounds = EventBounds {
            max_age_days: 2,
            max_size_mb: 1,
        };
        let store = EventStore::open(dir.path(), bounds).await.unwrap();
        let now = now_ms();
        let day = 24 * 3600 * 1000;
        store
            .insert(&[event(now - 3 * day, "old"), event(now - day, "recent")])
            .await
            .unwrap();
        store.enforce_bounds().await.unwrap();
        let kept = store.list(&Filter::default(), 10).await.unwrap();
        assert_eq!(kept.len(), 1, "older than max_age_days: dropped");
        assert_eq!(kept[0].at_ms, (now - day) as i64);
        // About 3 MiB of events: over max_size_mb, the oldest go until the store is under it.
        let big = "x".repeat(1000);
        let batch: Vec<_> = (0..3000).map(|i| event(now - 1000 + i, &big)).collect();
        store.insert(&batch).await.unwrap();
        assert!(store.bytes_in_use().await.unwrap() > 2 * 1024 * 1024);
        store.enforce_bounds().await.unwrap();
        assert!(store.bytes_in_use().await.unwrap() <= 1024 * 1024);
        let newest = store.list(&Filter::default(), 1).await.unwrap();
        assert_eq!(newest[0].at_ms, (now + 1999) as i64, "the newest stay");
    }

    #[test]
    fn times_are_rfc3339_in_utc() {
        assert_eq!(rfc3339(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
    }
}
