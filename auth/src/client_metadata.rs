//! The client metadata of a dynamic registration (RFC 7591 section 2), validated into what we store.
//!
//! Only public clients register themselves: agents and native apps cannot keep a secret, so they get none
//! (`token_endpoint_auth_method: none`) and the authorization endpoint requires PKCE of them. A redirect URI is
//! `https` (its host in `REGISTRATION_REDIRECT_HOSTS` when that is set) or `http` on a loopback address
//! (RFC 8252 section 7.3: a native app's local listener, unreachable from another machine), without a fragment
//! (RFC 6749 section 3.1.2). A self-registered client may ask for no more than [`REGISTRABLE_SCOPES`]: anyone can
//! register, so such a client must not hold what an operator grants with `auth client add`.

use crate::error::OAuthErrorCode;
use serde_json::{Map, Value};
use url::Url;

/// What a self-registered client may hold (`openid` is granted to every client of the code flow besides).
pub const REGISTRABLE_SCOPES: &[&str] = &["public"];
/// The scope a client gets when it asks for none.
const DEFAULT_SCOPE: &str = "public";
/// More redirect URIs than an agent needs is not an agent.
const MAX_REDIRECT_URIS: usize = 10;
/// Longer than any browser's address bar shows.
const MAX_URI_LEN: usize = 2000;
/// A display name, not a document.
const MAX_NAME_CHARS: usize = 200;
/// The name of a client that gave none.
const DEFAULT_NAME: &str = "dynamically registered client";

/// A registration refused: `invalid_redirect_uri` or `invalid_client_metadata` (RFC 7591 section 3.2.2).
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum MetadataError {
    #[error("{0}")]
    RedirectUri(String),
    #[error("{0}")]
    Metadata(String),
}

impl MetadataError {
    pub fn code(&self) -> OAuthErrorCode {
        match self {
            MetadataError::RedirectUri(_) => OAuthErrorCode::InvalidRedirectUri,
            MetadataError::Metadata(_) => OAuthErrorCode::InvalidClientMetadata,
        }
    }
}

/// A registration as accepted.
#[derive(Debug, PartialEq)]
pub struct ClientMetadata {
    pub redirect_uris: Vec<String>,
    pub client_name: String,
    /// Space-separated.
    pub scope: String,
}

fn metadata(message: impl Into<String>) -> MetadataError {
    MetadataError::Metadata(message.into())
}

/// Validates a registration request's JSON body; `allowed_hosts` empty allows any https host.
pub fn validate(body: &[u8], allowed_hosts: &[String]) -> Result<ClientMetadata, MetadataError> {
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(body) else {
        return Err(metadata("the body must be a JSON object"));
    };
    let redirect_uris = redirect_uris(&fields, allowed_hosts)?;
    if let Some(method) = fields.get("token_endpoint_auth_method")
        && method != "none"
    {
        return Err(metadata(
            "token_endpoint_auth_method must be none: registered clients are public",
        ));
    }
    only_from(
        &fields,
        "grant_types",
        &["authorization_code", "refresh_token"],
    )?;
    only_from(&fields, "response_types", &["code"])?;
    let client_name = match fields.get("client_name") {
        None | Some(Value::Null) => DEFAULT_NAME.to_string(),
        Some(Value::String(name))
            if !name.trim().is_empty()
                && name.chars().count() <= MAX_NAME_CHARS
                && !name.chars().any(char::is_control) =>
        {
            name.trim().to_string()
        }
        Some(_) => {
            return Err(metadata(format!(
                "client_name must be text of 1 to {MAX_NAME_CHARS} characters without control characters"
            )));
        }
    };
    let scope = match fields.get("scope") {
        None | Some(Value::Null) => DEFAULT_SCOPE.to_string(),
        Some(Value::String(scope)) => {
            let words: Vec<&str> = scope.split_whitespace().collect();
            if let Some(refused) = words
                .iter()
                .find(|w| !REGISTRABLE_SCOPES.contains(w) && **w != "openid")
            {
                return Err(metadata(format!("scope {refused} cannot be registered")));
            }
            let granted: Vec<&str> = words.into_iter().filter(|w| *w != "openid").collect();
            if granted.is_empty() {
                DEFAULT_SCOPE.to_string()
            } else {
                granted.join(" ")
            }
        }
        Some(_) => return Err(metadata("scope must be a string")),
    };
    Ok(ClientMetadata {
        redirect_uris,
        client_name,
        scope,
    })
}

/// `name`, when present, is an array of strings each in `allowed`.
fn only_from(
    fields: &Map<String, Value>,
    name: &str,
    allowed: &[&str],
) -> Result<(), MetadataError> {
    let Some(value) = fields.get(name) else {
        return Ok(());
    };
    let Some(items) = value.as_array() else {
        return Err(metadata(format!("{name} must be an array")));
    };
    for item in items {
        match item.as_str() {
            Some(v) if allowed.contains(&v) => {}
            _ => {
                return Err(metadata(format!(
                    "{name} may hold only {}",
                    allowed.join(", ")
                )));
            }
        }
    }
    Ok(())
}

fn redirect_uris(
    fields: &Map<String, Value>,
    allowed_hosts: &[String],
) -> Result<Vec<String>, MetadataError> {
    let refused = |m: String| MetadataError::RedirectUri(m);
    let Some(Value::Array(items)) = fields.get("redirect_uris") else {
        return Err(refused("redirect_uris must be a non-empty array".into()));
    };
    if items.is_empty() || items.len() > MAX_REDIRECT_URIS {
        return Err(refused(format!(
            "redirect_uris must hold 1 to {MAX_REDIRECT_URIS} URIs"
        )));
    }
    let mut uris = Vec::with_capacity(items.len());
    for item in items {
        let Some(uri) = item.as_str().filter(|u| u.len() <= MAX_URI_LEN) else {
            return Err(refused(
                "each redirect URI must be a string of at most 2000 characters".into(),
            ));
        };
        check_redirect_uri(uri, allowed_hosts).map_err(|why| refused(format!("{uri}: {why}")))?;
        // Stored whitespace-separated, so a URI must not hold whitespace (a parsed URL never does unencoded).
        if uri.chars().any(char::is_whitespace) {
            return Err(refused(format!("{uri}: whitespace")));
        }
        uris.push(uri.to_string());
    }
    Ok(uris)
}

/// Why `uri` cannot be a registered client's redirect URI, if it cannot.
fn check_redirect_uri(uri: &str, allowed_hosts: &[String]) -> Result<(), &'static str> {
    let url = Url::parse(uri).map_err(|_| "not an absolute URI")?;
    if url.fragment().is_some() {
        return Err("a redirect URI must not have a fragment");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("a redirect URI must not carry credentials");
    }
    let host = url.host_str().ok_or("a redirect URI needs a host")?;
    match url.scheme() {
        "http" if is_loopback(host) => Ok(()),
        "http" => Err("http is allowed on loopback addresses only (RFC 8252)"),
        "https" if allowed_hosts.is_empty() || allowed_hosts.iter().any(|h| h == host) => Ok(()),
        "https" => Err("the host is not one of the allowed redirect hosts"),
        _ => Err("the scheme must be https, or http on a loopback address"),
    }
}

/// `127.0.0.0/8`, `[::1]`, and `localhost` (which RFC 8252 section 8.3 discourages but agents use).
fn is_loopback(host: &str) -> bool {
    if host == "localhost" {
        return true;
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(body: Value, hosts: &[&str]) -> Result<ClientMetadata, MetadataError> {
        let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
        validate(body.to_string().as_bytes(), &hosts)
    }

    #[test]
    fn accepts_https_and_loopback_http() {
        let accepted = check(
            json!({"redirect_uris": ["https://agent.example/cb", "http://127.0.0.1:8123/cb",
                                     "http://[::1]/cb", "http://localhost:3030/callback"],
                   "client_name": " Agent ", "scope": "openid public",
                   "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                   "token_endpoint_auth_method": "none"}),
            &[],
        )
        .unwrap();
        assert_eq!(accepted.client_name, "Agent");
        assert_eq!(accepted.scope, "public");
        assert_eq!(accepted.redirect_uris.len(), 4);
        let minimal = check(json!({"redirect_uris": ["https://a.example/cb"]}), &[]).unwrap();
        assert_eq!(minimal.scope, "public");
        assert_eq!(minimal.client_name, DEFAULT_NAME);
    }

    #[test]
    fn refuses_bad_redirect_uris() {
        for uris in [
            json!(null),
            json!([]),
            json!("https://a.example/cb"),
            json!(["http://agent.example/cb"]),
            json!(["http://127.0.0.1.evil.example/cb"]),
            json!(["https://a.example/cb#frag"]),
            json!(["https://user:pw@a.example/cb"]),
            json!(["javascript:alert(1)"]),
            json!(["com.example.app:/cb"]),
            json!(["/relative"]),
            json!([1]),
            json!(vec!["https://a.example/cb"; 11]),
        ] {
            let err = check(json!({ "redirect_uris": uris }), &[]).unwrap_err();
            assert_eq!(err.code().as_str(), "invalid_redirect_uri", "{uris}: {err}");
        }
        let err = check(
            json!({"redirect_uris": ["https://other.example/cb"]}),
            &["agent.example"],
        )
        .unwrap_err();
        assert_eq!(err.code().as_str(), "invalid_redirect_uri");
        assert!(
            check(
                json!({"redirect_uris": ["https://agent.example/cb"]}),
                &["agent.example"]
            )
            .is_ok()
        );
        assert!(
            check(
                json!({"redirect_uris": ["http://127.0.0.1:9/cb"]}),
                &["agent.example"]
            )
            .is_ok()
        );
    }

    #[test]
    fn refuses_bad_metadata() {
        let uris = json!(["https://a.example/cb"]);
        for extra in [
            json!({"token_endpoint_auth_method": "client_secret_basic"}),
            json!({"grant_types": ["client_credentials"]}),
            json!({"grant_types": "authorization_code"}),
            json!({"response_types": ["token"]}),
            json!({"scope": "admin"}),
            json!({"scope": 3}),
            json!({"client_name": ""}),
            json!({"client_name": "a\u{0}b"}),
            json!({"client_name": "x".repeat(201)}),
        ] {
            let mut body = extra.clone();
            body["redirect_uris"] = uris.clone();
            let err = check(body, &[]).unwrap_err();
            assert_eq!(
                err.code().as_str(),
                "invalid_client_metadata",
                "{extra}: {err}"
            );
        }
        for body in [&b"[]"[..], b"not json", b""] {
            assert_eq!(
                validate(body, &[]).unwrap_err().code().as_str(),
                "invalid_client_metadata"
            );
        }
    }
}
