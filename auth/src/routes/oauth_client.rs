//! The OAuth 2.0 client's routes: `/auth/oauth2?id=` starts a login with the strategy `id`, and
//! `/auth/oauth2/callback[/:strategy]` (GET, or POST for `response_mode=form_post`) consumes the provider's answer.
//!
//! A strategy serves only its own authority: one of another authority is refused on start and on callback, so a
//! tenant cannot sign its users in through another tenant's provider. The answer must return to the session that
//! started the login with its `state` (checked in constant time); the pending login is consumed by the first answer,
//! whatever its outcome (a replay with an old copy of the cookie then meets the provider's single-use code).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, Method, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use serde::Deserialize;
use subtle::ConstantTimeEq;
use utoipa::IntoParams;

use super::external_login;
use super::oidc::issuer;
use crate::error::AppError;
use crate::events::Provider;
use crate::oauth_client::{self, transport::Transport};
use crate::session::{PendingLogin, Session};
use crate::sso::{self, LoginError};
use crate::state::AppState;
use crate::store::OAuthStrategy;
use crate::tenancy::Tenant;

pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/auth/oauth2", get(start))
        .route("/auth/oauth2/callback", get(callback).post(callback))
        .route(
            "/auth/oauth2/callback/{strategy}",
            get(callback_for).post(callback_for),
        )
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StartQuery {
    /// The `oauth_strat` id.
    id: Option<String>,
}

/// Where the provider sends the browser back: fixed per strategy, registered with the provider.
fn redirect_uri(headers: &HeaderMap, tenant: &Tenant, strategy_id: &str) -> String {
    format!(
        "{}/auth/oauth2/callback?id={strategy_id}",
        issuer(headers, tenant)
    )
}

/// The strategy `id` if it exists and belongs to the tenant's authority.
async fn strategy(
    state: &AppState,
    tenant: &Tenant,
    id: &str,
) -> Result<OAuthStrategy, LoginError> {
    let row = state
        .store
        .oauth_strategy_by_id(sso::checked_strategy_id(id)?)
        .await?;
    sso::own_strategy(tenant, id, row)
}

/// Starts a login with an OAuth 2.0 provider.
#[utoipa::path(
    get,
    path = "/auth/oauth2",
    tag = "sso",
    params(StartQuery),
    responses(
        (status = 303, description = "to the provider's authorization endpoint"),
        (status = 302, description = "to `/auth/failure`: unknown strategy, or one of another authority"),
    )
)]
pub async fn start(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    Query(query): Query<StartQuery>,
    headers: HeaderMap,
) -> Response {
    let started = Instant::now();
    let id = query.id.unwrap_or_default();
    let begun = async {
        let strategy = strategy(&state, &tenant, &id).await?;
        oauth_client::start(&strategy, &redirect_uri(&headers, &tenant, &id))
    };
    match begun.await {
        Ok((url, pending)) => {
            external_login::begin(&state, &tenant, &headers, url.as_str(), pending)
        }
        Err(e) => external_login::failure(Provider::OAuth2, started, &e),
    }
}

/// The provider's answer, from the query (GET) or a form body (POST).
fn answer(
    method: &Method,
    uri_query: HashMap<String, String>,
    headers: &HeaderMap,
    body: &Bytes,
) -> HashMap<String, String> {
    let mut params = uri_query;
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if method == Method::POST && form {
        params.extend(url::form_urlencoded::parse(body).into_owned());
    }
    params
}

/// Consumes the provider's answer (strategy named by `?id=`).
#[utoipa::path(
    get,
    path = "/auth/oauth2/callback",
    tag = "sso",
    params(("id" = Option<String>, Query, description = "the strategy"), ("code" = Option<String>, Query), ("state" = Option<String>, Query)),
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "the same parameters, for `response_mode=form_post`"),
    responses(
        (status = 303, description = "signed in: to the stored `continue`, or `/`"),
        (status = 302, description = "to `/auth/failure`; the reason is logged"),
        (status = 401, description = "`state` does not match the session's: `{\"error\":\"oauth state mismatch\"}`"),
    )
)]
pub async fn callback(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    method: Method,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let params = answer(&method, query, &headers, &body);
    consume(&state, &tenant, &headers, None, params).await
}

/// Consumes the provider's answer (strategy named by the path).
pub async fn callback_for(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    method: Method,
    Path(strategy_id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let params = answer(&method, query, &headers, &body);
    consume(&state, &tenant, &headers, Some(strategy_id), params).await
}

async fn consume(
    state: &AppState,
    tenant: &Tenant,
    headers: &HeaderMap,
    path_strategy: Option<String>,
    params: HashMap<String, String>,
) -> Response {
    let started = Instant::now();
    let mismatch = || AppError::Unauthorized("oauth state mismatch").into_response();
    let Some(mut session) = state.cookies.read(headers, &tenant.authority) else {
        tracing::warn!("oauth2 callback without a session");
        return mismatch();
    };
    let Some(pending) = session
        .pending
        .take()
        .filter(|p| p.provider == Provider::OAuth2.as_str())
    else {
        tracing::warn!("oauth2 callback without a login under way");
        return mismatch();
    };
    let returned = params.get("state").map(String::as_str).unwrap_or_default();
    if !bool::from(returned.as_bytes().ct_eq(pending.state.as_bytes())) {
        tracing::warn!("oauth2 callback with another state");
        return mismatch();
    }
    // From here on the pending login is spent, whatever the outcome.
    let jar = state.cookies.write(&session);
    let login = Answer {
        headers,
        path_strategy,
        params: &params,
        pending: &pending,
        session: &session,
    };
    match finish(state, tenant, login, started).await {
        Ok(response) => response,
        Err(e) => (jar, external_login::failure(Provider::OAuth2, started, &e)).into_response(),
    }
}

/// A provider's answer whose `state` matched the session's.
struct Answer<'a> {
    headers: &'a HeaderMap,
    path_strategy: Option<String>,
    params: &'a HashMap<String, String>,
    pending: &'a PendingLogin,
    session: &'a Session,
}

async fn finish(
    state: &AppState,
    tenant: &Tenant,
    answer: Answer<'_>,
    started: Instant,
) -> Result<Response, LoginError> {
    let Answer {
        headers,
        path_strategy,
        params,
        pending,
        session,
    } = answer;
    let named = path_strategy.or_else(|| params.get("id").cloned());
    if named.as_deref().is_some_and(|id| id != pending.strategy) {
        return Err(LoginError::refused(
            "the answer names another strategy than the one started",
        ));
    }
    if let Some(error) = params.get("error") {
        // The provider's error code only (bounded): its description is its text, not ours to log at length.
        let error: String = error.chars().take(64).collect();
        return Err(LoginError::refused(format!(
            "the provider answered error={error:?}"
        )));
    }
    let code = params
        .get("code")
        .filter(|c| !c.is_empty())
        .cloned()
        .ok_or_else(|| LoginError::refused("the answer carries no code"))?;
    let strategy = strategy(state, tenant, &pending.strategy).await?;
    let transport = Transport {
        http: state.http.clone(),
        timeout: state.config.sso_provider_timeout,
    };
    let redirect_uri = redirect_uri(headers, tenant, &strategy.id);
    let identity =
        oauth_client::finish(&transport, &strategy, &redirect_uri, pending, code).await?;
    sso::sign_in(state, tenant, session, identity, started)
        .await
        .map(|signed| external_login::signed_in(state, &signed))
}
