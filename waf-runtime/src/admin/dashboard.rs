//! The dashboard's figures, read from the live metrics (the same series `/metrics` exports), so the panel and
//! Prometheus never disagree.
use crate::metrics::Metrics;
use serde::Serialize;

/// Rules listed under "top matched rules".
const TOP_RULES: usize = 10;

#[derive(Serialize, utoipa::ToSchema)]
pub struct Dashboard {
    /// Requests since the proxy started.
    pub requests: u64,
    /// Requests a rule blocked (enforce mode).
    pub blocked: u64,
    /// Requests with matches forwarded in observe mode.
    pub observed: u64,
    pub rate_limited: u64,
    pub rules_loaded: u64,
    pub top_rules: Vec<RuleHits>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct RuleHits {
    pub rule_id: u64,
    pub hits: u64,
}

/// The rule id of a `waf_rule_matches_total{rule_id="N"}` series.
fn rule_series(series: &str) -> Option<u64> {
    series
        .strip_prefix("waf_rule_matches_total{rule_id=\"")
        .and_then(|rest| rest.strip_suffix("\"}"))
        .and_then(|id| id.parse().ok())
}

/// Matches per rule id since the proxy started (rules never matched are absent).
pub fn rule_hits(metrics: &Metrics) -> std::collections::HashMap<u64, u64> {
    metrics
        .render()
        .lines()
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            Some((rule_series(series)?, value.parse::<f64>().ok()? as u64))
        })
        .collect()
}

pub fn read(metrics: &Metrics) -> Dashboard {
    let text = metrics.render();
    let mut dashboard = Dashboard {
        requests: 0,
        blocked: 0,
        observed: 0,
        rate_limited: 0,
        rules_loaded: 0,
        top_rules: Vec::new(),
    };
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((series, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let Ok(value) = value.parse::<f64>() else {
            continue;
        };
        let value = value as u64;
        match series {
            "waf_requests_total" => dashboard.requests = value,
            "waf_blocked_total" => dashboard.blocked = value,
            "waf_observed_total" => dashboard.observed = value,
            "waf_rate_limited_total" => dashboard.rate_limited = value,
            "waf_rules_loaded" => dashboard.rules_loaded = value,
            _ => {
                if let Some(rule_id) = rule_series(series) {
                    dashboard.top_rules.push(RuleHits {
                        rule_id,
                        hits: value,
                    });
                }
            }
        }
    }
    dashboard
        .top_rules
        .sort_by(|a, b| b.hits.cmp(&a.hits).then(a.rule_id.cmp(&b.rule_id)));
    dashboard.top_rules.truncate(TOP_RULES);
    dashboard
}
