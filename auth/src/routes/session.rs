//! The session protocol: `/auth/healthz`, `/auth/authority`, `/auth/signin`, `/auth/logout`, `/auth/login`,
//! `/auth/failure`, as the legacy service answers them (see `docs/auth-wire.md`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{ConnectInfo, Query, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{AppendHeaders, Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::see_other;
use crate::client_addr::client_ip;
use crate::error::AppError;
use crate::events::Provider;
use crate::session::Session;
use crate::state::AppState;
use crate::tenancy::{self, Tenant};
use crate::{apikey, bearer, metrics, password, redirect};

pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/auth/healthz", get(healthz))
        .route("/auth/authority", get(authority))
        .route("/auth/signin", post(signin))
        .route("/auth/logout", get(logout))
        .route("/auth/login", get(login))
        .route("/auth/failure", get(failure))
        .route("/auth/verified", get(verified))
}

#[derive(Serialize, ToSchema)]
pub struct Health {
    status: &'static str,
    app: &'static str,
    version: &'static str,
}

/// Liveness; touches no database.
#[utoipa::path(get, path = "/auth/healthz", tag = "session", responses((status = 200, body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health {
        status: "ok",
        app: "auth",
        version: env!("CARGO_PKG_VERSION"),
    })
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuthorityQuery {
    /// Present (with or without a value): a probe answered 200 with an empty body, without touching the database.
    health: Option<String>,
}

/// The request's authority as clients see it (never its `internals`).
#[derive(Serialize, ToSchema)]
pub struct AuthorityView {
    id: String,
    name: String,
    description: Option<String>,
    domain: String,
    login_url: Option<String>,
    logout_url: Option<String>,
    email_domains: Vec<String>,
    #[schema(value_type = Object)]
    config: Value,
    updated_at: Option<DateTime<Utc>>,
    version: &'static str,
    production: bool,
    /// The request carries a valid session cookie.
    session: bool,
    /// The request carries a valid API key (or Bearer token).
    token_valid: bool,
}

/// The request's authority, with whether the caller is signed in.
#[utoipa::path(
    get,
    path = "/auth/authority",
    tag = "session",
    params(
        AuthorityQuery,
        ("api-key" = Option<String>, Query, description = "an API key, instead of the `X-API-Key` header"),
    ),
    responses(
        (status = 200, description = "the authority, or an empty body for `?health`", body = AuthorityView),
        (status = 401, description = "an API key was presented and is unknown, malformed or expired"),
        (status = 404, description = "no authority for the request's host"),
    )
)]
pub async fn authority(
    State(state): State<Arc<AppState>>,
    Query(query): Query<AuthorityQuery>,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, AppError> {
    if query.health.is_some() {
        return Ok(StatusCode::OK.into_response());
    }
    let tenant = tenancy::resolve(&state, &headers, &uri).await?;
    let session = match state.cookies.read(&headers, &tenant.authority) {
        Some(session) => session.user(state.store.as_ref()).await?.is_some(),
        None => false,
    };
    // An API key is checked before a Bearer token; a presented key that fails answers 401.
    let token_valid = match apikey::presented(&headers, &uri) {
        Some(key) => {
            apikey::verify(&state, &tenant, &key).await?;
            true
        }
        None => match bearer::presented(&headers) {
            Some(token) => bearer::verify(&state, &tenant, token).await?.is_some(),
            None => false,
        },
    };
    // A valid token or key earns the browser the asset cookie, as a sign-in does.
    let asset_cookie = token_valid.then(|| state.assets.issue());
    let a = tenant.authority;
    let view = Json(AuthorityView {
        id: a.id,
        name: a.name,
        description: a.description,
        domain: a.domain,
        login_url: a.login_url,
        logout_url: a.logout_url,
        email_domains: a.email_domains,
        config: a.config,
        updated_at: a.updated_at,
        version: env!("CARGO_PKG_VERSION"),
        production: state.config.production,
        session,
        token_valid,
    });
    Ok((
        AppendHeaders(asset_cookie.map(|c| (header::SET_COOKIE, c))),
        view,
    )
        .into_response())
}

/// The sign-in body, as JSON or as a form.
#[derive(ToSchema)]
pub struct SigninForm {
    email: String,
    password: String,
    /// Where to send the browser after sign-in (same host only).
    #[schema(rename = "continue")]
    continue_to: Option<String>,
}

impl SigninForm {
    fn parse(headers: &HeaderMap, body: &Bytes) -> Result<Self, AppError> {
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let mime = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let (mut email, mut password, mut continue_to) = (None, None, None);
        match mime.as_str() {
            "application/json" => {
                let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(body) else {
                    return Err(AppError::BadRequest(
                        "the body must be a JSON object".into(),
                    ));
                };
                let text =
                    |name: &str| fields.get(name).and_then(Value::as_str).map(str::to_string);
                (email, password, continue_to) =
                    (text("email"), text("password"), text("continue"));
            }
            "application/x-www-form-urlencoded" => {
                for (name, value) in url::form_urlencoded::parse(body) {
                    match &*name {
                        "email" => email = Some(value.into_owned()),
                        "password" => password = Some(value.into_owned()),
                        "continue" => continue_to = Some(value.into_owned()),
                        _ => {}
                    }
                }
            }
            _ => return Err(AppError::UnsupportedMediaType),
        }
        match (
            email.filter(|e| !e.trim().is_empty()),
            password.filter(|p| !p.is_empty()),
        ) {
            (Some(email), Some(password)) => Ok(SigninForm {
                email: email.trim().to_string(),
                password,
                continue_to,
            }),
            _ => Err(AppError::Unprocessable("email and password are required")),
        }
    }
}

const BAD_CREDENTIALS: &str = "invalid email or password";

/// Password sign-in.
#[utoipa::path(
    post,
    path = "/auth/signin",
    tag = "session",
    request_body(content(
        (SigninForm = "application/json"),
        (SigninForm = "application/x-www-form-urlencoded"),
    )),
    responses(
        (status = 202, description = "signed in; the session cookie `_coauth_session` is set"),
        (status = 303, description = "signed in and sent to `continue`, or failed and sent back to the `Referer`"),
        (status = 401, description = "wrong email or password"),
        (status = 415, description = "neither JSON nor a form"),
        (status = 422, description = "email or password missing"),
        (status = 429, description = "too many attempts for this account or client; see `Retry-After`"),
    )
)]
pub async fn signin(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    tenant: Tenant,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, AppError> {
    let form = SigninForm::parse(&headers, &body)?;
    let started = Instant::now();
    let client = client_ip(peer.ip(), &headers, &state.config.trusted_proxies);
    if let Err(retry_after_secs) = state
        .throttle
        .check(client, &tenant.authority.id, &form.email)
        .await
    {
        metrics::login(Provider::Internal.as_str(), "throttled", started.elapsed());
        tracing::warn!(%client, "sign-in throttled");
        return Err(AppError::TooManyRequests { retry_after_secs });
    }
    let user = state
        .store
        .user_by_email(&tenant.authority.id, &form.email)
        .await?
        .filter(|u| !u.deleted);
    let digest = user.as_ref().and_then(|u| u.password_digest.clone());
    let verified = password::verify(form.password, digest, state.dummy_digest.clone()).await;
    let Some(user) = user.filter(|_| verified) else {
        metrics::login(Provider::Internal.as_str(), "failure", started.elapsed());
        tracing::info!(%client, "sign-in failed");
        return Ok(signin_failure(
            &headers,
            &tenant,
            form.continue_to.is_some(),
        ));
    };
    state.store.record_login(&user.id, Utc::now()).await?;
    state.events.publish(&user.id, Provider::Internal);
    metrics::login(Provider::Internal.as_str(), "success", started.elapsed());
    tracing::info!(user_id = %user.id, "signed in");
    let minutes = state.session_minutes(&tenant.authority);
    let jar = state
        .cookies
        .write(&Session::new(&tenant.authority, Some(user.id), minutes));
    let asset_cookie = AppendHeaders([(header::SET_COOKIE, state.assets.issue())]);
    Ok(match form.continue_to {
        Some(target) => {
            let target = redirect::sanitize(&target, &tenant.host).unwrap_or_else(|| "/".into());
            (jar, asset_cookie, see_other(&target)).into_response()
        }
        None => (StatusCode::ACCEPTED, jar, asset_cookie).into_response(),
    })
}

/// 401, or for a browser form (one that sent `continue`) 303 back to the page it came from.
fn signin_failure(headers: &HeaderMap, tenant: &Tenant, browser: bool) -> Response {
    if !browser {
        return AppError::Unauthorized(BAD_CREDENTIALS).into_response();
    }
    let back = headers
        .get(header::REFERER)
        .and_then(|r| r.to_str().ok())
        .and_then(|r| redirect::sanitize(r, &tenant.host))
        .unwrap_or_else(|| "/auth/failure".into());
    see_other(&back)
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContinueQuery {
    /// Where to go next (same host only; refused values fall back).
    #[serde(rename = "continue")]
    continue_to: Option<String>,
}

/// Ends every session of the signed-in user, revokes a presented Bearer token, and clears the cookie.
#[utoipa::path(
    get,
    path = "/auth/logout",
    tag = "session",
    params(ContinueQuery),
    responses((status = 302, description = "to `continue`, `/`, or the authority's logout_url for a cross-host `continue`"))
)]
pub async fn logout(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    Query(query): Query<ContinueQuery>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    if let Some(session) = state.cookies.read(&headers, &tenant.authority)
        && let Some(user) = session.user(state.store.as_ref()).await?
    {
        state.store.record_logout(&user.id, Utc::now()).await?;
        tracing::info!(user_id = %user.id, "logged out");
    }
    if let Some(token) = bearer::presented(&headers)
        && let Some(bearer::Verified { claims, .. }) =
            bearer::verify(&state, &tenant, token).await?
    {
        bearer::revoke(&state, &claims).await?;
        tracing::info!(jti = %claims.jti, "token revoked at logout");
    }
    let target = match query.continue_to {
        None => "/".to_string(),
        Some(target) => redirect::sanitize(&target, &tenant.host)
            .or_else(|| {
                tenant
                    .authority
                    .logout_url
                    .clone()
                    .filter(|u| !u.is_empty())
            })
            .unwrap_or_else(|| "/".into()),
    };
    Ok((
        StatusCode::FOUND,
        [(header::LOCATION, target)],
        AppendHeaders([
            (header::SET_COOKIE, state.cookies.clear()),
            (header::SET_COOKIE, state.assets.clear()),
        ]),
    )
        .into_response())
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LoginQuery {
    /// Where to go after the login (same host; a file other than `.html` is refused).
    #[serde(rename = "continue")]
    continue_to: Option<String>,
    /// `oauth2` or `saml`: start that external login.
    provider: Option<String>,
    /// The strategy id of the external login.
    id: Option<String>,
}

/// Sends the browser to the authority's login page, or to an external login.
#[utoipa::path(
    get,
    path = "/auth/login",
    tag = "session",
    params(LoginQuery),
    responses(
        (status = 303, description = "to `/auth/<provider>?id=<id>`, or to the authority's login_url with `{{url}}` replaced by `continue`"),
        (status = 400, description = "`continue` names a file other than `.html`, or an unknown provider"),
    )
)]
pub async fn login(
    State(state): State<Arc<AppState>>,
    tenant: Tenant,
    Query(query): Query<LoginQuery>,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, AppError> {
    let continue_to = query.continue_to;
    if continue_to
        .as_deref()
        .is_some_and(redirect::names_non_html_file)
    {
        return Err(AppError::BadRequest(
            "continue must name an .html page".into(),
        ));
    }
    let continue_to = continue_to.and_then(|c| redirect::sanitize(&c, &tenant.host));
    if let (Some(provider), Some(id)) = (query.provider, query.id) {
        if !matches!(provider.as_str(), "oauth2" | "saml") {
            return Err(AppError::BadRequest(
                "provider must be oauth2 or saml".into(),
            ));
        }
        if !crate::sso::valid_strategy_id(&id) {
            return Err(AppError::BadRequest("invalid id".into()));
        }
        let minutes = state.session_minutes(&tenant.authority);
        let mut session = state
            .cookies
            .read(&headers, &tenant.authority)
            .unwrap_or_else(|| Session::new(&tenant.authority, None, minutes));
        session.continue_to = continue_to;
        let jar = state.cookies.write(&session);
        return Ok((jar, see_other(&format!("/auth/{provider}?id={id}"))).into_response());
    }
    let encoded: String =
        url::form_urlencoded::byte_serialize(continue_to.as_deref().unwrap_or("/").as_bytes())
            .collect();
    let target = match tenant
        .authority
        .login_url
        .as_deref()
        .filter(|u| !u.is_empty())
    {
        Some(login_url) => login_url.replace("{{url}}", &encoded),
        None => "/".to_string(),
    };
    // The API-key login path: a browser presenting a valid key gets the asset cookie; a key that fails changes
    // nothing here (the login page is where such a browser belongs anyway).
    let asset_cookie = match apikey::presented(&headers, &uri) {
        Some(key) => match apikey::verify(&state, &tenant, &key).await {
            Ok(_) => Some(state.assets.issue()),
            Err(AppError::Unauthorized(_)) => None,
            Err(other) => return Err(other),
        },
        None => None,
    };
    Ok((
        AppendHeaders(asset_cookie.map(|c| (header::SET_COOKIE, c))),
        see_other(&target),
    )
        .into_response())
}

/// The web server's `auth_request` check before it serves an asset: 204 when the request carries a valid
/// `verified` cookie, 401 otherwise. It reads no database and names no tenant, so it costs one HMAC.
#[utoipa::path(
    get,
    path = "/auth/verified",
    tag = "session",
    responses(
        (status = 204, description = "the `verified` asset cookie is valid"),
        (status = 401, description = "no valid `verified` cookie"),
    )
)]
pub async fn verified(State(state): State<Arc<AppState>>, headers: HeaderMap) -> StatusCode {
    if state.assets.presented(&headers) {
        StatusCode::NO_CONTENT
    } else {
        StatusCode::UNAUTHORIZED
    }
}

/// The page external logins land on when they fail.
#[utoipa::path(get, path = "/auth/failure", tag = "session", responses((status = 200, content_type = "text/html")))]
pub async fn failure() -> Html<&'static str> {
    Html(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Authentication failed</title></head>\n\
         <body><h1>Authentication failed</h1><p>We could not sign you in. Please go back and try again.</p></body></html>\n",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(content_type: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_TYPE, content_type.parse().unwrap());
        h
    }

    #[test]
    fn parses_json_and_forms() {
        let json = SigninForm::parse(
            &headers("application/json; charset=utf-8"),
            &Bytes::from_static(br#"{"email":" a@b.test ","password":"p w","continue":"/x"}"#),
        )
        .unwrap();
        assert_eq!(
            (json.email.as_str(), json.password.as_str()),
            ("a@b.test", "p w")
        );
        assert_eq!(json.continue_to.as_deref(), Some("/x"));
        let form = SigninForm::parse(
            &headers("application/x-www-form-urlencoded"),
            &Bytes::from_static(b"email=a%40b.test&password=p+w"),
        )
        .unwrap();
        assert_eq!(
            (form.email.as_str(), form.password.as_str()),
            ("a@b.test", "p w")
        );
        assert_eq!(form.continue_to, None);
    }

    #[test]
    fn refuses_missing_fields_and_other_bodies() {
        let parse = |ct: &str, body: &'static [u8]| {
            SigninForm::parse(&headers(ct), &Bytes::from_static(body))
        };
        assert!(matches!(
            parse("application/json", br#"{"email":"a@b"}"#),
            Err(AppError::Unprocessable(_))
        ));
        assert!(matches!(
            parse("application/json", br#"{"email":1,"password":"x"}"#),
            Err(AppError::Unprocessable(_))
        ));
        assert!(matches!(
            parse("application/json", b"[1]"),
            Err(AppError::BadRequest(_))
        ));
        assert!(matches!(
            parse("application/json", b"{"),
            Err(AppError::BadRequest(_))
        ));
        assert!(matches!(
            parse("text/plain", b"x"),
            Err(AppError::UnsupportedMediaType)
        ));
    }
}
