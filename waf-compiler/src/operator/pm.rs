//! `pm` (ModSecurity's `@pm` and `@pmFromFile`): any of the rule's `phrases` occurs in the value, ASCII
//! case-insensitive. One Aho-Corasick automaton holds all the phrases, so a value is scanned once however many
//! there are. A chain condition's `pm` takes its phrases as its pattern (space-separated), not from files.

use super::condition::ConditionOp;
use super::{Build, Matcher, Operator, OperatorError};
use crate::rule::OperatorKind;
use aho_corasick::{AhoCorasick, MatchKind};
use std::ops::Range;

pub(super) const OPERATOR: Operator = Operator {
    kind: OperatorKind::Pm,
    name: "pm",
    modsecurity: &["pm", "pmFromFile", "pmf"],
    takes_pattern: false,
    compares_settings: false,
    build: Build::Search(|_, phrases, _| {
        if phrases.is_empty() {
            return Err(OperatorError::NoPhrases);
        }
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostFirst)
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

/// The first phrase found in `value`.
pub(super) fn find(automaton: &AhoCorasick, value: &[u8]) -> Option<Range<usize>> {
    automaton.find(value).map(|m| m.range())
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
}
