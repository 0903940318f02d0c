//! `regex` (ModSecurity's `@rx`): the pattern is a regular expression searched for in the value.
//!
//! Regexes run on a [`RegexEngine`]: dense DFAs built ahead of time, or `regex-automata`'s meta engine, which
//! only combines linear-time engines (lazy DFA, PikeVM, bounded backtracker): no pattern and no input can make a
//! match take more than linear time, so a rule author cannot introduce a ReDoS. The syntax is configured for
//! ModSecurity's PCRE semantics: `.` matches a newline, `^`/`$` match at line boundaries, and matching is on
//! bytes (no UTF-8 assumption; `\w`, `\s`, `(?i)` are ASCII, as in PCRE without its UTF flag). Look-around and
//! back-references cannot be expressed and are load errors.

use super::condition::ConditionOp;
use super::{Build, Found, Matcher, Operator};
use crate::regex_engine::RegexEngine;

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["rx"],
    takes_pattern: true,
    compares_settings: false,
    build: Build::Search(|pattern, _, regexes| Ok(Matcher::Regex(regexes(pattern)?))),
    condition: Some(|pattern, _, regexes| Ok(ConditionOp::Regex(regexes(pattern)?))),
};

/// The match of `re` in `value`. Capture groups are resolved only when `captures` is set (chained rules), since
/// they need a slower engine than a plain search.
pub(super) fn find(re: &RegexEngine, value: &[u8], captures: bool) -> Option<Found> {
    if re.matches_whole() {
        return Some(Found {
            span: 0..value.len(),
            groups: match captures {
                true => vec![Some(0..value.len())],
                false => Vec::new(),
            },
        });
    }
    if captures {
        let caps = re.captures(value)?;
        let span = caps.get_match()?.range();
        let groups = (0..caps.group_len())
            .map(|i| caps.get_group(i).map(|s| s.range()))
            .collect();
        return Some(Found { span, groups });
    }
    re.find(value).map(|m| Found {
        span: m.range(),
        groups: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use crate::operator::Matcher;
    use crate::regex_engine::{RegexEngine, RegexError};
    use crate::rule::OperatorKind;

    fn lazy(p: &str) -> Result<RegexEngine, RegexError> {
        RegexEngine::lazy(p)
    }

    fn regex(p: &str) -> Matcher {
        Matcher::new(OperatorKind::Regex, Some(p), &[], &mut lazy).unwrap()
    }

    #[test]
    fn regex_has_modsecurity_semantics() {
        assert!(
            regex("a.b").find(b"a\nb", false).is_some(),
            "dot matches newline"
        );
        assert!(
            regex("^b$").find(b"a\nb\nc", false).is_some(),
            "multi-line anchors"
        );
        assert!(regex("(?i)select").find(b"SeLeCt", false).is_some());
        assert!(
            regex("select").find(b"SELECT", false).is_none(),
            "case-sensitive unless (?i)"
        );
        assert!(
            regex(r"\xff").find(b"a\xffb", false).is_some(),
            "bytes, not UTF-8"
        );
        assert!(
            regex(r"a\w+").find("aé".as_bytes(), false).is_none(),
            r"\w is ASCII"
        );
        let found = regex("o+").find(b"foo", false).unwrap();
        assert_eq!(found.span, 1..3);
    }

    #[test]
    fn lookaround_and_backreferences_are_refused() {
        for p in [r"a(?=b)", r"(?<!a)b", r"(a)\1", "(unclosed"] {
            let err = Matcher::new(OperatorKind::Regex, Some(p), &[], &mut lazy).unwrap_err();
            assert!(
                err.to_string().starts_with("regex does not compile"),
                "{p}: {err}"
            );
        }
    }
}
