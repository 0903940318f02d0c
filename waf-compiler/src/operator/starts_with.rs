//! `starts_with` (ModSecurity's `@beginsWith`): the value starts with the pattern.

use super::condition::{ConditionOp, checked_template};
use super::{Build, Matcher, Operator};
use std::ops::Range;

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["beginsWith"],
    takes_pattern: true,
    compares_settings: false,
    build: Build::Search(|pattern, _, _| Ok(Matcher::StartsWith(pattern.as_bytes().to_vec()))),
    condition: Some(|pattern, groups, _| {
        Ok(ConditionOp::Text(holds, checked_template(pattern, groups)?))
    }),
};

/// The prefix's span when `value` starts with it.
pub(super) fn find(prefix: &[u8], value: &[u8]) -> Option<Range<usize>> {
    holds(value, prefix).then_some(0..prefix.len())
}

/// `target` starts with `pattern` (for a chain condition, expanded for the match).
fn holds(target: &[u8], pattern: &[u8]) -> bool {
    target.starts_with(pattern)
}

#[cfg(test)]
mod tests {
    use crate::operator::Matcher;
    use crate::regex_engine::RegexEngine;
    use crate::rule::OperatorKind;

    #[test]
    fn matches_a_prefix() {
        let starts = Matcher::new(
            OperatorKind::StartsWith,
            Some("() {"),
            &[],
            &mut RegexEngine::lazy,
        )
        .unwrap();
        assert!(starts.find(b"() { :; }; cat", false).is_some());
        assert!(starts.find(b"x() {", false).is_none());
    }
}
