//! The session cookie `_coauth_session`.
//!
//! The session lives entirely in the cookie, encrypted and authenticated (AES-256-GCM, axum-extra's private jar) with
//! a key derived from `COOKIE_SESSION_SECRET`: the client can neither read nor forge it, and no session table exists
//! to grow. Revocation goes through the user instead: a session issued at or before the user's `logged_out_at` is
//! invalid, so logout ends every older session at once, on every device.
//!
//! Attributes: `Path=/auth`, `HttpOnly` (no script reads it). In production `Secure` and `SameSite=None`, because
//! logins embedded in other sites need the cookie cross-site and browsers accept `None` only with `Secure`;
//! otherwise `SameSite=Lax`. Every sign-in writes a new random session id, so a session fixed before sign-in
//! (e.g. the one carrying `continue`) never becomes an authenticated one.

use axum::http::HeaderMap;
use axum_extra::extract::cookie::{Cookie, Key, PrivateCookieJar, SameSite};
use chrono::Utc;
use serde::{Deserialize, Serialize};

use crate::store::{Authority, Store, StoreResult, User};

pub const COOKIE_NAME: &str = "_coauth_session";
const COOKIE_PATH: &str = "/auth";

/// What the cookie holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Session {
    /// Random, new at every sign-in.
    pub sid: String,
    /// The authority the session was opened on; a cookie never serves another tenant.
    pub aid: String,
    /// The signed-in user; `None` for a session that only carries `continue` or OAuth state before a login.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// Issue time in microseconds since the epoch (the precision of `logged_out_at`).
    pub iat: i64,
    /// Expiry in seconds since the epoch.
    pub exp: i64,
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "continue")]
    pub continue_to: Option<String>,
    /// An external login under way (started, its provider's answer not yet consumed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<PendingLogin>,
    /// The NameID of a SAML login, for its single logout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_id: Option<String>,
}

/// What an external login's start binds to the browser's session, checked when the provider's answer arrives: the
/// answer must come back to the same session, for the same strategy, carrying the same `state` (OAuth 2.0) or
/// `InResponseTo` (SAML). The cookie is encrypted, so the PKCE verifier and the nonce stay secret from the client.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PendingLogin {
    /// `oauth2` or `saml`.
    pub provider: String,
    /// The strategy row's id.
    pub strategy: String,
    /// OAuth 2.0 `state` or the AuthnRequest's ID.
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pkce_verifier: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
}

impl Session {
    /// A fresh session for `authority`, lasting `minutes`.
    pub fn new(authority: &Authority, uid: Option<String>, minutes: u32) -> Self {
        let now = Utc::now();
        Session {
            sid: crate::ids::random_token(),
            aid: authority.id.clone(),
            uid,
            iat: now.timestamp_micros(),
            exp: now.timestamp() + i64::from(minutes) * 60,
            continue_to: None,
            pending: None,
            name_id: None,
        }
    }

    /// The signed-in user, if the session still vouches for one: the user exists, is not deleted, belongs to the
    /// session's authority and has not logged out since the session was issued.
    pub async fn user(&self, store: &dyn Store) -> StoreResult<Option<User>> {
        let Some(uid) = &self.uid else {
            return Ok(None);
        };
        let user = store.user_by_id(uid).await?;
        Ok(user.filter(|u| {
            !u.deleted
                && u.authority_id == self.aid
                && u.logged_out_at
                    .is_none_or(|out| out.timestamp_micros() < self.iat)
        }))
    }
}

/// Reads and writes the cookie.
#[derive(Clone)]
pub struct SessionCookies {
    key: Key,
    production: bool,
}

impl SessionCookies {
    /// `secret` of at least 32 bytes (checked by the configuration); `None` draws a random key.
    pub fn new(secret: Option<&[u8]>, production: bool) -> Self {
        let key = match secret {
            Some(secret) => Key::derive_from(secret),
            None => Key::generate(),
        };
        SessionCookies { key, production }
    }

    /// The session of `authority` the request carries, if its cookie decrypts and has not expired.
    pub fn read(&self, headers: &HeaderMap, authority: &Authority) -> Option<Session> {
        let jar = PrivateCookieJar::from_headers(headers, self.key.clone());
        let session: Session = serde_json::from_str(jar.get(COOKIE_NAME)?.value()).ok()?;
        (session.exp > Utc::now().timestamp() && session.aid == authority.id).then_some(session)
    }

    /// A jar that sets the cookie for `session` (lifetime from its expiry).
    pub fn write(&self, session: &Session) -> PrivateCookieJar {
        let value = serde_json::to_string(session).unwrap_or_default();
        let max_age = (session.exp - Utc::now().timestamp()).max(0);
        let (same_site, secure) = if self.production {
            (SameSite::None, true)
        } else {
            (SameSite::Lax, false)
        };
        let cookie = Cookie::build((COOKIE_NAME, value))
            .path(COOKIE_PATH)
            .http_only(true)
            .secure(secure)
            .same_site(same_site)
            .max_age(time::Duration::seconds(max_age))
            // Expires as well as Max-Age, for clients that only know the older attribute.
            .expires(time::OffsetDateTime::now_utc() + time::Duration::seconds(max_age))
            .build();
        PrivateCookieJar::new(self.key.clone()).add(cookie)
    }

    /// The `Set-Cookie` value that removes the cookie (empty, expired, same path and attributes).
    pub fn clear(&self) -> String {
        let mut cookie = Cookie::build((COOKIE_NAME, ""))
            .path(COOKIE_PATH)
            .http_only(true)
            .secure(self.production)
            .build();
        cookie.make_removal();
        cookie.to_string()
    }
}
