//! A provider's profile (the JSON of `raw_info_url`, or an ID token's claims) read into our fields through the
//! strategy's `info_mappings`, and checked against its `ensure_matching`.
//!
//! A mapping is `"path[,fallback...]"`: the first path naming a non-empty scalar wins. A path is dot-separated keys,
//! each optionally followed by `[i]` array indexes (`emails[0].value`, `data.attributes.mail`).

use regex::RegexBuilder;
use serde_json::Value;

/// Paths longer than this are not mappings an operator writes; they are refused rather than walked.
const MAX_PATH_LEN: usize = 256;
/// A compiled `ensure_matching` pattern may use this much memory (the regex crate's own default is 10x larger):
/// the patterns are operators', but a login should never spend megabytes on one.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Where each of our fields is found when the strategy does not map it: the names common providers use
/// (GitHub's `id`, OpenID Connect's `sub`, Google's and our own `name` / `full_name`).
fn default_mapping(field: &str) -> Option<&'static str> {
    Some(match field {
        "uid" => "id,sub,uid",
        "email" => "email",
        "name" => "name,full_name,preferred_username",
        _ => return None,
    })
}

/// The value at `path` in `profile`.
pub fn lookup<'a>(profile: &'a Value, path: &str) -> Option<&'a Value> {
    if path.is_empty() || path.len() > MAX_PATH_LEN {
        return None;
    }
    let mut at = profile;
    for segment in path.split('.') {
        let (key, mut indexes) = match segment.find('[') {
            Some(open) => (&segment[..open], &segment[open..]),
            None => (segment, ""),
        };
        if !key.is_empty() {
            at = at.get(key)?;
        }
        while let Some(rest) = indexes.strip_prefix('[') {
            let close = rest.find(']')?;
            at = at.get(rest[..close].parse::<usize>().ok()?)?;
            indexes = &rest[close + 1..];
        }
        if !indexes.is_empty() {
            return None;
        }
    }
    Some(at)
}

/// A scalar as text; objects, arrays, null and empty strings name nothing.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Our `field` read from `profile` through `mappings` (or its default mapping).
pub fn field(profile: &Value, mappings: &Value, field: &str) -> Option<String> {
    let paths = mappings
        .get(field)
        .and_then(Value::as_str)
        .or_else(|| default_mapping(field))?;
    paths
        .split(',')
        .map(str::trim)
        .find_map(|path| lookup(profile, path).and_then(scalar))
}

/// Why `ensure_matching` is unusable, or refuses a profile.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("ensure_matching must be a JSON object")]
    NotAnObject,
    #[error("ensure_matching.{0}: expected a regex or a list of them")]
    NotPatterns(String),
    #[error("ensure_matching.{field}: {error}")]
    Pattern { field: String, error: regex::Error },
    #[error("ensure_matching: the profile has no {0}")]
    Missing(String),
    #[error("ensure_matching: {0} matches none of the patterns")]
    NoMatch(String),
}

/// The patterns of `ensure_matching` (field → a regex or a list of them), compiled case-insensitively; an error
/// names the first field whose pattern does not compile.
pub fn compile_rules(rules: &Value) -> Result<Vec<(String, Vec<regex::Regex>)>, ProfileError> {
    let Some(rules) = rules.as_object() else {
        return match rules {
            Value::Null => Ok(Vec::new()),
            _ => Err(ProfileError::NotAnObject),
        };
    };
    rules
        .iter()
        .map(|(field, patterns)| {
            let patterns: Vec<&str> = match patterns {
                Value::String(p) => vec![p.as_str()],
                Value::Array(ps) => ps.iter().filter_map(Value::as_str).collect(),
                _ => {
                    return Err(ProfileError::NotPatterns(field.clone()));
                }
            };
            let compiled = patterns
                .iter()
                .map(|p| {
                    RegexBuilder::new(p)
                        .case_insensitive(true)
                        .size_limit(REGEX_SIZE_LIMIT)
                        .build()
                        .map_err(|error| ProfileError::Pattern {
                            field: field.clone(),
                            error,
                        })
                })
                .collect::<Result<_, _>>()?;
            Ok((field.clone(), compiled))
        })
        .collect()
}

/// `Ok` when every field of `ensure_matching` has a mapped value that one of its patterns matches.
pub fn ensure_matching(
    profile: &Value,
    mappings: &Value,
    rules: &Value,
) -> Result<(), ProfileError> {
    for (name, patterns) in compile_rules(rules)? {
        let Some(value) = field(profile, mappings, &name) else {
            return Err(ProfileError::Missing(name));
        };
        if !patterns.iter().any(|p| p.is_match(&value)) {
            return Err(ProfileError::NoMatch(name));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn profile() -> Value {
        json!({
            "id": 42,
            "login": "ada",
            "emails": [{"value": ""}, {"value": "ada@acme.test"}],
            "data": {"attributes": {"mail": "ADA@acme.test", "groups": [["a", "b"]]}},
            "full_name": "Ada Lovelace"
        })
    }

    #[test]
    fn paths_with_keys_and_indexes() {
        let p = profile();
        assert_eq!(lookup(&p, "emails[1].value"), Some(&json!("ada@acme.test")));
        assert_eq!(
            lookup(&p, "data.attributes.groups[0][1]"),
            Some(&json!("b"))
        );
        for missing in [
            "emails[2].value",
            "emails[x]",
            "emails[1",
            "emails[1]x",
            "nope",
            "",
            "a..b",
        ] {
            assert_eq!(lookup(&p, missing), None, "{missing}");
        }
        assert_eq!(lookup(&p, &"a.".repeat(200)), None);
    }

    #[test]
    fn fallbacks_skip_empty_values_and_defaults_apply() {
        let p = profile();
        let mappings = json!({"email": "emails[0].value, emails[1].value", "name": "nickname"});
        assert_eq!(
            field(&p, &mappings, "email").as_deref(),
            Some("ada@acme.test")
        );
        assert_eq!(field(&p, &mappings, "name"), None);
        assert_eq!(field(&p, &json!({}), "uid").as_deref(), Some("42"));
        assert_eq!(
            field(&p, &json!({}), "name").as_deref(),
            Some("Ada Lovelace")
        );
        assert_eq!(field(&p, &json!({}), "phone"), None);
    }

    #[test]
    fn ensure_matching_is_case_insensitive_and_refuses_misses() {
        let p = profile();
        let mappings = json!({"email": "data.attributes.mail"});
        assert!(ensure_matching(&p, &mappings, &json!({"email": "@acme\\.test$"})).is_ok());
        assert!(ensure_matching(&p, &mappings, &json!({"email": ["@other$", "^ada@"]})).is_ok());
        assert!(matches!(
            ensure_matching(&p, &mappings, &json!({"email": "@other\\.test$"})),
            Err(ProfileError::NoMatch(name)) if name == "email"
        ));
        assert!(matches!(
            ensure_matching(&p, &mappings, &json!({"phone": ".*"})),
            Err(ProfileError::Missing(name)) if name == "phone"
        ));
        assert!(matches!(
            ensure_matching(&p, &mappings, &json!({"email": "("})),
            Err(ProfileError::Pattern { .. })
        ));
        assert!(ensure_matching(&p, &mappings, &json!({})).is_ok());
        assert!(ensure_matching(&p, &mappings, &Value::Null).is_ok());
        assert!(matches!(
            ensure_matching(&p, &mappings, &json!([1])),
            Err(ProfileError::NotAnObject)
        ));
    }
}
