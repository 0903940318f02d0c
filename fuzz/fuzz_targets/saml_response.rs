//! The SAML service provider's response parser: arbitrary bytes as the XML of a POSTed `SAMLResponse`, through
//! everything `saml::finish` does (size and markup refusals, the one-Response-one-Assertion shape, the certificate
//! choice, xmlsec's signature verification and reduction, samael's parsing and checks, the attribute mapping),
//! for a strategy pinning a certificate and one pinning a fingerprint. Every input is refused or yields an
//! identity, never a panic or a hang. The seeds are a signed response of the tests' identity provider and its
//! wrapped, commented and DOCTYPE variants (their signatures do not verify against this target's key: they reach
//! the verifier and everything before it).
#![no_main]

use std::sync::OnceLock;

use auth::saml::{self, Endpoints, replay::ReplayCache};
use auth::session::PendingLogin;
use auth::store::SamlStrategy;
use base64::Engine;
use libfuzzer_sys::fuzz_target;
use serde_json::json;

const ACS: &str = "http://acme.test/auth/saml/callback/s1";

fn strategies() -> &'static [SamlStrategy; 2] {
    static STRATEGIES: OnceLock<[SamlStrategy; 2]> = OnceLock::new();
    STRATEGIES.get_or_init(|| {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_RSA_SHA256).expect("RSA key");
        let cert = rcgen::CertificateParams::new(vec!["idp.test".into()])
            .expect("params")
            .self_signed(&key)
            .expect("certificate");
        let pinned = SamlStrategy {
            id: "s1".into(),
            name: "fuzz".into(),
            authority_id: "a1".into(),
            issuer: Some("https://acme.test/sp".into()),
            idp_sso_target_url: Some("https://idp.test/sso".into()),
            idp_sso_target_url_runtime_params: json!({}),
            assertion_consumer_service_url: None,
            name_identifier_format: None,
            uid_attribute: None,
            idp_cert: Some(cert.pem()),
            idp_cert_fingerprint: None,
            attribute_statements: json!({}),
            idp_slo_target_url: None,
            slo_default_relay_state: None,
        };
        let fingerprinted = SamlStrategy {
            idp_cert: None,
            idp_cert_fingerprint: Some("ab".repeat(32)),
            uid_attribute: Some("email".into()),
            ..pinned.clone()
        };
        [pinned, fingerprinted]
    })
}

fuzz_target!(|data: &[u8]| {
    let endpoints = Endpoints {
        acs_url: ACS.into(),
        metadata_url: "http://acme.test/auth/saml/metadata/s1".into(),
        logout_url: "http://acme.test/auth/saml/logout/s1".into(),
    };
    let pending = PendingLogin {
        provider: "saml".into(),
        strategy: "s1".into(),
        state: "_abc".into(),
        pkce_verifier: None,
        nonce: None,
    };
    let encoded = base64::engine::general_purpose::STANDARD.encode(data);
    let replays = ReplayCache::default();
    for strategy in strategies() {
        let _ = saml::finish(strategy, &endpoints, &pending, &encoded, &replays);
    }
});
