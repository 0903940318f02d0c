//! The Events API over the event store (`event_store.rs`): the filtered, paged list, one event's detail, the
//! export as CSV or JSON lines, the live stream, and the charts' figures (`GET /api/stats`).
use super::Panel;
use super::error::{ApiError, ApiResult};
use super::event_store::{Event, EventDetail, Filter, MAX_PAGE, TopOf};
use super::session::SignedIn;
use crate::recent_blocks::now_ms;
use axum::Json;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// The outcomes an event may have.
const OUTCOMES: [&str; 5] = [
    "blocked",
    "observed",
    "rate_limited",
    "ip_denied",
    "geo_denied",
];
/// Most events one export holds: a day of a busy site's blocks; narrow the filters for more.
const MAX_EXPORT: usize = 100_000;
/// Entries in each "top" list of the stats.
const TOP: i64 = 10;

/// The filters of the list and the export, all optional, as query parameters.
#[derive(Deserialize, utoipa::IntoParams)]
pub struct EventQuery {
    /// Only this domain (the request's host).
    pub domain: Option<String>,
    /// Only events where this rule id matched.
    pub rule: Option<String>,
    /// Only this client address.
    pub client: Option<String>,
    /// blocked, observed, rate_limited, ip_denied or geo_denied
    pub outcome: Option<String>,
    /// From this time on (RFC 3339).
    pub since: Option<String>,
    /// Up to this time (RFC 3339).
    pub until: Option<String>,
    /// Free text, found in the path, client, domain, request id, rule messages and matched data, or head.
    pub q: Option<String>,
    /// Events per page (default 50, at most 500).
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// The export's format: csv or jsonl.
    pub format: Option<String>,
}

fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

fn time(key: &str, value: &Option<String>) -> ApiResult<Option<i64>> {
    given(value)
        .map(|v| {
            chrono::DateTime::parse_from_rfc3339(v)
                .map(|t| t.timestamp_millis())
                .map_err(|e| {
                    ApiError::field(key, format!("{key}: {v:?} is not an RFC 3339 time ({e})"))
                })
        })
        .transpose()
}

fn number<T: std::str::FromStr>(key: &str, value: &Option<String>) -> ApiResult<Option<T>> {
    given(value)
        .map(|v| {
            v.parse()
                .map_err(|_| ApiError::field(key, format!("{key}: {v:?} is not a number")))
        })
        .transpose()
}

impl EventQuery {
    fn filter(&self) -> ApiResult<Filter> {
        let outcome = given(&self.outcome).map(str::to_string);
        if let Some(o) = &outcome
            && !OUTCOMES.contains(&o.as_str())
        {
            return Err(ApiError::field(
                "outcome",
                format!("outcome: {o:?} is not one of {}", OUTCOMES.join(", ")),
            ));
        }
        Ok(Filter {
            domain: given(&self.domain).map(str::to_string),
            rule: number("rule", &self.rule)?,
            client: given(&self.client).map(str::to_string),
            outcome,
            since_ms: time("since", &self.since)?,
            until_ms: time("until", &self.until)?,
            q: given(&self.q).map(str::to_string),
            before_id: number("cursor", &self.cursor)?,
        })
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct EventPage {
    /// Newest first.
    pub events: Vec<Event>,
    /// Pass it as `cursor` for the next (older) page; null on the last page.
    pub next_cursor: Option<String>,
}

/// The stored events matching the filters, newest first, a page at a time.
#[utoipa::path(get, path = "/api/events", params(EventQuery),
    responses((status = 200, body = EventPage), (status = 400, description = "a filter that does not parse, named in `key`")))]
pub async fn list(
    State(panel): State<Arc<Panel>>,
    _who: SignedIn,
    Query(query): Query<EventQuery>,
) -> ApiResult<Json<EventPage>> {
    let filter = query.filter()?;
    let limit = number::<i64>("limit", &query.limit)?
        .unwrap_or(50)
        .clamp(1, MAX_PAGE);
    let events = panel.events.list(&filter, limit).await?;
    let next_cursor = (events.len() as i64 == limit)
        .then(|| events.last().map(|e| e.id.to_string()))
        .flatten();
    Ok(Json(EventPage {
        events,
        next_cursor,
    }))
}

/// One event with each rule that matched (`rule_id`, `message` with its macros expanded, `variable`, `data`,
/// `score`) and the request's head (cookies and credentials masked).
#[utoipa::path(get, path = "/api/events/{id}",
    params(("id" = i64, Path, description = "the event's id")),
    responses((status = 200, body = EventDetail), (status = 404)))]
pub async fn detail(
    State(panel): State<Arc<Panel>>,
    _who: SignedIn,
    Path(id): Path<String>,
) -> ApiResult<Json<EventDetail>> {
    let id: i64 = id
        .parse()
        .map_err(|_| ApiError::field("id", format!("id: {id:?} is not an event id")))?;
    panel
        .events
        .detail(id)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("id: no event {id}")).about("id"))
}

/// The events matching the filters (newest first, at most 100 000) as a file: `csv` (a header line, one event a
/// line, the rule ids separated by spaces) or `jsonl` (one event as JSON a line, with its matches).
#[utoipa::path(get, path = "/api/events/export", params(EventQuery),
    responses((status = 200, content_type = "text/csv"), (status = 200, content_type = "application/jsonl"),
        (status = 400, description = "an unknown format or a filter that does not parse")))]
pub async fn export(
    State(panel): State<Arc<Panel>>,
    _who: SignedIn,
    Query(query): Query<EventQuery>,
) -> ApiResult<Response> {
    let jsonl = match given(&query.format).unwrap_or("csv") {
        "csv" => false,
        "jsonl" => true,
        other => {
            return Err(ApiError::field(
                "format",
                format!("format: {other:?} is not csv or jsonl"),
            ));
        }
    };
    let mut filter = query.filter()?;
    let mut out = String::new();
    if !jsonl {
        out.push_str(
            "id,at,domain,client,method,path,status,score,outcome,request_id,country,rule_ids,phase\n",
        );
    }
    let mut written = 0;
    while written < MAX_EXPORT {
        let page = panel.events.list(&filter, MAX_PAGE).await?;
        let Some(last) = page.last() else { break };
        filter.before_id = Some(last.id);
        for event in &page {
            if jsonl {
                let detail = panel.events.detail(event.id).await?;
                if let Some(line) = detail.and_then(|d| serde_json::to_string(&d).ok()) {
                    out.push_str(&line);
                    out.push('\n');
                }
            } else {
                csv_line(&mut out, event);
            }
        }
        written += page.len();
        if page.len() < MAX_PAGE as usize {
            break;
        }
    }
    let (content_type, name) = if jsonl {
        ("application/jsonl; charset=utf-8", "events.jsonl")
    } else {
        ("text/csv; charset=utf-8", "events.csv")
    };
    Ok((
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        Body::from(out),
    )
        .into_response())
}

/// One CSV field (RFC 4180): quoted when it holds a quote, a comma or a line break. A field starting with `=`,
/// `+`, `-` or `@` gets a leading `'`: a spreadsheet would run it as a formula, and paths are the client's text.
fn csv_field(out: &mut String, value: &str) {
    let value = if value.starts_with(['=', '+', '-', '@']) {
        format!("'{value}")
    } else {
        value.to_string()
    };
    if value.contains(['"', ',', '\n', '\r']) {
        out.push('"');
        out.push_str(&value.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(&value);
    }
}

fn csv_line(out: &mut String, e: &Event) {
    let rule_ids: Vec<String> = e.rule_ids.iter().map(u64::to_string).collect();
    let fields = [
        e.id.to_string(),
        e.at.clone(),
        e.domain.clone(),
        e.client.clone(),
        e.method.clone(),
        e.path.clone(),
        e.status.map(|s| s.to_string()).unwrap_or_default(),
        e.score.to_string(),
        e.outcome.clone(),
        e.request_id.clone(),
        e.country.clone().unwrap_or_default(),
        rule_ids.join(" "),
        e.phase.clone(),
    ];
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        csv_field(out, field);
    }
    out.push('\n');
}

/// Server-sent events: one `event` (the event as the list shows it, with its `id`) per event as it is stored.
#[utoipa::path(get, path = "/api/events/stream", responses((status = 200, content_type = "text/event-stream")))]
pub async fn stream(
    State(panel): State<Arc<Panel>>,
    _who: SignedIn,
) -> Sse<impl futures_util::Stream<Item = Result<SseEvent, Infallible>>> {
    let live = panel.events.subscribe();
    let stream = futures_util::stream::unfold(live, |mut live| async move {
        loop {
            match live.recv().await {
                Ok(entry) => {
                    if let Ok(event) = SseEvent::default().event("event").json_data(&*entry) {
                        return Some((Ok(event), live));
                    }
                }
                // A slow reader skips what it missed; the list has it all.
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return None,
            }
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

#[derive(Deserialize, utoipa::IntoParams)]
pub struct StatsQuery {
    /// 1h (per minute), 24h or 7d (per hour); default 1h.
    pub range: Option<String>,
}

/// A range's span and bucket, in milliseconds, and the bucket's name.
pub fn span(range: &str) -> ApiResult<(i64, i64, &'static str)> {
    match range {
        "1h" => Ok((3_600_000, 60_000, "minute")),
        "24h" => Ok((86_400_000, 3_600_000, "hour")),
        "7d" => Ok((7 * 86_400_000, 3_600_000, "hour")),
        other => Err(ApiError::field(
            "range",
            format!("range: {other:?} is not 1h, 24h or 7d"),
        )),
    }
}

/// One point of the series.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Point {
    /// The bucket's start, RFC 3339.
    pub at: String,
    pub requests: i64,
    pub blocked: i64,
    pub observed: i64,
    pub rate_limited: i64,
    /// IP list and GeoIP refusals.
    pub denied: i64,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Counted {
    pub key: String,
    pub count: i64,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Stats {
    pub range: String,
    /// `minute` or `hour`.
    pub bucket: String,
    /// Oldest first, one per bucket, empty ones included.
    pub series: Vec<Point>,
    pub top_rules: Vec<Counted>,
    pub top_clients: Vec<Counted>,
    pub top_paths: Vec<Counted>,
    /// From GeoIP refusals (empty without GeoIP).
    pub top_countries: Vec<Counted>,
    /// The statuses the proxy answered events with.
    pub statuses: Vec<Counted>,
}

/// The charts' figures: requests (from the proxy's counter), blocked, observed, rate-limited and denied per
/// minute (1h) or hour (24h, 7d), and the top rules, clients, paths, countries and statuses of the events.
#[utoipa::path(get, path = "/api/stats", params(StatsQuery), responses((status = 200, body = Stats)))]
pub async fn stats(
    State(panel): State<Arc<Panel>>,
    _who: SignedIn,
    Query(query): Query<StatsQuery>,
) -> ApiResult<Json<Stats>> {
    let range = query.range.unwrap_or_else(|| "1h".into());
    let (span_ms, bucket_ms, bucket) = span(&range)?;
    let now = now_ms() as i64;
    let last = now / bucket_ms * bucket_ms;
    let first = last - span_ms + bucket_ms;
    let mut series: Vec<Point> = (0..span_ms / bucket_ms)
        .map(|i| Point {
            at: super::event_store::rfc3339(first + i * bucket_ms),
            requests: 0,
            blocked: 0,
            observed: 0,
            rate_limited: 0,
            denied: 0,
        })
        .collect();
    let slot = |at: i64| usize::try_from((at - first) / bucket_ms).ok();
    let store = &panel.events;
    for (at, n) in store
        .requests(first, bucket_ms, panel.state.metrics)
        .await?
    {
        if let Some(p) = slot(at).and_then(|i| series.get_mut(i)) {
            p.requests += n;
        }
    }
    for (at, outcome, n) in store.outcomes(first, bucket_ms).await? {
        if let Some(p) = slot(at).and_then(|i| series.get_mut(i)) {
            match outcome.as_str() {
                "blocked" => p.blocked += n,
                "observed" => p.observed += n,
                "rate_limited" => p.rate_limited += n,
                _ => p.denied += n,
            }
        }
    }
    let top = |of| async move {
        store.top(of, first, TOP).await.map(|rows| {
            rows.into_iter()
                .map(|(key, count)| Counted { key, count })
                .collect::<Vec<_>>()
        })
    };
    Ok(Json(Stats {
        range,
        bucket: bucket.into(),
        series,
        top_rules: top(TopOf::Rule).await?,
        top_clients: top(TopOf::Client).await?,
        top_paths: top(TopOf::Path).await?,
        top_countries: top(TopOf::Country).await?,
        statuses: top(TopOf::Status).await?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_and_formulas_defused() {
        let mut out = String::new();
        csv_field(&mut out, "a,\"b\"");
        out.push('|');
        csv_field(&mut out, "=cmd()");
        assert_eq!(out, "\"a,\"\"b\"\"\"|'=cmd()");
    }
}
