//! Chain conditions: the extra tests of a chained rule on the matched value, its capture groups or other
//! request variables, with patterns that may reference them (`${capture:1}`, `${REQUEST_HEADERS:Host}`).

use super::check::Check;
use super::{Found, OperatorError};
use crate::regex_engine::{RegexEngine, RegexFactory};
use crate::request::collection::RequestView;
use crate::rule::{ChainTarget, OperatorKind, Transform, Variable};
use crate::transform::{self, UnicodeMap};
use aho_corasick::AhoCorasick;

/// A pattern of the text conditions (or a template target): literal text with `${capture:N}` and request
/// variable references (`${REQUEST_HEADERS:Host}`, `${ARGS_GET:_method|ARGS_POST:_method}`; the older
/// `${request_headers:NAME}` is `${REQUEST_HEADERS:NAME}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Piece {
    Literal(Vec<u8>),
    Capture(usize),
    /// The first value of the first of these variables (of this key, if given; ASCII-lowercased for header
    /// variables) that has one; empty when none has.
    Variable(Vec<(Variable, Option<String>)>),
}

/// A `${...}` reference to request variables: `NAME` or `NAME:key`, alternatives separated by `|`.
fn parse_variable_reference(reference: &str) -> Option<Piece> {
    let mut alternatives = Vec::new();
    for alternative in reference.split('|') {
        let (name, key) = match alternative.split_once(':') {
            Some((name, key)) => (name, Some(key)),
            None => (alternative, None),
        };
        let variable = Variable::parse(name)?;
        let key = key.map(|k| match variable.case_insensitive_keys() {
            true => k.to_ascii_lowercase(),
            false => k.to_owned(),
        });
        alternatives.push((variable, key));
    }
    Some(Piece::Variable(alternatives))
}

fn parse_template(pattern: &str) -> Result<Vec<Piece>, OperatorError> {
    let mut pieces = Vec::new();
    let mut rest = pattern;
    while let Some(start) = rest.find("${") {
        let end = rest[start..]
            .find('}')
            .ok_or_else(|| OperatorError::UnterminatedReference(pattern.to_owned()))?;
        let reference = &rest[start + 2..start + end];
        let piece = if let Some(name) = reference.strip_prefix("request_headers:") {
            Piece::Variable(vec![(
                Variable::RequestHeaders,
                Some(name.to_ascii_lowercase()),
            )])
        } else if let Some(n) = reference.strip_prefix("capture:") {
            n.parse()
                .map(Piece::Capture)
                .map_err(|_| OperatorError::GroupNotANumber(reference.to_owned()))?
        } else {
            parse_variable_reference(reference)
                .ok_or_else(|| OperatorError::UnknownReference(reference.to_owned()))?
        };
        pieces.push(Piece::Literal(rest.as_bytes()[..start].to_vec()));
        pieces.push(piece);
        rest = &rest[start + end + 1..];
    }
    pieces.push(Piece::Literal(rest.as_bytes().to_vec()));
    Ok(pieces)
}

/// The first value of `variable` (of key `key`) in the request.
fn first_value<'v>(
    view: &RequestView<'v>,
    variable: Variable,
    key: Option<&str>,
) -> Option<&'v [u8]> {
    view.values(variable)
        .iter()
        .find(|(_, name, _)| {
            key.is_none_or(|key| match variable.case_insensitive_keys() {
                true => name.eq_ignore_ascii_case(key.as_bytes()),
                false => *name == key.as_bytes(),
            })
        })
        .map(|(_, _, value)| value)
}

/// A condition's compiled target.
#[derive(Debug)]
enum Target {
    Matched,
    Capture(usize),
    Template(Vec<Piece>),
    /// The values of a request variable, of one key only when given (ASCII-lowercased for header variables),
    /// or with `count` the number of them.
    Variable {
        variable: Variable,
        key: Option<String>,
        count: bool,
    },
}

/// A chain condition's operator, as its operator's file builds it ([`super::Operator::condition`]).
#[derive(Debug)]
pub(super) enum ConditionOp {
    Regex(RegexEngine),
    /// The operator's test of the target against its pattern, expanded for the match (`contains`, `equals`,
    /// `within` with references, the numeric comparisons, ...).
    Text(TextTest, Vec<Piece>),
    /// Any of the pattern's space-separated phrases occurs in the target, ASCII case-insensitive.
    Pm(Box<AhoCorasick>),
    /// A check of the target alone (`validate_url_encoding`, `validate_utf8_encoding`, `within` a literal list).
    Check(Check),
}

/// An operator's test of a (transformed) target against a pattern.
pub(super) type TextTest = fn(target: &[u8], pattern: &[u8]) -> bool;

/// One compiled chain condition.
#[derive(Debug)]
pub struct Condition {
    target: Target,
    op: ConditionOp,
    transforms: Vec<Transform>,
    negate: bool,
}

/// A value and a regex match in it, whose capture groups chain conditions read.
type Captured = (Vec<u8>, Found);

/// Capture group `n` of `found` in `value`, empty when it did not participate.
fn group<'v>(value: &'v [u8], found: &Found, n: usize) -> &'v [u8] {
    found
        .groups
        .get(n)
        .cloned()
        .flatten()
        .and_then(|r| value.get(r))
        .unwrap_or(&[])
}

/// A template's text for the match `found` in `value`; variable references read `view`.
fn expand<'p>(
    pieces: &'p [Piece],
    value: &[u8],
    found: &Found,
    view: &RequestView<'_>,
) -> std::borrow::Cow<'p, [u8]> {
    // Most patterns are one literal (the restricted-headers list of 920450, say, tested against every header
    // name): borrowed, not copied.
    if let [Piece::Literal(literal)] = pieces {
        return std::borrow::Cow::Borrowed(literal);
    }
    let text = |piece: &'p Piece| match piece {
        Piece::Literal(l) => l.as_slice(),
        Piece::Capture(n) => group(value, found, *n),
        Piece::Variable(alternatives) => alternatives
            .iter()
            .find_map(|(variable, key)| first_value(view, *variable, key.as_deref()))
            .unwrap_or_default(),
    };
    // Sized once: grown piece by piece, it was reallocated twice for `/${capture:0}/`.
    let mut out = Vec::with_capacity(pieces.iter().map(|p| text(p).len()).sum());
    for piece in pieces {
        out.extend_from_slice(text(piece));
    }
    std::borrow::Cow::Owned(out)
}

/// Whether every condition of a chain holds for the match `found` in `value`, in order. A condition on another
/// variable holds when one of its values satisfies it; when that is a regex match, its capture groups are the
/// ones the later conditions read (ModSecurity's `capture` on a chained rule), until the next such match.
/// `unicode_map`: the one the rule set's `url_decode_uni` uses.
pub fn chain_holds(
    conditions: &[Condition],
    value: &[u8],
    found: &Found,
    view: &RequestView<'_>,
    unicode_map: UnicodeMap,
) -> bool {
    let mut captured: Option<Captured> = None;
    for condition in conditions {
        let current = match &captured {
            Some((v, f)) => (v.as_slice(), f),
            None => (value, found),
        };
        let holds = match &condition.target {
            Target::Variable {
                variable,
                key,
                count,
            } => match condition.holds_in(
                (*variable, key.as_deref(), *count),
                view,
                current,
                unicode_map,
            ) {
                None => false,
                Some(None) => true,
                Some(new) => {
                    captured = new;
                    true
                }
            },
            _ => condition.holds(current.0, current.1, view, unicode_map),
        };
        if !holds {
            return false;
        }
    }
    true
}

/// Which part of a chain condition is wrong (`target`, `operator` or `pattern`), and why, for the load error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionError {
    pub field: &'static str,
    pub error: OperatorError,
}

impl ConditionError {
    fn in_field(field: &'static str) -> impl Fn(OperatorError) -> ConditionError {
        move |error| ConditionError { field, error }
    }
}

/// Checks that capture group `n` exists in a match with `groups` groups (group 0 included).
fn check_group(n: usize, groups: usize) -> Result<(), OperatorError> {
    match n < groups {
        true => Ok(()),
        false => Err(OperatorError::NoSuchGroup { group: n, groups }),
    }
}

/// A template's pieces, each capture group it reads checked to exist.
pub(super) fn checked_template(text: &str, groups: usize) -> Result<Vec<Piece>, OperatorError> {
    let pieces = parse_template(text)?;
    for piece in &pieces {
        if let Piece::Capture(n) = piece {
            check_group(*n, groups)?;
        }
    }
    Ok(pieces)
}

impl Target {
    /// What a condition reads; `groups` is the number of capture groups it can read.
    fn new(target: ChainTarget, groups: usize) -> Result<Target, OperatorError> {
        Ok(match target {
            ChainTarget::MatchedValue => Target::Matched,
            ChainTarget::Capture(n) => {
                check_group(usize::from(n), groups)?;
                Target::Capture(usize::from(n))
            }
            ChainTarget::Template(text) => Target::Template(checked_template(&text, groups)?),
            ChainTarget::Variable {
                variable,
                key,
                count,
            } => Target::Variable {
                variable,
                key: key.map(|k| match variable.case_insensitive_keys() {
                    true => k.to_ascii_lowercase(),
                    false => k,
                }),
                count,
            },
        })
    }
}

impl ConditionOp {
    /// The condition's operator on `pattern`, whose templates may read `groups` capture groups.
    fn new(
        operator: OperatorKind,
        pattern: &str,
        groups: usize,
        regexes: &mut RegexFactory<'_>,
    ) -> Result<ConditionOp, OperatorError> {
        match operator.operator().condition {
            Some(build) => build(pattern, groups, regexes),
            None => Err(OperatorError::NotInChains(operator)),
        }
    }
}

impl Condition {
    /// `groups` is the number of capture groups of the rule's regex (0 when the operator is not a regex).
    pub fn new(
        target: ChainTarget,
        operator: OperatorKind,
        pattern: &str,
        transforms: &[Transform],
        negate: bool,
        groups: usize,
        regexes: &mut RegexFactory<'_>,
    ) -> Result<Condition, ConditionError> {
        Ok(Condition {
            target: Target::new(target, groups).map_err(ConditionError::in_field("target"))?,
            op: ConditionOp::new(operator, pattern, groups, regexes).map_err(|error| {
                let field = match error {
                    OperatorError::NotInChains(_) => "operator",
                    _ => "pattern",
                };
                ConditionError { field, error }
            })?,
            transforms: transform::effective_chain(transforms),
            negate,
        })
    }

    /// Whether the condition holds for a match `found` in `value`; `view` is the request, which variable
    /// references (`${REQUEST_HEADERS:Host}`) read; `unicode_map` is the one the rule set's `url_decode_uni`
    /// uses. (A condition on another variable reads the request: [`chain_holds`].)
    pub fn holds(
        &self,
        value: &[u8],
        found: &Found,
        view: &RequestView<'_>,
        unicode_map: UnicodeMap,
    ) -> bool {
        let target = match &self.target {
            Target::Matched => std::borrow::Cow::Borrowed(value),
            Target::Capture(n) => std::borrow::Cow::Borrowed(group(value, found, *n)),
            Target::Template(pieces) => expand(pieces, value, found, view),
            Target::Variable { .. } => return false,
        };
        self.test(
            &transform::apply_chain(&self.transforms, &target, unicode_map),
            value,
            found,
            view,
        )
    }

    /// The operator (negation included) on the transformed `target`; templates of the pattern read the capture
    /// groups of `found` in `value`.
    fn test(&self, target: &[u8], value: &[u8], found: &Found, view: &RequestView<'_>) -> bool {
        let expand = |pieces| expand(pieces, value, found, view);
        let result = match &self.op {
            ConditionOp::Regex(re) => re.is_match(target),
            ConditionOp::Text(test, p) => test(target, &expand(p)),
            ConditionOp::Pm(automaton) => automaton.is_match(target),
            ConditionOp::Check(check) => check.find(target).is_some(),
        };
        result != self.negate
    }

    /// For a condition on another variable: `None` when none of its values satisfies the condition, else the
    /// captures that later conditions read from then on, when it was a regex match (`Some(None)`: no new ones).
    /// `current` is the value and match whose groups the pattern's templates read.
    fn holds_in(
        &self,
        (variable, key, count): (Variable, Option<&str>, bool),
        view: &RequestView<'_>,
        (value, found): (&[u8], &Found),
        unicode_map: UnicodeMap,
    ) -> Option<Option<Captured>> {
        let selected = view.values(variable).iter().filter(|(_, name, _)| {
            key.is_none_or(|key| match variable.case_insensitive_keys() {
                true => name.eq_ignore_ascii_case(key.as_bytes()),
                false => *name == key.as_bytes(),
            })
        });
        if count {
            let count = selected.count().to_string();
            let target = transform::apply_chain(&self.transforms, count.as_bytes(), unicode_map);
            return self.test(&target, value, found, view).then_some(None);
        }
        for (_, _, raw) in selected {
            let target = transform::apply_chain(&self.transforms, raw, unicode_map);
            match (&self.op, self.negate) {
                (ConditionOp::Regex(re), false) => {
                    if let Some(caps) = re.captures(&target) {
                        let groups = (0..caps.group_len())
                            .map(|i| caps.get_group(i).map(|span| span.range()))
                            .collect();
                        let span = caps.get_match().map_or(0..0, |m| m.range());
                        return Some(Some((target.into_owned(), Found { span, groups })));
                    }
                }
                _ if self.test(&target, value, found, view) => return Some(None),
                _ => {}
            }
        }
        None
    }

    /// The number of capture groups (with group 0) that a match of this condition gives the conditions after
    /// it, when it is a regex on another variable.
    pub fn capture_groups(&self) -> Option<usize> {
        match (&self.target, &self.op, self.negate) {
            (Target::Variable { .. }, ConditionOp::Regex(re), false) => Some(re.group_count()),
            _ => None,
        }
    }

    /// Whether the condition reads the request beyond the matched value (another variable, a header): its
    /// outcome for a value then depends on the request, so it must not be remembered per value.
    pub fn reads_request(&self) -> bool {
        let reads = |p: &[Piece]| p.iter().any(|p| matches!(p, Piece::Variable(_)));
        matches!(self.target, Target::Variable { .. })
            || matches!(&self.target, Target::Template(p) if reads(p))
            || self.op_pieces().is_some_and(reads)
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
        let target_uses = match &self.target {
            Target::Matched => false,
            Target::Capture(_) => true,
            Target::Template(pieces) => uses(pieces),
            Target::Variable { .. } => false,
        };
        target_uses || self.op_pieces().is_some_and(uses)
    }

    /// The pattern of a text operator, as pieces (literal text, captures, headers); `None` for regex and pm.
    fn op_pieces(&self) -> Option<&[Piece]> {
        match &self.op {
            ConditionOp::Regex(_) | ConditionOp::Pm(_) | ConditionOp::Check(_) => None,
            ConditionOp::Text(_, p) => Some(p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operator::Matcher;
    use crate::regex_engine::RegexError;
    use crate::request::HttpRequest;

    /// A request with these headers, as chain conditions see it (leaked: tests only).
    fn view(headers: &'static [(&'static str, &'static [u8])]) -> RequestView<'static> {
        let request = HttpRequest {
            method: "GET",
            uri: "/?_method=PUT",
            version: "HTTP/1.1",
            headers,
            body: b"",
        };
        RequestView::new(&request, Box::leak(Box::default()))
    }

    fn lazy(p: &str) -> Result<RegexEngine, RegexError> {
        RegexEngine::lazy(p)
    }

    fn regex(p: &str) -> Matcher {
        Matcher::new(OperatorKind::Regex, Some(p), &[], &mut lazy).unwrap()
    }

    #[test]
    fn template_targets_and_header_references() {
        let m = regex(r"\.([^.]+)$");
        let mut lazy = lazy;
        let extension = Condition::new(
            ChainTarget::Template(".${capture:1}/".into()),
            OperatorKind::Within,
            ".bak/ .conf/",
            &[Transform::Lowercase],
            false,
            m.group_count(),
            &mut lazy,
        )
        .unwrap_or_else(|e| panic!("{}", e.error));
        let found = m.find(b"/a/site.CONF", true).unwrap();
        assert!(extension.holds(b"/a/site.CONF", &found, &view(&[]), UnicodeMap::default()));
        let found = m.find(b"/a/site.config", true).unwrap();
        assert!(!extension.holds(b"/a/site.config", &found, &view(&[]), UnicodeMap::default()));
        let url = regex(r"^https?://([^/]+)");
        let host = Condition::new(
            ChainTarget::Capture(1),
            OperatorKind::EndsWith,
            "${request_headers:host}",
            &[],
            true,
            url.group_count(),
            &mut lazy,
        )
        .unwrap_or_else(|e| panic!("{}", e.error));
        let value = b"http://www.example.com/x";
        let found = url.find(value, true).unwrap();
        assert!(!host.holds(
            value,
            &found,
            &view(&[("Host", b"example.com")]),
            UnicodeMap::default()
        ));
        assert!(host.holds(
            value,
            &found,
            &view(&[("Host", b"other.org")]),
            UnicodeMap::default()
        ));
        // A variable reference (the first value of the first alternative that has one) and a numeric operator.
        let method = Condition::new(
            ChainTarget::MatchedValue,
            OperatorKind::Equals,
            "${ARGS_POST:_method|ARGS_GET:_method}",
            &[],
            false,
            1,
            &mut lazy,
        )
        .unwrap_or_else(|e| panic!("{}", e.error));
        assert!(method.reads_request());
        let whole = Found::whole(b"PUT");
        assert!(method.holds(b"PUT", &whole, &view(&[]), UnicodeMap::default()));
        assert!(!method.holds(b"put", &whole, &view(&[]), UnicodeMap::default()));
        let range = regex(r"(\d+)-(\d+)");
        let descending = Condition::new(
            ChainTarget::Capture(2),
            OperatorKind::Lt,
            "${capture:1}",
            &[],
            false,
            range.group_count(),
            &mut lazy,
        )
        .unwrap_or_else(|e| panic!("{}", e.error));
        let value = b"bytes=10-9";
        let found = range.find(value, true).unwrap();
        assert!(descending.holds(value, &found, &view(&[]), UnicodeMap::default()));
        let value = b"bytes=9-10";
        let found = range.find(value, true).unwrap();
        assert!(!descending.holds(value, &found, &view(&[]), UnicodeMap::default()));
    }

    #[test]
    fn captures_and_conditions() {
        let m = regex(r"(\w+)\s*=\s*(\w+)");
        assert_eq!(m.group_count(), 3);
        let value = b"x' or a = a";
        let found = m.find(value, true).unwrap();
        let equal = Condition::new(
            ChainTarget::Capture(1),
            OperatorKind::Equals,
            "${capture:2}",
            &[],
            false,
            3,
            &mut lazy,
        )
        .ok()
        .unwrap();
        assert!(equal.needs_captures());
        assert!(equal.holds(value, &found, &view(&[]), UnicodeMap::default()));
        let differ = Condition::new(
            ChainTarget::Capture(1),
            OperatorKind::Equals,
            "${capture:2}",
            &[],
            true,
            3,
            &mut lazy,
        )
        .ok()
        .unwrap();
        assert!(!differ.holds(value, &found, &view(&[]), UnicodeMap::default()));
        let not_token = Condition::new(
            ChainTarget::MatchedValue,
            OperatorKind::Regex,
            r"^[,\-0-9=A-Z_a-z]+$",
            &[],
            true,
            3,
            &mut lazy,
        )
        .ok()
        .unwrap();
        assert!(not_token.holds(value, &found, &view(&[]), UnicodeMap::default()));
        assert!(!not_token.holds(
            b"a=a",
            &m.find(b"a=a", true).unwrap(),
            &view(&[]),
            UnicodeMap::default()
        ));
        let lowered = Condition::new(
            ChainTarget::Capture(1),
            OperatorKind::Equals,
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
            &view(&[]),
            UnicodeMap::default()
        ));
    }

    #[test]
    fn condition_errors_name_the_field() {
        let err = |target, op, pattern: &str| {
            Condition::new(target, op, pattern, &[], false, 2, &mut lazy)
                .err()
                .map(|e| (e.field, e.error))
        };
        assert_eq!(
            err(ChainTarget::Capture(2), OperatorKind::Equals, "x")
                .unwrap()
                .0,
            "target"
        );
        assert_eq!(
            err(
                ChainTarget::Capture(1),
                OperatorKind::Equals,
                "${capture:5}"
            )
            .unwrap()
            .0,
            "pattern"
        );
        assert_eq!(
            err(ChainTarget::Capture(1), OperatorKind::Equals, "${nope}")
                .unwrap()
                .0,
            "pattern"
        );
        assert_eq!(
            err(ChainTarget::MatchedValue, OperatorKind::Regex, "(?=x)")
                .unwrap()
                .0,
            "pattern"
        );
        assert!(
            err(
                ChainTarget::Capture(1),
                OperatorKind::Equals,
                "${capture:1}"
            )
            .is_none()
        );
    }
}
