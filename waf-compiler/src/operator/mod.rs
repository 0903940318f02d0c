//! Operators: what decides whether a (transformed) value matches a rule or a chain condition.
//!
//! One file per operator, as Coraza keeps them: its row of the operator table (its ModSecurity names, whether
//! it takes a pattern, how it is built from the rule's pattern as a rule's operator and as a chain condition),
//! the functions that run it on a value, and its tests. This file holds the list of operators (`operators!`),
//! from which [`OperatorKind`] (the YAML contract), its names and the table are generated, and the compiled
//! forms that dispatch to the operators' files: a search is a [`Matcher`], an operator that is not a search a
//! [`Check`] (which setting conditions use too), a chain condition a [`Condition`] ([`condition`]). Adding an
//! operator is its file and its line in the list; only a new compiled form is also a variant of [`Matcher`] or
//! [`Check`], whose exhaustive matches the compiler points to.

pub mod check;
mod condition;

pub use condition::{Condition, chain_holds};
pub use kind::OperatorKind;
pub(crate) use pm::{continues_name, is_name_byte};

use crate::regex_engine::{RegexEngine, RegexError, RegexFactory};
use aho_corasick::AhoCorasick;
use check::{Check, CheckError};
use condition::ConditionOp;
use std::ops::Range;

/// Declares the operators from one list: each entry is an operator's file (declared as a module here), and for
/// each row that file exports, the operator's [`OperatorKind`] variant and YAML name. The enum, its names and
/// the table are generated together, in the same order, so an operator cannot lack its row or its name, and
/// `kind as usize` is its row's index. A compiled artifact stores the rules as JSON, an operator by its name, so
/// the order is free.
macro_rules! operators {
    ($($module:ident { $($(#[$attr:meta])* $variant:ident = $name:literal => $row:ident),+ $(,)? })+) => {
        $(mod $module;)+

        /// The operators' names: a module that imports nothing of the crate, so the rule model ([`crate::rule`])
        /// names operators without depending on how they are built.
        pub mod kind {
            use serde::{Deserialize, Serialize};

            /// A rule's operator, by its YAML name. Each has its file in [`crate::operator`], which says how it is
            /// built and run; the list there declares it.
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
            pub enum OperatorKind {
                $($($(#[$attr])* #[serde(rename = $name)] $variant,)+)+
            }

            impl OperatorKind {
                /// Every operator, in the table's order.
                pub const ALL: &[OperatorKind] = &[$($(OperatorKind::$variant,)+)+];

                /// The name used in YAML and in load errors.
                pub fn name(self) -> &'static str {
                    match self {
                        $($(OperatorKind::$variant => $name,)+)+
                    }
                }
            }
        }

        /// The operator table, row `kind as usize` for each [`OperatorKind`], each from the operator's file.
        const OPERATORS: &[Operator] = &[$($($module::$row,)+)+];
    };
}

// The operators. Adding one is its file (with its row, `OPERATOR`, and its tests) and its line here.
operators! {
    regex {
        #[default]
        Regex = "regex" => OPERATOR
    }
    contains { Contains = "contains" => OPERATOR }
    starts_with { StartsWith = "starts_with" => OPERATOR }
    detector_sqli { DetectorSqli = "detector_sqli" => OPERATOR }
    detector_xss { DetectorXss = "detector_xss" => OPERATOR }
    pm {
        /// Any of `phrases` occurs in the value (case-insensitive).
        Pm = "pm" => OPERATOR
    }
    ends_with { EndsWith = "ends_with" => OPERATOR }
    equals {
        /// The value equals the pattern (ModSecurity's `@streq`).
        Equals = "equals" => OPERATOR
    }
    within {
        /// The value is one of the pattern's space-separated words (ModSecurity's `@within`: the pattern
        /// contains the value, on word boundaries).
        Within = "within" => OPERATOR
    }
    contains_word {
        /// The pattern occurs in the value as a whole word.
        ContainsWord = "contains_word" => OPERATOR
    }
    number {
        /// Numeric comparisons of the value (read as an integer, as ModSecurity reads it) with the pattern.
        Eq = "eq" => EQ,
        Gt = "gt" => GT,
        Ge = "ge" => GE,
        Lt = "lt" => LT,
        Le = "le" => LE,
    }
    unconditional {
        /// Always matches (one match per selected value).
        Unconditional = "unconditional" => OPERATOR
    }
    validate_byte_range {
        /// Some byte of the value is outside the pattern's ranges (`9,10,13,32-126`).
        ValidateByteRange = "validate_byte_range" => OPERATOR
    }
    validate_url_encoding {
        /// The value has an invalid `%` escape.
        ValidateUrlEncoding = "validate_url_encoding" => OPERATOR
    }
    validate_utf8_encoding {
        /// The value is not valid UTF-8.
        ValidateUtf8Encoding = "validate_utf8_encoding" => OPERATOR
    }
    ip_match {
        /// The value is an IP address in one of the pattern's comma-separated addresses or CIDR ranges.
        IpMatch = "ip_match" => OPERATOR
    }
    anomaly_threshold {
        /// The blocking evaluation (CRS 949110): the rule reads no variable and matches when the request's
        /// anomaly score reaches the threshold in force (`rules.anomaly_threshold`, a domain's own), after the
        /// other rules.
        AnomalyThreshold = "anomaly_threshold" => OPERATOR
    }
    anomaly_report {
        /// The correlation report (CRS 980170, `phase: logging`): the rule reads no variable and is reported
        /// when the transaction's anomaly score, inbound plus outbound, is above zero.
        AnomalyReport = "anomaly_report" => OPERATOR
    }
}

/// One operator's row: its ModSecurity names, and how it is built as a rule's operator and as a chain
/// condition. How it runs is its file's functions, which the compiled forms call.
struct Operator {
    /// ModSecurity's names, for the CRS converter.
    modsecurity: &'static [&'static str],
    /// Whether the rule gives it a `pattern` (the detectors, `pm`, `unconditional` and the encoding checks take
    /// none).
    takes_pattern: bool,
    /// Whether the CRS converter decides a ModSecurity rule on a setting (`SecRule TX:crs_... "@eq 1"`) with
    /// it, when the rules are compiled.
    compares_settings: bool,
    build: Build,
    /// As a chain condition, from its pattern and the number of capture groups the pattern may read; `None`
    /// when a chain condition cannot use the operator.
    condition: Option<BuildCondition>,
}

/// The row of an operator that never runs on a value: the rule reads no variable and evaluation decides it
/// from the transaction's anomaly score (`anomaly_threshold`, `anomaly_report`).
const SCORE_ONLY: Operator = Operator {
    modsecurity: &[],
    takes_pattern: false,
    compares_settings: false,
    build: Build::None,
    condition: None,
};

/// How an operator is built as a rule's operator, from its pattern (empty when it takes none).
enum Build {
    /// A search, which finds where in the value it matched; `pm` reads the rule's phrases.
    Search(fn(&str, &[String], &mut RegexFactory<'_>) -> Result<Matcher, OperatorError>),
    /// A check of the whole value, which setting conditions can use too.
    Check(fn(&str) -> Result<Check, CheckError>),
    /// Never run on a value ([`SCORE_ONLY`]).
    None,
}

type BuildCondition = fn(&str, usize, &mut RegexFactory<'_>) -> Result<ConditionOp, OperatorError>;

impl OperatorKind {
    fn operator(self) -> &'static Operator {
        // The enum and the table are generated from one list, in one order.
        &OPERATORS[self as usize]
    }

    /// The operator of a ModSecurity name (`rx`, `pmFromFile`, ...), for the CRS converter.
    pub fn from_modsecurity(name: &str) -> Option<OperatorKind> {
        OperatorKind::ALL
            .iter()
            .copied()
            .find(|kind| kind.operator().modsecurity.contains(&name))
    }

    /// Whether a chain condition can use the operator.
    pub fn in_chains(self) -> bool {
        self.operator().condition.is_some()
    }

    /// Whether the operator takes a `pattern` (the detectors, `pm`, `unconditional` and the encoding checks
    /// take none).
    pub fn takes_pattern(self) -> bool {
        self.operator().takes_pattern
    }

    /// Whether the CRS converter turns a ModSecurity rule that compares a setting with this operator into a
    /// setting condition (`when:`), decided when the rules are compiled.
    pub fn compares_settings(self) -> bool {
        self.operator().compares_settings
    }
}

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
        if !phrases.is_empty() && kind != OperatorKind::Pm {
            return Err(OperatorError::PhrasesOutsidePm(kind));
        }
        let pattern = match (kind.takes_pattern(), pattern) {
            (true, None) => return Err(OperatorError::NeedsPattern(kind)),
            (false, Some(_)) => return Err(OperatorError::TakesNoPattern(kind)),
            (_, pattern) => pattern.unwrap_or_default(),
        };
        match kind.operator().build {
            Build::Search(build) => build(pattern, phrases, regexes),
            Build::Check(build) => Ok(Matcher::Check(build(pattern)?)),
            Build::None => Err(OperatorError::NotASearch(kind)),
        }
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
        let span = |span: Range<usize>| Found {
            span,
            groups: Vec::new(),
        };
        let whole = || Found::whole(value);
        match self {
            Matcher::Regex(re) => regex::find(re, value, captures),
            Matcher::Contains(finder) => contains::find(finder, value).map(span),
            Matcher::StartsWith(prefix) => starts_with::find(prefix, value).map(span),
            Matcher::DetectorSqli => detector_sqli::holds(value).then(whole),
            Matcher::DetectorXss => detector_xss::holds(value).then(whole),
            Matcher::Pm(automaton) => pm::find(automaton, value).map(span),
            Matcher::Check(check) => check.find(value).map(span),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lazy(p: &str) -> Result<RegexEngine, RegexError> {
        RegexEngine::lazy(p)
    }

    #[test]
    fn every_operator_has_its_row_and_its_yaml_name() {
        assert_eq!(OPERATORS.len(), OperatorKind::ALL.len());
        for (row, &kind) in OperatorKind::ALL.iter().enumerate() {
            assert_eq!(kind as usize, row);
            let yaml = serde_saphyr::to_string(&kind).unwrap();
            assert_eq!(yaml.trim(), kind.name());
            let read: OperatorKind = serde_saphyr::from_str(kind.name()).unwrap();
            assert_eq!(read, kind);
        }
        assert_eq!(OperatorKind::default(), OperatorKind::Regex);
        assert_eq!(
            OperatorKind::from_modsecurity("pmFromFile"),
            Some(OperatorKind::Pm)
        );
        assert_eq!(OperatorKind::from_modsecurity("le"), Some(OperatorKind::Le));
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
        assert_eq!(
            Matcher::new(OperatorKind::AnomalyThreshold, None, &[], &mut lazy).unwrap_err(),
            OperatorError::NotASearch(OperatorKind::AnomalyThreshold)
        );
    }
}
