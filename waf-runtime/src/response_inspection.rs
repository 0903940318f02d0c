//! The response phase: the upstream's answer inspected by the response rules (CRS RESPONSE-95x: data leakage,
//! web shells, scored against the outbound threshold) before the client gets it.
//!
//! What is inspected, and why:
//! - nothing at all for an answer that has no body to leak or that must not wait: `HEAD`, `1xx`, `204`, `304`,
//!   a protocol switch (handled before this), or when `rules.responses` (or the domain's `responses`) is off;
//! - the status and headers of every other answer (a cheap evaluation, no read);
//! - the body as well when its media type is one of `response_body.content_types` (ModSecurity's recommended
//!   `text/plain text/html text/xml`) and its coding one the proxy can undo (none, gzip, deflate, br). A server-sent
//!   event stream (`text/event-stream`), JSON, a download or any other type streams through untouched, its first
//!   byte not delayed. The body is read up to `response_body.limit_bytes` (memory held per response is bounded by
//!   it) and decompressed up to the same bound (a compression bomb inflates no further); past the limit the rest
//!   streams uninspected, or the answer is refused (`over_limit: reject`).
//!
//! A blocked answer becomes a 502 whose body says only that the answer was withheld: neither the original's
//! bytes nor the rule ids (which would tell a prober what leaked) reach the client; the log has them, and so do
//! the panel's events (phase `response`). Once the answer is judged, the transaction's correlation is logged
//! (`correlation.rs`).
use crate::access_log::{Action, Record};
use crate::body::{ProxyBody, ReadBody, read_limited};
use crate::config::{Config, Mode, ResponseOverLimit};
use crate::correlation::{self, Inbound, Transaction};
use crate::inspect::{Finding, LoadedRules};
use crate::logging::{self, MatchContext, Outcome};
use crate::recent_blocks::{self, BlockedRequest, MatchDetail};
use crate::request_id::RequestId;
use crate::responses;
use crate::state::State;
use bytes::Bytes;
use http::{Method, Response, StatusCode, header};
use hyper::body::Incoming;
use std::net::IpAddr;
use std::time::Instant;
use waf_compiler::Coding;

/// The request an answer is for, as the logs name it.
pub struct Exchange<'a> {
    pub method: &'a Method,
    /// The request target as the client sent it.
    pub target: &'a str,
    pub host: &'a str,
    pub client: IpAddr,
    /// What the request rules found in the request.
    pub inbound: &'a Inbound,
}

/// How much of an answer the response rules read.
#[derive(Debug, PartialEq, Eq)]
enum Scope {
    Nothing,
    Head,
    /// The body too, decoded from this coding.
    Body(Coding),
}

/// The answer to send the client: `response` as it came, or with its body inspected, or a 502 when the
/// response rules withhold it. Then the transaction's correlation is logged.
pub async fn answer(
    state: &State,
    config: &Config,
    exchange: &Exchange<'_>,
    response: Response<Incoming>,
    record: &mut Record,
) -> Response<ProxyBody> {
    let rules = state.rules.load();
    let (answer, outbound) = judged(state, &rules, config, exchange, response, record).await;
    let transaction = Transaction {
        client: exchange.client,
        method: exchange.method.as_str(),
        uri: exchange.target,
        request_id: record.id(),
    };
    correlation::report(&rules, exchange.inbound, &outbound, &transaction);
    answer
}

/// The answer to send, with the response rules' findings in it.
async fn judged(
    state: &State,
    rules: &LoadedRules,
    config: &Config,
    exchange: &Exchange<'_>,
    response: Response<Incoming>,
    record: &mut Record,
) -> (Response<ProxyBody>, Vec<Finding>) {
    let (head, body) = response.into_parts();
    let scope = match config.mode != Mode::Disabled
        && config.inspects_responses(exchange.host)
        && rules.has_response_rules()
    {
        true => scope(config, exchange.method, &head),
        false => Scope::Nothing,
    };
    let metrics = state.metrics;
    let coding = match scope {
        Scope::Nothing => {
            return (
                Response::from_parts(head, ProxyBody::Stream(body)),
                Vec::new(),
            );
        }
        Scope::Head => {
            metrics.responses_head_inspected.increment(1);
            let findings = evaluate(state, rules, config, exchange, &head, None);
            let answer = match judge(state, config, exchange, &findings, record) {
                true => responses::response_withheld(record.id()),
                false => Response::from_parts(head, ProxyBody::Stream(body)),
            };
            return (answer, findings);
        }
        Scope::Body(coding) => coding,
    };
    metrics.responses_body_inspected.increment(1);
    let limit = config.response_body.limit_bytes;
    let (read, forwarded) = match read_limited(body, limit).await {
        Ok(ReadBody::Complete(bytes)) => (bytes.clone(), ProxyBody::full(bytes)),
        Ok(ReadBody::OverLimit { read, rest }) => {
            if config.response_body.over_limit == ResponseOverLimit::Reject
                && config.mode == Mode::Enforce
            {
                tracing::warn!(
                    "response body over {limit} bytes refused (response_body.over_limit: reject) [uri \"{}\"] [request_id \"{}\"]",
                    logging::clean(exchange.target),
                    record.id().as_str()
                );
                metrics.response_blocked.increment(1);
                record.set_action(Action::ResponseBlocked);
                // No rule matched: the event says only that an answer was withheld, its rule ids empty.
                tell_panel(state, exchange, record.id(), &[], true);
                return (responses::response_withheld(record.id()), Vec::new());
            }
            (read.clone(), ProxyBody::Prefixed(Some(read), rest))
        }
        Err(e) => {
            tracing::warn!(
                "upstream response body unreadable: {e} [request_id \"{}\"]",
                record.id().as_str()
            );
            record.set_action(Action::UpstreamError);
            return (responses::bad_gateway(record.id()), Vec::new());
        }
    };
    let decoded = match coding {
        Coding::Identity => read.slice(..read.len().min(limit)),
        coding => coding
            .decode(&read, limit)
            .map_or_else(|| read.slice(..read.len().min(limit)), Bytes::from),
    };
    let findings = evaluate(state, rules, config, exchange, &head, Some(&decoded));
    let answer = match judge(state, config, exchange, &findings, record) {
        true => responses::response_withheld(record.id()),
        false => Response::from_parts(head, forwarded),
    };
    (answer, findings)
}

/// What the response rules read of this answer.
fn scope(config: &Config, method: &Method, head: &http::response::Parts) -> Scope {
    let status = head.status;
    if method == Method::HEAD
        || status.is_informational()
        || status == StatusCode::NO_CONTENT
        || status == StatusCode::NOT_MODIFIED
    {
        return Scope::Nothing;
    }
    let media = head
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase());
    let listed = media.is_some_and(|m| config.response_body.content_types.contains(&m));
    let coding = Coding::of(
        head.headers
            .get_all(header::CONTENT_ENCODING)
            .iter()
            .map(|v| v.as_bytes()),
    );
    match (listed, coding) {
        (true, Some(coding)) => Scope::Body(coding),
        _ => Scope::Head,
    }
}

fn evaluate(
    state: &State,
    rules: &LoadedRules,
    config: &Config,
    exchange: &Exchange<'_>,
    head: &http::response::Parts,
    body: Option<&[u8]>,
) -> Vec<Finding> {
    let excluded = config
        .domains
        .get(exchange.host)
        .map_or(&[][..], |d| d.disabled_rules.as_slice());
    let started = Instant::now();
    let findings = rules.inspect_response(
        (exchange.method.as_str(), exchange.target, exchange.host),
        head,
        body,
        excluded,
    );
    state
        .metrics
        .response_inspection_seconds
        .record(started.elapsed());
    findings
}

/// Logs and counts the findings, and tells the panel's events of an answer withheld (or in observe mode one that
/// would be); whether the answer is withheld (enforce mode, a finding that blocks).
fn judge(
    state: &State,
    config: &Config,
    exchange: &Exchange<'_>,
    findings: &[Finding],
    record: &mut Record,
) -> bool {
    if findings.is_empty() {
        return false;
    }
    let blocks = config.mode == Mode::Enforce && findings.iter().any(|f| f.blocks);
    let outcome = match (config.mode, blocks) {
        (Mode::Observe, _) => Outcome::Observed,
        (_, true) => Outcome::Blocked,
        _ => Outcome::Logged,
    };
    let outbound_score = findings
        .iter()
        .map(|f| f.score)
        .fold(0u32, u32::saturating_add);
    let id = record.id().clone();
    let ctx = MatchContext {
        mode: config.mode,
        outcome,
        anomaly_score: outbound_score,
        client: exchange.client,
        method: exchange.method.as_str(),
        uri: exchange.target,
        test_id: None,
        request_id: &id,
    };
    record.set_matches(outbound_score, findings.iter().map(|f| f.rule_id));
    for finding in findings {
        state.metrics.rule_matched(finding.rule_id);
        logging::rule_match(finding, &ctx);
    }
    if blocks {
        state.metrics.response_blocked.increment(1);
        record.set_action(Action::ResponseBlocked);
    }
    if matches!(outcome, Outcome::Blocked | Outcome::Observed) {
        tell_panel(state, exchange, &id, findings, blocks);
    }
    blocks
}

/// An event of the response phase for the panel: an answer withheld (a 502), or in observe mode one that would
/// have been.
fn tell_panel(
    state: &State,
    exchange: &Exchange<'_>,
    id: &RequestId,
    findings: &[Finding],
    withheld: bool,
) {
    state.recent_blocks.record(BlockedRequest {
        at_ms: recent_blocks::now_ms(),
        client: exchange.client.to_string(),
        domain: exchange.host.to_string(),
        method: exchange.method.to_string(),
        path: exchange.target.to_string(),
        rule_ids: findings.iter().map(|f| f.rule_id).collect(),
        anomaly_score: findings
            .iter()
            .map(|f| f.score)
            .fold(0, u32::saturating_add),
        outcome: if withheld { "blocked" } else { "observed" },
        phase: recent_blocks::Phase::Response,
        request_id: id.as_str().to_string(),
        status: withheld.then_some(StatusCode::BAD_GATEWAY.as_u16()),
        country: None,
        matches: findings.iter().map(MatchDetail::from).collect(),
        // The request's head is not kept past its inspection; the matches say what the answer leaked.
        head: Vec::new(),
    });
}
