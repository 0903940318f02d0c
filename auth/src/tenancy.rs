//! Tenancy: every request belongs to the authority whose `domain` is the request's host (lower-case, port
//! stripped). Only the `Host` header (or the absolute request URI) names it: `X-Forwarded-Host` is not read, so a
//! client cannot pick a tenant other than the one its URL names.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Uri, header};

use crate::error::AppError;
use crate::state::AppState;
use crate::store::Authority;

/// Host names are at most 253 characters; a longer header is not a host we serve.
const MAX_HOST_LEN: usize = 253;

/// The request's authority and the host that named it.
pub struct Tenant {
    pub authority: Authority,
    pub host: String,
}

/// The request's host, lower-case and without port; `None` when absent or not a host name.
pub fn request_host(headers: &HeaderMap, uri: &Uri) -> Option<String> {
    let raw = match headers.get(header::HOST) {
        Some(value) => value.to_str().ok()?,
        None => uri.host()?,
    };
    let host = if let Some(rest) = raw.strip_prefix('[') {
        &raw[..rest.find(']')? + 2]
    } else {
        match raw.rsplit_once(':') {
            Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
            _ => raw,
        }
    };
    let valid = !host.is_empty()
        && host.len() <= MAX_HOST_LEN
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.[]:_".contains(&b));
    valid.then(|| host.to_ascii_lowercase())
}

/// The authority of the request, or 404 `authority not found for host <h>`.
pub async fn resolve(state: &AppState, headers: &HeaderMap, uri: &Uri) -> Result<Tenant, AppError> {
    let Some(host) = request_host(headers, uri) else {
        return Err(AppError::BadRequest(
            "missing or invalid Host header".into(),
        ));
    };
    if let Some(authority) = state.authorities.get(&host) {
        return Ok(Tenant { authority, host });
    }
    match state.store.authority_by_domain(&host).await? {
        Some(authority) => {
            state.authorities.put(host.clone(), authority.clone());
            Ok(Tenant { authority, host })
        }
        None => Err(AppError::UnknownAuthority(host)),
    }
}

/// Handlers that serve only known tenants take a `Tenant` argument; the lookup (and its 404) happens before them.
impl FromRequestParts<Arc<AppState>> for Tenant {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, AppError> {
        resolve(state, &parts.headers, &parts.uri).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(value: &str) -> Option<String> {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, value.parse().unwrap());
        request_host(&headers, &Uri::from_static("/"))
    }

    #[test]
    fn strips_port_and_lowercases() {
        assert_eq!(host("Acme.Test:8080").as_deref(), Some("acme.test"));
        assert_eq!(host("acme.test").as_deref(), Some("acme.test"));
        assert_eq!(host("[::1]:3000").as_deref(), Some("[::1]"));
        assert_eq!(host("a b"), None);
        assert_eq!(host(""), None);
        assert_eq!(host(&"a".repeat(300)), None);
    }
}
