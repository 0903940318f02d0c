//! The engine behind every regex of a rule set: a dense DFA built ahead of time, or regex-automata's meta engine.
//!
//! A *dense* engine is a forward and a reverse dense DFA (`regex_automata::dfa::regex::Regex`): a search is a
//! table walk with no cache, no locking and no engine choice at run time, and the tables serialize into the
//! artifact so loading builds nothing. A DFA can be exponentially larger than its pattern, so it is only built
//! when it fits a size budget ([`EnginePlan::Dense`]); otherwise the rule keeps the *meta* engine (a lazy DFA
//! whose cache is bounded, with a PikeVM behind it), built from the pattern at load.
//!
//! Both give the same matches: leftmost-first, byte-oriented, with ModSecurity's syntax flags
//! ([`syntax_config`]). Neither backtracks, so no pattern and no input can make a search more than
//! linear. A dense DFA cannot report capture groups: when a chain condition needs them and the DFA found a
//! match, a meta regex of the same pattern is built once (on first need) and run on that value only.

use regex_automata::dfa::Automaton;
use regex_automata::dfa::{dense, regex::Regex as DenseRegex};
use regex_automata::meta::{self, Regex as MetaRegex};
use regex_automata::nfa::thompson;
use regex_automata::util::captures::Captures;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, Match};
use std::fmt;
use std::sync::OnceLock;

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
    MetaRegex::config()
        .nfa_size_limit(Some(NFA_SIZE_LIMIT))
        .utf8_empty(false)
}

/// A function giving the engine of each regex a rule needs (see [`RegexSource`]).
pub type RegexFactory<'a> = dyn FnMut(&str) -> Result<RegexEngine, RegexError> + 'a;

/// Why a regex cannot be used; one line, fit for a load error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegexError {
    /// The pattern is not valid (look-around and back-references included: they cannot run in linear time).
    #[error("regex does not compile: {message} (at offset {offset})")]
    Syntax { message: String, offset: usize },
    /// The engine refused a valid pattern (its NFA would exceed [`NFA_SIZE_LIMIT`], say).
    #[error("regex does not compile: {0}")]
    Build(String),
    /// An artifact's stored engine does not fit its pattern (only a corrupt artifact gives this).
    #[error("{0}")]
    Stored(#[from] StoredRegexError),
}

/// Why an artifact's stored engine for a regex is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoredRegexError {
    #[error("fewer stored regexes than the rule has")]
    Missing,
    #[error("cannot align a DFA buffer")]
    Alignment,
    /// The deserializer's message: its error can be neither cloned nor compared, as a [`RegexError`] is.
    #[error("invalid DFA: {0}")]
    Dfa(String),
    #[error("invalid DFA: {0} trailing bytes")]
    TrailingBytes(usize),
    #[error("invalid DFA: not built for this role")]
    WrongRole,
    #[error("stored capture group count does not match the pattern")]
    GroupCount,
}

/// Compiles a pattern, already through [`pcre_byte_escapes`], on the meta engine with ModSecurity's semantics.
pub fn build_meta(pattern: &str) -> Result<MetaRegex, RegexError> {
    MetaRegex::builder()
        .syntax(syntax_config())
        .configure(meta_config())
        .build(pattern)
        .map_err(|e| match e.syntax_error() {
            Some(regex_syntax::Error::Parse(p)) => RegexError::Syntax {
                message: p.kind().to_string(),
                offset: p.span().start.offset,
            },
            Some(regex_syntax::Error::Translate(t)) => RegexError::Syntax {
                message: t.kind().to_string(),
                offset: t.span().start.offset,
            },
            _ => RegexError::Build(e.to_string()),
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

/// Default size budget of one dense DFA (the forward and the reverse DFA each): 2 MiB. Most CRS 942 patterns
/// fit in a few hundred KiB; the few large keyword alternations under `(?i)` grow to tens of MiB as DFAs and
/// would make the artifact (and every proxy's memory) many times larger for little gain, so they stay lazy.
pub const DEFAULT_DFA_SIZE_LIMIT: usize = 2 << 20;

/// Determinization may use this many times the DFA budget in scratch memory before it gives up; it bounds the
/// compile time and memory spent on a pattern that will not fit anyway.
const DETERMINIZE_FACTOR: usize = 4;

/// How a rule set's regexes are compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnginePlan {
    /// Every regex on the meta engine, built at load (what loading YAML does by default: no DFA construction
    /// on the proxy's reload path, which keeps a reload to tens of milliseconds).
    #[default]
    Lazy,
    /// A dense DFA for each regex of an active rule (at or below the paranoia level) whose DFAs fit
    /// `size_limit` bytes each; the meta engine for the rest (what `rulec compile` does).
    Dense { size_limit: usize },
}

/// Where compilation gets the engine of each regex of a rule: built from the pattern ([`Planner`]), or taken
/// from an artifact. `paranoia_level` is the rule's.
pub trait RegexSource {
    fn regex(&mut self, pattern: &str, paranoia_level: u8) -> Result<RegexEngine, RegexError>;
}

/// Builds engines by an [`EnginePlan`] for a rule set at `paranoia_level`.
#[derive(Debug, Clone, Copy)]
pub struct Planner {
    pub plan: EnginePlan,
    pub paranoia_level: u8,
}

impl RegexSource for Planner {
    fn regex(&mut self, pattern: &str, paranoia_level: u8) -> Result<RegexEngine, RegexError> {
        match self.plan {
            // Rules above the paranoia level never run: no DFA is spent on them.
            EnginePlan::Dense { size_limit } if paranoia_level <= self.paranoia_level => {
                RegexEngine::dense_or_lazy(pattern, size_limit)
            }
            _ => RegexEngine::lazy(pattern),
        }
    }
}

/// A compiled regex.
pub struct RegexEngine {
    /// The pattern as the regex-automata parser sees it (after [`pcre_byte_escapes`]).
    pattern: String,
    /// Capture groups including group 0.
    groups: usize,
    /// Boxed: the two DFAs' headers are over a kilobyte, and rules hold many small regexes.
    dense: Option<Box<DenseRegex>>,
    /// The meta regex: the engine itself when there is no dense DFA, else the capture resolver, built on first
    /// need. `None` inside only if the pattern stopped compiling (only a corrupt-but-hash-valid artifact can do
    /// that), in which case the regex matches nothing.
    meta: OnceLock<Option<MetaRegex>>,
    /// The pattern matches every value, all of it (see [`RegexEngine::matches_whole`]).
    whole: bool,
}

impl fmt::Debug for RegexEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegexEngine")
            .field("pattern", &self.pattern)
            .field("engine", &self.kind())
            .finish()
    }
}

/// Which engine runs a regex, for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    Dense,
    Lazy,
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EngineKind::Dense => "dense",
            EngineKind::Lazy => "lazy",
        })
    }
}

impl RegexEngine {
    /// Compiles `pattern` on the meta engine.
    pub fn lazy(pattern: &str) -> Result<RegexEngine, RegexError> {
        let pattern = pcre_byte_escapes(pattern);
        let meta = build_meta(&pattern)?;
        Ok(RegexEngine {
            whole: matches_whole(&pattern),
            pattern,
            groups: meta.group_info().group_len(regex_automata::PatternID::ZERO),
            dense: None,
            meta: OnceLock::from(Some(meta)),
        })
    }

    /// Compiles `pattern` to dense DFAs if both fit `size_limit` bytes, else on the meta engine.
    pub fn dense_or_lazy(pattern: &str, size_limit: usize) -> Result<RegexEngine, RegexError> {
        // The meta build validates the pattern and gives the usual error message.
        let mut engine = RegexEngine::lazy(pattern)?;
        let dense = DenseRegex::builder()
            .syntax(syntax_config())
            .thompson(thompson::Config::new().utf8(false))
            .dense(
                dense::Config::new()
                    .dfa_size_limit(Some(size_limit))
                    .determinize_size_limit(Some(size_limit.saturating_mul(DETERMINIZE_FACTOR))),
            )
            .build(&engine.pattern);
        // Too large (or any other DFA limit): the meta engine it is. The DFA is built from the same syntax, so
        // nothing else can fail here.
        if let Ok(dense) = dense {
            engine.dense = Some(Box::new(dense));
            engine.meta = OnceLock::new();
        }
        Ok(engine)
    }

    /// An engine from its parts as the artifact stores them: dense DFAs already validated by
    /// [`dense::DFA::from_bytes`], or none (the meta engine is then built now, or on first use when `defer`).
    pub(crate) fn from_parts(
        pattern: String,
        groups: usize,
        dense: Option<Box<DenseRegex>>,
        defer: bool,
    ) -> Result<RegexEngine, RegexError> {
        let engine = RegexEngine {
            whole: matches_whole(&pattern),
            pattern,
            groups,
            dense,
            meta: OnceLock::new(),
        };
        if engine.dense.is_none() && !defer {
            let meta = build_meta(&engine.pattern)?;
            if meta.group_info().group_len(regex_automata::PatternID::ZERO) != groups {
                return Err(StoredRegexError::GroupCount.into());
            }
            let _ = engine.meta.set(Some(meta));
        }
        Ok(engine)
    }

    /// The pattern as compiled (after [`pcre_byte_escapes`]).
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Number of capture groups including group 0.
    pub fn group_count(&self) -> usize {
        self.groups
    }

    pub fn kind(&self) -> EngineKind {
        if self.dense.is_some() {
            EngineKind::Dense
        } else {
            EngineKind::Lazy
        }
    }

    /// The dense DFAs (forward, reverse), when this engine has them.
    pub fn dense(&self) -> Option<&DenseRegex> {
        self.dense.as_deref()
    }

    /// Bytes of the dense DFAs (0 for the meta engine, whose memory is a bounded cache).
    pub fn dense_size(&self) -> usize {
        self.dense.as_ref().map_or(0, |d| {
            d.forward().memory_usage() + d.reverse().memory_usage()
        })
    }

    fn meta(&self) -> Option<&MetaRegex> {
        self.meta
            .get_or_init(|| build_meta(&self.pattern).ok())
            .as_ref()
    }

    /// Whether the pattern's leftmost-first match in any haystack is the whole haystack and it has no capture
    /// group of its own: `^.*$` (`.` matches every byte), which CRS 920450 runs on every header name only to
    /// capture it. The operator then needs no search at all.
    pub fn matches_whole(&self) -> bool {
        self.whole && self.groups == 1
    }

    /// The leftmost-first match in `haystack`.
    pub fn find(&self, haystack: &[u8]) -> Option<Match> {
        match &self.dense {
            Some(dense) => match dense_find(dense, haystack) {
                Ok(found) => found,
                // Search errors come only from quit bytes or unsupported start configurations, which our DFAs do
                // not have, and an inconsistent DFA pair only from a crafted artifact: the meta engine answers
                // then, rather than a panic on the request path.
                Err(()) => self.meta()?.find(haystack),
            },
            None => self.meta()?.find(haystack),
        }
    }

    /// Whether `haystack` has a match (with dense DFAs: the forward DFA alone, stopping at the first match).
    pub fn is_match(&self, haystack: &[u8]) -> bool {
        match &self.dense {
            Some(dense) => {
                match dense
                    .forward()
                    .try_search_fwd(&Input::new(haystack).earliest(true))
                {
                    Ok(found) => found.is_some(),
                    Err(_) => self.meta().is_some_and(|m| m.is_match(haystack)),
                }
            }
            None => self.meta().is_some_and(|m| m.is_match(haystack)),
        }
    }

    /// The leftmost-first match and its capture groups. With dense DFAs, the meta regex runs only when they
    /// found a match.
    pub fn captures(&self, haystack: &[u8]) -> Option<Captures> {
        if self.dense.is_some() {
            self.find(haystack)?;
        }
        let meta = self.meta()?;
        let mut caps = meta.create_captures();
        meta.captures(haystack, &mut caps);
        caps.is_match().then_some(caps)
    }
}

/// Whether `pattern` (as the engine reads it) matches every haystack from its start to its end: greedy `.*` (any
/// byte), between anchors that hold there. Only short patterns are parsed: this runs for every regex at load.
fn matches_whole(pattern: &str) -> bool {
    use regex_syntax::hir::{Class, HirKind, Look};
    if pattern.len() > 16 || !pattern.contains(".*") {
        return false;
    }
    let Ok(hir) = regex_automata::util::syntax::parse_with(pattern, &syntax_config()) else {
        return false;
    };
    let parts = match hir.kind() {
        HirKind::Concat(parts) => parts.as_slice(),
        _ => std::slice::from_ref(&hir),
    };
    // `^` and `$` hold at the haystack's ends, in multi-line mode too.
    let anchor = |h: &regex_syntax::hir::Hir, looks: &[Look]| matches!(h.kind(), HirKind::Look(look) if looks.contains(look));
    let starts = [Look::Start, Look::StartLF, Look::StartCRLF];
    let ends = [Look::End, Look::EndLF, Look::EndCRLF];
    let first = parts.iter().take_while(|h| anchor(h, &starts)).count();
    let last = parts.len() - parts.iter().rev().take_while(|h| anchor(h, &ends)).count();
    let [middle] = parts.get(first..last.max(first)).unwrap_or_default() else {
        return false;
    };
    matches!(middle.kind(), HirKind::Repetition(r)
        if r.min == 0 && r.max.is_none() && r.greedy
        && matches!(r.sub.kind(), HirKind::Class(Class::Bytes(c))
            if c.ranges().len() == 1 && c.ranges()[0].start() == 0 && c.ranges()[0].end() == 255))
}

/// The leftmost-first match with a forward and a reverse DFA: the forward search finds where the match ends, the
/// reverse search (anchored there) where it starts. `dfa::regex::Regex::try_search` does the same but panics when
/// the reverse DFA disagrees, which DFAs read from a file must not be able to cause: that is an `Err` here.
fn dense_find(dense: &DenseRegex, haystack: &[u8]) -> Result<Option<Match>, ()> {
    let input = Input::new(haystack);
    let Some(end) = dense.forward().try_search_fwd(&input).map_err(|_| ())? else {
        return Ok(None);
    };
    // An empty match at the start, or a pattern that can only match at the start: no reverse search needed.
    if end.offset() == 0 || dense.forward().is_always_start_anchored() {
        return Ok(Some(Match::new(end.pattern(), 0..end.offset())));
    }
    let reverse = input
        .span(0..end.offset())
        .anchored(Anchored::Yes)
        .earliest(false);
    match dense.reverse().try_search_rev(&reverse) {
        Ok(Some(start)) if start.offset() <= end.offset() && start.pattern() == end.pattern() => {
            Ok(Some(Match::new(
                end.pattern(),
                start.offset()..end.offset(),
            )))
        }
        _ => Err(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATTERNS: [&str; 6] = [
        r"(?i)\bunion\b.{0,20}\bselect\b",
        r"^b$",
        r"a.b",
        r"\xff+",
        r"(\w+)\s*=\s*(\w+)",
        r"x*",
    ];

    #[test]
    fn dense_and_lazy_find_the_same_spans() {
        let inputs: [&[u8]; 6] = [
            b"1 UNION all SELECT x",
            b"a\nb\nc",
            b"a\nb",
            b"q\xff\xffz",
            b"x' or a = a",
            b"",
        ];
        for p in PATTERNS {
            let lazy = RegexEngine::lazy(p).unwrap();
            let dense = RegexEngine::dense_or_lazy(p, DEFAULT_DFA_SIZE_LIMIT).unwrap();
            assert_eq!(dense.kind(), EngineKind::Dense, "{p}");
            assert_eq!(lazy.group_count(), dense.group_count());
            for input in inputs {
                assert_eq!(lazy.find(input), dense.find(input), "{p} on {input:?}");
                assert_eq!(
                    lazy.is_match(input),
                    dense.is_match(input),
                    "{p} on {input:?}"
                );
                let groups = |e: &RegexEngine| {
                    e.captures(input).map(|c| {
                        (0..c.group_len())
                            .map(|i| c.get_group(i).map(|s| s.range()))
                            .collect::<Vec<_>>()
                    })
                };
                assert_eq!(groups(&lazy), groups(&dense), "{p} on {input:?}");
            }
        }
    }

    #[test]
    fn only_patterns_matching_every_value_wholly_skip_the_search() {
        for p in [r"^.*$", r".*", r"(?s)^.*$", r"^(?:.*)$"] {
            let engine = RegexEngine::lazy(p).unwrap();
            assert!(engine.matches_whole(), "{p}");
            for input in [&b""[..], b"x-Forwarded-For", b"a\nb\n"] {
                assert_eq!(engine.find(input).map(|m| m.range()), Some(0..input.len()));
            }
        }
        // A capture group, a lazy star, a class short of some bytes, one anchor inside: a search is needed.
        for p in [
            r"^(.*)$",
            r"^.*?$",
            r"^[^\n]*$",
            r"^.+$",
            r"a.*",
            r"^.*$x",
            r"(?u:^.*$)",
        ] {
            assert!(!RegexEngine::lazy(p).unwrap().matches_whole(), "{p}");
        }
    }

    #[test]
    fn a_pattern_over_the_budget_stays_lazy() {
        // The classic exponential DFA: the 12th letter from the end is an `a`.
        let big = r"[a-z]*a[a-z]{12}";
        let engine = RegexEngine::dense_or_lazy(big, 64 << 10).unwrap();
        assert_eq!(engine.kind(), EngineKind::Lazy);
        assert!(engine.is_match(b"xxaxxxxxxxxxxxx"));
        assert_eq!(engine.dense_size(), 0);
    }

    #[test]
    fn a_reverse_dfa_of_another_pattern_falls_back_instead_of_panicking() {
        let build = |p: &str| DenseRegex::new(p).unwrap();
        let (abc, xyz) = (build("b+c"), build("xyz"));
        let mismatched =
            DenseRegex::builder().build_from_dfas(abc.forward().clone(), xyz.reverse().clone());
        let engine =
            RegexEngine::from_parts("b+c".into(), 1, Some(Box::new(mismatched)), false).unwrap();
        assert_eq!(engine.find(b"abbc").map(|m| m.range()), Some(1..4));
        assert!(engine.is_match(b"abbc"));
    }

    #[test]
    fn syntax_errors_are_the_same_for_both_plans() {
        let lazy = RegexEngine::lazy("(a").unwrap_err();
        let dense = RegexEngine::dense_or_lazy("(a", DEFAULT_DFA_SIZE_LIMIT).unwrap_err();
        assert_eq!(lazy, dense);
        assert!(lazy.to_string().starts_with("regex does not compile"));
    }
}
