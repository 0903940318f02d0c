//! Maps parsed ModSecurity rules onto our rule model ([`crate::rule`], `docs/rule-format.md`).
//!
//! The mapping is a table, not heuristics: every collection, transform, operator and action the
//! converter knows is listed below with what it becomes. Whatever is not in a table becomes a
//! [`Warning`] naming the rule and the construct, and is written as a comment above the rule in the
//! output, so a conversion can lose fidelity only visibly.
//!
//! Two CRS conventions are interpreted rather than copied:
//! - **Paranoia levels** are not a rule attribute in CRS: a gate rule
//!   `SecRule TX:DETECTION_PARANOIA_LEVEL "@lt N" "...,skipAfter:END-..."` skips every later rule
//!   when the configured level is below N. The converter tracks the last gate and gives each rule
//!   its level; the `paranoia-level/N` tag is cross-checked.
//! - **Anomaly scoring** (`setvar:tx.*_score=+...`) is dropped on purpose: our engine blocks on a
//!   single matching `deny` rule (see "Blocking" in the rule format), so a CRS `block` is a `deny`.

use super::secrule::{Directive, SecRule, Selector, Variable as SecVariable};
use crate::rule::{
    Action, ChainCondition, ChainOperator, ChainTarget, OperatorKind, Rule, Severity, Transform,
    Variable, VariableSpec,
};

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

/// Converts every detection rule of a parsed file.
pub fn convert(directives: &[Directive]) -> Converted {
    let mut out = Converted {
        rules: Vec::new(),
        version: None,
        warnings: Vec::new(),
    };
    // CRS runs rules placed before any gate at every level, i.e. at level 1.
    let mut paranoia_level = 1u8;
    for directive in directives {
        let Directive::Rule(rule) = directive else {
            continue;
        };
        if let Some(level) = paranoia_gate(rule) {
            paranoia_level = level;
            continue;
        }
        let id = rule.value("id").and_then(|v| v.parse::<u32>().ok());
        let (Some(id), Some(msg)) = (id, rule.value("msg")) else {
            out.warnings.push(Warning {
                line: rule.line,
                rule_id: id,
                message: "not a detection rule (no numeric `id` or no `msg`): not converted"
                    .to_string(),
            });
            continue;
        };
        if let Some(ver) = rule.value("ver") {
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
        out.rules
            .push(convert_rule(rule, id, msg.to_string(), paranoia_level));
    }
    out
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

fn convert_rule(rule: &SecRule, id: u32, msg: String, paranoia_level: u8) -> ConvertedRule {
    let mut warnings = Vec::new();
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
    let (operator, pattern) = main_operator(rule, &mut warnings);
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
        paranoia_level,
        operator,
        pattern,
        variables: variables(&rule.variables, &mut warnings),
        transforms: transforms(rule, &mut warnings),
        multi_match: rule.has("multiMatch"),
        action: disruptive_action(rule, &mut warnings),
        chain: Vec::new(),
    };
    check_actions(rule, true, &mut warnings);
    let mut link = rule.chained.as_deref();
    while let Some(next) = link {
        if let Some(condition) = chain_condition(next, &mut warnings) {
            converted.chain.push(condition);
        }
        check_actions(next, false, &mut warnings);
        link = next.chained.as_deref();
    }
    ConvertedRule {
        rule: converted,
        warnings,
    }
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

fn main_operator(rule: &SecRule, warnings: &mut Vec<String>) -> (OperatorKind, Option<String>) {
    let op = &rule.operator;
    if op.negated {
        warnings.push(format!(
            "negated operator `!@{}` cannot be expressed: converted without the negation",
            op.name
        ));
    }
    let argument = Some(op.argument.clone());
    match op.name.as_str() {
        "rx" => (OperatorKind::Regex, argument),
        "detectSQLi" => (OperatorKind::DetectorSqli, None),
        "detectXSS" => (OperatorKind::DetectorXss, None),
        "contains" => (OperatorKind::Contains, argument),
        "beginsWith" => (OperatorKind::StartsWith, argument),
        other => {
            warnings.push(format!(
                "operator `@{other}` cannot be expressed: converted as a regex on its argument"
            ));
            (OperatorKind::Regex, argument)
        }
    }
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
        "QUERY_STRING" => &[Variable::QueryString],
        "REQUEST_BODY" => &[Variable::Body],
        "XML" => &[Variable::Xml],
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
    let spell = |v: &SecVariable| {
        let prefix = if v.exclude { "!" } else { "" };
        match &v.selector {
            None => format!("{prefix}{}", v.collection),
            Some(Selector::Key(k)) => format!("{prefix}{}:{k}", v.collection),
            Some(Selector::Regex(r)) => format!("{prefix}{}:/{r}/", v.collection),
        }
    };
    for variable in list.iter().filter(|v| !v.exclude) {
        let Some(kinds) = collection(&variable.collection).filter(|_| !variable.count) else {
            warnings.push(format!(
                "variable `{}{}` has no equivalent: dropped",
                if variable.count { "&" } else { "" },
                spell(variable)
            ));
            continue;
        };
        for &kind in kinds {
            let names = match (&variable.selector, kind) {
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
                            spell(variable)
                        ));
                        continue;
                    }
                },
                (Some(selector), _) if is_keyed(kind) => vec![selector_text(selector)],
                (Some(_), _) => {
                    warnings.push(format!(
                        "`{}` selects a key of a variable without keys: the selector is dropped",
                        spell(variable)
                    ));
                    Vec::new()
                }
            };
            let existing = entries
                .iter_mut()
                .find(|e| e.variable == kind && (kind != Variable::Xml || e.names == names));
            match existing {
                // The same XML selection twice reads the same values once.
                Some(_) if kind == Variable::Xml => {}
                Some(entry) if entry.names.is_empty() || names.is_empty() => entry.names.clear(),
                Some(entry) => entry.names.extend(names),
                None => entries.push(VariableSpec {
                    variable: kind,
                    names,
                    exclude: Vec::new(),
                }),
            }
        }
    }
    for variable in list.iter().filter(|v| v.exclude) {
        let targets = collection(&variable.collection);
        let (Some(kinds), Some(selector)) = (targets, &variable.selector) else {
            warnings.push(format!(
                "exclusion `{}` has no equivalent: dropped",
                spell(variable)
            ));
            continue;
        };
        let mut applied = false;
        for entry in entries.iter_mut().filter(|e| kinds.contains(&e.variable)) {
            entry.exclude.push(selector_text(selector));
            applied = true;
        }
        if !applied {
            warnings.push(format!(
                "exclusion `{}` excludes from a collection the rule does not read: dropped",
                spell(variable)
            ));
        }
    }
    entries
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

/// CRS's default inbound anomaly threshold (`tx.inbound_anomaly_score_threshold` in crs-setup.conf).
const CRS_INBOUND_THRESHOLD: u32 = 5;

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

/// `block` defers to CRS's anomaly scoring: a request is blocked once the scores of its matches reach
/// the threshold (5). A rule whose own score reaches it blocks alone, so it is a `deny`; a rule
/// scoring less (WARNING: 3) never blocks alone in CRS, so it is a `log` here, where rules do not
/// add up.
fn disruptive_action(rule: &SecRule, warnings: &mut Vec<String>) -> Action {
    if rule.has("deny") || rule.has("drop") {
        Action::Deny
    } else if rule.has("block") {
        match own_anomaly_score(rule) {
            Some(score) if score < CRS_INBOUND_THRESHOLD => Action::Log,
            _ => Action::Deny,
        }
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
        // Our engine inspects the whole request (headers and body) in one evaluation.
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
fn chain_condition(rule: &SecRule, warnings: &mut Vec<String>) -> Option<ChainCondition> {
    let line = rule.line;
    let [variable] = rule.variables.as_slice() else {
        warnings.push(format!(
            "chained rule at line {line} reads several variables: dropped"
        ));
        return None;
    };
    let target = match (variable.collection.as_str(), &variable.selector) {
        ("MATCHED_VARS" | "MATCHED_VAR", None) => ChainTarget::MatchedValue,
        ("TX", Some(Selector::Key(n))) if n.len() == 1 && n.as_bytes()[0].is_ascii_digit() => {
            ChainTarget::Capture(u16::from(n.as_bytes()[0] - b'0'))
        }
        _ => {
            warnings.push(format!(
                "chained rule at line {line} reads `{}`, which has no equivalent (only TX:0-9 and MATCHED_VARS): dropped",
                variable.collection
            ));
            return None;
        }
    };
    let op = &rule.operator;
    let operator = match op.name.as_str() {
        "rx" => ChainOperator::Regex,
        "streq" => ChainOperator::Equals,
        "contains" => ChainOperator::Contains,
        "beginsWith" => ChainOperator::StartsWith,
        other => {
            warnings.push(format!(
                "chained rule at line {line}: operator `@{other}` has no equivalent: dropped"
            ));
            return None;
        }
    };
    let pattern = match op.argument.strip_prefix("%{") {
        None => op.argument.clone(),
        Some(macro_body) => match macro_body
            .strip_suffix('}')
            .and_then(|m| m.strip_prefix("TX.").or_else(|| m.strip_prefix("tx.")))
            .filter(|n| {
                n.len() == 1
                    && n.as_bytes()[0].is_ascii_digit()
                    && operator == ChainOperator::Equals
            }) {
            Some(n) => format!("${{capture:{n}}}"),
            None => {
                warnings.push(format!(
                    "chained rule at line {line}: macro `{}` has no equivalent: dropped",
                    op.argument
                ));
                return None;
            }
        },
    };
    if pattern.contains("%{") {
        warnings.push(format!(
            "chained rule at line {line}: macro inside `{pattern}` is matched literally"
        ));
    }
    Some(ChainCondition {
        target,
        operator,
        pattern,
        transforms: transforms(rule, warnings),
        negate: op.negated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crs::secrule::parse;

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
            "SecRule FILES|&ARGS|XML://title \"!@pm a b\" ",
            "\"id:3,msg:'m',block,t:none,t:base64Decode,multiMatch,expirevar:x=1\"\n",
            "SecRule ARGS \"@rx a\" \"id:4,msg:'m',block\"\n",
        ));
        let warnings = converted.rules[0].warnings.join("\n");
        for construct in [
            "FILES",
            "&ARGS",
            "XML://title",
            "!@pm",
            "@pm",
            "base64Decode",
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
    fn block_is_deny_only_when_the_rules_own_score_reaches_the_threshold() {
        let converted = convert_text(concat!(
            "SecRule ARGS \"@rx a\" \"id:1,msg:'m',block,setvar:'tx.inbound_anomaly_score_pl1=+%{tx.critical_anomaly_score}'\"\n",
            "SecRule ARGS \"@rx a\" \"id:2,msg:'m',block,setvar:'tx.inbound_anomaly_score_pl2=+%{tx.warning_anomaly_score}'\"\n",
            "SecRule ARGS \"@rx a\" \"id:3,msg:'m',block,chain\"\n",
            "  SecRule MATCHED_VARS \"@rx b\" \"setvar:'tx.inbound_anomaly_score_pl1=+%{tx.notice_anomaly_score}'\"\n",
            "SecRule ARGS \"@rx a\" \"id:4,msg:'m',block\"\n",
            "SecRule ARGS \"@rx a\" \"id:5,msg:'m',deny,setvar:'tx.inbound_anomaly_score_pl1=+%{tx.warning_anomaly_score}'\"\n",
        ));
        let actions: Vec<_> = converted.rules.iter().map(|r| r.rule.action).collect();
        use Action::{Deny, Log};
        assert_eq!(actions, [Deny, Log, Log, Deny, Deny]);
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
                    operator: ChainOperator::Equals,
                    pattern: "${capture:2}".into(),
                    transforms: vec![],
                    negate: true,
                },
                ChainCondition {
                    target: ChainTarget::MatchedValue,
                    operator: ChainOperator::Regex,
                    pattern: "^[a-z]+$".into(),
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
