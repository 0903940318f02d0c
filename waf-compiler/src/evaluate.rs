//! Evaluation: one request against the compiled rules.
//!
//! For each active rule, each selected value is transformed by the rule's chain and given to its operator; the
//! first value that matches (and satisfies the chain conditions) makes a [`RuleMatch`]. Two things keep this
//! cheap: the request's variables are parsed lazily, once ([`RequestView`]), and each (value, transform chain)
//! pair is computed once and shared by every rule that uses that chain ([`TransformCache`]).

use crate::collection::RequestView;
use crate::compile::{Chains, CompiledRule};
use crate::request::HttpRequest;
use crate::rule::{Transform, Variable};
use crate::transform::apply_chain;
use crate::verdict::{RuleMatch, Verdict, excerpt};
use std::collections::HashMap;

/// Sees every value a rule inspects; `rulec explain` uses it to show the decisions. The default methods do
/// nothing, so the proxy's path ([`Silent`]) compiles to no extra work.
pub trait Observer {
    /// `value` is after the rule's transforms.
    fn inspected(
        &mut self,
        _rule: &CompiledRule,
        _variable: Variable,
        _key: &[u8],
        _value: &[u8],
        _matched: bool,
    ) {
    }
}

/// The observer that observes nothing.
pub struct Silent;

impl Observer for Silent {}

/// Transformed values of one request, keyed by (variable, value index, chain id).
#[derive(Default)]
pub struct TransformCache {
    values: HashMap<(usize, usize, usize), Vec<u8>>,
}

impl TransformCache {
    /// `raw` transformed by `chain` (id `chain_id`), computed at most once per request.
    pub fn get<'c>(
        &'c mut self,
        variable: Variable,
        index: usize,
        chain_id: usize,
        chain: &[Transform],
        raw: &'c [u8],
    ) -> &'c [u8] {
        if chain.is_empty() {
            return raw;
        }
        self.values
            .entry((variable.index(), index, chain_id))
            .or_insert_with(|| apply_chain(chain, raw))
    }

    /// How many transformed values were computed (for tests of the sharing).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Evaluates the rules at or below `paranoia_level`, in order.
pub fn evaluate<O: Observer>(
    rules: &[CompiledRule],
    chains: &Chains,
    paranoia_level: u8,
    request: &HttpRequest<'_>,
    cache: &mut TransformCache,
    observer: &mut O,
) -> Verdict {
    let view = RequestView::new(request);
    let matches = rules
        .iter()
        .filter(|r| r.rule.paranoia_level <= paranoia_level)
        .filter_map(|rule| evaluate_rule(rule, chains, &view, cache, observer))
        .collect();
    Verdict { matches }
}

fn evaluate_rule<O: Observer>(
    rule: &CompiledRule,
    chains: &Chains,
    view: &RequestView<'_>,
    cache: &mut TransformCache,
    observer: &mut O,
) -> Option<RuleMatch> {
    let chain = chains.get(rule.chain);
    for selector in &rule.selectors {
        for (index, key, raw) in view.values(selector.variable).iter() {
            if !selector.accepts(key) {
                continue;
            }
            let value = cache.get(selector.variable, index, rule.chain, chain, raw);
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
