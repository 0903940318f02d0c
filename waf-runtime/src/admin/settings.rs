//! The settings the panel manages: WAF mode, paranoia level, rule set, domains (with their certificate,
//! anomaly threshold, rule exclusions and own rules), the listeners and the global self-signed certificate, IP lists and the rate limit. Each
//! handler only says how its change edits the file's tree; `live_config.rs` validates, writes and applies it, and
//! the change is audited with the managed settings before and after.
use super::Panel;
use super::error::{ApiError, ApiResult, JsonBody};
use super::live_config::{self, Changed, IfMatch, section};
use super::session::SignedIn;
use crate::config::DomainConfig;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use utoipa::ToSchema;
use waf_compiler::Profile;
use waf_compiler::rule_entries;

/// Longest host name (RFC 1035).
const MAX_HOST: usize = 253;

#[derive(Deserialize, ToSchema)]
pub struct ModeChange {
    /// enforce, observe or disabled
    pub mode: String,
}

#[derive(Deserialize, ToSchema)]
pub struct ParanoiaChange {
    /// 1 to 4
    pub level: u8,
}

#[derive(Deserialize, ToSchema)]
pub struct RuleSetChange {
    /// Rule directories to load, e.g. `[rules, crs-942, crs]` (the shipped rules and the whole CRS), `[rules,
    /// crs-942]` or `[crs-942]`; or
    #[serde(default)]
    pub directories: Vec<String>,
    /// a compiled artifact (`rulec compile`) instead of directories.
    pub artifact: Option<String>,
}

#[derive(Deserialize, ToSchema)]
pub struct DomainChange {
    /// `http://host:port` or `https://host:port` of the domain's upstream (replacing its pool, if it has one);
    /// absent: kept (`PUT /api/domains/{host}/upstream` sets a pool).
    pub upstream: Option<String>,
    /// The domain's certificate; absent: the one it has is kept.
    pub tls: Option<DomainTls>,
    /// Plain HTTP requests for the domain are redirected to HTTPS (needs `https_enabled`); absent: kept.
    pub force_https: Option<bool>,
}

/// A domain's certificate, as the API shows and sets it. Only file paths cross the API, never a key's content.
#[derive(Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "certificate", rename_all = "snake_case")]
pub enum DomainTls {
    /// None of its own: the global certificate, if there is one, is served for it.
    None,
    /// PEM files on the proxy's host (`cert_file`: the full chain, leaf first; `key_file`: its key), as absolute
    /// paths; they must load, and the key must belong to the leaf.
    Files { cert_file: String, key_file: String },
    /// Ordered from the ACME server (`waf.acme`) with this account contact, at once; needs both listeners. Served
    /// once issued (until then, the global certificate if any).
    Acme { email: Option<String> },
    /// Made at once by the proxy for this name, signed by its local CA (`auto_cert_dir/ca.pem`): for testing only.
    SelfSigned,
}

impl DomainTls {
    pub fn of(domain: &DomainConfig) -> DomainTls {
        let shown = |p: &std::path::Path| p.to_string_lossy().into_owned();
        if let (Some(cert), Some(key)) = (&domain.cert_file, &domain.key_file) {
            DomainTls::Files {
                cert_file: shown(cert),
                key_file: shown(key),
            }
        } else if domain.acme_enabled {
            DomainTls::Acme {
                email: domain.acme_email.clone(),
            }
        } else if domain.self_signed {
            DomainTls::SelfSigned
        } else {
            DomainTls::None
        }
    }

    /// What the resolver does not check about a value typed in the panel.
    fn check(&self) -> ApiResult<()> {
        match self {
            DomainTls::Files {
                cert_file,
                key_file,
            } => {
                for (field, path) in [("cert_file", cert_file), ("key_file", key_file)] {
                    // The proxy's working directory is not what an admin sees in a browser: a relative path would
                    // name a file nobody meant.
                    if !std::path::Path::new(path).is_absolute() {
                        return Err(ApiError::field(
                            format!("tls.{field}"),
                            format!("tls.{field}: {path:?} is not an absolute path"),
                        ));
                    }
                }
                Ok(())
            }
            DomainTls::Acme { email: None } => Err(ApiError::field(
                "tls.email",
                "tls.email: ACME needs the account's contact e-mail address",
            )),
            _ => Ok(()),
        }
    }

    /// Sets the domain entry's certificate keys to this one (and clears the others).
    fn store(self, domain: &mut Map<String, Value>) {
        for key in [
            "cert_file",
            "key_file",
            "acme_enabled",
            "acme_email",
            "self_signed",
        ] {
            domain.remove(key);
        }
        let set: Vec<(&str, Value)> = match self {
            DomainTls::None => vec![],
            DomainTls::Files {
                cert_file,
                key_file,
            } => vec![
                ("cert_file", json!(cert_file)),
                ("key_file", json!(key_file)),
            ],
            DomainTls::Acme { email } => {
                vec![("acme_enabled", json!(true)), ("acme_email", json!(email))]
            }
            DomainTls::SelfSigned => vec![("self_signed", json!(true))],
        };
        for (key, value) in set {
            domain.insert(key.into(), value);
        }
    }
}

#[derive(Deserialize, ToSchema)]
pub struct TlsChange {
    /// The HTTPS listener (`waf.server.https_enabled`); opened or closed at the next start.
    pub https_enabled: bool,
    /// `waf.server.http_port` and `https_port` (0: any free port); taken up at the next start.
    pub http_port: u16,
    pub https_port: u16,
    /// A certificate from the proxy's local testing CA for every name without its own
    /// (`waf.server.tls.auto_generate`); applied at once when HTTPS runs.
    pub auto_generate: bool,
}

#[derive(Deserialize, ToSchema)]
pub struct DomainRulesChange {
    /// The domain's own anomaly threshold (at least 1); absent: the global `rules.anomaly_threshold`.
    pub anomaly_threshold: Option<u32>,
    /// Rule ids whose matches do not count for the domain's requests; each must be a loaded rule.
    #[serde(default)]
    pub disabled_rules: Vec<u32>,
    /// The domain's own rules as YAML in the rule format (docs/rule-format.md): a list of rules, or a `rules:`
    /// list; empty: none. They run for this domain's requests only (the proxy scopes them; `hosts` is refused).
    #[serde(default)]
    pub custom_rules: String,
}

/// The fields of a domain's rules to change; those left out are kept.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DomainRulesPatch {
    /// The domain's own anomaly threshold (at least 1); `null`: the global `rules.anomaly_threshold`.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<u32>)]
    pub anomaly_threshold: Option<Option<u32>>,
    /// Rule ids whose matches do not count for the domain's requests (the whole list).
    pub disabled_rules: Option<Vec<u32>>,
    /// Rules not run on one variable of the domain's requests (the whole list): an event's "exclude this rule
    /// for this parameter".
    pub excluded_variables: Option<Vec<ExcludedVariable>>,
    /// web or api (`waf.domains.<host>.profile`); `null`: the global `rules.profile`.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub profile: Option<Option<Profile>>,
    /// The domain's own rules as YAML; empty: none.
    pub custom_rules: Option<String>,
    /// Whether the upstream's answers for the domain are inspected (`waf.domains.<host>.responses`); `null`: the
    /// global `rules.responses`.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<bool>)]
    pub responses: Option<Option<bool>>,
}

/// Rule `rule` not run on `variable` (as a match names it: `ARGS:q`, `REQUEST_HEADERS:User-Agent`).
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExcludedVariable {
    pub rule: u32,
    pub variable: String,
}

/// A field given, `null` included (`Some(None)`), as opposed to a field left out (`None`, by `default`).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// The protection settings to change; those left out are kept.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProtectionPatch {
    /// enforce, observe or disabled (`waf.mode`)
    pub mode: Option<String>,
    /// 1 to 4 (`waf.rules.paranoia_level`)
    pub paranoia_level: Option<u8>,
    /// The global anomaly threshold, at least 1 (`waf.rules.anomaly_threshold`)
    pub anomaly_threshold: Option<u32>,
    /// Rule ids disabled for every domain, the whole list (`waf.rules.disabled_rules`); each must be loaded.
    pub disabled_rules: Option<Vec<u32>>,
    /// web or api: what the domains without a profile of their own serve (`waf.rules.profile`)
    #[schema(value_type = Option<String>)]
    pub profile: Option<Profile>,
    /// Whether the upstream's answers are inspected by the response rules, for the domains without a setting of
    /// their own (`waf.rules.responses`)
    pub responses: Option<bool>,
}

#[derive(Deserialize, ToSchema)]
pub struct IpListsChange {
    /// Addresses or CIDR blocks; when not empty, only these are admitted.
    pub allow: Vec<String>,
    /// Addresses or CIDR blocks always refused.
    pub deny: Vec<String>,
}

#[derive(Deserialize, ToSchema)]
pub struct GeoipChange {
    pub enabled: bool,
    /// The MaxMind country database (`.mmdb`) on the proxy's host; needed when enabled.
    pub database: Option<String>,
    /// ISO 3166-1 alpha-2 codes; when not empty, only these countries are admitted.
    #[serde(default)]
    pub allow_countries: Vec<String>,
    /// Always refused.
    #[serde(default)]
    pub deny_countries: Vec<String>,
    /// allow or deny: what happens to an address the database knows no country for.
    pub unknown: Option<String>,
}

#[derive(Deserialize, ToSchema)]
pub struct RateLimitChange {
    pub enabled: bool,
    pub requests: Option<u32>,
    pub window_sec: Option<u64>,
    pub burst: Option<u32>,
}

#[utoipa::path(get, path = "/api/config", responses((status = 200,
    description = "the managed settings, what awaits a restart (`restart_required`, `restart_reasons`, `notices`) \
    and the file's `version` (also the `ETag`): send it as `If-Match` with a change to have it refused (412) if \
    the configuration changed meanwhile")))]
pub async fn show(State(panel): State<Arc<Panel>>, _who: SignedIn) -> ApiResult<Response> {
    let version = panel.config_version().await?;
    let live = panel.state.live.load();
    let mut answer = live_config::managed(&live.config);
    if let Value::Object(map) = &mut answer {
        map.extend(live_config::pending(&panel.state, &live.config));
        map.insert("version".into(), json!(version));
    }
    let mut response = Json(answer).into_response();
    if let Some(etag) = version.and_then(|v| HeaderValue::from_str(&format!("\"{v}\"")).ok()) {
        response.headers_mut().insert(header::ETAG, etag);
    }
    Ok(response)
}

#[utoipa::path(put, path = "/api/config/mode", request_body = ModeChange,
    responses((status = 200), (status = 400, description = "refused, nothing applied")))]
pub async fn set_mode(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    JsonBody(req): JsonBody<ModeChange>,
) -> ApiResult<Json<Value>> {
    let changed = panel
        .change(&if_match, |waf| {
            waf.insert("mode".into(), Value::String(req.mode));
        })
        .await?;
    audited(&panel, &who, "mode changed", changed).await
}

#[utoipa::path(put, path = "/api/config/paranoia", request_body = ParanoiaChange,
    responses((status = 200), (status = 400, description = "refused, nothing applied")))]
pub async fn set_paranoia(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    JsonBody(req): JsonBody<ParanoiaChange>,
) -> ApiResult<Json<Value>> {
    let changed = panel
        .change(&if_match, |waf| {
            section(waf, "rules").insert("paranoia_level".into(), json!(req.level));
        })
        .await?;
    audited(&panel, &who, "paranoia level changed", changed).await
}

/// Chooses the rule set: rule directories or a compiled artifact (`waf.rules.directories` / `.artifact`). The rules
/// are loaded before anything is written; a directory or artifact that does not load is refused.
#[utoipa::path(put, path = "/api/config/rules", request_body = RuleSetChange,
    responses((status = 200), (status = 400, description = "refused, nothing applied")))]
pub async fn set_rule_set(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    JsonBody(req): JsonBody<RuleSetChange>,
) -> ApiResult<Json<Value>> {
    let source = match (req.directories.is_empty(), req.artifact) {
        (false, None) => json!(req.directories),
        (true, Some(artifact)) => json!(artifact),
        _ => {
            return Err(ApiError::field(
                "directories",
                "directories: give either rule directories or an artifact",
            ));
        }
    };
    let changed = panel
        .change(&if_match, |waf| {
            let rules = section(waf, "rules");
            rules.remove("directories");
            rules.remove("artifact");
            let key = if source.is_array() {
                "directories"
            } else {
                "artifact"
            };
            rules.insert(key.into(), source);
        })
        .await?;
    audited(&panel, &who, "rule set changed", changed).await
}

/// Adds a domain or changes its upstream, and its certificate and `force_https` when given; the domain's other
/// settings are kept. A new certificate is served at once when HTTPS runs.
#[utoipa::path(put, path = "/api/domains/{host}", request_body = DomainChange,
    params(("host" = String, Path, description = "the host name the domain answers to")),
    responses((status = 200, description = "applied; `restart_required` and `notices` say what awaits a restart"),
        (status = 400, description = "refused (a certificate that does not load, ...), nothing applied")))]
pub async fn put_domain(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    Path(host): Path<String>,
    JsonBody(req): JsonBody<DomainChange>,
) -> ApiResult<Json<Value>> {
    let host = check_host(&host)?;
    if let Some(tls) = &req.tls {
        tls.check()?;
    }
    let changed = panel
        .change(&if_match, |waf| {
            edit_domain(waf, &host, |domain| {
                if let Some(upstream) = req.upstream {
                    domain.remove("upstreams");
                    domain.insert("default_upstream".into(), Value::String(upstream));
                }
                if let Some(tls) = req.tls {
                    tls.store(domain);
                }
                match req.force_https {
                    Some(true) => domain.insert("force_https".into(), json!(true)),
                    Some(false) => domain.remove("force_https"),
                    None => None,
                };
            });
        })
        .await?;
    audited(&panel, &who, "domain set", changed).await
}

/// The listeners and the global self-signed certificate (`waf.server`). The listeners are opened at start: a
/// change of them is saved and answered with `restart_required: true` and the reason.
#[utoipa::path(put, path = "/api/tls", request_body = TlsChange,
    responses((status = 200, description = "saved; `restart_required` and `restart_reasons` say what applies at the next start"),
        (status = 400, description = "refused, nothing applied")))]
pub async fn set_tls(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    JsonBody(req): JsonBody<TlsChange>,
) -> ApiResult<Json<Value>> {
    let changed = panel
        .change(&if_match, |waf| {
            let server = section(waf, "server");
            server.insert("https_enabled".into(), json!(req.https_enabled));
            server.insert("http_port".into(), json!(req.http_port));
            server.insert("https_port".into(), json!(req.https_port));
            section(server, "tls").insert("auto_generate".into(), json!(req.auto_generate));
        })
        .await?;
    audited(&panel, &who, "TLS settings changed", changed).await
}

/// Sets a domain's anomaly threshold, rule exclusions and own rules (`domains.<host>.anomaly_threshold`,
/// `disabled_rules`, `custom_rules`), all three: a field left out is cleared. `PATCH` changes only the fields
/// it carries.
#[utoipa::path(put, path = "/api/domains/{host}/rules", request_body = DomainRulesChange,
    params(("host" = String, Path, description = "the host name of a configured domain"),
        ("If-Match" = Option<String>, Header, description = "the `version` of GET /api/config")),
    responses((status = 200), (status = 400, description = "refused (an unknown rule id, a threshold of 0, a custom rule that does not load), nothing applied"),
        (status = 404, description = "no such domain"), (status = 412, description = "the configuration changed since that version")))]
pub async fn set_domain_rules(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    Path(host): Path<String>,
    JsonBody(req): JsonBody<DomainRulesChange>,
) -> ApiResult<Json<Value>> {
    let patch = DomainRulesPatch {
        anomaly_threshold: Some(req.anomaly_threshold),
        disabled_rules: Some(req.disabled_rules),
        excluded_variables: None,
        profile: None,
        custom_rules: Some(req.custom_rules),
        responses: None,
    };
    change_domain_rules(&panel, &who, &if_match, &host, patch).await
}

/// Changes only the fields of a domain's rules that the body carries; `anomaly_threshold: null` returns the
/// domain to the global threshold. An unknown field is refused (a misspelt one would otherwise change nothing).
#[utoipa::path(patch, path = "/api/domains/{host}/rules", request_body = DomainRulesPatch,
    params(("host" = String, Path, description = "the host name of a configured domain"),
        ("If-Match" = Option<String>, Header, description = "the `version` of GET /api/config")),
    responses((status = 200), (status = 400, description = "refused, nothing applied"),
        (status = 404, description = "no such domain"), (status = 412, description = "the configuration changed since that version")))]
pub async fn patch_domain_rules(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    Path(host): Path<String>,
    JsonBody(patch): JsonBody<DomainRulesPatch>,
) -> ApiResult<Json<Value>> {
    change_domain_rules(&panel, &who, &if_match, &host, patch).await
}

/// Checks a domain's rules as `PATCH` would apply them (the YAML of its own rules loaded and scoped, the ids
/// known), and applies nothing: the UI's "Check" before saving.
#[utoipa::path(post, path = "/api/domains/{host}/rules/check", request_body = DomainRulesPatch,
    params(("host" = String, Path, description = "the host name of a configured domain")),
    responses((status = 200, description = "`{\"ok\": true}`: it would be applied"),
        (status = 400, description = "it would be refused, for the reason given (with its `key`)")))]
pub async fn check_domain_rules(
    State(panel): State<Arc<Panel>>,
    _who: SignedIn,
    Path(host): Path<String>,
    JsonBody(patch): JsonBody<DomainRulesPatch>,
) -> ApiResult<Json<Value>> {
    let host = configured_domain(&panel, &host)?;
    let edit = domain_rules_edit(&host, patch)?;
    panel.check(edit).await?;
    Ok(Json(json!({ "ok": true })))
}

async fn change_domain_rules(
    panel: &Panel,
    who: &SignedIn,
    if_match: &IfMatch,
    host: &str,
    patch: DomainRulesPatch,
) -> ApiResult<Json<Value>> {
    let host = configured_domain(panel, host)?;
    let edit = domain_rules_edit(&host, patch)?;
    let changed = panel.change(if_match, edit).await?;
    audited(panel, who, "domain rules set", changed).await
}

/// The edit of the file's tree that sets the fields of `patch` on the domain `host`.
fn domain_rules_edit(
    host: &str,
    patch: DomainRulesPatch,
) -> ApiResult<impl FnOnce(&mut Map<String, Value>) + use<'_>> {
    let custom_rules = patch
        .custom_rules
        .as_deref()
        .map(parse_custom_rules)
        .transpose()?;
    Ok(move |waf: &mut Map<String, Value>| {
        edit_domain(waf, host, |domain| {
            if let Some(rules) = custom_rules {
                if rules.is_empty() {
                    domain.remove("custom_rules");
                } else {
                    domain.insert("custom_rules".into(), Value::Array(rules));
                }
            }
            match patch.anomaly_threshold {
                Some(Some(threshold)) => {
                    domain.insert("anomaly_threshold".into(), json!(threshold));
                }
                Some(None) => {
                    domain.remove("anomaly_threshold");
                }
                None => {}
            }
            match patch.disabled_rules {
                Some(ids) if ids.is_empty() => {
                    domain.remove("disabled_rules");
                }
                Some(ids) => {
                    domain.insert("disabled_rules".into(), json!(ids));
                }
                None => {}
            }
            match patch.excluded_variables {
                Some(targets) if targets.is_empty() => {
                    domain.remove("excluded_variables");
                }
                Some(targets) => {
                    domain.insert("excluded_variables".into(), json!(targets));
                }
                None => {}
            }
            match patch.profile {
                Some(Some(profile)) => {
                    domain.insert("profile".into(), json!(profile));
                }
                Some(None) => {
                    domain.remove("profile");
                }
                None => {}
            }
            match patch.responses {
                Some(Some(responses)) => {
                    domain.insert("responses".into(), json!(responses));
                }
                Some(None) => {
                    domain.remove("responses");
                }
                None => {}
            }
        });
    })
}

/// Mode, paranoia level, the global anomaly threshold, the rules disabled for every domain, the profile and
/// whether answers are inspected, in one change
/// applied whole or refused whole: a paranoia level refused leaves the mode as it was. Only the fields given
/// change.
#[utoipa::path(patch, path = "/api/config/protection", request_body = ProtectionPatch,
    params(("If-Match" = Option<String>, Header, description = "the `version` of GET /api/config")),
    responses((status = 200), (status = 400, description = "refused, nothing applied"),
        (status = 412, description = "the configuration changed since that version")))]
pub async fn patch_protection(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    JsonBody(req): JsonBody<ProtectionPatch>,
) -> ApiResult<Json<Value>> {
    let changed = panel
        .change(&if_match, |waf| {
            if let Some(mode) = req.mode {
                waf.insert("mode".into(), Value::String(mode));
            }
            let rules = section(waf, "rules");
            if let Some(level) = req.paranoia_level {
                rules.insert("paranoia_level".into(), json!(level));
            }
            if let Some(threshold) = req.anomaly_threshold {
                rules.insert("anomaly_threshold".into(), json!(threshold));
            }
            if let Some(profile) = req.profile {
                rules.insert("profile".into(), json!(profile));
            }
            if let Some(responses) = req.responses {
                rules.insert("responses".into(), json!(responses));
            }
            match req.disabled_rules {
                Some(ids) if ids.is_empty() => {
                    rules.remove("disabled_rules");
                }
                Some(ids) => {
                    rules.insert("disabled_rules".into(), json!(ids));
                }
                None => {}
            }
        })
        .await?;
    audited(&panel, &who, "protection changed", changed).await
}

#[utoipa::path(delete, path = "/api/domains/{host}",
    params(("host" = String, Path, description = "the host name")),
    responses((status = 200), (status = 404, description = "no such domain")))]
pub async fn delete_domain(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    Path(host): Path<String>,
) -> ApiResult<Json<Value>> {
    let host = configured_domain(&panel, &host)?;
    let changed = panel
        .change(&if_match, |waf| {
            take_host(section(waf, "domains"), &host);
        })
        .await?;
    audited(&panel, &who, "domain removed", changed).await
}

#[utoipa::path(put, path = "/api/ip-filter", request_body = IpListsChange,
    responses((status = 200), (status = 400, description = "refused, nothing applied")))]
pub async fn set_ip_lists(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    JsonBody(req): JsonBody<IpListsChange>,
) -> ApiResult<Json<Value>> {
    let changed = panel
        .change(&if_match, |waf| {
            let filter = section(waf, "ip_filter");
            filter.insert("allow".into(), json!(req.allow));
            filter.insert("deny".into(), json!(req.deny));
        })
        .await?;
    audited(&panel, &who, "IP lists changed", changed).await
}

#[utoipa::path(put, path = "/api/rate-limit", request_body = RateLimitChange,
    responses((status = 200), (status = 400, description = "refused, nothing applied")))]
pub async fn set_rate_limit(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    JsonBody(req): JsonBody<RateLimitChange>,
) -> ApiResult<Json<Value>> {
    let changed = panel
        .change(&if_match, |waf| {
            let limit = section(waf, "rate_limit");
            limit.insert("enabled".into(), json!(req.enabled));
            for (key, value) in [
                ("requests", req.requests.map(u64::from)),
                ("window_sec", req.window_sec),
                ("burst", req.burst.map(u64::from)),
            ] {
                if let Some(v) = value {
                    limit.insert(key.into(), json!(v));
                }
            }
        })
        .await?;
    audited(&panel, &who, "rate limit changed", changed).await
}

/// The global GeoIP country filter (`waf.geoip`); the database is opened before anything is applied.
#[utoipa::path(put, path = "/api/geoip", request_body = GeoipChange,
    params(("If-Match" = Option<String>, Header, description = "the `version` of GET /api/config")),
    responses((status = 200), (status = 400, description = "refused, nothing applied"),
        (status = 412, description = "the configuration changed since that version")))]
pub async fn set_geoip(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    if_match: IfMatch,
    JsonBody(req): JsonBody<GeoipChange>,
) -> ApiResult<Json<Value>> {
    let changed = panel
        .change(&if_match, |waf| {
            let geoip = section(waf, "geoip");
            geoip.insert("enabled".into(), json!(req.enabled));
            for (key, value) in [("database", req.database), ("unknown", req.unknown)] {
                match value.filter(|v| !v.is_empty()) {
                    Some(v) => geoip.insert(key.into(), json!(v)),
                    None => geoip.remove(key),
                };
            }
            geoip.insert("allow_countries".into(), json!(req.allow_countries));
            geoip.insert("deny_countries".into(), json!(req.deny_countries));
        })
        .await?;
    audited(&panel, &who, "GeoIP changed", changed).await
}

/// Longest custom rules text: a domain's own rules are a handful, and they are kept in `waf.yml`, which every
/// reload reads.
const MAX_CUSTOM_RULES: usize = 64 * 1024;

/// The rules of a `custom_rules` text, in any shape a rule file may have, as data for the configuration tree
/// (the loader then checks each rule).
fn parse_custom_rules(text: &str) -> ApiResult<Vec<Value>> {
    if text.len() > MAX_CUSTOM_RULES {
        return Err(ApiError::field(
            "custom_rules",
            format!("custom_rules: longer than {MAX_CUSTOM_RULES} bytes"),
        ));
    }
    rule_entries(std::path::Path::new("custom_rules"), text).map_err(|errors| {
        let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        ApiError::field("custom_rules", errors.join("; "))
    })
}

/// A host name as the proxy looks it up (lower case), made only of DNS characters: the panel refuses anything
/// else rather than store a name no request can carry.
fn check_host(host: &str) -> ApiResult<String> {
    let host = host.to_ascii_lowercase();
    let ok = !host.is_empty()
        && host.len() <= MAX_HOST
        && host.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        });
    if ok {
        Ok(host)
    } else {
        Err(ApiError::field(
            "host",
            format!("host: {host:?} is not a host name (letters, digits, '-' and '.')"),
        ))
    }
}

/// Removes the entry for `host` in any case; returns the last one removed.
/// `host` (checked and lower-cased) when it is a domain of the running configuration, else 404.
pub(super) fn configured_domain(panel: &Panel, host: &str) -> ApiResult<String> {
    let host = check_host(host)?;
    if !panel.state.live.load().config.domains.contains_key(&host) {
        return Err(ApiError::not_found(format!("host: no domain {host:?}")).about("host"));
    }
    Ok(host)
}

/// Applies `edit` to the entry of `host` under `waf.domains` (made when missing), keeping its other keys. The file
/// may spell the host in another case: the entry is stored once, under the lower-case name.
pub(super) fn edit_domain(
    waf: &mut Map<String, Value>,
    host: &str,
    edit: impl FnOnce(&mut Map<String, Value>),
) {
    let domains = section(waf, "domains");
    let mut domain = match take_host(domains, host) {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    edit(&mut domain);
    domains.insert(host.to_string(), Value::Object(domain));
}

fn take_host(domains: &mut Map<String, Value>, host: &str) -> Option<Value> {
    let keys: Vec<String> = domains
        .keys()
        .filter(|k| k.eq_ignore_ascii_case(host))
        .cloned()
        .collect();
    keys.iter().filter_map(|k| domains.remove(k)).last()
}

pub(super) async fn audited(
    panel: &Panel,
    who: &SignedIn,
    action: &str,
    changed: Changed,
) -> ApiResult<Json<Value>> {
    panel
        .store
        .audit(
            &who.username,
            &who.client,
            action,
            Some(&changed.before.to_string()),
            Some(&changed.after.to_string()),
        )
        .await?;
    tracing::info!("admin panel: {action} by {:?}", who.username);
    let mut answer = changed.after;
    if let Value::Object(map) = &mut answer {
        map.extend(changed.pending);
        map.insert("version".into(), json!(changed.version));
    }
    Ok(Json(answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_only() {
        assert_eq!(check_host("Shop.Example.COM").unwrap(), "shop.example.com");
        for bad in [
            "",
            "a..b",
            "-a.b",
            "a b",
            "a\nmode: disabled",
            "a:80",
            "*.a",
            "a/b",
        ] {
            assert!(check_host(bad).is_err(), "{bad:?}");
        }
    }
}
