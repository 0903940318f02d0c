//! Admin accounts beyond sign-in: the list, adding one with a role (`admin`, or `viewer`: read-only, refused
//! with 403 on any change but their own password and second factor, `session.rs`), removing one, the live
//! sessions and their revocation, and the TOTP second factor (`totp.rs`) with its recovery codes, which an admin
//! can require of every account.
use super::Panel;
use super::accounts::check_username;
use super::error::{ApiError, ApiResult, JsonBody};
use super::password;
use super::session::SignedIn;
use super::store::{Admin, AdminInfo, SessionInfo};
use super::totp;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use utoipa::ToSchema;

/// The `panel_settings` key of `PUT /api/config/admin-totp`.
pub const TOTP_REQUIRED: &str = "admin_totp_required";
const ROLES: [&str; 2] = ["admin", "viewer"];

#[derive(Deserialize, ToSchema)]
pub struct NewAdmin {
    pub username: String,
    pub password: String,
    /// admin (the default) or viewer (read-only)
    pub role: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdminChange {
    /// admin or viewer
    pub role: String,
}

#[derive(Serialize, ToSchema)]
pub struct TotpEnrolment {
    /// The secret, base32, for typing into an app.
    pub secret: String,
    /// The `otpauth://` URI apps read (as a QR code, or pasted).
    pub otpauth_uri: String,
    /// The URI as a QR code, an SVG document (the UI shows it for the app's camera).
    pub qr_svg: Option<String>,
}

#[derive(Deserialize, ToSchema)]
pub struct TotpCode {
    /// The app's current 6-digit code.
    pub code: String,
}

#[derive(Serialize, ToSchema)]
pub struct RecoveryCodes {
    /// Each signs in once in place of a code; shown this once.
    pub recovery_codes: Vec<String>,
}

#[derive(Deserialize, ToSchema)]
pub struct TotpRequirement {
    pub required: bool,
}

#[utoipa::path(get, path = "/api/admins", responses((status = 200, body = Vec<AdminInfo>)))]
pub async fn list_admins(
    State(panel): State<Arc<Panel>>,
    _who: SignedIn,
) -> ApiResult<Json<Vec<AdminInfo>>> {
    Ok(Json(panel.store.admins().await?))
}

#[utoipa::path(post, path = "/api/admins", request_body = NewAdmin,
    responses((status = 201), (status = 400, description = "a bad name, password or role, named in `key`"),
        (status = 403, description = "a viewer"), (status = 409, description = "name taken")))]
pub async fn add_admin(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    JsonBody(req): JsonBody<NewAdmin>,
) -> ApiResult<StatusCode> {
    check_username(&req.username)?;
    let role = req.role.as_deref().unwrap_or("admin");
    check_role(role)?;
    password::check_policy(&req.password)
        .map_err(|e| ApiError::field("password", e.to_string()))?;
    let hash = password::hash(req.password)
        .await
        .map_err(|e| ApiError::internal("adding an admin", e))?;
    if !panel.store.create_admin(&req.username, &hash, role).await? {
        return Err(
            ApiError::new(StatusCode::CONFLICT, "username: that name is taken").about("username"),
        );
    }
    let after = json!({ "username": req.username, "role": role }).to_string();
    panel
        .store
        .audit(
            &who.username,
            &who.client,
            "admin added",
            None,
            Some(&after),
        )
        .await?;
    Ok(StatusCode::CREATED)
}

fn check_role(role: &str) -> ApiResult<()> {
    if !ROLES.contains(&role) {
        return Err(ApiError::field(
            "role",
            format!("role: {role:?} is not admin or viewer"),
        ));
    }
    Ok(())
}

/// Gives an account another role, applied to its sessions' next request. The last account with the `admin`
/// role keeps it (nobody could then change anything, this included).
#[utoipa::path(patch, path = "/api/admins/{username}", request_body = AdminChange,
    params(("username" = String, Path, description = "the account")),
    responses((status = 200), (status = 400, description = "not a role"), (status = 404),
        (status = 409, description = "the last admin")))]
pub async fn change_admin(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    Path(username): Path<String>,
    JsonBody(req): JsonBody<AdminChange>,
) -> ApiResult<Json<serde_json::Value>> {
    check_role(&req.role)?;
    let Some(before) = panel.store.admin_by_name(&username).await? else {
        return Err(
            ApiError::not_found(format!("username: no account {username:?}")).about("username"),
        );
    };
    if !panel.store.set_role(&username, &req.role).await? {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "role: the last account with the admin role keeps it",
        )
        .about("role"));
    }
    panel
        .store
        .audit(
            &who.username,
            &who.client,
            "admin role changed",
            Some(&json!({ "username": username, "role": before.role }).to_string()),
            Some(&json!({ "username": username, "role": req.role }).to_string()),
        )
        .await?;
    Ok(Json(json!({ "username": username, "role": req.role })))
}

/// Removes an account and ends its sessions. The last account with the `admin` role stays, and nobody removes
/// themselves (a slip would lock them out mid-session).
#[utoipa::path(delete, path = "/api/admins/{username}",
    params(("username" = String, Path, description = "the account")),
    responses((status = 204), (status = 404), (status = 409, description = "the last admin, or yourself")))]
pub async fn remove_admin(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    Path(username): Path<String>,
) -> ApiResult<StatusCode> {
    if username == who.username {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "username: you cannot remove your own account",
        )
        .about("username"));
    }
    if panel.store.admin_by_name(&username).await?.is_none() {
        return Err(
            ApiError::not_found(format!("username: no account {username:?}")).about("username"),
        );
    }
    if !panel.store.remove_admin(&username).await? {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "username: the last account with the admin role stays",
        )
        .about("username"));
    }
    let before = json!({ "username": username }).to_string();
    panel
        .store
        .audit(
            &who.username,
            &who.client,
            "admin removed",
            Some(&before),
            None,
        )
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The live sessions: every account's for an admin, their own for a viewer.
#[utoipa::path(get, path = "/api/sessions", responses((status = 200, body = Vec<SessionInfo>)))]
pub async fn sessions(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
) -> ApiResult<Json<Vec<SessionInfo>>> {
    let only = (who.role != "admin").then_some(who.admin_id);
    Ok(Json(panel.store.sessions(only).await?))
}

/// Ends a session at once (its cookie stops working on its next request).
#[utoipa::path(delete, path = "/api/sessions/{id}",
    params(("id" = i64, Path, description = "the session's `id` in the list")),
    responses((status = 204), (status = 404)))]
pub async fn revoke_session(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    let id: i64 = id
        .parse()
        .map_err(|_| ApiError::field("id", format!("id: {id:?} is not a session id")))?;
    if !panel.store.revoke_session_by_handle(id, None).await? {
        return Err(ApiError::not_found(format!("id: no live session {id}")).about("id"));
    }
    panel
        .store
        .audit(&who.username, &who.client, "session revoked", None, None)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Starts setting up a second factor: a new secret, for the app, that `PUT /api/me/totp` confirms. Until then
/// the account signs in as before (a second factor already set up stays in force).
#[utoipa::path(post, path = "/api/me/totp", responses((status = 200, body = TotpEnrolment)))]
pub async fn start_totp(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
) -> ApiResult<Json<TotpEnrolment>> {
    let secret = totp::new_secret();
    panel.store.set_totp_pending(who.admin_id, &secret).await?;
    let otpauth_uri = totp::uri(&secret, &who.username);
    Ok(Json(TotpEnrolment {
        qr_svg: super::qr::svg(&otpauth_uri),
        otpauth_uri,
        secret,
    }))
}

/// Confirms the second factor with a code of the app; answers the recovery codes (shown once). From then on,
/// sign-in asks for a code.
#[utoipa::path(put, path = "/api/me/totp", request_body = TotpCode,
    responses((status = 200, body = RecoveryCodes), (status = 400, description = "a wrong code, or no enrolment started")))]
pub async fn confirm_totp(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    JsonBody(req): JsonBody<TotpCode>,
) -> ApiResult<Json<RecoveryCodes>> {
    let admin = panel
        .store
        .admin_by_id(who.admin_id)
        .await?
        .ok_or_else(ApiError::unauthorized)?;
    let pending = admin
        .totp_pending
        .ok_or_else(|| ApiError::field("code", "code: start with POST /api/me/totp"))?;
    let step = totp::verify(&pending, &req.code, super::store::now(), None)
        .ok_or_else(|| ApiError::field("code", "code: not the app's current code"))?;
    let codes = totp::recovery_codes();
    let hashes: Vec<String> = codes.iter().map(|c| totp::recovery_hash(c)).collect();
    panel
        .store
        .confirm_totp(who.admin_id, step, &hashes)
        .await?;
    panel
        .store
        .audit(
            &who.username,
            &who.client,
            "second factor set up",
            None,
            None,
        )
        .await?;
    Ok(Json(RecoveryCodes {
        recovery_codes: codes,
    }))
}

/// Requires a second factor of every account (or no longer). Accounts without one can then only set one up
/// after signing in. The admin requiring it must have one.
#[utoipa::path(put, path = "/api/config/admin-totp", request_body = TotpRequirement,
    responses((status = 200), (status = 400, description = "you have no second factor yet")))]
pub async fn require_totp(
    State(panel): State<Arc<Panel>>,
    who: SignedIn,
    JsonBody(req): JsonBody<TotpRequirement>,
) -> ApiResult<Json<serde_json::Value>> {
    if req.required {
        let me = panel.store.admin_by_id(who.admin_id).await?;
        if me.is_none_or(|a| a.totp_secret.is_none()) {
            return Err(ApiError::field(
                "required",
                "required: set up your own second factor first (POST /api/me/totp)",
            ));
        }
    }
    let before = panel.totp_required.load(Ordering::Relaxed);
    panel
        .store
        .set_setting(TOTP_REQUIRED, if req.required { "true" } else { "false" })
        .await?;
    panel.totp_required.store(req.required, Ordering::Relaxed);
    panel
        .store
        .audit(
            &who.username,
            &who.client,
            "second factor requirement changed",
            Some(&json!({ "required": before }).to_string()),
            Some(&json!({ "required": req.required }).to_string()),
        )
        .await?;
    Ok(Json(json!({ "required": req.required })))
}

/// Whether `code` is the account's second factor now: a TOTP code not used before (its step then recorded), or
/// one of its recovery codes (then spent).
pub async fn second_factor(
    panel: &Panel,
    admin: &Admin,
    secret: &str,
    code: &str,
) -> ApiResult<bool> {
    if let Some(step) = totp::verify(secret, code, super::store::now(), admin.totp_last_step) {
        return Ok(panel.store.use_totp_step(admin.id, step).await?);
    }
    Ok(panel
        .store
        .use_recovery_code(admin.id, &totp::recovery_hash(code))
        .await?)
}
