//! The per-request scratch of evaluation ([`Scratch`]): everything a request needs that is worth keeping from
//! one request to the next on a thread, so the hot path allocates little. A thread keeps one (the proxy in a
//! thread-local, see [`crate::ruleset::CompiledRuleSet::evaluate`]) and hands it to every evaluation.

use crate::compile::Chains;
use crate::evaluate::memo::{DetectorVerdicts, ValueMemo};
use crate::rule::{Transform, Variable};
use crate::transform::{Triggers, apply, may_change};
use bumpalo::Bump;

/// The per-request scratch of evaluation, kept by a thread from one request to the next (as regex-automata's
/// `meta::Cache` is kept by a searcher): the arena the request's parsed values live in, the prefilter scan's
/// tables, the memo of results across requests, and the request's transformed values.
///
/// Transformed values of one request, by (variable, value index, chain id), in a dense table (one slot per
/// chain for each value of a variable; hashing the keys cost a fifth of a benign request's time). Intermediate
/// values (the chain's prefixes) are kept too: longer chains start from them and `multi_match` rules read them.
/// A transform that leaves its input unchanged (most do, on benign values) stores no copy, only which earlier
/// value it equals. Each distinct value also keeps its [`Triggers`] (so whether a transform can change it is a
/// bit test) and the detectors' verdicts on it (two rules running `detector_sqli` on the same bytes, as the
/// shipped rule and CRS 942100 do on every argument, pay for one run).
pub struct Scratch {
    /// `slots[variable][index * chain_count + chain]`.
    slots: [Vec<Slot>; Variable::COUNT],
    /// What the `Stored` slots point to: the raw values' entries and every transformed value.
    stored: Vec<Stored>,
    chain_count: usize,
    filled: usize,
    /// The prefilter's tables, reused from request to request.
    pub(crate) scan_buffers: ScanBuffers,
    /// Results remembered across requests; consulted only when `memo_on` (set for each request by
    /// [`evaluate`]). Never cleared by [`Scratch::clear`].
    pub(crate) memo: ValueMemo,
    pub(crate) memo_on: bool,
    /// Where the request's parsed values go ([`RequestView`]); reset after each request.
    arena: Bump,
    /// The prefixes [`Scratch::fill`] has to compute, longest first; reused from call to call.
    walk: Vec<usize>,
}

// Written out: `Default` is derived for arrays of at most 32 elements, and there are more variables.
impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            slots: std::array::from_fn(|_| Vec::new()),
            stored: Vec::new(),
            chain_count: 0,
            filled: 0,
            scan_buffers: ScanBuffers::default(),
            memo: ValueMemo::default(),
            memo_on: false,
            arena: Bump::new(),
            walk: Vec::new(),
        }
    }
}

/// An arena that grew past this many bytes (a large body's values) is dropped after its request instead of
/// kept for the next: a reset arena keeps its largest chunk, and a thread should not hold on to one large
/// request's memory. Ordinary requests need a few kilobytes.
pub(crate) const ARENA_KEPT_BYTES: usize = 256 * 1024;

/// Kept small: a value's row has a slot for every chain of the rule set, most of them never filled.
#[derive(Clone, Copy, Default)]
enum Slot {
    #[default]
    Empty,
    /// The same bytes as the value of this chain id, whose slot is `Stored`.
    Same(usize),
    /// Index in `stored`: the raw value (chain 0) or a transformed value that differs from its input.
    Stored(usize),
}

struct Stored {
    /// `None` for the raw value, which the request holds.
    bytes: Option<Vec<u8>>,
    triggers: Triggers,
    detections: DetectorVerdicts,
    /// Transforms already applied to these bytes, and the chain id holding each result: two chains that reach
    /// the same bytes and then apply the same transform (`[url_decode_uni]` and `[utf8_to_unicode,
    /// url_decode_uni]` on an ASCII value) compute it once. The first few are remembered; that is all chains
    /// of real rule sets share.
    derived: [Option<(Transform, usize)>; 3],
}

impl Stored {
    fn new(bytes: Option<Vec<u8>>, triggers: Triggers) -> Stored {
        Stored {
            bytes,
            triggers,
            detections: DetectorVerdicts::default(),
            derived: [None; 3],
        }
    }
}

impl Scratch {
    /// Computes `raw` transformed by chain `chain_id` and each of its prefixes, each at most once per request,
    /// starting from the longest prefix already computed; `raw_triggers` are the raw value's triggers when the
    /// caller has found them already.
    #[inline]
    pub fn fill(
        &mut self,
        variable: Variable,
        index: usize,
        chain_id: usize,
        chains: &Chains,
        raw: &[u8],
        raw_triggers: Option<Triggers>,
    ) {
        // One cache serves one request of one rule set, so the chain count is the same at every call.
        self.chain_count = chains.len();
        let row = index * self.chain_count;
        let slots = &mut self.slots[variable.index()];
        if slots.len() < row + self.chain_count {
            // The whole row at once: the other chains of this value come next.
            slots.resize(row + self.chain_count, Slot::Empty);
        }
        if !matches!(slots[row + chain_id], Slot::Empty) {
            return;
        }
        // The raw value first (chain 0).
        let triggers = match slots[row] {
            Slot::Stored(at) => self.stored[at].triggers,
            _ => {
                let triggers = raw_triggers.unwrap_or_else(|| Triggers::of(raw));
                slots[row] = Slot::Stored(self.stored.len());
                self.stored.push(Stored::new(None, triggers));
                triggers
            }
        };
        // Up the prefixes to the longest one computed already. When none of a prefix's transforms can act on
        // the raw value, that prefix's value is the raw value, with no walk through its own prefixes (what
        // most benign values of most chains come to).
        let mut walk = std::mem::take(&mut self.walk);
        walk.clear();
        let mut id = chain_id;
        while id != 0 && matches!(slots[row + id], Slot::Empty) {
            if !triggers.meets(chains.acted_on(id)) {
                slots[row + id] = Slot::Same(0);
                self.filled += 1;
                break;
            }
            walk.push(id);
            id = chains.step(id).map_or(0, |(parent, _)| parent);
        }
        // Then down, each prefix from its parent.
        for &id in walk.iter().rev() {
            let Some((parent, transform)) = chains.step(id) else {
                continue;
            };
            let slot = self.step(variable, index, parent, transform, id, chains, raw);
            self.slots[variable.index()][row + id] = slot;
            self.filled += 1;
        }
        self.walk = walk;
    }

    /// The slot of chain `chain_id`, which is chain `parent` (filled) followed by `transform`.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        variable: Variable,
        index: usize,
        parent: usize,
        transform: Transform,
        chain_id: usize,
        chains: &Chains,
        raw: &[u8],
    ) -> Slot {
        let source = self.source(variable, index, parent);
        if let Some(result) = self.derived(variable, index, source, transform) {
            // Another chain of this value applied the same transform to the same bytes.
            return Slot::Same(result);
        }
        let (input, triggers) = self.stored(variable, index, source, raw);
        if !may_change(transform, triggers, input) {
            return Slot::Same(source);
        }
        let output = apply(transform, input, chains.unicode_map());
        let result = if output == input {
            Slot::Same(source)
        } else {
            let triggers = Triggers::of(&output);
            self.stored.push(Stored::new(Some(output), triggers));
            Slot::Stored(self.stored.len() - 1)
        };
        let result_chain = match result {
            Slot::Stored(_) => chain_id,
            _ => source,
        };
        self.remember_derivation(variable, index, source, transform, result_chain);
        result
    }

    /// The chain id holding `transform` applied to the value of source `source`, if computed already.
    fn derived(
        &self,
        variable: Variable,
        index: usize,
        source: usize,
        transform: Transform,
    ) -> Option<usize> {
        let entry = self.entry(variable, index, source)?;
        entry
            .derived
            .iter()
            .flatten()
            .find(|(t, _)| *t == transform)
            .map(|&(_, result)| result)
    }

    fn remember_derivation(
        &mut self,
        variable: Variable,
        index: usize,
        source: usize,
        transform: Transform,
        result: usize,
    ) {
        let Slot::Stored(at) = self.slot(variable, index, source) else {
            return;
        };
        if let Some(free) = self
            .stored
            .get_mut(at)
            .and_then(|entry| entry.derived.iter_mut().find(|d| d.is_none()))
        {
            *free = Some((transform, result));
        }
    }

    #[inline]
    fn slot(&self, variable: Variable, index: usize, chain_id: usize) -> Slot {
        self.slots[variable.index()]
            .get(index * self.chain_count + chain_id)
            .copied()
            .unwrap_or_default()
    }

    /// The chain id whose stored value (or, for 0, the raw value) chain `chain_id`'s value is: two chains of
    /// one value with the same source have the same bytes.
    #[inline]
    pub fn source(&self, variable: Variable, index: usize, chain_id: usize) -> usize {
        match self.slot(variable, index, chain_id) {
            Slot::Same(source) => source,
            Slot::Stored(_) => chain_id,
            Slot::Empty => 0,
        }
    }

    /// The entry of source `source` (a chain id [`Scratch::source`] returned), if filled.
    #[inline]
    fn entry(&self, variable: Variable, index: usize, source: usize) -> Option<&Stored> {
        match self.slot(variable, index, source) {
            Slot::Stored(at) => self.stored.get(at),
            Slot::Same(_) | Slot::Empty => None,
        }
    }

    /// The bytes and triggers of source `source`.
    #[inline]
    fn stored<'c>(
        &'c self,
        variable: Variable,
        index: usize,
        source: usize,
        raw: &'c [u8],
    ) -> (&'c [u8], Triggers) {
        match self.entry(variable, index, source) {
            Some(entry) => (entry.bytes.as_deref().unwrap_or(raw), entry.triggers),
            None => (raw, Triggers::of(raw)),
        }
    }

    /// The value of chain `chain_id` for `raw`, as [`Scratch::fill`] left it (`raw` itself for the empty
    /// chain).
    #[inline]
    pub fn value<'c>(
        &'c self,
        variable: Variable,
        index: usize,
        chain_id: usize,
        raw: &'c [u8],
    ) -> &'c [u8] {
        self.entry(variable, index, self.source(variable, index, chain_id))
            .and_then(|entry| entry.bytes.as_deref())
            .unwrap_or(raw)
    }

    /// Detector `detector` (0 or 1)'s verdict on the value of source `source` (filled), running `run` on it only
    /// the first time it is asked for that value in this request.
    #[inline]
    pub(crate) fn detect(
        &mut self,
        variable: Variable,
        index: usize,
        source: usize,
        raw: &[u8],
        detector: u8,
        run: impl FnOnce(&[u8]) -> bool,
    ) -> bool {
        let Slot::Stored(at) = self.slot(variable, index, source) else {
            // Not filled: nothing to remember it by.
            return run(raw);
        };
        let Some(entry) = self.stored.get_mut(at) else {
            return run(raw);
        };
        if let Some(verdict) = entry.detections.get(detector) {
            return verdict;
        }
        let value = entry.bytes.as_deref().unwrap_or(raw);
        let verdict = if self.memo_on {
            self.memo.detection(detector, value, run)
        } else {
            run(value)
        };
        entry.detections.set(detector, verdict);
        verdict
    }

    /// The arena, for the request's view to borrow while evaluation borrows the rest mutably.
    pub(crate) fn take_arena(&mut self) -> Bump {
        std::mem::take(&mut self.arena)
    }

    /// Gives the arena back after the request, reset, or dropped when one large request grew it.
    pub(crate) fn put_arena(&mut self, arena: Bump) {
        self.arena = if arena.allocated_bytes() > ARENA_KEPT_BYTES {
            Bump::new()
        } else {
            let mut arena = arena;
            arena.reset();
            arena
        };
    }

    /// Bytes the arena holds (for tests of its recycling).
    #[cfg(test)]
    pub(crate) fn arena_bytes(&self) -> usize {
        self.arena.allocated_bytes()
    }

    /// Empties the cache for the next request, keeping its tables' capacity.
    pub fn clear(&mut self) {
        for slots in &mut self.slots {
            slots.clear();
        }
        self.stored.clear();
        self.chain_count = 0;
        self.filled = 0;
    }

    /// How many lookups the memo of earlier requests answered (for tests).
    pub fn memo_hits(&self) -> u64 {
        self.memo.hits()
    }

    /// How many transformed values were computed (for tests of the sharing).
    pub fn len(&self) -> usize {
        self.filled
    }

    pub fn is_empty(&self) -> bool {
        self.filled == 0
    }
}

/// How many values the scan's `find_literals` ([`crate::evaluate::scan`]) walks at once. A walk waits at every
/// byte for the load of its next state from a large transition table (the shared automaton is tens of
/// megabytes, its rows mostly outside the core's first-level cache), so one walk alone leaves the core idle;
/// independent walks side by side overlap those waits. Two, four and eight lanes measured on the whole CRS's benign GET: docs/performance.md.
pub(crate) const LANES: usize = 4;

/// The first pass's tables ([`crate::evaluate::scan`]), kept by the [`Scratch`] from one request to the next.
#[derive(Default)]
pub struct ScanBuffers {
    /// Per group, `words` per value index: bit per rule, set when the rule may match that value.
    pub(crate) bits: Vec<Vec<u64>>,
    /// Bit per rule: set when the rule may match some value.
    pub(crate) any: Vec<u64>,
    /// `words` per group, bit per rule: set when the rule may match some value of the group's variable.
    pub(crate) group_any: Vec<u64>,
    /// Per literal of a walk's automaton: found in the walk's value (reset after each walk).
    pub(crate) seen: Vec<bool>,
    /// The literals found by the walks of a batch, per lane.
    pub(crate) hits: [Vec<usize>; LANES],
    /// Per value computed, per chain of its group's scan plan (from [`Walk::chains_at`]): the source of the
    /// value scanned for that chain, or the scan's `SKIPPED`.
    pub(crate) sources: Vec<usize>,
    /// The distinct sources of the value being scanned: each is scanned once.
    pub(crate) distinct: Vec<usize>,
    /// (group, value index) of the values computed by this scan that the memo is to remember.
    pub(crate) fresh: Vec<(usize, usize)>,
    /// The distinct values to walk through the automata without a prefilter, [`LANES`] at a time.
    pub(crate) walks: Vec<Walk>,
    /// The distinct values to search with the automata with a prefilter.
    pub(crate) searches: Vec<Walk>,
    /// The pieces the walks' values are walked in, [`LANES`] at a time.
    pub(crate) pieces: Vec<Piece>,
    /// (group, value index, remembered by the memo) of the values computed by this scan.
    pub(crate) computed: Vec<(usize, usize, bool)>,
}

impl ScanBuffers {
    /// Empties the tables for a request to a prefilter of `groups` groups and `words` words per value.
    pub(crate) fn reset(&mut self, groups: usize, words: usize) {
        self.fresh.clear();
        self.sources.clear();
        self.walks.clear();
        self.searches.clear();
        self.computed.clear();
        self.group_any.clear();
        self.group_any.resize(groups * words, 0);
        self.any.clear();
        self.any.resize(words, 0);
        self.bits.resize_with(groups, Vec::new);
    }
}

/// Bytes `start..end` of the value of `walks[walk]`, walked in one lane; `last` when no piece of the value
/// follows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Piece {
    pub(crate) walk: usize,
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) last: bool,
}

/// A value to walk through its group's automaton: value `index` of group `group` under `source` (see
/// [`Scratch::source`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Walk {
    pub(crate) group: usize,
    pub(crate) index: usize,
    pub(crate) source: usize,
    /// Where the sources of the value's chains start in [`ScanBuffers::sources`].
    pub(crate) chains_at: usize,
}
