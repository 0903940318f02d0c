//! RS256 token keys and the legacy access-token claims.
//!
//! `JWT_SECRET` holds the signing key as PEM: its first private key signs, and any `PUBLIC KEY` blocks after it are
//! earlier keys, published in JWKS and accepted for verification until their tokens have expired, so keys can
//! rotate without logging anyone out. Every key is named by its RFC 7638 thumbprint (`kid`), which tokens carry.
//!
//! Verification accepts RS256 only: a header naming any other algorithm (`none`, HS256 "signed" with the public key,
//! ...) is refused before any key is used. The audience (the user's authority domain) and the `logged_out_at` rule
//! are checked by the caller, which knows the request's tenant and the user.

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{
    KeyPair, ParsedPublicKey, RSA_PKCS1_2048_8192_SHA256, RSA_PKCS1_SHA256, RsaKeyPair,
};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::store::User;

/// Access tokens live two hours.
pub const ACCESS_TOKEN_SECONDS: i64 = 2 * 60 * 60;

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("JWT_SECRET: {0}")]
    Key(String),
    #[error("invalid token: {0}")]
    Invalid(&'static str),
    #[error("cannot sign: {0}")]
    Sign(String),
}

/// The `u` claim: who the user is, for downstream services that read no database.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserClaims {
    /// Name.
    pub n: String,
    /// Lower-case email.
    pub e: String,
    /// Privileges as bits: 1 support, 2 sys_admin.
    pub p: u32,
    /// Groups.
    pub r: Vec<String>,
}

impl UserClaims {
    pub fn of(user: &User) -> Self {
        UserClaims {
            n: user.name.clone().unwrap_or_default(),
            e: user.email.to_lowercase(),
            p: u32::from(user.support) | (u32::from(user.sys_admin) << 1),
            r: user.groups.clone(),
        }
    }
}

/// The legacy access-token claims. Client-credentials tokens have neither `aud` nor `u`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccessClaims {
    pub iss: String,
    pub iat: i64,
    pub exp: i64,
    pub jti: String,
    /// The user's authority domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aud: Option<String>,
    pub scope: Vec<String>,
    pub sub: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub u: Option<UserClaims>,
}

/// How long after `exp` a token is still accepted, for clocks a little apart (the leeway `jsonwebtoken` applied).
const EXPIRY_LEEWAY_SECONDS: i64 = 60;

struct PublicKey {
    kid: String,
    jwk: Value,
    /// Parsed once: verifying with an unparsed key (DER or modulus and exponent) rebuilds the RSA key every time,
    /// which costs about as much as the verification itself.
    verifying: ParsedPublicKey,
}

/// The members of a token's JOSE header that verification reads.
#[derive(Deserialize)]
struct JoseHeader {
    alg: String,
    #[serde(default)]
    kid: Option<String>,
}

/// The signing key and every key tokens may still be verified with.
pub struct TokenKeys {
    /// The current private key, parsed once: `jsonwebtoken::encode` re-parses (and re-checks) the DER key on every
    /// call, which costs about as much as the signature itself.
    signing: RsaKeyPair,
    /// `base64url(JSON header)` of every token: RS256 with the current `kid`, serialized as `jsonwebtoken` does.
    header: String,
    /// The current key first.
    public: Vec<PublicKey>,
    /// Tokens whose signature verified, with their claims: a client presents the same access token on every call
    /// for its two hours, and the RSA verification is the largest CPU cost of a userinfo request. Keyed by the whole
    /// token, so only the exact bytes that verified are found here; expiry and issuer are checked on every use, and
    /// revocation and logout by the caller, as for a token verified afresh.
    verified: Mutex<HashMap<Box<str>, AccessClaims>>,
}

/// Verified tokens remembered at most (about 1 KiB each with their claims). When full the memory is emptied and
/// refills as tokens are presented again: a bound no flood of tokens can exceed, at the cost of one RSA
/// verification per token afterwards.
const VERIFIED_TOKENS: usize = 4096;

impl TokenKeys {
    /// Reads `pem`: one private key (the current one), then optionally earlier public keys.
    pub fn from_pem(pem: &str) -> Result<Self, TokenError> {
        let blocks = pem_blocks(pem);
        let Some(private) = blocks.iter().find(|b| b.contains("PRIVATE KEY-----")) else {
            return Err(TokenError::Key("no PRIVATE KEY block".into()));
        };
        let encoding = EncodingKey::from_rsa_pem(private.as_bytes())
            .map_err(|e| TokenError::Key(e.to_string()))?;
        let current = Jwk::from_encoding_key(&encoding, Algorithm::RS256)
            .map_err(|e| TokenError::Key(e.to_string()))?;
        let signing = RsaKeyPair::from_der(encoding.as_bytes())
            .map_err(|e| TokenError::Key(e.to_string()))?;
        let mut public = vec![public_key(&current, signing.public_key().as_ref())?];
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(public[0].kid.clone());
        let header = URL_SAFE_NO_PAD
            .encode(serde_json::to_vec(&header).map_err(|e| TokenError::Key(e.to_string()))?);
        for block in blocks
            .iter()
            .filter(|b| b.contains("BEGIN PUBLIC KEY") || b.contains("BEGIN RSA PUBLIC KEY"))
        {
            let decoding = DecodingKey::from_rsa_pem(block.as_bytes())
                .map_err(|e| TokenError::Key(e.to_string()))?;
            let jwk = Jwk::from_decoding_key(&decoding, Some(Algorithm::RS256))
                .map_err(|e| TokenError::Key(e.to_string()))?;
            let der = decoding
                .try_get_as_bytes()
                .map_err(|e| TokenError::Key(e.to_string()))?;
            public.push(public_key(&jwk, der)?);
        }
        Ok(TokenKeys {
            signing,
            header,
            public,
            verified: Mutex::default(),
        })
    }

    /// The `kid` of the signing key.
    pub fn kid(&self) -> &str {
        &self.public[0].kid
    }

    /// The JWKS document: every key tokens may be verified with.
    pub fn jwks(&self) -> Value {
        json!({ "keys": self.public.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>() })
    }

    /// Signs `claims` with the current key: RS256 (RSASSA-PKCS1-v1_5, SHA-256) over `header.payload`, the same
    /// bytes `jsonwebtoken::encode` produces. About a millisecond of CPU: call it off the async workers.
    /// Any claims set (access or ID token) is signed the same way.
    pub fn sign(&self, claims: &impl Serialize) -> Result<String, TokenError> {
        let payload = serde_json::to_vec(claims).map_err(|e| TokenError::Sign(e.to_string()))?;
        let mut token = format!("{}.{}", self.header, URL_SAFE_NO_PAD.encode(payload));
        let mut signature = vec![0; self.signing.public_modulus_len()];
        self.signing
            .sign(
                &RSA_PKCS1_SHA256,
                &SystemRandom::new(),
                token.as_bytes(),
                &mut signature,
            )
            .map_err(|e| TokenError::Sign(e.to_string()))?;
        token.push('.');
        URL_SAFE_NO_PAD.encode_string(signature, &mut token);
        Ok(token)
    }

    /// The claims of `token` if an accepted key signed it with RS256, it has not expired (60 s leeway) and `iss` is
    /// `issuer`. The key is the one its `kid` names; a token without a known `kid` (a legacy token) is tried
    /// against the current key only.
    pub fn verify(&self, token: &str, issuer: &str) -> Result<AccessClaims, TokenError> {
        let remembered = self.remembered().get(token).cloned();
        let afresh = remembered.is_none();
        let claims = match remembered {
            Some(claims) => claims,
            None => self.verify_signature(token)?,
        };
        if claims.exp < chrono::Utc::now().timestamp() - EXPIRY_LEEWAY_SECONDS {
            return Err(TokenError::Invalid("expired"));
        }
        if claims.iss != issuer {
            return Err(TokenError::Invalid("another issuer"));
        }
        if afresh {
            let mut verified = self.remembered();
            if verified.len() >= VERIFIED_TOKENS {
                verified.clear();
            }
            verified.insert(token.into(), claims.clone());
        }
        Ok(claims)
    }

    /// The verified tokens; a panic elsewhere while holding them leaves nothing half-written (one insert or clear).
    fn remembered(&self) -> MutexGuard<'_, HashMap<Box<str>, AccessClaims>> {
        self.verified.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The claims of `token` if an accepted key signed it with RS256 and its claims are access-token claims.
    fn verify_signature(&self, token: &str) -> Result<AccessClaims, TokenError> {
        let malformed = || TokenError::Invalid("not a JWS compact serialization");
        let (signing_input, signature) = token.rsplit_once('.').ok_or_else(malformed)?;
        let (header, payload) = signing_input.split_once('.').ok_or_else(malformed)?;
        // Strict base64url: no padding, no other alphabet, no stray trailing bits (`URL_SAFE_NO_PAD`'s decoder).
        let decode = |part: &str| URL_SAFE_NO_PAD.decode(part).map_err(|_| malformed());
        let header: JoseHeader =
            serde_json::from_slice(&decode(header)?).map_err(|_| malformed())?;
        // Only RS256: the header's algorithm is checked, never obeyed.
        if header.alg != "RS256" {
            return Err(TokenError::Invalid("algorithm is not RS256"));
        }
        let key = self
            .public
            .iter()
            .find(|k| Some(&k.kid) == header.kid.as_ref())
            .unwrap_or(&self.public[0]);
        key.verifying
            .verify_sig(signing_input.as_bytes(), &decode(signature)?)
            .map_err(|_| TokenError::Invalid("bad signature"))?;
        serde_json::from_slice(&decode(payload)?)
            .map_err(|_| TokenError::Invalid("claims are not the access-token claims"))
    }
}

/// The published form of `jwk`, and `der` (its RSAPublicKey DER) parsed for verification.
fn public_key(jwk: &Jwk, der: &[u8]) -> Result<PublicKey, TokenError> {
    let kid = jwk
        .thumbprint(ThumbprintHash::SHA256)
        .map_err(|e| TokenError::Key(e.to_string()))?;
    // The same parameters `jsonwebtoken` verified RS256 with: PKCS#1 v1.5, SHA-256, 2048- to 8192-bit keys.
    let verifying = ParsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, der)
        .map_err(|e| TokenError::Key(e.to_string()))?;
    let mut published = serde_json::to_value(jwk).map_err(|e| TokenError::Key(e.to_string()))?;
    // Exactly the legacy members: kty, n, e, kid, use, alg.
    published = json!({
        "kty": "RSA",
        "n": published["n"],
        "e": published["e"],
        "kid": kid,
        "use": "sig",
        "alg": "RS256",
    });
    Ok(PublicKey {
        kid,
        jwk: published,
        verifying,
    })
}

/// The PEM blocks of `pem`, each from its BEGIN line to its END line.
fn pem_blocks(pem: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in pem.lines().map(str::trim) {
        if line.starts_with("-----BEGIN ") {
            current = Some(String::new());
        }
        if let Some(block) = current.as_mut() {
            block.push_str(line);
            block.push('\n');
        }
        if line.starts_with("-----END ") {
            blocks.extend(current.take());
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DEVELOPMENT_JWT_KEY_PEM;
    use jsonwebtoken::Validation;

    fn claims(iss: &str, exp: i64) -> AccessClaims {
        AccessClaims {
            iss: iss.into(),
            iat: chrono::Utc::now().timestamp(),
            exp,
            jti: "j1".into(),
            aud: Some("acme.test".into()),
            scope: vec!["public".into()],
            sub: "u1".into(),
            u: Some(UserClaims {
                n: "Ada".into(),
                e: "ada@acme.test".into(),
                p: 3,
                r: vec!["staff".into()],
            }),
        }
    }

    #[test]
    fn kid_is_the_rfc7638_thumbprint() {
        let keys = TokenKeys::from_pem(DEVELOPMENT_JWT_KEY_PEM).unwrap();
        // Computed independently from `openssl rsa -modulus` and SHA-256 of {"e":"AQAB","kty":"RSA","n":...}.
        assert_eq!(keys.kid(), "xBL9y8aBi3xGDUnJz9QtKq4u9ZF1-V_iVMp3uP85bko");
        let jwks = keys.jwks();
        let key = &jwks["keys"][0];
        assert_eq!(
            (key["kty"].as_str(), key["e"].as_str(), key["alg"].as_str()),
            (Some("RSA"), Some("AQAB"), Some("RS256"))
        );
        assert_eq!(key["use"], "sig");
        assert_eq!(key.as_object().unwrap().len(), 6);
    }

    #[test]
    fn signs_exactly_as_jsonwebtoken_does() {
        for pem in [
            DEVELOPMENT_JWT_KEY_PEM,
            include_str!("../tests/fixtures/production_jwt_key.pem"),
        ] {
            let keys = TokenKeys::from_pem(pem).unwrap();
            let mut header = Header::new(Algorithm::RS256);
            header.kid = Some(keys.kid().to_string());
            let encoding = EncodingKey::from_rsa_pem(pem.as_bytes()).unwrap();
            for body in [
                serde_json::to_value(claims("POS", 1_900_000_000)).unwrap(),
                json!({ "sub": "u1", "aud": "client", "nonce": "n\u{e9}\"", "iat": 1 }),
            ] {
                assert_eq!(
                    keys.sign(&body).unwrap(),
                    jsonwebtoken::encode(&header, &body, &encoding).unwrap()
                );
            }
        }
    }

    #[test]
    fn signs_and_verifies_with_kid() {
        let keys = TokenKeys::from_pem(DEVELOPMENT_JWT_KEY_PEM).unwrap();
        let issued = claims("POS", chrono::Utc::now().timestamp() + ACCESS_TOKEN_SECONDS);
        let token = keys.sign(&issued).unwrap();
        assert_eq!(
            jsonwebtoken::decode_header(&token).unwrap().kid.as_deref(),
            Some(keys.kid())
        );
        assert_eq!(keys.verify(&token, "POS").unwrap(), issued);
        assert!(keys.verify(&token, "OTHER").is_err(), "issuer is checked");
        let expired = keys
            .sign(&claims("POS", chrono::Utc::now().timestamp() - 3600))
            .unwrap();
        assert!(keys.verify(&expired, "POS").is_err());
    }

    #[test]
    fn refuses_forgeries() {
        let keys = TokenKeys::from_pem(DEVELOPMENT_JWT_KEY_PEM).unwrap();
        let body = claims("POS", chrono::Utc::now().timestamp() + 600);
        let b64 = |v: &Value| {
            use base64::Engine;
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
        };
        let payload = b64(&serde_json::to_value(&body).unwrap());
        let none = format!(
            "{}.{payload}.",
            b64(&json!({ "alg": "none", "typ": "JWT" }))
        );
        assert!(keys.verify(&none, "POS").is_err());
        // HS256 keyed with the public key's JWK text: the classic algorithm-confusion forgery.
        let hs = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &body,
            &EncodingKey::from_secret(keys.jwks().to_string().as_bytes()),
        )
        .unwrap();
        assert!(keys.verify(&hs, "POS").is_err());
        let other =
            TokenKeys::from_pem(include_str!("../tests/fixtures/production_jwt_key.pem")).unwrap();
        assert!(
            keys.verify(&other.sign(&body).unwrap(), "POS").is_err(),
            "another key's signature"
        );
    }

    #[test]
    fn earlier_public_keys_still_verify() {
        let old =
            TokenKeys::from_pem(include_str!("../tests/fixtures/production_jwt_key.pem")).unwrap();
        let token = old
            .sign(&claims("POS", chrono::Utc::now().timestamp() + 600))
            .unwrap();
        let old_public = include_str!("../tests/fixtures/production_jwt_key.pub.pem");
        let rotated =
            TokenKeys::from_pem(&format!("{DEVELOPMENT_JWT_KEY_PEM}{old_public}")).unwrap();
        assert_eq!(rotated.jwks()["keys"].as_array().unwrap().len(), 2);
        assert_eq!(rotated.jwks()["keys"][1]["kid"].as_str(), Some(old.kid()));
        assert!(rotated.verify(&token, "POS").is_ok());
        assert!(TokenKeys::from_pem("no key here").is_err());
    }

    #[test]
    fn remembered_tokens_still_expire_and_are_bounded() {
        let keys = TokenKeys::from_pem(DEVELOPMENT_JWT_KEY_PEM).unwrap();
        let token = keys
            .sign(&claims("POS", chrono::Utc::now().timestamp() + 600))
            .unwrap();
        assert!(keys.verify(&token, "POS").is_ok());
        assert!(
            keys.verify(&token, "OTHER").is_err(),
            "issuer checked on every use"
        );
        // A remembered token past its expiry (as it will be one day) is refused.
        keys.remembered().get_mut(token.as_str()).unwrap().exp =
            chrono::Utc::now().timestamp() - 120;
        assert!(
            keys.verify(&token, "POS").is_err(),
            "expiry checked on every use"
        );
        let fresh = keys
            .sign(&claims("POS", chrono::Utc::now().timestamp() + 600))
            .unwrap();
        {
            let mut remembered = keys.remembered();
            remembered.clear();
            for i in 0..VERIFIED_TOKENS {
                remembered.insert(format!("t{i}").into(), claims("POS", 0));
            }
        }
        assert!(keys.verify(&fresh, "POS").is_ok());
        assert_eq!(
            keys.remembered().len(),
            1,
            "emptied when full, then the new token"
        );
    }

    /// `header.payload` as given, RS256-signed with `pem`'s private key: tokens with headers and claims we never issue.
    fn sign_raw(pem: &str, header: &str, payload: &str) -> String {
        let key = RsaKeyPair::from_der(
            EncodingKey::from_rsa_pem(pem.as_bytes())
                .unwrap()
                .as_bytes(),
        )
        .unwrap();
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header),
            URL_SAFE_NO_PAD.encode(payload)
        );
        let mut signature = vec![0; key.public_modulus_len()];
        key.sign(
            &RSA_PKCS1_SHA256,
            &SystemRandom::new(),
            input.as_bytes(),
            &mut signature,
        )
        .unwrap();
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature))
    }

    /// `token` with its payload replaced by `payload` (the signature kept).
    fn with_payload(token: &str, payload: &str) -> String {
        let parts: Vec<&str> = token.split('.').collect();
        format!(
            "{}.{}.{}",
            parts[0],
            URL_SAFE_NO_PAD.encode(payload),
            parts[2]
        )
    }

    /// The verification this module did with `jsonwebtoken` before it verified tokens itself: the reference the
    /// equivalence test holds [`TokenKeys::verify`] to.
    fn jsonwebtoken_verify(keys: &TokenKeys, token: &str, issuer: &str) -> bool {
        let mut validation = Validation::new(Algorithm::RS256);
        validation.set_issuer(&[issuer]);
        validation.set_required_spec_claims(&["exp", "iss", "sub"]);
        validation.validate_aud = false;
        let Ok(header) = jsonwebtoken::decode_header(token) else {
            return false;
        };
        let jwks = keys.jwks();
        let published = jwks["keys"].as_array().unwrap();
        let jwk = published
            .iter()
            .find(|k| header.kid.as_deref().is_some_and(|kid| k["kid"] == kid))
            .unwrap_or(&published[0]);
        let jwk: Jwk = serde_json::from_value(jwk.clone()).unwrap();
        let key = DecodingKey::from_jwk(&jwk).unwrap();
        jsonwebtoken::decode::<AccessClaims>(token, &key, &validation).is_ok()
    }

    /// A table of tokens, each accepted or refused exactly as `jsonwebtoken` did (and as the table says).
    #[test]
    fn accepts_and_refuses_exactly_what_jsonwebtoken_did() {
        let current_pem = DEVELOPMENT_JWT_KEY_PEM;
        let old_pem = include_str!("../tests/fixtures/production_jwt_key.pem");
        let keys = TokenKeys::from_pem(&format!(
            "{current_pem}{}",
            include_str!("../tests/fixtures/production_jwt_key.pub.pem")
        ))
        .unwrap();
        let old = TokenKeys::from_pem(old_pem).unwrap();
        let now = chrono::Utc::now().timestamp();
        let body = |exp: i64| serde_json::to_string(&claims("POS", exp)).unwrap();
        let valid = body(now + 600);
        let kid_header =
            |kid: &str| json!({ "typ": "JWT", "alg": "RS256", "kid": kid }).to_string();
        let current = kid_header(keys.kid());
        let legacy = r#"{"typ":"JWT","alg":"RS256"}"#;
        let good = keys.sign(&claims("POS", now + 600)).unwrap();
        let (signing_input, signature) = good.rsplit_once('.').unwrap();
        let mut flipped = URL_SAFE_NO_PAD.decode(signature).unwrap();
        flipped[100] ^= 1;
        let standard_alphabet = |t: &str| t.replace('-', "+").replace('_', "/");
        let hmac = |alg: Algorithm, secret: &[u8]| {
            let mut header = Header::new(alg);
            header.kid = Some(keys.kid().to_string());
            jsonwebtoken::encode(
                &header,
                &claims("POS", now + 600),
                &EncodingKey::from_secret(secret),
            )
            .unwrap()
        };
        let rsa = |alg: Algorithm| {
            jsonwebtoken::encode(
                &Header::new(alg),
                &claims("POS", now + 600),
                &EncodingKey::from_rsa_pem(current_pem.as_bytes()).unwrap(),
            )
            .unwrap()
        };
        let claims_without = |member: &str| {
            let mut value = serde_json::to_value(claims("POS", now + 600)).unwrap();
            value.as_object_mut().unwrap().remove(member);
            sign_raw(current_pem, &current, &value.to_string())
        };
        let (no_exp, no_iss, no_sub) = (
            claims_without("exp"),
            claims_without("iss"),
            claims_without("sub"),
        );
        let with_member = |member: &str, value: Value| {
            let mut claims = serde_json::to_value(claims("POS", now + 600)).unwrap();
            claims[member] = value;
            sign_raw(current_pem, &current, &claims.to_string())
        };
        let cases: Vec<(&str, String, bool)> = vec![
            ("issued here", good.clone(), true),
            (
                "no kid: the current key",
                sign_raw(current_pem, legacy, &valid),
                true,
            ),
            (
                "unknown kid: the current key",
                sign_raw(current_pem, &kid_header("other"), &valid),
                true,
            ),
            (
                "earlier key, its kid",
                old.sign(&claims("POS", now + 600)).unwrap(),
                true,
            ),
            (
                "earlier key, no kid",
                sign_raw(old_pem, legacy, &valid),
                false,
            ),
            (
                "wrong kid: names the earlier key",
                sign_raw(current_pem, &kid_header(old.kid()), &valid),
                false,
            ),
            (
                "expired 30 s ago: within the leeway",
                sign_raw(current_pem, &current, &body(now - 30)),
                true,
            ),
            (
                "expired 120 s ago",
                sign_raw(current_pem, &current, &body(now - 120)),
                false,
            ),
            (
                "negative exp",
                sign_raw(current_pem, &current, &body(-5)),
                false,
            ),
            (
                "exp as a string",
                with_member("exp", json!("9999999999")),
                false,
            ),
            (
                "exp as a float",
                with_member("exp", json!(9_999_999_999.0)),
                false,
            ),
            (
                "other issuer",
                sign_raw(
                    current_pem,
                    &current,
                    &serde_json::to_string(&claims("OTHER", now + 600)).unwrap(),
                ),
                false,
            ),
            (
                "issuer in an array",
                with_member("iss", json!(["POS"])),
                false,
            ),
            (
                "audience in an array",
                with_member("aud", json!(["acme.test"])),
                false,
            ),
            ("no exp", no_exp, false),
            ("no iss", no_iss, false),
            ("no sub", no_sub, false),
            (
                "claims not JSON",
                sign_raw(current_pem, &current, "not json"),
                false,
            ),
            (
                "alg none",
                format!(
                    "{}.{}.",
                    URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#),
                    URL_SAFE_NO_PAD.encode(&valid)
                ),
                false,
            ),
            (
                "alg none, the genuine signature",
                format!(
                    "{}.{}.{signature}",
                    URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#),
                    URL_SAFE_NO_PAD.encode(&valid)
                ),
                false,
            ),
            (
                "HS256 keyed with the JWKS",
                hmac(Algorithm::HS256, keys.jwks().to_string().as_bytes()),
                false,
            ),
            (
                "HS256 keyed with the public PEM",
                hmac(
                    Algorithm::HS256,
                    include_bytes!("../tests/fixtures/dev_jwt_public.pem"),
                ),
                false,
            ),
            ("RS384 by the current key", rsa(Algorithm::RS384), false),
            ("PS256 by the current key", rsa(Algorithm::PS256), false),
            (
                "alg in lower case",
                sign_raw(current_pem, r#"{"alg":"rs256"}"#, &valid),
                false,
            ),
            (
                "header not JSON",
                sign_raw(current_pem, "RS256", &valid),
                false,
            ),
            (
                "tampered payload",
                with_payload(
                    &good,
                    &serde_json::to_string(&claims("POS", now + 7200)).unwrap(),
                ),
                false,
            ),
            (
                "tampered signature",
                format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(&flipped)),
                false,
            ),
            (
                "signature by another key",
                sign_raw(
                    include_str!("../tests/fixtures/production_jwt_key.pem"),
                    &current,
                    &valid,
                ),
                false,
            ),
            ("padded signature", format!("{good}=="), false),
            (
                "standard base64 alphabet",
                standard_alphabet(&good),
                standard_alphabet(&good) == good,
            ),
            (
                "stray trailing bits",
                // A 256-byte signature ends in a character with four unused low bits (one of A, Q, g, w): the
                // next letter sets one.
                format!(
                    "{}{}",
                    &good[..good.len() - 1],
                    char::from(good.as_bytes()[good.len() - 1] + 1)
                ),
                false,
            ),
            ("no signature", signing_input.to_string(), false),
            ("four parts", format!("{good}.{signature}"), false),
            ("header with a dot", format!("e30.{good}"), false),
            ("empty", String::new(), false),
            ("dots only", "..".into(), false),
        ];
        for (name, token, accepted) in cases {
            // Twice: afresh, then (when accepted) from the verified tokens.
            for attempt in ["afresh", "again"] {
                assert_eq!(
                    keys.verify(&token, "POS").is_ok(),
                    accepted,
                    "{name}: this verifier, {attempt}"
                );
            }
            assert_eq!(
                jsonwebtoken_verify(&keys, &token, "POS"),
                accepted,
                "{name}: jsonwebtoken"
            );
        }
    }
}
