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
use crate::store::TokenRecord;
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

/// The claims of `token` when it is valid for `tenant` now.
pub async fn verify(
    state: &AppState,
    tenant: &Tenant,
    token: &str,
) -> Result<Option<AccessClaims>, AppError> {
    let Ok(claims) = state.tokens.verify(token, &state.config.jwt_issuer) else {
        return Ok(None);
    };
    if state
        .store
        .token_by_jti(&claims.jti)
        .await?
        .is_some_and(|t| t.revoked_at.is_some())
    {
        return Ok(None);
    }
    if claims.u.is_none() {
        // A client-credentials token names a client, not a user: nothing more to check.
        return Ok(Some(claims));
    }
    if claims.aud.as_deref() != Some(tenant.authority.domain.as_str()) {
        return Ok(None);
    }
    let user = state.store.user_by_id(&claims.sub).await?;
    let valid = user.is_some_and(|u| {
        !u.deleted
            && u.authority_id == tenant.authority.id
            && u.logged_out_at
                .is_none_or(|out| out.timestamp() < claims.iat)
    });
    Ok(valid.then_some(claims))
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
