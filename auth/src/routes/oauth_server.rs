//! The OAuth 2.0 / OIDC authorization server. So far: the JWKS document that downstream services and client
//! libraries verify tokens with, and the token endpoint's `client_credentials` grant (the code and refresh grants
//! come with `/auth/authorize`).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use bytes::Bytes;
use chrono::{DateTime, Utc};

use crate::client_auth::{self, Params};
use crate::error::OAuthError;
use crate::state::AppState;
use crate::store::{OAuthApplication, TokenRecord};
use crate::tenancy::Tenant;
use crate::tokens::{ACCESS_TOKEN_SECONDS, AccessClaims};

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

/// Issues tokens (RFC 6749 section 4.4: `client_credentials`).
#[utoipa::path(
    post,
    path = "/auth/token",
    tag = "oauth",
    request_body(content_type = "application/x-www-form-urlencoded", description = "`grant_type`, `scope`, and the \
        client's credentials unless sent with HTTP Basic"),
    responses(
        (status = 200, description = "`{access_token, token_type, expires_in, scope}`", content_type = "application/json"),
        (status = 400, description = "`invalid_request`, `unsupported_grant_type`, `unauthorized_client`, `invalid_scope`"),
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
        _ => Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
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
            "unauthorized_client",
            "client_credentials needs a confidential client",
        ));
    }
    let allowed: Vec<&str> = client.scopes.split_whitespace().collect();
    let scope: Vec<String> = match requested {
        Some(requested) => requested.split_whitespace().map(str::to_string).collect(),
        None => allowed.iter().map(|s| s.to_string()).collect(),
    };
    if let Some(refused) = scope.iter().find(|s| !allowed.contains(&s.as_str())) {
        return Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            "invalid_scope",
            format!("scope {refused} is not granted"),
        ));
    }
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
    let access_token = sign(state, &claims).await?;
    let at = |seconds| DateTime::from_timestamp(seconds, 0).unwrap_or_default();
    let record = TokenRecord {
        id: crate::ids::new_id(),
        jti: claims.jti.clone(),
        token_type: "access".into(),
        client_id: Some(client.uid.clone()),
        sub: Some(client.uid),
        scope: Some(claims.scope.join(" ")),
        issued_at: at(claims.iat),
        expires_at: at(claims.exp),
        revoked_at: None,
    };
    state.store.insert_token(&record).await?;
    let body = serde_json::json!({
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": ACCESS_TOKEN_SECONDS,
        "scope": claims.scope.join(" "),
    });
    Ok((
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::PRAGMA, "no-cache"),
        ],
        Json(body),
    )
        .into_response())
}

/// RSA signing costs about a millisecond of CPU: it runs on the blocking pool, off the async workers.
async fn sign(state: &Arc<AppState>, claims: &AccessClaims) -> Result<String, OAuthError> {
    let (state, claims) = (state.clone(), claims.clone());
    let signed = tokio::task::spawn_blocking(move || state.tokens.sign(&claims)).await;
    match signed {
        Ok(Ok(token)) => Ok(token),
        Ok(Err(e)) => Err(OAuthError::server_error(&e)),
        Err(e) => Err(OAuthError::server_error(&e)),
    }
}
