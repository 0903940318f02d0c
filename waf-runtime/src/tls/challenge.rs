//! HTTP-01 challenges: the ACME server fetches `http://<domain>/.well-known/acme-challenge/<token>` on the HTTP
//! port and expects the key authorization the order gave us for that token.
//!
//! Tokens live in memory only, for the duration of their order (`acme.rs`). The request is answered before
//! inspection and before a `force_https` redirect; only GET and HEAD, and only an exact token of the ACME alphabet
//! (base64url): the path is never a file name, so `../` or an encoded slash can name nothing but a 404.
use crate::body::ProxyBody;
use crate::responses;
use http::{HeaderValue, Method, Response, StatusCode, header};
use std::collections::HashMap;
use std::sync::RwLock;

pub const PATH_PREFIX: &str = "/.well-known/acme-challenge/";

/// The tokens of the orders in progress and their key authorizations.
#[derive(Debug, Default)]
pub struct Challenges(RwLock<HashMap<String, String>>);

impl Challenges {
    pub fn insert(&self, token: &str, key_authorization: &str) {
        self.write()
            .insert(token.to_string(), key_authorization.to_string());
    }

    pub fn remove(&self, token: &str) {
        self.write().remove(token);
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<String, String>> {
        // A panic while holding this lock cannot leave the map half-changed: keep serving it.
        self.0.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The answer to a request for `path` (which starts with `PATH_PREFIX`).
    pub fn answer(&self, method: &Method, path: &str) -> Response<ProxyBody> {
        if *method != Method::GET && *method != Method::HEAD {
            let mut response = responses::json(
                StatusCode::METHOD_NOT_ALLOWED,
                &serde_json::json!({"error": "method not allowed"}),
            );
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            return response;
        }
        let token = &path[PATH_PREFIX.len()..];
        let known = is_token(token)
            .then(|| {
                let map = self.0.read().unwrap_or_else(|e| e.into_inner());
                map.get(token).cloned()
            })
            .flatten();
        let Some(key_authorization) = known else {
            return responses::json(
                StatusCode::NOT_FOUND,
                &serde_json::json!({"error": "unknown challenge token"}),
            );
        };
        let mut response = Response::new(ProxyBody::full(key_authorization));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/octet-stream"),
        );
        response
    }
}

/// RFC 8555 §8.3: a token is base64url without padding. Anything else is refused before any lookup.
fn is_token(token: &str) -> bool {
    // Real tokens are 43 characters (32 random bytes); the bound only keeps a long path from being looked up.
    !token.is_empty()
        && token.len() <= 128
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_known_tokens_of_the_acme_alphabet_are_answered() {
        let c = Challenges::default();
        c.insert("tok_EN-1", "tok_EN-1.thumb");
        let status = |m: Method, p: &str| c.answer(&m, p).status();
        assert_eq!(
            status(Method::GET, "/.well-known/acme-challenge/tok_EN-1"),
            StatusCode::OK
        );
        assert_eq!(
            status(Method::HEAD, "/.well-known/acme-challenge/tok_EN-1"),
            StatusCode::OK
        );
        for path in [
            "/.well-known/acme-challenge/",
            "/.well-known/acme-challenge/tok_EN-",
            "/.well-known/acme-challenge/tok_EN-1/",
            "/.well-known/acme-challenge/../tok_EN-1",
            "/.well-known/acme-challenge/..%2ftok_EN-1",
            "/.well-known/acme-challenge/tok_EN-1.thumb",
        ] {
            assert_eq!(status(Method::GET, path), StatusCode::NOT_FOUND, "{path}");
        }
        assert_eq!(
            status(Method::POST, "/.well-known/acme-challenge/tok_EN-1"),
            StatusCode::METHOD_NOT_ALLOWED
        );
        c.remove("tok_EN-1");
        assert_eq!(
            status(Method::GET, "/.well-known/acme-challenge/tok_EN-1"),
            StatusCode::NOT_FOUND
        );
    }
}
