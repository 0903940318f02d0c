//! `rulec explain`: everything the engine sees and decides for one request, as text.
//!
//! It runs the same evaluation as the proxy (through an [`Observer`]), so what it shows is what happens.

use crate::compile::CompiledRule;
use crate::evaluate::verdict::{DEFAULT_ANOMALY_THRESHOLD, excerpt};
use crate::evaluate::{Observer, variable_label};
use crate::policy::Profile;
use crate::request::HttpRequest;
use crate::request::coding::Coding;
use crate::request::collection::RequestView;
use crate::rule::{Transform, Variable};
use crate::ruleset::CompiledRuleSet;
use std::fmt::Write;

struct Trace {
    out: String,
}

impl Observer for Trace {
    fn inspected(
        &mut self,
        rule: &CompiledRule,
        variable: Variable,
        key: &[u8],
        value: &[u8],
        matched: bool,
    ) {
        let _ = writeln!(
            self.out,
            "  rule {}: {} -> \"{}\": {}",
            rule.rule.id,
            variable_label(variable, key),
            excerpt(value),
            if matched { "MATCH" } else { "no match" }
        );
    }

    fn skipped(&mut self, rule: &CompiledRule, variable: Variable, key: &[u8]) {
        let _ = writeln!(
            self.out,
            "  rule {}: {}: skipped by the prefilter (none of its required literals occurs)",
            rule.rule.id,
            variable_label(variable, key),
        );
    }

    fn skipped_rule(&mut self, rule: &CompiledRule) {
        let _ = writeln!(
            self.out,
            "  rule {}: skipped by the prefilter (no value has one of its required literals)",
            rule.rule.id,
        );
    }
}

fn chain_names(chain: &[Transform]) -> String {
    if chain.is_empty() {
        return "(none)".into();
    }
    chain.iter().map(|t| t.name()).collect::<Vec<_>>().join(",")
}

/// The report for `request`: variables, per-rule inspection with transformed values, and the verdict; with
/// `weigh`, the verdict as a site of that profile weighs it ([`Profile::weigh`]; the coding the request's body
/// was decoded from, if it was).
pub fn explain(
    rules: &CompiledRuleSet,
    request: &HttpRequest<'_>,
    weigh: Option<(Profile, Option<Coding>)>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "== variables");
    let arena = bumpalo::Bump::new();
    let view = RequestView::new(request, &arena);
    for variable in Variable::ALL {
        for (_, key, value) in view.values(variable).iter() {
            let _ = writeln!(
                out,
                "  {} = \"{}\"",
                variable_label(variable, key),
                excerpt(value)
            );
        }
    }
    let _ = writeln!(out, "== rules (paranoia level {})", rules.paranoia_level());
    for rule in rules.rules() {
        let r = &rule.rule;
        let _ = writeln!(
            out,
            "rule {} [PL{}, {}, transforms {}{}]: {}",
            r.id,
            r.paranoia_level,
            r.action,
            chain_names(rules.chains().get(rule.chain)),
            if r.multi_match {
                ", multi_match: raw value and each changed step inspected"
            } else {
                ""
            },
            r.msg
        );
        if r.paranoia_level > rules.paranoia_level() {
            let _ = writeln!(out, "  skipped: above the configured paranoia level");
        } else if !rule.enabled {
            let _ = writeln!(out, "  skipped: a setting condition (`when`) does not hold");
        }
    }
    let _ = writeln!(out, "== inspected values (after each rule's transforms)");
    let mut trace = Trace { out: String::new() };
    let mut verdict = rules.evaluate_observed(request, &mut trace);
    if let Some((profile, decoded)) = weigh {
        profile.weigh(
            &mut verdict,
            request,
            decoded,
            rules.setting(crate::ALLOWED_METHODS_SETTING),
        );
    }
    verdict.settle(DEFAULT_ANOMALY_THRESHOLD);
    out.push_str(&trace.out);
    let _ = writeln!(out, "== verdict");
    for m in &verdict.matches {
        let _ = writeln!(
            out,
            "  matched rule {} ({}) at {}: \"{}\" - {}",
            m.rule_id, m.action, m.variable, m.value_excerpt, m.msg
        );
        if let Some(c) = &m.confirmation {
            let _ = writeln!(
                out,
                "    {}: {} (adds {})",
                if c.confirmed {
                    "confirmed"
                } else {
                    "not confirmed"
                },
                c.reason,
                m.score()
            );
        }
    }
    match verdict.blocking() {
        Some(m) => {
            let _ = writeln!(out, "  BLOCK (rule {})", m.rule_id);
        }
        None => {
            let _ = writeln!(out, "  PASS");
        }
    }
    out
}
