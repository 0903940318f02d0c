//! The path of one request, as a sequence of small stages:
//!
//! ```text
//! own endpoints (GET /health, GET /metrics; ACME HTTP-01 tokens over HTTP) ─► framing checks ─► host
//!   ─► redirect to HTTPS (force_https) ─► client address ─► traffic controls (traffic/: IP lists, GeoIP, rate
//!   limit) ─► body read up to the limit ─► rules
//!   ─► 403 | forward (forward.rs) ─► response streamed back
//! ```
//!
//! Each stage either passes the request on or answers it, and notes what it did in the request's access record
//! (`access_log.rs`), which goes on with the answer and is written once the answer has been sent. Every request
//! has an id (`request_id.rs`) from its start: in its answer, in its log lines and sent to the upstream.
//!
//! Only `GET` reaches the proxy's own endpoints: any other request to those paths is inspected and forwarded like
//! every request (an earlier design skipped inspection for them, a free bypass).
use crate::access_log::{AccessBody, Action, Arrival, Record};
use crate::body::{ProxyBody, ReadBody, read_limited};
use crate::body_timeout::BodyTimeout;
use crate::client_ip::{Peer, client_addr};
use crate::config::{Config, Mode, OverLimit};
use crate::correlation::{self, Inbound, Transaction};
use crate::forward::{Origin, RequestHost, forward};
use crate::framing::{self, Refusal};
use crate::head_guard::HeadNote;
use crate::inspect::{Finding, LoadedRules};
use crate::logging::{self, CRS_TEST_HEADER, MatchContext, Outcome, TrafficSubject};
use crate::metrics::{Metrics, Rejection};
use crate::recent_blocks::{self, BlockedRequest, MatchDetail};
use crate::request_id::{self, RequestId};
use crate::responses;
use crate::state::{Live, State};
use crate::tls;
use crate::traffic::Block;
use bytes::Bytes;
use http::request::Parts;
use http::{Method, Request, Response, StatusCode, Version, header};
use hyper::body::{Body, Incoming};
use serde_json::json;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Answers one request on worker `worker`. `note` is what the connection's head guard noted about it: a
/// refusal (the request is then the guard's stand-in), or the target as the client sent it.
pub async fn handle(
    state: Arc<State>,
    worker: usize,
    peer: Peer,
    note: HeadNote,
    req: Request<Incoming>,
) -> Response<AccessBody> {
    let started = Instant::now();
    state.metrics.requests.increment(1);
    let mut record = Record::start(
        &state.access_log,
        &state.live.load().config.logging.access,
        RequestId::of(req.headers()),
        Arrival {
            client: peer.ip,
            tls: peer.tls_version,
            method: req.method(),
            uri: req.uri(),
            version: req.version(),
            headers: req.headers(),
        },
    );
    let mut response = match note.refusal {
        Some(refusal) => {
            record.set_action(Action::RefusedHead);
            refuse(&state, peer.ip, refusal, record.id())
        }
        None => {
            route(
                &state,
                worker,
                &peer,
                note.sent_target.as_deref(),
                req,
                &mut record,
            )
            .await
        }
    };
    response
        .headers_mut()
        .insert(request_id::HEADER, record.id().header());
    state.metrics.request_seconds.record(started.elapsed());
    record.attach(response)
}

/// A request whose head passed the guard, from the proxy's own endpoints to forwarding: each step either answers
/// (and the request ends there) or hands the request on.
async fn route(
    state: &State,
    worker: usize,
    peer: &Peer,
    sent_target: Option<&str>,
    req: Request<Incoming>,
    record: &mut Record,
) -> Response<ProxyBody> {
    let live = state.live.load_full();
    if let Some(response) = internal_answer(state, &live.config, peer, &req, record) {
        return response;
    }
    let (parts, body, host) = match checked_request(&live.config, req, record) {
        Ok(checked) => checked,
        Err(refusal) => {
            record.set_action(Action::Refused);
            return refuse(state, peer.ip, refusal, record.id());
        }
    };
    if !peer.tls
        && let Some(location) = https_location(&live.config, state.https.port, &host, &parts)
    {
        record.set_action(Action::Redirected);
        return responses::to_https(&parts.method, location);
    }
    let client = client_of(&live.config, peer, &parts, record);
    // Before the body is read: a refused client costs no body read and no rule evaluation.
    if let Some(response) = traffic_controls(state, &live, client, &host, &parts, record).await {
        return response;
    }
    let (body, inbound) = match live.config.mode {
        Mode::Disabled => {
            record.set_bytes_in(declared_length(&parts).unwrap_or(0));
            (
                streamed(None, body, &parts, &live.config, state.metrics, peer.ip),
                Inbound::default(),
            )
        }
        Mode::Enforce | Mode::Observe => match inspect(
            state,
            &live.config,
            Sender {
                peer: peer.ip,
                client,
                host: &host.name,
            },
            &parts,
            sent_target,
            body,
            record,
        )
        .await
        {
            Ok(inspected) => inspected,
            Err(response) => return response,
        },
    };
    let target = sent_target.unwrap_or_else(|| uri_text(&parts)).to_owned();
    let origin = Origin {
        peer,
        host: &host,
        client,
        sent_target: &target,
        inbound,
    };
    forward(state, &live, worker, parts, body, origin, record).await
}

/// The proxy's own endpoints: `/health`, `/metrics` when enabled, and ACME's HTTP-01 tokens over plain HTTP
/// (before inspection and before a redirect to HTTPS: the ACME server must reach the token as it is).
fn internal_answer(
    state: &State,
    config: &Config,
    peer: &Peer,
    req: &Request<Incoming>,
    record: &mut Record,
) -> Option<Response<ProxyBody>> {
    if req.method() == Method::GET {
        match req.uri().path() {
            "/health" => {
                record.set_action(Action::Internal);
                return Some(health(state, config));
            }
            "/metrics" if config.metrics.enabled => {
                record.set_action(Action::Internal);
                return Some(metrics_page(state));
            }
            _ => {}
        }
    }
    if !peer.tls
        && req.uri().path().starts_with(tls::challenge::PATH_PREFIX)
        && config.acme_domains().next().is_some()
    {
        record.set_action(Action::Internal);
        return Some(
            state
                .https
                .challenges
                .answer(req.method(), req.uri().path()),
        );
    }
    None
}

/// The request split into head and body with its host, once HTTP/2's limits, the framing and the host are
/// valid (else why not); the host is recorded, and silences the access log where its domain says so.
fn checked_request(
    config: &Config,
    req: Request<Incoming>,
    record: &mut Record,
) -> Result<(Parts, Incoming, RequestHost), Refusal> {
    config
        .server
        .limits
        .check_h2(&req)
        .and_then(|()| framing::check(req.method(), req.version(), req.headers()))?;
    let (parts, body) = req.into_parts();
    let host = RequestHost::of(&parts).ok_or(Refusal {
        status: StatusCode::BAD_REQUEST,
        reason: "invalid Host",
    })?;
    if config
        .domains
        .get(&host.name)
        .is_some_and(|d| !d.access_log)
    {
        record.silence();
    }
    record.set_host(&host.name);
    Ok((parts, body, host))
}

/// The client's address (the peer's, or the one a trusted proxy forwarded for), recorded; a CRS test request
/// (`X-CRS-Test`) is marked in the log with it.
fn client_of(config: &Config, peer: &Peer, parts: &Parts, record: &mut Record) -> IpAddr {
    let trusted = &config.client_ip.trusted_proxies;
    let forwarded_for = parts.headers.get_all("x-forwarded-for");
    let client = client_addr(peer.ip, forwarded_for.iter().map(|v| v.as_bytes()), trusted);
    record.set_client(client);
    let test_id = parts
        .headers
        .get(CRS_TEST_HEADER)
        .and_then(|v| v.to_str().ok());
    if let Some(test_id) = test_id {
        logging::test_marker(test_id, parts.method.as_str(), uri_text(parts), record.id());
    }
    client
}

/// The IP lists, GeoIP and rate limits for `client` (not when the WAF is disabled): the refusal to answer with,
/// if any (in observe mode a refusal is recorded and the request goes on).
async fn traffic_controls(
    state: &State,
    live: &Live,
    client: IpAddr,
    host: &RequestHost,
    parts: &Parts,
    record: &mut Record,
) -> Option<Response<ProxyBody>> {
    if live.config.mode == Mode::Disabled {
        return None;
    }
    let block = live.traffic.check(&host.name, client).await.err()?;
    let id = record.id().clone();
    let subject = TrafficSubject {
        client,
        host: &host.name,
        method: parts.method.as_str(),
        uri: uri_text(parts),
        request_id: &id,
    };
    traffic_refusal(state, &live.config, block, &subject, record)
}

/// The request's `Content-Length`, when it has a valid one.
fn declared_length(parts: &Parts) -> Option<u64> {
    parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
}

/// Counts, logs and records a traffic control's refusal; the answer in enforce mode, none in observe mode
/// (forwarded). Either way it is an event of its control's outcome (`ip_denied`, `geo_denied`, `rate_limited`):
/// in observe mode with no status, as the request was forwarded, so an operator sees what enforcing would refuse.
fn traffic_refusal(
    state: &State,
    config: &Config,
    block: Block,
    subject: &TrafficSubject,
    record: &mut Record,
) -> Option<Response<ProxyBody>> {
    let observe = config.mode == Mode::Observe;
    logging::traffic_decision(config.logging.traffic_level, &block, observe, subject);
    let metrics = state.metrics;
    let id = subject.request_id;
    let country = match &block {
        Block::Country(c) => Some(c.as_ref().map_or("unknown", |c| c.as_str()).to_string()),
        _ => None,
    };
    let outcome = match block {
        Block::IpDenied | Block::IpNotAllowed => "ip_denied",
        Block::Country(_) => "geo_denied",
        Block::RateLimited { .. } | Block::RateLimitUnavailable { .. } => "rate_limited",
    };
    let answer = if observe {
        metrics.observed.increment(1);
        record.set_action(Action::Observed);
        None
    } else {
        let (action, response) = match block {
            Block::IpDenied | Block::IpNotAllowed => {
                metrics.ip_blocked(block.reason());
                (
                    Action::IpDenied,
                    responses::traffic_forbidden(block.reason(), id),
                )
            }
            Block::Country(country) => {
                metrics.geo_blocked(country.as_ref().map_or("unknown", |c| c.as_str()));
                (
                    Action::GeoDenied,
                    responses::traffic_forbidden(block.reason(), id),
                )
            }
            Block::RateLimited { limit, retry_after } => {
                metrics.rate_limited.increment(1);
                (
                    Action::RateLimited,
                    responses::rate_limited(limit, retry_after, id),
                )
            }
            Block::RateLimitUnavailable { limit } => {
                metrics.rate_limited.increment(1);
                (
                    Action::RateLimited,
                    responses::rate_limited(limit, Duration::from_secs(1), id),
                )
            }
        };
        record.set_action(action);
        Some(response)
    };
    state.recent_blocks.record(BlockedRequest {
        at_ms: recent_blocks::now_ms(),
        client: subject.client.to_string(),
        domain: subject.host.to_string(),
        method: subject.method.to_string(),
        path: subject.uri.to_string(),
        rule_ids: Vec::new(),
        anomaly_score: 0,
        outcome,
        phase: recent_blocks::Phase::Request,
        request_id: id.as_str().to_string(),
        status: answer.as_ref().map(|r| r.status().as_u16()),
        country,
        matches: Vec::new(),
        head: Vec::new(),
    });
    answer
}

/// Where a plain HTTP request for a `force_https` domain is sent instead: same host, the HTTPS port (left out
/// when 443), same path and query. Only configured domains redirect, so the name is one of ours.
fn https_location(
    config: &Config,
    https_port: u16,
    host: &RequestHost,
    parts: &Parts,
) -> Option<http::HeaderValue> {
    if !config.domains.get(&host.name)?.force_https {
        return None;
    }
    let port = match https_port {
        443 => String::new(),
        p => format!(":{p}"),
    };
    // An IPv6 literal cannot be a configured domain name, so the name needs no brackets.
    http::HeaderValue::try_from(format!("https://{}{port}{}", host.name, uri_text(parts))).ok()
}

fn refuse(state: &State, client: IpAddr, refusal: Refusal, id: &RequestId) -> Response<ProxyBody> {
    state.metrics.rejected(match refusal.status {
        StatusCode::URI_TOO_LONG => Rejection::TargetTooLong,
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => Rejection::HeadTooLarge,
        StatusCode::REQUEST_TIMEOUT => Rejection::HeadTimeout,
        _ => Rejection::Malformed,
    });
    if refusal.status == StatusCode::REQUEST_TIMEOUT {
        // Logged by the head guard, at debug: a slowloris flood must not flood the log (`timeouts.rs`).
        return responses::refused(refusal, id);
    }
    // The peer's address, not a forwarded one: a refused request's headers are not read.
    tracing::info!(
        "refused request from {client}: {} ({}) [request_id \"{}\"]",
        refusal.reason,
        refusal.status.as_u16(),
        id.as_str()
    );
    responses::refused(refusal, id)
}

/// Whether reading the body failed because the client stopped sending it (the head guard's read timeout).
fn timed_out(e: &hyper::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        if cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// A request body streamed to the upstream: `rest`, after `read` (the part read for inspection) when there is
/// one. The head guard times each read of an HTTP/1 body; an HTTP/2 stream's reads it cannot tell apart, so that
/// body is bounded here, by the same `server.body_read_timeout_sec` between two reads (`body_timeout.rs`).
fn streamed(
    read: Option<Bytes>,
    rest: Incoming,
    parts: &Parts,
    config: &Config,
    metrics: &'static Metrics,
    peer: IpAddr,
) -> ProxyBody {
    if parts.version != Version::HTTP_2 {
        return match read {
            Some(read) => ProxyBody::Prefixed(Some(read), rest),
            None => ProxyBody::Stream(rest),
        };
    }
    let bound = Duration::from_secs(config.server.body_read_timeout_sec);
    let rest = BodyTimeout::new(rest, bound, peer, metrics, "request failed, stream ended");
    ProxyBody::Bounded(read, rest)
}

fn uri_text(parts: &Parts) -> &str {
    parts.uri.path_and_query().map_or("/", |pq| pq.as_str())
}

/// Who sent a request: the connection's peer, the client address (`client_ip.rs`) and the host it asked for.
struct Sender<'a> {
    peer: IpAddr,
    client: IpAddr,
    host: &'a str,
}

/// Reads the body up to the limit and runs the rules. Returns the body to forward with what the rules found in
/// the request (for the transaction's correlation), or the answer to send instead. `config.mode` is `enforce` or
/// `observe`.
async fn inspect(
    state: &State,
    config: &Config,
    Sender { peer, client, host }: Sender<'_>,
    parts: &Parts,
    sent_target: Option<&str>,
    body: Incoming,
    record: &mut Record,
) -> Result<(ProxyBody, Inbound), Response<ProxyBody>> {
    let mode = config.mode;
    let id = record.id().clone();
    // The rules see the target as the client sent it, before any encoding for the parser.
    let target = sent_target.unwrap_or_else(|| uri_text(parts));
    let metrics = state.metrics;
    let (inspected, forwarded) = read_body(
        metrics,
        config,
        (peer, client, target),
        parts,
        body,
        record,
        &id,
    )
    .await?;

    let rules = state.rules.load();
    if rules.count() == 0 {
        // Nothing to evaluate: not even the engine's view of the request is built.
        return Ok((forwarded, Inbound::default()));
    }
    let started = Instant::now();
    let findings = rules.inspect(parts, target, &inspected, config.inspection_policy(host));
    metrics.inspection_seconds.record(started.elapsed());
    if findings.is_empty() {
        return Ok((forwarded, Inbound::default()));
    }

    let (outcome, blocking) = decide(mode, &findings);
    let ctx = MatchContext {
        mode,
        outcome,
        anomaly_score: findings
            .iter()
            .map(|f| f.score)
            .fold(0u32, u32::saturating_add),
        client,
        method: parts.method.as_str(),
        uri: target,
        test_id: parts
            .headers
            .get(CRS_TEST_HEADER)
            .and_then(|v| v.to_str().ok()),
        request_id: &id,
    };
    report(state, host, parts, &findings, &ctx, record);
    let inbound = Inbound::of(&findings);
    match (outcome, blocking) {
        (Outcome::Blocked, Some(rule)) => Err(block(
            metrics, &rules, &findings, rule, &inbound, &ctx, record,
        )),
        (Outcome::Observed, _) => {
            metrics.observed.increment(1);
            record.set_action(Action::Observed);
            Ok((forwarded, inbound))
        }
        _ => Ok((forwarded, inbound)),
    }
}

/// What the findings of the rules decide in `mode`: the outcome, and the finding that blocks the request (the
/// first blocking one, in enforce mode).
fn decide(mode: Mode, findings: &[Finding]) -> (Outcome, Option<&Finding>) {
    let blocking = findings
        .iter()
        .find(|f| f.blocks)
        .filter(|_| mode == Mode::Enforce);
    let outcome = match (mode, blocking) {
        (Mode::Observe, _) => Outcome::Observed,
        (_, Some(_)) => Outcome::Blocked,
        _ => Outcome::Logged,
    };
    (outcome, blocking)
}

/// The 403 of a request `rule` blocked. The transaction ends here (no answer to inspect), so its correlation
/// is logged now.
fn block(
    metrics: &Metrics,
    rules: &LoadedRules,
    findings: &[Finding],
    rule: &Finding,
    inbound: &Inbound,
    ctx: &MatchContext<'_>,
    record: &mut Record,
) -> Response<ProxyBody> {
    let transaction = Transaction {
        client: ctx.client,
        method: ctx.method,
        uri: ctx.uri,
        request_id: ctx.request_id,
    };
    correlation::report(rules, inbound, &[], &transaction);
    metrics.blocked.increment(1);
    record.set_action(Action::Blocked);
    let rule_ids: Vec<u64> = findings.iter().map(|f| f.rule_id).collect();
    responses::blocked(
        rule.rule_id,
        &rule.msg,
        ctx.anomaly_score,
        &rule_ids,
        ctx.request_id,
    )
}

/// Reads the body up to the limit, or refuses the request (too large, too slow, unreadable). Returns what the
/// rules inspect and what is forwarded (with an uninspected tail when over the limit and so configured).
async fn read_body(
    metrics: &'static Metrics,
    config: &Config,
    (peer, client, target): (IpAddr, IpAddr, &str),
    parts: &Parts,
    body: Incoming,
    record: &mut Record,
    id: &RequestId,
) -> Result<(Bytes, ProxyBody), Response<ProxyBody>> {
    let mode = config.mode;
    let limit = config.body.limit_bytes;
    let refuse_large = mode == Mode::Enforce && config.body.over_limit == OverLimit::Reject;
    let declared = declared_length(parts);
    if refuse_large && declared.is_some_and(|len| len > limit as u64) {
        // Refused before reading a byte of it.
        metrics.rejected(Rejection::BodyTooLarge);
        record.set_action(Action::BodyTooLarge);
        return Err(responses::body_too_large(limit, id));
    }
    let read = read_in_time(metrics, config, body, record, id).await?;
    match read {
        ReadBody::Complete(bytes) => {
            record.set_bytes_in(bytes.len() as u64);
            Ok((bytes.clone(), ProxyBody::full(bytes)))
        }
        ReadBody::OverLimit { read, rest } => {
            // The tail streams through uncounted: its declared length says how long it is, if anything does.
            record.set_bytes_in(declared.unwrap_or(read.len() as u64));
            if refuse_large {
                metrics.rejected(Rejection::BodyTooLarge);
                record.set_action(Action::BodyTooLarge);
                return Err(responses::body_too_large(limit, id));
            }
            // Never a silent pass: each such request says in the log that its tail went uninspected.
            let prefix = if mode == Mode::Observe && config.body.over_limit == OverLimit::Reject {
                "OBSERVE MODE request body over the limit would be refused with 413; "
            } else {
                ""
            };
            tracing::warn!(
                "{prefix}request body over {limit} bytes: only the first {limit} inspected [client \"{client}\"] [uri \"{}\"] [request_id \"{}\"]",
                logging::clean(target),
                id.as_str()
            );
            let forwarded = streamed(Some(read.clone()), rest, parts, config, metrics, peer);
            Ok((read.slice(..limit), forwarded))
        }
    }
}

/// The body up to the limit, read within `server.body_read_timeout_sec`; or the answer refusing it (too slow,
/// unreadable).
async fn read_in_time(
    metrics: &'static Metrics,
    config: &Config,
    body: Incoming,
    record: &mut Record,
    id: &RequestId,
) -> Result<ReadBody, Response<ProxyBody>> {
    // A request without a body (most GETs) needs neither the read nor its timer.
    if body.is_end_stream() {
        return Ok(ReadBody::Complete(Bytes::new()));
    }
    let timeout = Duration::from_secs(config.server.body_read_timeout_sec);
    let late =
        match tokio::time::timeout(timeout, read_limited(body, config.body.limit_bytes)).await {
            Ok(Ok(read)) => return Ok(read),
            // The whole inspected part late, or one read of it (the head guard's bound, `timeouts.rs`).
            Err(_) => true,
            Ok(Err(e)) if timed_out(&e) => true,
            Ok(Err(e)) => {
                tracing::debug!(
                    "request body unreadable: {e} [request_id \"{}\"]",
                    id.as_str()
                );
                false
            }
        };
    if late {
        metrics.rejected(Rejection::BodyTimeout);
        record.set_action(Action::BodyTimeout);
        return Err(responses::body_timeout(id));
    }
    metrics.rejected(Rejection::Malformed);
    record.set_action(Action::Refused);
    let refusal = Refusal {
        status: StatusCode::BAD_REQUEST,
        reason: "unreadable request body",
    };
    Err(responses::refused(refusal, id))
}

/// Logs each finding, counts it, and remembers a blocked or observed request for the admin panel.
fn report(
    state: &State,
    host: &str,
    parts: &Parts,
    findings: &[Finding],
    ctx: &MatchContext<'_>,
    record: &mut Record,
) {
    let MatchContext {
        outcome,
        anomaly_score,
        client,
        uri: target,
        request_id: id,
        ..
    } = *ctx;
    let metrics = state.metrics;
    record.set_matches(anomaly_score, findings.iter().map(|f| f.rule_id));
    for finding in findings {
        metrics.rule_matched(finding.rule_id);
        logging::rule_match(finding, ctx);
    }
    if matches!(outcome, Outcome::Blocked | Outcome::Observed) {
        state.recent_blocks.record(BlockedRequest {
            at_ms: recent_blocks::now_ms(),
            client: client.to_string(),
            domain: host.to_string(),
            method: parts.method.to_string(),
            path: target.to_string(),
            rule_ids: findings.iter().map(|f| f.rule_id).collect(),
            anomaly_score,
            phase: recent_blocks::Phase::Request,
            request_id: id.as_str().to_string(),
            outcome: if matches!(outcome, Outcome::Blocked) {
                "blocked"
            } else {
                "observed"
            },
            status: matches!(outcome, Outcome::Blocked).then_some(403),
            country: None,
            matches: findings.iter().map(MatchDetail::from).collect(),
            head: recent_blocks::head(&parts.headers),
        });
    }
}

fn health(state: &State, config: &Config) -> Response<ProxyBody> {
    let rules = state.rules.load();
    let upstreams_down = state.live.load().pools.down();
    responses::json(
        StatusCode::OK,
        &json!({
            "status": "ok",
            "rules_loaded": rules.count(),
            "observe_mode": config.mode == Mode::Observe,
            "mode": config.mode,
            "paranoia_level": config.rules.paranoia_level,
            "rule_set_hash": rules.hash(),
            "rule_file_errors": rules.errors.len(),
            "rules_source": rules.source,
            "tls": tls::health(config, &state.https.certs.load()),
            "upstreams_down": upstreams_down,
        }),
    )
}

fn metrics_page(state: &State) -> Response<ProxyBody> {
    let mut response = Response::new(ProxyBody::full(state.metrics.render()));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; version=0.0.4"),
    );
    response
}
