//! The end of a transaction as CRS reports it (`RESPONSE-980`, ModSecurity's phase 5): one line per correlation
//! rule in force (980170) once the answer is decided, with the request's id, its inbound anomaly score (the
//! request rules'), its outbound score (the response rules') and the ids of every rule that matched in either,
//! whenever either score is above 0, as CRS reports at its default reporting level (4). A request blocked by the
//! request rules is reported there (outbound 0); one that was forwarded is reported after its answer was judged.
//!
//! Without a correlation rule among the rules in force nothing is logged, as ModSecurity logs nothing without
//! `RESPONSE-980-CORRELATION.conf`.
use crate::inspect::{Finding, LoadedRules};
use crate::logging::clean;
use crate::request_id::RequestId;
use std::net::IpAddr;

/// What the request rules found in a request that was forwarded: the inbound half of its correlation.
#[derive(Default)]
pub struct Inbound {
    pub score: u32,
    pub rule_ids: Vec<u64>,
}

impl Inbound {
    pub fn of(findings: &[Finding]) -> Inbound {
        Inbound {
            score: findings
                .iter()
                .map(|f| f.score)
                .fold(0, u32::saturating_add),
            rule_ids: findings.iter().map(|f| f.rule_id).collect(),
        }
    }
}

/// The transaction a correlation line is about.
pub struct Transaction<'a> {
    pub client: IpAddr,
    pub method: &'a str,
    pub uri: &'a str,
    pub request_id: &'a RequestId,
}

/// Logs the correlation of a transaction whose request scored `inbound` and whose answer matched `outbound`
/// (none when it was not inspected, or the request never reached the upstream).
pub fn report(
    rules: &LoadedRules,
    inbound: &Inbound,
    outbound: &[Finding],
    transaction: &Transaction<'_>,
) {
    let outbound_score = outbound
        .iter()
        .map(|f| f.score)
        .fold(0, u32::saturating_add);
    if inbound.score == 0 && outbound_score == 0 {
        return;
    }
    let correlations = rules.correlate(inbound.score, outbound_score);
    if correlations.is_empty() {
        return;
    }
    let rule_ids = inbound
        .rule_ids
        .iter()
        .copied()
        .chain(outbound.iter().map(|f| f.rule_id))
        .map(|id| id.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let inbound_score = inbound.score;
    for &id in correlations {
        // The message is CRS's, with the scores the proxy keeps (CRS's also has per-level and per-category
        // scores, which the proxy does not count). `id` as a field too, as on `rule match` lines: in JSON logs
        // the line carries `"id":980170`.
        tracing::warn!(
            id,
            "correlation [id \"{id}\"] [msg \"Anomaly Scores: (Inbound Scores: blocking={inbound_score}) - \
             (Outbound Scores: blocking={outbound_score})\"] [inbound_score \"{inbound_score}\"] \
             [outbound_score \"{outbound_score}\"] [rule_ids \"{rule_ids}\"] [client \"{}\"] [method \"{}\"] \
             [uri \"{}\"] [request_id \"{}\"]",
            transaction.client,
            clean(transaction.method),
            clean(transaction.uri),
            transaction.request_id.as_str(),
        );
    }
}
