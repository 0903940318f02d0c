//! Dynamic client registration (RFC 7591) for public clients, such as AI agents connecting over MCP: JSON in,
//! 201 with the client's metadata out. What a registration may ask for is in `client_metadata`; how many one
//! address may make is in `throttle`.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use bytes::Bytes;
use chrono::Utc;
use serde_json::json;

use crate::client_addr::client_ip;
use crate::client_metadata::{self, MetadataError};
use crate::error::{OAuthError, OAuthErrorCode};
use crate::state::AppState;
use crate::store::OAuthApplication;
use crate::tenancy::Tenant;

pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/auth/register", post(register))
        .route("/auth/oauth/register", post(register))
}

impl From<MetadataError> for OAuthError {
    fn from(e: MetadataError) -> Self {
        OAuthError::new(StatusCode::BAD_REQUEST, e.code(), e.to_string())
    }
}

/// Registers a public client (RFC 7591).
#[utoipa::path(
    post,
    path = "/auth/register",
    tag = "oauth",
    request_body(content_type = "application/json", description = "`redirect_uris` (https, or http on loopback), \
        optional `client_name`, `scope`, `grant_types` (`authorization_code`, `refresh_token`), `response_types` \
        (`code`), `token_endpoint_auth_method` (`none`)"),
    responses(
        (status = 201, description = "`{client_id, client_id_issued_at, client_name, redirect_uris, grant_types, \
            response_types, token_endpoint_auth_method, scope}`", content_type = "application/json"),
        (status = 400, description = "`invalid_redirect_uri` or `invalid_client_metadata`"),
        (status = 429, description = "too many registrations from this address; see `Retry-After`"),
    )
)]
pub async fn register(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    tenant: Tenant,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, OAuthError> {
    let client = client_ip(peer.ip(), &headers, &state.config.trusted_proxies);
    // Every attempt counts, refused ones too: probing the validation costs the same budget as registering.
    if let Err(retry_after) = state.throttle.check_registration(client).await {
        tracing::warn!(%client, "client registration throttled");
        let mut response = OAuthError::new(
            StatusCode::TOO_MANY_REQUESTS,
            OAuthErrorCode::TemporarilyUnavailable,
            "too many client registrations from this address, retry later",
        )
        .into_response();
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(retry_after.max(1)));
        return Ok(response);
    }
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return Err(MetadataError::Metadata("the body must be application/json".into()).into());
    }
    let metadata = client_metadata::validate(&body, &state.config.registration_redirect_hosts)?;
    let app = OAuthApplication {
        id: crate::ids::new_id(),
        name: metadata.client_name,
        uid: crate::ids::new_id(),
        // The legacy column holds a secret for every client; a public client never presents this one
        // (client authentication takes public clients by id alone), and it is not disclosed.
        secret: crate::ids::random_token(),
        redirect_uri: metadata.redirect_uris.join(" "),
        scopes: metadata.scope,
        confidential: false,
        owner_id: Some(tenant.authority.id.clone()),
    };
    state.store.insert_application(&app).await?;
    tracing::info!(%client, client_id = %app.uid, "client registered");
    Ok((
        StatusCode::CREATED,
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({
            "client_id": app.uid,
            "client_id_issued_at": Utc::now().timestamp(),
            "client_name": app.name,
            "redirect_uris": metadata.redirect_uris,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "scope": app.scopes,
        })),
    )
        .into_response())
}
