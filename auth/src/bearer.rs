//! Bearer access tokens presented to this service (`Authorization: Bearer <jwt>`).
//!
//! A token is valid here when [`TokenKeys::verify`](crate::tokens::TokenKeys::verify) accepts it and, for a user
//! token, its `aud` is the request's authority, the user still exists and is not deleted, and the user has not
//! logged out since the token was issued (`logged_out_at >= iat` rejects, as downstream services do). Any token
//! whose `oauth_tokens` row is revoked is refused.

use axum::http::{HeaderMap, header};
use chrono::{DateTime, Utc};

use crate::error::AppError;
use crate::state::AppState;
use crate::store::{TokenRecord, TokenUser, User};
use crate::tenancy::Tenant;
use crate::tokens::AccessClaims;

/// The token of an `Authorization: Bearer` header, if any.
pub fn presented(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// A Bearer token valid here: its claims and, for a user token, the user it names.
pub struct Verified {
    pub claims: AccessClaims,
    pub user: Option<User>,
}

/// `token` when it is valid for `tenant` now. A user token costs one query (its user and its revocation together).
pub async fn verify(
    state: &AppState,
    tenant: &Tenant,
    token: &str,
) -> Result<Option<Verified>, AppError> {
    let Ok(claims) = state.tokens.verify(token, &state.config.jwt_issuer) else {
        return Ok(None);
    };
    if claims.u.is_none() {
        // A client-credentials token names a client, not a user: only its revocation to check.
        let revoked = state
            .store
            .token_by_jti(&claims.jti)
            .await?
            .is_some_and(|t| t.revoked_at.is_some());
        return Ok((!revoked).then_some(Verified { claims, user: None }));
    }
    if claims.aud.as_deref() != Some(tenant.authority.domain.as_str()) {
        return Ok(None);
    }
    let Some(TokenUser {
        user,
        token_revoked,
    }) = state.store.token_user(&claims.jti, &claims.sub).await?
    else {
        return Ok(None);
    };
    let valid = !token_revoked
        && !user.deleted
        && user.authority_id == tenant.authority.id
        && user
            .logged_out_at
            .is_none_or(|out| out.timestamp() < claims.iat);
    Ok(valid.then_some(Verified {
        claims,
        user: Some(user),
    }))
}

/// Revokes a verified token: stamps its `oauth_tokens` row, or records it as revoked when it has no row (a token
/// issued before the row was kept), so the revocation holds either way.
pub async fn revoke(state: &AppState, claims: &AccessClaims) -> Result<(), AppError> {
    let now = Utc::now();
    if state.store.revoke_token(&claims.jti, now).await?
        || state.store.token_by_jti(&claims.jti).await?.is_some()
    {
        return Ok(());
    }
    let at = |seconds: i64| DateTime::from_timestamp(seconds, 0).unwrap_or(now);
    let record = TokenRecord {
        id: crate::ids::new_id(),
        jti: claims.jti.clone(),
        token_type: "access".into(),
        client_id: None,
        sub: Some(claims.sub.clone()),
        scope: Some(claims.scope.join(" ")),
        issued_at: at(claims.iat),
        expires_at: at(claims.exp),
        revoked_at: Some(now),
        ..TokenRecord::default()
    };
    state.store.insert_token(&record).await?;
    Ok(())
}
