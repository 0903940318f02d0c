//! Operators: what decides whether a (transformed) value matches a rule, and the conditions of chained rules.
//!
//! Regexes run on a [`RegexEngine`]: dense DFAs built ahead of time, or `regex-automata`'s meta engine, which only
//! combines linear-time engines (lazy DFA, PikeVM, bounded backtracker): no pattern and no input can make a match
//! take more than linear time, so a rule author cannot introduce a ReDoS. The syntax is configured for ModSecurity's PCRE semantics: `.` matches a newline,
//! `^`/`$` match at line boundaries, and matching is on bytes (no UTF-8 assumption; `\w`, `\s`, `(?i)` are ASCII,
//! as in PCRE without its UTF flag). Look-around and back-references cannot be expressed and are load errors.

use crate::detect;
use crate::regex_engine::RegexEngine;
use crate::rule::{ChainOperator, ChainTarget, OperatorKind, Transform};
use crate::transform::{self, UnicodeMap};
use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;
use std::ops::Range;

/// A compiled NFA may use at most this much memory. The largest CRS 942 pattern needs a few MiB; the cap stops
/// a pathological pattern from exhausting memory at load time (it is then a load error, not an outage).
const NFA_SIZE_LIMIT: usize = 64 << 20;

/// ModSecurity's regex syntax: `.` matches a newline, multi-line anchors, bytes rather than UTF-8.
pub fn syntax_config() -> syntax::Config {
    syntax::Config::new()
        .dot_matches_new_line(true)
        .multi_line(true)
        .unicode(false)
        .utf8(false)
}

/// The meta engine's configuration: the NFA cap, and empty matches allowed inside UTF-8 sequences (bytes).
fn meta_config() -> meta::Config {
    Regex::config()
        .nfa_size_limit(Some(NFA_SIZE_LIMIT))
        .utf8_empty(false)
}

/// A function giving the engine of each regex a rule needs (see [`crate::regex_engine::RegexSource`]).
pub type RegexFactory<'a> = dyn FnMut(&str) -> Result<RegexEngine, String> + 'a;

/// Compiles a pattern, already through [`pcre_byte_escapes`], on the meta engine with ModSecurity's semantics; the
/// error is one line, fit for a load error.
pub fn build_meta(pattern: &str) -> Result<Regex, String> {
    Regex::builder()
        .syntax(syntax_config())
        .configure(meta_config())
        .build(pattern)
        .map_err(|e| match e.syntax_error() {
            Some(regex_syntax::Error::Parse(p)) => {
                format!(
                    "regex does not compile: {} (at offset {})",
                    p.kind(),
                    p.span().start.offset
                )
            }
            Some(regex_syntax::Error::Translate(t)) => {
                format!(
                    "regex does not compile: {} (at offset {})",
                    t.kind(),
                    t.span().start.offset
                )
            }
            _ => format!("regex does not compile: {e}"),
        })
}

/// Rewrites `\x{HH}` (one or two hex digits) as `\xHH`.
///
/// In PCRE without UTF mode (ModSecurity's), `\x{e2}` is the byte 0xE2; regex-syntax reads the braced form as
/// the code point U+00E2 (two bytes in UTF-8) even with Unicode off. CRS patterns use the braced form to match
/// UTF-8 sequences byte by byte (`\x{e2}\x80\x99` is a right single quote), so it must mean a byte here too.
pub fn pcre_byte_escapes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let escape = &rest[at..];
        let digits = escape
            .strip_prefix("\\x{")
            .and_then(|d| d.split_once('}'))
            .map(|(d, _)| d)
            .filter(|d| (1..=2).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_hexdigit()));
        match digits {
            Some(d) => {
                out.push_str(&format!("\\x{d:0>2}"));
                rest = &escape[4 + d.len()..];
            }
            None => {
                // Copy the backslash and the character it escapes, so `\\x{e2}` (a literal backslash) is kept.
                let len = escape[1..].chars().next().map_or(1, |c| 1 + c.len_utf8());
                out.push_str(&escape[..len]);
                rest = &escape[len..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A rule's main operator, ready to run.
#[derive(Debug)]
pub enum Matcher {
    Regex(RegexEngine),
    Contains(Box<memchr::memmem::Finder<'static>>),
    StartsWith(Vec<u8>),
    DetectorSqli,
    DetectorXss,
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
        regexes: &mut RegexFactory<'_>,
    ) -> Result<Matcher, String> {
        let need =
            || pattern.ok_or_else(|| format!("operator `{}` needs a pattern", operator_name(kind)));
        Ok(match kind {
            OperatorKind::Regex => Matcher::Regex(regexes(need()?)?),
            OperatorKind::Contains => Matcher::Contains(Box::new(
                memchr::memmem::Finder::new(need()?.as_bytes()).into_owned(),
            )),
            OperatorKind::StartsWith => Matcher::StartsWith(need()?.as_bytes().to_vec()),
            OperatorKind::DetectorSqli | OperatorKind::DetectorXss if pattern.is_some() => {
                return Err(format!(
                    "operator `{}` takes no pattern (use null)",
                    operator_name(kind)
                ));
            }
            OperatorKind::DetectorSqli => Matcher::DetectorSqli,
            OperatorKind::DetectorXss => Matcher::DetectorXss,
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
            Matcher::Regex(_) | Matcher::Contains(_) | Matcher::StartsWith(_) => None,
        }
    }

    /// Runs the operator on `value`. Capture groups are resolved only when `captures` is set (chained rules), since
    /// they need a slower engine than a plain search.
    pub fn find(&self, value: &[u8], captures: bool) -> Option<Found> {
        let whole = || Found::whole(value);
        match self {
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
        }
    }
}

fn operator_name(kind: OperatorKind) -> &'static str {
    match kind {
        OperatorKind::Regex => "regex",
        OperatorKind::Contains => "contains",
        OperatorKind::StartsWith => "starts_with",
        OperatorKind::DetectorSqli => "detector_sqli",
        OperatorKind::DetectorXss => "detector_xss",
    }
}

/// A pattern of `equals`/`contains`/`starts_with` conditions: literal text with `${capture:N}` references.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(Vec<u8>),
    Capture(usize),
}

fn parse_template(pattern: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut rest = pattern;
    while let Some(start) = rest.find("${") {
        let end = rest[start..]
            .find('}')
            .ok_or_else(|| format!("unterminated `${{` in `{pattern}`"))?;
        let reference = &rest[start + 2..start + end];
        let n = reference
            .strip_prefix("capture:")
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| {
                format!("unknown reference `${{{reference}}}`, expected `${{capture:N}}`")
            })?;
        pieces.push(Piece::Literal(rest.as_bytes()[..start].to_vec()));
        pieces.push(Piece::Capture(n));
        rest = &rest[start + end + 1..];
    }
    pieces.push(Piece::Literal(rest.as_bytes().to_vec()));
    Ok(pieces)
}

#[derive(Debug)]
enum ConditionOp {
    Regex(RegexEngine),
    Contains(Vec<Piece>),
    StartsWith(Vec<Piece>),
    Equals(Vec<Piece>),
}

/// One compiled chain condition.
#[derive(Debug)]
pub struct Condition {
    target: ChainTarget,
    op: ConditionOp,
    transforms: Vec<Transform>,
    negate: bool,
}

/// Which part of a chain condition is wrong, for the load error.
pub struct ConditionError {
    pub field: &'static str,
    pub message: String,
}

impl Condition {
    /// `groups` is the number of capture groups of the rule's regex (0 when the operator is not a regex).
    pub fn new(
        target: ChainTarget,
        operator: ChainOperator,
        pattern: &str,
        transforms: &[Transform],
        negate: bool,
        groups: usize,
        regexes: &mut RegexFactory<'_>,
    ) -> Result<Condition, ConditionError> {
        let check_group = |n: usize, field| {
            if n == 0 || n >= groups {
                Err(ConditionError {
                    field,
                    message: format!(
                        "capture group {n} does not exist (the rule's regex has {} capture group(s))",
                        groups.saturating_sub(1)
                    ),
                })
            } else {
                Ok(())
            }
        };
        if let ChainTarget::Capture(n) = target {
            check_group(usize::from(n), "target")?;
        }
        let template = || -> Result<Vec<Piece>, ConditionError> {
            let pieces = parse_template(pattern).map_err(|message| ConditionError {
                field: "pattern",
                message,
            })?;
            for piece in &pieces {
                if let Piece::Capture(n) = piece {
                    check_group(*n, "pattern")?;
                }
            }
            Ok(pieces)
        };
        let op = match operator {
            ChainOperator::Regex => {
                ConditionOp::Regex(regexes(pattern).map_err(|message| ConditionError {
                    field: "pattern",
                    message,
                })?)
            }
            ChainOperator::Contains => ConditionOp::Contains(template()?),
            ChainOperator::StartsWith => ConditionOp::StartsWith(template()?),
            ChainOperator::Equals => ConditionOp::Equals(template()?),
        };
        Ok(Condition {
            target,
            op,
            transforms: transform::effective_chain(transforms),
            negate,
        })
    }

    /// Whether the condition holds for a match `found` in `value`.
    /// `unicode_map`: the one the rule set's `url_decode_uni` uses.
    pub fn holds(&self, value: &[u8], found: &Found, unicode_map: UnicodeMap) -> bool {
        let group = |n: usize| -> &[u8] {
            found
                .groups
                .get(n)
                .cloned()
                .flatten()
                .and_then(|r| value.get(r))
                .unwrap_or(&[])
        };
        let target = match self.target {
            ChainTarget::MatchedValue => value,
            ChainTarget::Capture(n) => group(usize::from(n)),
        };
        let target = transform::apply_chain(&self.transforms, target, unicode_map);
        let expand = |pieces: &[Piece]| -> Vec<u8> {
            pieces
                .iter()
                .flat_map(|p| match p {
                    Piece::Literal(l) => l.as_slice(),
                    Piece::Capture(n) => group(*n),
                })
                .copied()
                .collect()
        };
        let result = match &self.op {
            ConditionOp::Regex(re) => re.is_match(&target[..]),
            ConditionOp::Contains(p) => memchr::memmem::find(&target, &expand(p)).is_some(),
            ConditionOp::StartsWith(p) => target.starts_with(&expand(p)),
            ConditionOp::Equals(p) => target == expand(p),
        };
        result != self.negate
    }

    /// The condition's regex, if it is a regex condition.
    pub fn regex(&self) -> Option<&RegexEngine> {
        match &self.op {
            ConditionOp::Regex(re) => Some(re),
            _ => None,
        }
    }

    /// Whether this condition reads capture groups (so the rule's regex must resolve them).
    pub fn needs_captures(&self) -> bool {
        let uses = |p: &[Piece]| p.iter().any(|p| matches!(p, Piece::Capture(_)));
        matches!(self.target, ChainTarget::Capture(_))
            || match &self.op {
                ConditionOp::Regex(_) => false,
                ConditionOp::Contains(p) | ConditionOp::StartsWith(p) | ConditionOp::Equals(p) => {
                    uses(p)
                }
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lazy(p: &str) -> Result<RegexEngine, String> {
        RegexEngine::lazy(p)
    }

    fn regex(p: &str) -> Matcher {
        Matcher::new(OperatorKind::Regex, Some(p), &mut lazy).unwrap()
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
            let err = Matcher::new(OperatorKind::Regex, Some(p), &mut lazy).unwrap_err();
            assert!(err.starts_with("regex does not compile"), "{p}: {err}");
        }
    }

    #[test]
    fn string_operators() {
        let contains = Matcher::new(OperatorKind::Contains, Some("../"), &mut lazy).unwrap();
        assert_eq!(contains.find(b"/a/../b", false).unwrap().span, 3..6);
        assert!(contains.find(b"/a/./b", false).is_none());
        let starts = Matcher::new(OperatorKind::StartsWith, Some("() {"), &mut lazy).unwrap();
        assert!(starts.find(b"() { :; }; cat", false).is_some());
        assert!(starts.find(b"x() {", false).is_none());
    }

    #[test]
    fn operator_pattern_rules() {
        assert!(
            Matcher::new(OperatorKind::Regex, None, &mut lazy)
                .unwrap_err()
                .contains("needs a pattern")
        );
        assert!(Matcher::new(OperatorKind::Contains, None, &mut lazy).is_err());
        assert!(
            Matcher::new(OperatorKind::DetectorSqli, Some("x"), &mut lazy)
                .unwrap_err()
                .contains("takes no pattern")
        );
        assert!(Matcher::new(OperatorKind::DetectorXss, None, &mut lazy).is_ok());
    }

    #[test]
    fn captures_and_conditions() {
        let m = regex(r"(\w+)\s*=\s*(\w+)");
        assert_eq!(m.group_count(), 3);
        let value = b"x' or a = a";
        let found = m.find(value, true).unwrap();
        let equal = Condition::new(
            ChainTarget::Capture(1),
            ChainOperator::Equals,
            "${capture:2}",
            &[],
            false,
            3,
            &mut lazy,
        )
        .ok()
        .unwrap();
        assert!(equal.needs_captures());
        assert!(equal.holds(value, &found, UnicodeMap::default()));
        let differ = Condition::new(
            ChainTarget::Capture(1),
            ChainOperator::Equals,
            "${capture:2}",
            &[],
            true,
            3,
            &mut lazy,
        )
        .ok()
        .unwrap();
        assert!(!differ.holds(value, &found, UnicodeMap::default()));
        let not_token = Condition::new(
            ChainTarget::MatchedValue,
            ChainOperator::Regex,
            r"^[,\-0-9=A-Z_a-z]+$",
            &[],
            true,
            3,
            &mut lazy,
        )
        .ok()
        .unwrap();
        assert!(not_token.holds(value, &found, UnicodeMap::default()));
        assert!(!not_token.holds(
            b"a=a",
            &m.find(b"a=a", true).unwrap(),
            UnicodeMap::default()
        ));
        let lowered = Condition::new(
            ChainTarget::Capture(1),
            ChainOperator::Equals,
            "abc",
            &[Transform::Lowercase],
            false,
            3,
            &mut lazy,
        )
        .ok()
        .unwrap();
        assert!(lowered.holds(
            b"ABC=1",
            &m.find(b"ABC=1", true).unwrap(),
            UnicodeMap::default()
        ));
    }

    #[test]
    fn condition_errors_name_the_field() {
        let err = |target, op, pattern: &str| {
            Condition::new(target, op, pattern, &[], false, 2, &mut lazy)
                .err()
                .map(|e| (e.field, e.message))
        };
        assert_eq!(
            err(ChainTarget::Capture(2), ChainOperator::Equals, "x")
                .unwrap()
                .0,
            "target"
        );
        assert_eq!(
            err(
                ChainTarget::Capture(1),
                ChainOperator::Equals,
                "${capture:5}"
            )
            .unwrap()
            .0,
            "pattern"
        );
        assert_eq!(
            err(ChainTarget::Capture(1), ChainOperator::Equals, "${nope}")
                .unwrap()
                .0,
            "pattern"
        );
        assert_eq!(
            err(ChainTarget::MatchedValue, ChainOperator::Regex, "(?=x)")
                .unwrap()
                .0,
            "pattern"
        );
        assert!(
            err(
                ChainTarget::Capture(1),
                ChainOperator::Equals,
                "${capture:1}"
            )
            .is_none()
        );
    }
}
