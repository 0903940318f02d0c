//! The authorization code flow (RFC 6749 section 4.1, with PKCE, RFC 7636): `/auth/authorize` sends a signed-in
//! user's browser back to the client with a code, and the token endpoint redeems the code once.
//!
//! - Redirect URIs compare exactly with a registered one: any tolerance (case, prefix, added query) would let a
//!   crafted URI receive codes. Until the redirect URI is known good, errors are shown, never redirected.
//! - Codes are 256-bit random strings of which only the SHA-256 is stored (as the row's `jti`), so a leaked table
//!   redeems nothing. A code lives 10 minutes and redeems once: `use_token` stamps it atomically, and a second
//!   redemption revokes everything the first issued, since the code has evidently leaked (RFC 6749 section 4.1.2).
//! - PKCE is S256 only (`plain` protects nothing against an observer of the request) and mandatory for public
//!   clients, which have no secret to prove the redemption is theirs. A stored challenge makes the verifier mandatory.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use base64::Engine;
use chrono::{Duration, Utc};
use serde_json::Value;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::oauth_server::{self, OPENID};
use super::{oidc, refresh, see_other};
use crate::client_auth::Params;
use crate::error::{OAuthError, OAuthErrorCode};
use crate::state::AppState;
use crate::store::{OAuthApplication, TokenRecord};
use crate::tenancy::Tenant;

/// Codes live 10 minutes: long enough for a slow redirect, short enough that a leaked one soon expires.
const CODE_MINUTES: i64 = 10;
/// ID tokens prove a sign-in that just happened; they are not credentials to keep.
const ID_TOKEN_SECONDS: i64 = 120;
/// The user claims an ID token carries, besides `iss`, `aud`, `iat` and `exp`.
const ID_TOKEN_USER_CLAIMS: [&str; 4] = ["sub", "email", "full_name", "preferred_username"];
/// An S256 challenge is a SHA-256 digest: 43 base64url characters once padding is removed.
const S256_CHALLENGE_LEN: usize = 43;
/// A nonce is the client's random value; one far longer is not a nonce, and it is stored with the code.
const MAX_NONCE_LEN: usize = 512;
/// RFC 7636 section 4.1: a verifier has 43 to 128 characters (at least 256 bits of entropy).
const VERIFIER_LEN: std::ops::RangeInclusive<usize> = 43..=128;

pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/auth/authorize", get(authorize))
        .route("/auth/oauth/authorize", get(authorize))
}

/// Starts the code flow: 302 to `redirect_uri?code=..&state=..`, or 303 to the login when no one is signed in.
#[utoipa::path(
    get,
    path = "/auth/authorize",
    tag = "oauth",
    params(
        ("response_type" = String, Query, description = "`code`"),
        ("client_id" = String, Query),
        ("redirect_uri" = Option<String>, Query, description = "exactly a registered one (optional if only one is)"),
        ("scope" = Option<String>, Query),
        ("state" = Option<String>, Query, description = "echoed"),
        ("nonce" = Option<String>, Query, description = "repeated in the ID token"),
        ("code_challenge" = Option<String>, Query, description = "PKCE S256, padded or not; required of public clients"),
        ("code_challenge_method" = Option<String>, Query, description = "`S256`"),
    ),
    responses(
        (status = 302, description = "to the client with `code` and `state`, or with `error` and `state`"),
        (status = 303, description = "to `/auth/login?continue=<this URL>` when no one is signed in"),
        (status = 400, description = "unknown client or redirect URI not registered: not redirected"),
    )
)]
pub async fn authorize(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, OAuthError> {
    let params = Params::parse(&uri, &HeaderMap::new(), b"")?;
    let client_id = params
        .get("client_id")
        .ok_or_else(|| OAuthError::invalid_request("client_id is required"))?;
    let client = state
        .store
        .application_by_uid(client_id)
        .await?
        .filter(|a| a.owner_id.as_deref() == Some(tenant.authority.id.as_str()))
        .ok_or_else(|| OAuthError::invalid_request("unknown client_id"))?;
    let redirect_uri = registered_redirect(&client, params.get("redirect_uri"))?;
    let client_state = params.get("state");
    let refuse =
        |error: OAuthError| redirect_with(&redirect_uri, &error_pairs(&error, client_state));

    if params.get("response_type") != Some("code") {
        return Ok(refuse(OAuthError::new(
            StatusCode::BAD_REQUEST,
            OAuthErrorCode::UnsupportedResponseType,
            "only response_type=code is supported",
        )));
    }
    let scope = match oauth_server::granted_scope(&client, params.get("scope"), true) {
        Ok(scope) => scope,
        Err(error) => return Ok(refuse(error)),
    };
    let challenge = match pkce_challenge(&client, &params) {
        Ok(challenge) => challenge,
        Err(error) => return Ok(refuse(error)),
    };
    let nonce = params.get("nonce");
    if nonce.is_some_and(|n| n.len() > MAX_NONCE_LEN) {
        return Ok(refuse(OAuthError::invalid_request("nonce is too long")));
    }
    let session = state.cookies.read(&headers, &tenant.authority);
    let user = match session {
        Some(session) => session.user(state.store.as_ref()).await?,
        None => None,
    };
    let Some(user) = user else {
        let this = uri
            .path_and_query()
            .map(|p| p.as_str())
            .unwrap_or("/auth/authorize");
        let encoded: String = url::form_urlencoded::byte_serialize(this.as_bytes()).collect();
        return Ok(see_other(&format!("/auth/login?continue={encoded}")));
    };

    let code = crate::ids::random_token();
    let jti = code_hash(&code);
    let now = Utc::now();
    let record = TokenRecord {
        id: crate::ids::new_id(),
        jti: jti.clone(),
        token_type: "code".into(),
        client_id: Some(client.uid.clone()),
        sub: Some(user.id),
        scope: Some(scope.join(" ")),
        issued_at: now,
        expires_at: now + Duration::minutes(CODE_MINUTES),
        family: Some(jti),
        redirect_uri: Some(redirect_uri.clone()),
        code_challenge: challenge,
        nonce: nonce.map(str::to_string),
        ..TokenRecord::default()
    };
    state.store.insert_token(&record).await?;
    let mut pairs = vec![("code", code.as_str())];
    pairs.extend(client_state.map(|s| ("state", s)));
    Ok(redirect_with(&redirect_uri, &pairs))
}

/// The redirect URI to answer: the requested one when it equals a registered one exactly, or the only registered
/// one when none is requested. Anything else is shown as a 400, since redirecting to it is what must not happen.
fn registered_redirect(
    client: &OAuthApplication,
    requested: Option<&str>,
) -> Result<String, OAuthError> {
    let registered: Vec<&str> = client.redirect_uri.split_whitespace().collect();
    let chosen = match (requested, registered.as_slice()) {
        (Some(requested), _) => registered.iter().find(|r| **r == requested).copied(),
        (None, [only]) => Some(*only),
        (None, _) => None,
    };
    chosen
        // A registered URI that is not an absolute URL cannot carry a code either.
        .filter(|r| url::Url::parse(r).is_ok())
        .map(str::to_string)
        .ok_or_else(|| {
            OAuthError::invalid_request(
                "redirect_uri is not a registered redirect URI of this client",
            )
        })
}

/// The stored form of the request's PKCE challenge (unpadded base64url), if any.
fn pkce_challenge(
    client: &OAuthApplication,
    params: &Params,
) -> Result<Option<String>, OAuthError> {
    match (
        params.get("code_challenge"),
        params.get("code_challenge_method"),
    ) {
        (None, None) if client.confidential => Ok(None),
        (None, None) => Err(OAuthError::invalid_request(
            "public clients must send a PKCE code_challenge",
        )),
        (Some(challenge), Some("S256")) => {
            let challenge = challenge.trim_end_matches('=');
            let well_formed = challenge.len() == S256_CHALLENGE_LEN
                && challenge
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if well_formed {
                Ok(Some(challenge.to_string()))
            } else {
                Err(OAuthError::invalid_request(
                    "code_challenge is not a base64url SHA-256 digest",
                ))
            }
        }
        (None, Some(_)) => Err(OAuthError::invalid_request(
            "code_challenge_method without code_challenge",
        )),
        (Some(_), _) => Err(OAuthError::invalid_request(
            "code_challenge_method must be S256",
        )),
    }
}

/// `?error=..&error_description=..&state=..` for a redirected refusal.
fn error_pairs<'a>(error: &'a OAuthError, state: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut pairs = vec![("error", error.code.as_str())];
    pairs.extend(
        error
            .description
            .as_deref()
            .map(|d| ("error_description", d)),
    );
    pairs.extend(state.map(|s| ("state", s)));
    pairs
}

/// 302 to `target` (a registered, parseable redirect URI) with `pairs` added to its query.
fn redirect_with(target: &str, pairs: &[(&str, &str)]) -> Response {
    let location = match url::Url::parse(target) {
        Ok(mut url) => {
            url.query_pairs_mut().extend_pairs(pairs);
            url.to_string()
        }
        Err(_) => target.to_string(),
    };
    match HeaderValue::from_str(&location) {
        Ok(location) => (
            StatusCode::FOUND,
            [
                (header::LOCATION, location),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            ],
        )
            .into_response(),
        Err(_) => OAuthError::invalid_request("redirect_uri cannot be used").into_response(),
    }
}

/// The `jti` a code is stored under.
fn code_hash(code: &str) -> String {
    hex::encode(Sha256::digest(code.as_bytes()))
}

pub fn invalid_grant(description: &str) -> OAuthError {
    OAuthError::new(
        StatusCode::BAD_REQUEST,
        OAuthErrorCode::InvalidGrant,
        description,
    )
}

/// The `authorization_code` grant: checks the code, its client, redirect URI and PKCE verifier, spends it, and
/// issues an access token (and an ID token for `openid`).
pub async fn redeem_code(
    state: &Arc<AppState>,
    tenant: &Tenant,
    headers: &HeaderMap,
    client: OAuthApplication,
    params: &Params,
) -> Result<Response, OAuthError> {
    let code = params
        .get("code")
        .ok_or_else(|| OAuthError::invalid_request("code is required"))?;
    let jti = code_hash(code);
    let record = state
        .store
        .token_by_jti(&jti)
        .await?
        .filter(|r| r.token_type == "code" && r.client_id.as_deref() == Some(client.uid.as_str()))
        .ok_or_else(|| invalid_grant("unknown code"))?;
    let now = Utc::now();
    if record.revoked_at.is_some() || record.expires_at <= now {
        return Err(invalid_grant("the code has expired or was revoked"));
    }
    if record.used_at.is_some() {
        return Err(replayed(state, &jti).await);
    }
    if params.get("redirect_uri") != record.redirect_uri.as_deref() {
        return Err(invalid_grant(
            "redirect_uri differs from the authorization request's",
        ));
    }
    if let Some(challenge) = &record.code_challenge {
        let verifier = params
            .get("code_verifier")
            .ok_or_else(|| invalid_grant("code_verifier is required"))?;
        if !VERIFIER_LEN.contains(&verifier.len()) {
            return Err(invalid_grant("code_verifier must be 43 to 128 characters"));
        }
        let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(Sha256::digest(verifier.as_bytes()));
        if !bool::from(computed.as_bytes().ct_eq(challenge.as_bytes())) {
            return Err(invalid_grant("code_verifier does not match the challenge"));
        }
    }
    if !state.store.use_token(&jti, now).await? {
        // Redeemed concurrently: as much a replay as a later attempt.
        return Err(replayed(state, &jti).await);
    }
    let user = refresh::active_user(state, tenant, &record).await?;
    let scope = refresh::scope_of(&record);
    let mut body = refresh::issue_user_tokens(state, tenant, &client, &user, &scope, &jti).await?;
    let iat = now.timestamp();
    if scope.iter().any(|s| s == OPENID) {
        let mut id_claims = oidc::user_claims(&user);
        id_claims.retain(|name, _| ID_TOKEN_USER_CLAIMS.contains(&name.as_str()));
        id_claims.insert("iss".into(), oidc::issuer(headers, tenant).into());
        id_claims.insert("aud".into(), client.uid.clone().into());
        id_claims.insert("iat".into(), iat.into());
        id_claims.insert("exp".into(), (iat + ID_TOKEN_SECONDS).into());
        // OpenID Connect Core 3.1.3.7: a nonce sent with the request must come back in the ID token.
        if let Some(nonce) = record.nonce {
            id_claims.insert("nonce".into(), nonce.into());
        }
        body["id_token"] = oauth_server::sign(state, &Value::Object(id_claims))?.into();
    }
    Ok(oauth_server::token_response(body))
}

/// A code redeemed a second time: revoke it and everything it issued, then refuse.
async fn replayed(state: &AppState, jti: &str) -> OAuthError {
    match state.store.revoke_family(jti, Utc::now()).await {
        Ok(revoked) => {
            tracing::warn!(
                revoked,
                "authorization code replayed: its tokens are revoked"
            );
            invalid_grant("the code was already used")
        }
        Err(e) => e.into(),
    }
}
