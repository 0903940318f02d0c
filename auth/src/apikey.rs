//! API keys: `{id}.{secret}` from the `X-API-Key` header, the `api-key` query parameter or the `api-key` cookie
//! (checked in that order, and before any Bearer token).
//!
//! The table stores `hex(HMAC-SHA512(key = secret, data = id))`, never the secret, so a leaked table yields no usable
//! key. Verification recomputes the MAC and compares it in constant time (`Mac::verify_slice`). The key must belong
//! to the request's authority. A well-formed key whose id the local table does not know is asked of the legacy
//! service at `SVC_URI`, with the same `X-API-Key` and `Host`, under a timeout; any answer but 2xx refuses it.

use std::time::Duration;

use axum::http::{HeaderMap, Uri};
use axum_extra::extract::cookie::CookieJar;
use chrono::Utc;
use hmac::{Hmac, Mac};
use sha2::Sha512;

use crate::error::AppError;
use crate::state::AppState;
use crate::tenancy::Tenant;

const HEADER: &str = "x-api-key";
const PARAM: &str = "api-key";
/// Longest key considered at all: ids are 32 hex digits, secrets 64; anything far longer is not a key.
const MAX_KEY_LEN: usize = 512;
/// The `SVC_URI` fallback gives up after this, answering 401 rather than holding the request.
const SVC_TIMEOUT: Duration = Duration::from_secs(3);

pub const UNKNOWN: &str = "unknown X-API-Key";
pub const EXPIRED: &str = "API key has expired";

/// The key the request presents, if any.
pub fn presented(headers: &HeaderMap, uri: &Uri) -> Option<String> {
    if let Some(value) = headers.get(HEADER) {
        return Some(String::from_utf8_lossy(value.as_bytes()).into_owned());
    }
    let from_query = uri.query().and_then(|q| {
        url::form_urlencoded::parse(q.as_bytes())
            .find(|(k, _)| k == PARAM)
            .map(|(_, v)| v.into_owned())
    });
    from_query.or_else(|| {
        CookieJar::from_headers(headers)
            .get(PARAM)
            .map(|c| c.value().to_string())
    })
}

/// The stored form of a key's secret.
pub fn digest(id: &str, secret: &str) -> String {
    hex::encode(mac(id, secret).finalize().into_bytes())
}

fn mac(id: &str, secret: &str) -> Hmac<Sha512> {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac =
        Hmac::<Sha512>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(id.as_bytes());
    mac
}

/// Splits `{id}.{secret}`; `None` unless both parts are non-empty and the id is made of safe characters.
fn parse(key: &str) -> Option<(&str, &str)> {
    if key.len() > MAX_KEY_LEN {
        return None;
    }
    let (id, secret) = key.trim().split_once('.')?;
    let id_ok = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    (id_ok && !secret.is_empty()).then_some((id, secret))
}

/// Checks a presented key for the request's authority: when valid, the id of the user the local table ties it to
/// (`None` for a key without a user, or one only `SVC_URI` vouched for); else the 401 to answer.
pub async fn verify(
    state: &AppState,
    tenant: &Tenant,
    key: &str,
) -> Result<Option<String>, AppError> {
    let Some((id, secret)) = parse(key) else {
        return Err(AppError::Unauthorized(UNKNOWN));
    };
    let Some(stored) = state.store.api_key_by_id(id).await? else {
        return verify_remotely(state, tenant, key).await;
    };
    let Ok(expected) = hex::decode(&stored.secret) else {
        tracing::warn!(api_key_id = %stored.id, "api_key.secret is not hex: key refused");
        return Err(AppError::Unauthorized(UNKNOWN));
    };
    if mac(id, secret).verify_slice(&expected).is_err()
        || stored.authority_id != tenant.authority.id
    {
        return Err(AppError::Unauthorized(UNKNOWN));
    }
    if stored.expires_at.is_some_and(|at| at <= Utc::now()) {
        return Err(AppError::Unauthorized(EXPIRED));
    }
    Ok(stored.user_id)
}

async fn verify_remotely(
    state: &AppState,
    tenant: &Tenant,
    key: &str,
) -> Result<Option<String>, AppError> {
    let Some(svc) = &state.config.svc_uri else {
        return Err(AppError::Unauthorized(UNKNOWN));
    };
    let uri = format!("{svc}/api/engine/v2/api_keys/inspect");
    let headers = [("x-api-key", key), ("host", tenant.host.as_str())];
    match crate::http_client::get_status(&state.http, &uri, &headers, SVC_TIMEOUT).await {
        Ok(status) if status.is_success() => Ok(None),
        Ok(_) => Err(AppError::Unauthorized(UNKNOWN)),
        Err(e) => {
            tracing::warn!(error = %e, "SVC_URI API key inspection failed: key refused");
            Err(AppError::Unauthorized(UNKNOWN))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_digests() {
        assert_eq!(parse("abc.def"), Some(("abc", "def")));
        assert_eq!(parse("abc.d.ef"), Some(("abc", "d.ef")));
        for bad in ["", "abc", ".def", "abc.", "a/b.c", &"a".repeat(600)] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        // Known answer from Python's hmac module: key = secret, data = id.
        assert_eq!(
            digest("id1", "s3cret"),
            "c42bf2d1e5ddfdb5b4794fa4fe5751dd4dabe7ed2ee689eed5eb79268e311d6a\
             f4e86c1330c433ec81faf35f586c5ba1b3abf8a50bbad6700e6b553121820c7a"
        );
    }
}
