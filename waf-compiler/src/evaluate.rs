//! Evaluation: one request against the compiled rules.
//!
//! For each active rule, each selected value is transformed by the rule's chain and given to its operator; the
//! first value that matches (and satisfies the chain conditions) makes a [`RuleMatch`]. A `multi_match` rule
//! gives its operator the raw value and the value after each transform that changed it. Two things keep this
//! cheap: the request's variables are parsed lazily, once ([`RequestView`]), and each (value, transform chain)
//! pair is computed once and shared by every rule that uses that chain or a longer one ([`TransformCache`]).

use crate::collection::RequestView;
use crate::compile::{Chains, CompiledRule};
use crate::prefilter::Prefilter;
use crate::request::HttpRequest;
use crate::rule::Variable;
use crate::transform::{apply, may_change};
use crate::verdict::{RuleMatch, Verdict, excerpt};

/// Sees every value a rule inspects; `rulec explain` uses it to show the decisions. The default methods do
/// nothing, so the proxy's path ([`Silent`]) compiles to no extra work.
pub trait Observer {
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

impl Observer for Silent {}

/// Transformed values of one request, by (variable, value index, chain id), in a dense table (one slot per
/// chain for each value of a variable; hashing the keys cost a fifth of a benign request's time). Intermediate
/// values (the chain's prefixes) are kept too: longer chains start from them and `multi_match` rules read them.
/// A transform that leaves its input unchanged (most do, on benign values) stores no copy, only which earlier
/// value it equals.
#[derive(Default)]
pub struct TransformCache {
    /// `slots[variable][index * chain_count + chain]`.
    slots: [Vec<Slot>; Variable::COUNT],
    chain_count: usize,
    filled: usize,
}

#[derive(Clone, Default)]
enum Slot {
    #[default]
    Empty,
    /// The same bytes as the value of this chain id, which is `Owned` (or 0: the raw value).
    Same(usize),
    Owned(Vec<u8>),
}

impl TransformCache {
    /// Computes `raw` transformed by chain `chain_id` and each of its prefixes, each at most once per request,
    /// starting from the longest prefix already computed. The recursion is as deep as the chain is long, which
    /// the rule files (not the request) decide.
    pub fn fill(
        &mut self,
        variable: Variable,
        index: usize,
        chain_id: usize,
        chains: &Chains,
        raw: &[u8],
    ) {
        let Some((parent, transform)) = chains.step(chain_id) else {
            return;
        };
        // One cache serves one request of one rule set, so the chain count is the same at every call.
        self.chain_count = chains.len();
        let at = index * self.chain_count + chain_id;
        let slots = &mut self.slots[variable.index()];
        if slots.len() <= at {
            slots.resize(at + 1, Slot::Empty);
        }
        if !matches!(slots[at], Slot::Empty) {
            return;
        }
        self.fill(variable, index, parent, chains, raw);
        let input = self.value(variable, index, parent, raw);
        let unchanged = Slot::Same(self.source(variable, index, parent));
        let slot = if may_change(transform, input) {
            let output = apply(transform, input);
            if output == input {
                unchanged
            } else {
                Slot::Owned(output)
            }
        } else {
            unchanged
        };
        self.slots[variable.index()][at] = slot;
        self.filled += 1;
    }

    fn slot(&self, variable: Variable, index: usize, chain_id: usize) -> &Slot {
        self.slots[variable.index()]
            .get(index * self.chain_count + chain_id)
            .unwrap_or(&Slot::Empty)
    }

    /// The chain id whose stored value (or, for 0, the raw value) chain `chain_id`'s value is: two chains of
    /// one value with the same source have the same bytes.
    pub fn source(&self, variable: Variable, index: usize, chain_id: usize) -> usize {
        match self.slot(variable, index, chain_id) {
            Slot::Empty => 0,
            Slot::Same(source) => *source,
            Slot::Owned(_) => chain_id,
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
        match self.slot(variable, index, self.source(variable, index, chain_id)) {
            Slot::Owned(value) => value,
            _ => raw,
        }
    }

    /// Empties the cache for the next request, keeping its tables' capacity.
    pub fn clear(&mut self) {
        for slots in &mut self.slots {
            slots.clear();
        }
        self.chain_count = 0;
        self.filled = 0;
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
    /// When set, a first pass selects the rules that may match each value (see [`crate::prefilter`]).
    pub prefilter: Option<&'s Prefilter>,
}

/// Evaluates the rules at or below the paranoia level, in order.
pub fn evaluate<O: Observer>(
    rules: &Rules<'_>,
    request: &HttpRequest<'_>,
    cache: &mut TransformCache,
    observer: &mut O,
) -> Verdict {
    let view = RequestView::new(request);
    let marks = rules
        .prefilter
        .map(|prefilter| prefilter.scan(&view, rules.chains, cache));
    let matches = rules
        .rules
        .iter()
        .enumerate()
        .filter(|(_, r)| r.rule.paranoia_level <= rules.paranoia_level)
        .filter_map(|(index, rule)| {
            if marks.as_ref().is_some_and(|m| m.skips_rule(index)) {
                observer.skipped_rule(rule);
                return None;
            }
            let selected = |variable, value| {
                marks
                    .as_ref()
                    .is_none_or(|m| m.may_match(index, variable, value))
            };
            evaluate_rule(rule, rules.chains, &view, selected, cache, observer)
        })
        .collect();
    Verdict { matches }
}

/// Runs one rule over its values; `selected(variable, value index)` says whether the value can match at all.
fn evaluate_rule<O: Observer>(
    rule: &CompiledRule,
    chains: &Chains,
    view: &RequestView<'_>,
    selected: impl Fn(Variable, usize) -> bool,
    cache: &mut TransformCache,
    observer: &mut O,
) -> Option<RuleMatch> {
    for selector in &rule.selectors {
        for (index, key, raw) in view.values(selector.variable).iter() {
            if !selector.accepts(key) {
                continue;
            }
            if !selected(selector.variable, index) {
                observer.skipped(rule, selector.variable, key);
                continue;
            }
            // The full chain's computation fills every stage's value.
            cache.fill(selector.variable, index, rule.chain, chains, raw);
            let mut previous: Option<&[u8]> = None;
            for &stage in &rule.stages {
                let value = cache.value(selector.variable, index, stage, raw);
                // As in ModSecurity, a transform that left the value unchanged gives no new run.
                if previous == Some(value) {
                    continue;
                }
                previous = Some(value);
                let found = rule
                    .matcher
                    .find(value, rule.needs_captures)
                    .filter(|found| rule.conditions.iter().all(|c| c.holds(value, found)));
                observer.inspected(rule, selector.variable, key, value, found.is_some());
                if let Some(found) = found {
                    return Some(RuleMatch {
                        rule_id: rule.rule.id,
                        variable: variable_label(selector.variable, key),
                        value_excerpt: excerpt(value.get(found.span).unwrap_or(value)),
                        msg: rule.rule.msg.clone(),
                        severity: rule.rule.severity,
                        action: rule.rule.action,
                        paranoia_level: rule.rule.paranoia_level,
                        tags: rule.rule.tags.clone(),
                    });
                }
            }
        }
    }
    None
}

/// `ARGS_GET:id`, or the bare name for a single-valued variable.
pub fn variable_label(variable: Variable, key: &[u8]) -> String {
    if key.is_empty() {
        variable.name().to_owned()
    } else {
        format!("{}:{}", variable.name(), excerpt(key))
    }
}
