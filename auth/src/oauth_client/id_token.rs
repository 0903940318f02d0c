//! An OpenID Connect provider's ID token, verified before any of it is believed (OpenID Connect Core 3.1.3.7):
//! the signing key comes from the JWKS the provider's discovery document names, the signature must use an
//! asymmetric algorithm (an `HS*` token would be "signed" with our own client secret, and `none` is no signature),
//! `iss` must be the discovered issuer, `aud` our client id, `exp` in the future, and `nonce` the one this session
//! sent.

use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;
use subtle::ConstantTimeEq;
use url::Url;

use super::transport::Transport;

/// Clock skew tolerated on `exp`, `nbf` and `iat` between us and the provider.
const LEEWAY_SECONDS: u64 = 60;

/// The refusal of a token signed by a key the JWKS does not list (the provider may have rotated).
pub const UNKNOWN_KID: &str = "no key of the JWKS matches the token's kid";

/// Algorithms accepted: public-key signatures only.
const ASYMMETRIC: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Where the provider's metadata lives: `<site>/.well-known/openid-configuration` (OpenID Connect Discovery 4).
fn discovery_url(site: &Url) -> Result<Url, String> {
    let base = site.as_str().trim_end_matches('/');
    Url::parse(&format!("{base}/.well-known/openid-configuration"))
        .map_err(|e| format!("discovery URL: {e}"))
}

/// The issuer a provider's discovery document names, and its JWKS.
pub async fn provider_keys(transport: &Transport, site: &Url) -> Result<(String, JwkSet), String> {
    let discovery = transport
        .get_json("the discovery document", &discovery_url(site)?, None)
        .await
        .map_err(|e| e.to_string())?;
    let issuer = discovery["issuer"]
        .as_str()
        .ok_or("the discovery document names no issuer")?;
    let jwks_uri = discovery["jwks_uri"]
        .as_str()
        .ok_or("the discovery document names no jwks_uri")?;
    let jwks_uri = Url::parse(jwks_uri).map_err(|e| format!("jwks_uri: {e}"))?;
    let keys = transport
        .get_json("the JWKS", &jwks_uri, None)
        .await
        .map_err(|e| e.to_string())?;
    let keys: JwkSet = serde_json::from_value(keys).map_err(|e| format!("JWKS: {e}"))?;
    Ok((issuer.to_string(), keys))
}

/// The claims of `token` once its signature (an asymmetric algorithm, a key of `keys` named by its `kid`), `iss`,
/// `aud`, `exp` and `sub` are verified.
pub fn decode(token: &str, keys: &JwkSet, issuer: &str, audience: &str) -> Result<Value, String> {
    let header = jsonwebtoken::decode_header(token).map_err(|e| format!("header: {e}"))?;
    if !ASYMMETRIC.contains(&header.alg) {
        return Err(format!("algorithm {:?} refused", header.alg));
    }
    let jwk = match &header.kid {
        Some(kid) => keys.find(kid),
        None if keys.keys.len() == 1 => keys.keys.first(),
        None => None,
    }
    .ok_or(UNKNOWN_KID)?;
    if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)) {
        return Err("a symmetric key in the JWKS is refused".into());
    }
    let key = DecodingKey::from_jwk(jwk).map_err(|e| format!("JWK: {e}"))?;
    let mut validation = Validation::new(header.alg);
    validation.leeway = LEEWAY_SECONDS;
    validation.set_issuer(&[issuer]);
    validation.set_audience(&[audience]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    Ok(jsonwebtoken::decode::<Value>(token, &key, &validation)
        .map_err(|e| format!("{e}"))?
        .claims)
}

/// The verified claims of `token`.
pub async fn verify(
    transport: &Transport,
    site: &Url,
    client_id: &str,
    nonce: Option<&str>,
    token: &str,
) -> Result<Value, String> {
    // The header is checked before anything is fetched: a token we would refuse costs no request to the provider.
    let header = jsonwebtoken::decode_header(token).map_err(|e| format!("header: {e}"))?;
    if !ASYMMETRIC.contains(&header.alg) {
        return Err(format!("algorithm {:?} refused", header.alg));
    }
    let (issuer, keys) = provider_keys(transport, site).await?;
    let claims = decode(token, &keys, &issuer, client_id)?;
    if let Some(sent) = nonce {
        let returned = claims["nonce"].as_str().unwrap_or_default();
        if !bool::from(returned.as_bytes().ct_eq(sent.as_bytes())) {
            return Err("nonce differs from the one sent".into());
        }
    }
    Ok(claims)
}
