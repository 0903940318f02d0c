//! Writes converted rules as YAML text in our rule format.
//!
//! The text is written by hand rather than through a serializer so that the committed `crs-942/`
//! reads like a hand-written rule file and stays byte-for-byte stable across library versions: one
//! field per line in a fixed order, every string single-quoted (in YAML single quotes a backslash is
//! literal, so regexes appear exactly as in the CRS file), and the converter's warnings as comments
//! above the rule they concern.

use super::convert::{Converted, ConvertedRule};
use crate::rule::{ChainCondition, SettingCondition, VariableSpec};
use serde::Serialize;
use std::fmt::Write;

/// The YAML file for one converted CRS file. `notice` is the source's copyright header (kept, as
/// the Apache-2.0 licence requires), `source_name` the CRS file's name.
pub fn write(converted: &Converted, source_name: &str, notice: &str) -> String {
    let mut out = String::new();
    let version = converted.version.as_deref().unwrap_or("unknown version");
    let _ = writeln!(
        out,
        "# Converted by `rulec import-crs` from {source_name} ({version}). Do not edit: change the\n\
         # converter or the CRS file and convert again. Notice of the original file:\n#"
    );
    for line in notice.lines() {
        let _ = writeln!(out, "{line}");
    }
    for warning in &converted.warnings {
        let _ = writeln!(
            out,
            "# converter: line {}: {}",
            warning.line,
            one_line(&warning.message)
        );
    }
    // An empty list, not a missing key, for a file with nothing to convert: the file still loads.
    out.push_str(if converted.rules.is_empty() {
        "rules: []\n"
    } else {
        "rules:\n"
    });
    for rule in &converted.rules {
        write_rule(&mut out, rule);
    }
    out
}

fn write_rule(out: &mut String, converted: &ConvertedRule) {
    for warning in &converted.warnings {
        let _ = writeln!(out, "  # converter: {}", one_line(warning));
    }
    let rule = &converted.rule;
    let _ = writeln!(out, "  - id: {}", rule.id);
    let _ = writeln!(out, "    msg: {}", quote(&rule.msg));
    if let Some(name) = &rule.name {
        let _ = writeln!(out, "    name: {}", quote(name));
    }
    if let Some(category) = &rule.category {
        let _ = writeln!(out, "    category: {}", quote(category));
    }
    if let Some(severity) = rule.severity {
        let _ = writeln!(out, "    severity: {severity}");
    }
    let _ = writeln!(out, "    paranoia_level: {}", rule.paranoia_level);
    if !rule.phase.is_request() {
        let _ = writeln!(out, "    phase: {}", rule.phase.name());
    }
    if !rule.tags.is_empty() {
        let _ = writeln!(out, "    tags: {}", flow_list(&rule.tags));
    }
    let _ = writeln!(out, "    operator: {}", yaml_name(&rule.operator));
    match &rule.pattern {
        Some(pattern) => {
            let _ = writeln!(out, "    pattern: {}", quote(pattern));
        }
        None => out.push_str("    pattern: null\n"),
    }
    if let Some(setting) = &rule.setting {
        let _ = writeln!(out, "    setting: {setting}");
    }
    if !rule.phrases.is_empty() {
        out.push_str("    phrases:\n");
        for phrase in &rule.phrases {
            let _ = writeln!(out, "      - {}", quote(phrase));
        }
    }
    if rule.negate {
        out.push_str("    negate: true\n");
    }
    out.push_str(match rule.variables.is_empty() {
        true => "    variables: []\n",
        false => "    variables:\n",
    });
    for variable in &rule.variables {
        let _ = writeln!(out, "      - {}", variable_spec(variable));
    }
    if !rule.transforms.is_empty() {
        let _ = writeln!(out, "    transforms: {}", name_list(&rule.transforms));
    }
    if rule.multi_match {
        out.push_str("    multi_match: true\n");
    }
    let _ = writeln!(out, "    action: {}", rule.action);
    if !rule.chain.is_empty() {
        out.push_str("    chain:\n");
        for condition in &rule.chain {
            let _ = writeln!(out, "      - {}", chain_condition(condition));
        }
    }
    if !rule.when.is_empty() {
        out.push_str("    when:\n");
        for condition in &rule.when {
            let _ = writeln!(out, "      - {}", setting_condition(condition));
        }
    }
}

fn setting_condition(condition: &SettingCondition) -> String {
    let mut text = format!("{{setting: {}", condition.setting);
    if let Some(default) = &condition.default {
        let _ = write!(text, ", default: {}", quote(default));
    }
    if condition.count {
        text.push_str(", count: true");
    }
    let _ = write!(text, ", operator: {}", yaml_name(&condition.operator));
    if let Some(pattern) = &condition.pattern {
        let _ = write!(text, ", pattern: {}", quote(pattern));
    }
    if condition.negate {
        text.push_str(", negate: true");
    }
    text.push('}');
    text
}

/// The name serde gives a unit enum value, which is the name the YAML uses.
fn yaml_name<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        other => unreachable!("a rule enum serializes as a string, got {other:?}"),
    }
}

fn name_list<T: Serialize>(items: &[T]) -> String {
    let names: Vec<String> = items.iter().map(yaml_name).collect();
    format!("[{}]", names.join(", "))
}

fn variable_spec(spec: &VariableSpec) -> String {
    let kind = spec.variable.name();
    if spec.names.is_empty() && spec.exclude.is_empty() && !spec.count {
        return kind.to_string();
    }
    let mut text = format!("{{type: {kind}");
    if spec.count {
        text.push_str(", count: true");
    }
    if !spec.names.is_empty() {
        let _ = write!(text, ", names: {}", flow_list(&spec.names));
    }
    if !spec.exclude.is_empty() {
        let _ = write!(text, ", exclude: {}", flow_list(&spec.exclude));
    }
    text.push('}');
    text
}

fn chain_condition(condition: &ChainCondition) -> String {
    let mut text = format!(
        "{{target: {}, operator: {}, pattern: {}",
        quote(&yaml_name(&condition.target)),
        yaml_name(&condition.operator),
        quote(&condition.pattern)
    );
    if let Some(setting) = &condition.setting {
        let _ = write!(text, ", setting: {setting}");
    }
    if !condition.transforms.is_empty() {
        let _ = write!(text, ", transforms: {}", name_list(&condition.transforms));
    }
    if condition.negate {
        text.push_str(", negate: true");
    }
    text.push('}');
    text
}

fn flow_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| quote(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A YAML scalar holding exactly `text`: single-quoted when it has no control characters (only `'`
/// needs escaping there, by doubling), double-quoted with escapes otherwise.
fn quote(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return format!("'{}'", text.replace('\'', "''"));
    }
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Keeps a warning on one comment line.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::{
        Action, ChainTarget, OperatorKind, Phase, Rule, Severity, Transform, Variable,
    };

    #[test]
    fn quoting_keeps_backslashes_and_escapes_quotes() {
        assert_eq!(quote(r#"(?i)[\"'`]\x0b"#), r#"'(?i)[\"''`]\x0b'"#);
        assert_eq!(quote("a\u{0}b\"\\"), r#""a\u0000b\"\\""#);
    }

    #[test]
    fn writes_a_rule_in_field_order() {
        let rule = Rule {
            id: 942130,
            msg: "it's".into(),
            name: None,
            category: Some("sqli".into()),
            severity: Some(Severity::Critical),
            tags: vec!["attack-sqli".into()],
            paranoia_level: 2,
            operator: OperatorKind::Regex,
            pattern: Some(r"(\w+)=(\w+)".into()),
            setting: None,
            phrases: Vec::new(),
            negate: false,
            variables: vec![
                VariableSpec::all(Variable::ArgsGet),
                VariableSpec {
                    variable: Variable::RequestHeaders,
                    names: vec![],
                    exclude: vec!["Cookie".into()],
                    count: false,
                },
            ],
            transforms: vec![Transform::UrlDecodeUni],
            multi_match: true,
            action: Action::Deny,
            chain: vec![ChainCondition {
                target: ChainTarget::Capture(1),
                operator: OperatorKind::Equals,
                pattern: "${capture:2}".into(),
                setting: None,
                transforms: vec![],
                negate: true,
            }],
            hosts: Vec::new(),
            when: Vec::new(),
            confirm: None,
            phase: Phase::Request,
        };
        let converted = Converted {
            rules: vec![ConvertedRule {
                rule,
                warnings: vec!["w".into()],
            }],
            version: Some("OWASP_CRS/4.0".into()),
            warnings: vec![],
        };
        let text = write(&converted, "X.conf", "# (c) someone");
        let expected = r#"# Converted by `rulec import-crs` from X.conf (OWASP_CRS/4.0). Do not edit: change the
# converter or the CRS file and convert again. Notice of the original file:
#
# (c) someone
rules:
  # converter: w
  - id: 942130
    msg: 'it''s'
    category: 'sqli'
    severity: CRITICAL
    paranoia_level: 2
    tags: ['attack-sqli']
    operator: regex
    pattern: '(\w+)=(\w+)'
    variables:
      - ARGS_GET
      - {type: REQUEST_HEADERS, exclude: ['Cookie']}
    transforms: [url_decode_uni]
    multi_match: true
    action: deny
    chain:
      - {target: 'capture:1', operator: equals, pattern: '${capture:2}', negate: true}
"#;
        assert_eq!(text, expected);
    }
}
