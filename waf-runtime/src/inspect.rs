//! The seam between the proxy and the rule engine: loading a rule set from the configured sources, and asking it
//! about one request. The proxy never sees a regex; it gets findings back and decides (in `pipeline.rs`).
use crate::config::{Config, InspectionPolicy};
use http::Version;
use http::request::Parts;
use std::path::{Path, PathBuf};
use waf_compiler::{
    Action, ArtifactError, Coding, CompileOptions, CompiledRule, CompiledRuleSet, HttpRequest,
    HttpResponse, SourceError, SourceFile, UnicodeMap, UnknownCodePage, Verdict, read_dirs,
};

/// A rule set as loaded, with the files that could not be loaded (skipped, the rest in force).
pub struct LoadedRules {
    set: CompiledRuleSet,
    /// What every answered request asks, known at load: the rule set's walk of its thousands of rules for them
    /// was a tenth of a small request's instructions (`benches/instructions.sh`).
    correlation_ids: Vec<u64>,
    response_rules: bool,
    /// The methods the rules allow (`allowed_methods` in force), which the site policy weighs a method
    /// override against: known at load, as the rules carry it.
    allowed_methods: Option<String>,
    pub errors: Vec<String>,
    /// Where the rules came from (`artifact PATH` or `directories A, B`), for `/health` and logs.
    pub source: String,
}

/// One rule that matched a request.
pub struct Finding {
    pub rule_id: u64,
    pub msg: String,
    pub severity: String,
    /// A `deny` rule, or a `block` rule of a request whose anomaly score reached the threshold: in enforce mode
    /// it blocks.
    pub blocks: bool,
    /// What this match adds to the request's anomaly score (`RuleMatch::score`).
    pub score: u32,
    pub variable: String,
    /// The matched part of the value, already escaped and bounded by the engine.
    pub excerpt: String,
}

impl LoadedRules {
    pub fn count(&self) -> usize {
        self.set.rule_count()
    }

    /// The rules in force (the admin panel lists them).
    pub fn rules(&self) -> impl Iterator<Item = &CompiledRule> {
        self.set.rules()
    }

    pub fn hash(&self) -> String {
        self.set.source_hash().to_string()
    }

    /// Evaluates one request (its head and the inspected part of its body, decoded when it is compressed in a
    /// coding the engine undoes). `target` is the request target as
    /// the client sent it (see `request_target.rs`); the domain's `policy` weighs the matches by its profile, the
    /// matches of its `excluded` rules (its `disabled_rules`) do not count, and `block` rules block once the
    /// others' anomaly scores add up to its `anomaly_threshold`.
    pub fn inspect(
        &self,
        parts: &Parts,
        target: &str,
        body: &[u8],
        policy: InspectionPolicy<'_>,
    ) -> Vec<Finding> {
        let InspectionPolicy {
            anomaly_threshold,
            excluded,
            excluded_variables,
            profile,
            body_limit,
        } = policy;
        let mut headers: Vec<(&str, &[u8])> = parts
            .headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_bytes()))
            .collect();
        // HTTP/2 names the host in `:authority`, not in a Host header: the rules see it as the Host header, as
        // they do behind nginx (and rules scoped to hosts find it).
        if !parts.headers.contains_key(http::header::HOST)
            && let Some(authority) = parts.uri.authority()
        {
            headers.push(("host", authority.as_str().as_bytes()));
        }
        let decoded = Coding::undo(&headers, body, body_limit);
        let body = decoded
            .as_ref()
            .map_or(body, |(_, decoded)| decoded.as_slice());
        let request = HttpRequest {
            method: parts.method.as_str(),
            uri: target,
            version: version_name(parts.version),
            headers: &headers,
            body,
        };
        let mut verdict = self.set.evaluate_excluding(&request, excluded_variables);
        profile.weigh(
            &mut verdict,
            &request,
            decoded.as_ref().map(|&(coding, _)| coding),
            self.allowed_methods.as_deref(),
        );
        findings(verdict, excluded, anomaly_threshold)
    }

    /// The correlation rules (CRS 980170) that report a transaction that scored `inbound` on its request and
    /// `outbound` on its answer; none when neither scored or no such rule is in force.
    pub fn correlate(&self, inbound: u32, outbound: u32) -> &[u64] {
        match inbound.saturating_add(outbound) {
            0 => &[],
            _ => &self.correlation_ids,
        }
    }

    /// Whether any response rule runs: without one, answers are not inspected at all.
    pub fn has_response_rules(&self) -> bool {
        self.response_rules
    }

    /// `set` with what is asked of it per request worked out once.
    fn new(set: CompiledRuleSet, errors: Vec<String>, source: String) -> LoadedRules {
        let mut loaded = LoadedRules {
            set,
            correlation_ids: Vec::new(),
            response_rules: false,
            allowed_methods: None,
            errors,
            source,
        };
        loaded.work_out();
        loaded
    }

    /// What every request asks of the rule set, from the rules in force.
    fn work_out(&mut self) {
        self.correlation_ids = self
            .set
            .correlation_rule_ids()
            .into_iter()
            .map(u64::from)
            .collect();
        self.response_rules = self.set.has_response_rules();
        self.allowed_methods = self
            .set
            .setting(waf_compiler::ALLOWED_METHODS_SETTING)
            .map(str::to_owned);
    }

    /// Takes the rules with these ids out (`rules.disabled_rules`), and works out again what follows from the
    /// rules in force (a correlation rule or the rule that enforces the allowed methods may be among them).
    /// Returns the ids that matched no loaded rule.
    fn disable_rules(&mut self, ids: &[u32]) -> Vec<u32> {
        let unknown = self.set.disable_rules(ids);
        self.work_out();
        unknown
    }

    /// Evaluates the upstream's answer to a request for `host` (`method` and `target` as the client sent
    /// them) with the response rules: its status and headers, and `body` when it is inspected (decompressed,
    /// up to the response body limit). The domain's `excluded` rules do not count; `block` rules block once
    /// the outbound anomaly score reaches CRS's outbound threshold.
    pub fn inspect_response(
        &self,
        (method, target, host): (&str, &str, &str),
        head: &http::response::Parts,
        body: Option<&[u8]>,
        excluded: &[u32],
    ) -> Vec<Finding> {
        // The response rules read the response; the request is there for rules scoped to hosts.
        let request_headers: [(&str, &[u8]); 1] = [("host", host.as_bytes())];
        let request = HttpRequest {
            method,
            uri: target,
            version: "HTTP/1.1",
            headers: &request_headers,
            body: b"",
        };
        let headers: Vec<(&str, &[u8])> = head
            .headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_bytes()))
            .collect();
        let response = HttpResponse {
            status: head.status.as_u16(),
            version: version_name(head.version),
            headers: &headers,
            body,
        };
        let verdict = self.set.evaluate_response(&request, &response);
        findings(
            verdict,
            excluded,
            waf_compiler::DEFAULT_OUTBOUND_ANOMALY_THRESHOLD,
        )
    }
}

/// The matches of `verdict` that count for the domain (not its `excluded` rules), settled at `threshold`.
fn findings(mut verdict: Verdict, excluded: &[u32], threshold: u32) -> Vec<Finding> {
    if !excluded.is_empty() {
        verdict
            .matches
            .retain(|m| excluded.binary_search(&m.rule_id).is_err());
    }
    let score_blocks = verdict.anomaly_score() >= threshold;
    // The blocking evaluation's rule (CRS 949110, 959100) is logged when the score blocks, as ModSecurity logs
    // it; unless the domain disabled it too.
    verdict
        .score_rules
        .retain(|m| excluded.binary_search(&m.rule_id).is_err());
    verdict.settle(threshold);
    verdict
        .matches
        .into_iter()
        .map(|m| Finding {
            rule_id: u64::from(m.rule_id),
            score: m.score(),
            severity: m
                .severity
                .map_or_else(|| "-".to_string(), |s| s.to_string()),
            blocks: m.action == Action::Deny || (m.action == Action::Block && score_blocks),
            msg: m.msg,
            variable: m.variable,
            excerpt: m.value_excerpt,
        })
        .collect()
}

fn version_name(v: Version) -> &'static str {
    match v {
        Version::HTTP_09 => "HTTP/0.9",
        Version::HTTP_10 => "HTTP/1.0",
        Version::HTTP_2 => "HTTP/2.0",
        Version::HTTP_3 => "HTTP/3.0",
        _ => "HTTP/1.1",
    }
}

/// Why no rule set could be loaded at all (the rules in force then stay).
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error(transparent)]
    UnicodeMap(#[from] UnknownCodePage),
    #[error("rule directory {} does not exist", .0.display())]
    NoDirectory(PathBuf),
    #[error("artifact {}: {source}", path.display())]
    Artifact {
        path: PathBuf,
        source: ArtifactError,
    },
    #[error(
        "artifact {} was compiled with Unicode map {compiled}, but waf.rules.unicode_code_page is {configured}: \
         recompile it with `rulec compile --unicode-code-page {}` or change the setting",
        path.display(),
        configured.code_page().map_or_else(|| "none".to_owned(), |n| n.to_string())
    )]
    ArtifactUnicodeMap {
        path: PathBuf,
        compiled: UnicodeMap,
        configured: UnicodeMap,
    },
    #[error(
        "artifact {} was compiled at paranoia level {compiled}, but waf.rules.paranoia_level is {configured}: \
         recompile it with `rulec compile --paranoia {configured}` or change the setting",
        path.display()
    )]
    ArtifactParanoiaLevel {
        path: PathBuf,
        compiled: u8,
        configured: u8,
    },
}

/// Loads the rule sources the configuration names. Blocking (reads files, compiles): run it off the async
/// workers. A broken file is reported in `errors` and skipped; only a state in which nothing can be loaded at all
/// is an `Err`, and then the previous rule set stays in force.
pub fn load(config: &Config) -> Result<LoadedRules, RulesError> {
    let sources = config.rule_sources();
    let unicode_map = UnicodeMap::for_code_page(sources.unicode_code_page)?;
    let opts = CompileOptions {
        paranoia_level: sources.paranoia_level,
        unicode_map,
        settings: sources.crs_settings.clone(),
        // The site policy (waf_compiler::site_settings) for the settings `crs_settings` does not give.
        default_settings: waf_compiler::site_settings(),
    };
    let mut loaded = match sources.artifact {
        Some(path) => load_artifact(path, &opts)?,
        None => load_dirs(sources.directories, &sources.domain_custom_rules, &opts)?,
    };
    loaded.set.set_value_memo(sources.remember_values);
    loaded.set.set_confirm(sources.confirm);
    let unknown = loaded.disable_rules(sources.disabled_rules);
    if !unknown.is_empty() {
        loaded.errors.push(format!(
            "waf.rules.disabled_rules: no loaded rule has id {}",
            id_list(&unknown)
        ));
    }
    let mut unknown_domain_rules = domain_rule_errors(config, &loaded);
    loaded.errors.append(&mut unknown_domain_rules);
    if !sources.disabled_rules.is_empty() {
        loaded.source = format!(
            "{} without rules {}",
            loaded.source,
            id_list(sources.disabled_rules)
        );
    }
    Ok(loaded)
}

/// The domains' `disabled_rules` and `excluded_variables` that name no rule of `rules`, as load errors. They only filter matches, so a
/// change of them is checked against the rules in force instead of loading the rules again.
pub fn domain_rule_errors(config: &Config, rules: &LoadedRules) -> Vec<String> {
    config
        .domains
        .iter()
        .flat_map(|(domain, d)| {
            let unknown = |ids: &mut dyn Iterator<Item = u32>, key: &str| {
                let unknown: Vec<u32> = ids.filter(|&id| !rules.set.has_rule(id)).collect();
                (!unknown.is_empty()).then(|| {
                    format!(
                        "waf.domains.{domain}.{key}: no loaded rule has id {}",
                        id_list(&unknown)
                    )
                })
            };
            [
                unknown(&mut d.disabled_rules.iter().copied(), "disabled_rules"),
                unknown(
                    &mut d.excluded_variables.iter().map(|t| t.rule_id),
                    "excluded_variables",
                ),
            ]
        })
        .flatten()
        .collect()
}

/// `1, 2, 3`: rule ids as messages list them.
fn id_list(ids: &[u32]) -> String {
    let ids: Vec<String> = ids.iter().map(u32::to_string).collect();
    ids.join(", ")
}

/// Compiles the rule directories together with each domain's own rules (already scoped to the domain by the
/// configuration), which errors name by their configuration key.
fn load_dirs(
    dirs: &[PathBuf],
    domain_rules: &[(&str, &[serde_json::Value])],
    opts: &CompileOptions,
) -> Result<LoadedRules, RulesError> {
    for dir in dirs {
        if !dir.is_dir() {
            return Err(RulesError::NoDirectory(dir.clone()));
        }
    }
    let (mut files, mut errors) = read_dirs(dirs);
    for (host, rules) in domain_rules {
        let name = PathBuf::from(format!("waf.domains.{host}.custom_rules"));
        let scoped: Vec<serde_json::Value> = rules
            .iter()
            .map(|rule| {
                let mut rule = rule.clone();
                if let Some(map) = rule.as_object_mut() {
                    map.insert("hosts".into(), serde_json::json!([host]));
                }
                rule
            })
            .collect();
        files.push(SourceFile {
            relative: name.clone(),
            path: name,
            // JSON is YAML: the loader reads it like any rule file.
            text: serde_json::to_string(&serde_json::json!({ "rules": scoped }))
                .map_err(|e| SourceError::Unwritable(e.into())),
        });
    }
    let mut outcome = CompiledRuleSet::from_sources(&files, opts);
    errors.append(&mut outcome.errors);
    let mut names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    if !domain_rules.is_empty() {
        names.push(format!(
            "the custom rules of {} domains",
            domain_rules.len()
        ));
    }
    Ok(LoadedRules::new(
        outcome.ruleset,
        errors.iter().map(|e| e.to_string()).collect(),
        format!("directories {}", names.join(", ")),
    ))
}

/// Loads a compiled artifact: all or nothing (a refused artifact keeps the rules in force). Its paranoia level
/// and Unicode map are baked in at compile time, so one that differs from the configured setting is refused
/// rather than run in a way the operator did not ask for.
fn load_artifact(path: &Path, opts: &CompileOptions) -> Result<LoadedRules, RulesError> {
    let paranoia_level = opts.paranoia_level;
    let set = CompiledRuleSet::from_artifact_file(path).map_err(|source| RulesError::Artifact {
        path: path.to_owned(),
        source,
    })?;
    let compiled_with = set.chains().unicode_map();
    if compiled_with != opts.unicode_map {
        return Err(RulesError::ArtifactUnicodeMap {
            path: path.to_owned(),
            compiled: compiled_with,
            configured: opts.unicode_map,
        });
    }
    if set.paranoia_level() != paranoia_level {
        return Err(RulesError::ArtifactParanoiaLevel {
            path: path.to_owned(),
            compiled: set.paranoia_level(),
            configured: paranoia_level,
        });
    }
    Ok(LoadedRules::new(
        set,
        Vec::new(),
        format!("artifact {}", path.display()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use waf_compiler::Profile;

    /// A domain's own rule runs for its requests only, whether the host comes in a Host header (HTTP/1.1) or
    /// only in the request target (HTTP/2's `:authority`).
    #[test]
    fn a_domains_custom_rule_applies_to_its_host_only() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            "waf:\n  rules: {{directories: ['{}']}}\n  domains:\n    shop.test:\n      custom_rules:\n        \
             - {{id: 7, msg: probe, pattern: probe, variables: [ARGS], action: deny}}\n",
            dir.path().display()
        );
        let config = crate::config::resolve(&text, Path::new("waf.yml"), &|_| None).unwrap();
        let rules = load(&config).unwrap();
        assert!(rules.errors.is_empty(), "{:?}", rules.errors);
        let ids = |uri: &str, host: Option<&str>, version: Version| {
            let mut builder = http::Request::get(uri).version(version);
            if let Some(host) = host {
                builder = builder.header("host", host);
            }
            let (parts, ()) = builder.body(()).unwrap().into_parts();
            let target = parts.uri.path_and_query().unwrap().as_str().to_owned();
            let findings = rules.inspect(
                &parts,
                &target,
                b"",
                InspectionPolicy {
                    anomaly_threshold: 5,
                    excluded: &[],
                    excluded_variables: Default::default(),
                    profile: Profile::Web,
                    body_limit: waf_compiler::DEFAULT_BODY_LIMIT,
                },
            );
            findings.iter().map(|f| f.rule_id).collect::<Vec<_>>()
        };
        assert_eq!(ids("/?q=probe", Some("shop.test"), Version::HTTP_11), [7]);
        assert_eq!(
            ids("/?q=probe", Some("Shop.Test:8443"), Version::HTTP_11),
            [7]
        );
        assert_eq!(
            ids("/?q=probe", Some("other.test"), Version::HTTP_11),
            [0u64; 0]
        );
        assert_eq!(
            ids("https://shop.test/?q=probe", None, Version::HTTP_2),
            [7]
        );
        assert_eq!(
            ids("https://other.test/?q=probe", None, Version::HTTP_2),
            [0u64; 0]
        );
    }
}
