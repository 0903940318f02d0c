//! Target exclusions: a rule kept, but not run on one variable of the request, as ModSecurity's
//! `SecRuleUpdateTargetById 942100 "!ARGS:q"` (a parameter that legitimately carries SQL-looking text, say).
//!
//! The rule is skipped on that value before it runs, rather than its match dropped afterwards: evaluation reports
//! one match per rule, so dropping "the match on `ARGS:q`" would also drop what the rule would have found in
//! another parameter of the same request.
use crate::rule::Variable;
use std::fmt;

/// One rule not run on one variable (`ARGS:q`), or on a single-valued variable (`REQUEST_URI`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TargetExclusion {
    pub rule_id: u32,
    pub variable: Variable,
    /// The key within the variable, compared as a rule's `names` compares it (exactly; headers without regard
    /// to ASCII case); empty for a single-valued variable.
    pub key: Vec<u8>,
}

/// Why a target does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TargetError(String);

impl TargetExclusion {
    /// `target` as a match names its variable: `ARGS:q`, `REQUEST_HEADERS:User-Agent`, `REQUEST_URI`.
    pub fn parse(rule_id: u32, target: &str) -> Result<TargetExclusion, TargetError> {
        let (name, key) = target.split_once(':').unwrap_or((target, ""));
        let variable = Variable::parse(name).ok_or_else(|| {
            TargetError(format!(
                "{name:?} is not a variable (e.g. ARGS:q, REQUEST_HEADERS:User-Agent, REQUEST_URI)"
            ))
        })?;
        Ok(TargetExclusion {
            rule_id,
            variable,
            key: key.as_bytes().to_vec(),
        })
    }

    fn covers(&self, variable: Variable, key: &[u8]) -> bool {
        self.variable == variable
            && match variable.case_insensitive_keys() {
                true => self.key.eq_ignore_ascii_case(key),
                false => self.key == key,
            }
    }
}

/// As the configuration writes it: `{rule: 942100, variable: "ARGS:q"}`.
impl serde::Serialize for TargetExclusion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut map = s.serialize_struct("TargetExclusion", 2)?;
        map.serialize_field("rule", &self.rule_id)?;
        map.serialize_field("variable", &self.to_string())?;
        map.end()
    }
}

impl fmt::Display for TargetExclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.variable.name())?;
        if !self.key.is_empty() {
            write!(f, ":{}", String::from_utf8_lossy(&self.key))?;
        }
        Ok(())
    }
}

/// The exclusions in force for one request, sorted by rule id.
#[derive(Debug, Clone, Copy, Default)]
pub struct Exclusions<'a>(&'a [TargetExclusion]);

impl<'a> Exclusions<'a> {
    /// `sorted` must be sorted (by rule id first, as [`TargetExclusion`]'s order is).
    pub fn new(sorted: &'a [TargetExclusion]) -> Exclusions<'a> {
        debug_assert!(sorted.is_sorted());
        Exclusions(sorted)
    }

    /// Those of rule `rule_id`. Called for every rule of every request: without exclusions (most domains) it
    /// costs one comparison.
    #[inline]
    pub fn of_rule(self, rule_id: u32) -> Exclusions<'a> {
        if self.0.is_empty() {
            return self;
        }
        let start = self.0.partition_point(|t| t.rule_id < rule_id);
        let len = self.0[start..].partition_point(|t| t.rule_id == rule_id);
        Exclusions(&self.0[start..start + len])
    }

    pub fn is_empty(self) -> bool {
        self.0.is_empty()
    }

    /// Whether one of them covers the value `key` of `variable`.
    pub fn covers(self, variable: Variable, key: &[u8]) -> bool {
        self.0.iter().any(|t| t.covers(variable, key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_as_matches_name_them_and_compare_keys_without_case() {
        let t = TargetExclusion::parse(942100, "ARGS:q").unwrap();
        assert_eq!((t.variable, t.key.as_slice()), (Variable::Args, &b"q"[..]));
        assert_eq!(t.to_string(), "ARGS:q");
        assert!(t.covers(Variable::Args, b"q") && !t.covers(Variable::Args, b"Q"));
        let header = TargetExclusion::parse(1, "REQUEST_HEADERS:User-Agent").unwrap();
        assert!(header.covers(Variable::RequestHeaders, b"user-agent"));
        assert!(!t.covers(Variable::Args, b"qq"));
        assert!(!t.covers(Variable::ArgsGet, b"q"));
        let uri = TargetExclusion::parse(1, "REQUEST_URI").unwrap();
        assert!(uri.covers(Variable::RequestUri, b""));
        let err = TargetExclusion::parse(1, "ARG:q").unwrap_err();
        assert!(
            err.to_string().contains("\"ARG\" is not a variable"),
            "{err}"
        );
    }

    #[test]
    fn a_rule_sees_only_its_own_exclusions() {
        let mut all: Vec<TargetExclusion> =
            [(3, "ARGS:a"), (1, "ARGS:b"), (3, "ARGS:c"), (5, "ARGS:d")]
                .iter()
                .map(|(id, t)| TargetExclusion::parse(*id, t).unwrap())
                .collect();
        all.sort();
        let all = Exclusions::new(&all);
        let three = all.of_rule(3);
        assert!(three.covers(Variable::Args, b"a") && three.covers(Variable::Args, b"c"));
        assert!(!three.covers(Variable::Args, b"b"));
        assert!(all.of_rule(4).is_empty());
    }
}
