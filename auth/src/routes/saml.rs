//! The SAML service provider's routes: `/auth/saml?id=` starts a login with the strategy `id` (AuthnRequest by
//! HTTP-Redirect), `/auth/saml/callback[/:strategy]` consumes the POSTed response, `/auth/saml/metadata[/:strategy]`
//! serves our SP metadata, and `/auth/saml/logout[/:strategy]` signs out here and at the identity provider.
//!
//! As for OAuth 2.0 (routes/oauth_client.rs): a strategy serves only its own authority, checked on start and on
//! callback; the answer must come back to the session that started the login, whose request ID it must name in
//! `InResponseTo`; the pending login is spent by the first answer, whatever its outcome. Every refusal is a 302 to
//! `/auth/failure` with the reason in the log.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use chrono::Utc;
use serde::Deserialize;
use utoipa::IntoParams;

use super::external_login;
use super::oidc::issuer;
use super::see_other;
use crate::error::AppError;
use crate::events::Provider;
use crate::saml::{self, Endpoints, hostile};
use crate::sso::{self, LoginError};
use crate::state::AppState;
use crate::store::SamlStrategy;
use crate::tenancy::Tenant;

pub fn router() -> Router<Arc<AppState>> {
    // A signed response is larger than the service's other forms; base64 adds a third, form encoding a little more.
    let response_form_limit = DefaultBodyLimit::max(hostile::MAX_RESPONSE_BYTES * 2);
    Router::new()
        .route("/auth/saml", get(start))
        .route(
            "/auth/saml/callback",
            post(callback).layer(response_form_limit),
        )
        .route(
            "/auth/saml/callback/{strategy}",
            post(callback_for).layer(response_form_limit),
        )
        .route("/auth/saml/metadata", get(metadata))
        .route("/auth/saml/metadata/{strategy}", get(metadata_for))
        .route("/auth/saml/logout", get(logout))
        .route("/auth/saml/logout/{strategy}", get(logout_for))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StrategyQuery {
    /// The `adfs_strat` id.
    id: Option<String>,
}

/// Our endpoints for `strategy` on this host.
fn endpoints(headers: &HeaderMap, tenant: &Tenant, strategy: &SamlStrategy) -> Endpoints {
    let base = format!("{}/auth/saml", issuer(headers, tenant));
    let id = &strategy.id;
    Endpoints {
        acs_url: strategy
            .assertion_consumer_service_url
            .clone()
            .filter(|u| !u.trim().is_empty())
            .unwrap_or_else(|| format!("{base}/callback/{id}")),
        metadata_url: format!("{base}/metadata/{id}"),
        logout_url: format!("{base}/logout/{id}"),
    }
}

/// The strategy `id` if it exists and belongs to the tenant's authority.
async fn strategy(state: &AppState, tenant: &Tenant, id: &str) -> Result<SamlStrategy, LoginError> {
    let row = state
        .store
        .saml_strategy_by_id(sso::checked_strategy_id(id)?)
        .await?;
    sso::own_strategy(tenant, id, row)
}

/// Starts a login with a SAML identity provider.
#[utoipa::path(
    get,
    path = "/auth/saml",
    tag = "sso",
    params(StrategyQuery),
    responses(
        (status = 303, description = "to the identity provider, with `SAMLRequest` and `RelayState`"),
        (status = 302, description = "to `/auth/failure`: unknown strategy, or one of another authority"),
    )
)]
pub async fn start(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let started = Instant::now();
    let id = query.get("id").cloned().unwrap_or_default();
    let begun = async {
        let strategy = strategy(&state, &tenant, &id).await?;
        saml::start(&strategy, &endpoints(&headers, &tenant, &strategy), &query)
    };
    match begun.await {
        Ok((url, pending)) => {
            external_login::begin(&state, &tenant, &headers, url.as_str(), pending)
        }
        Err(e) => external_login::failure(Provider::Saml, started, &e),
    }
}

/// Consumes the identity provider's response (POST binding; the strategy is the one the session started).
#[utoipa::path(
    post,
    path = "/auth/saml/callback",
    tag = "sso",
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "`SAMLResponse` (base64) and `RelayState`"),
    responses(
        (status = 303, description = "signed in: to the stored `continue`, or `/`"),
        (status = 302, description = "to `/auth/failure`; the reason is logged"),
        (status = 200, description = "a page posting the response again from our origin, when the browser left out the `SameSite=Lax` session cookie"),
    )
)]
pub async fn callback(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    consume(&state, &tenant, &headers, None, &body).await
}

/// Consumes the identity provider's response (strategy named by the path).
pub async fn callback_for(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    Path(strategy_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    consume(&state, &tenant, &headers, Some(strategy_id), &body).await
}

async fn consume(
    state: &AppState,
    tenant: &Tenant,
    headers: &HeaderMap,
    path_strategy: Option<String>,
    body: &Bytes,
) -> Response {
    let started = Instant::now();
    let fail = |e: LoginError| external_login::failure(Provider::Saml, started, &e);
    let fields: Vec<(String, String)> = url::form_urlencoded::parse(body).into_owned().collect();
    let field = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let Some(mut session) = state.cookies.read(headers, &tenant.authority) else {
        if field("SAMLResponse").is_some() && field(REPOSTED).is_none() {
            return repost(&fields);
        }
        return fail(LoginError::refused(
            "SAML response without a session (unsolicited responses are refused)",
        ));
    };
    let Some(pending) = session
        .pending
        .take()
        .filter(|p| p.provider == Provider::Saml.as_str())
    else {
        return fail(LoginError::refused(
            "SAML response without a login under way",
        ));
    };
    // From here on the pending login is spent, whatever the outcome.
    let jar = state.cookies.write(&session);
    let finished = async {
        if path_strategy.is_some_and(|id| id != pending.strategy) {
            return Err(LoginError::refused(
                "the response names another strategy than the one started",
            ));
        }
        let saml_response = field("SAMLResponse")
            .ok_or_else(|| LoginError::refused("the POST carries no SAMLResponse"))?;
        let strategy = strategy(state, tenant, &pending.strategy).await?;
        let endpoints = endpoints(headers, tenant, &strategy);
        // xmlsec's verification is CPU work of a millisecond or more: off the request threads.
        let replays = &state.saml_replays;
        let identity = tokio::task::block_in_place(|| {
            saml::finish(&strategy, &endpoints, &pending, saml_response, replays)
        })?;
        sso::sign_in(state, tenant, &session, identity, started)
            .await
            .map(|signed| external_login::signed_in(state, &signed))
    };
    match finished.await {
        Ok(response) => response,
        Err(e) => (jar, fail(e)).into_response(),
    }
}

/// Marks a response this service posted back to itself (see [`repost`]), so it is reposted once at most.
const REPOSTED: &str = "reposted";

/// The identity provider's POST is a cross-site request: over plain HTTP the session cookie is `SameSite=Lax`
/// (browsers refuse `None` without `Secure`), and a browser leaves it out. The answer is a page that posts the same
/// fields to the same URL from our own origin, which carries the cookie; without one the second arrival fails as
/// unsolicited. (In production the cookie is `SameSite=None; Secure` and arrives the first time.)
fn repost(fields: &[(String, String)]) -> Response {
    let inputs: String = fields
        .iter()
        .filter(|(name, _)| name == "SAMLResponse" || name == "RelayState")
        .map(|(name, value)| {
            format!(
                "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
                html_escape(name),
                html_escape(value)
            )
        })
        .collect();
    let page = format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Signing in</title></head>\n<body>\
         <form method=\"post\">{inputs}<input type=\"hidden\" name=\"{REPOSTED}\" value=\"1\">\
         <noscript><button type=\"submit\">Continue</button></noscript></form>\
         <script>document.forms[0].submit()</script></body></html>\n"
    );
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        page,
    )
        .into_response()
}

fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Our SP metadata for a strategy, to register with the identity provider.
#[utoipa::path(
    get,
    path = "/auth/saml/metadata",
    tag = "sso",
    params(StrategyQuery),
    responses(
        (status = 200, content_type = "application/samlmetadata+xml", description = "an EntityDescriptor with our ACS URL"),
        (status = 404, description = "no such strategy on this authority"),
    )
)]
pub async fn metadata(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    Query(query): Query<StrategyQuery>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    metadata_of(&state, &tenant, &headers, &query.id.unwrap_or_default()).await
}

pub async fn metadata_for(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    Path(strategy_id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    metadata_of(&state, &tenant, &headers, &strategy_id).await
}

async fn metadata_of(
    state: &AppState,
    tenant: &Tenant,
    headers: &HeaderMap,
    id: &str,
) -> Result<Response, AppError> {
    let strategy = match strategy(state, tenant, id).await {
        Ok(strategy) => strategy,
        Err(LoginError::Store(e)) => return Err(e.into()),
        Err(_) => return Err(AppError::NotFound("no such SAML strategy")),
    };
    match saml::metadata(&strategy, &endpoints(headers, tenant, &strategy)) {
        Ok(xml) => Ok((
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/samlmetadata+xml")],
            xml,
        )
            .into_response()),
        Err(e) => {
            tracing::warn!(strategy = %strategy.id, reason = %e, "SAML metadata");
            Err(AppError::NotFound("this SAML strategy is misconfigured"))
        }
    }
}

/// Signs out here (every session of the user, as `/auth/logout`) and, when the strategy has an
/// `idp_slo_target_url`, at the identity provider by a LogoutRequest naming the session's NameID.
#[utoipa::path(
    get,
    path = "/auth/saml/logout",
    tag = "sso",
    params(StrategyQuery),
    responses(
        (status = 303, description = "to the identity provider's single logout URL, or `/` without one"),
    )
)]
pub async fn logout(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    Query(query): Query<StrategyQuery>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    logout_of(&state, &tenant, &headers, &query.id.unwrap_or_default()).await
}

pub async fn logout_for(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    Path(strategy_id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    logout_of(&state, &tenant, &headers, &strategy_id).await
}

async fn logout_of(
    state: &AppState,
    tenant: &Tenant,
    headers: &HeaderMap,
    id: &str,
) -> Result<Response, AppError> {
    let session = state.cookies.read(headers, &tenant.authority);
    if let Some(session) = &session
        && let Some(user) = session.user(state.store.as_ref()).await?
    {
        state.store.record_logout(&user.id, Utc::now()).await?;
        tracing::info!(user_id = %user.id, "logged out (SAML)");
    }
    let name_id = session.as_ref().and_then(|s| s.name_id.as_deref());
    let target = match strategy(state, tenant, id).await {
        Ok(strategy) => match saml::logout_request(&strategy, name_id) {
            Ok(Some(url)) => url.to_string(),
            Ok(None) => "/".to_string(),
            Err(e) => {
                tracing::warn!(strategy = %strategy.id, reason = %e, "SAML single logout");
                "/".to_string()
            }
        },
        Err(LoginError::Store(e)) => return Err(e.into()),
        // The identity provider's answer to our LogoutRequest comes back here too; either way the local logout is done.
        Err(_) => "/".to_string(),
    };
    let mut response = see_other(&target);
    if let Ok(clear) = header::HeaderValue::from_str(&state.cookies.clear()) {
        response.headers_mut().insert(header::SET_COOKIE, clear);
    }
    Ok(response)
}
