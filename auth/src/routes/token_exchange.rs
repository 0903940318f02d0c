//! Token exchange (RFC 8693): a confidential client named in `TOKEN_EXCHANGE_CLIENTS` trades an access token of a
//! trusted issuer for one of ours, for the same user. Typically a backend holding a user's Entra ID token calls an
//! API that takes only this service's tokens.
//!
//! Trusted issuers are this service itself and the OpenID providers of the authority's OAuth 2.0 strategies
//! (`oauth_strat` rows with a `site`): their issuer and JWKS come from the provider's discovery document
//! (`provider_keys`, cached), and a token must be signed by one of those keys with an asymmetric algorithm,
//! name that issuer, carry the strategy's `client_id` in `aud` (the provider issued it for this application) and
//! not be expired. Its user is the one its `sub` was linked to at an OAuth 2.0 login through that strategy, else
//! the authority's user with its `email` (or `preferred_username`/`upn`); no user is created here. The answer is an
//! access token only: the caller exchanges again rather than holding a refresh token of someone else's.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use base64::Engine;
use chrono::Utc;
use serde_json::{Value, json};

use super::authorize::invalid_grant;
use super::oauth_server::{granted_scope, issue_access, token_response};
use crate::client_auth::Params;
use crate::error::{OAuthError, OAuthErrorCode};
use crate::state::AppState;
use crate::store::{OAuthApplication, User, UserAuthLookup};
use crate::tenancy::Tenant;
use crate::tokens::{ACCESS_TOKEN_SECONDS, AccessClaims, UserClaims};

pub const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";
const JWT_TYPE: &str = "urn:ietf:params:oauth:token-type:jwt";
/// A subject token longer than this is not an access token (Entra's are about 2 KB).
const MAX_SUBJECT_TOKEN_LEN: usize = 16 * 1024;

pub async fn exchange(
    state: &Arc<AppState>,
    tenant: &Tenant,
    client: OAuthApplication,
    params: &Params,
) -> Result<Response, OAuthError> {
    if !client.confidential
        || !state
            .config
            .token_exchange_clients
            .iter()
            .any(|c| c == &client.uid)
    {
        return Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            OAuthErrorCode::UnauthorizedClient,
            "this client may not exchange tokens",
        ));
    }
    let subject = params
        .get("subject_token")
        .ok_or_else(|| OAuthError::invalid_request("subject_token is required"))?;
    match params.get("subject_token_type") {
        Some(ACCESS_TOKEN_TYPE | JWT_TYPE) => {}
        Some(_) => {
            return Err(OAuthError::invalid_request(
                "subject_token_type must be an access token or a JWT",
            ));
        }
        None => {
            return Err(OAuthError::invalid_request(
                "subject_token_type is required",
            ));
        }
    }
    if params
        .get("requested_token_type")
        .is_some_and(|t| t != ACCESS_TOKEN_TYPE)
    {
        return Err(OAuthError::invalid_request(
            "only an access token can be requested",
        ));
    }
    if params.get("actor_token").is_some() {
        return Err(OAuthError::invalid_request(
            "delegation (actor_token) is not supported",
        ));
    }
    if subject.len() > MAX_SUBJECT_TOKEN_LEN {
        return Err(invalid_grant("the subject token is not a token we accept"));
    }
    let scope = granted_scope(&client, params.get("scope"), false)?;
    let user = subject_user(state, tenant, subject).await?;
    let now = Utc::now().timestamp();
    let claims = AccessClaims {
        iss: state.config.jwt_issuer.clone(),
        iat: now,
        exp: now + ACCESS_TOKEN_SECONDS,
        jti: crate::ids::new_id(),
        aud: Some(tenant.authority.domain.clone()),
        scope,
        sub: user.id.clone(),
        u: Some(UserClaims::of(&user)),
    };
    let access_token = issue_access(state, &claims, &client.uid, None).await?;
    tracing::info!(client_id = %client.uid, user_id = %user.id, "token exchanged");
    Ok(token_response(json!({
        "access_token": access_token,
        "issued_token_type": ACCESS_TOKEN_TYPE,
        "token_type": "Bearer",
        "expires_in": ACCESS_TOKEN_SECONDS,
        "scope": claims.scope.join(" "),
    })))
}

/// The unverified `iss` of a JWT: only to choose the keys it must then verify with.
fn claimed_issuer(token: &str) -> Option<String> {
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice::<Value>(&bytes).ok()?["iss"]
        .as_str()
        .map(str::to_string)
}

/// The active user of this authority that the subject token, once verified, names.
async fn subject_user(
    state: &Arc<AppState>,
    tenant: &Tenant,
    token: &str,
) -> Result<User, OAuthError> {
    let refused = || invalid_grant("the subject token is not valid here");
    let issuer = claimed_issuer(token).ok_or_else(refused)?;
    if issuer == state.config.jwt_issuer {
        // One of ours: the same checks as at any resource (signature, expiry, revocation, logout, authority).
        let verified = crate::bearer::verify(state, tenant, token).await?;
        return verified.and_then(|v| v.user).ok_or_else(refused);
    }
    for strategy in state
        .store
        .oauth_strategies_of_authority(&tenant.authority.id)
        .await?
    {
        let Some(keys) = state.provider_keys.of(state, &strategy).await else {
            continue;
        };
        if keys.issuer != issuer {
            continue;
        }
        let claims = match state
            .provider_keys
            .decode(state, &strategy, &keys, token)
            .await
        {
            Ok(claims) => claims,
            Err(why) => {
                tracing::info!(strategy = %strategy.id, reason = %why, "subject token refused");
                return Err(refused());
            }
        };
        return linked_user(state, tenant, &claims)
            .await?
            .ok_or_else(|| invalid_grant("the subject token names no user of this authority"));
    }
    tracing::info!(%issuer, "subject token of an untrusted issuer");
    Err(refused())
}

async fn linked_user(
    state: &AppState,
    tenant: &Tenant,
    claims: &Value,
) -> Result<Option<User>, OAuthError> {
    let authority_id = &tenant.authority.id;
    let mut user = None;
    if let Some(sub) = claims["sub"].as_str() {
        let link = UserAuthLookup::id_for(authority_id, "oauth2", sub);
        if let Some(lookup) = state.store.user_auth_lookup(&link).await? {
            user = state.store.user_by_id(&lookup.user_id).await?;
        }
    }
    if user.is_none()
        && let Some(email) = ["email", "preferred_username", "upn"]
            .iter()
            .find_map(|c| claims[*c].as_str().filter(|v| v.contains('@')))
    {
        user = state.store.user_by_email(authority_id, email).await?;
    }
    Ok(user.filter(|u| !u.deleted && &u.authority_id == authority_id))
}
