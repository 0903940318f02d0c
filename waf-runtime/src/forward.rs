//! Forwarding a request that passed inspection, and streaming the upstream's answer back.
//!
//! The upstream is chosen from configuration only: by the request's host among the configured domains, else the
//! global upstream. The request keeps its method, path, query, headers (minus hop-by-hop ones) and body; its
//! framing is re-derived from the body actually sent, never copied from the client.
use crate::access_log::{Action, Record};
use crate::body::ProxyBody;
use crate::client_ip::Peer;
use crate::config::UpstreamHost;
use crate::connection_limits::Admitted;
use crate::correlation::Inbound;
use crate::headers::{set_forwarded, strip_hop_by_hop};
use crate::metrics::{Rejection, UpstreamFailure};
use crate::request_id;
use crate::response_inspection::{self, Exchange};
use crate::responses;
use crate::state::{Live, State};
use crate::upgrade;
use crate::upstream_pool::Pool;
use crate::upstream_url::UpstreamUrl;
use bytes::Bytes;
use http::request::Parts;
use http::uri::{Authority, PathAndQuery};
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, Uri, Version, header};
use hyper::upgrade::OnUpgrade;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Where a request comes from: the connection, and the host it asked for.
pub struct Origin<'a> {
    pub peer: &'a Peer,
    pub host: &'a RequestHost,
    /// The client's address (the peer, or the address a trusted proxy forwarded for).
    pub client: std::net::IpAddr,
    /// The request target as the client sent it, for the response rules' log lines.
    pub sent_target: &'a str,
    /// What the request rules found in it, for the transaction's correlation (`correlation.rs`).
    pub inbound: Inbound,
}

/// The host a request is for: from the absolute-form URI (HTTP/2 `:authority`) or the `Host` header.
pub struct RequestHost {
    /// As the client sent it (with port), for `Host` and `X-Forwarded-Host`. None for HTTP/1.0 without `Host`.
    pub raw: Option<HeaderValue>,
    /// Lower-cased, without port or trailing dot: the key into the configured domains.
    pub name: String,
}

impl RequestHost {
    /// None when the host is present but not a valid authority.
    pub fn of(parts: &Parts) -> Option<RequestHost> {
        let raw = match parts.uri.authority() {
            Some(a) => HeaderValue::from_str(a.as_str()).ok()?,
            None => match parts.headers.get(header::HOST) {
                Some(h) => h.clone(),
                None => {
                    return Some(RequestHost {
                        raw: None,
                        name: String::new(),
                    });
                }
            },
        };
        let authority: Authority = raw.to_str().ok()?.parse().ok()?;
        if authority.as_str().contains('@') {
            return None;
        }
        let name = authority.host().trim_end_matches('.').to_ascii_lowercase();
        Some(RequestHost {
            raw: Some(raw),
            name,
        })
    }
}

/// Forwards a request that passed inspection: its head rewritten for the upstream ([`rewrite_head`]), sent to the
/// pool's servers in turn until one answers ([`send_to_pool`]), and the answer relayed ([`switch_protocols`]),
/// inspected (`response_inspection.rs`) or replaced by the proxy's own ([`upstream_failed`]).
pub async fn forward(
    state: &State,
    live: &Live,
    worker: usize,
    mut parts: Parts,
    body: ProxyBody,
    Origin {
        peer,
        host,
        client,
        sent_target,
        inbound,
    }: Origin<'_>,
    record: &mut Record,
) -> Response<ProxyBody> {
    let config = &live.config;
    // What the response rules' log lines name (`response_inspection.rs`).
    let method = parts.method.clone();
    let target = sent_target.to_owned();
    // hyper leaves an upgrade handle on the requests that may switch protocols (HTTP/1.1 with the headers).
    let client_upgrade = upgrade::requested(&parts.headers)
        .and_then(|protocol| Some((protocol, parts.extensions.remove::<OnUpgrade>()?)));
    // The client connection's place under the connection limits, for the relay to hold (`server.rs`).
    let admitted = parts.extensions.remove::<Arc<Admitted>>();
    let upgrade_protocol = client_upgrade
        .as_ref()
        .map(|(protocol, _)| protocol.clone());
    rewrite_head(
        config,
        peer,
        host,
        upgrade_protocol,
        record,
        &mut parts,
        &body,
    );
    let destination = Destination {
        pool: live.pools.for_host(&host.name),
        upstream_host: config
            .domains
            .get(&host.name)
            .and_then(|d| d.upstream_host.as_ref()),
        host,
        client_ip: peer.ip,
        upgrade: client_upgrade.is_some(),
    };
    let sent = Instant::now();
    let (answer, upstream) = send_to_pool(live, worker, &destination, parts, body, record).await;
    let upstream = upstream.map_or_else(
        || destination.pool.servers[0].config.url.clone(),
        Clone::clone,
    );
    record.set_upstream(upstream.authority().as_str(), sent.elapsed());
    match answer {
        Ok(response) if response.status() == StatusCode::SWITCHING_PROTOCOLS => {
            switch_protocols(state, response, client_upgrade, admitted, &upstream, record)
        }
        Ok(mut response) => {
            record.forwarded();
            strip_hop_by_hop(response.headers_mut());
            let exchange = Exchange {
                method: &method,
                target: &target,
                host: &host.name,
                client,
                inbound: &inbound,
            };
            response_inspection::answer(state, config, &exchange, response, record).await
        }
        Err(failure) => upstream_failed(state, failure, &upstream, record),
    }
}

/// Makes the client's head the upstream's: hop-by-hop headers out (an upgrade's kept when asked for),
/// `Expect` out, the `Forwarded` family and the request id in, `Content-Length` from the body actually sent, the
/// target in origin form, HTTP/1.1.
fn rewrite_head(
    config: &crate::config::Config,
    peer: &Peer,
    host: &RequestHost,
    upgrade_protocol: Option<HeaderValue>,
    record: &Record,
    parts: &mut Parts,
    body: &ProxyBody,
) {
    let had_length = parts.headers.contains_key(header::CONTENT_LENGTH);
    strip_hop_by_hop(&mut parts.headers);
    if let Some(protocol) = upgrade_protocol {
        upgrade::keep(&mut parts.headers, protocol);
    }
    // The body has been read (or is streamed by us); the upstream never needs to say 100 Continue.
    parts.headers.remove(header::EXPECT);
    let trusted_peer = config
        .client_ip
        .trusted_proxies
        .iter()
        .any(|c| c.contains(peer.ip));
    let host_text = host.raw.as_ref().and_then(|h| h.to_str().ok());
    set_forwarded(&mut parts.headers, peer, trusted_peer, host_text);

    // The upstream logs the same id as we do, whatever the client sent (`request_id.rs`).
    parts
        .headers
        .insert(request_id::HEADER, record.id().header());
    match body {
        ProxyBody::Full(Some(bytes)) => {
            parts
                .headers
                .insert(header::CONTENT_LENGTH, HeaderValue::from(bytes.len()));
        }
        ProxyBody::Full(None) if had_length => {
            parts
                .headers
                .insert(header::CONTENT_LENGTH, HeaderValue::from(0u32));
        }
        ProxyBody::Full(None) => {
            parts.headers.remove(header::CONTENT_LENGTH);
        }
        // A streamed body keeps a Content-Length that the framing checks validated (hyper enforces it on the
        // way in and out); without one it goes chunked.
        ProxyBody::Stream(_) | ProxyBody::Prefixed(..) | ProxyBody::Bounded(..) => {}
    }
    parts.uri = origin_form(std::mem::take(&mut parts.uri));
    parts.version = Version::HTTP_11;
}

/// Where a request goes: the pool of its host, and what its `Host` header becomes there.
struct Destination<'a> {
    pool: &'a Pool,
    /// The domain's `upstream_host`.
    upstream_host: Option<&'a UpstreamHost>,
    host: &'a RequestHost,
    /// The peer's address, for the pool's choice of server.
    client_ip: std::net::IpAddr,
    /// Whether the client asked to switch protocols.
    upgrade: bool,
}

/// The upstream's answer, or why there is none (the failure and its detail).
type Answer = Result<Response<hyper::body::Incoming>, (UpstreamFailure, String)>;

/// Sends the request to the destination's servers in the pool's order until one answers, or the retries are
/// spent; returns the answer and the server that gave it (or last failed).
async fn send_to_pool<'a>(
    live: &Live,
    worker: usize,
    destination: &Destination<'a>,
    parts: Parts,
    body: ProxyBody,
    record: &Record,
) -> (Answer, Option<&'a UpstreamUrl>) {
    let pool = destination.pool;
    let retries = pool.settings.retries as usize;
    let replay = Replay::of(&parts, &body, destination, retries);
    let mut request = Some(Request::from_parts(parts, body));
    let mut tried: Vec<usize> = Vec::new();
    // The last attempt's failure and server: the answer when no other server is tried.
    let mut failed: Option<((UpstreamFailure, String), &UpstreamUrl)> = None;
    loop {
        // `choose` gives a server while any is untried, and `tried` grows by one each turn.
        let (Some(i), Some(mut req)) = (pool.choose(&tried, destination.client_ip), request.take())
        else {
            return match failed {
                Some((failure, url)) => (Err(failure), Some(url)),
                None => {
                    let detail = "no upstream server to try".to_string();
                    (Err((UpstreamFailure::Unavailable, detail)), None)
                }
            };
        };
        tried.push(i);
        let server = &pool.servers[i];
        let url = &server.config.url;
        if let Some(((failure, detail), previous)) = failed.take() {
            tracing::warn!(
                "upstream {previous} failed ({failure:?}): {detail}; trying {url} [request_id \"{}\"]",
                record.id().as_str()
            );
        }
        req.headers_mut().insert(
            header::HOST,
            upstream_host_header(destination.upstream_host, destination.host, url),
        );
        server.state.in_flight.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        let result = live
            .upstreams
            .send(worker, url, &pool.tls, destination.upgrade, req)
            .await;
        server.state.in_flight.fetch_sub(1, Ordering::Relaxed);
        let e = match result {
            Ok(response) => {
                server.state.succeeded(started.elapsed());
                return (Ok(response), Some(url));
            }
            Err(e) => e,
        };
        pool.failed(&server.state);
        // Never written: any request may go elsewhere. Written but reset before the head: an idempotent one
        // may (a timeout is not a reset: another server would only double the wait and the load).
        request = e.unsent.or_else(|| match e.failure {
            UpstreamFailure::Unavailable => replay.as_ref().map(Replay::request),
            UpstreamFailure::Timeout | UpstreamFailure::ClientBody => None,
        });
        if tried.len() > retries {
            request = None;
        }
        failed = Some(((e.failure, e.detail), url));
    }
}

/// An upstream's 101 Switching Protocols: relayed when the client asked to switch, with the two connections
/// joined (`upgrade.rs`); a 502 when it did not.
fn switch_protocols(
    state: &State,
    mut response: Response<hyper::body::Incoming>,
    client_upgrade: Option<(HeaderValue, OnUpgrade)>,
    admitted: Option<Arc<Admitted>>,
    upstream: &UpstreamUrl,
    record: &mut Record,
) -> Response<ProxyBody> {
    let (Some((_, client)), Some(protocol)) = (
        client_upgrade,
        response.headers().get(header::UPGRADE).cloned(),
    ) else {
        state.metrics.upstream_failed(UpstreamFailure::Unavailable);
        tracing::warn!(
            "upstream {upstream} switched protocols unasked [request_id \"{}\"]",
            record.id().as_str()
        );
        let response = responses::bad_gateway(record.id());
        record.set_action(Action::UpstreamError);
        return response;
    };
    record.forwarded();
    upgrade::relay(client, hyper::upgrade::on(&mut response), admitted);
    let (mut head, body) = response.into_parts();
    strip_hop_by_hop(&mut head.headers);
    upgrade::keep(&mut head.headers, protocol);
    Response::from_parts(head, ProxyBody::Stream(body))
}

/// The proxy's own answer when no upstream answered: 408 when the client's body stalled, 504 on a timeout, else
/// 502; counted and logged.
fn upstream_failed(
    state: &State,
    (failure, detail): (UpstreamFailure, String),
    upstream: &UpstreamUrl,
    record: &mut Record,
) -> Response<ProxyBody> {
    let id = record.id();
    if matches!(failure, UpstreamFailure::ClientBody) {
        // Counted and logged (at debug) where the wait ended: the head guard or `body_timeout.rs`.
        state.metrics.rejected(Rejection::BodyTimeout);
        let response = responses::body_timeout(id);
        record.set_action(Action::BodyTimeout);
        return response;
    }
    state.metrics.upstream_failed(failure);
    tracing::warn!(
        "upstream {upstream} failed ({failure:?}): {detail} [request_id \"{}\"]",
        id.as_str()
    );
    let response = match failure {
        UpstreamFailure::Timeout => responses::gateway_timeout(id),
        UpstreamFailure::Unavailable | UpstreamFailure::ClientBody => responses::bad_gateway(id),
    };
    record.set_action(Action::UpstreamError);
    response
}

/// What an idempotent request is sent again from.
struct Replay {
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Option<Bytes>,
}

impl Replay {
    /// A copy to send again on another server after a reset before the response head: for idempotent methods
    /// only (RFC 9110 9.2.2: sending one twice has the effect of once), with a body already read whole, and only
    /// when there is another server to try.
    fn of(
        parts: &Parts,
        body: &ProxyBody,
        destination: &Destination<'_>,
        retries: usize,
    ) -> Option<Replay> {
        if retries == 0
            || destination.pool.servers.len() < 2
            || destination.upgrade
            || !parts.method.is_idempotent()
        {
            return None;
        }
        match body {
            ProxyBody::Full(bytes) => Some(Replay {
                method: parts.method.clone(),
                uri: parts.uri.clone(),
                headers: parts.headers.clone(),
                body: bytes.clone(),
            }),
            ProxyBody::Stream(_) | ProxyBody::Prefixed(..) | ProxyBody::Bounded(..) => None,
        }
    }

    fn request(&self) -> Request<ProxyBody> {
        let mut req = Request::new(ProxyBody::Full(self.body.clone()));
        *req.method_mut() = self.method.clone();
        *req.uri_mut() = self.uri.clone();
        *req.headers_mut() = self.headers.clone();
        req
    }
}

/// The `Host` for `upstream`: the domain's `upstream_host` when set, else the client's, or (from an HTTP/1.0
/// client without one) the upstream's. The client's stays in X-Forwarded-Host either way.
fn upstream_host_header(
    configured: Option<&UpstreamHost>,
    client: &RequestHost,
    upstream: &UpstreamUrl,
) -> HeaderValue {
    let upstream_authority = || {
        HeaderValue::from_str(upstream.authority().as_str())
            .unwrap_or_else(|_| HeaderValue::from_static("localhost"))
    };
    match (configured, &client.raw) {
        // Checked as a host name when the configuration was read, so always a valid header value.
        (Some(UpstreamHost::Fixed(fixed)), _) => {
            HeaderValue::from_str(fixed).unwrap_or_else(|_| upstream_authority())
        }
        (Some(UpstreamHost::Upstream), _) | (None, None) => upstream_authority(),
        (None, Some(raw)) => raw.clone(),
    }
}

/// The target sent upstream: the request's own path and query (`/` when it has none). An absolute-form target
/// (`GET http://host/p`) loses its scheme and host: those were the client's to write, and the upstream is chosen
/// by configuration only.
fn origin_form(target: Uri) -> Uri {
    let path_and_query = target
        .into_parts()
        .path_and_query
        .unwrap_or_else(|| PathAndQuery::from_static("/"));
    Uri::from(path_and_query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_upstream_gets_the_origin_form_target() {
        let target = |t: &str| origin_form(t.parse().unwrap()).to_string();
        assert_eq!(target("/a?b=1"), "/a?b=1");
        assert_eq!(target("http://elsewhere:9/p?q"), "/p?q");
        assert_eq!(target("http://elsewhere:9"), "/");
        assert_eq!(target("*"), "*");
    }
}
