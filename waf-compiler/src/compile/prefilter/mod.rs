//! Literal prefilters: one Aho-Corasick scan of a value tells which rules can match it, and only those run.
//!
//! At build time each active rule gets its required literals ([`literals`]): a `regex` rule's from its
//! pattern, a `contains`/`starts_with` rule's needle. A regex rule without any (such as
//! `\W{4}`) falls back to a byte gate when its matches need some bytes of a set (CRS 942420: eight of the
//! "special" characters): it runs only on values with that many. A rule with neither (the detectors) always
//! runs. The literals are grouped per variable: each literal of a variable's group points to the (rule,
//! transform chain) pairs it gates. The groups scan with case-insensitive Aho-Corasick DFAs: the large groups (the
//! CRS's argument, cookie and XML variables) share one automaton of all their literals, walked byte by byte, four
//! values side by side (`find_literals`); the small groups' automata search with their prefilter, skipping to
//! where a literal can start (`search_literals`). One-byte literals are found by a table instead
//! (`ByteLiterals`).
//!
//! Per request, [`Prefilter::scan`] is the first pass: for each value of each grouped variable, it computes the
//! value under every chain the group's rules use (through the request's shared [`TransformCache`], so the
//! second pass reuses them), then scans each distinct result once, and marks a rule when one of its literals occurs
//! in the value *that rule sees* (the value after its own chain). Most values need no chain at all: when a
//! value holds none of the bytes a chain's transforms act on ([`Triggers`]), its value under that chain is the
//! value itself. A chain ending in `lowercase` is scanned as the chain without it: the automaton ignores ASCII
//! case, so both give the same literals, and the lowercased copy is only made if a marked rule needs it.
//! Evaluation then skips a gated rule on every
//! value where it is not marked. Since every match contains a required literal, a skipped rule could not have
//! matched: verdicts are the same with and without the prefilter (tested on every test request).
//!
//! [`Prefilter`] serializes as [`PrefilterData`] (the literals and targets, plain data); the automata are
//! rebuilt on load and the data is validated first, so a corrupt artifact is an error, never a panic.

mod literals;

use crate::compile::{Chains, CompiledRule};
use crate::evaluate::TransformCache;
use crate::evaluate::memo::MAX_VALUE_LEN;
use crate::operator::Matcher;
use crate::regex_engine::{pcre_byte_escapes, syntax_config};
use crate::request::collection::RequestView;
use crate::rule::{Rule, Transform, Variable};
use crate::transform::{Triggers, max_output_len};
use aho_corasick::automaton::{Automaton, OverlappingState, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind};
use regex_syntax::hir::Hir;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

pub use literals::{ByteCount, Literals};

/// A rule whose value must contain a literal, and the transform chain of that value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Target {
    /// Index of the rule in the rule set (rules sorted by id, inactive ones included).
    pub rule: u32,
    /// Chain id (see [`Chains`]) of the value the rule's operator sees.
    pub chain: u32,
}

/// The literals of one variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupData {
    pub variable: Variable,
    /// Lowercased; matched ASCII case-insensitively.
    pub literals: Vec<Vec<u8>>,
    /// `targets[i]`: the rules gated by `literals[i]`.
    pub targets: Vec<Vec<Target>>,
    /// Gates of rules without required literals, by byte set.
    pub byte_gates: Vec<ByteGateData>,
}

/// Rules whose every match has at least `min_count` bytes of `bytes` (CRS 942420's "eight special characters").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByteGateData {
    /// The set's members.
    pub bytes: Vec<u8>,
    pub targets: Vec<(Target, u32)>,
}

/// What a [`Prefilter`] is made of, as stored in an artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrefilterData {
    /// Number of rules of the rule set it was built for (checked when attached to one).
    pub rule_count: u32,
    /// Number of transform chains of that rule set.
    pub chain_count: u32,
    pub groups: Vec<GroupData>,
}

/// Why stored prefilter data cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrefilterError {
    #[error("prefilter data is inconsistent: {0}")]
    Inconsistent(String),
    #[error(
        "prefilter was built for {0} rules and {1} transform chains, the rule set has {2} and {3}"
    )]
    WrongRuleSet(u32, u32, usize, usize),
    #[error("prefilter automaton cannot be built: {0}")]
    Automaton(String),
}

/// One variable's automaton and what its matches mean.
#[derive(Debug)]
struct Group {
    variable: Variable,
    /// The literals of two bytes or more. Possibly shared with other groups (see [`share_automata`]).
    automaton: Arc<DFA>,
    /// The length of the automaton's shortest literal: a shorter value holds none, and is not scanned
    /// (starting a scan costs about as much as scanning a short value).
    shortest: usize,
    /// The distinct chains of the group's targets: the values scanned for each value of the variable.
    chains: Vec<usize>,
    /// `targets[pattern]`: (rule index, slot in `chains`) for each pattern of the automaton.
    targets: Vec<Vec<(usize, usize)>>,
    /// The literals of one byte, found by a table lookup per byte.
    byte_literals: ByteLiterals,
    byte_gates: Vec<ByteGate>,
    /// `shortest_of_slot[slot]`: the fewest bytes a value must have for a target of chain slot `slot` to be
    /// marked (its shortest literal, or the count of a byte gate).
    shortest_of_slot: Vec<usize>,
}

/// A group's one-byte literals (CRS patterns give sets such as every letter of a class `[a-z]` would start
/// with). In the automaton one matched at nearly every byte of benign text, each match a return from the
/// overlapping search (a third of the whole CRS's scan time on a browser GET); a table lookup per byte finds
/// the same literals. Derived when the automata are built, not stored.
#[derive(Debug)]
struct ByteLiterals {
    /// `ordinal[byte]`: 1 + the index in `targets` of the literal that is `byte` up to ASCII case, 0 for none.
    /// Literals are lowercased, so at most 230 distinct ones: the ordinals fit a byte.
    ordinal: [u8; 256],
    /// (rule index, slot in the group's `chains`) per literal.
    targets: Vec<Vec<(usize, usize)>>,
}

impl ByteLiterals {
    /// `literals` are (lowercased byte, targets), each byte once.
    fn new(literals: Vec<(u8, Vec<(usize, usize)>)>) -> ByteLiterals {
        let mut ordinal = [0u8; 256];
        let mut targets = Vec::with_capacity(literals.len());
        for (byte, list) in literals {
            // At most 230 distinct lowercased bytes (checked by the caller's dedup), so this fits.
            let k = u8::try_from(targets.len() + 1).unwrap_or(u8::MAX);
            ordinal[usize::from(byte)] = k;
            ordinal[usize::from(byte.to_ascii_uppercase())] = k;
            targets.push(list);
        }
        ByteLiterals { ordinal, targets }
    }

    /// The ordinals of the literals `value` holds, as a bit set (bit 0 stands for the bytes that are no
    /// literal): a value holds few distinct letters, so only those are looked at afterwards.
    fn find(&self, value: &[u8]) -> [u64; 4] {
        let mut present = [0u64; 4];
        if self.targets.len() < 64 {
            // Every ordinal fits one word, kept in a register. Or-ing into `present[k >> 6]` in memory made each
            // byte wait for the store of the byte before (benign text is mostly ordinal 0: the same word).
            let mut word = 0u64;
            for &b in value {
                word |= 1 << self.ordinal[usize::from(b)];
            }
            present[0] = word;
        } else {
            for &b in value {
                let k = self.ordinal[usize::from(b)];
                present[usize::from(k >> 6)] |= 1 << (k & 63);
            }
        }
        present[0] &= !1;
        present
    }
}

#[derive(Debug)]
struct ByteGate {
    set: [bool; 256],
    /// The highest `min_count` of the targets: counting stops there.
    enough: usize,
    /// (rule index, slot in the group's `chains`, min count).
    targets: Vec<(usize, usize, usize)>,
}

/// The prefilter of a rule set; see the module documentation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "PrefilterData", into = "PrefilterData")]
pub struct Prefilter {
    data: PrefilterData,
    groups: std::sync::Arc<[Group]>,
    /// `by_variable[v]`: the index in `groups` of variable `v`'s group.
    by_variable: [Option<usize>; Variable::COUNT],
    words: usize,
    /// Bit per rule: every variable it reads has a group, so a request where no value is marked for it skips
    /// the rule outright. Derived from the rules when attached ([`Prefilter::attach`]), never stored.
    fully_gated: Vec<u64>,
    /// Per group, what its values are scanned under. Derived when attached, never stored.
    plans: Vec<ScanPlan>,
    /// Per group, bit per rule: the rules without a gate for the group's variable (no literal, no byte gate
    /// there: the detectors, among others). The scan marks them on every value it computes, so that the
    /// second pass can rule them out of the value and the memo remember that ([`Marks::refute`]). Until
    /// attached, every rule not gated there; once attached, only those that read the variable.
    ungated: Vec<Vec<u64>>,
    /// Names this prefilter's marks in the memo of results across requests ([`crate::evaluate::memo`]): new at every
    /// attach, never 0 once attached (0: not attached, nothing remembered).
    id: u64,
}

/// The source of a chain the scan skipped for a value (see [`ScanPlan`]): equal to no computed source, so its
/// targets are not marked.
const SKIPPED: usize = usize::MAX;

/// The next prefilter id.
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// How one group's values are scanned: `chains[i]` is a chain whose value is scanned (a chain of the group
/// without its trailing `lowercase` transforms), each once. `by_trigger` lists the chains by the triggers their
/// transforms act on: a value without any of them is that chain's value as it is (no transform cache entry, no
/// copy: the common case for benign values), so a value looks only at the lists whose triggers it has.
/// `of_slot[slot]` is the index in `chains` of the group's chain `slot`: several chains of a group often
/// differ only by a trailing `lowercase`.
/// `min_raw_len[i]`: a raw value shorter than this cannot give chain `chains[i]` a value long enough for any of
/// its targets' literals (most transforms never lengthen a value and `base64Decode` shortens it by a quarter):
/// the chain is neither computed nor scanned for it.
#[derive(Debug, Clone)]
struct ScanPlan {
    chains: Vec<usize>,
    by_trigger: Vec<(Triggers, Vec<usize>)>,
    of_slot: Vec<usize>,
    min_raw_len: Vec<usize>,
}

impl ScanPlan {
    /// The plan of a group whose chain slots are scanned as `scanned[slot]`.
    fn new(scanned: impl IntoIterator<Item = (usize, Triggers)>) -> ScanPlan {
        let mut chains: Vec<usize> = Vec::new();
        let mut by_trigger: Vec<(Triggers, Vec<usize>)> = Vec::new();
        let of_slot = scanned
            .into_iter()
            .map(|(chain, triggers)| {
                chains.iter().position(|&c| c == chain).unwrap_or_else(|| {
                    chains.push(chain);
                    let i = chains.len() - 1;
                    match by_trigger.iter_mut().find(|(t, _)| *t == triggers) {
                        Some((_, members)) => members.push(i),
                        None => by_trigger.push((triggers, vec![i])),
                    }
                    i
                })
            })
            .collect();
        let min_raw_len = vec![0; chains.len()];
        ScanPlan {
            chains,
            by_trigger,
            of_slot,
            min_raw_len,
        }
    }

    /// Sets `min_raw_len` for a group whose slots need `shortest_of_slot` bytes, by the length bounds of the
    /// chains' transforms.
    fn bound_lengths(&mut self, chains: &Chains, shortest_of_slot: &[usize]) {
        for (i, &chain) in self.chains.iter().enumerate() {
            let shortest = self
                .of_slot
                .iter()
                .zip(shortest_of_slot)
                .filter(|&(&of, _)| of == i)
                .map(|(_, &shortest)| shortest)
                .min()
                .unwrap_or(0);
            let transforms = chains.get(chain);
            let longest = |len: usize| {
                transforms
                    .iter()
                    .try_fold(len, |len, &t| max_output_len(t, len))
            };
            // The bound grows with the raw length (by at least one byte in four bytes per `base64Decode`), so the
            // search ends; it is capped all the same, and a chain that may lengthen its value is never skipped.
            let mut needed = 0;
            while needed < MAX_SKIPPED_LEN && longest(needed).is_some_and(|l| l < shortest) {
                needed += 1;
            }
            self.min_raw_len[i] = if needed >= MAX_SKIPPED_LEN { 0 } else { needed };
        }
    }
}

/// Values at least this long are always scanned (a bound on the work of [`ScanPlan::bound_lengths`]).
const MAX_SKIPPED_LEN: usize = 4096;

impl Prefilter {
    /// Builds the prefilter of the rules at or below `paranoia_level` (`rules` in rule-set order).
    pub fn build(rules: &[CompiledRule], chains: &Chains, paranoia_level: u8) -> Prefilter {
        type Builder = (
            BTreeMap<Vec<u8>, Vec<Target>>,
            BTreeMap<Vec<u8>, Vec<(Target, u32)>>,
        );
        let mut groups: BTreeMap<Variable, Builder> = BTreeMap::new();
        for (index, rule) in rules.iter().enumerate() {
            if !rule.runs_at(paranoia_level) {
                continue;
            }
            let gate = match rule_literals(rule) {
                Some(literals) => Gate::Literals(literals),
                None => match rule_bytes(rule) {
                    Some(bytes) => Gate::Bytes(Box::new(bytes)),
                    None => continue,
                },
            };
            let targets = rule.stages.iter().map(|&chain| Target {
                rule: index as u32,
                chain: chain as u32,
            });
            let mut variables: Vec<Variable> = rule.selectors.iter().map(|s| s.variable).collect();
            variables.sort();
            variables.dedup();
            for variable in variables {
                let (literal_map, byte_map) = groups.entry(variable).or_default();
                match &gate {
                    Gate::Literals(literals) => {
                        for literal in literals {
                            literal_map
                                .entry(literal.clone())
                                .or_default()
                                .extend(targets.clone());
                        }
                    }
                    Gate::Bytes(bytes) => {
                        let members: Vec<u8> =
                            (0..=255u8).filter(|&b| bytes.set[usize::from(b)]).collect();
                        byte_map
                            .entry(members)
                            .or_default()
                            .extend(targets.clone().map(|t| (t, bytes.count as u32)));
                    }
                }
            }
        }
        let data = PrefilterData {
            rule_count: rules.len() as u32,
            chain_count: chains.len() as u32,
            groups: groups
                .into_iter()
                .map(|(variable, (literals, byte_map))| {
                    let (literals, targets) = literals.into_iter().unzip();
                    GroupData {
                        variable,
                        literals,
                        targets,
                        byte_gates: byte_map
                            .into_iter()
                            .map(|(bytes, targets)| ByteGateData { bytes, targets })
                            .collect(),
                    }
                })
                .collect(),
        };
        // The data was just built from the rule set itself, so it is consistent; an automaton that cannot be
        // built (a size limit of aho-corasick) is the one failure left, and then the rules simply all run.
        Prefilter::try_from(data).unwrap_or_else(|_| Prefilter::empty(rules.len(), chains.len()))
    }

    /// A prefilter that gates nothing.
    fn empty(rule_count: usize, chain_count: usize) -> Prefilter {
        Prefilter {
            data: PrefilterData {
                rule_count: rule_count as u32,
                chain_count: chain_count as u32,
                groups: Vec::new(),
            },
            groups: std::sync::Arc::from(Vec::new()),
            by_variable: [None; Variable::COUNT],
            words: rule_count.div_ceil(64),
            fully_gated: Vec::new(),
            plans: Vec::new(),
            ungated: Vec::new(),
            id: 0,
        }
    }

    /// The stored form.
    pub fn data(&self) -> &PrefilterData {
        &self.data
    }

    /// Binds the prefilter to its rule set (`rules` in rule-set order, with these transform chains), refusing
    /// one built for another rule set.
    pub fn attach(
        &mut self,
        rules: &[CompiledRule],
        chains: &Chains,
    ) -> Result<(), PrefilterError> {
        let chain_count = chains.len();
        if self.data.rule_count as usize != rules.len()
            || self.data.chain_count as usize != chain_count
        {
            return Err(PrefilterError::WrongRuleSet(
                self.data.rule_count,
                self.data.chain_count,
                rules.len(),
                chain_count,
            ));
        }
        let mut fully_gated = vec![0u64; self.words];
        let mut readers = vec![vec![0u64; self.words]; self.groups.len()];
        for (index, rule) in rules.iter().enumerate() {
            let (word, bit) = (index / 64, 1u64 << (index % 64));
            let mut grouped = true;
            for selector in &rule.selectors {
                match self.by_variable[selector.variable.index()] {
                    Some(g) => readers[g][word] |= bit,
                    None => grouped = false,
                }
            }
            if grouped {
                fully_gated[word] |= bit;
            }
        }
        for (ungated, readers) in self.ungated.iter_mut().zip(&readers) {
            for (ungated, readers) in ungated.iter_mut().zip(readers) {
                *ungated &= readers;
            }
        }
        self.fully_gated = fully_gated;
        self.id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.plans = self
            .groups
            .iter()
            .map(|group| {
                let mut plan = ScanPlan::new(group.chains.iter().map(|&chain| {
                    let chain = without_trailing_lowercase(chains, chain);
                    (chain, Triggers::acted_on_by(chains.get(chain)))
                }));
                plan.bound_lengths(chains, &group.shortest_of_slot);
                plan
            })
            .collect();
        Ok(())
    }

    /// The first pass over a request: which gated rules may match which values. First every value of every
    /// group is computed under the group's chains (through the cache), which gives the distinct values to
    /// scan; then those are walked through their automata [`LANES`] at a time, each walk's literals marking
    /// their targets; last, each value computed gets the marks of its ungated rules.
    pub fn scan(
        &self,
        view: &RequestView<'_>,
        chains: &Chains,
        cache: &mut TransformCache,
    ) -> Marks<'_> {
        // The tables of the thread's previous request, emptied (their allocations were a tenth of the scan).
        let ScanBuffers {
            bits: mut all_bits,
            mut any,
            mut seen,
            mut hits,
            mut sources,
            mut distinct,
            mut fresh,
            mut group_any,
            mut walks,
            mut searches,
            mut computed,
        } = std::mem::take(&mut cache.scan_buffers);
        fresh.clear();
        sources.clear();
        walks.clear();
        searches.clear();
        computed.clear();
        group_any.clear();
        group_any.resize(self.groups.len() * self.words, 0);
        any.clear();
        any.resize(self.words, 0);
        all_bits.resize_with(self.groups.len(), Vec::new);
        let mut group_values = [None; Variable::COUNT];
        for (g, (group, bits)) in self.groups.iter().zip(&mut all_bits).enumerate() {
            let values = view.values(group.variable);
            group_values[g] = Some(values);
            bits.clear();
            bits.resize(values.slots() * self.words, 0);
            let group_any = &mut group_any[g * self.words..(g + 1) * self.words];
            let plan = &self.plans[g];
            // `seen` is all false between walks (only the entries of the walk's hits are set, and they are
            // reset after it), so no clearing of a table the size of the literal set, per value or per request.
            if seen.len() < group.targets.len() {
                seen.resize(group.targets.len(), false);
            }
            for (index, _, raw) in values.iter() {
                let at = index * self.words;
                let memo = self.id != 0 && cache.memo_on && raw.len() <= MAX_VALUE_LEN;
                if memo && let Some(known) = cache.memo.marks(self.id, g, raw) {
                    for (word, &marked) in bits[at..at + self.words].iter_mut().zip(known) {
                        *word = marked;
                    }
                    or_into(&bits[at..at + self.words], group_any);
                    continue;
                }
                let triggers = Triggers::of(raw);
                // Each chain's value is the raw value, unless the raw value is too short for any literal of
                // the chain's targets (none is marked) or some transform of the chain acts on it.
                let chains_at = sources.len();
                sources.extend(plan.min_raw_len.iter().map(|&min| match raw.len() < min {
                    true => SKIPPED,
                    false => 0,
                }));
                distinct.clear();
                for (acted_on, members) in &plan.by_trigger {
                    if !triggers.meets(*acted_on) {
                        continue;
                    }
                    for &i in members {
                        if sources[chains_at + i] == SKIPPED {
                            continue;
                        }
                        let chain = plan.chains[i];
                        cache.fill(group.variable, index, chain, chains, raw, Some(triggers));
                        let source = cache.source(group.variable, index, chain);
                        // Chains that left the value as another chain did share that chain's scan, and so
                        // do chains whose values differ only in ASCII case (`[removeWhitespace]` and
                        // `[lowercase, removeWhitespace]` of a header): the scan ignores case (the byte
                        // tables and gates hold both cases of a letter), so it finds the same literals.
                        sources[chains_at + i] = if source == 0 || distinct.contains(&source) {
                            source
                        } else {
                            let value = cache.value(group.variable, index, source, raw);
                            let same = |other: usize| {
                                let other = cache.value(group.variable, index, other, raw);
                                other.len() == value.len() && other.eq_ignore_ascii_case(value)
                            };
                            match std::iter::once(0)
                                .chain(distinct.iter().copied())
                                .find(|&o| same(o))
                            {
                                Some(other) => other,
                                None => {
                                    distinct.push(source);
                                    source
                                }
                            }
                        };
                    }
                }
                if sources[chains_at..].contains(&0) {
                    distinct.push(0);
                }
                // Automata with a prefilter search on their own; the others are walked side by side.
                let queue = match group.automaton.prefilter() {
                    Some(_) => &mut searches,
                    None => &mut walks,
                };
                for &source in &distinct {
                    queue.push(Walk {
                        group: g,
                        index,
                        source,
                        chains_at,
                    });
                }
                computed.push((g, index, memo));
            }
        }
        let value = |walk: &Walk| {
            let group = &self.groups[walk.group];
            let raw = group_values[walk.group]
                .and_then(|values| values.get(walk.index))
                .unwrap_or_default();
            cache.value(group.variable, walk.index, walk.source, raw)
        };
        // A value shorter than every literal of the automaton holds none.
        let text = |walk: &Walk| match value(walk) {
            value if value.len() >= self.groups[walk.group].shortest => value,
            _ => &[],
        };
        let mut mark = |walk: &Walk, hits: &[usize]| {
            let bits = &mut all_bits[walk.group][walk.index * self.words..];
            self.mark(walk, value(walk), hits, &sources, &mut seen, bits);
        };
        for walk in &searches {
            search_literals(&self.groups[walk.group].automaton, text(walk), &mut hits[0]);
            mark(walk, &hits[0]);
        }
        for batch in walks.chunks(LANES) {
            let mut automata = [&*self.groups[batch[0].group].automaton; LANES];
            let mut texts: [&[u8]; LANES] = [&[]; LANES];
            for (lane, walk) in batch.iter().enumerate() {
                automata[lane] = &self.groups[walk.group].automaton;
                texts[lane] = text(walk);
            }
            find_literals(automata, texts, &mut hits);
            for (walk, hits) in batch.iter().zip(&hits) {
                mark(walk, hits);
            }
        }
        for &(g, index, memo) in &computed {
            let at = index * self.words;
            let bits = &mut all_bits[g][at..at + self.words];
            // The rules without a gate here may match any value; the second pass will tell.
            for (word, &ungated) in bits.iter_mut().zip(&self.ungated[g]) {
                *word |= ungated;
            }
            if memo {
                fresh.push((g, index));
            }
            or_into(bits, &mut group_any[g * self.words..(g + 1) * self.words]);
        }
        // The request's summary is its groups' together.
        for (i, &marked) in group_any.iter().enumerate() {
            any[i % self.words] |= marked;
        }
        Marks {
            prefilter: self,
            buffers: ScanBuffers {
                bits: all_bits,
                any,
                seen,
                hits,
                sources,
                distinct,
                fresh,
                group_any,
                walks,
                searches,
                computed,
            },
        }
    }
    /// Marks in `bits` (from the words of `walk`'s value) the rules `walk`'s value may match, when it is the
    /// value the rule sees: those of the literals in `hits` (the automaton's), of the one-byte literals it holds
    /// and of the byte gates it has enough bytes for. `seen` is all false, and left so.
    fn mark(
        &self,
        walk: &Walk,
        value: &[u8],
        hits: &[usize],
        sources: &[usize],
        seen: &mut [bool],
        bits: &mut [u64],
    ) {
        let group = &self.groups[walk.group];
        let source = walk.source;
        let plan = &self.plans[walk.group];
        // The source of the value the rules of chain slot `slot` see.
        let sources = &sources[walk.chains_at..walk.chains_at + plan.chains.len()];
        let of_slot = |slot: usize| sources[plan.of_slot[slot]];
        let mut mark = |rule: usize| {
            bits[rule / 64] |= 1 << (rule % 64);
        };
        // A literal found several times marks its targets once.
        for &literal in hits {
            if std::mem::replace(&mut seen[literal], true) {
                continue;
            }
            for &(rule, target_slot) in &group.targets[literal] {
                if of_slot(target_slot) == source {
                    mark(rule);
                }
            }
        }
        for &literal in hits {
            seen[literal] = false;
        }
        if !group.byte_literals.targets.is_empty() {
            for (word, mut bits) in group.byte_literals.find(value).into_iter().enumerate() {
                while bits != 0 {
                    let k = word * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    for &(rule, target_slot) in &group.byte_literals.targets[k - 1] {
                        if of_slot(target_slot) == source {
                            mark(rule);
                        }
                    }
                }
            }
        }
        for gate in &group.byte_gates {
            let count = count_bytes(&gate.set, value, gate.enough);
            for &(rule, target_slot, min_count) in &gate.targets {
                if of_slot(target_slot) == source && count >= min_count {
                    mark(rule);
                }
            }
        }
    }
}

impl From<Prefilter> for PrefilterData {
    fn from(prefilter: Prefilter) -> PrefilterData {
        prefilter.data
    }
}

impl TryFrom<PrefilterData> for Prefilter {
    type Error = PrefilterError;

    fn try_from(data: PrefilterData) -> Result<Prefilter, PrefilterError> {
        let bad = |message: String| Err(PrefilterError::Inconsistent(message));
        let rule_count = data.rule_count as usize;
        let words = rule_count.div_ceil(64);
        let mut by_variable = [None; Variable::COUNT];
        let mut parts = Vec::with_capacity(data.groups.len());
        let mut all_targets = Vec::with_capacity(data.groups.len());
        let mut all_ungated = Vec::with_capacity(data.groups.len());
        for (position, group) in data.groups.iter().enumerate() {
            let name = group.variable.name();
            if by_variable[group.variable.index()]
                .replace(position)
                .is_some()
            {
                return bad(format!("variable {name} has two groups"));
            }
            if group.literals.len() != group.targets.len() {
                return bad(format!(
                    "variable {name}: {} literals but {} target lists",
                    group.literals.len(),
                    group.targets.len()
                ));
            }
            if let Some(i) = group.literals.iter().position(Vec::is_empty) {
                return bad(format!("variable {name}: literal {i} is empty"));
            }
            let mut chain_ids: Vec<usize> = Vec::new();
            let mut gated = vec![0u64; words];
            // Checks a target and returns (rule index, chain slot), gating the rule for this variable.
            let mut resolve = |target: &Target| {
                let (rule, chain) = (target.rule as usize, target.chain as usize);
                if rule >= rule_count || target.chain >= data.chain_count {
                    return Err(PrefilterError::Inconsistent(format!(
                        "variable {name}: target rule {rule} chain {chain} out of range ({rule_count} rules, {} chains)",
                        data.chain_count
                    )));
                }
                let slot = chain_ids
                    .iter()
                    .position(|&c| c == chain)
                    .unwrap_or_else(|| {
                        chain_ids.push(chain);
                        chain_ids.len() - 1
                    });
                gated[rule / 64] |= 1 << (rule % 64);
                Ok((rule, slot))
            };
            // The literals of two bytes or more go to the automaton, those of one byte to a table.
            let mut targets = Vec::with_capacity(group.targets.len());
            let mut byte_literals = Vec::new();
            let mut shortest_of_slot: Vec<usize> = Vec::new();
            let mut needs = |slot: usize, len: usize| {
                if shortest_of_slot.len() <= slot {
                    shortest_of_slot.resize(slot + 1, usize::MAX);
                }
                shortest_of_slot[slot] = shortest_of_slot[slot].min(len);
            };
            for (literal, list) in group.literals.iter().zip(&group.targets) {
                let list = list
                    .iter()
                    .map(&mut resolve)
                    .collect::<Result<Vec<_>, _>>()?;
                for &(_, slot) in &list {
                    needs(slot, literal.len());
                }
                match literal.as_slice() {
                    &[byte] => byte_literals.push((byte.to_ascii_lowercase(), list)),
                    _ => targets.push((literal.as_slice(), list)),
                }
            }
            // Stored literals are lowercased and distinct; merge any that are not, so each byte has one entry.
            byte_literals.sort_by_key(|(byte, _)| *byte);
            byte_literals.dedup_by(|(byte, list), (kept, kept_list)| {
                let same = byte == kept;
                if same {
                    kept_list.append(list);
                }
                same
            });
            let mut byte_gates = Vec::with_capacity(group.byte_gates.len());
            for gate in &group.byte_gates {
                let mut set = [false; 256];
                // Both cases of a letter: a chain ending in `lowercase` is counted on the value before it
                // (see `ScanPlan`), and counting more bytes can only let a rule run more often.
                for &b in &gate.bytes {
                    set[usize::from(b.to_ascii_lowercase())] = true;
                    set[usize::from(b.to_ascii_uppercase())] = true;
                }
                let mut resolved = Vec::with_capacity(gate.targets.len());
                for (target, min_count) in &gate.targets {
                    let (rule, slot) = resolve(target)?;
                    needs(slot, *min_count as usize);
                    resolved.push((rule, slot, *min_count as usize));
                }
                byte_gates.push(ByteGate {
                    set,
                    enough: resolved.iter().map(|t| t.2).max().unwrap_or(0),
                    targets: resolved,
                });
            }
            let ungated: Vec<u64> = gated
                .iter()
                .enumerate()
                .map(|(word, &g)| !g & word_mask(rule_count, word))
                .collect();
            // A slot without a target (none is built) needs nothing.
            shortest_of_slot.resize(chain_ids.len(), usize::MAX);
            for shortest in &mut shortest_of_slot {
                if *shortest == usize::MAX {
                    *shortest = 0;
                }
            }
            parts.push((
                chain_ids,
                byte_gates,
                ByteLiterals::new(byte_literals),
                shortest_of_slot,
            ));
            all_ungated.push(ungated);
            all_targets.push(targets);
        }
        let literals: Vec<Vec<&[u8]>> = all_targets
            .iter()
            .map(|targets| targets.iter().map(|(literal, _)| *literal).collect())
            .collect();
        let mut all_targets: Vec<Vec<Vec<(usize, usize)>>> = all_targets
            .into_iter()
            .map(|targets| targets.into_iter().map(|(_, list)| list).collect())
            .collect();
        let automata = share_automata(&literals, &mut all_targets)?;
        let groups: Vec<Group> = data
            .groups
            .iter()
            .zip(parts)
            .zip(literals.iter().zip(all_targets.into_iter().zip(automata)))
            .map(
                |(
                    (stored, (chains, byte_gates, byte_literals, shortest_of_slot)),
                    (literals, (targets, automaton)),
                )| {
                    Group {
                        variable: stored.variable,
                        automaton,
                        shortest: literals.iter().map(|l| l.len()).min().unwrap_or(usize::MAX),
                        chains,
                        targets,
                        byte_literals,
                        byte_gates,
                        shortest_of_slot,
                    }
                },
            )
            .collect();
        // Until attached: every chain as it is, computed for every value.
        let plans = groups
            .iter()
            .map(|group| ScanPlan::new(group.chains.iter().map(|&c| (c, Triggers::ALL))))
            .collect();
        Ok(Prefilter {
            data,
            groups: std::sync::Arc::from(groups),
            by_variable,
            words,
            fully_gated: Vec::new(),
            plans,
            ungated: all_ungated,
            id: 0,
        })
    }
}

/// Adds the bits of `from` to `into`.
fn or_into(from: &[u64], into: &mut [u64]) {
    for (into, &bits) in into.iter_mut().zip(from) {
        *into |= bits;
    }
}

/// The bits of word `word` that stand for one of `rule_count` rules.
fn word_mask(rule_count: usize, word: usize) -> u64 {
    match rule_count.saturating_sub(word * 64) {
        0 => 0,
        n if n >= 64 => u64::MAX,
        n => (1u64 << n) - 1,
    }
}

/// Chain `id` without its trailing `lowercase` transforms: its value has the same bytes up to ASCII case.
fn without_trailing_lowercase(chains: &Chains, mut id: usize) -> usize {
    while let Some((parent, Transform::Lowercase)) = chains.step(id) {
        id = parent;
    }
    id
}

/// Groups with at least this many literals scan with one automaton of all their literals together: the
/// argument, cookie and XML groups of the CRS share most of theirs, so one automaton is built instead of
/// several (the build is most of the prefilter's load time), and a scan costs the same per byte. A group
/// ignores the literals that are not its own (they have no targets there).
const SHARED_AUTOMATON_MIN_LITERALS: usize = 64;

/// Builds the groups' automata: one shared by the large groups, one each for the others. Full DFAs (a table
/// lookup per byte). Measured against one contiguous NFA per group (criterion, shipped + CRS at PL4): 10 %
/// fewer instructions per request, 1 KB form 89 vs 94 µs, 4 KB JSON 372 vs 396 µs, benign GET 25.0 vs
/// 25.3 µs, and 5 ms less load time (a DFA per group took 20 ms more than the NFAs).
/// `literals[group]` are the group's literals (of two bytes or more), `targets[group]` their targets, re-indexed
/// by the pattern ids of the group's automaton.
fn share_automata(
    literals: &[Vec<&[u8]>],
    targets: &mut [Vec<Vec<(usize, usize)>>],
) -> Result<Vec<Arc<DFA>>, PrefilterError> {
    let build = |literals: &[&[u8]], skips: bool| {
        DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            // A small group's few literals often have bytes rare enough to search for (a whole header line
            // holds no `content-length: ` past its first bytes): `find_literals` skips ahead with them. The
            // shared automaton's thousands of literals start with nearly any byte, so it gets none.
            .prefilter(skips)
            .build(literals)
            .map(Arc::new)
            .map_err(|e| PrefilterError::Automaton(e.to_string()))
    };
    let large = |g: &[&[u8]]| g.len() >= SHARED_AUTOMATON_MIN_LITERALS;
    let shared: Vec<&[u8]> = literals
        .iter()
        .filter(|g| large(g))
        .flat_map(|g| g.iter().copied())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let shared_automaton = if shared.is_empty() {
        None
    } else {
        Some(build(&shared, false)?)
    };
    let mut automata = Vec::with_capacity(literals.len());
    for (own, targets) in literals.iter().zip(targets) {
        match &shared_automaton {
            Some(automaton) if large(own) => {
                let mut by_pattern = vec![Vec::new(); shared.len()];
                for (literal, list) in own.iter().zip(std::mem::take(targets)) {
                    // Every literal of a large group is in `shared`, which is sorted.
                    if let Ok(at) = shared.binary_search(literal) {
                        by_pattern[at] = list;
                    }
                }
                *targets = by_pattern;
                automata.push(automaton.clone());
            }
            _ => automata.push(build(own, true)?),
        }
    }
    Ok(automata)
}

/// How many values [`find_literals`] walks at once. A walk waits at every byte for the load of its next state
/// from a large transition table (the shared automaton is tens of megabytes, its rows mostly outside the
/// core's first-level cache), so one walk alone leaves the core idle; independent walks side by side overlap
/// those waits. Two, four and eight lanes measured on the whole CRS's benign GET: docs/performance.md.
const LANES: usize = 4;

/// Sets `found[lane]` to the pattern id of every occurrence of a literal of `automata[lane]` in `texts[lane]`,
/// overlapping ones included (a literal found several times is there each time), for the [`LANES`] lanes at
/// once, a byte of each lane in turn. The automata are walked byte by byte: an overlapping search through
/// `AhoCorasick` returns from the search at each match and starts it again, which cost more than the walk
/// itself on text full of two-letter literals. Not inlined: inside `Prefilter::scan` the walks' states were
/// kept on the stack, stored and reloaded at every byte.
#[inline(never)]
fn find_literals(
    automata: [&DFA; LANES],
    mut texts: [&[u8]; LANES],
    found: &mut [Vec<usize>; LANES],
) {
    let mut states = [StateID::ZERO; LANES];
    for lane in 0..LANES {
        found[lane].clear();
        match automata[lane].start_state(Anchored::No) {
            Ok(start) => states[lane] = start,
            Err(_) => texts[lane] = &[],
        }
    }
    // One position for every lane: the loop stays as simple as a single walk's (with a position per lane it
    // took longer than the lanes saved).
    let longest = texts.iter().map(|text| text.len()).max().unwrap_or(0);
    for at in 0..longest {
        for lane in 0..LANES {
            let Some(&byte) = texts[lane].get(at) else {
                continue;
            };
            let automaton = automata[lane];
            let state = automaton.next_state(Anchored::No, states[lane], byte);
            states[lane] = state;
            if automaton.is_special(state) {
                if automaton.is_dead(state) {
                    texts[lane] = &[];
                } else if automaton.is_match(state) {
                    for i in 0..automaton.match_len(state) {
                        found[lane].push(automaton.match_pattern(state, i).as_usize());
                    }
                }
            }
        }
    }
}

/// Sets `found` to the pattern id of every occurrence of a literal of `automaton` in `text`, as
/// [`find_literals`] does, with the automaton's own overlapping search: an automaton with a prefilter (those of
/// the small groups, see [`share_automata`]) skips ahead with it to where a literal may start, which pays when
/// its literals are rare (a match returns from the search).
fn search_literals(automaton: &DFA, text: &[u8], found: &mut Vec<usize>) {
    found.clear();
    let input = aho_corasick::Input::new(text);
    let mut state = OverlappingState::start();
    while automaton.try_find_overlapping(&input, &mut state).is_ok() {
        match state.get_match() {
            Some(m) => found.push(m.pattern().as_usize()),
            None => return,
        }
    }
}

/// How a rule is gated.
enum Gate {
    Literals(Literals),
    Bytes(Box<ByteCount>),
}

/// The number of bytes of `value` in `set`, counting no further than `enough`.
fn count_bytes(set: &[bool; 256], value: &[u8], enough: usize) -> usize {
    let mut count = 0;
    for &b in value {
        if set[usize::from(b)] {
            count += 1;
            if count >= enough {
                break;
            }
        }
    }
    count
}

/// The parsed regex of a `regex` rule, exactly as the engine reads it.
fn rule_hir(rule: &CompiledRule) -> Option<Hir> {
    let Matcher::Regex(_) = rule.matcher else {
        return None;
    };
    let pattern = rule.rule.pattern.as_deref()?;
    regex_automata::util::syntax::parse_with(&pcre_byte_escapes(pattern), &syntax_config()).ok()
}

/// The literals gating `rule`, or `None` when it has none.
fn rule_literals(rule: &CompiledRule) -> Option<Literals> {
    let Rule {
        pattern, phrases, ..
    } = &rule.rule;
    // A negated rule or one that counts values matches where its operator finds nothing: no literal gates it.
    if !is_gated(rule) {
        return None;
    }
    match rule.matcher {
        Matcher::Regex(_) => literals::required_literals(&rule_hir(rule)?),
        Matcher::Contains(_) | Matcher::StartsWith(_) => {
            let needle = pattern.as_deref()?.as_bytes().to_ascii_lowercase();
            (!needle.is_empty()).then(|| Literals::from([needle]))
        }
        // The phrases are the literals: the prefilter's scan finds the values holding one, so the rule's own
        // automaton runs only on those.
        Matcher::Pm(_) => {
            let set: Literals = phrases
                .iter()
                .map(|p| p.as_bytes().to_ascii_lowercase())
                .collect();
            (!set.is_empty() && set.iter().all(|p| !p.is_empty())).then_some(set)
        }
        Matcher::DetectorSqli | Matcher::DetectorXss | Matcher::Check(_) => None,
    }
}

/// Whether the prefilter may skip the rule on values without its literals or bytes.
fn is_gated(rule: &CompiledRule) -> bool {
    !rule.rule.negate && rule.rule.variables.iter().all(|v| !v.count)
}

/// The byte requirement of a `regex` rule without literals.
fn rule_bytes(rule: &CompiledRule) -> Option<ByteCount> {
    if !is_gated(rule) {
        return None;
    }
    literals::required_bytes(&rule_hir(rule)?)
}

/// The first pass's result for one request.
pub struct Marks<'p> {
    prefilter: &'p Prefilter,
    buffers: ScanBuffers,
}

/// The first pass's tables, kept by the [`TransformCache`] from one request to the next.
#[derive(Default)]
pub struct ScanBuffers {
    /// Per group, `words` per value index: bit per rule, set when the rule may match that value.
    bits: Vec<Vec<u64>>,
    /// Bit per rule: set when the rule may match some value.
    any: Vec<u64>,
    /// `words` per group, bit per rule: set when the rule may match some value of the group's variable.
    group_any: Vec<u64>,
    /// Per literal of a walk's automaton: found in the walk's value (reset after each walk).
    seen: Vec<bool>,
    /// The literals found by the walks of a batch, per lane.
    hits: [Vec<usize>; LANES],
    /// Per value computed, per chain of its group's [`ScanPlan`] (from [`Walk::chains_at`]): the source of
    /// the value scanned for that chain, or [`SKIPPED`].
    sources: Vec<usize>,
    /// The distinct sources of the value being scanned: each is scanned once.
    distinct: Vec<usize>,
    /// (group, value index) of the values computed by this scan that the memo is to remember.
    fresh: Vec<(usize, usize)>,
    /// The distinct values to walk through the automata without a prefilter, [`LANES`] at a time.
    walks: Vec<Walk>,
    /// The distinct values to search with the automata with a prefilter.
    searches: Vec<Walk>,
    /// (group, value index, remembered by the memo) of the values computed by this scan.
    computed: Vec<(usize, usize, bool)>,
}

/// A value to walk through its group's automaton: value `index` of group `group` under `source` (see
/// [`TransformCache::source`]).
#[derive(Debug, Clone, Copy)]
struct Walk {
    group: usize,
    index: usize,
    source: usize,
    /// Where the sources of the value's chains start in [`ScanBuffers::sources`].
    chains_at: usize,
}

impl Marks<'_> {
    /// Gives the tables back to the cache for the thread's next request.
    pub fn recycle(self, cache: &mut TransformCache) {
        cache.scan_buffers = self.buffers;
    }

    /// Whether rule `rule` cannot match any value of the request: all its variables have a group and no value
    /// is marked for it.
    pub fn skips_rule(&self, rule: usize) -> bool {
        let (word, bit) = (rule / 64, 1u64 << (rule % 64));
        let fully_gated = self
            .prefilter
            .fully_gated
            .get(word)
            .is_some_and(|w| w & bit != 0);
        fully_gated && self.buffers.any[word] & bit == 0
    }

    /// Whether rule `rule` (index in the rule set) may match value `index` of `variable`: true unless the
    /// variable has a group and the value is not marked for the rule (none of its literals occurs in the value
    /// it sees, or the memo remembers that the rule did not match these bytes).
    pub fn may_match(&self, rule: usize, variable: Variable, index: usize) -> bool {
        let Some(g) = self.prefilter.by_variable[variable.index()] else {
            return true;
        };
        let (word, bit) = (rule / 64, 1u64 << (rule % 64));
        self.buffers.bits[g]
            .get(index * self.prefilter.words + word)
            .is_some_and(|w| w & bit != 0)
    }

    /// Whether rule `rule` may match some value of `variable` (when not, its values need not be looked at).
    pub fn may_match_some(&self, rule: usize, variable: Variable) -> bool {
        let Some(g) = self.prefilter.by_variable[variable.index()] else {
            return true;
        };
        self.buffers
            .group_any
            .get(g * self.prefilter.words + rule / 64)
            .is_some_and(|w| w & (1u64 << (rule % 64)) != 0)
    }

    /// Rule `rule` ran on value `index` of `variable` (every stage) and did not match: the value is unmarked
    /// for it, and the memo will remember that of these bytes.
    pub fn refute(&mut self, rule: usize, variable: Variable, index: usize) {
        let Some(g) = self.prefilter.by_variable[variable.index()] else {
            return;
        };
        if let Some(w) = self.buffers.bits[g].get_mut(index * self.prefilter.words + rule / 64) {
            *w &= !(1u64 << (rule % 64));
        }
    }

    /// Remembers the marks of the values the scan computed, as the second pass left them (with the rules that
    /// ran and did not match taken out), in the memo of results across requests.
    pub fn remember(&self, view: &RequestView<'_>, cache: &mut TransformCache) {
        let words = self.prefilter.words;
        for &(g, index) in &self.buffers.fresh {
            let group = &self.prefilter.groups[g];
            if let Some(raw) = view.values(group.variable).get(index) {
                let at = index * words;
                cache.memo.remember_marks(
                    self.prefilter.id,
                    g,
                    raw,
                    &self.buffers.bits[g][at..at + words],
                );
            }
        }
    }
}
