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
//! This module is the build side: it chooses the literals and gates, builds the automata and the per-group
//! scan plans. The scan itself, the first pass over each request, is evaluation's
//! ([`crate::evaluate::scan`]): it walks what is built here and marks, per value, the rules that may match.
//!
//! [`Prefilter`] serializes as [`PrefilterData`] (the literals and targets, plain data); the automata are
//! rebuilt on load and the data is validated first, so a corrupt artifact is an error, never a panic.

mod literals;

use crate::compile::{Chains, CompiledRule};
use crate::operator::Matcher;
use crate::regex_engine::{pcre_byte_escapes, syntax_config};
use crate::rule::{Phase, Rule, Transform, Variable};
use crate::transform::{Triggers, max_output_len};
use aho_corasick::MatchKind;
use aho_corasick::dfa::DFA;
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
#[derive(Debug, Clone, thiserror::Error)]
pub enum PrefilterError {
    #[error("prefilter data is inconsistent: {0}")]
    Inconsistent(#[from] Inconsistency),
    #[error(
        "prefilter was built for {0} rules and {1} transform chains, the rule set has {2} and {3}"
    )]
    WrongRuleSet(u32, u32, usize, usize),
    #[error("prefilter automaton cannot be built: {0}")]
    Automaton(#[from] aho_corasick::BuildError),
}

/// What in stored prefilter data contradicts itself or the rule set (only a corrupt artifact gives this).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Inconsistency {
    #[error("variable {variable} has two groups")]
    TwoGroups { variable: &'static str },
    #[error("variable {variable}: {literals} literals but {target_lists} target lists")]
    TargetLists {
        variable: &'static str,
        literals: usize,
        target_lists: usize,
    },
    #[error("variable {variable}: literal {literal} is empty")]
    EmptyLiteral {
        variable: &'static str,
        literal: usize,
    },
    #[error(
        "variable {variable}: target rule {rule} chain {chain} out of range ({rule_count} rules, {chain_count} chains)"
    )]
    TargetOutOfRange {
        variable: &'static str,
        rule: usize,
        chain: usize,
        rule_count: usize,
        chain_count: u32,
    },
}

/// One variable's automaton and what its matches mean.
#[derive(Debug)]
pub(crate) struct Group {
    pub(crate) variable: Variable,
    /// The literals of two bytes or more. Possibly shared with other groups (see [`share_automata`]).
    pub(crate) automaton: Arc<DFA>,
    /// The length of the automaton's shortest literal: a shorter value holds none, and is not scanned
    /// (starting a scan costs about as much as scanning a short value).
    pub(crate) shortest: usize,
    /// The length of the group's longest literal: a long value walked as pieces side by side
    /// ([`crate::evaluate::scan`]) has each piece run this many bytes less one into the next.
    pub(crate) longest: usize,
    /// The distinct chains of the group's targets: the values scanned for each value of the variable.
    pub(crate) chains: Vec<usize>,
    /// `targets[pattern]`: (rule index, slot in `chains`) for each pattern of the automaton.
    pub(crate) targets: Vec<Vec<(usize, usize)>>,
    /// The literals of one byte, found by a table lookup per byte.
    pub(crate) byte_literals: ByteLiterals,
    pub(crate) byte_gates: Vec<ByteGate>,
    /// `shortest_of_slot[slot]`: the fewest bytes a value must have for a target of chain slot `slot` to be
    /// marked (its shortest literal, or the count of a byte gate).
    pub(crate) shortest_of_slot: Vec<usize>,
}

/// A group's one-byte literals (CRS patterns give sets such as every letter of a class `[a-z]` would start
/// with). In the automaton one matched at nearly every byte of benign text, each match a return from the
/// overlapping search (a third of the whole CRS's scan time on a browser GET); a table lookup per byte finds
/// the same literals. Derived when the automata are built, not stored.
#[derive(Debug)]
pub(crate) struct ByteLiterals {
    /// `ordinal[byte]`: 1 + the index in `targets` of the literal that is `byte` up to ASCII case, 0 for none.
    /// Literals are lowercased, so at most 230 distinct ones: the ordinals fit a byte.
    pub(crate) ordinal: [u8; 256],
    /// (rule index, slot in the group's `chains`) per literal.
    pub(crate) targets: Vec<Vec<(usize, usize)>>,
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
}

#[derive(Debug)]
pub(crate) struct ByteGate {
    pub(crate) set: [bool; 256],
    /// The highest `min_count` of the targets: counting stops there.
    pub(crate) enough: usize,
    /// (rule index, slot in the group's `chains`, min count).
    pub(crate) targets: Vec<(usize, usize, usize)>,
}

/// The prefilter of a rule set; see the module documentation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "PrefilterData", into = "PrefilterData")]
pub struct Prefilter {
    pub(crate) data: PrefilterData,
    pub(crate) groups: std::sync::Arc<[Group]>,
    /// `by_variable[v]`: the index in `groups` of variable `v`'s group.
    pub(crate) by_variable: [Option<usize>; Variable::COUNT],
    pub(crate) words: usize,
    /// Bit per rule: every variable it reads has a group, so a request where no value is marked for it skips
    /// the rule outright. Derived from the rules when attached ([`Prefilter::attach`]), never stored.
    pub(crate) fully_gated: Vec<u64>,
    /// Per group, what its values are scanned under. Derived when attached, never stored.
    pub(crate) plans: Vec<ScanPlan>,
    /// Per group, bit per rule: the rules without a gate for the group's variable (no literal, no byte gate
    /// there: the detectors, among others). The scan marks them on every value it computes, so that the
    /// second pass can rule them out of the value and the memo remember that ([`Marks::refute`]). Until
    /// attached, every rule not gated there; once attached, only those that read the variable.
    pub(crate) ungated: Vec<Vec<u64>>,
    /// Names this prefilter's marks in the memo of results across requests ([`crate::evaluate::memo`]): new at every
    /// attach, never 0 once attached (0: not attached, nothing remembered).
    pub(crate) id: u64,
}

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
pub(crate) struct ScanPlan {
    pub(crate) chains: Vec<usize>,
    pub(crate) by_trigger: Vec<(Triggers, Vec<usize>)>,
    pub(crate) of_slot: Vec<usize>,
    pub(crate) min_raw_len: Vec<usize>,
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
}

impl From<Prefilter> for PrefilterData {
    fn from(prefilter: Prefilter) -> PrefilterData {
        prefilter.data
    }
}

impl TryFrom<PrefilterData> for Prefilter {
    type Error = PrefilterError;

    fn try_from(data: PrefilterData) -> Result<Prefilter, PrefilterError> {
        let rule_count = data.rule_count as usize;
        let words = rule_count.div_ceil(64);
        let mut by_variable = [None; Variable::COUNT];
        let mut checked = Vec::with_capacity(data.groups.len());
        for (position, group) in data.groups.iter().enumerate() {
            if by_variable[group.variable.index()]
                .replace(position)
                .is_some()
            {
                return Err(Inconsistency::TwoGroups {
                    variable: group.variable.name(),
                }
                .into());
            }
            checked.push(CheckedGroup::new(group, rule_count, data.chain_count)?);
        }
        let literals: Vec<Vec<&[u8]>> = checked
            .iter()
            .map(|group| group.targets.iter().map(|(literal, _)| *literal).collect())
            .collect();
        let mut all_targets: Vec<Vec<Vec<(usize, usize)>>> = checked
            .iter_mut()
            .map(|group| {
                std::mem::take(&mut group.targets)
                    .into_iter()
                    .map(|(_, list)| list)
                    .collect()
            })
            .collect();
        let variables: Vec<Variable> = data.groups.iter().map(|g| g.variable).collect();
        let automata = share_automata(&variables, &literals, &mut all_targets)?;
        let mut all_ungated = Vec::with_capacity(checked.len());
        let groups: Vec<Group> = data
            .groups
            .iter()
            .zip(checked)
            .zip(literals.iter().zip(all_targets.into_iter().zip(automata)))
            .map(|((stored, group), (literals, (targets, automaton)))| {
                all_ungated.push(group.ungated);
                Group {
                    variable: stored.variable,
                    automaton,
                    shortest: literals.iter().map(|l| l.len()).min().unwrap_or(usize::MAX),
                    longest: literals.iter().map(|l| l.len()).max().unwrap_or(0),
                    chains: group.chains,
                    targets,
                    byte_literals: group.byte_literals,
                    byte_gates: group.byte_gates,
                    shortest_of_slot: group.shortest_of_slot,
                }
            })
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

/// A literal's targets: (rule index, chain slot) pairs.
type Targets = Vec<(usize, usize)>;

/// A literal of two bytes or more, with its targets.
type Literal<'a> = (&'a [u8], Targets);

/// A literal of one byte (lowercased), with its targets.
type ByteLiteral = (u8, Targets);

/// One stored group, checked against the rule set's counts: what its [`Group`] is built from, but for the
/// automaton, which groups share ([`share_automata`]).
struct CheckedGroup<'a> {
    /// The transform chains its targets read, by slot.
    chains: Vec<usize>,
    /// The literals of two bytes or more, each with its targets.
    targets: Vec<Literal<'a>>,
    byte_literals: ByteLiterals,
    byte_gates: Vec<ByteGate>,
    shortest_of_slot: Vec<usize>,
    /// The rules none of its literals gates.
    ungated: Vec<u64>,
}

impl<'a> CheckedGroup<'a> {
    fn new(
        group: &'a GroupData,
        rule_count: usize,
        chain_count: u32,
    ) -> Result<CheckedGroup<'a>, PrefilterError> {
        let variable = group.variable.name();
        if group.literals.len() != group.targets.len() {
            return Err(Inconsistency::TargetLists {
                variable,
                literals: group.literals.len(),
                target_lists: group.targets.len(),
            }
            .into());
        }
        if let Some(literal) = group.literals.iter().position(Vec::is_empty) {
            return Err(Inconsistency::EmptyLiteral { variable, literal }.into());
        }
        let mut slots = Slots {
            variable,
            rule_count,
            chain_count,
            chain_ids: Vec::new(),
            gated: vec![0u64; rule_count.div_ceil(64)],
            shortest_of_slot: Vec::new(),
        };
        let (targets, byte_literals) = slots.literals(group)?;
        let byte_gates = group
            .byte_gates
            .iter()
            .map(|gate| slots.byte_gate(gate))
            .collect::<Result<Vec<_>, _>>()?;
        let ungated: Vec<u64> = slots
            .gated
            .iter()
            .enumerate()
            .map(|(word, &g)| !g & word_mask(rule_count, word))
            .collect();
        // A slot without a target (none is built) needs nothing.
        let mut shortest_of_slot = slots.shortest_of_slot;
        shortest_of_slot.resize(slots.chain_ids.len(), usize::MAX);
        for shortest in &mut shortest_of_slot {
            if *shortest == usize::MAX {
                *shortest = 0;
            }
        }
        Ok(CheckedGroup {
            chains: slots.chain_ids,
            targets,
            byte_literals: ByteLiterals::new(byte_literals),
            byte_gates,
            shortest_of_slot,
            ungated,
        })
    }
}

/// What checking one group's targets builds up: the chains they read (a slot each), the rules they gate, and the
/// shortest value each slot needs.
struct Slots {
    variable: &'static str,
    rule_count: usize,
    chain_count: u32,
    /// The chain of each slot.
    chain_ids: Vec<usize>,
    /// Bit per rule: gated by one of the group's literals.
    gated: Vec<u64>,
    shortest_of_slot: Vec<usize>,
}

impl Slots {
    /// Checks a target and returns (rule index, chain slot), gating the rule for this variable.
    fn resolve(&mut self, target: &Target) -> Result<(usize, usize), Inconsistency> {
        let (rule, chain) = (target.rule as usize, target.chain as usize);
        if rule >= self.rule_count || target.chain >= self.chain_count {
            return Err(Inconsistency::TargetOutOfRange {
                variable: self.variable,
                rule,
                chain,
                rule_count: self.rule_count,
                chain_count: self.chain_count,
            });
        }
        let slot = match self.chain_ids.iter().position(|&c| c == chain) {
            Some(slot) => slot,
            None => {
                self.chain_ids.push(chain);
                self.chain_ids.len() - 1
            }
        };
        self.gated[rule / 64] |= 1 << (rule % 64);
        Ok((rule, slot))
    }

    /// Records that `slot`'s values shorter than `len` cannot hold the literal.
    fn needs(&mut self, slot: usize, len: usize) {
        if self.shortest_of_slot.len() <= slot {
            self.shortest_of_slot.resize(slot + 1, usize::MAX);
        }
        self.shortest_of_slot[slot] = self.shortest_of_slot[slot].min(len);
    }

    /// The group's literals with their resolved targets: those of two bytes or more (for the automaton), and
    /// those of one byte (for a table, lowercased, one entry a byte).
    fn literals<'a>(
        &mut self,
        group: &'a GroupData,
    ) -> Result<(Vec<Literal<'a>>, Vec<ByteLiteral>), Inconsistency> {
        let mut targets = Vec::with_capacity(group.targets.len());
        let mut byte_literals = Vec::new();
        for (literal, list) in group.literals.iter().zip(&group.targets) {
            let list = list
                .iter()
                .map(|target| self.resolve(target))
                .collect::<Result<Vec<_>, _>>()?;
            for &(_, slot) in &list {
                self.needs(slot, literal.len());
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
        Ok((targets, byte_literals))
    }

    /// A stored byte gate with its targets resolved.
    fn byte_gate(&mut self, gate: &ByteGateData) -> Result<ByteGate, Inconsistency> {
        let mut set = [false; 256];
        // Both cases of a letter: a chain ending in `lowercase` is counted on the value before it
        // (see `ScanPlan`), and counting more bytes can only let a rule run more often.
        for &b in &gate.bytes {
            set[usize::from(b.to_ascii_lowercase())] = true;
            set[usize::from(b.to_ascii_uppercase())] = true;
        }
        let mut resolved = Vec::with_capacity(gate.targets.len());
        for (target, min_count) in &gate.targets {
            let (rule, slot) = self.resolve(target)?;
            self.needs(slot, *min_count as usize);
            resolved.push((rule, slot, *min_count as usize));
        }
        Ok(ByteGate {
            set,
            enough: resolved.iter().map(|t| t.2).max().unwrap_or(0),
            targets: resolved,
        })
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

/// Groups with at least this many literals scan with one automaton of all their phase's large groups'
/// literals together: the argument, cookie and XML groups of the CRS share most of theirs, so one automaton is
/// built instead of several (the build is most of the prefilter's load time), and a scan costs the same per
/// byte. A group ignores the literals that are not its own (they have no targets there).
const SHARED_AUTOMATON_MIN_LITERALS: usize = 64;

/// Builds the groups' automata: one shared by the large groups of each phase, one each for the others. Full
/// DFAs (a table lookup per byte). Measured against one contiguous NFA per group (criterion, shipped + CRS at
/// PL4): 10 % fewer instructions per request, 1 KB form 89 vs 94 µs, 4 KB JSON 372 vs 396 µs, benign GET 25.0
/// vs 25.3 µs, and 5 ms less load time (a DFA per group took 20 ms more than the NFAs).
/// The phases do not share: the response body's literals (CRS RESPONSE-95x: error messages, web shell titles)
/// have nothing in common with the request's, and walking a body through the request groups' automaton of
/// thousands of literals, two-letter ones among them, was 61 % of the response phase's time on a benign page
/// (60 MiB/s, `benches/responses.rs`): its table was too large for the cache and a match came at nearly
/// every byte, each a literal without a target there.
/// `variables[group]` is the group's variable, `literals[group]` its literals (of two bytes or more),
/// `targets[group]` their targets, re-indexed by the pattern ids of the group's automaton.
fn share_automata(
    variables: &[Variable],
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
            .map_err(PrefilterError::Automaton)
    };
    let large = |g: &[&[u8]]| g.len() >= SHARED_AUTOMATON_MIN_LITERALS;
    // Per phase: its large groups' literals, sorted, and their automaton.
    let mut shared: Vec<SharedAutomaton> = Vec::new();
    for phase in [Phase::Request, Phase::Response] {
        let phase_literals: Vec<&[u8]> = literals
            .iter()
            .zip(variables)
            .filter(|(g, v)| large(g) && v.phase() == phase)
            .flat_map(|(g, _)| g.iter().copied())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if !phase_literals.is_empty() {
            let automaton = build(&phase_literals, false)?;
            shared.push((phase, phase_literals, automaton));
        }
    }
    let mut automata = Vec::with_capacity(literals.len());
    for ((own, targets), variable) in literals.iter().zip(targets).zip(variables) {
        match shared.iter().find(|(phase, ..)| *phase == variable.phase()) {
            Some((_, shared, automaton)) if large(own) => {
                let mut by_pattern = vec![Vec::new(); shared.len()];
                for (literal, list) in own.iter().zip(std::mem::take(targets)) {
                    // Every literal of a large group is in its phase's `shared`, which is sorted.
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

/// A phase, its large groups' literals (sorted) and their automaton.
type SharedAutomaton<'l> = (Phase, Vec<&'l [u8]>, Arc<DFA>);

/// How a rule is gated.
enum Gate {
    Literals(Literals),
    Bytes(Box<ByteCount>),
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
