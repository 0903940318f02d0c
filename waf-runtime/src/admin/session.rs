//! Signed-in sessions: a short-lived JWT (HS256, key in the data directory) in an HttpOnly, SameSite=Strict
//! cookie, backed by a session row that sign-out revokes, plus the CSRF check of every state-changing request.
//!
//! - The JWT lives 15 minutes; `POST /api/session/refresh` issues a new one while its session lives (12 hours at
//!   most from sign-in). Each request also checks the session row, so a sign-out or a password change ends the
//!   session at once, not when the token expires.
//! - HttpOnly: page scripts never see the token (an earlier design kept tokens in localStorage, readable by any
//!   injected script). SameSite=Strict: no other site's page can make the browser send it. `Secure` when
//!   `admin.secure_cookies` is on (the panel served over HTTPS).
//! - CSRF: each session has a random CSRF value, inside the signed token and in a readable `waf_admin_csrf`
//!   cookie; a state-changing request must echo it in `X-CSRF-Token` (compared in constant time with the signed
//!   one, so a cookie planted by a sibling domain does not help) and, when it carries an `Origin`, that origin
//!   must be this panel's own. No CORS headers are ever sent, so other origins' scripts cannot read answers.
use super::Panel;
use super::error::ApiError;
use super::store;
use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, header};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::Arc;
use subtle::ConstantTimeEq;

pub const TOKEN_COOKIE: &str = "waf_admin";
pub const CSRF_COOKIE: &str = "waf_admin_csrf";
pub const CSRF_HEADER: &str = "x-csrf-token";
/// Lifetime of one token: short, so a leaked token is soon useless.
pub const TOKEN_SECONDS: i64 = 15 * 60;
/// Lifetime of a session from sign-in, refreshes included.
pub const SESSION_SECONDS: i64 = 12 * 3600;

#[derive(Serialize, Deserialize)]
struct Claims {
    /// The admin's id (a string: JWT libraries read `sub` as one).
    sub: String,
    /// The session id (a row in `sessions`).
    sid: String,
    csrf: String,
    iat: i64,
    exp: i64,
}

/// The HS256 key, 32 random bytes in `data_dir/session.key` (0600), made at first start.
pub struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl Keys {
    pub fn load_or_create(dir: &Path) -> std::io::Result<Keys> {
        let path = dir.join("session.key");
        let secret = match std::fs::read(&path) {
            Ok(bytes) if bytes.len() == 32 => bytes,
            Ok(_) => {
                return Err(std::io::Error::other(format!(
                    "{} is not 32 bytes: remove it to make a new key (signs everyone out)",
                    path.display()
                )));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let secret = rand::random::<[u8; 32]>().to_vec();
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&path)?;
                file.write_all(&secret)?;
                file.sync_all()?;
                secret
            }
            Err(e) => return Err(e),
        };
        Ok(Keys {
            encoding: EncodingKey::from_secret(&secret),
            decoding: DecodingKey::from_secret(&secret),
        })
    }
}

/// A signed-in admin, extracted from the cookie; for state-changing methods the CSRF check has passed too.
pub struct SignedIn {
    pub admin_id: i64,
    pub username: String,
    pub session_id: String,
    pub client: String,
    /// admin or viewer
    pub role: String,
}

/// What a `viewer` may still change: their own session and account.
const OWN_ACCOUNT: [&str; 4] = ["/session", "/session/refresh", "/me/password", "/me/totp"];
/// What an account without a second factor may reach while one is required of all (`/api/config/admin-totp`):
/// enough to set one up.
const ENROLMENT: [&str; 4] = ["/status", "/session", "/session/refresh", "/me/totp"];

/// The cookies and the CSRF value of a fresh token.
pub struct Issued {
    pub cookies: [HeaderValue; 2],
    pub csrf: String,
}

impl Panel {
    /// A new token for `session_id`, expiring after `TOKEN_SECONDS` or with the session, whichever is first.
    pub fn issue(
        &self,
        admin_id: i64,
        session_id: &str,
        csrf: String,
        session_expires: i64,
    ) -> Result<Issued, ApiError> {
        let now = store::now();
        let exp = (now + TOKEN_SECONDS).min(session_expires);
        let claims = Claims {
            sub: admin_id.to_string(),
            sid: session_id.to_string(),
            csrf: csrf.clone(),
            iat: now,
            exp,
        };
        let token =
            jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.keys.encoding)
                .map_err(|e| ApiError::internal("signing a token", e))?;
        // The token cookie outlives the token a little: the browser then still sends it to `refresh`.
        let max_age = session_expires - now;
        Ok(Issued {
            cookies: [
                self.cookie(TOKEN_COOKIE, &token, max_age, true)?,
                self.cookie(CSRF_COOKIE, &csrf, max_age, false)?,
            ],
            csrf,
        })
    }

    /// Cookies that delete both (sign-out).
    pub fn cleared_cookies(&self) -> Result<[HeaderValue; 2], ApiError> {
        Ok([
            self.cookie(TOKEN_COOKIE, "", 0, true)?,
            self.cookie(CSRF_COOKIE, "", 0, false)?,
        ])
    }

    fn cookie(
        &self,
        name: &str,
        value: &str,
        max_age: i64,
        http_only: bool,
    ) -> Result<HeaderValue, ApiError> {
        let mut text = format!("{name}={value}; Path=/; Max-Age={max_age}; SameSite=Strict");
        if http_only {
            text.push_str("; HttpOnly");
        }
        if self.secure_cookies {
            text.push_str("; Secure");
        }
        HeaderValue::from_str(&text).map_err(|e| ApiError::internal("a cookie", e))
    }

    /// The claims of the request's token; `allow_expired` only for refresh (the session row still decides).
    fn claims(&self, headers: &HeaderMap, allow_expired: bool) -> Option<Claims> {
        let token = cookie(headers, TOKEN_COOKIE)?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.validate_exp = !allow_expired;
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        jsonwebtoken::decode::<Claims>(token, &self.keys.decoding, &validation)
            .ok()
            .map(|d| d.claims)
    }

    async fn signed_in(&self, parts: &Parts, allow_expired: bool) -> Result<SignedIn, ApiError> {
        let claims = self
            .claims(&parts.headers, allow_expired)
            .ok_or_else(ApiError::unauthorized)?;
        let session = self
            .store
            .live_session(&claims.sid)
            .await?
            .filter(|s| claims.sub.parse() == Ok(s.admin_id))
            .ok_or_else(ApiError::unauthorized)?;
        if !matches!(parts.method, Method::GET | Method::HEAD) {
            check_origin(&parts.headers)?;
            let sent = parts
                .headers
                .get(CSRF_HEADER)
                .map(|v| v.as_bytes())
                .unwrap_or_default();
            if !bool::from(sent.ct_eq(claims.csrf.as_bytes())) {
                return Err(ApiError::forbidden("missing or wrong X-CSRF-Token"));
            }
            // Paths as the nested `/api` router sees them.
            if session.role != "admin" && !OWN_ACCOUNT.contains(&parts.uri.path()) {
                return Err(ApiError::forbidden(
                    "role: a viewer's account is read-only (an admin can change its role)",
                )
                .about("role"));
            }
        }
        if !session.totp
            && self
                .totp_required
                .load(std::sync::atomic::Ordering::Relaxed)
            && !ENROLMENT.contains(&parts.uri.path())
        {
            return Err(ApiError::forbidden(
                "totp: a second factor is required of every account: set one up first (POST /api/me/totp)",
            )
            .about("totp"));
        }
        Ok(SignedIn {
            admin_id: session.admin_id,
            username: session.username,
            session_id: claims.sid,
            client: client(parts),
            role: session.role,
        })
    }

    /// Refresh: a new token for the request's session when it still lives, even if the token has expired.
    pub async fn refresh(&self, parts: &Parts) -> Result<(SignedIn, Issued), ApiError> {
        let who = self.signed_in(parts, true).await?;
        let session = self
            .store
            .live_session(&who.session_id)
            .await?
            .ok_or_else(ApiError::unauthorized)?;
        let csrf = self
            .claims(&parts.headers, true)
            .map(|c| c.csrf)
            .ok_or_else(ApiError::unauthorized)?;
        let issued = self.issue(who.admin_id, &who.session_id, csrf, session.expires_at)?;
        Ok((who, issued))
    }
}

/// A state-changing request that carries an `Origin` must come from this panel's own origin (scheme aside: the
/// host and port must be the `Host` the request was sent to). Browsers always send `Origin` on cross-site
/// requests, so a form or script on another site is refused here even before the CSRF token is looked at.
pub fn check_origin(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, rest)| rest);
    match (origin_host, host) {
        (Some(o), Some(h)) if o.eq_ignore_ascii_case(h) => Ok(()),
        _ => Err(ApiError::forbidden("cross-origin request refused")),
    }
}

fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k == name).then_some(v)
        })
}

/// The peer address of the admin connection (the panel trusts no forwarding header), in its plain IPv4 form when
/// it arrived mapped on a dual-stack listener (`admin.listen_address: '::'`).
pub fn client(parts: &Parts) -> String {
    parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map_or_else(
            || "unknown".to_string(),
            |c| c.0.ip().to_canonical().to_string(),
        )
}

impl FromRequestParts<Arc<Panel>> for SignedIn {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, panel: &Arc<Panel>) -> Result<Self, ApiError> {
        panel.signed_in(parts, false).await
    }
}

impl OptionalFromRequestParts<Arc<Panel>> for SignedIn {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        panel: &Arc<Panel>,
    ) -> Result<Option<Self>, ApiError> {
        match panel.signed_in(parts, false).await {
            Ok(s) => Ok(Some(s)),
            Err(e) if e.status == axum::http::StatusCode::UNAUTHORIZED => Ok(None),
            Err(e) => Err(e),
        }
    }
}
