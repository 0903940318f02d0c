//! The HTTP surface: one router per protocol, assembled here with the layers every request crosses, and the
//! OpenAPI document generated from the handlers' annotations (`auth --docs`, `auth --routes`).

pub mod authorize;
mod external_login;
pub mod oauth_client;
pub mod oauth_server;
pub mod oidc;
pub mod refresh;
pub mod registration;
pub mod saml;
pub mod session;
pub mod token_exchange;
pub mod webfinger;

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Router, middleware};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;
use utoipa::OpenApi;

use crate::state::AppState;

/// Request bodies are small forms; anything bigger is refused with 413 before a handler buffers it.
const MAX_BODY_BYTES: usize = 16 * 1024;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "auth",
        description = "The authentication service, wire-compatible with the legacy service."
    ),
    paths(
        session::healthz,
        session::authority,
        session::signin,
        session::logout,
        session::login,
        session::failure,
        session::verified,
        oauth_server::jwks,
        oauth_server::token,
        authorize::authorize,
        refresh::revoke,
        refresh::introspect,
        oidc::discovery,
        oidc::userinfo,
        oidc::protected_resource,
        registration::register,
        webfinger::webfinger,
        oauth_client::start,
        oauth_client::callback,
        saml::start,
        saml::callback,
        saml::metadata,
        saml::logout,
        metrics
    )
)]
pub struct ApiDoc;

pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .merge(session::router())
        .merge(oauth_server::router())
        .merge(oidc::router())
        .merge(webfinger::router())
        .merge(registration::router())
        .merge(authorize::router())
        .merge(refresh::router())
        .merge(oauth_client::router())
        .merge(saml::router())
        .route("/auth/metrics", get(metrics))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::map_response(count_response))
        .layer(
            // The span names method and path only: query strings may carry an API key or a `continue` with tokens.
            TraceLayer::new_for_http()
                .make_span_with(|request: &Request| {
                    tracing::info_span!("request", method = %request.method(), path = %request.uri().path())
                })
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        )
        .with_state(state)
}

async fn count_response(response: Response) -> Response {
    crate::metrics::response(response.status().as_u16());
    response
}

/// Prometheus metrics. Expose `/auth/metrics` to the scraper only (e.g. block it at the proxy): it reveals traffic.
#[utoipa::path(get, path = "/auth/metrics", tag = "operations", responses((status = 200, content_type = "text/plain")))]
pub async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
        .into_response()
}

/// 303 to `target` (already sanitised or built by us).
pub fn see_other(target: &str) -> Response {
    match HeaderValue::from_str(target) {
        Ok(location) => (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response(),
        Err(_) => (
            StatusCode::SEE_OTHER,
            [(header::LOCATION, HeaderValue::from_static("/"))],
        )
            .into_response(),
    }
}

/// Why the OpenAPI document could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum OpenApiError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Yaml(#[from] serde_saphyr::ser::Error),
}

/// The OpenAPI document as YAML.
pub fn openapi_yaml() -> Result<String, OpenApiError> {
    let json = serde_json::to_value(ApiDoc::openapi())?;
    Ok(serde_saphyr::to_string(&json)?)
}

/// `METHOD PATH  summary` for every route, from the same OpenAPI document.
pub fn route_table() -> Vec<String> {
    let doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
    let mut lines = Vec::new();
    if let Some(paths) = doc.get("paths").and_then(|p| p.as_object()) {
        for (path, item) in paths {
            for (method, operation) in item.as_object().into_iter().flatten() {
                let summary = operation
                    .get("summary")
                    .and_then(|s| s.as_str())
                    .unwrap_or_default();
                lines.push(format!("{:<6} {path:<20} {summary}", method.to_uppercase()));
            }
        }
    }
    lines
}
