//! What the panel shows: the dashboard figures, the recent blocked requests, the rules in force, the audit log.
use super::Panel;
use super::dashboard::{self, Dashboard};
use super::error::ApiResult;
use super::session::SignedIn;
use super::store::AuditEntry;
use crate::recent_blocks::BlockedRequest;
use axum::Json;
use axum::extract::{Query, State};
use serde::Deserialize;
use std::sync::Arc;

/// Most entries one listing returns.
const MAX_LIST: usize = 500;

#[derive(Deserialize, utoipa::IntoParams)]
pub struct Listing {
    /// How many entries, newest first (default 50, at most 500).
    pub limit: Option<usize>,
}

#[derive(Deserialize, utoipa::IntoParams)]
pub struct BlockedListing {
    /// How many entries, newest first (default 50, at most 500).
    pub limit: Option<usize>,
    /// Only the request with this id (`X-Request-ID`, the `request_id` of its 403).
    pub request_id: Option<String>,
}

impl Listing {
    fn limit(&self) -> usize {
        self.limit.unwrap_or(50).min(MAX_LIST)
    }
}

#[utoipa::path(get, path = "/api/dashboard", responses((status = 200, body = Dashboard)))]
pub async fn show(State(panel): State<Arc<Panel>>, _who: SignedIn) -> Json<Dashboard> {
    Json(dashboard::read(panel.state.metrics))
}

#[utoipa::path(get, path = "/api/blocked", params(BlockedListing),
    responses((status = 200, body = Vec<BlockedRequest>)))]
pub async fn blocked(
    State(panel): State<Arc<Panel>>,
    _who: SignedIn,
    Query(listing): Query<BlockedListing>,
) -> Json<Vec<Arc<BlockedRequest>>> {
    let limit = Listing {
        limit: listing.limit,
    }
    .limit();
    let id = listing.request_id.as_deref().filter(|id| !id.is_empty());
    Json(panel.state.recent_blocks.newest(limit, id))
}

#[derive(Deserialize, utoipa::IntoParams)]
pub struct RuleSearch {
    /// Keeps the rules whose id, message or file contains this text (any case).
    pub search: Option<String>,
    /// 1h, 24h or 7d: also count each rule's hits over that period (`period_hits`).
    pub range: Option<String>,
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct RuleInfo {
    pub id: u32,
    pub msg: String,
    /// The rule's file, relative to its rule directory (`waf.domains.<host>.custom_rules` for a domain's own).
    pub file: String,
    pub paranoia_level: u8,
    /// Whether it runs: enabled, and its paranoia level not above the one in force (`waf.rules.paranoia_level`).
    /// The others are loaded and checked, and run once the level is raised.
    pub runs: bool,
    /// The hosts the rule is scoped to; empty: every host.
    pub hosts: Vec<String>,
    /// Requests this rule matched since the proxy started.
    pub hits: u64,
    /// With `range`: the stored events (blocked or observed requests) of that period in which it matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period_hits: Option<u64>,
}

/// The rules in force, by id.
#[utoipa::path(get, path = "/api/rules", params(RuleSearch), responses((status = 200, body = Vec<RuleInfo>)))]
pub async fn rules(
    State(panel): State<Arc<Panel>>,
    _who: SignedIn,
    Query(query): Query<RuleSearch>,
) -> ApiResult<Json<Vec<RuleInfo>>> {
    let hits = dashboard::rule_hits(panel.state.metrics);
    let period_hits = match query.range.as_deref().filter(|r| !r.is_empty()) {
        Some(range) => {
            let (span_ms, _, _) = super::events::span(range)?;
            let since = crate::recent_blocks::now_ms() as i64 - span_ms;
            Some(panel.events.rule_hits(since).await?)
        }
        None => None,
    };
    let needle = query.search.unwrap_or_default().to_lowercase();
    let loaded = panel.state.rules.load();
    let level = panel.state.live.load().config.rules.paranoia_level;
    let mut rules: Vec<RuleInfo> = loaded
        .rules()
        .filter(|c| {
            needle.is_empty()
                || c.rule.id.to_string().contains(&needle)
                || c.rule.msg.to_lowercase().contains(&needle)
                || c.file.to_lowercase().contains(&needle)
        })
        .map(|c| RuleInfo {
            id: c.rule.id,
            msg: c.rule.msg.clone(),
            file: c.file.clone(),
            paranoia_level: c.rule.paranoia_level,
            runs: c.runs_at(level),
            hosts: c.rule.hosts.clone(),
            hits: hits.get(&u64::from(c.rule.id)).copied().unwrap_or(0),
            period_hits: period_hits
                .as_ref()
                .map(|p| p.get(&u64::from(c.rule.id)).copied().unwrap_or(0)),
        })
        .collect();
    rules.sort_by_key(|r| r.id);
    Ok(Json(rules))
}

#[utoipa::path(get, path = "/api/audit", params(Listing),
    responses((status = 200, body = Vec<AuditEntry>)))]
pub async fn audit(
    State(panel): State<Arc<Panel>>,
    _who: SignedIn,
    Query(listing): Query<Listing>,
) -> ApiResult<Json<Vec<AuditEntry>>> {
    Ok(Json(
        panel.store.recent_audit(listing.limit() as i64).await?,
    ))
}
