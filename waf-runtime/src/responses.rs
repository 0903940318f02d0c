//! The answers the proxy writes itself, all JSON, all in one place so their shapes stay consistent.
//!
//! Error bodies never carry internal detail (upstream addresses, error chains): those go to the log. Each carries
//! the request's id (`request_id`), which a user can quote and an operator find in the logs.
use crate::body::ProxyBody;
use crate::framing::Refusal;
use crate::request_id::RequestId;
use http::{HeaderValue, Response, StatusCode, header};
use serde_json::json;

pub fn json(status: StatusCode, value: &serde_json::Value) -> Response<ProxyBody> {
    let mut response = Response::new(ProxyBody::full(value.to_string()));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// 403: `{error, rule_id, message}` as specified (the rule that decided, and its message), with what led to it:
/// `rule_ids`, every rule that matched the request, and `anomaly_score`, the sum of the `block` rules' scores
/// (a `deny` rule blocks whatever the score).
pub fn blocked(
    rule_id: u64,
    message: &str,
    anomaly_score: u32,
    rule_ids: &[u64],
    id: &RequestId,
) -> Response<ProxyBody> {
    json(
        StatusCode::FORBIDDEN,
        &json!({
            "error": "forbidden",
            "rule_id": rule_id,
            "message": message,
            "anomaly_score": anomaly_score,
            "rule_ids": rule_ids,
            "request_id": id.as_str(),
        }),
    )
}

/// A request refused before inspection. The connection is closed after the answer: once a client's framing
/// is in doubt, so is where its next request would start.
pub fn refused(refusal: Refusal, id: &RequestId) -> Response<ProxyBody> {
    let error = refusal
        .status
        .canonical_reason()
        .unwrap_or("refused")
        .to_ascii_lowercase();
    let mut response = json(
        refusal.status,
        &json!({"error": error, "message": refusal.reason, "request_id": id.as_str()}),
    );
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

pub fn body_too_large(limit: usize, id: &RequestId) -> Response<ProxyBody> {
    json(
        StatusCode::PAYLOAD_TOO_LARGE,
        &json!({
            "error": "payload too large",
            "message": format!("request body exceeds {limit} bytes"),
            "request_id": id.as_str(),
        }),
    )
}

pub fn body_timeout(id: &RequestId) -> Response<ProxyBody> {
    json(
        StatusCode::REQUEST_TIMEOUT,
        &json!({
            "error": "request timeout",
            "message": "request body not received in time",
            "request_id": id.as_str(),
        }),
    )
}

pub fn bad_gateway(id: &RequestId) -> Response<ProxyBody> {
    json(
        StatusCode::BAD_GATEWAY,
        &json!({"error": "bad gateway", "message": "upstream unavailable", "request_id": id.as_str()}),
    )
}

/// 502 for an answer the response rules withheld (`response_inspection.rs`). 502 rather than ModSecurity's 403
/// (CRS's `deny` in phase 4 answers the configured status, 403 by default): the client asked for nothing wrong,
/// the upstream answered what may not go out. The body names neither the rules nor anything of the original:
/// the request id finds the log lines that do.
pub fn response_withheld(id: &RequestId) -> Response<ProxyBody> {
    json(
        StatusCode::BAD_GATEWAY,
        &json!({
            "error": "bad gateway",
            "message": "the upstream's answer was withheld",
            "request_id": id.as_str(),
        }),
    )
}

pub fn gateway_timeout(id: &RequestId) -> Response<ProxyBody> {
    json(
        StatusCode::GATEWAY_TIMEOUT,
        &json!({
            "error": "gateway timeout",
            "message": "upstream did not answer in time",
            "request_id": id.as_str(),
        }),
    )
}

/// 403 from the IP lists or GeoIP: `{error, reason, message}`, `reason` one of `ip_denied`, `ip_not_allowed`,
/// `country_denied`. The body names neither the address nor the country: the client knows the first, and the
/// second is the operator's business.
pub fn traffic_forbidden(reason: &str, id: &RequestId) -> Response<ProxyBody> {
    let message = match reason {
        "ip_denied" => "the client address is on a deny list",
        "ip_not_allowed" => "the client address is not on the allow list",
        _ => "requests from this location are not accepted",
    };
    json(
        StatusCode::FORBIDDEN,
        &json!({"error": "forbidden", "reason": reason, "message": message, "request_id": id.as_str()}),
    )
}

/// 429 with `Retry-After` and the `RateLimit-Limit`, `-Remaining`, `-Reset` headers (seconds, rounded up, at
/// least 1 so a client never retries at once).
pub fn rate_limited(
    limit: u32,
    retry_after: std::time::Duration,
    id: &RequestId,
) -> Response<ProxyBody> {
    let secs = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
    let secs = secs.max(1);
    let mut response = json(
        StatusCode::TOO_MANY_REQUESTS,
        &json!({
            "error": "too many requests",
            "reason": "rate_limited",
            "retry_after": secs,
            "request_id": id.as_str(),
        }),
    );
    let headers = response.headers_mut();
    headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
    headers.insert("ratelimit-limit", HeaderValue::from(limit));
    headers.insert("ratelimit-remaining", HeaderValue::from_static("0"));
    headers.insert("ratelimit-reset", HeaderValue::from(secs));
    response
}

/// `force_https`: the same URL over HTTPS. 301 for GET and HEAD (what browsers and caches expect), 308 for other
/// methods, which must be repeated with the same method and body.
pub fn to_https(method: &http::Method, location: HeaderValue) -> Response<ProxyBody> {
    let status = match *method {
        http::Method::GET | http::Method::HEAD => StatusCode::MOVED_PERMANENTLY,
        _ => StatusCode::PERMANENT_REDIRECT,
    };
    let mut response = json(
        status,
        &json!({"error": "use https", "location": location.to_str().unwrap_or_default()}),
    );
    response.headers_mut().insert(header::LOCATION, location);
    response
}
