//! Required literals of a regex: a set of byte strings such that every match of the regex contains at least
//! one of them. A value containing none of them cannot match, so the regex need not run on it.
//!
//! The analysis walks the regex's HIR (parsed exactly as the engine parses it, see [`crate::operator`]). Each
//! node gets two facts, both ASCII-lowercased so that one case-insensitive scan serves `(?i)` and
//! case-sensitive patterns alike (for a case-sensitive literal the lowercased scan finds a superset of values,
//! which is sound: it can only make a rule run, never skip it):
//! - `exact`: the complete set of strings the node can match, when that set is small;
//! - `required`: a set with at least one member in every match of the node, when one is known.
//!
//! When unsure the answer is "no requirement" and the rule always runs: a repetition that may be empty, a
//! large class (`\w`, `.`), an alternation with a branch without a requirement.

use regex_syntax::hir::{Class, Hir, HirKind};
use std::collections::BTreeSet;

/// A set of lowercased literals.
pub type Literals = BTreeSet<Vec<u8>>;

/// At most this many strings in an exact set: cross products of classes grow fast, and past this size the
/// set is turned into a requirement instead (a bound on load-time work and memory, not on correctness).
const EXACT_LIMIT: usize = 64;

/// A class with more members than this (after case folding) is "any byte" for the analysis (`\d` has 10).
const CLASS_LIMIT: usize = 16;

/// At most this many literals in a requirement made of a run of exact parts followed by the start of the next
/// part (see [`concat`]): the automaton holds them all, but each is longer than either side alone.
const PRODUCT_LIMIT: usize = 256;

/// What the analysis knows about one node.
#[derive(Debug, Clone, Default)]
struct Info {
    exact: Option<Literals>,
    required: Option<Literals>,
    /// A set of non-empty strings one of which every match starts with (the bytes a match can begin with,
    /// say), when one is known.
    prefixes: Option<Literals>,
}

impl Info {
    fn exact(set: Literals) -> Info {
        Info {
            prefixes: starts(set.clone()),
            exact: Some(set),
            required: None,
        }
    }

    /// The best requirement this node gives: its exact set (if no member is empty) or its required set.
    fn requirement(&self) -> Option<Literals> {
        let from_exact = self
            .exact
            .clone()
            .filter(|set| !set.is_empty() && set.iter().all(|l| !l.is_empty()));
        better(from_exact, self.required.clone())
    }
}

/// The literals every match of `hir` contains one of (lowercased), or `None` when no such set is known.
pub fn required_literals(hir: &Hir) -> Option<Literals> {
    analyse(hir).requirement().map(minimise)
}

/// Drops each literal that contains another member: a value containing the longer one contains the shorter,
/// so the set still has a member in every match, and the scan reports fewer patterns.
fn minimise(set: Literals) -> Literals {
    let all: Vec<&Vec<u8>> = set.iter().collect();
    set.iter()
        .filter(|l| {
            !all.iter()
                .any(|other| other.len() < l.len() && contains(l, other))
        })
        .cloned()
        .collect()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

/// Prefers the set whose shortest literal is longest (fewer chance hits), then the smaller set.
fn better(a: Option<Literals>, b: Option<Literals>) -> Option<Literals> {
    fn score(set: &Literals) -> (usize, std::cmp::Reverse<usize>) {
        let shortest = set.iter().map(Vec::len).min().unwrap_or(0);
        // Beyond 4 bytes a literal is rare enough in benign text; then fewer literals is the better set.
        (shortest.min(4), std::cmp::Reverse(set.len()))
    }
    match (a, b) {
        (Some(a), Some(b)) => Some(if score(&b) > score(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

fn analyse(hir: &Hir) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info::exact(Literals::from([Vec::new()])),
        HirKind::Literal(literal) => Info::exact(Literals::from([literal.0.to_ascii_lowercase()])),
        HirKind::Class(class) => class_bytes(class).map_or_else(Info::default, |bytes| {
            Info::exact(bytes.into_iter().map(|b| vec![b]).collect())
        }),
        HirKind::Capture(capture) => analyse(&capture.sub),
        HirKind::Repetition(rep) => {
            let sub = analyse(&rep.sub);
            match (rep.min, rep.max) {
                (0, Some(1)) => Info {
                    exact: sub.exact.map(|mut set| {
                        set.insert(Vec::new());
                        set
                    }),
                    required: None,
                    prefixes: None,
                },
                (0, _) => Info::default(),
                (min, max) => {
                    // Every match starts with `min` matches of the sub-expression: their concatenations.
                    let first = sub
                        .exact
                        .as_ref()
                        .and_then(|set| (1..min).try_fold(set.clone(), |acc, _| cross(&acc, set)));
                    let exact = first.clone().filter(|_| max == Some(min));
                    Info {
                        exact,
                        // Every match starts with the first repeats, or at least with the first one.
                        prefixes: first.clone().and_then(starts).or(sub.prefixes.clone()),
                        // `\.{2,3}` requires `..`, not just `.`.
                        required: better(
                            first.and_then(|set| Info::exact(set).requirement()),
                            sub.requirement(),
                        ),
                    }
                }
            }
        }
        HirKind::Concat(parts) => concat(parts),
        HirKind::Alternation(branches) => {
            let infos: Vec<Info> = branches.iter().map(analyse).collect();
            let exact = infos.iter().try_fold(Literals::new(), |mut acc, info| {
                acc.extend(info.exact.clone()?);
                (acc.len() <= EXACT_LIMIT).then_some(acc)
            });
            let required = infos.iter().try_fold(Literals::new(), |mut acc, info| {
                acc.extend(info.requirement()?);
                Some(acc)
            });
            let prefixes = infos
                .iter()
                .try_fold(Literals::new(), |mut acc, info| {
                    acc.extend(info.prefixes.clone()?);
                    Some(acc)
                })
                .and_then(starts);
            Info {
                exact,
                required,
                prefixes,
            }
        }
    }
}

/// A concatenation: runs of parts with exact sets are multiplied out while small; the requirement is the best
/// of each part's own, each run's product, and each run followed by the start of the part that ends it (CRS
/// 930100's `[/\\]` or an encoding of it, then `.`, `?` or `%`: the pairs are much rarer than either side).
fn concat(parts: &[Hir]) -> Info {
    let empty = || Literals::from([Vec::new()]);
    let mut run = empty();
    let mut all_exact = true;
    let mut best: Option<Literals> = None;
    // Until the first run ends, every match starts with the run: the concatenation's prefixes.
    let mut prefixes = None;
    let mut leading = true;
    for info in parts.iter().map(analyse) {
        if let Some(product) = info.exact.as_ref().and_then(|exact| cross(&run, exact)) {
            run = product;
            continue;
        }
        all_exact = false;
        let then = info
            .prefixes
            .as_ref()
            .and_then(|next| cross_within(&run, next, PRODUCT_LIMIT));
        if leading {
            prefixes = then.clone().or_else(|| starts(run.clone()));
            leading = false;
        }
        best = better(best, then.and_then(|set| Info::exact(set).requirement()));
        best = better(
            best,
            Info::exact(std::mem::replace(&mut run, empty())).requirement(),
        );
        best = better(best, info.requirement());
        if let Some(exact) = info.exact {
            // Too big to multiply into the run: it starts the next one.
            run = exact;
        }
    }
    if all_exact {
        return Info {
            prefixes: starts(run.clone()),
            exact: Some(run),
            required: best,
        };
    }
    Info {
        exact: None,
        required: better(best, Info::exact(run).requirement()),
        prefixes,
    }
}

/// `set` as prefixes: none may be empty, and a set too large is cut to its members' first bytes (still one in
/// every match's start), if those are few enough.
fn starts(set: Literals) -> Option<Literals> {
    if set.is_empty() || set.iter().any(Vec::is_empty) {
        return None;
    }
    if set.len() <= EXACT_LIMIT {
        return Some(set);
    }
    let firsts: Literals = set.iter().map(|l| l[..1].to_vec()).collect();
    (firsts.len() <= EXACT_LIMIT).then_some(firsts)
}

/// Every `a` followed by every `b`, if there are at most [`EXACT_LIMIT`].
fn cross(a: &Literals, b: &Literals) -> Option<Literals> {
    cross_within(a, b, EXACT_LIMIT)
}

/// Every `a` followed by every `b`, if there are at most `limit`.
fn cross_within(a: &Literals, b: &Literals, limit: usize) -> Option<Literals> {
    if a.len().saturating_mul(b.len()) > limit {
        return None;
    }
    Some(
        a.iter()
            .flat_map(|x| b.iter().map(move |y| [x.as_slice(), y].concat()))
            .collect(),
    )
}

/// The lowercased bytes of a small class, or `None` for a large one.
fn class_bytes(class: &Class) -> Option<BTreeSet<u8>> {
    let ranges: Vec<(u32, u32)> = match class {
        Class::Bytes(c) => c
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        Class::Unicode(c) => c
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
    };
    let mut bytes = BTreeSet::new();
    for (start, end) in ranges {
        // A code point beyond ASCII is several bytes in UTF-8: not a one-byte literal.
        if end > 0x7f && matches!(class, Class::Unicode(_)) {
            return None;
        }
        if (end - start) as usize >= CLASS_LIMIT * 2 {
            return None;
        }
        for c in start..=end {
            bytes.insert(u8::try_from(c).ok()?.to_ascii_lowercase());
        }
        if bytes.len() > CLASS_LIMIT {
            return None;
        }
    }
    Some(bytes)
}

/// A byte requirement: every match has at least `count` bytes (at distinct positions) that are in `set`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteCount {
    pub set: [bool; 256],
    pub count: usize,
}

/// Counts above this add no selectivity worth the scan (and keep the sums of long patterns small).
const BYTE_COUNT_LIMIT: usize = 64;

impl ByteCount {
    fn none() -> ByteCount {
        ByteCount {
            set: [false; 256],
            count: 0,
        }
    }

    fn of(bytes: impl IntoIterator<Item = u8>, count: usize) -> ByteCount {
        let mut set = [false; 256];
        for b in bytes {
            set[usize::from(b)] = true;
        }
        ByteCount { set, count }
    }

    fn size(&self) -> usize {
        self.set.iter().filter(|&&b| b).count()
    }

    fn union(&self, other: &ByteCount) -> [bool; 256] {
        std::array::from_fn(|i| self.set[i] || other.set[i])
    }

    /// Lower is better: the share of bytes that count, per required byte.
    fn cost(&self) -> f64 {
        self.size() as f64 / self.count.max(1) as f64
    }
}

/// The byte requirement of `hir` (the fallback for a regex without required literals, such as CRS 942420's
/// "eight special characters"), or `None` when a match may have no byte from any small set.
pub fn required_bytes(hir: &Hir) -> Option<ByteCount> {
    let found = bytes(hir);
    // A set of every byte checks nothing but the length; such a gate is not worth its scan.
    (found.count > 0 && found.size() < 256).then_some(found)
}

fn bytes(hir: &Hir) -> ByteCount {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => ByteCount::none(),
        HirKind::Literal(literal) => ByteCount::of(literal.0.iter().copied(), literal.0.len()),
        HirKind::Class(Class::Bytes(class)) => {
            ByteCount::of(class.ranges().iter().flat_map(|r| r.start()..=r.end()), 1)
        }
        HirKind::Class(Class::Unicode(class)) => {
            // Beyond ASCII a code point is several bytes; such a class is not analysed.
            if class.ranges().iter().any(|r| u32::from(r.end()) > 0x7f) {
                return ByteCount::none();
            }
            ByteCount::of(
                class
                    .ranges()
                    .iter()
                    .flat_map(|r| u32::from(r.start())..=u32::from(r.end()))
                    .filter_map(|c| u8::try_from(c).ok()),
                1,
            )
        }
        HirKind::Capture(capture) => bytes(&capture.sub),
        HirKind::Repetition(rep) => {
            let sub = bytes(&rep.sub);
            let count = sub
                .count
                .saturating_mul(rep.min as usize)
                .min(BYTE_COUNT_LIMIT);
            ByteCount {
                set: sub.set,
                count,
            }
        }
        HirKind::Concat(parts) => {
            // Either all parts together (their bytes are at distinct positions, so the counts add up) or the
            // single most selective part.
            let parts: Vec<ByteCount> = parts.iter().map(bytes).filter(|b| b.count > 0).collect();
            let sum = parts.iter().fold(ByteCount::none(), |acc, b| ByteCount {
                set: acc.union(b),
                count: (acc.count + b.count).min(BYTE_COUNT_LIMIT),
            });
            parts
                .into_iter()
                .chain([sum])
                .min_by(|a, b| a.cost().total_cmp(&b.cost()))
                .unwrap_or_else(ByteCount::none)
        }
        HirKind::Alternation(branches) => {
            let branches: Vec<ByteCount> = branches.iter().map(bytes).collect();
            let count = branches.iter().map(|b| b.count).min().unwrap_or(0);
            if count == 0 {
                return ByteCount::none();
            }
            branches.iter().fold(ByteCount::none(), |acc, b| ByteCount {
                set: acc.union(b),
                count,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regex_engine::syntax_config;
    use regex_automata::util::syntax;

    fn required(pattern: &str) -> Option<Vec<String>> {
        let hir = syntax::parse_with(pattern, &syntax_config()).unwrap();
        required_literals(&hir).map(|set| {
            set.into_iter()
                .map(|l| String::from_utf8_lossy(&l).into_owned())
                .collect()
        })
    }

    fn set(items: &[&str]) -> Option<Vec<String>> {
        Some(items.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn literals_are_lowercased_and_the_best_set_wins() {
        assert_eq!(required("(?i)union\\s+select"), set(&["union"]));
        assert_eq!(required("SeLeCt"), set(&["select"]));
        assert_eq!(required("abc|def"), set(&["abc", "def"]));
        assert_eq!(required("[0-9]+abc"), set(&["abc"]));
        assert_eq!(required("(?:foo|bar)\\w*bazz"), set(&["bazz"]));
        assert_eq!(required("(?i)(?:x|y)z"), set(&["xz", "yz"]));
        assert_eq!(required("ab{2}c"), set(&["abbc"]));
        assert_eq!(required("a(?:b|c)?d+"), set(&["abd", "acd", "ad"]));
        // A repetition requires its first `min` repeats, whatever its maximum (CRS 930110).
        assert_eq!(required("(?:^|[/;])\\.{2,3}[/;]"), set(&[".."]));
        assert_eq!(required("x(?:ab){2,}"), set(&["xabab"]));
        assert_eq!(required("(?:a|b?){2,5}"), None);
    }

    #[test]
    fn no_requirement_when_a_match_can_avoid_every_literal() {
        for pattern in ["", "a*", "x?", "abc|d*", "\\w+", ".", "^$", "(?:ab)*"] {
            assert_eq!(required(pattern), None, "{pattern}");
        }
    }

    fn byte_gate(pattern: &str) -> Option<(String, usize)> {
        let hir = syntax::parse_with(pattern, &syntax_config()).unwrap();
        required_bytes(&hir).map(|b| {
            let members: Vec<u8> = (0..=255u8).filter(|&i| b.set[usize::from(i)]).collect();
            (String::from_utf8_lossy(&members).into_owned(), b.count)
        })
    }

    #[test]
    fn byte_requirements_count_repetitions_and_take_the_weakest_branch() {
        assert_eq!(byte_gate("[<>]{3}"), Some(("<>".into(), 3)));
        assert_eq!(byte_gate("(?:[<>][^<>]*?){8}"), Some(("<>".into(), 8)));
        assert_eq!(byte_gate("(?:[<>]|ab){2}"), Some(("<>ab".into(), 2)));
        assert_eq!(byte_gate("\\w+[;|]"), Some((";|".into(), 1)));
        assert_eq!(byte_gate("[;|]|a*"), None);
        assert_eq!(byte_gate("(?s:.)"), None);
        assert_eq!(byte_gate("\\W{4}").map(|(_, n)| n), Some(4));
    }

    #[test]
    fn a_run_followed_by_the_start_of_the_next_part_is_required() {
        // CRS 930100's shape: a separator, then a dot, a question mark or an escape, then anything.
        assert_eq!(
            required(r"(?:[/\\]|%2f)(?:\.\w*|\?|%(?:2e|u002e))"),
            set(&[
                "%2f%2e",
                "%2f%u002e",
                "%2f.",
                "%2f?",
                "/%2e",
                "/%u002e",
                "/.",
                "/?",
                "\\%2e",
                "\\%u002e",
                "\\.",
                "\\?"
            ])
        );
        // The part's start is its first repeat, or a byte of its class.
        assert_eq!(required(r"ab(?:cd)+\w*"), set(&["abcd"]));
        assert_eq!(required(r"x[yz]\w*"), set(&["xy", "xz"]));
        // A part that may be empty has no start: the run alone is required.
        assert_eq!(required(r"ab(?:cd)?\w*"), set(&["ab"]));
        assert_eq!(required(r"ab\w*cd"), set(&["ab"]));
    }

    #[test]
    fn longer_literals_containing_a_shorter_one_are_dropped() {
        assert_eq!(required("ab|xaby|cd"), set(&["ab", "cd"]));
    }

    #[test]
    fn a_concatenation_too_large_to_multiply_is_not_exact() {
        // Each class has 10 members: the product of three exceeds the limit, so the run is cut. The whole
        // concatenation must not claim to be exact (then `(?:...)` inside an alternation would be wrong).
        let info = analyse(&syntax::parse_with("[0-9][0-9][0-9]", &syntax_config()).unwrap());
        assert!(info.exact.is_none());
    }
}
