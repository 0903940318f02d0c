//! Bearer access tokens presented to this service (`Authorization: Bearer <jwt>`).
//!
//! A token is valid here when [`TokenKeys::verify`](crate::tokens::TokenKeys::verify) accepts it and, for a user
//! token, its `aud` is the request's authority, the user still exists and is not deleted, and the user has not
//! logged out since the token was issued (`logged_out_at >= iat` rejects, as downstream services do).

use axum::http::{HeaderMap, header};

use crate::error::AppError;
use crate::state::AppState;
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
