//! Changes made in the panel: validated like the file, applied to the running proxy through the same atomic
//! swap a reload uses (`State::apply_config`, `State::apply_rules`), and written to `waf.yml`.
//!
//! A change edits the file's parsed tree (never its text), so a value typed in the panel is always stored as
//! data: a string holding a newline and `mode: disabled` stays one string (an earlier design spliced text into
//! the YAML). The new tree is serialized, then read back by the very resolver that reads the file at start
//! (`config::resolve`), and its traffic controls and (when their sources changed) its rules are built, all
//! before anything is written or swapped: an invalid change is refused with the resolver's reason and nothing is
//! applied. The file is then replaced atomically (temp file, fsync, rename) after copying the previous version
//! to `waf.yml.bak`. Keys the panel does not manage are kept; comments are not (the YAML library does not keep
//! them), which the backup and the header line of the written file say.
//!
//! A domain's certificate that the change names anew is read and checked (or, `self_signed`, made) as the start
//! does, and after the swap the served certificates follow at once (`State::refresh_certs`), and so do the ACME
//! orders (a domain given ACME is ordered for, one that loses it stops being served its ACME certificate,
//! `tls/acme.rs`). What the running proxy only takes up at a restart (its listeners) is saved like the rest, and
//! the answer says so ([`pending`]).
//!
//! Changes are serialized by a lock, so two admins' changes never interleave between read and write. The
//! reloader then sees the new file and reloads it, which yields the configuration already in force.
//!
//! Lost edits: `GET /api/config` answers the file's version (a hash of its text, also as `ETag`), and a change
//! sent with `If-Match: <version>` is refused with 412 when the file is no longer that version (another admin's
//! change, an edit by hand), so an admin never overwrites what they have not seen. The version is checked under
//! the lock, against the text the change edits.
use super::Panel;
use super::error::ApiError;
use super::settings::DomainTls;
use crate::config::{self, Config, DomainConfig, ServerConfig};
use crate::inspect;
use crate::state::State;
use crate::tls;
use crate::traffic::{Traffic, TrafficError};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

const HEADER: &str = "# Written by the waf admin panel (comments are not kept; the previous version is in waf.yml.bak).\n";

/// What a change did, for the answer and the audit log.
pub struct Changed {
    pub before: Value,
    pub after: Value,
    /// [`pending`] after the change.
    pub pending: Map<String, Value>,
    /// The file's version after the change.
    pub version: String,
}

/// The version of a configuration file's text: 16 hex digits of its SHA-256 (a collision between two versions
/// of one file is not a concern; the hash only has to tell them apart).
pub fn version_of(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..8])
}

/// The versions a request's `If-Match` accepts: `None` without the header (the change applies to whatever is
/// there), else the listed versions (quotes and `W/` taken off; `*` accepts any).
pub struct IfMatch(Option<Vec<String>>);

impl IfMatch {
    fn accepts(&self, version: &str) -> bool {
        self.0
            .as_ref()
            .is_none_or(|listed| listed.iter().any(|v| v == "*" || v == version))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for IfMatch {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let Some(value) = parts.headers.get(header::IF_MATCH) else {
            return Ok(IfMatch(None));
        };
        let text = value.to_str().map_err(|_| {
            ApiError::field("If-Match", "If-Match: not a version from GET /api/config")
        })?;
        let listed = text
            .split(',')
            .map(|v| {
                let v = v.trim();
                let v = v.strip_prefix("W/").unwrap_or(v);
                v.trim_matches('"').to_string()
            })
            .collect();
        Ok(IfMatch(Some(listed)))
    }
}

/// The settings the panel manages, as the API shows them.
pub fn managed(config: &Config) -> Value {
    let domains: Map<String, Value> = config
        .domains
        .iter()
        .map(|(host, d)| {
            let upstream = d.default_upstream.as_ref().map(|u| u.to_string());
            let mut shown = json!({
                "upstream": upstream,
                "tls": DomainTls::of(d),
                "force_https": d.force_https,
                "anomaly_threshold": d.anomaly_threshold,
                "disabled_rules": d.disabled_rules,
                "excluded_variables": d.excluded_variables,
                "profile": d.profile,
                "custom_rules": custom_rules_text(&d.custom_rules),
                // Whether its answers are inspected (its own `responses`, else the global), and its own setting
                // (null: it follows the global), which the domain-rules form edits.
                "responses": config.inspects_responses(host),
                "own_responses": d.responses,
            });
            if let Value::Object(map) = &mut shown {
                map.extend(super::upstreams::managed(d));
            }
            (host.clone(), shown)
        })
        .collect();
    let server = &config.server;
    json!({
        "mode": config.mode,
        "tls": {
            "https_enabled": server.https_enabled,
            "http_port": server.http_port,
            "https_port": server.https_port,
            "auto_generate": server.tls.auto_generate,
        },
        "paranoia_level": config.rules.paranoia_level,
        "anomaly_threshold": config.rules.anomaly_threshold,
        "disabled_rules": config.rules.disabled_rules,
        "profile": config.rules.profile,
        "responses": config.rules.responses,
        "rule_set": {
            "directories": config.rules.directories,
            "artifact": config.rules.artifact,
        },
        "domains": domains,
        "ip_filter": {
            "allow": config.ip_filter.allow.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            "deny": config.ip_filter.deny.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
        },
        "geoip": {
            "enabled": config.geoip.enabled,
            "database": config.geoip.database,
            "allow_countries": config.geoip.allow_countries,
            "deny_countries": config.geoip.deny_countries,
            "unknown": config.geoip.unknown,
        },
        "rate_limit": {
            "enabled": config.rate_limit.enabled,
            "requests": config.rate_limit.requests,
            "window_sec": config.rate_limit.window_sec,
            "burst": config.rate_limit.burst,
        },
    })
}

/// A domain's own rules as the YAML the panel edits ("" when it has none).
fn custom_rules_text(rules: &[Value]) -> String {
    if rules.is_empty() {
        return String::new();
    }
    serde_saphyr::to_string(&json!({ "rules": rules })).unwrap_or_default()
}

/// The object at `key` under `parent`, made (or replaced, when it is not an object) if needed.
pub fn section<'a>(parent: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    let slot = parent
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    match slot {
        Value::Object(map) => map,
        _ => unreachable!("made an object just above"),
    }
}

/// A change validated and built, not yet written or applied.
struct Prepared {
    path: std::path::PathBuf,
    new_text: String,
    new: Config,
    traffic: Traffic,
    rules: Option<crate::inspect::LoadedRules>,
}

impl Panel {
    /// Applies `edit` to the `waf:` mapping of the configuration file, then validates, writes and applies the
    /// result as described above.
    pub async fn change(
        &self,
        if_match: &IfMatch,
        edit: impl FnOnce(&mut Map<String, Value>),
    ) -> Result<Changed, ApiError> {
        let _one_at_a_time = self.edits.lock().await;
        let prepared = self.prepare(if_match, edit).await?;
        self.commit(prepared).await
    }

    /// Whether `edit` would be applied: every check of [`Panel::change`], nothing written or applied.
    pub async fn check(&self, edit: impl FnOnce(&mut Map<String, Value>)) -> Result<(), ApiError> {
        self.prepare(&IfMatch(None), edit).await.map(|_| ())
    }

    async fn prepare(
        &self,
        if_match: &IfMatch,
        edit: impl FnOnce(&mut Map<String, Value>),
    ) -> Result<Prepared, ApiError> {
        let (path, text) = self.config_text().await?;
        let version = version_of(&text);
        if !if_match.accepts(&version) {
            return Err(ApiError {
                key: Some("If-Match".into()),
                ..ApiError::new(
                    StatusCode::PRECONDITION_FAILED,
                    format!(
                        "the configuration changed since you read it (it is version {version} now): nothing was \
                         applied; reload it and make your change again"
                    ),
                )
            });
        }
        let mut tree: Value = if text.trim().is_empty() {
            Value::Null
        } else {
            serde_saphyr::from_str(&text).map_err(|e| {
                ApiError::new(
                    StatusCode::CONFLICT,
                    format!("the configuration file is not valid YAML now: {e}"),
                )
            })?
        };
        if !tree.is_object() {
            tree = Value::Object(Map::new());
        }
        let Value::Object(root) = &mut tree else {
            unreachable!("made an object just above")
        };
        edit(section(root, "waf"));
        let new_text = serde_saphyr::to_string(&tree)
            .map_err(|e| ApiError::internal("serializing the configuration", e))?;
        let new_text = format!("{HEADER}{new_text}");

        let new = config::resolve(&new_text, &path, &|name| std::env::var(name).ok())?;
        let live = self.state.live.load_full();
        let reload_rules = live.config.rule_sources() != new.rule_sources();
        let metrics = self.state.metrics;
        let previous = live.clone();
        let built = tokio::task::spawn_blocking(move || {
            let traffic = Traffic::build(&new, Some(&live.traffic), metrics)?;
            let rules = if reload_rules {
                Some(inspect::load(&new)?)
            } else {
                None
            };
            Ok::<_, Refused>((new, traffic, rules))
        })
        .await
        .map_err(|e| ApiError::internal("building the new configuration", e))?;
        let (new, traffic, rules) = built.map_err(|e| keyed(e.to_string()))?;
        let errors = match &rules {
            Some(rules) => rules.errors.clone(),
            None => inspect::domain_rule_errors(&new, &self.state.rules.load()),
        };
        if let Some(error) = errors.first() {
            return Err(keyed(format!(
                "the rules would not load as configured: {error}"
            )));
        }
        let new = tokio::task::spawn_blocking(move || {
            check_certificates(&previous.config, &new).map(|()| new)
        })
        .await
        .map_err(|e| ApiError::internal("checking the certificates", e))?
        .map_err(|e| keyed(e.to_string()))?;
        Ok(Prepared {
            path,
            new_text,
            new,
            traffic,
            rules,
        })
    }

    async fn commit(&self, prepared: Prepared) -> Result<Changed, ApiError> {
        let Prepared {
            path,
            new_text,
            new,
            traffic,
            rules,
        } = prepared;
        write_atomically(&path, &new_text)
            .map_err(|e| ApiError::internal("writing the configuration file", e))?;
        let before = managed(&self.state.live.load().config);
        let after = managed(&new);
        let pending = pending(&self.state, &new);
        self.state.apply_config(new, traffic);
        if let Some(rules) = rules {
            self.state.apply_rules(rules);
        }
        // Reading and parsing certificate files: off the control runtime's event loop.
        let state = self.state.clone();
        tokio::task::spawn_blocking(move || state.refresh_certs())
            .await
            .map_err(|e| ApiError::internal("loading the certificates", e))?;
        Ok(Changed {
            before,
            after,
            pending,
            version: version_of(&new_text),
        })
    }

    /// The configuration file's path and text.
    async fn config_text(&self) -> Result<(std::path::PathBuf, String), ApiError> {
        let path = self.state.config_path.clone().ok_or_else(|| {
            ApiError::new(
                StatusCode::CONFLICT,
                "the proxy runs without a configuration file: there is nowhere to save a change",
            )
        })?;
        let text = tokio::fs::read_to_string(&path)
            .await
            .map_err(|e| ApiError::internal("reading the configuration file", e))?;
        Ok((path, text))
    }

    /// The configuration file's version now (`None` without a file: nothing can change it through the panel).
    pub async fn config_version(&self) -> Result<Option<String>, ApiError> {
        if self.state.config_path.is_none() {
            return Ok(None);
        }
        Ok(Some(version_of(&self.config_text().await?.1)))
    }
}

/// A refusal whose reason names a configuration key (`waf.domains.a.test.disabled_rules: no loaded rule has id
/// 4242`, after any lead-in ending in `: `), with that key.
fn keyed(message: String) -> ApiError {
    let key = message
        .match_indices("waf.")
        .map(|(at, _)| &message[at..])
        .find_map(|rest| {
            let (key, _) = rest.split_once(": ")?;
            (!key.contains(' ')).then(|| key.to_string())
        });
    match key {
        Some(key) => ApiError::field(key, message),
        None => ApiError::bad_request(message),
    }
}

/// The certificates `new` names that `old` did not (a domain added with one, or given another): each must load as
/// at start, or the change is refused naming the domain.
fn check_certificates(old: &Config, new: &Config) -> Result<(), Refused> {
    let certificate = |d: &DomainConfig| (d.cert_file.clone(), d.key_file.clone(), d.self_signed);
    for (name, domain) in &new.domains {
        if old.domains.get(name).map(certificate) != Some(certificate(domain)) {
            tls::check_domain(new, name).map_err(|source| Refused::Certificate {
                domain: name.clone(),
                source: Box::new(source),
            })?;
        }
    }
    Ok(())
}

/// Why a changed configuration cannot be put in force; the message names the key or file at fault (see
/// [`keyed`]).
#[derive(Debug, thiserror::Error)]
enum Refused {
    #[error(transparent)]
    Traffic(#[from] TrafficError),
    #[error(transparent)]
    Rules(#[from] inspect::RulesError),
    #[error("waf.domains.{domain}: {source}")]
    Certificate {
        domain: String,
        // Boxed: the certificate errors are large, the usual outcome is `Ok`.
        source: Box<tls::DomainCertError>,
    },
}

/// What `saved` (the configuration in force and in `waf.yml`) asks for that the running proxy does not do until it
/// restarts, and other things an admin should know about it, one sentence each:
/// `{restart_required, restart_reasons: [...], notices: [...]}`.
pub fn pending(state: &State, saved: &Config) -> Map<String, Value> {
    let started = &state.started;
    let (was, now) = (&started.server, &saved.server);
    let mut reasons = Vec::new();
    for (key, was, now) in [
        (
            "http_enabled",
            was.http_enabled.to_string(),
            now.http_enabled.to_string(),
        ),
        (
            "http_port",
            was.http_port.to_string(),
            now.http_port.to_string(),
        ),
        (
            "https_enabled",
            was.https_enabled.to_string(),
            now.https_enabled.to_string(),
        ),
        (
            "https_port",
            was.https_port.to_string(),
            now.https_port.to_string(),
        ),
    ] {
        if was != now {
            reasons.push(format!(
                "waf.server.{key} is {now} in waf.yml but {was} in the running proxy: listeners are opened at \
                 start, restart the proxy to apply it"
            ));
        }
    }
    // Everything else under `server` but the certificates (`tls`, followed live) and the connection limits (read
    // at each accept) is read at start too.
    let rest = |s: &ServerConfig| ServerConfig {
        max_connections: now.max_connections,
        max_connections_per_client: now.max_connections_per_client,
        http_enabled: now.http_enabled,
        http_port: now.http_port,
        https_enabled: now.https_enabled,
        https_port: now.https_port,
        tls: now.tls.clone(),
        ..s.clone()
    };
    if rest(was) != rest(now) {
        reasons.push(
            "other waf.server settings differ from the running proxy's: they are read at start, restart the \
             proxy to apply them"
                .to_string(),
        );
    }
    let mut notices = Vec::new();
    let with_tls: Vec<&str> = saved
        .domains
        .iter()
        .filter(|(_, d)| DomainTls::of(d) != DomainTls::None)
        .map(|(n, _)| n.as_str())
        .collect();
    if !saved.server.https_enabled && !with_tls.is_empty() {
        notices.push(format!(
            "HTTPS is off (waf.server.https_enabled: false): the certificates of {with_tls:?} are saved and \
             served once HTTPS is on"
        ));
    }
    let mut answer = Map::new();
    answer.insert("restart_required".into(), json!(!reasons.is_empty()));
    answer.insert("restart_reasons".into(), json!(reasons));
    answer.insert("notices".into(), json!(notices));
    answer
}

/// Keeps the current file as `NAME.bak`, then replaces the file by a complete new one: a reader (the reloader,
/// an operator, a crash) sees the old file or the new one, never half of one.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the configuration path has no file name"))?
        .to_string_lossy()
        .into_owned();
    let backup = path.with_file_name(format!("{name}.bak"));
    std::fs::copy(path, &backup)?;
    let tmp = path.with_file_name(format!(".{name}.admin-tmp"));
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    // Same permissions as the file it replaces (it may hold a Redis URL with a password).
    std::fs::set_permissions(&tmp, std::fs::metadata(path)?.permissions())?;
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever a field holds, it goes into the file as one scalar and comes back as the same string.
    #[test]
    fn strings_are_stored_as_data() {
        for nasty in [
            "a\n  mode: disabled",
            "x: y",
            "'quoted' \"double\"",
            "- item",
            "&anchor *alias",
            "# comment",
            "{flow: map}",
            "line\r\nbreak\ttab\u{0}nul",
            "null",
            "true",
            "12",
        ] {
            let tree = json!({ "waf": { "domains": { nasty: { "default_upstream": nasty } } } });
            let text = serde_saphyr::to_string(&tree).unwrap();
            let back: Value = serde_saphyr::from_str(&text).unwrap();
            assert_eq!(back, tree, "{nasty:?} became:\n{text}");
        }
    }

    /// The panel shows, per domain, whether its answers are inspected: its own `responses`, else the global.
    #[test]
    fn managed_settings_show_response_inspection() {
        let text = "waf:\n  rules: {responses: false}\n  domains:\n    a.test: {responses: true}\n    b.test: {}\n";
        let config =
            crate::config::resolve(text, std::path::Path::new("waf.yml"), &|_| None).unwrap();
        let shown = managed(&config);
        assert_eq!(shown["responses"], false);
        assert_eq!(shown["domains"]["a.test"]["responses"], true);
        assert_eq!(shown["domains"]["b.test"]["responses"], false);
        assert_eq!(shown["domains"]["a.test"]["own_responses"], true);
        assert!(shown["domains"]["b.test"]["own_responses"].is_null());
    }

    #[test]
    fn refusals_name_their_key() {
        let e = keyed("the rules would not load as configured: waf.domains.a.test.disabled_rules: no loaded rule has id 4242".into());
        assert_eq!(e.key.as_deref(), Some("waf.domains.a.test.disabled_rules"));
        assert_eq!(keyed("no key here: at all".into()).key, None);
    }

    #[test]
    fn if_match_accepts_the_listed_versions() {
        let listed = |v: &[&str]| IfMatch(Some(v.iter().map(|s| s.to_string()).collect()));
        assert!(IfMatch(None).accepts("abc"));
        assert!(listed(&["abc"]).accepts("abc"));
        assert!(listed(&["*"]).accepts("abc"));
        assert!(!listed(&["abd"]).accepts("abc"));
    }

    #[test]
    fn section_replaces_a_scalar_by_a_mapping() {
        let mut root = Map::new();
        root.insert("waf".into(), json!("text"));
        section(&mut root, "waf").insert("mode".into(), json!("observe"));
        assert_eq!(Value::Object(root), json!({"waf": {"mode": "observe"}}));
    }
}
