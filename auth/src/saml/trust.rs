//! Which certificates may sign a strategy's responses: the configured `idp_cert`, or else the certificate a
//! response carries when its fingerprint equals `idp_cert_fingerprint` (as the legacy service allowed). Either way
//! the key is pinned by the strategy; a certificate the response brings is never trusted for what it is.

use aws_lc_rs::digest;
use base64::Engine;
use samael::crypto::CertificateDer;
use samael::schema::Response;
use subtle::ConstantTimeEq;

use crate::store::SamlStrategy;

/// Why a strategy's certificates cannot vouch for a response.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("idp_cert is not PEM or base64: {0}")]
    NotBase64(base64::DecodeError),
    #[error("idp_cert is not an X.509 certificate: {0}")]
    NotX509(x509_parser::nom::Err<x509_parser::error::X509Error>),
    #[error("idp_cert holds no certificate")]
    NoCertificate,
    #[error("idp_cert_fingerprint is not hex")]
    FingerprintNotHex,
    #[error("idp_cert_fingerprint has {0} hex digits (SHA-1 has 40, SHA-256 64)")]
    FingerprintLength(usize),
    #[error("strategy misconfigured: neither idp_cert nor idp_cert_fingerprint")]
    NoTrustAnchor,
    #[error("no certificate in the response matches idp_cert_fingerprint")]
    NoMatchingCertificate,
}

/// The DER certificates of `text`: PEM blocks (several for a key rollover), or the bare base64 of one DER.
pub fn parse_certificates(text: &str) -> Result<Vec<Vec<u8>>, TrustError> {
    let b64 = base64::engine::general_purpose::STANDARD;
    let blocks: Vec<String> = if text.contains("-----BEGIN CERTIFICATE-----") {
        text.split("-----BEGIN CERTIFICATE-----")
            .skip(1)
            .map(|block| {
                block
                    .split("-----END CERTIFICATE-----")
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    } else {
        vec![text.to_string()]
    };
    let mut certificates = Vec::new();
    for block in blocks {
        let compact: String = block.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let der = b64.decode(compact).map_err(TrustError::NotBase64)?;
        x509_parser::parse_x509_certificate(&der).map_err(TrustError::NotX509)?;
        certificates.push(der);
    }
    if certificates.is_empty() {
        return Err(TrustError::NoCertificate);
    }
    Ok(certificates)
}

/// `fingerprint` as lower-case hex without separators, and the digest it is of (SHA-1: 40 digits, SHA-256: 64).
pub fn normalize_fingerprint(
    fingerprint: &str,
) -> Result<(String, &'static digest::Algorithm), TrustError> {
    let hex: String = fingerprint
        .chars()
        .filter(|c| !matches!(c, ':' | ' ' | '-'))
        .collect::<String>()
        .to_ascii_lowercase();
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(TrustError::FingerprintNotHex);
    }
    match hex.len() {
        // Fingerprints identify a certificate the operator chose; SHA-1 here is a legacy identifier, not a signature.
        40 => Ok((hex, &digest::SHA1_FOR_LEGACY_USE_ONLY)),
        64 => Ok((hex, &digest::SHA256)),
        n => Err(TrustError::FingerprintLength(n)),
    }
}

/// The certificates that may have signed `response` (parsed from the raw document only to find a fingerprinted
/// certificate; its signature is verified later, against these).
pub fn signing_certificates(
    strategy: &SamlStrategy,
    response: Option<&Response>,
) -> Result<Vec<CertificateDer>, TrustError> {
    if let Some(cert) = strategy
        .idp_cert
        .as_deref()
        .filter(|c| !c.trim().is_empty())
    {
        return Ok(parse_certificates(cert)?
            .into_iter()
            .map(CertificateDer::from)
            .collect());
    }
    let Some(fingerprint) = strategy
        .idp_cert_fingerprint
        .as_deref()
        .filter(|f| !f.trim().is_empty())
    else {
        return Err(TrustError::NoTrustAnchor);
    };
    let (wanted, algorithm) = normalize_fingerprint(fingerprint)?;
    let carried = response.into_iter().flat_map(|r| {
        let signatures = r
            .signature
            .iter()
            .chain(r.assertion.iter().flat_map(|a| a.signature.iter()));
        signatures
            .flat_map(|s| s.key_info.iter().flatten())
            .flat_map(|k| k.x509_data.iter())
            .flat_map(|d| d.certificates.iter())
            .collect::<Vec<_>>()
    });
    let b64 = base64::engine::general_purpose::STANDARD;
    let matching: Vec<CertificateDer> = carried
        .filter_map(|text| {
            let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
            b64.decode(compact).ok()
        })
        .filter(|der| {
            let hex = hex::encode(digest::digest(algorithm, der));
            bool::from(hex.as_bytes().ct_eq(wanted.as_bytes()))
        })
        .map(CertificateDer::from)
        .collect();
    if matching.is_empty() {
        return Err(TrustError::NoMatchingCertificate);
    }
    Ok(matching)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_normalize_and_bad_ones_are_named() {
        let (hex, _) = normalize_fingerprint(&"AB:".repeat(20)[..59]).unwrap();
        assert_eq!(hex, "ab".repeat(20));
        assert!(normalize_fingerprint(&"a".repeat(64)).is_ok());
        assert!(
            normalize_fingerprint("abc")
                .unwrap_err()
                .to_string()
                .contains("3 hex digits")
        );
        assert!(matches!(
            normalize_fingerprint(&"g".repeat(40)),
            Err(TrustError::FingerprintNotHex)
        ));
    }

    #[test]
    fn certificates_parse_from_pem_or_base64_and_garbage_is_refused() {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["idp.test".into()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        let pem = cert.pem();
        assert_eq!(parse_certificates(&pem).unwrap(), vec![cert.der().to_vec()]);
        assert_eq!(
            parse_certificates(&format!("{pem}\n{pem}")).unwrap().len(),
            2
        );
        let bare = base64::engine::general_purpose::STANDARD.encode(cert.der());
        assert_eq!(
            parse_certificates(&bare).unwrap(),
            vec![cert.der().to_vec()]
        );
        assert!(matches!(
            parse_certificates("not a cert!"),
            Err(TrustError::NotBase64(_))
        ));
        assert!(matches!(
            parse_certificates("AAAA"),
            Err(TrustError::NotX509(_))
        ));
    }
}
