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
use std::io::Read;
use std::net::IpAddr;
use std::time::Instant;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Coding {
    Identity,
    Gzip,
    Deflate,
    Brotli,
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
    let decoded = decode(coding, &read, limit);
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
    let coding = coding(head.headers.get_all(header::CONTENT_ENCODING).iter());
    match (listed, coding) {
        (true, Some(coding)) => Scope::Body(coding),
        _ => Scope::Head,
    }
}

/// The coding to undo, when the proxy can undo it: none (or `identity`), `gzip`, `deflate` or `br`, alone. Several
/// codings, or any other, leave the body unread (its head is still inspected).
fn coding<'h>(values: impl Iterator<Item = &'h http::HeaderValue>) -> Option<Coding> {
    let mut found = Coding::Identity;
    let mut codings = 0;
    for value in values {
        for token in value.to_str().ok()?.split(',') {
            let token = token.trim().to_ascii_lowercase();
            found = match token.as_str() {
                "" | "identity" => continue,
                "gzip" | "x-gzip" => Coding::Gzip,
                "deflate" => Coding::Deflate,
                "br" => Coding::Brotli,
                _ => return None,
            };
            codings += 1;
        }
    }
    (codings <= 1).then_some(found)
}

/// The body as the rules read it: `bytes` decoded, at most `limit` bytes of it. A truncated or broken
/// compressed body gives what decoded before the break (a body cut at the limit ends mid-stream).
fn decode(coding: Coding, bytes: &Bytes, limit: usize) -> Bytes {
    let cap = u64::try_from(limit).unwrap_or(u64::MAX);
    let mut out = Vec::new();
    let read = |reader: &mut dyn Read, out: &mut Vec<u8>| {
        // Errors end the read; what decoded so far is kept in `out`.
        let _ = reader.take(cap).read_to_end(out);
    };
    match coding {
        Coding::Identity => return bytes.slice(..bytes.len().min(limit)),
        Coding::Gzip => read(&mut flate2::read::MultiGzDecoder::new(&bytes[..]), &mut out),
        Coding::Deflate => {
            // HTTP's `deflate` is zlib-wrapped, but some servers send raw DEFLATE: a zlib header tells.
            let zlib = bytes.len() >= 2
                && bytes[0] & 0x0f == 8
                && (u16::from(bytes[0]) << 8 | u16::from(bytes[1])) % 31 == 0;
            match zlib {
                true => read(&mut flate2::read::ZlibDecoder::new(&bytes[..]), &mut out),
                false => read(&mut flate2::read::DeflateDecoder::new(&bytes[..]), &mut out),
            }
        }
        Coding::Brotli => read(
            &mut brotli_decompressor::Decompressor::new(&bytes[..], 4096),
            &mut out,
        ),
    }
    Bytes::from(out)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn header(values: &[&str]) -> Option<Coding> {
        let values: Vec<http::HeaderValue> = values
            .iter()
            .map(|v| http::HeaderValue::from_str(v).unwrap())
            .collect();
        coding(values.iter())
    }

    #[test]
    fn codings_the_proxy_can_undo() {
        assert_eq!(header(&[]), Some(Coding::Identity));
        assert_eq!(header(&["identity"]), Some(Coding::Identity));
        assert_eq!(header(&["GZIP"]), Some(Coding::Gzip));
        assert_eq!(header(&["br"]), Some(Coding::Brotli));
        assert_eq!(header(&["deflate"]), Some(Coding::Deflate));
        assert_eq!(header(&["zstd"]), None);
        assert_eq!(header(&["gzip, br"]), None);
        assert_eq!(header(&["gzip", "gzip"]), None);
    }

    #[test]
    fn decoding_is_bounded_and_keeps_a_truncated_stream() {
        let page = b"<p>ORA-00933: SQL command not properly ended</p>".repeat(100);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&page).unwrap();
        let gz = Bytes::from(gz.finish().unwrap());
        assert_eq!(decode(Coding::Gzip, &gz, 1 << 20), page[..]);
        assert_eq!(decode(Coding::Gzip, &gz, 100), page[..100]);
        // Cut mid-stream (a body past the limit): what decoded so far.
        let cut = decode(Coding::Gzip, &gz.slice(..gz.len() / 2), 1 << 20);
        assert!(!cut.is_empty() && page.starts_with(&cut));
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        zlib.write_all(&page).unwrap();
        let zlib = Bytes::from(zlib.finish().unwrap());
        assert_eq!(decode(Coding::Deflate, &zlib, 1 << 20), page[..]);
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        raw.write_all(&page).unwrap();
        let raw = Bytes::from(raw.finish().unwrap());
        assert_eq!(decode(Coding::Deflate, &raw, 1 << 20), page[..]);
        let plain = Bytes::from_static(b"abcdef");
        assert_eq!(decode(Coding::Identity, &plain, 3), b"abc"[..]);
        // `brotli -c` (Debian's brotli 1.0.9) of a PHP warning.
        let br = "1f8300002c8e77909c201c23b2e849f9c5b09a47eccd4e8238ddc1061c693a055b8522573e61089303f663cba3d696\
                  5098eef0cd9f6256b26b6ae46384800e0e121fc65e4b91e94f206f4ad0387e539c1c2ef23dde6ef9b21a2855f124";
        let br = Bytes::from(hex::decode(br).unwrap());
        let text = decode(Coding::Brotli, &br, 1 << 20);
        assert!(text.starts_with(b"<b>Warning</b>:  include(config.php): failed to open stream"));
        assert!(text.ends_with(b"on line <b>3</b>"));
        // A bomb: a megabyte of zeros decodes to no more than the limit.
        let mut bomb = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        bomb.write_all(&vec![0u8; 1 << 20]).unwrap();
        let bomb = Bytes::from(bomb.finish().unwrap());
        assert_eq!(decode(Coding::Gzip, &bomb, 4096).len(), 4096);
    }
}
