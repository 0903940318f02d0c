//! OAuth 2.0 request parameters and client authentication at the token endpoint.
//!
//! Parameters come from the form body merged over the query string; a parameter given twice is refused
//! (RFC 6749 section 3.2), so two parts of a stack cannot read different values. A client authenticates with HTTP
//! Basic (`client_secret_basic`, id and secret form-url-encoded first, per RFC 6749 section 2.3.1) or with
//! `client_id` + `client_secret` in the body (`client_secret_post`), never both. Secrets are compared in constant
//! time, and a client authenticates only within its own authority.

use std::collections::HashMap;

use axum::http::{HeaderMap, Uri, header};
use base64::Engine;
use subtle::ConstantTimeEq;

use crate::error::OAuthError;
use crate::state::AppState;
use crate::store::OAuthApplication;
use crate::tenancy::Tenant;

/// More parameters than any OAuth request needs is not an OAuth request.
const MAX_PARAMS: usize = 32;

pub struct Params(HashMap<String, String>);

impl Params {
    pub fn parse(uri: &Uri, headers: &HeaderMap, body: &[u8]) -> Result<Self, OAuthError> {
        let form = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| {
                ct.trim_start()
                    .to_ascii_lowercase()
                    .starts_with("application/x-www-form-urlencoded")
            });
        if !body.is_empty() && !form {
            return Err(OAuthError::invalid_request(
                "the body must be application/x-www-form-urlencoded",
            ));
        }
        let mut params = HashMap::new();
        for source in [uri.query().unwrap_or_default().as_bytes(), body] {
            let mut seen_here = HashMap::new();
            for (name, value) in url::form_urlencoded::parse(source) {
                if seen_here.insert(name.to_string(), ()).is_some() {
                    return Err(OAuthError::invalid_request(format!(
                        "parameter {name} given more than once"
                    )));
                }
                // The body wins over the query string.
                params.insert(name.into_owned(), value.into_owned());
                if params.len() > MAX_PARAMS {
                    return Err(OAuthError::invalid_request("too many parameters"));
                }
            }
        }
        Ok(Params(params))
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// The credentials a client presented: `(client_id, secret)`.
fn presented(
    headers: &HeaderMap,
    params: &Params,
) -> Result<Option<(String, Option<String>)>, OAuthError> {
    let basic = match headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        Some(value) if value.len() > 6 && value[..6].eq_ignore_ascii_case("basic ") => {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(value[6..].trim())
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .ok_or_else(OAuthError::invalid_client)?;
            let (id, secret) = decoded
                .split_once(':')
                .ok_or_else(OAuthError::invalid_client)?;
            let unescape = |s: &str| {
                url::form_urlencoded::parse(format!("x={s}").as_bytes())
                    .next()
                    .map(|(_, v)| v.into_owned())
            };
            Some((unescape(id).unwrap_or_default(), unescape(secret)))
        }
        _ => None,
    };
    match (basic, params.get("client_id"), params.get("client_secret")) {
        (Some(_), _, Some(_)) => Err(OAuthError::invalid_request(
            "use one client authentication method, not two",
        )),
        (Some(basic), Some(id), None) if id != basic.0 => {
            Err(OAuthError::invalid_request("client_id differs from Basic"))
        }
        (Some(basic), _, None) => Ok(Some(basic)),
        (None, Some(id), secret) => Ok(Some((id.to_string(), secret.map(str::to_string)))),
        (None, None, Some(_)) => Err(OAuthError::invalid_request(
            "client_secret without client_id",
        )),
        (None, None, None) => Ok(None),
    }
}

/// The client of the request, authenticated: a confidential client must prove its secret; a public client may
/// only name itself. `Ok(None)` when no client is named at all.
pub async fn authenticate(
    state: &AppState,
    tenant: &Tenant,
    headers: &HeaderMap,
    params: &Params,
) -> Result<Option<OAuthApplication>, OAuthError> {
    let Some((client_id, secret)) = presented(headers, params)? else {
        return Ok(None);
    };
    // Read at every request, never cached: a secret changed or a client removed must stop working at once on every
    // replica (a primary-key lookup; the token endpoint's cost is the signature).
    let app = state.store.application_by_uid(&client_id).await?;
    let Some(app) = app.filter(|a| a.owner_id.as_deref() == Some(tenant.authority.id.as_str()))
    else {
        return Err(OAuthError::invalid_client());
    };
    let proven = match (&secret, app.confidential) {
        (Some(secret), _) => bool::from(secret.as_bytes().ct_eq(app.secret.as_bytes())),
        (None, confidential) => !confidential,
    };
    if !proven {
        return Err(OAuthError::invalid_client());
    }
    Ok(Some(app))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(body: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_TYPE,
            "application/x-www-form-urlencoded".parse().unwrap(),
        );
        if !body.is_empty() {
            h.insert(header::AUTHORIZATION, body.parse().unwrap());
        }
        h
    }

    #[test]
    fn merges_query_and_body_and_refuses_repeats() {
        let uri: Uri = "/auth/token?scope=a&grant_type=x".parse().unwrap();
        let params = Params::parse(&uri, &form(""), b"grant_type=client_credentials").unwrap();
        assert_eq!(params.get("grant_type"), Some("client_credentials"));
        assert_eq!(params.get("scope"), Some("a"));
        assert!(Params::parse(&uri, &form(""), b"a=1&a=2").is_err());
        assert!(
            Params::parse(&uri, &HeaderMap::new(), b"{}").is_err(),
            "JSON body"
        );
    }

    #[test]
    fn reads_basic_and_post_credentials() {
        let uri: Uri = "/auth/token".parse().unwrap();
        let basic = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode("my%20id:s%3Acret")
        );
        let params = Params::parse(&uri, &form(""), b"").unwrap();
        assert_eq!(
            presented(&form(&basic), &params).unwrap(),
            Some(("my id".into(), Some("s:cret".into())))
        );
        let post = Params::parse(&uri, &form(""), b"client_id=c&client_secret=s").unwrap();
        assert_eq!(
            presented(&form(""), &post).unwrap(),
            Some(("c".into(), Some("s".into())))
        );
        assert!(presented(&form(&basic), &post).is_err(), "two methods");
        assert!(presented(&form("Basic !!!"), &params).is_err());
    }
}
