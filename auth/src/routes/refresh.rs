//! What happens to tokens after they are issued: the `refresh_token` grant, revocation (RFC 7009) and
//! introspection (RFC 7662).
//!
//! Refresh tokens are opaque 256-bit strings stored by their SHA-256, living 30 days. Each use rotates them: the
//! presented token is stamped used and a new one issued in the same family (the code it all descends from).
//! Clients double-submit at boot, so a used token presented again within `REFRESH_REPLAY_GRACE_SECONDS` (30 s by
//! default) of its rotation is honoured; later, the reuse means the token leaked, and the whole family is revoked.
//! A revoked family is refused at once. The scope never changes across refreshes (a narrower one may be asked for,
//! never a wider one).

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use axum::routing::post;
use bytes::Bytes;
use chrono::{Duration, Utc};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::authorize::invalid_grant;
use super::oauth_server::{self, token_response};
use crate::client_auth::{self, Params};
use crate::error::{OAuthError, OAuthErrorCode};
use crate::state::AppState;
use crate::store::{OAuthApplication, TokenRecord, User};
use crate::tenancy::Tenant;
use crate::tokens::{ACCESS_TOKEN_SECONDS, AccessClaims, UserClaims};

/// Refresh tokens live 30 days.
const REFRESH_DAYS: i64 = 30;

pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/auth/revoke", post(revoke))
        .route("/auth/oauth/revoke", post(revoke))
        .route("/auth/introspect", post(introspect))
        .route("/auth/oauth/introspect", post(introspect))
}

/// The `jti` an opaque refresh token is stored under.
fn refresh_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

pub fn scope_of(record: &TokenRecord) -> Vec<String> {
    record
        .scope
        .as_deref()
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// The user a code or refresh token was issued to, if still valid here: not deleted, of this authority, and not
/// logged out since the token was issued.
pub async fn active_user(
    state: &AppState,
    tenant: &Tenant,
    record: &TokenRecord,
) -> Result<User, OAuthError> {
    state
        .store
        .user_by_id(record.sub.as_deref().unwrap_or_default())
        .await?
        .filter(|u| {
            !u.deleted
                && u.authority_id == tenant.authority.id
                && u.logged_out_at.is_none_or(|out| out < record.issued_at)
        })
        .ok_or_else(|| invalid_grant("the user has logged out or is gone"))
}

/// Issues a user's access token and a new refresh token in `family`: the token answer's body.
pub async fn issue_user_tokens(
    state: &Arc<AppState>,
    tenant: &Tenant,
    client: &OAuthApplication,
    user: &User,
    scope: &[String],
    family: &str,
) -> Result<Value, OAuthError> {
    let now = Utc::now();
    let iat = now.timestamp();
    let claims = AccessClaims {
        iss: state.config.jwt_issuer.clone(),
        iat,
        exp: iat + ACCESS_TOKEN_SECONDS,
        jti: crate::ids::new_id(),
        aud: Some(tenant.authority.domain.clone()),
        scope: scope.to_vec(),
        sub: user.id.clone(),
        u: Some(UserClaims::of(user)),
    };
    let access_token =
        oauth_server::issue_access(state, &claims, &client.uid, Some(family)).await?;
    let refresh_token = crate::ids::random_token();
    let record = TokenRecord {
        id: crate::ids::new_id(),
        jti: refresh_hash(&refresh_token),
        token_type: "refresh".into(),
        client_id: Some(client.uid.clone()),
        sub: Some(user.id.clone()),
        scope: Some(scope.join(" ")),
        issued_at: now,
        expires_at: now + Duration::days(REFRESH_DAYS),
        family: Some(family.to_string()),
        ..TokenRecord::default()
    };
    state.token_rows.write(record).await?;
    Ok(json!({
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": ACCESS_TOKEN_SECONDS,
        "refresh_token": refresh_token,
        "scope": scope.join(" "),
    }))
}

/// The `refresh_token` grant.
pub async fn refresh(
    state: &Arc<AppState>,
    tenant: &Tenant,
    client: OAuthApplication,
    params: &Params,
) -> Result<Response, OAuthError> {
    let presented = params
        .get("refresh_token")
        .ok_or_else(|| OAuthError::invalid_request("refresh_token is required"))?;
    let jti = refresh_hash(presented);
    let record = state
        .store
        .token_by_jti(&jti)
        .await?
        .filter(|r| {
            r.token_type == "refresh" && r.client_id.as_deref() == Some(client.uid.as_str())
        })
        .ok_or_else(|| invalid_grant("unknown refresh token"))?;
    let now = Utc::now();
    if record.revoked_at.is_some() || record.expires_at <= now {
        return Err(invalid_grant(
            "the refresh token has expired or was revoked",
        ));
    }
    // Every check before spending it: a refused request must not rotate the token away.
    let user = active_user(state, tenant, &record).await?;
    let kept = scope_of(&record);
    let scope = match params.get("scope").filter(|s| !s.trim().is_empty()) {
        Some(requested) => {
            let requested: Vec<String> = requested.split_whitespace().map(str::to_string).collect();
            if let Some(wider) = requested.iter().find(|s| !kept.contains(s)) {
                return Err(OAuthError::new(
                    StatusCode::BAD_REQUEST,
                    OAuthErrorCode::InvalidScope,
                    format!("scope {wider} was not granted"),
                ));
            }
            requested
        }
        None => kept,
    };
    let family = record.family.clone().unwrap_or_else(|| jti.clone());
    // Spend it, unless it was spent within the grace window (a concurrent double submit included).
    if !state.store.use_token(&jti, now).await? {
        let used_at = state
            .store
            .token_by_jti(&jti)
            .await?
            .and_then(|r| r.used_at);
        let grace = Duration::seconds(state.config.refresh_replay_grace_seconds.into());
        let in_grace = used_at.is_some_and(|at| now - at <= grace);
        if !in_grace {
            let revoked = state.store.revoke_family(&family, now).await?;
            tracing::warn!(
                revoked,
                "refresh token reused after rotation: its family is revoked"
            );
            return Err(invalid_grant("the refresh token was already used"));
        }
    }
    let body = issue_user_tokens(state, tenant, &client, &user, &scope, &family).await?;
    Ok(token_response(body))
}

/// What a presented token is, as far as this authority and client are concerned.
enum Known {
    Access(AccessClaims),
    Refresh(TokenRecord),
}

/// Finds `token` as an access token (a JWT we signed) or a refresh token of this authority's clients.
async fn lookup(state: &AppState, token: &str) -> Result<Option<Known>, OAuthError> {
    if let Ok(claims) = state.tokens.verify(token, &state.config.jwt_issuer) {
        return Ok(Some(Known::Access(claims)));
    }
    let record = state.store.token_by_jti(&refresh_hash(token)).await?;
    Ok(record
        .filter(|r| r.token_type == "refresh")
        .map(Known::Refresh))
}

/// The authenticated client of a revocation or introspection request, and the token it asks about.
async fn token_request(
    state: &AppState,
    tenant: &Tenant,
    headers: &HeaderMap,
    uri: &Uri,
    body: &[u8],
) -> Result<(OAuthApplication, String), OAuthError> {
    let params = Params::parse(uri, headers, body)?;
    let client = client_auth::authenticate(state, tenant, headers, &params)
        .await?
        .ok_or_else(OAuthError::invalid_client)?;
    let token = params
        .get("token")
        .ok_or_else(|| OAuthError::invalid_request("token is required"))?;
    Ok((client, token.to_string()))
}

/// Revokes a token (RFC 7009): 200 whether or not the token was known, so nothing about tokens leaks.
///
/// A refresh token takes its whole family (the access tokens issued with it) along.
#[utoipa::path(
    post,
    path = "/auth/revoke",
    tag = "oauth",
    request_body(content_type = "application/x-www-form-urlencoded", description = "`token`, `token_type_hint`, \
        and the client's credentials"),
    responses(
        (status = 200, description = "revoked, or unknown"),
        (status = 400, description = "`invalid_request`"),
        (status = 401, description = "`invalid_client`"),
    )
)]
pub async fn revoke(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    headers: HeaderMap,
    uri: Uri,
    body: Bytes,
) -> Result<Response, OAuthError> {
    let (client, token) = token_request(&state, &tenant, &headers, &uri, &body).await?;
    let now = Utc::now();
    match lookup(&state, &token).await? {
        Some(Known::Refresh(record))
            if record.client_id.as_deref() == Some(client.uid.as_str()) =>
        {
            let family = record.family.unwrap_or(record.jti);
            state.store.revoke_family(&family, now).await?;
        }
        Some(Known::Access(claims)) => {
            let row = state.store.token_by_jti(&claims.jti).await?;
            // Only the client the token was issued to may revoke it; a token without a row is the client's own
            // only if it names the client.
            let owned = match &row {
                Some(row) => row.client_id.as_deref() == Some(client.uid.as_str()),
                None => claims.sub == client.uid,
            };
            if owned {
                crate::bearer::revoke(&state, &claims).await?;
            }
        }
        _ => {}
    }
    Ok(token_response(json!({})))
}

/// Describes a token (RFC 7662) to an authenticated client: `{"active":false}` unless it is valid now here.
#[utoipa::path(
    post,
    path = "/auth/introspect",
    tag = "oauth",
    request_body(content_type = "application/x-www-form-urlencoded", description = "`token`, `token_type_hint`, \
        and the client's credentials"),
    responses(
        (status = 200, description = "`{active, scope?, client_id?, sub?, exp?, iat?, token_type?, iss?, aud?}`"),
        (status = 401, description = "`invalid_client`"),
    )
)]
pub async fn introspect(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    headers: HeaderMap,
    uri: Uri,
    body: Bytes,
) -> Result<Response, OAuthError> {
    let (_, token) = token_request(&state, &tenant, &headers, &uri, &body).await?;
    let inactive = || token_response(json!({ "active": false }));
    let answer = match lookup(&state, &token).await? {
        Some(Known::Access(_)) => {
            // The full check of a presented Bearer token: revocation, audience, logout.
            let Some(crate::bearer::Verified { claims, .. }) =
                crate::bearer::verify(&state, &tenant, &token).await?
            else {
                return Ok(inactive());
            };
            let mut answer = json!({
                "active": true,
                "token_type": "Bearer",
                "scope": claims.scope.join(" "),
                "sub": claims.sub,
                "iat": claims.iat,
                "exp": claims.exp,
                "iss": claims.iss,
                "jti": claims.jti,
            });
            if let Some(aud) = claims.aud {
                answer["aud"] = aud.into();
            }
            if let Some(u) = claims.u {
                answer["username"] = u.e.into();
            }
            answer
        }
        Some(Known::Refresh(record)) => {
            let live = record.revoked_at.is_none()
                && record.used_at.is_none()
                && record.expires_at > Utc::now()
                && active_user(&state, &tenant, &record).await.is_ok();
            if !live {
                return Ok(inactive());
            }
            json!({
                "active": true,
                "token_type": "refresh_token",
                "scope": record.scope,
                "client_id": record.client_id,
                "sub": record.sub,
                "iat": record.issued_at.timestamp(),
                "exp": record.expires_at.timestamp(),
            })
        }
        None => return Ok(inactive()),
    };
    Ok(token_response(answer))
}
