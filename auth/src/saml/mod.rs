//! The SAML 2.0 service provider: signing users in through an authority's SAML identity providers (`adfs_strat`).
//!
//! [`start`] builds the AuthnRequest (HTTP-Redirect binding, a random ID the session remembers for
//! `InResponseTo`); [`finish`] consumes the POSTed response in this order, each step refusing what it cannot vouch
//! for:
//! 1. [`hostile`]: size, base64, UTF-8, then DOCTYPE, entity declarations and comments refused on the raw text,
//!    before any XML parser runs; then one Response holding one Assertion, or nothing (wrapped copies);
//! 2. [`trust`]: the certificates the strategy pins (`idp_cert`, or the response's certificate whose fingerprint
//!    is `idp_cert_fingerprint`);
//! 3. samael (xmlsec): every signature verified against those certificates, and the document reduced to exactly
//!    the content they cover, so nothing outside a signature (a wrapped copy, an injected sibling) is ever read;
//!    then Destination, the IssueInstant age, status, Issuer, NotBefore / NotOnOrAfter with [`MAX_CLOCK_SKEW`],
//!    Audience (our `issuer`), and a bearer SubjectConfirmation whose Recipient is our ACS URL and whose
//!    InResponseTo is the session's request: unsolicited responses are refused;
//! 4. the assertion consumed must be the document's only one, an AudienceRestriction is required, and the
//!    assertion id is used once ([`replay`]);
//! 5. [`identity`] maps the attributes. Signing the user in is `sso`'s, shared with OAuth 2.0.
//!
//! Signatures by SHA-1 (RSA-SHA1, and SHA-1 digests) are refused: collisions for it are practical.
//! The routes are in `routes/saml.rs`.

pub mod hostile;
pub mod identity;
pub mod replay;
pub mod trust;

use std::collections::HashMap;

use chrono::{Duration, Utc};
use samael::crypto::{AllowedSignatureAlgorithm, CertificateDer};
use samael::key_info::{KeyInfo, X509Data};
use samael::metadata::{EntityDescriptor, IdpSsoDescriptor, KeyDescriptor};
use samael::schema::{Issuer, LogoutRequest, NameID, Response};
use samael::service_provider::ServiceProvider;
use samael::traits::ToXml;
use serde_json::Value;
use url::Url;

use crate::events::Provider;
use crate::session::PendingLogin;
use crate::sso::{ExternalIdentity, LoginError};
use crate::store::SamlStrategy;
use replay::ReplayCache;

/// An assertion (and response) issued longer ago than this is refused: the browser carries it from the identity
/// provider in seconds, and the bound keeps the replay cache small.
pub const MAX_ISSUE_DELAY: Duration = Duration::seconds(90);
/// Clock difference tolerated against the identity provider's NotBefore / NotOnOrAfter.
pub const MAX_CLOCK_SKEW: Duration = Duration::seconds(60);

const ALLOWED_ALGORITHMS: [AllowedSignatureAlgorithm; 6] = [
    AllowedSignatureAlgorithm::RsaSha256,
    AllowedSignatureAlgorithm::RsaSha384,
    AllowedSignatureAlgorithm::RsaSha512,
    AllowedSignatureAlgorithm::EcdsaSha256,
    AllowedSignatureAlgorithm::EcdsaSha384,
    AllowedSignatureAlgorithm::EcdsaSha512,
];

/// Why a SAML response is refused, by the step that refused it.
#[derive(Debug, thiserror::Error)]
pub enum SamlError {
    #[error(transparent)]
    Hostile(#[from] hostile::HostileResponse),
    #[error(transparent)]
    Trust(#[from] trust::TrustError),
    #[error(transparent)]
    Replay(#[from] replay::ReplayError),
    #[error(transparent)]
    Identity(#[from] identity::IdentityError),
}

fn misconfigured(what: &str, e: impl std::fmt::Display) -> LoginError {
    LoginError::refused(format!("strategy misconfigured: {what}: {e}"))
}

/// Our endpoints for one strategy, as the identity provider sees them.
pub struct Endpoints {
    /// Where responses are POSTed: the strategy's `assertion_consumer_service_url`, or ours.
    pub acs_url: String,
    pub metadata_url: String,
    pub logout_url: String,
}

/// Our entity id at this identity provider (`issuer`, required).
fn entity_id(strategy: &SamlStrategy) -> Result<String, LoginError> {
    strategy
        .issuer
        .clone()
        .filter(|i| !i.trim().is_empty())
        .ok_or_else(|| misconfigured("issuer", "unset"))
}

/// An http(s) URL of the strategy's.
pub fn idp_url(what: &str, url: Option<&str>) -> Result<Url, LoginError> {
    let url = url
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| misconfigured(what, "unset"))?;
    let url = Url::parse(url).map_err(|e| misconfigured(what, e))?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(misconfigured(what, format!("scheme {other} refused"))),
    }
}

fn service_provider(
    strategy: &SamlStrategy,
    endpoints: &Endpoints,
    idp_entity_id: Option<String>,
    certificates: &[CertificateDer],
) -> Result<ServiceProvider, LoginError> {
    use base64::Engine;
    let key_descriptors = certificates
        .iter()
        .map(|der| KeyDescriptor {
            key_use: Some("signing".into()),
            key_info: KeyInfo {
                id: None,
                x509_data: Some(X509Data {
                    certificates: vec![
                        base64::engine::general_purpose::STANDARD.encode(der.der_data()),
                    ],
                }),
            },
            encryption_methods: None,
        })
        .collect();
    Ok(ServiceProvider {
        entity_id: Some(entity_id(strategy)?),
        metadata_url: Some(endpoints.metadata_url.clone()),
        acs_url: Some(endpoints.acs_url.clone()),
        slo_url: Some(endpoints.logout_url.clone()),
        idp_metadata: EntityDescriptor {
            entity_id: idp_entity_id,
            idp_sso_descriptors: Some(vec![IdpSsoDescriptor {
                id: None,
                valid_until: None,
                cache_duration: None,
                protocol_support_enumeration: None,
                error_url: None,
                signature: None,
                key_descriptors,
                organization: None,
                contact_people: vec![],
                artifact_resolution_service: vec![],
                single_logout_services: vec![],
                manage_name_id_services: vec![],
                name_id_formats: vec![],
                want_authn_requests_signed: None,
                single_sign_on_services: vec![],
                assertion_id_request_services: vec![],
                attribute_profiles: vec![],
                attributes: vec![],
                name_id_mapping_services: vec![],
            }]),
            ..EntityDescriptor::default()
        },
        authn_name_id_format: strategy
            .name_identifier_format
            .clone()
            .filter(|f| !f.trim().is_empty()),
        allow_idp_initiated: false,
        max_issue_delay: MAX_ISSUE_DELAY,
        max_clock_skew: MAX_CLOCK_SKEW,
        allowed_signature_algorithms: Some(ALLOWED_ALGORITHMS.to_vec()),
        ..ServiceProvider::default()
    })
}

/// The identity provider's URL carrying our AuthnRequest, and the pending login the session must hold.
/// `query` is the start request's: the strategy's runtime parameters copy from it onto the URL.
pub fn start(
    strategy: &SamlStrategy,
    endpoints: &Endpoints,
    query: &HashMap<String, String>,
) -> Result<(Url, PendingLogin), LoginError> {
    let idp = idp_url("idp_sso_target_url", strategy.idp_sso_target_url.as_deref())?;
    let sp = service_provider(strategy, endpoints, None, &[])?;
    let mut request = sp
        .make_authentication_request(idp.as_str())
        .map_err(|e| misconfigured("AuthnRequest", e))?;
    // samael draws 32 bits; InResponseTo is what binds the answer to this session, so it gets a full random token
    // (an xs:ID must not start with a digit).
    request.id = format!("_{}", crate::ids::random_token());
    let mut url = request
        .redirect(&strategy.id)
        .map_err(|e| misconfigured("AuthnRequest", e))?
        .ok_or_else(|| misconfigured("idp_sso_target_url", "unset"))?;
    if let Some(params) = strategy.idp_sso_target_url_runtime_params.as_object() {
        for (ours, theirs) in params {
            if let (Some(value), Value::String(theirs)) = (query.get(ours), theirs) {
                url.query_pairs_mut().append_pair(theirs, value);
            }
        }
    }
    let pending = PendingLogin {
        provider: Provider::Saml.as_str().into(),
        strategy: strategy.id.clone(),
        state: request.id,
        pkce_verifier: None,
        nonce: None,
    };
    Ok((url, pending))
}

/// Who signed in, from the `SAMLResponse` answering the login `pending` started.
pub fn finish(
    strategy: &SamlStrategy,
    endpoints: &Endpoints,
    pending: &PendingLogin,
    saml_response: &str,
    replays: &ReplayCache,
) -> Result<ExternalIdentity, LoginError> {
    let document = hostile::document(saml_response).map_err(SamlError::from)?;
    let assertion_id = hostile::single_assertion_id(&document).map_err(SamlError::from)?;
    // The raw document, read only for what cannot widen trust: the Destination it claims (compared), the issuer
    // (compared by samael with the signed one) and a fingerprinted certificate (pinned by the strategy).
    let raw: Option<Response> = document.parse().ok();
    if let Some(destination) = raw.as_ref().and_then(|r| r.destination.as_deref())
        && destination != endpoints.acs_url
    {
        return Err(LoginError::refused(format!(
            "the response's Destination is not our ACS URL {}",
            endpoints.acs_url
        )));
    }
    let certificates =
        trust::signing_certificates(strategy, raw.as_ref()).map_err(SamlError::from)?;
    let idp_entity_id = raw.as_ref().and_then(|r| {
        r.assertion
            .as_ref()
            .and_then(|a| a.issuer.value.clone())
            .or_else(|| r.issuer.as_ref().and_then(|i| i.value.clone()))
    });
    let sp = service_provider(strategy, endpoints, idp_entity_id, &certificates)?;
    let assertion = sp
        .parse_xml_response(&document, Some(&[pending.state.as_str()]))
        .map_err(|e| LoginError::refused(format!("SAML response refused: {e}")))?;
    if assertion.id != assertion_id {
        return Err(LoginError::refused(
            "the signed assertion is not the response's assertion",
        ));
    }
    let audience_restricted = assertion
        .conditions
        .as_ref()
        .and_then(|c| c.audience_restrictions.as_ref())
        .is_some_and(|r| !r.is_empty());
    if !audience_restricted {
        return Err(LoginError::refused(
            "the assertion has no AudienceRestriction (it could be meant for any service)",
        ));
    }
    let now = Utc::now();
    replays
        .first_use(
            &assertion.id,
            assertion.issue_instant + MAX_ISSUE_DELAY + MAX_CLOCK_SKEW,
            now,
        )
        .map_err(SamlError::from)?;
    let mut identity = identity::identity(strategy, &assertion).map_err(SamlError::from)?;
    identity.name_id = assertion
        .subject
        .and_then(|s| s.name_id)
        .map(|n| n.value.trim().to_string());
    Ok(identity)
}

/// Our SP metadata for the strategy (entity id, ACS by POST, single logout), to register at the identity provider.
pub fn metadata(strategy: &SamlStrategy, endpoints: &Endpoints) -> Result<String, LoginError> {
    let sp = service_provider(strategy, endpoints, None, &[])?;
    let descriptor = sp.metadata().map_err(|e| misconfigured("metadata", e))?;
    descriptor
        .to_string()
        .map_err(|e| misconfigured("metadata", format!("{e:?}")))
}

/// The identity provider's single logout URL carrying a LogoutRequest for `name_id` (HTTP-Redirect binding), with
/// the strategy's default RelayState; `None` when the strategy has no `idp_slo_target_url`.
pub fn logout_request(
    strategy: &SamlStrategy,
    name_id: Option<&str>,
) -> Result<Option<Url>, LoginError> {
    use base64::Engine;
    use std::io::Write;
    if strategy
        .idp_slo_target_url
        .as_deref()
        .is_none_or(|u| u.trim().is_empty())
    {
        return Ok(None);
    }
    let mut url = idp_url("idp_slo_target_url", strategy.idp_slo_target_url.as_deref())?;
    let request = LogoutRequest {
        id: Some(format!("_{}", crate::ids::random_token())),
        version: Some("2.0".into()),
        issue_instant: Some(Utc::now()),
        destination: Some(url.to_string()),
        issuer: Some(Issuer {
            value: Some(entity_id(strategy)?),
            ..Issuer::default()
        }),
        signature: None,
        session_index: None,
        name_id: name_id.map(|value| NameID {
            format: strategy.name_identifier_format.clone(),
            value: value.to_string(),
        }),
    };
    let xml = request
        .to_string()
        .map_err(|e| misconfigured("LogoutRequest", e))?;
    // The HTTP-Redirect binding: raw DEFLATE, then base64.
    let mut deflated =
        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    deflated
        .write_all(xml.as_bytes())
        .and_then(|()| deflated.flush())
        .map_err(|e| misconfigured("LogoutRequest", e))?;
    let deflated = deflated
        .finish()
        .map_err(|e| misconfigured("LogoutRequest", e))?;
    url.query_pairs_mut().append_pair(
        "SAMLRequest",
        &base64::engine::general_purpose::STANDARD.encode(deflated),
    );
    if let Some(relay) = strategy
        .slo_default_relay_state
        .as_deref()
        .filter(|r| !r.is_empty())
    {
        url.query_pairs_mut().append_pair("RelayState", relay);
    }
    Ok(Some(url))
}
