//! A domain's upstream side in the panel: its servers (one, or a pool with weights and backups), the TLS client
//! towards them (`upstream_tls`), the `Host` they receive (`upstream_host`) and its pool settings (`balance`,
//! `max_fails`, `fail_timeout_sec`, `retries`, `health_check`); and the health of every server, as the pools
//! see it now. A change is checked by the resolver that reads `waf.yml` (the same refusals as `--check-config`,
//! naming the key: an unreadable CA file, an empty pool, a weight of 0), and applied like every panel change
//! (`live_config.rs`).
use super::Panel;
use super::error::{ApiError, ApiResult, JsonBody};
use super::live_config::IfMatch;
use super::session::SignedIn;
use super::settings::{audited, configured_domain, edit_domain};
use crate::config::{DomainConfig, PoolServer};
use crate::upstream_pool::ServerHealth;
use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use utoipa::ToSchema;

/// The keys of a domain's entry this change owns: all of them are set or cleared by it.
const OWNED: [&str; 9] = [
    "default_upstream",
    "upstreams",
    "upstream_tls",
    "upstream_host",
    "balance",
    "max_fails",
    "fail_timeout_sec",
    "retries",
    "health_check",
];

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpstreamChange {
    /// The domain's servers: one alone is its `default_upstream`; more, or one with a weight or as a backup,
    /// are its pool (`upstreams`). Each `http://` or `https://`.
    pub servers: Vec<ServerEntry>,
    /// The TLS client towards its `https://` servers, instead of `upstream.tls` (the whole block); absent: the
    /// global one.
    pub upstream_tls: Option<TlsEntry>,
    /// The `Host` its servers receive: a host name (with an optional port) or `$upstream`; absent: the client's.
    pub upstream_host: Option<String>,
    /// The pool settings; each absent one is the global `upstream.*` one.
    pub balance: Option<String>,
    pub max_fails: Option<u32>,
    pub fail_timeout_sec: Option<u64>,
    pub retries: Option<u32>,
    /// The domain's own check, or `false`: none, though `upstream.health_check` has one.
    pub health_check: Option<HealthCheckChoice>,
}

#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
pub enum HealthCheckChoice {
    Off(bool),
    Check(HealthCheckEntry),
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerEntry {
    pub url: String,
    pub weight: Option<u32>,
    pub backup: Option<bool>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TlsEntry {
    pub verify: Option<bool>,
    /// Absolute paths of PEM files on the proxy's host.
    pub ca_file: Option<String>,
    pub server_name: Option<String>,
    pub cert_file: Option<String>,
    pub key_file: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HealthCheckEntry {
    pub path: Option<String>,
    pub interval_sec: Option<u64>,
    pub timeout_ms: Option<u64>,
    pub expect_status: Option<u16>,
}

/// The upstream side of a domain, as `GET /api/config` shows it beside its other settings.
pub fn managed(domain: &DomainConfig) -> Map<String, Value> {
    let shown =
        |s: &PoolServer| json!({"url": s.url.to_string(), "weight": s.weight, "backup": s.backup});
    let servers: Vec<Value> = match (&domain.upstreams, &domain.default_upstream) {
        (Some(pool), _) => pool.iter().map(shown).collect(),
        (None, Some(url)) => vec![json!({"url": url.to_string(), "weight": 1, "backup": false})],
        (None, None) => Vec::new(),
    };
    let mut map = Map::new();
    map.insert("servers".into(), json!(servers));
    map.insert("upstream_tls".into(), json!(domain.upstream_tls));
    map.insert("upstream_host".into(), json!(domain.upstream_host));
    map.insert("pool".into(), json!(domain.pool));
    map
}

/// Sets a domain's servers, the TLS client towards them, the `Host` they receive and its pool settings, all of
/// them (what is left out returns to the global setting); its other settings are kept.
#[utoipa::path(put, path = "/api/domains/{host}/upstream", request_body = UpstreamChange,
    params(("host" = String, Path, description = "the host name of a configured domain"),
        ("If-Match" = Option<String>, Header, description = "the `version` of GET /api/config")),
    responses((status = 200), (status = 400, description = "refused, naming the key (a CA file that does not load, an empty pool, a weight of 0), nothing applied"),
        (status = 404, description = "no such domain"), (status = 412, description = "the configuration changed since that version")))]
pub async fn put_upstream(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    Path(host): Path<String>,
    JsonBody(req): JsonBody<UpstreamChange>,
) -> ApiResult<Json<Value>> {
    let host = configured_domain(&panel, &host)?;
    if let Some(tls) = &req.upstream_tls {
        tls.check()?;
    }
    let changed = panel
        .change(&if_match, |waf| {
            edit_domain(waf, &host, |domain| req.store(domain));
        })
        .await?;
    audited(&panel, &who, "domain upstream set", changed).await
}

/// A server as the panel lists it: its health now, and its counts since the proxy started, read from the live
/// metrics (the series `/metrics` exports, as the dashboard reads them, so the two never disagree).
#[derive(Serialize, ToSchema)]
pub struct ServerView {
    #[serde(flatten)]
    pub health: ServerHealth,
    /// `waf_upstream_server_requests_total` and `waf_upstream_server_failures_total`.
    pub requests: u64,
    pub failures: u64,
    /// Mean time to the response head (`waf_upstream_server_duration_seconds`), in milliseconds; none before
    /// its first answer is counted.
    pub mean_ms: Option<f64>,
}

/// Every upstream server, each once, with the pools it is in, whether it is up now (and why not) and its counts.
#[utoipa::path(get, path = "/api/upstreams",
    responses((status = 200, body = Vec<ServerView>)))]
pub async fn health(State(panel): State<Arc<Panel>>, _who: SignedIn) -> Json<Vec<ServerView>> {
    let text = panel.state.metrics.render();
    let value = |name: &str, url: &str| {
        text.lines()
            .find_map(|line| server_series(line, name).filter(|(server, _)| *server == url))
            .map(|(_, value)| value)
    };
    let servers = panel.state.live.load().pools.health();
    Json(
        servers
            .into_iter()
            .map(|health| {
                let url = health.url.clone();
                let count = |name| value(name, &url).unwrap_or(0.0) as u64;
                let seconds = value("waf_upstream_server_duration_seconds_sum", &url);
                let answered = count("waf_upstream_server_duration_seconds_count");
                ServerView {
                    requests: count("waf_upstream_server_requests_total"),
                    failures: count("waf_upstream_server_failures_total"),
                    mean_ms: seconds
                        .filter(|_| answered > 0)
                        .map(|s| s * 1000.0 / answered as f64),
                    health,
                }
            })
            .collect(),
    )
}

/// The server and the value of a `name{server="URL"} VALUE` line of the metrics.
fn server_series<'a>(line: &'a str, name: &str) -> Option<(&'a str, f64)> {
    let rest = line.strip_prefix(name)?.strip_prefix("{server=\"")?;
    let (server, value) = rest.split_once("\"} ")?;
    Some((server, value.trim().parse().ok()?))
}

impl UpstreamChange {
    /// Writes the change into the domain's entry, as the file spells it.
    fn store(self, domain: &mut Map<String, Value>) {
        for key in OWNED {
            domain.remove(key);
        }
        let plain = |s: &ServerEntry| s.weight.is_none() && s.backup.is_none();
        match self.servers.as_slice() {
            [one] if plain(one) => {
                domain.insert("default_upstream".into(), json!(one.url));
            }
            // An empty list is written as such, for the resolver to refuse by its key.
            servers => {
                let list = servers
                    .iter()
                    .map(|s| match plain(s) {
                        true => json!(s.url),
                        false => {
                            let mut entry = Map::new();
                            entry.insert("url".into(), json!(s.url));
                            if let Some(weight) = s.weight {
                                entry.insert("weight".into(), json!(weight));
                            }
                            if let Some(backup) = s.backup {
                                entry.insert("backup".into(), json!(backup));
                            }
                            Value::Object(entry)
                        }
                    })
                    .collect();
                domain.insert("upstreams".into(), Value::Array(list));
            }
        }
        if let Some(tls) = self.upstream_tls {
            domain.insert("upstream_tls".into(), tls.value());
        }
        let scalars = [
            ("upstream_host", json!(self.upstream_host)),
            ("balance", json!(self.balance)),
            ("max_fails", json!(self.max_fails)),
            ("fail_timeout_sec", json!(self.fail_timeout_sec)),
            ("retries", json!(self.retries)),
        ];
        for (key, value) in scalars {
            if !value.is_null() {
                domain.insert(key.into(), value);
            }
        }
        match self.health_check {
            None => {}
            // `true` too, for the resolver to refuse by its key.
            Some(HealthCheckChoice::Off(off)) => {
                domain.insert("health_check".into(), json!(off));
            }
            Some(HealthCheckChoice::Check(check)) => {
                let fields = [
                    ("path", json!(check.path)),
                    ("interval_sec", json!(check.interval_sec)),
                    ("timeout_ms", json!(check.timeout_ms)),
                    ("expect_status", json!(check.expect_status)),
                ];
                domain.insert("health_check".into(), non_null(&fields));
            }
        }
    }
}

impl TlsEntry {
    /// What the resolver does not check about a value typed in the panel: the proxy's working directory is not
    /// what an admin sees in a browser, so a relative path would name a file nobody meant.
    fn check(&self) -> ApiResult<()> {
        let files = [
            ("ca_file", &self.ca_file),
            ("cert_file", &self.cert_file),
            ("key_file", &self.key_file),
        ];
        for (field, path) in files {
            if let Some(path) = path
                && !std::path::Path::new(path).is_absolute()
            {
                return Err(ApiError::field(
                    format!("upstream_tls.{field}"),
                    format!("upstream_tls.{field}: {path:?} is not an absolute path"),
                ));
            }
        }
        Ok(())
    }

    fn value(self) -> Value {
        non_null(&[
            ("verify", json!(self.verify)),
            ("ca_file", json!(self.ca_file)),
            ("server_name", json!(self.server_name)),
            ("cert_file", json!(self.cert_file)),
            ("key_file", json!(self.key_file)),
        ])
    }
}

/// A mapping of the fields that have a value.
fn non_null(fields: &[(&str, Value)]) -> Value {
    Value::Object(
        fields
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(change: Value) -> Value {
        let change: UpstreamChange = serde_json::from_value(change).unwrap();
        let mut domain = Map::new();
        domain.insert("default_upstream".into(), json!("http://old"));
        domain.insert("force_https".into(), json!(true));
        change.store(&mut domain);
        Value::Object(domain)
    }

    #[test]
    fn one_server_is_the_default_upstream_and_more_are_a_pool() {
        assert_eq!(
            stored(json!({"servers": [{"url": "https://a"}]})),
            json!({"default_upstream": "https://a", "force_https": true})
        );
        assert_eq!(
            stored(json!({
                "servers": [{"url": "https://a"}, {"url": "https://b", "weight": 2, "backup": true}],
                "upstream_tls": {"ca_file": "/ca.pem", "verify": true},
                "upstream_host": "$upstream", "balance": "ip_hash", "retries": 0,
                "health_check": {"path": "/ping"},
            })),
            json!({
                "upstreams": ["https://a", {"url": "https://b", "weight": 2, "backup": true}],
                "upstream_tls": {"verify": true, "ca_file": "/ca.pem"},
                "upstream_host": "$upstream", "balance": "ip_hash", "retries": 0,
                "health_check": {"path": "/ping"}, "force_https": true,
            })
        );
        assert_eq!(
            stored(json!({"servers": []})),
            json!({"upstreams": [], "force_https": true})
        );
        assert_eq!(
            stored(json!({"servers": [{"url": "https://a"}], "health_check": false})),
            json!({"default_upstream": "https://a", "health_check": false, "force_https": true})
        );
    }

    #[test]
    fn a_servers_series_is_read_by_name_and_url() {
        let line = "waf_upstream_server_requests_total{server=\"https://10.0.0.5:8443\"} 42";
        assert_eq!(
            server_series(line, "waf_upstream_server_requests_total"),
            Some(("https://10.0.0.5:8443", 42.0))
        );
        assert_eq!(
            server_series(line, "waf_upstream_server_failures_total"),
            None
        );
    }

    #[test]
    fn relative_tls_paths_are_refused_by_field() {
        let tls: TlsEntry = serde_json::from_value(json!({"ca_file": "ca.pem"})).unwrap();
        assert_eq!(
            tls.check().unwrap_err().key.as_deref(),
            Some("upstream_tls.ca_file")
        );
    }
}
