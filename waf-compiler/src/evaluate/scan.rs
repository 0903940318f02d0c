//! The prefilter's scan: the first pass over a request, which tells for each value which gated rules may
//! match it ([`Marks`]); the second pass ([`crate::evaluate`]) then runs only those. The automata and tables it
//! walks are built by [`crate::compile::prefilter`], whose documentation explains what they hold.
//!
//! For each value of each grouped variable, [`Prefilter::scan`] computes the value under every chain the
//! group's rules use (through the request's [`Scratch`], so the second pass reuses them), then scans each
//! distinct result once, and marks a rule when one of its literals occurs in the value *that rule sees* (the
//! value after its own chain). Most values need no chain at all: when a value holds none of the bytes a chain's
//! transforms act on ([`Triggers`]), its value under that chain is the value itself. A chain ending in
//! `lowercase` is scanned as the chain without it: the automaton ignores ASCII case, so both give the same
//! literals, and the lowercased copy is only made if a marked rule needs it. Evaluation then skips a gated rule
//! on every value where it is not marked. Since every match contains a required literal, a skipped rule could
//! not have matched: verdicts are the same with and without the prefilter (tested on every test request).

use crate::compile::Chains;
use crate::compile::prefilter::{ByteLiterals, Prefilter};
use crate::evaluate::memo::MAX_VALUE_LEN;
use crate::evaluate::scratch::{LANES, Piece, ScanBuffers, Scratch, Walk};
use crate::request::collection::{RequestView, Values};
use crate::rule::Variable;
use crate::transform::Triggers;
use aho_corasick::Anchored;
use aho_corasick::automaton::{Automaton, OverlappingState, StateID};
use aho_corasick::dfa::DFA;

/// A value is walked in pieces of at least this many bytes, up to [`LANES`] of them: shorter ones would spend
/// more on starting the walks and on the bytes two pieces share than the lanes save.
const PIECE_MIN_LEN: usize = 1024;

/// The source of a chain the scan skipped for a value (see the scan plans of [`crate::compile::prefilter`]):
/// equal to no computed source, so its targets are not marked.
const SKIPPED: usize = usize::MAX;

impl Prefilter {
    /// The first pass over a request: which gated rules may match which values. First every value of every
    /// group is computed under the group's chains (through the scratch), which gives the distinct values to
    /// scan ([`Prefilter::queue_values`]); then those are walked through their automata [`LANES`] at a time,
    /// each walk's literals marking their targets ([`Prefilter::walk_values`]); last, each value computed gets
    /// the marks of its ungated rules ([`Prefilter::mark_ungated`]).
    pub fn scan(&self, view: &RequestView<'_>, chains: &Chains, cache: &mut Scratch) -> Marks<'_> {
        // The tables of the thread's previous request, emptied (their allocations were a tenth of the scan).
        let mut buffers = std::mem::take(&mut cache.scan_buffers);
        buffers.reset(self.groups.len(), self.words);
        let mut group_values = [None; Variable::COUNT];
        self.queue_values(view, chains, cache, &mut buffers, &mut group_values);
        self.walk_values(&group_values, cache, &mut buffers);
        self.mark_ungated(&mut buffers);
        Marks {
            prefilter: self,
            buffers,
        }
    }

    // The steps below are `inline(always)`: they were one function when the scan was measured
    // (docs/performance.md), and splitting it for reading is not to change what the compiler makes of it.

    /// Step 1: each value of each group, under each chain of the group's plan (from the memo when it
    /// remembers the value's marks): the distinct values to scan, queued as walks or searches.
    #[inline(always)]
    fn queue_values<'v>(
        &self,
        view: &RequestView<'v>,
        chains: &Chains,
        cache: &mut Scratch,
        buffers: &mut ScanBuffers,
        group_values: &mut [Option<Values<'v>>; Variable::COUNT],
    ) {
        let ScanBuffers {
            bits: all_bits,
            seen,
            sources,
            distinct,
            walks,
            searches,
            computed,
            group_any,
            ..
        } = buffers;
        for (g, (group, bits)) in self.groups.iter().zip(all_bits.iter_mut()).enumerate() {
            let values = view.values(group.variable);
            group_values[g] = Some(values);
            bits.clear();
            bits.resize(values.slots() * self.words, 0);
            let group_any = &mut group_any[g * self.words..(g + 1) * self.words];
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
                let chains_at = sources.len();
                self.plan_sources(g, index, raw, chains, cache, sources, distinct);
                // Automata with a prefilter search on their own; the others are walked side by side.
                let queue = match group.automaton.prefilter() {
                    Some(_) => &mut *searches,
                    None => &mut *walks,
                };
                for &source in distinct.iter() {
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
    }

    /// Step 1 for one value of group `g` (not in the memo): the source to scan for each chain of the group's
    /// plan, appended to `sources`, and the distinct ones, in `distinct`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn plan_sources(
        &self,
        g: usize,
        index: usize,
        raw: &[u8],
        chains: &Chains,
        cache: &mut Scratch,
        sources: &mut Vec<usize>,
        distinct: &mut Vec<usize>,
    ) {
        let (group, plan) = (&self.groups[g], &self.plans[g]);
        let triggers = Triggers::of(raw);
        // Each chain's value is the raw value, unless the raw value is too short for any literal of the
        // chain's targets (none is marked) or some transform of the chain acts on it.
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
                sources[chains_at + i] =
                    shared_scan(cache, group.variable, index, raw, source, distinct);
            }
        }
        if sources[chains_at..].contains(&0) {
            distinct.push(0);
        }
    }

    /// Step 2: the queued values through their automata, each walk's literals marking their targets.
    #[inline(always)]
    fn walk_values(
        &self,
        group_values: &[Option<Values<'_>>; Variable::COUNT],
        cache: &Scratch,
        buffers: &mut ScanBuffers,
    ) {
        let ScanBuffers {
            bits: all_bits,
            seen,
            hits,
            sources,
            walks,
            searches,
            pieces,
            ..
        } = buffers;
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
            self.mark(walk, value(walk), hits, sources, seen, bits);
        };
        for walk in searches.iter() {
            search_literals(&self.groups[walk.group].automaton, text(walk), &mut hits[0]);
            mark(walk, &hits[0]);
        }
        // A long value is walked as pieces side by side, as several values are (a response body is one value
        // of hundreds of kilobytes: walked alone, it left the lanes idle). Each piece runs the length of the
        // group's longest literal less one into the next, so a literal that starts in a piece ends in it.
        pieces.clear();
        for (w, walk) in walks.iter().enumerate() {
            let len = text(walk).len();
            let count = (len / PIECE_MIN_LEN).clamp(1, LANES);
            let step = len.div_ceil(count);
            let overlap = self.groups[walk.group].longest.saturating_sub(1);
            pieces.extend((0..count).map(|i| Piece {
                walk: w,
                start: i * step,
                end: ((i + 1) * step + overlap).min(len),
                last: i + 1 == count,
            }));
        }
        // The literals of the pieces of a value walked in several, gathered until its last piece.
        let mut gathered = Vec::new();
        for batch in pieces.chunks(LANES) {
            let mut automata = [&*self.groups[walks[batch[0].walk].group].automaton; LANES];
            let mut texts: [&[u8]; LANES] = [&[]; LANES];
            for (lane, piece) in batch.iter().enumerate() {
                let walk = &walks[piece.walk];
                automata[lane] = &self.groups[walk.group].automaton;
                texts[lane] = &text(walk)[piece.start..piece.end];
            }
            find_literals(automata, texts, hits);
            for (piece, hits) in batch.iter().zip(hits.iter()) {
                let walk = &walks[piece.walk];
                match (piece.start, piece.last) {
                    (0, true) => mark(walk, hits),
                    (_, last) => {
                        gathered.extend_from_slice(hits);
                        if last {
                            mark(walk, &gathered);
                            gathered.clear();
                        }
                    }
                }
            }
        }
    }

    /// Step 3: the rules without a gate on each computed value, the values the memo is to remember, and the
    /// request's summary.
    #[inline(always)]
    fn mark_ungated(&self, buffers: &mut ScanBuffers) {
        let ScanBuffers {
            bits: all_bits,
            any,
            fresh,
            group_any,
            computed,
            ..
        } = buffers;
        for &(g, index, memo) in computed.iter() {
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

impl ByteLiterals {
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

/// The source whose scan `source` (a value of `variable` at `index`) shares: the raw value's (0) or a source
/// already in `distinct` when equal up to ASCII case, else `source` itself, then added to `distinct`. Chains
/// that left the value as another chain did share that chain's scan, and so do chains whose values differ only
/// in ASCII case (`[removeWhitespace]` and `[lowercase, removeWhitespace]` of a header): the scan ignores case
/// (the byte tables and gates hold both cases of a letter), so it finds the same literals.
#[inline(always)]
fn shared_scan(
    cache: &Scratch,
    variable: Variable,
    index: usize,
    raw: &[u8],
    source: usize,
    distinct: &mut Vec<usize>,
) -> usize {
    if source == 0 || distinct.contains(&source) {
        return source;
    }
    let value = cache.value(variable, index, source, raw);
    let same = |other: usize| {
        let other = cache.value(variable, index, other, raw);
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
}

/// Adds the bits of `from` to `into`.
fn or_into(from: &[u64], into: &mut [u64]) {
    for (into, &bits) in into.iter_mut().zip(from) {
        *into |= bits;
    }
}

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

/// The first pass's result for one request.
pub struct Marks<'p> {
    prefilter: &'p Prefilter,
    buffers: ScanBuffers,
}

impl Marks<'_> {
    /// Gives the tables back to the cache for the thread's next request.
    pub fn recycle(self, cache: &mut Scratch) {
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
    pub fn remember(&self, view: &RequestView<'_>, cache: &mut Scratch) {
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
