//! Maps parsed ModSecurity rules onto our rule model ([`crate::rule`], `docs/rule-format.md`).
//!
//! The mapping is a table, not heuristics: every collection, transform, operator and action the
//! converter knows is listed below with what it becomes. Whatever is not in a table becomes a
//! [`Warning`] naming the rule and the construct, and is written as a comment above the rule in the
//! output, so a conversion can lose fidelity only visibly.
//!
//! Four CRS conventions are interpreted rather than copied:
//! - **Paranoia levels** are not a rule attribute in CRS: a gate rule
//!   `SecRule TX:DETECTION_PARANOIA_LEVEL "@lt N" "...,skipAfter:END-..."` skips every later rule
//!   when the configured level is below N. The converter tracks the last gate and gives each rule
//!   its level; the `paranoia-level/N` tag is cross-checked.
//! - **Anomaly scoring** is kept, by severity: a CRS `block` rule becomes a `block` rule, which adds its
//!   severity's score ([`crate::rule::Severity::anomaly_score`], CRS's defaults) to the request's anomaly
//!   score; a rule whose own `setvar:tx.*_score=+...` differs from its severity's is reported. CRS's blocking
//!   evaluation (949110) becomes an `anomaly_threshold` rule: the engine keeps the score and the threshold
//!   (`rules.anomaly_threshold`) itself (see "Blocking" in the rule format). The outbound evaluation (959100)
//!   becomes a `phase: response` one, settled against the outbound threshold.
//! - **Phases**: ModSecurity's phases 1 and 2 are our `request` phase, 3 and 4 (the response's head and body)
//!   our `response` phase, and 5 `logging`. CRS's switch for the whole response analysis (950021: `SecRule
//!   TX:crs_skip_response_analysis "@eq 1" "...,skipAfter:END-RESPONSE-959-BLOCKING-EVALUATION"`, which skips
//!   every response rule of 950 to 959) becomes a `when` on that setting in each response rule.
//! - **Correlation**: CRS's report of the transaction's scores (980170, a phase 5 `SecAction` reached through
//!   the reporting-level skips 980041-980051) becomes an `anomaly_report` rule of the `logging` phase, reported
//!   when the transaction scored, which is what those skips select at CRS's default reporting level (4).

use super::secrule::{Directive, Operator, SecRule, Selector, Variable as SecVariable};
use crate::compile::{Chains, compile_rule};
use crate::regex_engine::{EnginePlan, Planner};
use crate::rule::{
    Action, ChainCondition, ChainTarget, OperatorKind, Phase, Rule, SettingCondition, Severity,
    Transform, Variable, VariableSpec,
};
use crate::transform::UnicodeMap;

/// A rule in our model (the engine's serde types), with what the converter could not express for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvertedRule {
    pub rule: Rule,
    pub warnings: Vec<String>,
}

/// A problem that concerns the file rather than one converted rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub line: usize,
    pub rule_id: Option<u32>,
    pub message: String,
}

/// The converted rules of one file, in file order, and the file-level warnings.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    pub rules: Vec<ConvertedRule>,
    /// The CRS release the rules carry in their `ver` action, e.g. `OWASP_CRS/4.29.0-dev`.
    pub version: Option<String>,
    pub warnings: Vec<Warning>,
}

/// The CRS variable that holds the configured paranoia level in gate rules.
const PARANOIA_GATE_VARIABLE: &str = "TX:DETECTION_PARANOIA_LEVEL";

/// Reads the `.data` file of that name: its text, or why it cannot be read.
pub type DataFileReader<'a> = &'a dyn Fn(&str) -> Result<String, DataFileError>;

/// Why the `.data` file `@pmFromFile` names cannot be read (the rule is converted with the phrases of the
/// others, and the reason is a warning).
#[derive(Debug, thiserror::Error)]
pub enum DataFileError {
    /// A data file is named, never a path: a rule file cannot make the importer read elsewhere.
    #[error("not a plain file name")]
    NotAPlainName,
    #[error("no data directory given")]
    NoDirectory,
    #[error("cannot read {}: {source}", .path.display())]
    Unreadable {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

/// What a conversion may read besides the rule file: the `.data` files of `@pmFromFile`, and the values of
/// CRS's transaction variables that operators refer to (`%{tx.allowed_methods}`), from 901's defaults.
#[derive(Default)]
pub struct Context<'a> {
    /// The text of a `.data` file named by `@pmFromFile`, or why it cannot be read.
    pub data_file: Option<DataFileReader<'a>>,
    /// Lowercased variable name (`allowed_methods`) to value.
    pub tx_defaults: std::collections::BTreeMap<String, String>,
    /// The CRS settings among them: the lowercased names 901 sets only when `crs-setup.conf` has not
    /// (`SecRule &TX:allowed_methods "@eq 0" "...,setvar:'tx.allowed_methods=...'"`). A rule condition on one
    /// of them is decided when the rules are compiled (the rule's `when`).
    pub settings: std::collections::BTreeSet<String>,
}

/// The settings of a CRS initialization file (901): the transaction variables a rule sets only when they are
/// unset (`SecRule &TX:NAME "@eq 0"`), which is how 901 gives `crs-setup.conf`'s settings their defaults.
pub fn crs_settings(directives: &[Directive]) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for directive in directives {
        let Directive::Rule(rule) = directive else {
            continue;
        };
        let [variable] = rule.variables.as_slice() else {
            continue;
        };
        let gated = match (&variable.selector, variable.count) {
            (Some(Selector::Key(name)), true) if variable.collection == "TX" => name,
            _ => continue,
        };
        if rule.operator.name != "eq"
            || rule.operator.negated
            || rule.operator.argument.trim() != "0"
        {
            continue;
        }
        let gated = gated.to_ascii_lowercase();
        let sets_it = rule.values("setvar").any(|setvar| {
            setvar
                .split_once('=')
                .and_then(|(name, _)| name.strip_prefix("tx.").or(name.strip_prefix("TX.")))
                .is_some_and(|name| name.eq_ignore_ascii_case(&gated))
        });
        if sets_it {
            out.insert(gated);
        }
    }
    out
}

/// Every `setvar` of the file's rules and of the rules chained to them, as written (`tx.NAME=VALUE`, `!tx.NAME`).
fn setvars(directives: &[Directive]) -> impl Iterator<Item = &str> {
    directives
        .iter()
        .filter_map(|directive| match directive {
            Directive::Rule(rule) => Some(rule),
            _ => None,
        })
        .flat_map(|rule| std::iter::successors(Some(rule), |current| current.chained.as_deref()))
        .flat_map(|rule| rule.values("setvar"))
}

/// The name of a transaction variable in a `setvar` target (`tx.NAME` / `TX.NAME`), lower-cased.
fn tx_name(target: &str) -> Option<String> {
    target
        .strip_prefix("tx.")
        .or(target.strip_prefix("TX."))
        .map(str::to_ascii_lowercase)
}

/// The defaults a CRS initialization file (901) gives transaction variables: each
/// `setvar:'tx.NAME=VALUE'` with a literal value, on a rule that sets it only when it is unset.
pub fn tx_defaults(directives: &[Directive]) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for setvar in setvars(directives) {
        if let Some((target, value)) = setvar.split_once('=')
            && let Some(name) = tx_name(target)
            && !value.starts_with('+')
            && !value.contains("%{")
        {
            out.entry(name).or_insert_with(|| value.to_string());
        }
    }
    out
}

/// Converts every detection rule of a parsed file, with nothing to read besides it.
pub fn convert(directives: &[Directive]) -> Converted {
    convert_with(directives, &Context::default())
}

/// Converts every detection rule of a parsed file.
pub fn convert_with(directives: &[Directive], context: &Context<'_>) -> Converted {
    let mut out = Converted {
        rules: Vec::new(),
        version: None,
        warnings: Vec::new(),
    };
    // CRS runs rules placed before any gate at every level, i.e. at level 1.
    let mut paranoia_level = 1u8;
    let mut file = FileFacts {
        tx_set: tx_set_in(directives),
        setters: Vec::new(),
    };
    for directive in directives {
        let Some(rule) = rule_of(directive, &mut out) else {
            continue;
        };
        if let Some(level) = paranoia_gate(rule) {
            paranoia_level = level;
            continue;
        }
        let Some((id, msg)) = detection(rule, paranoia_level, &mut file, &mut out.warnings) else {
            continue;
        };
        note_version(rule, id, &mut out);
        let (converted, links) =
            convert_rule(rule, id, msg.to_string(), paranoia_level, context, &file);
        match unusable(links, &converted.rule) {
            None => out.rules.push(converted),
            Some(why) => out.warnings.extend(
                converted
                    .warnings
                    .into_iter()
                    .chain([format!("{why}: not converted")])
                    .map(|message| Warning {
                        line: rule.line,
                        rule_id: Some(id),
                        message,
                    }),
            ),
        }
    }
    out
}

/// The `SecRule` of a directive; a `SecAction` is converted here (CRS's correlation report) or warned about,
/// as is any other directive.
fn rule_of<'d>(directive: &'d Directive, out: &mut Converted) -> Option<&'d SecRule> {
    match directive {
        Directive::Rule(rule) => Some(rule),
        Directive::Marker { .. } => None,
        Directive::Action(action) => {
            match correlation_rule(action) {
                Some(converted) => out.rules.push(converted),
                None => out.warnings.push(Warning {
                    line: action.line,
                    rule_id: None,
                    message: "directive `SecAction` has no equivalent: not converted".to_string(),
                }),
            }
            None
        }
        Directive::Other { name, line } => {
            out.warnings.push(Warning {
                line: *line,
                rule_id: None,
                message: format!("directive `{name}` has no equivalent: not converted"),
            });
            None
        }
    }
}

/// The id and `msg` of a detection rule; None, with the warning saying why, for any other rule (one that sets
/// variables for later rules is kept in `file` for them).
fn detection<'r>(
    rule: &'r SecRule,
    paranoia_level: u8,
    file: &mut FileFacts,
    warnings: &mut Vec<Warning>,
) -> Option<(u32, &'r str)> {
    let id = rule.value("id").and_then(|v| v.parse::<u32>().ok());
    if let Some(message) = interpreted_skip(rule) {
        warnings.push(Warning {
            line: rule.line,
            rule_id: id,
            message,
        });
        return None;
    }
    let (Some(id), Some(msg)) = (id, rule.value("msg")) else {
        if rule.chained.is_none() && !captured_variables(rule).is_empty() {
            // Sets transaction variables from its matches for later rules to read (922150 for 922110).
            file.setters.push((rule.clone(), paranoia_level));
        }
        warnings.push(Warning {
            line: rule.line,
            rule_id: id,
            message: "not a detection rule (no numeric `id` or no `msg`): not converted"
                .to_string(),
        });
        return None;
    };
    if rule.has("pass") && rule.has("nolog") {
        warnings.push(Warning {
            line: rule.line,
            rule_id: Some(id),
            message: "`pass` and `nolog`: not a detection rule (what it does, e.g. `ctl:`, has no equivalent): not converted"
                .to_string(),
        });
        return None;
    }
    Some((id, msg))
}

/// Records the CRS version the rules carry (`ver`), and warns when a rule's differs from the earlier ones'.
fn note_version(rule: &SecRule, id: u32, out: &mut Converted) {
    let Some(ver) = rule.value("ver") else {
        return;
    };
    match &out.version {
        None => out.version = Some(ver.to_string()),
        Some(seen) if seen != ver => out.warnings.push(Warning {
            line: rule.line,
            rule_id: Some(id),
            message: format!("`ver:{ver}` differs from `{seen}` of earlier rules"),
        }),
        Some(_) => {}
    }
}

/// Why a converted rule must not be written, if it must not: what it lost would make it match more than the
/// CRS rule (a dropped chain condition), or it cannot run (no variable left, no phrase, a field the engine
/// refuses). Dropping such a rule loses detection, visibly; writing it would add false positives, or make the
/// whole file fail to load.
fn unusable(links: usize, rule: &Rule) -> Option<String> {
    if rule.chain.len() < links {
        return Some("a chained condition could not be expressed".to_string());
    }
    if rule.variables.is_empty() && rule.operator != OperatorKind::AnomalyThreshold {
        return Some("no variable left to inspect".to_string());
    }
    if rule.operator == OperatorKind::Pm && rule.phrases.is_empty() {
        return Some("no phrases to match".to_string());
    }
    let mut planner = Planner {
        plan: EnginePlan::Lazy,
        paranoia_level: 0,
    };
    compile_rule(rule, &mut Chains::new(UnicodeMap::default()), &mut planner)
        .err()
        .map(|errors| {
            let errors: Vec<String> = errors
                .iter()
                .map(|e| format!("field `{}`: {}", e.field, e.message))
                .collect();
            format!("the engine refuses it ({})", errors.join("; "))
        })
}

/// The level N of a `TX:DETECTION_PARANOIA_LEVEL "@lt N" "...skipAfter:..."` gate.
fn paranoia_gate(rule: &SecRule) -> Option<u8> {
    let [variable] = rule.variables.as_slice() else {
        return None;
    };
    let name = match &variable.selector {
        Some(Selector::Key(key)) => format!("{}:{key}", variable.collection),
        _ => return None,
    };
    let is_gate = name.eq_ignore_ascii_case(PARANOIA_GATE_VARIABLE)
        && rule.operator.name == "lt"
        && !rule.operator.negated
        && rule.has("skipAfter");
    is_gate.then(|| rule.operator.argument.trim().parse().ok())?
}

/// What the converter knows of the whole file being converted.
struct FileFacts {
    /// The lowercased names of the transaction variables some rule of the file sets (`setvar:tx.NAME=...`); a
    /// macro in a name (`tx.x_%{tx.0}`) is kept as written.
    tx_set: std::collections::BTreeSet<String>,
    /// The rules without `msg` before the current one that set transaction variables from their matches, with
    /// their paranoia levels.
    setters: Vec<(SecRule, u8)>,
}

/// The names of the transaction variables the file's rules set.
fn tx_set_in(directives: &[Directive]) -> std::collections::BTreeSet<String> {
    setvars(directives)
        .filter_map(|setvar| tx_name(setvar.split_once('=').map_or(setvar, |(target, _)| target)))
        .collect()
}

/// A rule of a chain on a CRS setting (`SecRule TX:crs_validate_utf8_encoding "@eq 1"`, `SecRule
/// &TX:MAX_NUM_ARGS "@eq 1"`: the setting is set) as a condition decided at compile time. A count may read a
/// setting `crs-setup.conf` documents without a 901 default: a variable no rule of the file sets.
fn setting_condition(
    link: &SecRule,
    context: &Context<'_>,
    file: &FileFacts,
) -> Option<SettingCondition> {
    let [variable] = link.variables.as_slice() else {
        return None;
    };
    let Some(Selector::Key(name)) = &variable.selector else {
        return None;
    };
    let name = name.to_ascii_lowercase();
    let is_setting = context.settings.contains(&name)
        || (variable.count
            && !context.tx_defaults.contains_key(&name)
            && !file.tx_set.contains(&name));
    if variable.collection != "TX" || variable.exclude || !is_setting {
        return None;
    }
    let op = &link.operator;
    let operator = OperatorKind::from_modsecurity(&op.name).filter(|k| k.compares_settings())?;
    let plain = !op.argument.contains("%{")
        && !link.has("capture")
        && link.values("t").all(|t| t == "none");
    plain.then(|| SettingCondition {
        default: context.tx_defaults.get(&name).cloned(),
        setting: name,
        count: variable.count,
        operator,
        pattern: Some(op.argument.trim().to_string()),
        negate: op.negated,
    })
}

/// Whether an operator argument holds a macro of a request variable (`%{ARGS._method}`), which only the
/// request gives a value: such a rule cannot head a chain (a rule's pattern is fixed).
fn has_request_macro(argument: &str) -> bool {
    argument.split("%{").skip(1).any(|macro_text| {
        !macro_text
            .split(['.', '}'])
            .next()
            .is_some_and(|collection| collection.eq_ignore_ascii_case("tx"))
    })
}

/// Whether the rules of a chain are independent conditions, which may be checked in any order: none captures,
/// and none reads what another matched or set.
fn reorderable(links: &[&SecRule]) -> bool {
    links.iter().all(|link| {
        !link.has("capture")
            && link.variables.iter().all(|v| {
                !matches!(
                    v.collection.as_str(),
                    "TX" | "MATCHED_VAR" | "MATCHED_VARS" | "MATCHED_VAR_NAME"
                )
            })
    })
}

/// The rule converted, and how many chain conditions it must have (one per rule of the chain after the
/// rule it starts with, the setting conditions aside).
fn convert_rule(
    rule: &SecRule,
    id: u32,
    msg: String,
    paranoia_level: u8,
    context: &Context<'_>,
    file: &FileFacts,
) -> (ConvertedRule, usize) {
    let mut warnings = Vec::new();
    let (tags, severity) = tags_and_severity(rule, paranoia_level, &mut warnings);
    // The rules of the chain: those on settings become `when`, decided at compile time.
    let all: Vec<&SecRule> = std::iter::successors(Some(rule), |r| r.chained.as_deref()).collect();
    let Links {
        mut when,
        head,
        conditions,
        level,
    } = links(&all, paranoia_level, context, file);
    let blocking_evaluation = is_blocking_evaluation(head);
    let main = match blocking_evaluation {
        true => MainOperator {
            kind: OperatorKind::AnomalyThreshold,
            pattern: None,
            setting: None,
            phrases: Vec::new(),
        },
        false => main_operator(head, context, &when, &mut warnings),
    };
    let category = tags
        .iter()
        .find_map(|t| t.strip_prefix("attack-"))
        .map(str::to_string);
    let mut converted = Rule {
        id,
        msg,
        name: None,
        category,
        severity,
        tags,
        paranoia_level: level,
        operator: main.kind,
        pattern: main.pattern,
        setting: main.setting,
        phrases: main.phrases,
        negate: head.operator.negated && !blocking_evaluation,
        variables: match blocking_evaluation {
            true => Vec::new(),
            false => variables(&head.variables, &mut warnings),
        },
        transforms: transforms(head, &mut warnings),
        multi_match: head.has("multiMatch"),
        action: disruptive_action(rule, &mut warnings),
        chain: Vec::new(),
        hosts: Vec::new(),
        when: Vec::new(),
        confirm: None,
        phase: phase(rule),
    };
    check_actions(rule, true, &mut warnings);
    for link in &all[1..] {
        check_actions(link, false, &mut warnings);
    }
    let captured = captured_variables(head);
    for link in &conditions {
        if let Some(condition) =
            chain_condition(link, (context, &when), &captured, file, &mut warnings)
        {
            converted.chain.push(condition);
        }
    }
    if converted.phase == Phase::Response
        && let Some(condition) = response_analysis_condition(context)
    {
        when.push(condition);
    }
    converted.when = when;
    (
        ConvertedRule {
            rule: converted,
            warnings,
        },
        conditions.len(),
    )
}

/// The rule's tags and severity, with a warning where they disagree with what the rule does (its
/// paranoia-level gate, its own anomaly score).
fn tags_and_severity(
    rule: &SecRule,
    paranoia_level: u8,
    warnings: &mut Vec<String>,
) -> (Vec<String>, Option<Severity>) {
    let tags: Vec<String> = rule.values("tag").map(str::to_string).collect();
    for tag in &tags {
        if let Some(level) = tag.strip_prefix("paranoia-level/")
            && level != paranoia_level.to_string()
        {
            warnings.push(format!(
                "tag `{tag}` disagrees with the paranoia-level gate before the rule ({paranoia_level}); the gate wins, as in ModSecurity"
            ));
        }
    }
    let severity = rule.value("severity").and_then(|s| {
        let mapped = severity(s);
        if mapped.is_none() {
            warnings.push(format!("severity `{s}` has no equivalent: dropped"));
        }
        mapped
    });
    let own_score = own_anomaly_score(rule);
    if rule.has("block")
        && let Some(own) = own_score
        && own != severity.unwrap_or(Severity::Critical).anomaly_score()
    {
        warnings.push(format!(
            "the rule adds {own} to the anomaly score, which its severity does not give: it scores by its severity"
        ));
    }
    (tags, severity)
}

/// A ModSecurity chain sorted out: the settings it is decided on, the rule whose operator heads the converted
/// rule, the rules that become its chain conditions, and its paranoia level.
struct Links<'a> {
    when: Vec<SettingCondition>,
    head: &'a SecRule,
    conditions: Vec<&'a SecRule>,
    level: u8,
}

/// Sorts out the rules of a chain (`all`, the first one heading it in ModSecurity).
fn links<'a>(
    all: &[&'a SecRule],
    paranoia_level: u8,
    context: &Context<'_>,
    file: &'a FileFacts,
) -> Links<'a> {
    let mut when = Vec::new();
    let mut links: Vec<&SecRule> = Vec::new();
    for link in all {
        match setting_condition(link, context, file) {
            Some(condition) => when.push(condition),
            None => links.push(link),
        }
    }
    if links.is_empty() {
        // Settings alone: nothing of the request to inspect; reported as such.
        links.push(all[0]);
        when.clear();
    }
    // A rule whose argument only the request gives cannot head the chain: another rule of it can, when the
    // rules are independent conditions.
    if has_request_macro(&links[0].operator.argument)
        && reorderable(&links)
        && let Some(at) = links
            .iter()
            .position(|l| !has_request_macro(&l.operator.argument))
    {
        let head = links.remove(at);
        links.insert(0, head);
    }
    // A rule reading the transaction variables an earlier rule (without `msg`) set from each of its matches
    // (922150's `tx.multipart_headers_content_types_%{...}=%{tx.1}`, then 922110's
    // `TX:/MULTIPART_HEADERS_CONTENT_TYPES_*/`): that rule's match heads the chain, and the reading rule is a
    // condition on the variable of each match.
    let mut level = paranoia_level;
    let mut head: &SecRule = links[0];
    let mut conditions: Vec<&SecRule> = links[1..].to_vec();
    if let Some((setter, setter_level)) = reads_setter(head, file) {
        conditions.insert(0, head);
        head = setter;
        level = level.max(setter_level);
    }
    Links {
        when,
        head,
        conditions,
        level,
    }
}

/// Whether the rule is CRS's blocking evaluation (949110): the inbound anomaly score against the threshold,
/// `SecRule TX:BLOCKING_INBOUND_ANOMALY_SCORE "@ge %{tx.inbound_anomaly_score_threshold}"`. Our engine keeps
/// the score and the threshold (`rules.anomaly_threshold`) itself: the rule becomes `operator:
/// anomaly_threshold`, reported when the score blocks.
///
/// The outbound evaluation (959100: `TX:BLOCKING_OUTBOUND_ANOMALY_SCORE "@ge
/// %{tx.outbound_anomaly_score_threshold}"`) has the same shape; the rule's phase tells them apart.
fn is_blocking_evaluation(rule: &SecRule) -> bool {
    let [variable] = rule.variables.as_slice() else {
        return false;
    };
    ["inbound", "outbound"].into_iter().any(|side| {
        let reads_score = matches!(&variable.selector, Some(Selector::Key(key))
            if variable.collection == "TX"
                && key.eq_ignore_ascii_case(&format!("blocking_{side}_anomaly_score")));
        reads_score
            && !variable.count
            && !variable.exclude
            && rule.operator.name == "ge"
            && !rule.operator.negated
            && rule
                .operator
                .argument
                .trim()
                .eq_ignore_ascii_case(&format!("%{{tx.{side}_anomaly_score_threshold}}"))
    })
}

/// The CRS setting that turns the whole response analysis off (950021).
const SKIP_RESPONSE_SETTING: &str = "crs_skip_response_analysis";

/// What the converter makes of a CRS skip that is not a paranoia gate but one of the response analysis's, which
/// it reports as interpreted: the switch of the whole analysis (950021), and the skip of 950's body rules on
/// a compressed body (950010: `RESPONSE_HEADERS:Content-Encoding "@pm gzip compress deflate br zstd"`).
fn interpreted_skip(rule: &SecRule) -> Option<String> {
    let [variable] = rule.variables.as_slice() else {
        return None;
    };
    if !rule.has("skipAfter") || rule.chained.is_some() {
        return None;
    }
    let Some(Selector::Key(key)) = &variable.selector else {
        return None;
    };
    if variable.collection == "TX" && key.eq_ignore_ascii_case(SKIP_RESPONSE_SETTING) {
        return Some(format!(
            "skips every response rule when `{SKIP_RESPONSE_SETTING}` is 1: interpreted as a `when` of each response rule"
        ));
    }
    if variable.collection == "RESPONSE_HEADERS" && key.eq_ignore_ascii_case("Content-Encoding") {
        return Some(
            "skips the body rules of this file on a compressed body, which ModSecurity cannot read: not converted, since the proxy inspects the body decompressed (gzip, deflate, br; any other coding is not inspected)"
                .to_string(),
        );
    }
    None
}

/// The phase of a ModSecurity `phase:N` action: 1 and 2 the request, 3 and 4 the response, 5 logging (CRS
/// writes no other form; a rule without one runs in phase 2).
fn phase(rule: &SecRule) -> Phase {
    match rule.value("phase").map(str::trim) {
        Some("3" | "4" | "response") => Phase::Response,
        Some("5" | "logging") => Phase::Logging,
        _ => Phase::Request,
    }
}

/// The `when` of a response rule: the response analysis is not switched off (950021), when the CRS files
/// give the setting (901's default is 0).
fn response_analysis_condition(context: &Context<'_>) -> Option<SettingCondition> {
    context
        .settings
        .contains(SKIP_RESPONSE_SETTING)
        .then(|| SettingCondition {
            setting: SKIP_RESPONSE_SETTING.to_string(),
            default: context.tx_defaults.get(SKIP_RESPONSE_SETTING).cloned(),
            count: false,
            operator: OperatorKind::Eq,
            pattern: Some("1".to_string()),
            negate: true,
        })
}

/// CRS's correlation report (980170): a phase 5 `SecAction` with an id and a message becomes a `logging`
/// rule with `operator: anomaly_report`. Any other `SecAction` (initialization) has no equivalent.
fn correlation_rule(action: &SecRule) -> Option<ConvertedRule> {
    let id = action.value("id")?.parse::<u32>().ok()?;
    let msg = action.value("msg")?;
    if phase(action) != Phase::Logging || !action.values("tag").any(|t| t == "reporting") {
        return None;
    }
    let mut warnings = vec![
        "the reporting-level skips before it (980041-980051) are read at CRS's default reporting level (4): reported when the transaction's anomaly score, inbound plus outbound, is above 0"
            .to_string(),
    ];
    check_actions(action, true, &mut warnings);
    Some(ConvertedRule {
        rule: Rule {
            id,
            msg: msg.to_string(),
            name: None,
            category: None,
            severity: None,
            tags: action.values("tag").map(str::to_string).collect(),
            paranoia_level: 1,
            operator: OperatorKind::AnomalyReport,
            pattern: None,
            setting: None,
            phrases: Vec::new(),
            negate: false,
            variables: Vec::new(),
            transforms: Vec::new(),
            multi_match: false,
            action: Action::Log,
            chain: Vec::new(),
            hosts: Vec::new(),
            when: Vec::new(),
            confirm: None,
            phase: Phase::Logging,
        },
        warnings,
    })
}

/// The earlier rule (without `msg`) that sets, per match, the transaction variables the only variable of
/// `link` selects (`TX:/re/`), with its paranoia level.
fn reads_setter<'f>(link: &SecRule, file: &'f FileFacts) -> Option<(&'f SecRule, u8)> {
    let [variable] = link.variables.as_slice() else {
        return None;
    };
    let (true, Some(Selector::Regex(re))) = (variable.collection == "TX", &variable.selector)
    else {
        return None;
    };
    let mut found = None;
    for (setter, level) in file.setters.iter().rev() {
        if per_match_variable(re, &captured_variables(setter), &file.tx_set).is_some() {
            found = Some((setter, *level));
            break;
        }
    }
    found
}

/// The transaction variables a head rule sets from its capture groups, request variables and literal text
/// (`setvar:'tx.content_type=|%{tx.0}|'`, `setvar:'tx.x=|%{ARGS._charset_}|'`), as templates (`|${capture:0}|`,
/// `|${ARGS_GET:_charset_|ARGS_POST:_charset_}|`) by lowercased name.
fn captured_variables(rule: &SecRule) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for setvar in rule.values("setvar") {
        let Some((name, value)) = setvar.split_once('=') else {
            continue;
        };
        let Some(name) = name.strip_prefix("tx.").or(name.strip_prefix("TX.")) else {
            continue;
        };
        let mut template = String::new();
        let mut rest = value;
        let mut only_captures = !value.starts_with(['+', '-']);
        while let Some(start) = rest.find("%{") {
            let Some(len) = rest[start..].find('}') else {
                only_captures = false;
                break;
            };
            let reference = &rest[start + 2..start + len];
            let digit = reference
                .strip_prefix("tx.")
                .or(reference.strip_prefix("TX."))
                .filter(|n| n.len() == 1 && n.as_bytes()[0].is_ascii_digit());
            match (digit, request_variable_reference(reference)) {
                (Some(n), _) => {
                    template.push_str(&rest[..start]);
                    template.push_str(&format!("${{capture:{n}}}"));
                }
                (None, Some(variable)) => {
                    template.push_str(&rest[..start]);
                    template.push_str(&variable);
                }
                (None, None) => only_captures = false,
            }
            rest = &rest[start + len + 1..];
        }
        template.push_str(rest);
        if only_captures && template.contains("${") {
            out.insert(name.to_ascii_lowercase(), template);
        }
    }
    out
}

/// A macro of a request variable (`ARGS._method`, `REQUEST_HEADERS.Host`) as a template reference to its first
/// value (`${ARGS_GET:_method|ARGS_POST:_method}`: ModSecurity's `ARGS` is our two collections, query first).
fn request_variable_reference(reference: &str) -> Option<String> {
    let (name, key) = match reference.split_once('.') {
        Some((name, key)) => (name, Some(key)),
        None => (reference, None),
    };
    let kinds = collection(&name.to_ascii_uppercase())?;
    let alternatives: Vec<String> = kinds
        .iter()
        .map(|kind| match key {
            Some(key) if is_keyed(*kind) => format!("{}:{key}", kind.name()),
            _ => kind.name().to_string(),
        })
        .collect();
    (key.is_none() || kinds.iter().all(|k| is_keyed(*k)))
        .then(|| format!("${{{}}}", alternatives.join("|")))
}

/// The template of the variable a rule sets per match (`tx.NAME_%{MATCHED_VAR_NAME}`, `tx.NAME_%{tx.0}`), when
/// the key regex `re` of `TX:/re/` selects exactly that one of the variables the file and the rule set.
fn per_match_variable(
    re: &str,
    captured: &std::collections::BTreeMap<String, String>,
    tx_set: &std::collections::BTreeSet<String>,
) -> Option<String> {
    // TX names are case-insensitive in ModSecurity; a macro in a name stands for any text.
    let selects = crate::regex_engine::build_meta(&format!("(?i){re}")).ok()?;
    let sample = |name: &str| {
        let mut out = String::new();
        let mut rest = name;
        while let Some(start) = rest.find("%{") {
            out.push_str(&rest[..start]);
            out.push('0');
            rest = rest[start..]
                .find('}')
                .map_or("", |end| &rest[start + end + 1..]);
        }
        out + rest
    };
    let mut selected = tx_set
        .iter()
        .chain(captured.keys())
        .filter(|name| selects.is_match(sample(name).as_bytes()))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter();
    let (Some(name), None) = (selected.next(), selected.next()) else {
        return None;
    };
    name.contains("%{").then(|| captured.get(name).cloned())?
}

/// CRS severities onto ours. ModSecurity's scale has eight levels; CRS uses the four below.
fn severity(name: &str) -> Option<Severity> {
    Some(match name.to_ascii_uppercase().as_str() {
        "EMERGENCY" | "ALERT" | "CRITICAL" | "0" | "1" | "2" => Severity::Critical,
        "ERROR" | "3" => Severity::High,
        "WARNING" | "4" => Severity::Medium,
        "NOTICE" | "5" => Severity::Low,
        _ => return None,
    })
}

/// A rule's operator in our terms.
struct MainOperator {
    kind: OperatorKind,
    pattern: Option<String>,
    /// The 901 setting the whole argument is (`%{tx.allowed_methods}`): kept as the rule's `setting`, so the
    /// operator can override the default `pattern` per site.
    setting: Option<String>,
    phrases: Vec<String>,
}

fn main_operator(
    rule: &SecRule,
    context: &Context<'_>,
    when: &[SettingCondition],
    warnings: &mut Vec<String>,
) -> MainOperator {
    let op = &rule.operator;
    let (argument, setting) = match gated_setting(&op.argument, context, when) {
        Some(name) => (String::new(), Some(name)),
        None => (
            resolve_macros(&op.argument, context, warnings),
            whole_setting(&op.argument, context),
        ),
    };
    let with = |kind, pattern| MainOperator {
        kind,
        pattern,
        setting: setting.clone(),
        phrases: Vec::new(),
    };
    match OperatorKind::from_modsecurity(&op.name) {
        Some(OperatorKind::Pm) if op.name == "pm" => MainOperator {
            kind: OperatorKind::Pm,
            pattern: None,
            setting: None,
            phrases: argument
                .split_ascii_whitespace()
                .map(str::to_string)
                .collect(),
        },
        Some(OperatorKind::Pm) => MainOperator {
            kind: OperatorKind::Pm,
            pattern: None,
            setting: None,
            phrases: phrases_from_files(&argument, context, warnings),
        },
        Some(kind) if kind.takes_pattern() => with(kind, Some(argument)),
        Some(kind) => with(kind, None),
        None => {
            let other = &op.name;
            warnings.push(format!(
                "operator `@{other}` cannot be expressed: converted as a regex on its argument"
            ));
            with(OperatorKind::Regex, Some(argument))
        }
    }
}

/// The phrases of the `.data` files `@pmFromFile` names (space-separated): one per line, `#` comments and
/// blank lines skipped. A phrase is its whole line, spaces included, as ModSecurity v3 reads it: CRS writes
/// ` in query expression` so that `within query expression` is not a hit. (ModSecurity also takes a line of
/// spaces as a phrase that matches every space; that line is skipped here.)
fn phrases_from_files(
    names: &str,
    context: &Context<'_>,
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let mut phrases = Vec::new();
    for name in names.split_ascii_whitespace() {
        let text = match context.data_file {
            Some(read) => read(name),
            None => Err(DataFileError::NoDirectory),
        };
        match text {
            Ok(text) => phrases.extend(
                text.split('\n')
                    .filter(|l| {
                        let start = l.trim_start();
                        !start.is_empty() && !start.starts_with('#')
                    })
                    .map(str::to_string),
            ),
            Err(e) => warnings.push(format!("data file `{name}` of `@pmFromFile`: {e}")),
        }
    }
    phrases
}

/// NAME, when the whole operator argument is `%{tx.NAME}`, a setting without a default that the rule's `when`
/// requires to be set (`&TX:MAX_NUM_ARGS "@eq 1"`, then `"@gt %{tx.max_num_args}"`): the pattern is then the
/// configured value, and empty (never used) otherwise.
fn gated_setting(
    argument: &str,
    context: &Context<'_>,
    when: &[SettingCondition],
) -> Option<String> {
    let name = argument
        .trim()
        .strip_prefix("%{")?
        .strip_suffix('}')?
        .split_once('.')
        .filter(|(collection, _)| collection.eq_ignore_ascii_case("tx"))?
        .1
        .to_ascii_lowercase();
    let required = when.iter().any(|c| {
        c.setting == name
            && c.count
            && !c.negate
            && c.operator == OperatorKind::Eq
            && c.pattern.as_deref() == Some("1")
    });
    (required && !context.tx_defaults.contains_key(&name)).then_some(name)
}

/// NAME, when the whole operator argument is `%{tx.NAME}` and 901 gives NAME a default.
fn whole_setting(argument: &str, context: &Context<'_>) -> Option<String> {
    let name = argument
        .trim()
        .strip_prefix("%{")?
        .strip_suffix('}')?
        .split_once('.')
        .filter(|(collection, _)| collection.eq_ignore_ascii_case("tx"))?
        .1
        .to_ascii_lowercase();
    context.tx_defaults.contains_key(&name).then_some(name)
}

/// Replaces each `%{tx.NAME}` whose value 901 sets by default with that value; any other macro is kept as
/// written (matched literally) and reported.
fn resolve_macros(argument: &str, context: &Context<'_>, warnings: &mut Vec<String>) -> String {
    resolve_macros_in(argument, context, false, warnings)
}

/// [`resolve_macros`]; with `templates`, `%{request_headers.NAME}` becomes the template reference
/// `${request_headers:NAME}` (chain conditions with text operators expand it per request).
fn resolve_macros_in(
    argument: &str,
    context: &Context<'_>,
    templates: bool,
    warnings: &mut Vec<String>,
) -> String {
    let mut out = String::with_capacity(argument.len());
    let mut rest = argument;
    while let Some(start) = rest.find("%{") {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        let name = &rest[start + 2..start + len];
        let value = name
            .split_once('.')
            .filter(|(collection, _)| collection.eq_ignore_ascii_case("tx"))
            .and_then(|(_, key)| context.tx_defaults.get(&key.to_ascii_lowercase()));
        out.push_str(&rest[..start]);
        let header = match name.split_once('.') {
            Some((collection, header))
                if templates && collection.eq_ignore_ascii_case("request_headers") =>
            {
                Some(format!(
                    "${{request_headers:{}}}",
                    header.to_ascii_lowercase()
                ))
            }
            _ if templates => request_variable_reference(name),
            _ => None,
        };
        match value.cloned().or(header) {
            Some(value) => out.push_str(&value),
            None => {
                warnings.push(format!(
                    "macro `%{{{name}}}` has no value at conversion time: matched literally"
                ));
                out.push_str(&rest[start..start + len + 1]);
            }
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// ModSecurity collections onto ours (`docs/rule-format.md`, "ModSecurity-style collections").
/// ModSecurity's `ARGS` reads the query and the body, which our format keeps apart.
fn collection(name: &str) -> Option<&'static [Variable]> {
    Some(match name {
        "ARGS" => &[Variable::ArgsGet, Variable::ArgsPost],
        "ARGS_NAMES" => &[Variable::ArgsGetNames, Variable::ArgsPostNames],
        "ARGS_GET" => &[Variable::ArgsGet],
        "ARGS_GET_NAMES" => &[Variable::ArgsGetNames],
        "ARGS_POST" => &[Variable::ArgsPost],
        "ARGS_POST_NAMES" => &[Variable::ArgsPostNames],
        "REQUEST_COOKIES" => &[Variable::RequestCookies],
        "REQUEST_COOKIES_NAMES" => &[Variable::RequestCookiesNames],
        "REQUEST_HEADERS" => &[Variable::RequestHeaders],
        "REQUEST_HEADERS_NAMES" => &[Variable::RequestHeadersNames],
        "REQUEST_FILENAME" => &[Variable::RequestFilename],
        "REQUEST_BASENAME" => &[Variable::RequestBasename],
        "REQUEST_LINE" => &[Variable::RequestLine],
        "REQUEST_METHOD" => &[Variable::RequestMethod],
        "REQUEST_PROTOCOL" => &[Variable::RequestProtocol],
        "REQUEST_URI" => &[Variable::RequestUri],
        // The raw request target: what our REQUEST_URI already is (the proxy sees origin-form targets).
        "REQUEST_URI_RAW" => &[Variable::RequestUri],
        "QUERY_STRING" => &[Variable::QueryString],
        "REQUEST_BODY" => &[Variable::RequestBody],
        "XML" => &[Variable::Xml],
        "FILES" => &[Variable::Files],
        "FILES_NAMES" => &[Variable::FilesNames],
        "REQUEST_BODY_LENGTH" => &[Variable::RequestBodyLength],
        "REQBODY_PROCESSOR" => &[Variable::ReqbodyProcessor],
        "MULTIPART_PART_HEADERS" => &[Variable::MultipartPartHeaders],
        "ARGS_COMBINED_SIZE" => &[Variable::ArgsCombinedSize],
        "RESPONSE_STATUS" => &[Variable::ResponseStatus],
        "RESPONSE_PROTOCOL" => &[Variable::ResponseProtocol],
        "RESPONSE_HEADERS" => &[Variable::ResponseHeaders],
        "RESPONSE_HEADERS_NAMES" => &[Variable::ResponseHeadersNames],
        "RESPONSE_BODY" => &[Variable::ResponseBody],
        "RESPONSE_CONTENT_TYPE" => &[Variable::ResponseContentType],
        "RESPONSE_CONTENT_LENGTH" => &[Variable::ResponseContentLength],
        _ => return None,
    })
}

/// Collections whose elements have keys that `names` / `exclude` can select.
fn is_keyed(kind: Variable) -> bool {
    !matches!(
        kind,
        Variable::RequestFilename
            | Variable::RequestBasename
            | Variable::RequestLine
            | Variable::RequestMethod
            | Variable::RequestProtocol
            | Variable::RequestUri
            | Variable::QueryString
            | Variable::Body
            | Variable::RequestBody
            | Variable::RequestBodyLength
            | Variable::ReqbodyProcessor
            | Variable::ArgsCombinedSize
            | Variable::ResponseStatus
            | Variable::ResponseProtocol
            | Variable::ResponseBody
            | Variable::ResponseContentType
            | Variable::ResponseContentLength
    )
}

/// The XPath selectors our `XML` variable supports, and the `names` that express them.
fn xml_names(xpath: &str) -> Option<Vec<String>> {
    match xpath {
        "/*" => Some(Vec::new()),
        "//@*" => Some(vec!["@*".to_string()]),
        _ => None,
    }
}

/// The variable list: selections of one collection merge into one entry (`REQUEST_HEADERS:A|
/// REQUEST_HEADERS:B` is `{type: REQUEST_HEADERS, names: [A, B]}`), a whole collection absorbs its
/// selections, and every `!COLLECTION:key` becomes an `exclude` of that collection's entries.
/// `XML` entries never merge: `XML` alone and `XML` with `names: ["@*"]` read different things.
fn variables(list: &[SecVariable], warnings: &mut Vec<String>) -> Vec<VariableSpec> {
    let mut entries: Vec<VariableSpec> = Vec::new();
    for variable in list.iter().filter(|v| !v.exclude) {
        // A count reads one collection: `&ARGS` (query and body) would be two counts here.
        let Some(kinds) =
            collection(&variable.collection).filter(|kinds| !variable.count || kinds.len() == 1)
        else {
            warnings.push(format!(
                "variable `{}{}` has no equivalent: dropped",
                if variable.count { "&" } else { "" },
                spelled(variable)
            ));
            continue;
        };
        for &kind in kinds {
            if let Some(names) = selected_names(variable, kind, warnings) {
                add_entry(&mut entries, kind, names, variable.count);
            }
        }
    }
    for variable in list.iter().filter(|v| v.exclude) {
        exclude(&mut entries, variable, warnings);
    }
    entries
}

/// A variable as the SecRule wrote it (`!REQUEST_HEADERS:/^x-/`).
fn spelled(v: &SecVariable) -> String {
    let prefix = if v.exclude { "!" } else { "" };
    match &v.selector {
        None => format!("{prefix}{}", v.collection),
        Some(Selector::Key(k)) => format!("{prefix}{}:{k}", v.collection),
        Some(Selector::Regex(r)) => format!("{prefix}{}:/{r}/", v.collection),
    }
}

/// The `names` of `variable`'s entry for `kind` (empty: the whole collection), or `None` when the selection
/// has no equivalent and the entry is dropped.
fn selected_names(
    variable: &SecVariable,
    kind: Variable,
    warnings: &mut Vec<String>,
) -> Option<Vec<String>> {
    Some(match (&variable.selector, kind) {
        (None, Variable::Xml) => {
            warnings.push("variable `XML` without an XPath: read as `XML:/*`".to_string());
            Vec::new()
        }
        (None, _) => Vec::new(),
        (Some(Selector::Key(xpath)), Variable::Xml) => match xml_names(xpath) {
            Some(names) => names,
            None => {
                warnings.push(format!(
                    "XPath `{}` has no equivalent (only `XML:/*` and `XML://@*`): dropped",
                    spelled(variable)
                ));
                return None;
            }
        },
        (Some(selector), _) if is_keyed(kind) => vec![selector_text(selector)],
        (Some(_), _) => {
            warnings.push(format!(
                "`{}` selects a key of a variable without keys: the selector is dropped",
                spelled(variable)
            ));
            Vec::new()
        }
    })
}

/// Adds the entry `kind` with `names` (a count with `count`), merged into an entry of the same collection.
fn add_entry(entries: &mut Vec<VariableSpec>, kind: Variable, names: Vec<String>, count: bool) {
    if count {
        entries.push(VariableSpec {
            count: true,
            names,
            ..VariableSpec::all(kind)
        });
        return;
    }
    let existing = entries
        .iter_mut()
        .find(|e| e.variable == kind && !e.count && (kind != Variable::Xml || e.names == names));
    match existing {
        // The same XML selection twice reads the same values once.
        Some(_) if kind == Variable::Xml => {}
        Some(entry) if entry.names.is_empty() || names.is_empty() => entry.names.clear(),
        Some(entry) => entry.names.extend(names),
        None => entries.push(VariableSpec {
            names,
            ..VariableSpec::all(kind)
        }),
    }
}

/// Applies the exclusion `variable` (`!COLLECTION:key`) to the entries of its collection.
fn exclude(entries: &mut [VariableSpec], variable: &SecVariable, warnings: &mut Vec<String>) {
    let targets = collection(&variable.collection);
    let (Some(kinds), Some(selector)) = (targets, &variable.selector) else {
        warnings.push(format!(
            "exclusion `{}` has no equivalent: dropped",
            spelled(variable)
        ));
        return;
    };
    let mut applied = false;
    for entry in entries.iter_mut().filter(|e| kinds.contains(&e.variable)) {
        entry.exclude.push(selector_text(selector));
        applied = true;
    }
    if !applied {
        warnings.push(format!(
            "exclusion `{}` excludes from a collection the rule does not read: dropped",
            spelled(variable)
        ));
    }
}

/// A key as our format writes it: exact text, or `/regex/`.
fn selector_text(selector: &Selector) -> String {
    match selector {
        Selector::Key(key) => key.clone(),
        Selector::Regex(regex) => format!("/{regex}/"),
    }
}

/// ModSecurity transform names onto ours. `none` is applied rather than copied: a leading one clears
/// ModSecurity's default transforms, and our format has no default transforms.
fn transforms(rule: &SecRule, warnings: &mut Vec<String>) -> Vec<Transform> {
    let mut out = Vec::new();
    for name in rule.values("t") {
        let mapped = match name {
            "none" => Transform::None,
            "urlDecode" => Transform::UrlDecode,
            "urlDecodeUni" => Transform::UrlDecodeUni,
            "lowercase" => Transform::Lowercase,
            "utf8toUnicode" => Transform::Utf8ToUnicode,
            "removeNulls" => Transform::RemoveNulls,
            "replaceComments" => Transform::ReplaceComments,
            "removeCommentsChar" => Transform::RemoveCommentsChar,
            "removeWhitespace" => Transform::RemoveWhitespace,
            "compressWhitespace" => Transform::CompressWhitespace,
            "htmlEntityDecode" => Transform::HtmlEntityDecode,
            "trim" => Transform::Trim,
            "cmdLine" => Transform::CmdLine,
            "jsDecode" => Transform::JsDecode,
            "cssDecode" => Transform::CssDecode,
            "normalizePath" | "normalisePath" => Transform::NormalizePath,
            "normalizePathWin" | "normalisePathWin" => Transform::NormalizePathWin,
            "escapeSeqDecode" => Transform::EscapeSeqDecode,
            // ModSecurity reads transform names case-insensitively; one CRS rule writes `base64decode`.
            "base64Decode" | "base64decode" => Transform::Base64Decode,
            "hexEncode" => Transform::HexEncode,
            "length" => Transform::Length,
            other => {
                warnings.push(format!("transform `t:{other}` has no equivalent: dropped"));
                continue;
            }
        };
        // `none` clears what came before it in both formats; applying it here keeps the output
        // minimal and equivalent.
        if mapped == Transform::None {
            out.clear();
        } else {
            out.push(mapped);
        }
    }
    out
}

/// The score CRS adds per severity macro (`tx.critical_anomaly_score` etc., crs-setup.conf defaults).
fn anomaly_score(macro_name: &str) -> Option<u32> {
    Some(match macro_name {
        "critical_anomaly_score" => 5,
        "error_anomaly_score" => 4,
        "warning_anomaly_score" => 3,
        "notice_anomaly_score" => 2,
        _ => return None,
    })
}

/// The inbound anomaly score the rule (or a rule of its chain) adds, from
/// `setvar:'tx.inbound_anomaly_score_plN=+%{tx.<severity>_anomaly_score}'`.
fn own_anomaly_score(rule: &SecRule) -> Option<u32> {
    let mut link = Some(rule);
    while let Some(current) = link {
        for setvar in current.values("setvar") {
            let lower = setvar.to_ascii_lowercase();
            if let Some((name, value)) = lower.split_once("=+")
                && name.starts_with("tx.inbound_anomaly_score")
            {
                let macro_name = value.strip_prefix("%{tx.")?.strip_suffix('}')?;
                return anomaly_score(macro_name);
            }
        }
        link = current.chained.as_deref();
    }
    None
}

/// `block` is CRS's anomaly scoring, which our `block` action is: the rule adds its severity's score and the
/// request is blocked once the total reaches the threshold.
fn disruptive_action(rule: &SecRule, warnings: &mut Vec<String>) -> Action {
    if rule.has("deny") || rule.has("drop") {
        Action::Deny
    } else if rule.has("block") {
        Action::Block
    } else if rule.has("pass") {
        Action::Log
    } else {
        warnings.push(
            "no disruptive action: ModSecurity would use SecDefaultAction; converted as `deny`"
                .to_string(),
        );
        Action::Deny
    }
}

/// Actions that need no counterpart, each with the reason.
fn is_intentionally_dropped(name: &str) -> bool {
    matches!(
        name,
        // Read by the converter itself.
        "id" | "msg" | "tag" | "severity" | "t" | "multiMatch" | "chain" | "block" | "deny" | "drop" | "pass"
        // The rule's `phase` (request, response, logging); within one, our engine inspects the whole message
        // (head and body) in one evaluation.
        | "phase"
        // Log formatting: our engine reports rule id, message and matched variable itself.
        | "logdata" | "log" | "nolog" | "auditlog" | "noauditlog"
        // The CRS release is written once in the output's header.
        | "ver"
        // Enables TX:0..9, which our chain conditions read as `capture:N` without it.
        | "capture"
        // Anomaly scoring and log variables: we block on one matching `deny` rule instead.
        | "setvar"
    )
}

fn check_actions(rule: &SecRule, head: bool, warnings: &mut Vec<String>) {
    for action in &rule.actions {
        let name = action.name.as_str();
        if !head && name == "multiMatch" {
            warnings.push(
                "`multiMatch` on a chained rule has no equivalent (chain conditions see one value): dropped"
                    .to_string(),
            );
        } else if !head && matches!(name, "id" | "msg" | "block" | "deny" | "pass" | "severity") {
            warnings.push(format!(
                "action `{name}` on a chained rule is ignored (ModSecurity allows it only on the chain's first rule)"
            ));
        } else if !is_intentionally_dropped(name) {
            warnings.push(format!("action `{name}` has no equivalent: dropped"));
        }
    }
}

/// A chained rule as a condition on the head rule's match.
fn chain_condition(
    rule: &SecRule,
    (context, when): (&Context<'_>, &[SettingCondition]),
    captured: &std::collections::BTreeMap<String, String>,
    file: &FileFacts,
    warnings: &mut Vec<String>,
) -> Option<ChainCondition> {
    let line = rule.line;
    let variable = chain_variable(rule, warnings)?;
    let target = chain_target(variable, captured, file, line, warnings)?;
    let op = &rule.operator;
    let operator = chain_operator(op, variable, line, warnings)?;
    let (pattern, gated) = chain_pattern(op, operator, (context, when), line, warnings)?;
    Some(ChainCondition {
        target,
        operator,
        pattern,
        setting: gated.or_else(|| whole_setting(&op.argument, context)),
        transforms: transforms(rule, warnings),
        negate: op.negated,
    })
}

/// The variable a chained rule reads: its only one, or `MATCHED_VARS` among several (the rest reported).
fn chain_variable<'r>(rule: &'r SecRule, warnings: &mut Vec<String>) -> Option<&'r SecVariable> {
    let line = rule.line;
    match rule.variables.as_slice() {
        [variable] => Some(variable),
        // `MATCHED_VARS|XML:/*`: the matched value is what the chain can read; the rest is reported.
        several => {
            let Some(matched) = several.iter().find(|v| v.collection == "MATCHED_VARS") else {
                warnings.push(format!(
                    "chained rule at line {line} reads several variables: dropped"
                ));
                return None;
            };
            warnings.push(format!(
                "chained rule at line {line} also reads variables other than MATCHED_VARS: only MATCHED_VARS kept"
            ));
            Some(matched)
        }
    }
}

/// What a chain condition on `variable` reads (`line`: the chained rule's, for warnings).
fn chain_target(
    variable: &SecVariable,
    captured: &std::collections::BTreeMap<String, String>,
    file: &FileFacts,
    line: usize,
    warnings: &mut Vec<String>,
) -> Option<ChainTarget> {
    let per_match = match (variable.collection.as_str(), &variable.selector) {
        ("TX", Some(Selector::Regex(re))) => per_match_variable(re, captured, &file.tx_set),
        _ => None,
    };
    Some(match (variable.collection.as_str(), &variable.selector) {
        ("MATCHED_VARS" | "MATCHED_VAR", None) => ChainTarget::MatchedValue,
        // `setvar:tx.rfi_parameter_%{MATCHED_VAR_NAME}=.%{tx.1}` then `TX:/rfi_parameter_.*/`: one variable per
        // matched value, so the chain reads the one of the value being checked.
        ("TX", Some(Selector::Regex(_))) if per_match.is_some() => {
            ChainTarget::Template(per_match.unwrap_or_default())
        }
        // A variable the head rule set from its captures: `setvar:tx.x=|%{tx.0}|` then `TX:x`.
        ("TX", Some(Selector::Key(name))) if captured.contains_key(&name.to_ascii_lowercase()) => {
            ChainTarget::Template(captured[&name.to_ascii_lowercase()].clone())
        }
        ("TX", Some(Selector::Key(n))) if n.len() == 1 && n.as_bytes()[0].is_ascii_digit() => {
            ChainTarget::Capture(u16::from(n.as_bytes()[0] - b'0'))
        }
        // Another request variable, whole or one key of it: `REQUEST_HEADERS:Referer`, `REQUEST_METHOD`.
        (name, selector @ (None | Some(Selector::Key(_))))
            if !(variable.exclude || (name == "XML" && selector.is_some())) =>
        {
            match collection(name) {
                Some(&[kind]) => ChainTarget::Variable {
                    variable: kind,
                    key: match selector {
                        Some(Selector::Key(key)) => Some(key.clone()),
                        _ => None,
                    },
                    count: variable.count,
                },
                _ => {
                    warnings.push(format!(
                        "chained rule at line {line} reads `{}`, which has no equivalent as a chain target \
                         (one request variable, TX:0-9 or MATCHED_VARS): dropped",
                        variable.collection
                    ));
                    return None;
                }
            }
        }
        _ => {
            warnings.push(format!(
                "chained rule at line {line} reads `{}{}{}`, which has no equivalent as a chain target \
                 (one request variable, TX:0-9 or MATCHED_VARS): dropped",
                if variable.count { "&" } else { "" },
                variable.collection,
                match &variable.selector {
                    Some(Selector::Key(key)) => format!(":{key}"),
                    Some(Selector::Regex(re)) => format!(":/{re}/"),
                    None => String::new(),
                }
            ));
            return None;
        }
    })
}

/// The operator of a chain condition: ModSecurity's, from the one operator table, when chains take it.
fn chain_operator(
    op: &Operator,
    variable: &SecVariable,
    line: usize,
    warnings: &mut Vec<String>,
) -> Option<OperatorKind> {
    Some(match OperatorKind::from_modsecurity(&op.name) {
        // A count is written in decimal without leading zeros, so `@eq N` is text equality with N.
        Some(OperatorKind::Eq) if variable.count && op.argument.parse::<u32>().is_ok() => {
            OperatorKind::Equals
        }
        // A condition's phrases are its pattern: `@pmFromFile`'s files are not read for a condition.
        Some(kind) if kind.in_chains() && (kind != OperatorKind::Pm || op.name == "pm") => kind,
        _ => {
            let other = &op.name;
            warnings.push(format!(
                "chained rule at line {line}: operator `@{other}` has no equivalent: dropped"
            ));
            return None;
        }
    })
}

/// A chain condition's pattern from the operator's argument (`%{TX.N}` becomes `${capture:N}`, other macros are
/// resolved), and the setting that gates it, if any. `None` when a macro has no value.
fn chain_pattern(
    op: &Operator,
    operator: OperatorKind,
    (context, when): (&Context<'_>, &[SettingCondition]),
    line: usize,
    warnings: &mut Vec<String>,
) -> Option<(String, Option<String>)> {
    let capture_reference = op
        .argument
        .strip_prefix("%{")
        .and_then(|m| m.strip_suffix('}'))
        .and_then(|m| m.strip_prefix("TX.").or_else(|| m.strip_prefix("tx.")))
        .filter(|n| n.len() == 1 && n.as_bytes()[0].is_ascii_digit());
    let takes_no_pattern = matches!(
        operator,
        OperatorKind::ValidateUrlEncoding | OperatorKind::ValidateUtf8Encoding
    );
    let gated = gated_setting(&op.argument, context, when);
    let pattern = match capture_reference {
        _ if takes_no_pattern || gated.is_some() => String::new(),
        // `%{TX.2}`: a capture group of the head rule's match, which templates can expand.
        Some(n) if !matches!(operator, OperatorKind::Regex | OperatorKind::Pm) => {
            format!("${{capture:{n}}}")
        }
        _ if op.argument.contains("%{") => {
            let before = warnings.len();
            let templates = !matches!(operator, OperatorKind::Regex | OperatorKind::Pm);
            let resolved = resolve_macros_in(&op.argument, context, templates, warnings);
            if warnings.len() > before {
                // A macro without a value would be matched as its own text: the condition would be wrong.
                warnings.push(format!(
                    "chained rule at line {line}: a macro of `{}` has no value: dropped",
                    op.argument
                ));
                return None;
            }
            resolved
        }
        _ => op.argument.clone(),
    };
    Some((pattern, gated))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::secrule::parse;

    fn convert_text(text: &str) -> Converted {
        convert(&parse(text).unwrap())
    }

    #[test]
    fn paranoia_gates_set_each_rules_level() {
        let converted = convert_text(concat!(
            "SecRule ARGS \"@rx a\" \"id:1,msg:'one',block,tag:'paranoia-level/1'\"\n",
            "SecRule TX:DETECTION_PARANOIA_LEVEL \"@lt 3\" \"id:10,pass,nolog,skipAfter:END\"\n",
            "SecRule ARGS \"@rx b\" \"id:2,msg:'two',block,tag:'paranoia-level/2'\"\n",
            "SecMarker END\n",
        ));
        let levels: Vec<_> = converted
            .rules
            .iter()
            .map(|r| (r.rule.id, r.rule.paranoia_level))
            .collect();
        assert_eq!(levels, [(1, 1), (2, 3)]);
        assert!(converted.rules[0].warnings.is_empty());
        assert!(converted.rules[1].warnings[0].contains("paranoia-level/2"));
        assert!(converted.warnings.is_empty());
    }

    #[test]
    fn variables_map_merge_and_exclude() {
        let converted = convert_text(concat!(
            "SecRule REQUEST_COOKIES|REQUEST_HEADERS:User-Agent|REQUEST_HEADERS:Referer|ARGS_NAMES|ARGS|",
            "!ARGS_NAMES:/^x\\[/|XML:/*|XML://@* \"@rx a\" \"id:1,msg:'m',block\"\n",
            "SecRule REQUEST_HEADERS|!REQUEST_HEADERS:Cookie|REQUEST_HEADERS:Referer \"@rx a\" \"id:2,msg:'m',block\"\n",
        ));
        let entry = |variable, names: &[&str], exclude: &[&str]| VariableSpec {
            variable,
            names: names.iter().map(|s| s.to_string()).collect(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
            count: false,
        };
        assert_eq!(
            converted.rules[0].rule.variables,
            [
                entry(Variable::RequestCookies, &[], &[]),
                entry(Variable::RequestHeaders, &["User-Agent", "Referer"], &[]),
                entry(Variable::ArgsGetNames, &[], &["/^x\\[/"]),
                entry(Variable::ArgsPostNames, &[], &["/^x\\[/"]),
                entry(Variable::ArgsGet, &[], &[]),
                entry(Variable::ArgsPost, &[], &[]),
                entry(Variable::Xml, &[], &[]),
                entry(Variable::Xml, &["@*"], &[]),
            ]
        );
        assert_eq!(
            converted.rules[1].rule.variables,
            [entry(Variable::RequestHeaders, &[], &["Cookie"])]
        );
        assert!(converted.rules.iter().all(|r| r.warnings.is_empty()));
    }

    #[test]
    fn unknown_constructs_are_reported_per_rule() {
        let converted = convert_text(concat!(
            "SecRule FILES_SIZES|&ARGS|XML://title|ARGS \"!@verifyCC a b\" ",
            "\"id:3,msg:'m',block,t:none,t:sha1,multiMatch,expirevar:x=1\"\n",
            "SecRule ARGS \"@rx a\" \"id:4,msg:'m',block\"\n",
        ));
        let warnings = converted.rules[0].warnings.join("\n");
        for construct in [
            "FILES_SIZES",
            "&ARGS",
            "XML://title",
            "@verifyCC",
            "sha1",
            "expirevar",
        ] {
            assert!(
                warnings.contains(construct),
                "{construct} not reported in:\n{warnings}"
            );
        }
        assert!(converted.rules[1].warnings.is_empty());
        // multiMatch has a field of its own, not a warning.
        assert!(!warnings.contains("multiMatch"));
        assert!(converted.rules[0].rule.multi_match);
        assert!(!converted.rules[1].rule.multi_match);
    }

    #[test]
    fn multi_match_on_a_chained_rule_is_reported() {
        let converted = convert_text(concat!(
            "SecRule ARGS \"@rx a\" \"id:6,msg:'m',block,chain\"\n",
            "    SecRule MATCHED_VAR \"@rx b\" \"t:lowercase,multiMatch\"\n",
        ));
        let rule = &converted.rules[0];
        assert!(!rule.rule.multi_match);
        assert!(
            rule.warnings
                .iter()
                .any(|w| w.contains("`multiMatch` on a chained rule")),
            "{:?}",
            rule.warnings
        );
    }

    #[test]
    fn transforms_operators_and_actions() {
        let converted = convert_text(
            "SecRule ARGS \"@detectSQLi\" \"id:5,msg:'m',pass,severity:'WARNING',t:none,t:utf8toUnicode,t:urlDecodeUni,t:none,t:removeNulls\"\n",
        );
        let rule = &converted.rules[0].rule;
        assert_eq!(rule.operator, OperatorKind::DetectorSqli);
        assert_eq!(rule.pattern, None);
        assert_eq!(rule.action, Action::Log);
        assert_eq!(rule.severity, Some(Severity::Medium));
        // A later `none` clears what came before it, as in ModSecurity.
        assert_eq!(rule.transforms, [Transform::RemoveNulls]);
    }

    #[test]
    fn block_is_anomaly_scored_by_severity() {
        let converted = convert_text(concat!(
            "SecRule ARGS \"@rx a\" \"id:1,msg:'m',block,severity:'CRITICAL',setvar:'tx.inbound_anomaly_score_pl1=+%{tx.critical_anomaly_score}'\"\n",
            "SecRule ARGS \"@rx a\" \"id:2,msg:'m',block,severity:'WARNING',setvar:'tx.inbound_anomaly_score_pl2=+%{tx.warning_anomaly_score}'\"\n",
            "SecRule ARGS \"@rx a\" \"id:3,msg:'m',block,severity:'WARNING',setvar:'tx.inbound_anomaly_score_pl1=+%{tx.critical_anomaly_score}'\"\n",
            "SecRule ARGS \"@rx a\" \"id:4,msg:'m',deny\"\n",
            "SecRule ARGS \"@rx a\" \"id:5,msg:'m',pass\"\n",
        ));
        let actions: Vec<_> = converted.rules.iter().map(|r| r.rule.action).collect();
        use Action::{Block, Deny, Log};
        assert_eq!(actions, [Block, Block, Block, Deny, Log]);
        let warned: Vec<u32> = converted
            .rules
            .iter()
            .filter(|r| !r.warnings.is_empty())
            .map(|r| r.rule.id)
            .collect();
        assert_eq!(
            warned,
            [3],
            "a score its severity does not give is reported"
        );
    }

    #[test]
    fn new_operators_negation_counts_and_macros() {
        let data = |name: &str| match name {
            "words.data" => Ok(
                "# comment\nalpha\n\nbeta gamma\n  # indented comment\n \n in query\n".to_string(),
            ),
            other => Err(DataFileError::Unreadable {
                path: other.into(),
                source: std::io::ErrorKind::NotFound.into(),
            }),
        };
        let context = Context {
            data_file: Some(&data),
            tx_defaults: [("allowed_methods".to_string(), "GET POST".to_string())].into(),
            settings: Default::default(),
        };
        let text = concat!(
            "SecRule REQUEST_METHOD \"!@within %{tx.allowed_methods}\" \"id:1,msg:'m',block\"\n",
            "SecRule ARGS \"@pmFromFile words.data\" \"id:2,msg:'m',block\"\n",
            "SecRule ARGS \"@pm a bc\" \"id:3,msg:'m',block\"\n",
            "SecRule &REQUEST_HEADERS:Host \"@eq 0\" \"id:4,msg:'m',block\"\n",
            "SecRule ARGS \"@pmFromFile gone.data\" \"id:5,msg:'m',block\"\n",
            "SecRule ARGS \"@streq %{tx.unknown}\" \"id:6,msg:'m',block\"\n",
        );
        let converted = convert_with(&parse(text).unwrap(), &context);
        let rules: Vec<&Rule> = converted.rules.iter().map(|r| &r.rule).collect();
        assert_eq!(rules[0].operator, OperatorKind::Within);
        assert_eq!(rules[0].pattern.as_deref(), Some("GET POST"));
        assert!(rules[0].negate);
        assert_eq!(rules[1].phrases, ["alpha", "beta gamma", " in query"]);
        assert_eq!(rules[2].phrases, ["a", "bc"]);
        assert_eq!(
            rules[3].variables,
            [VariableSpec {
                names: vec!["Host".into()],
                count: true,
                ..VariableSpec::all(Variable::RequestHeaders)
            }]
        );
        assert!(converted.rules[..4].iter().all(|r| r.warnings.is_empty()));
        // Rule 5 has no phrases: reported, not converted.
        assert_eq!(converted.rules.len(), 5);
        assert!(converted.warnings[0].message.contains("gone.data"));
        assert_eq!(converted.warnings[1].rule_id, Some(5));
        assert!(converted.rules[4].warnings[0].contains("%{tx.unknown}"));
    }

    #[test]
    fn chains_read_other_variables_and_per_match_variables() {
        let converted = convert_text(concat!(
            "SecRule ARGS \"@rx //([^/]*)\" \"id:7,msg:'m',block,capture,",
            "setvar:'tx.p_%{MATCHED_VAR_NAME}=.%{tx.1}',chain\"\n",
            "  SecRule TX:/p_.*/ \"!@endsWith .%{request_headers.host}\" \"chain\"\n",
            "  SecRule &REQUEST_HEADERS:Referer \"@eq 1\" \"chain\"\n",
            "  SecRule REQUEST_HEADERS:Referer \"@rx ^https?://(.*?)/\" \"capture\"\n",
        ));
        let rule = &converted.rules[0];
        let targets: Vec<String> = rule
            .rule
            .chain
            .iter()
            .map(|c| c.target.clone().into())
            .collect();
        assert_eq!(
            targets,
            [
                ".${capture:1}",
                "&REQUEST_HEADERS:Referer",
                "REQUEST_HEADERS:Referer"
            ]
        );
        assert_eq!(rule.rule.chain[1].operator, OperatorKind::Equals);
        assert!(rule.warnings.is_empty(), "{:?}", rule.warnings);
    }

    #[test]
    fn chains_become_conditions() {
        let converted = convert_text(concat!(
            "SecRule ARGS \"@rx (a)=(b)\" \"id:6,msg:'m',block,capture,setvar:'tx.x=%{matched_var_name}',chain\"\n",
            "  SecRule TX:1 \"!@streq %{TX.2}\" \"t:none,setvar:'tx.score=+5',chain\"\n",
            "  SecRule MATCHED_VARS \"!@rx ^[a-z]+$\" \"t:none,t:lowercase\"\n",
        ));
        let rule = &converted.rules[0];
        assert_eq!(
            rule.rule.chain,
            [
                ChainCondition {
                    target: ChainTarget::Capture(1),
                    operator: OperatorKind::Equals,
                    pattern: "${capture:2}".into(),
                    setting: None,
                    transforms: vec![],
                    negate: true,
                },
                ChainCondition {
                    target: ChainTarget::MatchedValue,
                    operator: OperatorKind::Regex,
                    pattern: "^[a-z]+$".into(),
                    setting: None,
                    transforms: vec![Transform::Lowercase],
                    negate: true,
                },
            ]
        );
        assert!(rule.warnings.is_empty(), "{:?}", rule.warnings);
    }

    #[test]
    fn non_detection_rules_are_reported() {
        let converted = convert_text("SecRule ARGS \"@rx a\" \"id:7,pass,nolog\"\n");
        assert!(converted.rules.is_empty());
        assert_eq!(converted.warnings[0].rule_id, Some(7));
        assert!(converted.warnings[0].message.contains("not converted"));
    }
}
