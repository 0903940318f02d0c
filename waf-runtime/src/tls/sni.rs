//! Choosing the certificate for a handshake by its SNI name.
//!
//! Per domain, the first that applies: the domain's own files, then its ACME certificate, then the global
//! certificate. A name no domain has a certificate for, or no name at all, gets the global
//! certificate; without one the handshake is refused with an alert. The table is swapped whole when a file
//! changes (`watch.rs`) or ACME brings a certificate (`acme.rs`), so a handshake sees one consistent table and
//! connections already open keep theirs.
use super::certs::Served;
use arc_swap::ArcSwap;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use std::collections::HashMap;
use std::sync::Arc;

/// The certificates being served.
#[derive(Debug, Default, Clone)]
pub struct CertTable {
    /// For any name below without one of its own, and for handshakes without SNI.
    pub global: Option<Arc<Served>>,
    /// By lower-case domain name: the domains' own files.
    pub domains: HashMap<String, Arc<Served>>,
    /// By lower-case domain name: certificates from ACME.
    pub acme: HashMap<String, Arc<Served>>,
}

impl CertTable {
    /// The certificate a handshake for `name` gets.
    pub fn for_name(&self, name: Option<&str>) -> Option<&Arc<Served>> {
        name.and_then(|n| self.domains.get(n).or_else(|| self.acme.get(n)))
            .or(self.global.as_ref())
    }
}

/// The live table, shared by the handshakes (reading), the watcher (swapping) and `/health`.
pub type Certs = Arc<ArcSwap<CertTable>>;

#[derive(Debug)]
pub struct SniResolver(pub Certs);

impl ResolvesServerCert for SniResolver {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        // rustls hands over the SNI name validated as a DNS name; names are compared in lower case.
        let name = hello.server_name().map(str::to_ascii_lowercase);
        let table = self.0.load();
        let served = table.for_name(name.as_deref());
        if served.is_none() {
            tracing::debug!("TLS: no certificate for SNI {name:?}: handshake refused");
        }
        served.map(|s| s.key.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tls::certs::Source;

    fn served(source: Source) -> Arc<Served> {
        let key = rcgen::KeyPair::generate().unwrap();
        let der = rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into());
        let signer = rustls::crypto::aws_lc_rs::sign::any_supported_type(&der).unwrap();
        Arc::new(Served {
            key: Arc::new(CertifiedKey::new(vec![], signer)),
            source,
            not_before: 0,
            not_after: 0,
        })
    }

    #[test]
    fn a_name_gets_its_files_then_its_acme_certificate_then_the_global_one() {
        let mut table = CertTable::default();
        assert!(table.for_name(Some("a.test")).is_none());
        assert!(table.for_name(None).is_none());
        table.global = Some(served(Source::GlobalFiles));
        table.acme.insert("a.test".into(), served(Source::Acme));
        table.acme.insert("b.test".into(), served(Source::Acme));
        table
            .domains
            .insert("a.test".into(), served(Source::DomainFiles));
        let source = |name| table.for_name(name).unwrap().source;
        assert_eq!(source(Some("a.test")), Source::DomainFiles);
        assert_eq!(source(Some("b.test")), Source::Acme);
        assert_eq!(source(Some("c.test")), Source::GlobalFiles);
        assert_eq!(source(None), Source::GlobalFiles);
    }
}
