//! Operators: what decides whether a (transformed) value matches a rule, and the conditions of chained rules.
//!
//! Regexes run on a [`RegexEngine`]: dense DFAs built ahead of time, or `regex-automata`'s meta engine, which only
//! combines linear-time engines (lazy DFA, PikeVM, bounded backtracker): no pattern and no input can make a match
//! take more than linear time, so a rule author cannot introduce a ReDoS. The syntax is configured for ModSecurity's PCRE semantics: `.` matches a newline,
//! `^`/`$` match at line boundaries, and matching is on bytes (no UTF-8 assumption; `\w`, `\s`, `(?i)` are ASCII,
//! as in PCRE without its UTF flag). Look-around and back-references cannot be expressed and are load errors.

pub mod check;
mod condition;

pub use condition::{Condition, ConditionError, chain_holds};

use crate::detect;
use crate::regex_engine::{RegexEngine, RegexError, RegexFactory};
use crate::rule::OperatorKind;
use aho_corasick::{AhoCorasick, MatchKind};
use check::{Check, CheckError};
use std::ops::Range;

/// Why an operator (a rule's or a chain condition's) cannot be built from what the rule says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OperatorError {
    #[error("operator `{}` needs a pattern", .0.name())]
    NeedsPattern(OperatorKind),
    #[error("operator `{}` takes no pattern (use null)", .0.name())]
    TakesNoPattern(OperatorKind),
    /// A chain condition's check that takes no pattern (`validate_url_encoding`) was given one.
    #[error("the operator takes no pattern (use '')")]
    ConditionTakesNoPattern,
    #[error("`phrases` belong to the `pm` operator, not `{}`", .0.name())]
    PhrasesOutsidePm(OperatorKind),
    #[error("operator `pm` needs at least one entry in `phrases`")]
    NoPhrases,
    #[error("phrases do not compile: {0}")]
    Phrases(String),
    #[error("operator `{}` is not a search", .0.name())]
    NotASearch(OperatorKind),
    #[error("operator `{}` cannot be a chain condition", .0.name())]
    NotInChains(OperatorKind),
    /// Group 0 is the whole match (ModSecurity's TX:0); `groups` counts it.
    #[error(
        "capture group {group} does not exist (the rule's regex has {} capture group(s))",
        .groups.saturating_sub(1)
    )]
    NoSuchGroup { group: usize, groups: usize },
    #[error("unterminated `${{` in `{0}`")]
    UnterminatedReference(String),
    #[error("`${{{0}}}`: the capture group is a number")]
    GroupNotANumber(String),
    #[error(
        "unknown reference `${{{0}}}`, expected `${{capture:N}}` or a request variable \
         (`${{REQUEST_HEADERS:Host}}`, `${{ARGS_GET:a|ARGS_POST:a}}`)"
    )]
    UnknownReference(String),
    #[error(transparent)]
    Regex(#[from] RegexError),
    #[error(transparent)]
    Check(#[from] CheckError),
}

/// A rule's main operator, ready to run.
#[derive(Debug)]
pub enum Matcher {
    Regex(RegexEngine),
    Contains(Box<memchr::memmem::Finder<'static>>),
    StartsWith(Vec<u8>),
    DetectorSqli,
    DetectorXss,
    /// `pm`: one Aho-Corasick automaton over all the phrases, so a value is scanned once however many there are.
    Pm(Box<AhoCorasick>),
    Check(Check),
}

/// Where and how a value matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The matched bytes within the value (the whole value for the detectors).
    pub span: Range<usize>,
    /// Capture group spans (group 0 is the whole match), when requested and the operator is a regex.
    pub groups: Vec<Option<Range<usize>>>,
}

impl Found {
    /// A match of the whole value (the detectors').
    pub fn whole(value: &[u8]) -> Found {
        Found {
            span: 0..value.len(),
            groups: Vec::new(),
        }
    }
}

impl Matcher {
    /// Builds the operator; the error names what is wrong with `pattern`.
    pub fn new(
        kind: OperatorKind,
        pattern: Option<&str>,
        phrases: &[String],
        regexes: &mut RegexFactory<'_>,
    ) -> Result<Matcher, OperatorError> {
        let need = || pattern.ok_or(OperatorError::NeedsPattern(kind));
        if !phrases.is_empty() && kind != OperatorKind::Pm {
            return Err(OperatorError::PhrasesOutsidePm(kind));
        }
        if !kind.takes_pattern() && pattern.is_some() {
            return Err(OperatorError::TakesNoPattern(kind));
        }
        if let Some(check) = Check::new(kind, pattern) {
            if kind != OperatorKind::Unconditional && kind.takes_pattern() {
                need()?;
            }
            return Ok(Matcher::Check(check?));
        }
        Ok(match kind {
            OperatorKind::Regex => Matcher::Regex(regexes(need()?)?),
            OperatorKind::Contains => Matcher::Contains(Box::new(
                memchr::memmem::Finder::new(need()?.as_bytes()).into_owned(),
            )),
            OperatorKind::StartsWith => Matcher::StartsWith(need()?.as_bytes().to_vec()),
            OperatorKind::DetectorSqli => Matcher::DetectorSqli,
            OperatorKind::DetectorXss => Matcher::DetectorXss,
            OperatorKind::Pm => {
                if phrases.is_empty() {
                    return Err(OperatorError::NoPhrases);
                }
                let automaton = AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(phrases)
                    .map_err(|e| OperatorError::Phrases(e.to_string()))?;
                Matcher::Pm(Box::new(automaton))
            }
            _ => return Err(OperatorError::NotASearch(kind)),
        })
    }

    /// Number of capture groups including group 0 (1 for non-regex operators).
    pub fn group_count(&self) -> usize {
        match self {
            Matcher::Regex(re) => re.group_count(),
            _ => 1,
        }
    }

    /// For a detector, its number (0 SQLi, 1 XSS): its verdict depends on the value alone, so evaluation
    /// remembers it per value.
    pub fn detector(&self) -> Option<u8> {
        match self {
            Matcher::DetectorSqli => Some(0),
            Matcher::DetectorXss => Some(1),
            Matcher::Regex(_)
            | Matcher::Contains(_)
            | Matcher::StartsWith(_)
            | Matcher::Pm(_)
            | Matcher::Check(_) => None,
        }
    }

    /// Runs the operator on `value`. Capture groups are resolved only when `captures` is set (chained rules), since
    /// they need a slower engine than a plain search.
    pub fn find(&self, value: &[u8], captures: bool) -> Option<Found> {
        let whole = || Found::whole(value);
        match self {
            Matcher::Regex(re) if re.matches_whole() => Some(Found {
                span: 0..value.len(),
                groups: match captures {
                    true => vec![Some(0..value.len())],
                    false => Vec::new(),
                },
            }),
            Matcher::Regex(re) if captures => {
                let caps = re.captures(value)?;
                let span = caps.get_match()?.range();
                let groups = (0..caps.group_len())
                    .map(|i| caps.get_group(i).map(|s| s.range()))
                    .collect();
                Some(Found { span, groups })
            }
            Matcher::Regex(re) => re.find(value).map(|m| Found {
                span: m.range(),
                groups: Vec::new(),
            }),
            Matcher::Contains(finder) => finder.find(value).map(|at| Found {
                span: at..at + finder.needle().len(),
                groups: Vec::new(),
            }),
            Matcher::StartsWith(prefix) => value.starts_with(prefix).then(|| Found {
                span: 0..prefix.len(),
                groups: Vec::new(),
            }),
            Matcher::DetectorSqli => detect::sqli::is_sqli(value).then(whole),
            Matcher::DetectorXss => detect::xss::is_xss(value).then(whole),
            Matcher::Pm(automaton) => automaton.find(value).map(|m| Found {
                span: m.range(),
                groups: Vec::new(),
            }),
            Matcher::Check(check) => check.find(value).map(|span| Found {
                span,
                groups: Vec::new(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn string_operators() {
        let contains = Matcher::new(OperatorKind::Contains, Some("../"), &[], &mut lazy).unwrap();
        assert_eq!(contains.find(b"/a/../b", false).unwrap().span, 3..6);
        assert!(contains.find(b"/a/./b", false).is_none());
        let starts = Matcher::new(OperatorKind::StartsWith, Some("() {"), &[], &mut lazy).unwrap();
        assert!(starts.find(b"() { :; }; cat", false).is_some());
        assert!(starts.find(b"x() {", false).is_none());
    }

    #[test]
    fn operator_pattern_rules() {
        assert!(
            Matcher::new(OperatorKind::Regex, None, &[], &mut lazy)
                .unwrap_err()
                .to_string()
                .contains("needs a pattern")
        );
        assert!(Matcher::new(OperatorKind::Contains, None, &[], &mut lazy).is_err());
        assert!(
            Matcher::new(OperatorKind::DetectorSqli, Some("x"), &[], &mut lazy)
                .unwrap_err()
                .to_string()
                .contains("takes no pattern")
        );
        assert!(Matcher::new(OperatorKind::DetectorXss, None, &[], &mut lazy).is_ok());
        assert!(
            Matcher::new(OperatorKind::Pm, None, &[], &mut lazy)
                .unwrap_err()
                .to_string()
                .contains("phrases")
        );
        assert!(
            Matcher::new(OperatorKind::Regex, Some("a"), &["a".into()], &mut lazy)
                .unwrap_err()
                .to_string()
                .contains("belong to the `pm` operator")
        );
        assert!(Matcher::new(OperatorKind::Eq, None, &[], &mut lazy).is_err());
        assert!(Matcher::new(OperatorKind::Unconditional, None, &[], &mut lazy).is_ok());
    }

    #[test]
    fn pm_finds_any_phrase_case_insensitively() {
        let phrases = ["/etc/passwd".to_string(), "boot.ini".to_string()];
        let pm = Matcher::new(OperatorKind::Pm, None, &phrases, &mut lazy).unwrap();
        assert_eq!(pm.find(b"x=../../ETC/passwd", false).unwrap().span, 7..18);
        assert!(pm.find(b"C:\\Boot.INI", false).is_some());
        assert!(pm.find(b"/etc/hosts", false).is_none());
    }
}
