//! TLS for the tests: a CA (rcgen) that signs certificates, and rustls clients that verify them or just look at
//! which certificate a server offers.
use super::*;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

/// A CA that signs the tests' certificates.
pub struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    pub pem: String,
}

impl TestCa {
    pub fn new() -> TestCa {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::default();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "waf https tests CA");
        let cert = params.self_signed(&key).unwrap();
        TestCa {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// Writes a leaf for `names` (chain: leaf then CA) and its ECDSA P-256 key as `<stem>.pem` / `<stem>.key` in
    /// `dir`, and returns the paths and the leaf's DER (to recognise it in a handshake).
    pub fn leaf(&self, dir: &Path, stem: &str, names: &[&str]) -> (PathBuf, PathBuf, Vec<u8>) {
        self.leaf_with(dir, stem, names, KeyPair::generate().unwrap())
    }

    /// As `leaf`, with an RSA 2048 key.
    pub fn rsa_leaf(&self, dir: &Path, stem: &str, names: &[&str]) -> (PathBuf, PathBuf, Vec<u8>) {
        let key = KeyPair::generate_for(&rcgen::PKCS_RSA_SHA256).unwrap();
        self.leaf_with(dir, stem, names, key)
    }

    fn leaf_with(
        &self,
        dir: &Path,
        stem: &str,
        names: &[&str],
        key: KeyPair,
    ) -> (PathBuf, PathBuf, Vec<u8>) {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let cert = CertificateParams::new(names)
            .unwrap()
            .signed_by(&key, &self.issuer)
            .unwrap();
        let (cert_path, key_path) = (
            dir.join(format!("{stem}.pem")),
            dir.join(format!("{stem}.key")),
        );
        replace_file(&cert_path, format!("{}{}", cert.pem(), self.pem).as_bytes());
        replace_file(&key_path, key.serialize_pem().as_bytes());
        (cert_path, key_path, cert.der().to_vec())
    }
}

/// Write then rename, as an operator's deploy tool would.
pub fn replace_file(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("new");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(tmp, path).unwrap();
}

pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// A client that trusts `ca_pem` and checks names, as a browser would.
pub fn verifying_client(ca_pem: &str, alpn: &[&[u8]]) -> ClientConfig {
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots.add(cert.unwrap()).unwrap();
    }
    let mut config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    config
}

/// Accepts any certificate (signatures still checked): for tests that look at *which* certificate was served,
/// including the global one offered for a name it does not cover.
#[derive(Debug)]
pub struct AnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

pub fn looking_client() -> ClientConfig {
    let provider = provider();
    ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
        .with_no_client_auth()
}

/// A TLS handshake with `sni` (none: the client connects by IP address, which sends no SNI).
pub async fn connect(
    addr: SocketAddr,
    sni: Option<&str>,
    config: ClientConfig,
) -> std::io::Result<TlsStream<TcpStream>> {
    let name = match sni {
        Some(n) => ServerName::try_from(n.to_string()).unwrap(),
        None => ServerName::IpAddress(addr.ip().into()),
    };
    let tcp = TcpStream::connect(addr).await?;
    TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
}

/// The leaf certificate served for `sni`, or the handshake error.
pub async fn served(addr: SocketAddr, sni: Option<&str>) -> Result<Vec<u8>, String> {
    let tls = connect(addr, sni, looking_client())
        .await
        .map_err(|e| e.to_string())?;
    let (_, session) = tls.get_ref();
    Ok(session.peer_certificates().unwrap()[0].to_vec())
}

/// One HTTP/1.1 request over a verified TLS connection for `host`.
pub async fn https_get(
    addr: SocketAddr,
    host: &str,
    ca_pem: &str,
    path: &str,
) -> (http::response::Parts, Bytes) {
    let tls = connect(addr, Some(host), verifying_client(ca_pem, &[b"http/1.1"]))
        .await
        .unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .unwrap();
    tokio::spawn(conn);
    let req = Request::get(path)
        .header("host", host)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (parts, body) = sender.send_request(req).await.unwrap().into_parts();
    (parts, body.collect().await.unwrap().to_bytes())
}

/// Debian's curl, or `None` after a loud skip (a failure under REQUIRE_EXTERNAL_TESTS=1).
pub fn curl(args: &[&str]) -> Option<std::process::Output> {
    match std::process::Command::new("curl").args(args).output() {
        Ok(out) => Some(out),
        Err(e) => {
            if std::env::var("REQUIRE_EXTERNAL_TESTS").is_ok_and(|v| v == "1") {
                panic!("REQUIRE_EXTERNAL_TESTS=1 but curl cannot run: {e}");
            }
            eprintln!("SKIPPED: curl cannot run: {e}");
            None
        }
    }
}

pub fn path_text(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}
