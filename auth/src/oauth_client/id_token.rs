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

use super::transport::{Transport, TransportError};

/// Clock skew tolerated on `exp`, `nbf` and `iat` between us and the provider.
const LEEWAY_SECONDS: u64 = 60;

/// Why an ID token (or the provider's keys to check it) is refused.
#[derive(Debug, thiserror::Error)]
pub enum IdTokenError {
    #[error("site: {0}")]
    Site(url::ParseError),
    #[error("discovery URL: {0}")]
    DiscoveryUrl(url::ParseError),
    #[error(transparent)]
    Transport(#[from] TransportError),
    #[error("the discovery document names no issuer")]
    NoIssuer,
    #[error("the discovery document names no jwks_uri")]
    NoJwksUri,
    #[error("jwks_uri: {0}")]
    JwksUri(url::ParseError),
    #[error("JWKS: {0}")]
    Jwks(serde_json::Error),
    #[error("header: {0}")]
    Header(jsonwebtoken::errors::Error),
    #[error("algorithm {0:?} refused")]
    Algorithm(Algorithm),
    /// Signed by a key the JWKS does not list (the provider may have rotated).
    #[error("no key of the JWKS matches the token's kid")]
    UnknownKid,
    #[error("a symmetric key in the JWKS is refused")]
    SymmetricKey,
    #[error("JWK: {0}")]
    Jwk(jsonwebtoken::errors::Error),
    /// The signature, `iss`, `aud`, `exp` or a required claim.
    #[error("{0}")]
    Claims(jsonwebtoken::errors::Error),
    #[error("nonce differs from the one sent")]
    Nonce,
}

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
fn discovery_url(site: &Url) -> Result<Url, IdTokenError> {
    let base = site.as_str().trim_end_matches('/');
    Url::parse(&format!("{base}/.well-known/openid-configuration"))
        .map_err(IdTokenError::DiscoveryUrl)
}

/// The issuer a provider's discovery document names, and its JWKS.
pub async fn provider_keys(
    transport: &Transport,
    site: &Url,
) -> Result<(String, JwkSet), IdTokenError> {
    let discovery = transport
        .get_json("the discovery document", &discovery_url(site)?, None)
        .await?;
    let issuer = discovery["issuer"].as_str().ok_or(IdTokenError::NoIssuer)?;
    let jwks_uri = discovery["jwks_uri"]
        .as_str()
        .ok_or(IdTokenError::NoJwksUri)?;
    let jwks_uri = Url::parse(jwks_uri).map_err(IdTokenError::JwksUri)?;
    let keys = transport.get_json("the JWKS", &jwks_uri, None).await?;
    let keys: JwkSet = serde_json::from_value(keys).map_err(IdTokenError::Jwks)?;
    Ok((issuer.to_string(), keys))
}

/// The claims of `token` once its signature (an asymmetric algorithm, a key of `keys` named by its `kid`), `iss`,
/// `aud`, `exp` and `sub` are verified.
pub fn decode(
    token: &str,
    keys: &JwkSet,
    issuer: &str,
    audience: &str,
) -> Result<Value, IdTokenError> {
    let header = asymmetric_header(token)?;
    let jwk = match &header.kid {
        Some(kid) => keys.find(kid),
        None if keys.keys.len() == 1 => keys.keys.first(),
        None => None,
    }
    .ok_or(IdTokenError::UnknownKid)?;
    if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)) {
        return Err(IdTokenError::SymmetricKey);
    }
    let key = DecodingKey::from_jwk(jwk).map_err(IdTokenError::Jwk)?;
    let mut validation = Validation::new(header.alg);
    validation.leeway = LEEWAY_SECONDS;
    validation.set_issuer(&[issuer]);
    validation.set_audience(&[audience]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    Ok(jsonwebtoken::decode::<Value>(token, &key, &validation)
        .map_err(IdTokenError::Claims)?
        .claims)
}

/// The header of `token`, when it names an asymmetric algorithm.
fn asymmetric_header(token: &str) -> Result<jsonwebtoken::Header, IdTokenError> {
    let header = jsonwebtoken::decode_header(token).map_err(IdTokenError::Header)?;
    if !ASYMMETRIC.contains(&header.alg) {
        return Err(IdTokenError::Algorithm(header.alg));
    }
    Ok(header)
}

/// The verified claims of `token`.
pub async fn verify(
    transport: &Transport,
    site: &Url,
    client_id: &str,
    nonce: Option<&str>,
    token: &str,
) -> Result<Value, IdTokenError> {
    // The header is checked before anything is fetched: a token we would refuse costs no request to the provider.
    asymmetric_header(token)?;
    let (issuer, keys) = provider_keys(transport, site).await?;
    let claims = decode(token, &keys, &issuer, client_id)?;
    if let Some(sent) = nonce {
        let returned = claims["nonce"].as_str().unwrap_or_default();
        if !bool::from(returned.as_bytes().ct_eq(sent.as_bytes())) {
            return Err(IdTokenError::Nonce);
        }
    }
    Ok(claims)
}
