//! `contains` (ModSecurity's `@contains`): the pattern occurs in the value.

use super::condition::{ConditionOp, checked_template};
use super::{Build, Matcher, Operator};
use memchr::memmem::Finder;
use std::ops::Range;

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["contains"],
    takes_pattern: true,
    compares_settings: false,
    build: Build::Search(|pattern, _, _| {
        Ok(Matcher::Contains(Box::new(
            Finder::new(pattern.as_bytes()).into_owned(),
        )))
    }),
    condition: Some(|pattern, groups, _| {
        Ok(ConditionOp::Text(holds, checked_template(pattern, groups)?))
    }),
};

/// Where the rule's pattern (searched for by `finder`) first occurs in `value`.
pub(super) fn find(finder: &Finder<'static>, value: &[u8]) -> Option<Range<usize>> {
    finder.find(value).map(|at| at..at + finder.needle().len())
}

/// A chain condition's test: `pattern` (expanded for the match) occurs in `target`.
fn holds(target: &[u8], pattern: &[u8]) -> bool {
    memchr::memmem::find(target, pattern).is_some()
}

#[cfg(test)]
mod tests {
    use crate::operator::Matcher;
    use crate::regex_engine::RegexEngine;
    use crate::rule::OperatorKind;

    #[test]
    fn finds_the_pattern() {
        let contains = Matcher::new(
            OperatorKind::Contains,
            Some("../"),
            &[],
            &mut RegexEngine::lazy,
        )
        .unwrap();
        assert_eq!(contains.find(b"/a/../b", false).unwrap().span, 3..6);
        assert!(contains.find(b"/a/./b", false).is_none());
        assert!(super::holds(b"/a/../b", b"../"));
        assert!(!super::holds(b"/a/./b", b"../"));
    }
}
