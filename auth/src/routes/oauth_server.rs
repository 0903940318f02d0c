//! The OAuth 2.0 / OIDC authorization server. So far: the JWKS document that downstream services and client
//! libraries verify access and ID tokens with.

use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};

use crate::state::AppState;

pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/auth/oauth/discovery/keys", get(jwks))
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
