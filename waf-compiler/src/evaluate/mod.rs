//! Evaluation: one request against the compiled rules.
//!
//! For each active rule, each selected value is transformed by the rule's chain and given to its operator; the
//! first value that matches (and satisfies the chain conditions) makes a [`RuleMatch`]. A `multi_match` rule
//! gives its operator the raw value and the value after each transform that changed it. Two things keep this
//! cheap: the request's variables are parsed lazily, once ([`RequestView`]), and each (value, transform chain)
//! pair is computed once and shared by every rule that uses that chain or a longer one ([`Scratch`]).
//!
//! The stage, file by file: [`scratch`] (what a thread keeps from request to request: the arena the
//! [`RequestView`] parses into, the scan's tables, the memo and the transformed values) → [`scan`] (the
//! prefilter's first pass, marking the rules each value may match) → this module (the second pass: each rule's
//! [`operator`](crate::operator) on the values its marks allow, with values remembered across requests in
//! [`memo`], and a match of an injection family handed to [`confirm`]) → [`verdict`]. What it reads comes from
//! outside this folder: the request's variables ([`crate::request`]), the transforms ([`crate::transform`]),
//! and the compiled rules ([`crate::compile`]).

pub mod confirm;
pub mod exclusion;
pub mod macros;
pub mod memo;
pub mod scan;
pub mod scratch;
pub mod verdict;

pub use scratch::Scratch;

use crate::compile::prefilter::Prefilter;
use crate::compile::{Chains, CompiledRule, Selector};
use crate::evaluate::exclusion::Exclusions;
use crate::evaluate::scan::Marks;
use crate::evaluate::verdict::{RuleMatch, Verdict, excerpt};
use crate::operator::{Found, Matcher, chain_holds};
use crate::request::collection::RequestView;
use crate::request::{HttpRequest, HttpResponse};
use crate::rule::Variable;
use crate::transform::apply_chain;

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
    /// The values each rule is not run on ([`exclusion`]): a domain's `excluded_variables`.
    pub excluded: Exclusions<'s>,
}

/// Evaluates the rules at or below the paranoia level, in order.
pub fn evaluate<O: Observer>(
    rules: &Rules<'_>,
    request: &HttpRequest<'_>,
    cache: &mut Scratch,
    observer: &mut O,
) -> Verdict {
    // The view borrows the arena while the evaluation borrows the rest of the scratch mutably.
    let arena = cache.take_arena();
    let verdict = evaluate_view(rules, &RequestView::new(request, &arena), cache, observer);
    cache.put_arena(arena);
    verdict
}

/// Evaluates the response rules at or below the paranoia level on `response`, the answer to `request`.
pub fn evaluate_response<O: Observer>(
    rules: &Rules<'_>,
    request: &HttpRequest<'_>,
    response: &HttpResponse<'_>,
    cache: &mut Scratch,
    observer: &mut O,
) -> Verdict {
    let arena = cache.take_arena();
    let view = RequestView::of_response(request, response, &arena);
    let verdict = evaluate_view(rules, &view, cache, observer);
    cache.put_arena(arena);
    verdict
}

/// Evaluates the rules of the view's phase.
fn evaluate_view<O: Observer>(
    rules: &Rules<'_>,
    view: &RequestView<'_>,
    cache: &mut Scratch,
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
    let phase = view.phase();
    for (index, rule) in rules.rules.iter().enumerate() {
        if !rule.runs_at(rules.paranoia_level) || rule.rule.phase != phase {
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
            excluded: rules.excluded.of_rule(rule.rule.id),
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
            .filter(|r| {
                r.is_score_rule() && r.runs_at(rules.paranoia_level) && r.rule.phase == phase
            })
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
    /// The rule's own target exclusions (usually none).
    excluded: Exclusions<'a>,
}

impl Checked<'_, '_> {
    /// Runs the rule over its values, skipping those the prefilter's marks rule out, and unmarking those it
    /// ran on and did not match.
    fn evaluate<O: Observer>(
        &self,
        view: &RequestView<'_>,
        marks: &mut Option<Marks<'_>>,
        cache: &mut Scratch,
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
                if !selector.accepts(key)
                    || (!self.excluded.is_empty() && self.excluded.covers(variable, key))
                {
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
        let count = view.values(variable).count(|key| selector.accepts(key));
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
                confirm::Hit {
                    span: found.span.clone(),
                    phrase: matches!(self.rule.matcher, Matcher::Pm(_)),
                },
                self.chains.unicode_map(),
                confirm::Request {
                    method: self.view.method(),
                    target: self.view.target(),
                    headers: self.view.headers(),
                    name: key,
                    cookie: variable == Variable::RequestCookies,
                    is_argument_name: matches!(
                        variable,
                        Variable::ArgsNames | Variable::ArgsGetNames | Variable::ArgsPostNames
                    ),
                    named_value: match variable {
                        Variable::ArgsPostNames => Some(Variable::ArgsPost),
                        Variable::ArgsGetNames => Some(Variable::ArgsGet),
                        Variable::ArgsNames => Some(Variable::Args),
                        _ => None,
                    }
                    .and_then(|values| self.view.values(values).value_of(key)),
                    whole_body: variable == Variable::RequestBody,
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
        cache: &mut Scratch,
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
        let mut cache = Scratch::default();
        // A decoded argument is written into the arena: half a megabyte of it.
        let large = format!("a={}evil", "x+".repeat(250_000)).leak();
        let verdict = rules.evaluate_with(&request(large.as_bytes()), &mut cache, &mut Silent);
        assert_eq!(verdict.matches.len(), 1);
        assert_eq!(cache.arena_bytes(), 0, "a large request's arena is dropped");
        let verdict = rules.evaluate_with(&request(b"a=evil+one"), &mut cache, &mut Silent);
        assert_eq!(verdict.matches.len(), 1);
        let kept = cache.arena_bytes();
        assert!(
            kept > 0 && kept <= scratch::ARENA_KEPT_BYTES,
            "a small request's arena is kept for the next ({kept})"
        );
    }
}
