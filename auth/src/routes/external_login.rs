//! The HTTP side of an external login (OAuth 2.0 or SAML): the redirect to the provider with the pending login in
//! the session, and the answers to a login that failed or succeeded. The login logic ([`crate::sso`]) returns
//! results; these turn them into responses.

use std::time::Instant;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::events::Provider;
use crate::session::{PendingLogin, Session};
use crate::sso::{LoginError, SignedIn};
use crate::state::AppState;
use crate::tenancy::Tenant;

/// The answer that sends the browser to the provider at `url`, its session holding `pending` until the answer.
/// The session carrying `continue` (from `/auth/login`) is kept; a browser without one gets a new one.
pub fn begin(
    state: &AppState,
    tenant: &Tenant,
    headers: &HeaderMap,
    url: &str,
    pending: PendingLogin,
) -> Response {
    let minutes = state.session_minutes(&tenant.authority);
    let mut session = state
        .cookies
        .read(headers, &tenant.authority)
        .unwrap_or_else(|| Session::new(&tenant.authority, None, minutes));
    session.pending = Some(pending);
    (state.cookies.write(&session), crate::routes::see_other(url)).into_response()
}

/// The answer to a failed external login: 302 to `/auth/failure`, the reason logged.
pub fn failure(provider: Provider, started: Instant, reason: &LoginError) -> Response {
    crate::metrics::login(provider.as_str(), "failure", started.elapsed());
    match reason {
        LoginError::Store(_) => {
            tracing::error!(provider = provider.as_str(), reason = %reason, "external login failed")
        }
        _ => {
            tracing::warn!(provider = provider.as_str(), reason = %reason, "external login failed")
        }
    }
    (
        StatusCode::FOUND,
        [(header::LOCATION, HeaderValue::from_static("/auth/failure"))],
    )
        .into_response()
}

/// The answer to a completed external login: 303 to its destination with the new session cookie (and the asset
/// cookie).
pub fn signed_in(state: &AppState, signed_in: &SignedIn) -> Response {
    let jar = state.cookies.write(&signed_in.session);
    let asset_cookie = axum::response::AppendHeaders([(header::SET_COOKIE, state.assets.issue())]);
    (
        jar,
        asset_cookie,
        crate::routes::see_other(&signed_in.continue_to),
    )
        .into_response()
}
