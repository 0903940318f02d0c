//! OpenID Connect: the discovery document client libraries configure themselves from, and `userinfo`.
//!
//! The issuer is the URL the client reached us by (scheme and `Host`), because one service serves many
//! authorities, each under its own host, and a client library insists that the issuer it fetched metadata from is
//! the one the metadata names. The scheme follows `X-Forwarded-Proto` since TLS ends at the proxy in front of us.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Map, Value, json};

use crate::error::OAuthError;
use crate::state::AppState;
use crate::store::User;
use crate::tenancy::Tenant;
use crate::{apikey, bearer};

pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/.well-known/openid-configuration", get(discovery))
        .route("/.well-known/oauth-authorization-server", get(discovery))
        .route("/auth/.well-known/openid-configuration", get(discovery))
        .route(
            "/auth/.well-known/oauth-authorization-server",
            get(discovery),
        )
        .route(
            "/.well-known/oauth-protected-resource",
            get(protected_resource),
        )
        .route(
            "/.well-known/oauth-protected-resource/{*resource}",
            get(protected_resource),
        )
        .route(
            "/auth/.well-known/oauth-protected-resource",
            get(protected_resource),
        )
        .route("/auth/userinfo", get(userinfo))
        .route("/auth/oauth/userinfo", get(userinfo))
}

/// `scheme://host[:port]` of the request: the issuer and the base of every endpoint the discovery names.
pub fn issuer(headers: &HeaderMap, tenant: &Tenant) -> String {
    let forwarded = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .map(|v| v.trim().to_ascii_lowercase());
    let scheme = match forwarded.as_deref() {
        Some("https") => "https",
        _ => "http",
    };
    // The tenant was resolved from this Host header, so it is a valid host; the port is kept as sent.
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase)
        .unwrap_or_else(|| tenant.host.clone());
    format!("{scheme}://{host}")
}

/// The authorization server's metadata (OpenID Connect Discovery 1.0, RFC 8414).
#[utoipa::path(
    get,
    path = "/.well-known/openid-configuration",
    tag = "oauth",
    responses((status = 200, description = "issuer, endpoints and supported features", content_type = "application/json"))
)]
pub async fn discovery(tenant: Tenant, headers: HeaderMap) -> impl IntoResponse {
    let issuer = issuer(&headers, &tenant);
    let document = json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/auth/authorize"),
        "token_endpoint": format!("{issuer}/auth/token"),
        "userinfo_endpoint": format!("{issuer}/auth/userinfo"),
        "revocation_endpoint": format!("{issuer}/auth/revoke"),
        "introspection_endpoint": format!("{issuer}/auth/introspect"),
        "jwks_uri": format!("{issuer}/auth/oauth/discovery/keys"),
        "registration_endpoint": format!("{issuer}/auth/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": [
            "authorization_code", "client_credentials", "refresh_token", super::token_exchange::GRANT_TYPE
        ],
        "code_challenge_methods_supported": ["S256"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "claims_supported": [
            "sub", "email", "full_name", "preferred_username", "given_name", "family_name", "nickname",
            "phone_number", "iss", "aud", "iat", "exp"
        ],
    });
    (
        [(header::CACHE_CONTROL, "public, max-age=300")],
        Json(document),
    )
}

/// OAuth 2.0 protected resource metadata (RFC 9728) of the resources on this host: the resource named by the path
/// after `/.well-known/oauth-protected-resource` (the host itself without one), served by this issuer. An MCP
/// client asks here first, for its server's URL, e.g. `/.well-known/oauth-protected-resource/mcp` for
/// `https://host/mcp`, then follows `authorization_servers` to the discovery document.
#[utoipa::path(
    get,
    path = "/.well-known/oauth-protected-resource",
    tag = "oauth",
    responses((status = 200, description = "`{resource, authorization_servers, bearer_methods_supported, scopes_supported}`",
        content_type = "application/json"))
)]
pub async fn protected_resource(tenant: Tenant, headers: HeaderMap, uri: Uri) -> impl IntoResponse {
    let issuer = issuer(&headers, &tenant);
    let path = uri
        .path()
        .strip_prefix("/.well-known/oauth-protected-resource")
        .unwrap_or_default();
    let document = json!({
        "resource": format!("{issuer}{path}"),
        "authorization_servers": [issuer],
        "bearer_methods_supported": ["header"],
        "scopes_supported": crate::client_metadata::REGISTRABLE_SCOPES,
        "resource_signing_alg_values_supported": ["RS256"],
    });
    (
        [(header::CACHE_CONTROL, "public, max-age=300")],
        Json(document),
    )
}

/// Who the Bearer token's (or API key's) user is.
#[utoipa::path(
    get,
    path = "/auth/userinfo",
    tag = "oauth",
    params(("api-key" = Option<String>, Query, description = "an API key, instead of a Bearer token")),
    responses(
        (status = 200, description = "`{sub,email,full_name,preferred_username,given_name?,family_name?,nickname?,phone_number?}`",
            content_type = "application/json"),
        (status = 401, description = "`invalid_token`: missing, invalid, expired, revoked, issued before logout, \
            of another authority, or naming no user"),
    )
)]
pub async fn userinfo(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, OAuthError> {
    // As everywhere, an API key is checked before a Bearer token.
    let user = match apikey::presented(&headers, &uri) {
        Some(key) => {
            let user_id = apikey::verify(&state, &tenant, &key)
                .await?
                .ok_or_else(|| OAuthError::invalid_token("the key names no user"))?;
            state.store.user_by_id(&user_id).await?
        }
        None => {
            let token = bearer::presented(&headers)
                .ok_or_else(|| OAuthError::invalid_token("a Bearer token is required"))?;
            let verified = bearer::verify(&state, &tenant, token)
                .await?
                .ok_or_else(|| OAuthError::invalid_token("the token is not valid"))?;
            // A client-credentials token names a client, which has no user information.
            Some(
                verified
                    .user
                    .ok_or_else(|| OAuthError::invalid_token("the token names no user"))?,
            )
        }
    };
    let user = user
        .filter(|u| !u.deleted && u.authority_id == tenant.authority.id)
        .ok_or_else(|| OAuthError::invalid_token("the token's user is gone"))?;
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(user_claims(&user)),
    )
        .into_response())
}

/// The OIDC claims of `user`, with the legacy field names; optional ones only when set.
pub fn user_claims(user: &User) -> Map<String, Value> {
    let email = user.email.to_lowercase();
    let mut claims = Map::new();
    claims.insert("sub".into(), user.id.clone().into());
    claims.insert("email".into(), email.clone().into());
    claims.insert(
        "full_name".into(),
        user.name.clone().unwrap_or_default().into(),
    );
    claims.insert("preferred_username".into(), email.into());
    for (name, value) in [
        ("given_name", &user.first_name),
        ("family_name", &user.last_name),
        ("nickname", &user.nickname),
        ("phone_number", &user.phone),
    ] {
        if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
            claims.insert(name.into(), value.into());
        }
    }
    claims
}
