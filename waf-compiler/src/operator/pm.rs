//! `pm` (ModSecurity's `@pm` and `@pmFromFile`): any of the rule's `phrases` occurs in the value, ASCII
//! case-insensitive. One Aho-Corasick automaton holds all the phrases, so a value is scanned once however many
//! there are. A chain condition's `pm` takes its phrases as its pattern (space-separated), not from files.

use super::condition::ConditionOp;
use super::{Build, Matcher, Operator, OperatorError};
use aho_corasick::{AhoCorasick, MatchKind};
use std::ops::Range;

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["pm", "pmFromFile", "pmf"],
    takes_pattern: false,
    compares_settings: false,
    build: Build::Search(|_, phrases, _| {
        if phrases.is_empty() {
            return Err(OperatorError::NoPhrases);
        }
        // Leftmost-longest: of the phrases starting where a hit starts, the whole word (`bin/arch`, not
        // `bin/ar`), which `find` needs to tell a name from the start of a longer one.
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(phrases)
            .map_err(|e| OperatorError::Phrases(e.to_string()))?;
        Ok(Matcher::Pm(Box::new(automaton)))
    }),
    condition: Some(|pattern, _, _| {
        Ok(ConditionOp::Pm(Box::new(
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(pattern.split_ascii_whitespace())
                .map_err(|e| OperatorError::Phrases(e.to_string()))?,
        )))
    }),
};

/// The first phrase found in `value` that is a whole name where it ends, else the first: whether a phrase is
/// present does not depend on which hit is reported, and a confirmer can then judge it (`$PATH` later in a
/// value, not `$path` of `$pathname`).
pub(super) fn find(automaton: &AhoCorasick, value: &[u8]) -> Option<Range<usize>> {
    let mut hits = automaton.find_iter(value);
    let first = hits.next()?;
    let hit = if continues_name(value, first.end()) {
        hits.find(|m| !continues_name(value, m.end()))
            .unwrap_or(first)
    } else {
        first
    };
    Some(hit.range())
}

/// Whether the hit of `value` ending at `end` ends inside a name: a letter, digit or underscore on both sides
/// (`$path` of `$pathname`, `bin/ar` of `bin/archive`).
pub fn continues_name(value: &[u8], end: usize) -> bool {
    end > 0 && value.get(end - 1).is_some_and(is_name_byte) && value.get(end).is_some_and(is_name_byte)
}

/// A byte of a name as shells and programming languages read one: a letter, a digit or `_`.
pub fn is_name_byte(b: &u8) -> bool {
    b.is_ascii_alphanumeric() || *b == b'_'
}

#[cfg(test)]
mod tests {
    use crate::operator::Matcher;
    use crate::regex_engine::RegexEngine;
    use crate::rule::OperatorKind;

    #[test]
    fn finds_any_phrase_case_insensitively() {
        let phrases = ["/etc/passwd".to_string(), "boot.ini".to_string()];
        let pm = Matcher::new(OperatorKind::Pm, None, &phrases, &mut RegexEngine::lazy).unwrap();
        assert_eq!(pm.find(b"x=../../ETC/passwd", false).unwrap().span, 7..18);
        assert!(pm.find(b"C:\\Boot.INI", false).is_some());
        assert!(pm.find(b"/etc/hosts", false).is_none());
    }

    #[test]
    fn reports_a_whole_name_before_the_start_of_a_longer_one() {
        let phrases = ["bin/ar", "bin/arch", "$path"].map(String::from);
        let pm = Matcher::new(OperatorKind::Pm, None, &phrases, &mut RegexEngine::lazy).unwrap();
        // The longest phrase where a hit starts, and a later whole name before an earlier prefix.
        assert_eq!(pm.find(b"/bin/arch", false).unwrap().span, 1..9);
        assert_eq!(pm.find(b"$pathname=$PATH;", false).unwrap().span, 10..15);
        // Only prefixes of longer names: the first is reported all the same (the rule matches).
        assert_eq!(pm.find(b"$pathname", false).unwrap().span, 0..5);
        assert!(super::continues_name(b"$pathname", 5));
        assert!(!super::continues_name(b"bin/aa-x", 7));
    }
}
