//! The OAuth 2.0 / OIDC authorization server's token side: the JWKS document that downstream services and client
//! libraries verify tokens with, and the token endpoint with its grants (`client_credentials` here, the
//! authorization code in `authorize`, refresh in `refresh`), sharing one way to grant scope, sign and record tokens.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::json;

use super::{authorize, refresh, token_exchange};
use crate::client_auth::{self, Params};
use crate::error::{OAuthError, OAuthErrorCode};
use crate::state::AppState;
use crate::store::{OAuthApplication, TokenRecord};
use crate::tenancy::Tenant;
use crate::tokens::{ACCESS_TOKEN_SECONDS, AccessClaims};

/// The scope that asks for an ID token.
pub const OPENID: &str = "openid";

pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/auth/oauth/discovery/keys", get(jwks))
        .route("/auth/token", post(token))
        .route("/auth/oauth/token", post(token))
}

/// The public keys tokens are verified with (RFC 7517), each named by its RFC 7638 thumbprint.
#[utoipa::path(
    get,
    path = "/auth/oauth/discovery/keys",
    tag = "oauth",
    responses((status = 200, description = "`{\"keys\":[{kty,n,e,kid,use,alg}]}`", content_type = "application/json"))
)]
pub async fn jwks(State(state): State<Arc<AppState>>) -> impl IntoResponse {
    // Keys change only at a restart; caches may keep them briefly, which rotation (old keys stay listed) allows.
    (
        [(header::CACHE_CONTROL, "public, max-age=300")],
        Json(state.tokens.jwks()),
    )
}

/// Issues tokens (RFC 6749 sections 4.1, 4.4 and 6).
#[utoipa::path(
    post,
    path = "/auth/token",
    tag = "oauth",
    request_body(content_type = "application/x-www-form-urlencoded", description = "`grant_type` (`client_credentials` \
        or `authorization_code` with `code`, `redirect_uri`, `code_verifier`, or `refresh_token`, or the RFC 8693 token exchange with \
        `subject_token` and `subject_token_type`), `scope`, and the client's credentials unless sent with HTTP Basic"),
    responses(
        (status = 200, description = "`{access_token, token_type, expires_in, scope, id_token?}`", content_type = "application/json"),
        (status = 400, description = "`invalid_request`, `invalid_grant`, `unsupported_grant_type`, `unauthorized_client`, \
            `invalid_scope`"),
        (status = 401, description = "`invalid_client`"),
    )
)]
pub async fn token(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    headers: HeaderMap,
    uri: Uri,
    body: Bytes,
) -> Result<Response, OAuthError> {
    let params = Params::parse(&uri, &headers, &body)?;
    let grant = params
        .get("grant_type")
        .ok_or_else(|| OAuthError::invalid_request("grant_type is required"))?;
    let client = client_auth::authenticate(&state, &tenant, &headers, &params).await?;
    match grant {
        "client_credentials" => {
            let client = client.ok_or_else(OAuthError::invalid_client)?;
            client_credentials(&state, client, params.get("scope")).await
        }
        "authorization_code" => {
            let client = client.ok_or_else(OAuthError::invalid_client)?;
            authorize::redeem_code(&state, &tenant, &headers, client, &params).await
        }
        "refresh_token" => {
            let client = client.ok_or_else(OAuthError::invalid_client)?;
            refresh::refresh(&state, &tenant, client, &params).await
        }
        token_exchange::GRANT_TYPE => {
            let client = client.ok_or_else(OAuthError::invalid_client)?;
            token_exchange::exchange(&state, &tenant, client, &params).await
        }
        _ => Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            OAuthErrorCode::UnsupportedGrantType,
            format!("grant_type {grant} is not supported"),
        )),
    }
}

async fn client_credentials(
    state: &Arc<AppState>,
    client: OAuthApplication,
    requested: Option<&str>,
) -> Result<Response, OAuthError> {
    if !client.confidential {
        return Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            OAuthErrorCode::UnauthorizedClient,
            "client_credentials needs a confidential client",
        ));
    }
    let scope = granted_scope(&client, requested, false)?;
    let now = Utc::now().timestamp();
    let claims = AccessClaims {
        iss: state.config.jwt_issuer.clone(),
        iat: now,
        exp: now + ACCESS_TOKEN_SECONDS,
        jti: crate::ids::new_id(),
        aud: None,
        scope,
        sub: client.uid.clone(),
        u: None,
    };
    let access_token = issue_access(state, &claims, &client.uid, None).await?;
    Ok(token_response(json!({
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": ACCESS_TOKEN_SECONDS,
        "scope": claims.scope.join(" "),
    })))
}

/// The scope to grant `client`: the requested one when the client may have all of it, else `invalid_scope`;
/// the client's own scopes when none is requested. `openid` asks for an ID token, not for access, so the code
/// flow (`with_openid`) grants it to every client.
pub fn granted_scope(
    client: &OAuthApplication,
    requested: Option<&str>,
    with_openid: bool,
) -> Result<Vec<String>, OAuthError> {
    let allowed: Vec<&str> = client.scopes.split_whitespace().collect();
    let scope: Vec<String> = match requested.filter(|r| !r.trim().is_empty()) {
        Some(requested) => requested.split_whitespace().map(str::to_string).collect(),
        None => allowed.iter().map(|s| s.to_string()).collect(),
    };
    let grantable = |s: &str| allowed.contains(&s) || (with_openid && s == OPENID);
    if let Some(refused) = scope.iter().find(|s| !grantable(s)) {
        return Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            OAuthErrorCode::InvalidScope,
            format!("scope {refused} is not granted"),
        ));
    }
    Ok(scope)
}

/// Signs an access token and writes its `oauth_tokens` row (in `family` when it descends from a code).
pub async fn issue_access(
    state: &Arc<AppState>,
    claims: &AccessClaims,
    client_id: &str,
    family: Option<&str>,
) -> Result<String, OAuthError> {
    let access_token = sign(state, claims)?;
    let record = TokenRecord {
        id: crate::ids::new_id(),
        jti: claims.jti.clone(),
        token_type: "access".into(),
        client_id: Some(client_id.to_string()),
        sub: Some(claims.sub.clone()),
        scope: Some(claims.scope.join(" ")),
        issued_at: timestamp(claims.iat),
        expires_at: timestamp(claims.exp),
        family: family.map(str::to_string),
        ..TokenRecord::default()
    };
    state.token_rows.write(record).await?;
    Ok(access_token)
}

pub fn timestamp(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(seconds, 0).unwrap_or_default()
}

/// A successful token answer: never cached (RFC 6749 section 5.1).
pub fn token_response(body: serde_json::Value) -> Response {
    (
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::PRAGMA, "no-cache"),
        ],
        Json(body),
    )
        .into_response()
}

/// Signs on the worker that handles the request. RSA-2048 costs 0.2-0.7 ms of CPU (by machine), all of it work that
/// must be done: handing it to the blocking pool added two thread switches per token, and a fixed number of signing
/// slots left cores idle whenever the requests holding them waited on something else (measured: the token endpoint
/// 1.3x faster inline, docs/performance.md). A worker busy signing has its queued tasks stolen by the others.
pub fn sign<T: Serialize>(state: &AppState, claims: &T) -> Result<String, OAuthError> {
    state
        .tokens
        .sign(claims)
        .map_err(|e| OAuthError::server_error(&e))
}
