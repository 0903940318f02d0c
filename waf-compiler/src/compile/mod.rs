//! Compilation: validated [`Rule`]s become [`CompiledRule`]s, ready to evaluate.
//!
//! Everything that can fail about a rule beyond its YAML shape fails here, at load time, with the field named:
//! a regex that does not compile, a chain that reads a capture group the regex lacks, a key selector regex.
//! Transform lists are normalised and interned, so rules with the same chain share one id, and evaluation
//! computes each chain once per value. Every prefix of a chain is interned too, with a link to its parent (the
//! chain minus its last transform): evaluation builds a chain's value from its longest cached prefix, so chains
//! sharing a prefix share that work, and `multi_match` rules read every intermediate value from the same cache.
//!
//! Each regex's engine comes from a [`RegexSource`]: built from the pattern by an
//! [`EnginePlan`](crate::regex_engine::EnginePlan) (meta engine, or dense DFAs within a budget), or taken ready-made
//! from an artifact ([`artifact`](crate::ruleset::artifact)); the model ([`crate::rule`]) and evaluation ([`crate::evaluate`]) only see
//! [`Matcher`] and the chain ids. Nothing here imports [`crate::evaluate`]: compilation builds, evaluation runs
//! what was built.
//!
//! The stage, file by file: [`load`] (scan, parse, errors, over the model of [`crate::rule`]) → this module
//! (each rule's [`operator`](crate::operator)s, regexes with their [`regex_engine`](crate::regex_engine),
//! transform chains) → [`prefilter`] (the build side of the Aho-Corasick literal scans) → the shared
//! [`CompiledRuleSet`](crate::CompiledRuleSet) ([`crate::ruleset`]), also written to and read from an
//! [`artifact`](crate::ruleset::artifact) file.

pub mod load;
pub mod phase;
pub mod prefilter;

use crate::operator::check::Check;
use crate::operator::{Condition, Matcher};
use crate::regex_engine::{RegexEngine, RegexSource};
use crate::regex_engine::{RegexError, RegexFactory};
use crate::rule::{
    Action, Confirm, MAX_PARANOIA_LEVEL, OperatorKind, Phase, Rule, SettingCondition, Transform,
    Variable, VariableSpec,
};
use crate::transform::{Triggers, UnicodeMap, effective_chain};
use std::collections::BTreeMap;

/// How a rule set is compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileOptions {
    /// Rules with a higher `paranoia_level` are loaded and validated but do not run. Default 1.
    pub paranoia_level: u8,
    /// The Unicode map `url_decode_uni` uses. Default: code page 20127, as a standard ModSecurity deployment
    /// (see [`crate::transform::unicode_map`]).
    pub unicode_map: UnicodeMap,
    /// Values of the settings rules name in their `setting` field (CRS's 901 defaults such as
    /// `allowed_methods`), by name; a rule whose setting is not given keeps its own `pattern`.
    pub settings: BTreeMap<String, String>,
    /// Values for settings that `settings` does not give, used only by the rules that read them (the site
    /// policy, [`crate::policy`]): unlike `settings`, a value no loaded rule reads is not an error.
    pub default_settings: BTreeMap<String, String>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            paranoia_level: 1,
            unicode_map: UnicodeMap::default(),
            settings: BTreeMap::new(),
            default_settings: BTreeMap::new(),
        }
    }
}

/// A compile error in one field of a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// A key filter of a variable (`names` / `exclude` entry).
#[derive(Debug)]
enum KeyMatcher {
    Exact(Vec<u8>),
    Regex(RegexEngine),
}

/// A variable with its key filters.
#[derive(Debug)]
pub struct Selector {
    pub variable: Variable,
    /// The rule sees how many values are selected instead of the values.
    pub count: bool,
    names: Vec<KeyMatcher>,
    exclude: Vec<KeyMatcher>,
}

impl Selector {
    fn new(spec: &VariableSpec, regexes: &mut RegexFactory<'_>) -> Result<Selector, RegexError> {
        // Header names are case-insensitive in HTTP, so a key regex on a header variable is too.
        let flags = if spec.variable.case_insensitive_keys() {
            "(?i)"
        } else {
            ""
        };
        let mut compile = |entries: &[String]| {
            entries
                .iter()
                .map(
                    |e| match e.strip_prefix('/').and_then(|r| r.strip_suffix('/')) {
                        Some(re) if e.len() >= 2 => {
                            regexes(&format!("{flags}{re}")).map(KeyMatcher::Regex)
                        }
                        _ => Ok(KeyMatcher::Exact(e.as_bytes().to_vec())),
                    },
                )
                .collect::<Result<Vec<_>, RegexError>>()
        };
        let mut names = compile(&spec.names)?;
        if spec.variable == Variable::Xml && names.is_empty() {
            // `XML` alone means the document text (`XML:/*`); attributes need `names: ["@*"]`.
            names.push(KeyMatcher::Exact(b"/*".to_vec()));
        }
        Ok(Selector {
            variable: spec.variable,
            count: spec.count,
            names,
            exclude: compile(&spec.exclude)?,
        })
    }

    /// The regexes of the key filters, in the order compilation asked for them.
    fn regexes(&self) -> impl Iterator<Item = &RegexEngine> {
        self.names
            .iter()
            .chain(&self.exclude)
            .filter_map(|m| match m {
                KeyMatcher::Regex(re) => Some(re),
                KeyMatcher::Exact(_) => None,
            })
    }

    /// Whether the value with this key is selected.
    pub fn accepts(&self, key: &[u8]) -> bool {
        let fold = self.variable.case_insensitive_keys();
        let hit = |m: &KeyMatcher| match m {
            KeyMatcher::Exact(k) if fold => k.eq_ignore_ascii_case(key),
            KeyMatcher::Exact(k) => k == key,
            KeyMatcher::Regex(re) => re.is_match(key),
        };
        (self.names.is_empty() || self.names.iter().any(hit)) && !self.exclude.iter().any(hit)
    }
}

/// A rule ready to evaluate.
#[derive(Debug)]
pub struct CompiledRule {
    pub rule: Rule,
    pub selectors: Vec<Selector>,
    /// Index of the rule's effective transform chain in [`Chains`].
    pub chain: usize,
    /// The chain ids whose values the operator sees, in order: `[chain]`, or for a `multi_match` rule every
    /// prefix of the chain, from the raw value (id 0) to the full chain.
    pub stages: Vec<usize>,
    pub matcher: Matcher,
    pub conditions: Vec<Condition>,
    /// Whether the matcher must resolve capture groups (some condition reads them).
    pub needs_captures: bool,
    /// Whether a value's outcome depends on the value alone, not on the rest of the request (no condition reads
    /// another variable or a header): only then may a non-match be remembered for the value's bytes.
    pub value_only: bool,
    /// The file the rule came from, relative to its rule directory (the admin panel lists it); set by the loader.
    pub file: String,
    /// Whether the rule's setting conditions (`when`) hold for the settings it was compiled with: a rule whose
    /// conditions do not hold never runs.
    pub enabled: bool,
    /// The parser that confirms the rule's hits before they score: the rule's `confirm`, else its family tag's
    /// ([`Confirm::for_tags`]); `None` for `confirm: none` and for rules that do not add to the score.
    pub confirm: Option<Confirm>,
}

/// The distinct transform chains of a rule set and all their prefixes; index 0 is the empty chain. With them, the
/// Unicode map their `url_decode_uni` uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chains {
    unicode_map: UnicodeMap,
    chains: Vec<Vec<Transform>>,
    /// `parents[id]`: the id of `chains[id]` without its last transform (0 for the empty chain).
    parents: Vec<usize>,
    /// `acted_on[id]`: the triggers some transform of `chains[id]` acts on.
    acted_on: Vec<Triggers>,
}

/// A stored transform chain that does not come where interning the chains in order puts it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("transform chain {0} is out of order")]
pub struct ChainOutOfOrder(pub usize);

impl Chains {
    /// Only the empty chain, with `unicode_map`.
    pub fn new(unicode_map: UnicodeMap) -> Chains {
        Chains {
            unicode_map,
            chains: vec![Vec::new()],
            parents: vec![0],
            acted_on: vec![Triggers::default()],
        }
    }

    /// The Unicode map `url_decode_uni` uses in these chains.
    pub fn unicode_map(&self) -> UnicodeMap {
        self.unicode_map
    }

    /// The id of `chain`, interning it and (first) each of its prefixes.
    fn intern(&mut self, chain: &[Transform]) -> usize {
        let Some((_, prefix)) = chain.split_last() else {
            return 0;
        };
        if let Some(i) = self.chains.iter().position(|c| c == chain) {
            return i;
        }
        let parent = self.intern(prefix);
        self.chains.push(chain.to_vec());
        self.parents.push(parent);
        self.acted_on.push(Triggers::acted_on_by(chain));
        self.chains.len() - 1
    }

    /// The triggers some transform of chain `id` acts on: a value without any of them is its own value under
    /// the chain.
    pub fn acted_on(&self, id: usize) -> Triggers {
        self.acted_on.get(id).copied().unwrap_or(Triggers::ALL)
    }

    /// The chains with the ids they had when stored (`list[id]`), for the artifact loader. Refused unless
    /// interning them in order gives back the same ids (the empty chain first, each chain after its prefixes).
    pub fn from_list(
        list: &[Vec<Transform>],
        unicode_map: UnicodeMap,
    ) -> Result<Chains, ChainOutOfOrder> {
        let mut chains = Chains::new(unicode_map);
        for (id, chain) in list.iter().enumerate() {
            if chains.intern(chain) != id || chains.len() != id + 1 {
                return Err(ChainOutOfOrder(id));
            }
        }
        Ok(chains)
    }

    /// Every chain, by id.
    pub fn all(&self) -> &[Vec<Transform>] {
        &self.chains
    }

    pub fn get(&self, id: usize) -> &[Transform] {
        self.chains.get(id).map_or(&[], Vec::as_slice)
    }

    /// How chain `id` is built: its parent's id and the transform applied to the parent's value; `None` for the
    /// empty chain.
    pub fn step(&self, id: usize) -> Option<(usize, Transform)> {
        let last = *self.get(id).last()?;
        Some((self.parents.get(id).copied().unwrap_or(0), last))
    }

    /// The ids of every prefix of chain `id`, shortest (the empty chain, id 0) first, `id` last.
    fn prefixes(&self, id: usize) -> Vec<usize> {
        let mut ids = vec![id];
        let mut current = id;
        while let Some((parent, _)) = self.step(current) {
            ids.push(parent);
            current = parent;
        }
        ids.reverse();
        ids
    }

    pub fn len(&self) -> usize {
        self.chains.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chains.is_empty()
    }
}

impl CompiledRule {
    /// Whether the rule runs at `paranoia_level`: its level is not above it and its setting conditions hold.
    pub fn runs_at(&self, paranoia_level: u8) -> bool {
        self.enabled && self.rule.paranoia_level <= paranoia_level
    }

    /// Whether this is the blocking evaluation (`operator: anomaly_threshold`), which reads no value: it is
    /// reported when the anomaly score reaches the threshold ([`crate::evaluate::verdict::Verdict::settle`]).
    pub fn is_score_rule(&self) -> bool {
        matches!(
            self.rule.operator,
            OperatorKind::AnomalyThreshold | OperatorKind::AnomalyReport
        )
    }

    /// Every regex of the rule, in the order [`compile_rule`] asked its [`RegexSource`] for them (key filters,
    /// the operator, chain conditions): the artifact stores them in this order.
    pub fn regexes(&self) -> Vec<&RegexEngine> {
        let mut all: Vec<&RegexEngine> =
            self.selectors.iter().flat_map(Selector::regexes).collect();
        if let Matcher::Regex(re) = &self.matcher {
            all.push(re);
        }
        all.extend(self.conditions.iter().filter_map(Condition::regex));
        all
    }
}

/// A host name (or an IPv4 address, or an IPv6 address in brackets) as a `Host` header carries it without its
/// port: what a rule's `hosts` may list. Anything else could never equal a request's host, so it is refused
/// rather than silently never applying.
fn is_host_name(host: &str) -> bool {
    if let Some(ipv6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return ipv6.parse::<std::net::Ipv6Addr>().is_ok();
    }
    !host.is_empty()
        && host.len() <= 253
        && host.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// Compiles one rule, interning its transform chain into `chains` and taking each regex's engine from
/// `regexes`. Errors name the field; every part is checked, so one load reports all of a rule's errors.
pub fn compile_rule(
    rule: &Rule,
    chains: &mut Chains,
    regexes: &mut dyn RegexSource,
) -> Result<CompiledRule, Vec<FieldError>> {
    let level = rule.paranoia_level;
    let regexes = &mut |pattern: &str| regexes.regex(pattern, level);
    let score_rule = matches!(
        rule.operator,
        OperatorKind::AnomalyThreshold | OperatorKind::AnomalyReport
    );
    let mut errors = check_fields(rule, score_rule);
    let mut selectors = Vec::new();
    for (i, spec) in rule.variables.iter().enumerate() {
        match Selector::new(spec, regexes) {
            Ok(s) => selectors.push(s),
            Err(e) => errors.push(FieldError::new(format!("variables[{i}]"), e.to_string())),
        }
    }
    let mut enabled = true;
    for (i, condition) in rule.when.iter().enumerate() {
        match setting_condition_holds(condition) {
            Ok(holds) => enabled &= holds,
            Err((field, e)) => errors.push(FieldError::new(format!("when[{i}].{field}"), e)),
        }
    }
    let matcher = rule_matcher(rule, score_rule, regexes, &mut errors);
    let conditions = chain_conditions(rule, matcher.as_ref(), regexes, &mut errors);
    match matcher {
        Some(matcher) if errors.is_empty() => {
            let chain = chains.intern(&effective_chain(&rule.transforms));
            let stages = if rule.multi_match {
                chains.prefixes(chain)
            } else {
                vec![chain]
            };
            Ok(CompiledRule {
                needs_captures: conditions.iter().any(Condition::needs_captures),
                value_only: !conditions.iter().any(Condition::reads_request),
                enabled,
                rule: rule.clone(),
                selectors,
                chain,
                stages,
                matcher,
                conditions,
                file: String::new(),
                confirm: match rule.confirm.or_else(|| Confirm::for_tags(&rule.tags)) {
                    Some(Confirm::None) => None,
                    // The confirmers judge what a client sent; a response is the application's own output.
                    _ if rule.phase != Phase::Request => None,
                    kind if rule.action == Action::Block => kind,
                    _ => None,
                },
            })
        }
        _ => Err(errors),
    }
}

/// The checks of the rule's own fields: its paranoia level, that it reads variables (or, a score rule, none),
/// its hosts and its phase.
fn check_fields(rule: &Rule, score_rule: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if rule.paranoia_level == 0 || rule.paranoia_level > MAX_PARANOIA_LEVEL {
        errors.push(FieldError::new(
            "paranoia_level",
            format!(
                "must be 1 to {MAX_PARANOIA_LEVEL}, not {}",
                rule.paranoia_level
            ),
        ));
    }
    if score_rule && !(rule.variables.is_empty() && rule.chain.is_empty()) {
        errors.push(FieldError::new(
            "variables",
            format!(
                "operator `{}` reads no variable and has no chain (`variables: []`)",
                rule.operator.name()
            ),
        ));
    } else if rule.variables.is_empty() && !score_rule {
        errors.push(FieldError::new(
            "variables",
            "must list at least one variable",
        ));
    }
    for (i, host) in rule.hosts.iter().enumerate() {
        if !is_host_name(host) {
            errors.push(FieldError::new(
                format!("hosts[{i}]"),
                format!("{host:?} is not a host name (letters, digits, '-' and '.', no port)"),
            ));
        }
    }
    errors.extend(phase::check(rule));
    errors
}

/// The rule's operator, built from its pattern; `None` (with the error recorded) when it cannot be.
fn rule_matcher(
    rule: &Rule,
    score_rule: bool,
    regexes: &mut RegexFactory<'_>,
    errors: &mut Vec<FieldError>,
) -> Option<Matcher> {
    match score_rule {
        // Never run on a value: the rule reads none.
        true if rule.pattern.is_none() => Some(Matcher::Check(Check::Unconditional)),
        true => {
            errors.push(FieldError::new(
                "pattern",
                "operator `anomaly_threshold` takes no pattern (use null)",
            ));
            None
        }
        false => Matcher::new(
            rule.operator,
            rule.pattern.as_deref(),
            &rule.phrases,
            regexes,
        )
        .map_err(|e| errors.push(FieldError::new("pattern", e.to_string())))
        .ok(),
    }
}

/// The rule's chain conditions, in order; each may read the capture groups of the last regex before it (the
/// rule's, or an earlier condition's).
fn chain_conditions(
    rule: &Rule,
    matcher: Option<&Matcher>,
    regexes: &mut RegexFactory<'_>,
    errors: &mut Vec<FieldError>,
) -> Vec<Condition> {
    let mut groups = match matcher {
        Some(m @ Matcher::Regex(_)) => m.group_count(),
        _ => 0,
    };
    let mut conditions = Vec::new();
    for (i, c) in rule.chain.iter().enumerate() {
        match Condition::new(
            c.target.clone(),
            c.operator,
            &c.pattern,
            &c.transforms,
            c.negate,
            groups,
            regexes,
        ) {
            Ok(cond) => {
                // Conditions after a regex on another variable read that match's groups.
                if let Some(n) = cond.capture_groups() {
                    groups = n;
                }
                conditions.push(cond)
            }
            Err(e) => errors.push(FieldError::new(
                format!("chain[{i}].{}", e.field),
                e.error.to_string(),
            )),
        }
    }
    conditions
}

/// Whether a setting condition holds for the value it carries (the configured value, put in place of the
/// default when the rules were compiled); the error names the field.
fn setting_condition_holds(condition: &SettingCondition) -> Result<bool, (&'static str, String)> {
    let check = Check::new(condition.operator, condition.pattern.as_deref())
        .ok_or_else(|| {
            (
                "operator",
                "a setting condition takes an operator that is not a search (`equals`, `within`, `eq`, `gt`, ...)"
                    .to_string(),
            )
        })?
        .map_err(|e| ("pattern", e.to_string()))?;
    if condition.operator.takes_pattern()
        && condition.operator != OperatorKind::Unconditional
        && condition.pattern.is_none()
    {
        return Err(("pattern", "the operator needs a pattern".to_string()));
    }
    let value = match (condition.count, &condition.default) {
        (true, value) => Some(if value.is_some() { "1" } else { "0" }),
        (false, value) => value.as_deref(),
    };
    Ok(value.is_some_and(|value| check.find(value.as_bytes()).is_some() != condition.negate))
}
