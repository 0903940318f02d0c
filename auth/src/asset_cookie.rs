//! The `verified` asset cookie: the fronting web server lets a browser fetch static assets only when it carries one.
//!
//! Its value is `<16 hex random>.<hex HMAC-SHA256 of those 16 characters, keyed by SECRET_KEY_BASE>`: anyone holding
//! `SECRET_KEY_BASE` (this service on every replica, or the web server) can check it without a lookup, and no client
//! can mint one. It says only "this browser signed in here once": it carries no identity, which is why it may be
//! `Path=/` (every asset path) while the session cookie stays on `/auth`. `HttpOnly`; `SameSite=None` (assets are
//! embedded cross-site like the logins), with `Secure` in production; outside production `Secure` is left off so
//! plain-HTTP development works (browsers then treat `SameSite=None` as `Lax`). Issued on every sign-in, by
//! `/auth/authority` when the request's token or API key is valid, and by `/auth/login` when an API key is
//! presented; cleared at logout. `GET /auth/verified` answers 204 or 401 for the web server's `auth_request`.

use axum::http::HeaderMap;
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

pub const COOKIE_NAME: &str = "verified";
/// 8 random bytes make the 16 hex characters of the legacy format.
const NONCE_BYTES: usize = 8;

#[derive(Clone)]
pub struct AssetCookies {
    /// HMAC-SHA256 keyed once; each use clones it.
    mac: Hmac<Sha256>,
    production: bool,
}

impl AssetCookies {
    /// `key` is `SECRET_KEY_BASE`'s bytes; `None` draws a random key (cookies then hold on this process only).
    pub fn new(key: Option<&[u8]>, production: bool) -> Result<Self, hmac::digest::InvalidLength> {
        let mac = match key {
            Some(key) => Hmac::<Sha256>::new_from_slice(key)?,
            None => Hmac::<Sha256>::new_from_slice(crate::ids::random_token().as_bytes())?,
        };
        Ok(AssetCookies { mac, production })
    }

    fn mac(&self, nonce: &str) -> Hmac<Sha256> {
        let mut mac = self.mac.clone();
        mac.update(nonce.as_bytes());
        mac
    }

    /// A fresh cookie value.
    pub fn value(&self) -> String {
        let nonce = crate::ids::random_hex(NONCE_BYTES);
        let tag = hex::encode(self.mac(&nonce).finalize().into_bytes());
        format!("{nonce}.{tag}")
    }

    /// Whether `value` is one of ours (format and HMAC, compared in constant time).
    pub fn is_valid(&self, value: &str) -> bool {
        let Some((nonce, tag)) = value.split_once('.') else {
            return false;
        };
        let well_formed = nonce.len() == 2 * NONCE_BYTES
            && nonce.bytes().all(|b| b.is_ascii_hexdigit())
            && tag.len() == 64;
        let Some(tag) = well_formed.then(|| hex::decode(tag).ok()).flatten() else {
            return false;
        };
        let expected = self.mac(nonce).finalize().into_bytes();
        expected.as_slice().ct_eq(&tag).into()
    }

    /// Whether the request carries a valid asset cookie.
    pub fn presented(&self, headers: &HeaderMap) -> bool {
        CookieJar::from_headers(headers)
            .get(COOKIE_NAME)
            .is_some_and(|c| self.is_valid(c.value()))
    }

    fn base(&self, value: String) -> Cookie<'static> {
        Cookie::build((COOKIE_NAME, value))
            .path("/")
            .http_only(true)
            .secure(self.production)
            .same_site(SameSite::None)
            .build()
    }

    /// The `Set-Cookie` value issuing a new asset cookie (a browser-session cookie, like the legacy one).
    pub fn issue(&self) -> String {
        self.base(self.value()).to_string()
    }

    /// The `Set-Cookie` value removing it.
    pub fn clear(&self) -> String {
        let mut cookie = self.base(String::new());
        cookie.make_removal();
        cookie.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_verify_under_their_key_only() {
        let cookies = AssetCookies::new(Some(b"secret key base"), true).unwrap();
        let value = cookies.value();
        let (nonce, tag) = value.split_once('.').unwrap();
        assert_eq!(nonce.len(), 16);
        assert_eq!(tag.len(), 64);
        assert!(cookies.is_valid(&value));
        assert!(
            !AssetCookies::new(Some(b"another key"), true)
                .unwrap()
                .is_valid(&value)
        );
        let mut forged = value.clone().into_bytes();
        forged[0] = if forged[0] == b'0' { b'1' } else { b'0' };
        assert!(!cookies.is_valid(&String::from_utf8(forged).unwrap()));
        for bad in [
            "",
            ".",
            "abc",
            "zzzzzzzzzzzzzzzz.00",
            &format!("{nonce}.{}", "g".repeat(64)),
        ] {
            assert!(!cookies.is_valid(bad), "{bad}");
        }
        let issued = cookies.issue();
        for attribute in ["Path=/", "HttpOnly", "Secure", "SameSite=None"] {
            assert!(issued.contains(attribute), "{attribute} missing: {issued}");
        }
        assert!(cookies.clear().contains("Max-Age=0"));
    }
}
