//! Loading: rule directories → YAML documents → [`Rule`]s, with errors that name file, rule id and field.
//!
//! The proxy reloads rules while serving, so one broken file must never take the others down: a file with any
//! error is skipped as a whole (half a file is a surprise), its errors are reported, and every other file loads.
//! Nothing is accepted silently: an unknown field, variable, operator or transform is an error, never a rule that
//! quietly never matches.
//!
//! YAML is read with `serde-saphyr` (where older designs name `serde_yaml`: that crate is deprecated and archived;
//! serde-saphyr is its maintained, pure-Rust, panic-free successor, with limits against alias bombs).

use crate::rule::{REQUIRED_FIELDS, Rule};
use std::fmt;
use std::path::{Path, PathBuf};

/// A problem with one file or one rule. `Display` gives `file: rule ID: field `F`: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub file: PathBuf,
    pub rule_id: Option<u32>,
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(id) = self.rule_id {
            write!(f, ": rule {id}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    pub fn file(file: &Path, message: impl Into<String>) -> Self {
        LoadError {
            file: file.to_owned(),
            rule_id: None,
            field: None,
            message: message.into(),
        }
    }
}

/// Parses the rules of one file (one rule, several YAML documents, or a `rules:` list). Errors name the file,
/// the rule id when known and the field.
pub fn parse_rules(file: &Path, text: &str) -> Result<Vec<Rule>, Vec<LoadError>> {
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    for entry in rule_entries(file, text)? {
        match parse_rule(file, entry) {
            Ok(rule) => rules.push(rule),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(rules)
    } else {
        Err(errors)
    }
}

/// The rule mappings of one file in any of the shapes [`parse_rules`] reads, not yet checked as rules (the admin
/// panel stores a domain's rules as this data).
pub fn rule_entries(file: &Path, text: &str) -> Result<Vec<serde_json::Value>, Vec<LoadError>> {
    let documents: Vec<serde_json::Value> = serde_saphyr::from_multiple(text)
        .map_err(|e| vec![LoadError::file(file, format!("invalid YAML: {e}"))])?;
    let mut all = Vec::new();
    let mut errors = Vec::new();
    for document in documents {
        let entries = match document {
            serde_json::Value::Object(mut map) if map.contains_key("rules") => {
                let list = map.remove("rules");
                if let Some(other) = map.keys().next() {
                    errors.push(LoadError::file(
                        file,
                        format!("unknown top-level key `{other}` next to `rules`"),
                    ));
                }
                match list {
                    Some(serde_json::Value::Array(list)) => list,
                    _ => {
                        errors.push(LoadError {
                            field: Some("rules".into()),
                            ..LoadError::file(file, "must be a list of rules")
                        });
                        continue;
                    }
                }
            }
            serde_json::Value::Array(list) => list,
            rule @ serde_json::Value::Object(_) => vec![rule],
            _ => {
                errors.push(LoadError::file(
                    file,
                    "expected a rule mapping or a `rules:` list",
                ));
                continue;
            }
        };
        all.extend(entries);
    }
    if errors.is_empty() {
        Ok(all)
    } else {
        Err(errors)
    }
}

fn parse_rule(file: &Path, value: serde_json::Value) -> Result<Rule, Vec<LoadError>> {
    let rule_id = value
        .get("id")
        .and_then(serde_json::Value::as_u64)
        .and_then(|id| u32::try_from(id).ok());
    let error = |field: Option<String>, message: String| LoadError {
        file: file.to_owned(),
        rule_id,
        field,
        message,
    };
    let serde_json::Value::Object(map) = &value else {
        return Err(vec![error(None, "a rule must be a mapping".into())]);
    };
    let missing: Vec<LoadError> = REQUIRED_FIELDS
        .iter()
        .filter(|f| !map.contains_key(**f))
        .map(|f| error(Some((*f).into()), "missing required field".into()))
        .collect();
    if !missing.is_empty() {
        return Err(missing);
    }
    serde_path_to_error::deserialize::<_, Rule>(value).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
        let field = if path == "." {
            // serde reports an unknown field at the parent; take the name from its message.
            message
                .strip_prefix("unknown field `")
                .and_then(|rest| rest.split('`').next())
                .map(str::to_owned)
        } else {
            Some(path)
        };
        vec![error(field, message)]
    })
}

/// Directories deeper than this below a rule directory are not scanned: it stops symlink loops, and no sane rule
/// tree is that deep.
const MAX_SCAN_DEPTH: usize = 16;

/// Every `.yaml`/`.yml` file below `dir`, sorted, with the errors of unreadable directories.
pub fn scan_dir(dir: &Path) -> (Vec<PathBuf>, Vec<LoadError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    if !dir.is_dir() {
        errors.push(LoadError::file(dir, "not a directory"));
        return (files, errors);
    }
    scan(dir, 0, &mut files, &mut errors);
    files.sort();
    (files, errors)
}

fn scan(dir: &Path, depth: usize, files: &mut Vec<PathBuf>, errors: &mut Vec<LoadError>) {
    if depth > MAX_SCAN_DEPTH {
        errors.push(LoadError::file(
            dir,
            format!("more than {MAX_SCAN_DEPTH} levels deep; not scanned"),
        ));
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(LoadError::file(dir, format!("cannot read directory: {e}")));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            scan(&path, depth + 1, files, errors);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) {
            files.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(text: &str) -> Vec<String> {
        parse_rules(Path::new("r.yaml"), text)
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    const BASE: &str = "msg: m\nvariables: [ARGS]\naction: deny\n";

    #[test]
    fn all_file_shapes() {
        let one = format!("id: 1\n{BASE}");
        let many = format!("id: 1\n{BASE}---\nid: 2\n{BASE}");
        let list = "rules:\n  - {id: 1, msg: m, variables: [ARGS], action: deny}\n  - {id: 2, msg: m, variables: [BODY], action: log}\n";
        for (text, n) in [
            (one.as_str(), 1),
            (many.as_str(), 2),
            (list, 2),
            ("", 0),
            ("# only a comment\n", 0),
        ] {
            assert_eq!(
                parse_rules(Path::new("f.yaml"), text).unwrap().len(),
                n,
                "{text}"
            );
        }
    }

    #[test]
    fn defaults_and_advanced_variables() {
        let text = "id: 7\nmsg: m\naction: log\nvariables: [ARGS, {type: HEADERS, names: [User-Agent]}, {type: ARGS_NAMES, exclude: ['/^x/']}]\n";
        let rule = &parse_rules(Path::new("f.yaml"), text).unwrap()[0];
        assert_eq!(rule.paranoia_level, 1);
        assert_eq!(rule.operator, crate::rule::OperatorKind::Regex);
        assert!(rule.transforms.is_empty() && rule.tags.is_empty() && rule.chain.is_empty());
        assert_eq!(rule.pattern, None);
        assert_eq!(rule.variables[1].names, ["User-Agent"]);
        assert_eq!(rule.variables[2].exclude, ["/^x/"]);
    }

    #[test]
    fn errors_name_file_rule_and_field() {
        assert_eq!(
            errors("id: 5\nvariables: [ARGS]\naction: deny\n"),
            ["r.yaml: rule 5: field `msg`: missing required field"]
        );
        let e = errors(&format!("id: 5\noperator: regexp\n{BASE}"));
        assert!(
            e[0].starts_with("r.yaml: rule 5: field `operator`: unknown variant `regexp`"),
            "{e:?}"
        );
        let e = errors("id: 5\nmsg: m\naction: deny\nvariables: [ARGS, NOPE]\n");
        assert!(
            e[0].starts_with("r.yaml: rule 5: field `variables[1]`: unknown variable `NOPE`"),
            "{e:?}"
        );
        let e = errors(&format!("id: 5\ntransforms: [url_decode, rot13]\n{BASE}"));
        assert!(
            e[0].starts_with("r.yaml: rule 5: field `transforms[1]`: unknown variant `rot13`"),
            "{e:?}"
        );
        let e = errors(&format!("id: 5\npatern: x\n{BASE}"));
        assert!(
            e[0].starts_with("r.yaml: rule 5: field `patern`: unknown field"),
            "{e:?}"
        );
        let e = errors(&format!("id: -3\n{BASE}"));
        assert!(e[0].starts_with("r.yaml: field `id`:"), "{e:?}");
        let e = errors(
            "id: 5
action: drop
msg: m
variables: [ARGS]
",
        );
        assert!(e[0].starts_with("r.yaml: rule 5: field `action`:"), "{e:?}");
        let e = errors("id: 5\nmsg: [unclosed\n");
        assert!(e[0].starts_with("r.yaml: invalid YAML"), "{e:?}");
        assert_eq!(
            errors("rules: 3\n"),
            ["r.yaml: field `rules`: must be a list of rules"]
        );
        assert_eq!(
            errors("just text\n"),
            ["r.yaml: expected a rule mapping or a `rules:` list"]
        );
    }
}

#[cfg(test)]
mod round_trip {
    use super::*;
    use crate::rule::*;

    /// The CRS converter writes rules with serde; what it writes must load back unchanged.
    #[test]
    fn serialized_rules_load_back_identical() {
        let rule = Rule {
            id: 942130,
            msg: "SQL Injection Attack: SQL Boolean-based attack detected".into(),
            name: Some("crs-942130".into()),
            category: Some("sqli".into()),
            severity: Some(Severity::Critical),
            tags: vec!["OWASP_CRS".into(), "attack-sqli".into()],
            paranoia_level: 2,
            operator: OperatorKind::Regex,
            pattern: Some(r#"(?i)[\s\x0b"'-\)`]*?\b([0-9A-Z_a-z]+)\b"#.into()),
            setting: None,
            phrases: Vec::new(),
            negate: false,
            variables: vec![
                VariableSpec::all(Variable::ArgsGet),
                VariableSpec {
                    variable: Variable::RequestHeaders,
                    names: vec!["User-Agent".into()],
                    exclude: vec!["/^x-/".into()],
                    count: false,
                },
                VariableSpec {
                    variable: Variable::Xml,
                    names: vec!["@*".into()],
                    exclude: Vec::new(),
                    count: false,
                },
            ],
            transforms: vec![
                Transform::None,
                Transform::UrlDecodeUni,
                Transform::ReplaceComments,
            ],
            multi_match: true,
            action: Action::Deny,
            chain: vec![ChainCondition {
                target: ChainTarget::Capture(1),
                operator: OperatorKind::Equals,
                pattern: "${capture:2}".into(),
                setting: None,
                transforms: vec![Transform::Lowercase],
                negate: true,
            }],
            hosts: Vec::new(),
            when: Vec::new(),
            confirm: None,
            phase: Phase::Request,
        };
        let detector = Rule {
            id: 942100,
            operator: OperatorKind::DetectorSqli,
            pattern: None,
            multi_match: false,
            chain: Vec::new(),
            ..rule.clone()
        };
        #[derive(serde::Serialize)]
        struct File<'a> {
            rules: &'a [Rule],
        }
        let rules = [rule, detector];
        let yaml = serde_saphyr::to_string(&File { rules: &rules }).unwrap();
        assert_eq!(
            parse_rules(Path::new("crs.yaml"), &yaml).unwrap(),
            rules,
            "{yaml}"
        );
    }
}
