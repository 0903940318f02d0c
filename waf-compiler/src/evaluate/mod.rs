//! Evaluation: one request against the compiled rules.
//!
//! For each active rule, each selected value is transformed by the rule's chain and given to its operator; the
//! first value that matches (and satisfies the chain conditions) makes a [`RuleMatch`]. A `multi_match` rule
//! gives its operator the raw value and the value after each transform that changed it. Two things keep this
//! cheap: the request's variables are parsed lazily, once ([`RequestView`]), and each (value, transform chain)
//! pair is computed once and shared by every rule that uses that chain or a longer one ([`TransformCache`]).
//!
//! The stage, file by file: [`request`] → [`collection`] (lazily parsed variables, with the [`body`] parsers) →
//! [`transform`] → [`operator`] (with the libinjection-compatible [`detect`]ors) → this module (with values
//! remembered across requests in [`memo`], and a match of an injection family handed to [`confirm`]) →
//! [`verdict`].

pub mod confirm;
pub mod macros;
pub mod memo;
pub mod verdict;

use crate::compile::prefilter::{Marks, Prefilter, ScanBuffers};
use crate::compile::{Chains, CompiledRule, Selector};
use crate::evaluate::memo::{DetectorVerdicts, ValueMemo};
use crate::evaluate::verdict::{RuleMatch, Verdict, excerpt};
use crate::operator::{Found, chain_holds};
use crate::request::HttpRequest;
use crate::request::collection::RequestView;
use crate::rule::{Transform, Variable};
use crate::transform::{Triggers, apply, apply_chain, may_change};
use bumpalo::Bump;

/// Sees every value a rule inspects; `rulec explain` uses it to show the decisions. The default methods do
/// nothing, so the proxy's path ([`Silent`]) compiles to no extra work.
pub trait Observer {
    /// Whether [`Observer::skipped`] is to hear of the values the prefilter ruled out. Telling it costs a key
    /// check per value (a key regex, for some CRS selectors), which the proxy's [`Silent`] observer is spared.
    const WANTS_SKIPS: bool = true;

    /// `value` is after the rule's transforms (for a `multi_match` rule, after those of one stage).
    fn inspected(
        &mut self,
        _rule: &CompiledRule,
        _variable: Variable,
        _key: &[u8],
        _value: &[u8],
        _matched: bool,
    ) {
    }

    /// The prefilter skipped the rule on this value: none of the rule's required literals occurs in it.
    fn skipped(&mut self, _rule: &CompiledRule, _variable: Variable, _key: &[u8]) {}

    /// The prefilter skipped the rule on the whole request: no value has one of its required literals.
    fn skipped_rule(&mut self, _rule: &CompiledRule) {}
}

/// The observer that observes nothing.
pub struct Silent;

impl Observer for Silent {
    const WANTS_SKIPS: bool = false;
}

/// Transformed values of one request, by (variable, value index, chain id), in a dense table (one slot per
/// chain for each value of a variable; hashing the keys cost a fifth of a benign request's time). Intermediate
/// values (the chain's prefixes) are kept too: longer chains start from them and `multi_match` rules read them.
/// A transform that leaves its input unchanged (most do, on benign values) stores no copy, only which earlier
/// value it equals. Each distinct value also keeps its [`Triggers`] (so whether a transform can change it is a
/// bit test) and the detectors' verdicts on it (two rules running `detector_sqli` on the same bytes, as the
/// shipped rule and CRS 942100 do on every argument, pay for one run).
#[derive(Default)]
pub struct TransformCache {
    /// `slots[variable][index * chain_count + chain]`.
    slots: [Vec<Slot>; Variable::COUNT],
    /// What the `Stored` slots point to: the raw values' entries and every transformed value.
    stored: Vec<Stored>,
    chain_count: usize,
    filled: usize,
    /// The prefilter's tables, reused from request to request.
    pub(crate) scan_buffers: ScanBuffers,
    /// Results remembered across requests; consulted only when `memo_on` (set for each request by
    /// [`evaluate`]). Never cleared by [`TransformCache::clear`].
    pub(crate) memo: ValueMemo,
    pub(crate) memo_on: bool,
    /// Where the request's parsed values go ([`RequestView`]); reset after each request.
    arena: Bump,
    /// The prefixes [`TransformCache::fill`] has to compute, longest first; reused from call to call.
    walk: Vec<usize>,
}

/// An arena that grew past this many bytes (a large body's values) is dropped after its request instead of
/// kept for the next: a reset arena keeps its largest chunk, and a thread should not hold on to one large
/// request's memory. Ordinary requests need a few kilobytes.
const ARENA_KEPT_BYTES: usize = 256 * 1024;

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

impl TransformCache {
    /// Computes `raw` transformed by chain `chain_id` and each of its prefixes, each at most once per request,
    /// starting from the longest prefix already computed; `raw_triggers` are the raw value's triggers when the
    /// caller has found them already.
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

    fn slot(&self, variable: Variable, index: usize, chain_id: usize) -> Slot {
        self.slots[variable.index()]
            .get(index * self.chain_count + chain_id)
            .copied()
            .unwrap_or_default()
    }

    /// The chain id whose stored value (or, for 0, the raw value) chain `chain_id`'s value is: two chains of
    /// one value with the same source have the same bytes.
    pub fn source(&self, variable: Variable, index: usize, chain_id: usize) -> usize {
        match self.slot(variable, index, chain_id) {
            Slot::Same(source) => source,
            Slot::Stored(_) => chain_id,
            Slot::Empty => 0,
        }
    }

    /// The entry of source `source` (a chain id [`TransformCache::source`] returned), if filled.
    fn entry(&self, variable: Variable, index: usize, source: usize) -> Option<&Stored> {
        match self.slot(variable, index, source) {
            Slot::Stored(at) => self.stored.get(at),
            Slot::Same(_) | Slot::Empty => None,
        }
    }

    /// The bytes and triggers of source `source`.
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

    /// The value of chain `chain_id` for `raw`, as [`TransformCache::fill`] left it (`raw` itself for the empty
    /// chain).
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
    fn detect(
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

/// The rule set as evaluation sees it.
pub struct Rules<'s> {
    /// Every rule, sorted by id (a rule's index is its position here).
    pub rules: &'s [CompiledRule],
    pub chains: &'s Chains,
    pub paranoia_level: u8,
    /// When set, a first pass selects the rules that may match each value (see [`crate::compile::prefilter`]).
    pub prefilter: Option<&'s Prefilter>,
    /// Whether results are remembered across requests ([`crate::evaluate::memo`]).
    pub memo: bool,
    /// Whether hits of rules with a confirmer are confirmed before they score ([`confirm`]).
    pub confirm: bool,
}

/// Evaluates the rules at or below the paranoia level, in order.
pub fn evaluate<O: Observer>(
    rules: &Rules<'_>,
    request: &HttpRequest<'_>,
    cache: &mut TransformCache,
    observer: &mut O,
) -> Verdict {
    // The view borrows the arena while the evaluation borrows the rest of the cache mutably.
    let arena = std::mem::take(&mut cache.arena);
    let verdict = evaluate_view(rules, &RequestView::new(request, &arena), cache, observer);
    cache.arena = if arena.allocated_bytes() > ARENA_KEPT_BYTES {
        Bump::new()
    } else {
        let mut arena = arena;
        arena.reset();
        arena
    };
    verdict
}

fn evaluate_view<O: Observer>(
    rules: &Rules<'_>,
    view: &RequestView<'_>,
    cache: &mut TransformCache,
    observer: &mut O,
) -> Verdict {
    cache.memo_on = rules.memo;
    let mut marks = rules
        .prefilter
        .map(|prefilter| prefilter.scan(view, rules.chains, cache));
    let mut matches = Vec::new();
    // Read at the first rule scoped to hosts, so a rule set without such rules never looks.
    let mut host = None;
    let mut score_rules = false;
    for (index, rule) in rules.rules.iter().enumerate() {
        if !rule.runs_at(rules.paranoia_level) {
            continue;
        }
        if rule.is_score_rule() {
            score_rules = true;
            continue;
        }
        if !rule.rule.hosts.is_empty()
            && !rule
                .rule
                .applies_to(*host.get_or_insert_with(|| view.host()))
        {
            continue;
        }
        if marks.as_ref().is_some_and(|m| m.skips_rule(index)) {
            observer.skipped_rule(rule);
            continue;
        }
        let checked = Checked {
            rule,
            index,
            chains: rules.chains,
            view,
            confirm: rules.confirm,
        };
        matches.extend(checked.evaluate(view, &mut marks, cache, observer));
    }
    if let Some(marks) = marks {
        if cache.memo_on {
            marks.remember(view, cache);
        }
        marks.recycle(cache);
    }
    // The blocking evaluation's report, for `Verdict::settle`: only when something added to the score (a benign
    // request pays nothing for it).
    let score_rules = match score_rules && matches.iter().any(|m| m.score() > 0) {
        true => rules
            .rules
            .iter()
            .filter(|r| r.is_score_rule() && r.runs_at(rules.paranoia_level))
            .map(|r| {
                let rule = &r.rule;
                RuleMatch {
                    rule_id: rule.id,
                    variable: "ANOMALY_SCORE".to_owned(),
                    value_excerpt: String::new(),
                    msg: rule.msg.clone(),
                    severity: rule.severity,
                    action: rule.action,
                    paranoia_level: rule.paranoia_level,
                    tags: rule.tags.clone(),
                    confirmation: None,
                }
            })
            .collect(),
        false => Vec::new(),
    };
    Verdict {
        matches,
        score_rules,
    }
}

/// One rule being evaluated: the rule, its index in the rule set, the chains, and the request's headers
/// (chain conditions may read them).
struct Checked<'a, 'v> {
    rule: &'a CompiledRule,
    index: usize,
    chains: &'a Chains,
    view: &'a RequestView<'v>,
    confirm: bool,
}

impl Checked<'_, '_> {
    /// Runs the rule over its values, skipping those the prefilter's marks rule out, and unmarking those it
    /// ran on and did not match.
    fn evaluate<O: Observer>(
        &self,
        view: &RequestView<'_>,
        marks: &mut Option<Marks<'_>>,
        cache: &mut TransformCache,
        observer: &mut O,
    ) -> Option<RuleMatch> {
        let (rule, rule_index) = (self.rule, self.index);
        // A hit its confirmer refused is reported only if no other value gives a confirmed one.
        let mut unconfirmed = None;
        for selector in &rule.selectors {
            let variable = selector.variable;
            if selector.count {
                if let Some(found) = self.run_count(selector, view, observer) {
                    return Some(found);
                }
                continue;
            }
            if !O::WANTS_SKIPS
                && marks
                    .as_ref()
                    .is_some_and(|m| !m.may_match_some(rule_index, variable))
            {
                continue;
            }
            for (index, key, raw) in view.values(variable).iter() {
                // The prefilter's bit first: most values of a gated rule are ruled out by it.
                if marks
                    .as_ref()
                    .is_some_and(|m| !m.may_match(rule_index, variable, index))
                {
                    if O::WANTS_SKIPS && selector.accepts(key) {
                        observer.skipped(rule, variable, key);
                    }
                    continue;
                }
                if !selector.accepts(key) {
                    continue;
                }
                if let Some(found) = self.run(variable, index, key, raw, cache, observer) {
                    if found.confirmation.as_ref().is_none_or(|c| c.confirmed) {
                        return Some(found);
                    }
                    unconfirmed.get_or_insert(found);
                    continue;
                }
                if let Some(marks) = marks.as_mut()
                    && rule.value_only
                {
                    marks.refute(rule_index, variable, index);
                }
            }
        }
        unconfirmed
    }

    /// Runs the rule's operator on the number of values `selector` selects, written in decimal (the rule's
    /// transforms apply to that text, as in ModSecurity; they are not cached, the text being a few bytes).
    fn run_count<O: Observer>(
        &self,
        selector: &Selector,
        view: &RequestView<'_>,
        observer: &mut O,
    ) -> Option<RuleMatch> {
        let variable = selector.variable;
        let count = view
            .values(variable)
            .iter()
            .filter(|(_, key, _)| selector.accepts(key))
            .count();
        let count = count.to_string();
        let value = apply_chain(
            self.chains.get(self.rule.chain),
            count.as_bytes(),
            self.chains.unicode_map(),
        );
        let found = self.operate(&value);
        observer.inspected(self.rule, variable, b"", &value, found.is_some());
        found.map(|found| self.report(variable, b"", &value, &found, None))
    }

    /// The rule's operator on a value outside the cache, negation and chain conditions included.
    fn operate(&self, value: &[u8]) -> Option<Found> {
        let rule = self.rule;
        self.judge(rule.matcher.find(value, rule.needs_captures), value)
    }

    /// Whether the operator's result `found` on `value` is a match of the rule: the negation applied (a
    /// negated rule matches the whole value its operator does not), then the chain conditions.
    fn judge(&self, found: Option<Found>, value: &[u8]) -> Option<Found> {
        let found = match (found, self.rule.rule.negate) {
            (found, false) => found,
            (None, true) => Some(Found::whole(value)),
            (Some(_), true) => None,
        };
        found.filter(|found| {
            chain_holds(
                &self.rule.conditions,
                value,
                found,
                self.view,
                self.chains.unicode_map(),
            )
        })
    }

    /// The match of the rule on `value` (after its transforms), confirmed against `raw` when the rule has a
    /// confirmer (a count, having no text of its own, is not confirmed).
    fn report(
        &self,
        variable: Variable,
        key: &[u8],
        value: &[u8],
        found: &Found,
        raw: Option<&[u8]>,
    ) -> RuleMatch {
        let rule = &self.rule.rule;
        let confirmation = match (self.rule.confirm, raw) {
            (Some(kind), Some(raw)) if self.confirm => Some(confirm::confirm(
                kind,
                raw,
                value,
                self.chains.unicode_map(),
                confirm::Request {
                    headers: self.view.headers(),
                },
            )),
            _ => None,
        };
        let label = variable_label(variable, key);
        let headers = self.view.headers();
        let msg = macros::expand(&rule.msg, |name| {
            macros::at_match(name, value, &label, headers)
        })
        .into_owned();
        RuleMatch {
            confirmation,
            rule_id: rule.id,
            variable: label,
            value_excerpt: excerpt(value.get(found.span.clone()).unwrap_or(value)),
            msg,
            severity: rule.severity,
            action: rule.action,
            paranoia_level: rule.paranoia_level,
            tags: rule.tags.clone(),
        }
    }

    /// Runs the rule's operator on one value (on each stage of a `multi_match` rule).
    fn run<O: Observer>(
        &self,
        variable: Variable,
        index: usize,
        key: &[u8],
        raw: &[u8],
        cache: &mut TransformCache,
        observer: &mut O,
    ) -> Option<RuleMatch> {
        let rule = self.rule;
        // The full chain's computation fills every stage's value.
        cache.fill(variable, index, rule.chain, self.chains, raw, None);
        let mut previous = None;
        for &stage in &rule.stages {
            // As in ModSecurity, a transform that left the value unchanged gives no new run. (Stages with
            // different sources differ: a stage gets a source of its own only when its transform changed
            // the bytes of the stage before.)
            let source = cache.source(variable, index, stage);
            if previous == Some(source) {
                continue;
            }
            previous = Some(source);
            let detected = rule.matcher.detector().map(|detector| {
                cache.detect(variable, index, source, raw, detector, |value| {
                    rule.matcher.find(value, false).is_some()
                })
            });
            // Looked up once for the operator and the verdict.
            let value = cache.value(variable, index, source, raw);
            let found = match detected {
                Some(detected) => detected.then(|| Found::whole(value)),
                None => rule.matcher.find(value, rule.needs_captures),
            };
            let found = self.judge(found, value);
            observer.inspected(rule, variable, key, value, found.is_some());
            if let Some(found) = found {
                return Some(self.report(variable, key, value, &found, Some(raw)));
            }
        }
        None
    }
}

/// `ARGS_GET:id`, or the bare name for a single-valued variable.
pub fn variable_label(variable: Variable, key: &[u8]) -> String {
    if key.is_empty() {
        variable.name().to_owned()
    } else {
        format!("{}:{}", variable.name(), excerpt(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::SourceFile;
    use crate::{CompileOptions, CompiledRuleSet};

    #[test]
    fn the_arena_of_a_large_request_is_not_kept() {
        let source = SourceFile {
            path: "r.yaml".into(),
            relative: "r.yaml".into(),
            text: Ok("rules:\n  - {id: 1, msg: m, pattern: 'evil', variables: [ARGS_POST], action: deny}\n".into()),
        };
        let rules = CompiledRuleSet::from_sources(&[source], &CompileOptions::default()).ruleset;
        let headers: &[(&str, &[u8])] = &[("Content-Type", b"application/x-www-form-urlencoded")];
        let request = |body: &'static [u8]| HttpRequest {
            method: "POST",
            uri: "/",
            version: "HTTP/1.1",
            headers,
            body,
        };
        let mut cache = TransformCache::default();
        // A decoded argument is written into the arena: half a megabyte of it.
        let large = format!("a={}evil", "x+".repeat(250_000)).leak();
        let verdict = rules.evaluate_with(&request(large.as_bytes()), &mut cache, &mut Silent);
        assert_eq!(verdict.matches.len(), 1);
        assert_eq!(
            cache.arena.allocated_bytes(),
            0,
            "a large request's arena is dropped"
        );
        let verdict = rules.evaluate_with(&request(b"a=evil+one"), &mut cache, &mut Silent);
        assert_eq!(verdict.matches.len(), 1);
        let kept = cache.arena.allocated_bytes();
        assert!(
            kept > 0 && kept <= ARENA_KEPT_BYTES,
            "a small request's arena is kept for the next ({kept})"
        );
    }
}
