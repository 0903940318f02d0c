//! First-time setup, sign-in and sign-out, token refresh, admins and password changes.
use super::Panel;
use super::error::{ApiError, ApiResult, JsonBody};
use super::password;
use super::session::{self, SignedIn};
use super::store::Admin;
use axum::Json;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

/// Longest admin name (it appears in the audit log and in the throttle's keys).
const MAX_USERNAME: usize = 64;

#[derive(Deserialize, ToSchema)]
pub struct SetupRequest {
    /// The token from the proxy's log line `admin setup token:` or the data directory's `setup-token` file.
    pub token: String,
    pub username: String,
    pub password: String,
}

#[derive(Deserialize, ToSchema)]
pub struct Credentials {
    pub username: String,
    pub password: String,
    /// The 6-digit code of the admin's authenticator app, or one of their recovery codes: needed when the
    /// account has a second factor (the answer to a sign-in without it is 401 with `key: "code"`).
    pub code: Option<String>,
}

#[derive(Deserialize, ToSchema)]
pub struct PasswordChange {
    pub current: String,
    pub new: String,
}

#[derive(Serialize, ToSchema)]
pub struct Status {
    /// No admin exists yet: the setup wizard is the only way in.
    pub setup_required: bool,
    /// The signed-in admin, if any.
    pub username: Option<String>,
    /// The signed-in admin's role (admin or viewer).
    pub role: Option<String>,
    /// A second factor is required of every account.
    pub totp_required: bool,
}

#[derive(Serialize, ToSchema)]
pub struct SignedInAnswer {
    pub username: String,
    /// admin or viewer
    pub role: String,
    /// Send it back as `X-CSRF-Token` on every state-changing request (also in the `waf_admin_csrf` cookie).
    pub csrf: String,
}

pub fn check_username(name: &str) -> ApiResult<()> {
    let ok = !name.is_empty()
        && name.len() <= MAX_USERNAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._@-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(ApiError::field(
            "username",
            format!("username: 1 to {MAX_USERNAME} letters, digits or . _ @ -"),
        ))
    }
}

#[utoipa::path(get, path = "/api/status", responses((status = 200, body = Status)))]
pub async fn status(
    State(panel): State<Arc<Panel>>,
    who: Option<SignedIn>,
) -> ApiResult<Json<Status>> {
    let (username, role) = who.map(|w| (w.username, w.role)).unzip();
    Ok(Json(Status {
        setup_required: panel.store.admin_count().await? == 0,
        username,
        role,
        totp_required: panel
            .totp_required
            .load(std::sync::atomic::Ordering::Relaxed),
    }))
}

/// Creates the first admin with the one-time setup token.
#[utoipa::path(post, path = "/api/setup", request_body = SetupRequest,
    responses((status = 201, description = "first admin created"), (status = 403, description = "wrong token"),
        (status = 409, description = "setup already done")))]
pub async fn setup(
    State(panel): State<Arc<Panel>>,
    parts: Parts,
    JsonBody(req): JsonBody<SetupRequest>,
) -> ApiResult<StatusCode> {
    session::check_origin(&parts.headers)?;
    if !panel.setup.pending() {
        return Err(ApiError::new(StatusCode::CONFLICT, "setup is already done"));
    }
    if !panel.setup.matches(&req.token) {
        return Err(ApiError::forbidden("wrong setup token"));
    }
    check_username(&req.username)?;
    password::check_policy(&req.password)
        .map_err(|e| ApiError::field("password", e.to_string()))?;
    let hash = password::hash(req.password)
        .await
        .map_err(|e| ApiError::internal("setup", e))?;
    if !panel.store.create_first_admin(&req.username, &hash).await? {
        return Err(ApiError::new(StatusCode::CONFLICT, "setup is already done"));
    }
    panel.setup.spend();
    let client = session::client(&parts);
    panel
        .store
        .audit(
            &req.username,
            &client,
            "setup: first admin created",
            None,
            None,
        )
        .await?;
    tracing::info!(
        "admin panel: first admin {:?} created from {client}",
        req.username
    );
    Ok(StatusCode::CREATED)
}

#[utoipa::path(post, path = "/api/session", request_body = Credentials,
    responses((status = 200, body = SignedInAnswer), (status = 401), (status = 429)))]
pub async fn sign_in(
    State(panel): State<Arc<Panel>>,
    parts: Parts,
    JsonBody(req): JsonBody<Credentials>,
) -> ApiResult<Response> {
    session::check_origin(&parts.headers)?;
    let client = session::client(&parts);
    let address = client
        .parse()
        .unwrap_or(std::net::Ipv4Addr::UNSPECIFIED.into());
    if let Err(wait) = panel.throttle.check(address, &req.username) {
        let mut response = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too many sign-in attempts: wait and try again",
        )
        .into_response();
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(wait));
        return Ok(response);
    }
    let admin = password_holder(&panel, &req.username, req.password, &client).await?;
    check_second_factor(&panel, &admin, req.code.as_deref(), &client).await?;
    let session_id = hex::encode(rand::random::<[u8; 16]>());
    let expires = super::store::now() + session::SESSION_SECONDS;
    panel
        .store
        .create_session(&session_id, admin.id, expires)
        .await?;
    let csrf = hex::encode(rand::random::<[u8; 16]>());
    let issued = panel.issue(admin.id, &session_id, csrf, expires)?;
    panel
        .store
        .audit(&admin.username, &client, "sign-in", None, None)
        .await?;
    Ok(with_cookies(
        issued.cookies,
        Json(SignedInAnswer {
            username: admin.username,
            role: admin.role,
            csrf: issued.csrf,
        }),
    ))
}

/// The admin `username` names, when `password` is theirs; else 401, audited. A name that does not exist costs
/// the same hashing as one that does (the decoy hash), so the answer's time does not tell them apart.
async fn password_holder(
    panel: &Panel,
    username: &str,
    password: String,
    client: &str,
) -> ApiResult<Admin> {
    let admin = if username.len() <= MAX_USERNAME {
        panel.store.admin_by_name(username).await?
    } else {
        None
    };
    let stored = admin.as_ref().map_or_else(
        || password::decoy().to_string(),
        |a| a.password_hash.clone(),
    );
    // An over-long password cannot be right (none is stored longer): refused without hashing it.
    let valid = password.len() <= password::MAX_LEN && password::verify(password, stored).await;
    match admin {
        Some(admin) if valid => Ok(admin),
        _ => {
            // The name as typed is data in the audit log (bounded, never a format string or a log line).
            let typed: String = username.chars().take(MAX_USERNAME).collect();
            panel
                .store
                .audit(&typed, client, "sign-in failed", None, None)
                .await?;
            Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "wrong username or password",
            ))
        }
    }
}

/// For an admin with a second factor: `code` must be a current code of their authenticator app or an unused
/// recovery code; else 401 about `code` (a wrong one audited).
async fn check_second_factor(
    panel: &Panel,
    admin: &Admin,
    code: Option<&str>,
    client: &str,
) -> ApiResult<()> {
    let Some(secret) = &admin.totp_secret else {
        return Ok(());
    };
    let Some(code) = code.filter(|c| !c.trim().is_empty()) else {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "code: enter the code of your authenticator app (or a recovery code)",
        )
        .about("code"));
    };
    if !super::admins::second_factor(panel, admin, secret, code).await? {
        panel
            .store
            .audit(
                &admin.username,
                client,
                "sign-in failed: wrong code",
                None,
                None,
            )
            .await?;
        return Err(
            ApiError::new(StatusCode::UNAUTHORIZED, "code: wrong or used code").about("code"),
        );
    }
    Ok(())
}

#[utoipa::path(post, path = "/api/session/refresh",
    responses((status = 200, body = SignedInAnswer), (status = 401)))]
pub async fn refresh(State(panel): State<Arc<Panel>>, parts: Parts) -> ApiResult<Response> {
    let (who, issued) = panel.refresh(&parts).await?;
    Ok(with_cookies(
        issued.cookies,
        Json(SignedInAnswer {
            username: who.username,
            role: who.role,
            csrf: issued.csrf,
        }),
    ))
}

#[utoipa::path(delete, path = "/api/session", responses((status = 204)))]
pub async fn sign_out(State(panel): State<Arc<Panel>>, who: SignedIn) -> ApiResult<Response> {
    panel.store.revoke_session(&who.session_id).await?;
    panel
        .store
        .audit(&who.username, &who.client, "sign-out", None, None)
        .await?;
    Ok(with_cookies(
        panel.cleared_cookies()?,
        StatusCode::NO_CONTENT,
    ))
}

/// Changes the signed-in admin's password; their other sessions end.
#[utoipa::path(put, path = "/api/me/password", request_body = PasswordChange,
    responses((status = 204), (status = 403, description = "wrong current password")))]
pub async fn change_password(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    JsonBody(req): JsonBody<PasswordChange>,
) -> ApiResult<StatusCode> {
    let admin = panel
        .store
        .admin_by_id(who.admin_id)
        .await?
        .ok_or_else(ApiError::unauthorized)?;
    if !password::verify(req.current, admin.password_hash).await {
        return Err(ApiError::forbidden("wrong current password").about("current"));
    }
    password::check_policy(&req.new).map_err(|e| ApiError::field("new", e.to_string()))?;
    let hash = password::hash(req.new)
        .await
        .map_err(|e| ApiError::internal("changing a password", e))?;
    panel
        .store
        .set_password(who.admin_id, &hash, &who.session_id)
        .await?;
    panel
        .store
        .audit(&who.username, &who.client, "password changed", None, None)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

fn with_cookies(cookies: [HeaderValue; 2], body: impl IntoResponse) -> Response {
    let mut response = body.into_response();
    for cookie in cookies {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}
