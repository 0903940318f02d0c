//! JWT parsing in the auth service, from two sides. Arbitrary text as a presented Bearer token: splitting, strict
//! base64url, the JOSE header and key selection must refuse it, never panic. Arbitrary JSON as the claims of a
//! token the service itself signed (the signature verifies, so the claims parser is reached): the claims are
//! accepted or refused, never panicked on.
#![no_main]

use auth::config::DEVELOPMENT_JWT_KEY_PEM;
use auth::tokens::TokenKeys;
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;
use std::sync::OnceLock;

/// The issuer the service checks by default (`JWT_ISSUER`).
const ISSUER: &str = "POS";

fn keys() -> &'static TokenKeys {
    static KEYS: OnceLock<TokenKeys> = OnceLock::new();
    KEYS.get_or_init(|| {
        TokenKeys::from_pem(DEVELOPMENT_JWT_KEY_PEM).expect("the development key parses")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = keys().verify(text, ISSUER);
    if let Ok(claims) = serde_json::from_str::<&RawValue>(text) {
        let token = keys()
            .sign(&claims)
            .expect("signing serialized JSON cannot fail");
        let _ = keys().verify(&token, ISSUER);
    }
});
