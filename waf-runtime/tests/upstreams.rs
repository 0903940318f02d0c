//! Upstreams as operators configure them, through the real `waf` binary: `https://` upstreams (a test CA made
//! here with rcgen, real TLS servers with rustls), and the `Host` the upstream receives.
mod support;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::server::WebPkiClientVerifier;
use rustls::{HandshakeKind, RootCertStore, ServerConfig};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use support::tls::{TestCa, path_text, provider};
use support::*;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// An HTTPS server on loopback that answers every request with what it saw of it, as JSON: the `Host` (or
/// HTTP/2 `:authority`), `X-Forwarded-Host`, the SNI name, the protocol, whether the client showed a
/// certificate and whether the TLS session was resumed.
struct TlsUpstream {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl TlsUpstream {
    /// Serves the leaf `stem` of `dir` (made by `ca`); `client_ca`: a client certificate signed by it is
    /// required (mutual TLS).
    async fn start(cert: &Path, key: &Path, client_ca: Option<&TestCa>) -> TlsUpstream {
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let key = rustls::pki_types::PrivateKeyDer::from_pem_file(key).unwrap();
        let builder = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .unwrap();
        let builder = match client_ca {
            None => builder.with_no_client_auth(),
            Some(ca) => {
                let mut roots = RootCertStore::empty();
                for c in CertificateDer::pem_slice_iter(ca.pem.as_bytes()) {
                    roots.add(c.unwrap()).unwrap();
                }
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
                        .build()
                        .unwrap();
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder.with_single_cert(chain, key).unwrap();
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let session = tls.get_ref().1;
                    let seen = serde_json::json!({
                        "sni": session.server_name(),
                        "client_cert": session.peer_certificates().is_some(),
                        "resumed": session.handshake_kind() == Some(HandshakeKind::Resumed),
                    });
                    let h2 = session.alpn_protocol() == Some(b"h2");
                    let service = service_fn(move |req: Request<Incoming>| {
                        let mut seen = seen.clone();
                        async move {
                            let header = |name| {
                                req.headers()
                                    .get(name)
                                    .and_then(|v| v.to_str().ok())
                                    .map(str::to_string)
                            };
                            seen["host"] = header("host")
                                .or_else(|| req.uri().authority().map(|a| a.to_string()))
                                .into();
                            seen["forwarded_host"] = header("x-forwarded-host").into();
                            seen["version"] = format!("{:?}", req.version()).into();
                            let body = Full::new(Bytes::from(seen.to_string()));
                            Ok::<_, Infallible>(Response::new(body))
                        }
                    });
                    let io = TokioIo::new(tls);
                    if h2 {
                        let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                            .serve_connection(io, service)
                            .await;
                    } else {
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(io, service)
                            .await;
                    }
                });
            }
        });
        TlsUpstream { addr, task }
    }

    fn url(&self) -> String {
        format!("https://{}", self.addr)
    }
}

impl Drop for TlsUpstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A request for `host` through the proxy: its status and (on 200) what the upstream saw.
async fn through(waf: &Waf, host: &str) -> (u16, serde_json::Value) {
    let req = Request::get("/seen")
        .header("host", host)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (parts, body) = send(waf.addr, req).await;
    let seen = match parts.status.as_u16() {
        200 => json(&body),
        _ => serde_json::Value::Null,
    };
    (parts.status.as_u16(), seen)
}

#[tokio::test(flavor = "multi_thread")]
async fn https_upstreams_are_verified_and_refused_with_the_reason_logged() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let other_ca = TestCa::new();
    std::fs::write(dir.path().join("ca.pem"), &ca.pem).unwrap();
    std::fs::write(dir.path().join("other-ca.pem"), &other_ca.pem).unwrap();
    let ca_file = path_text(&dir.path().join("ca.pem"));
    let other_ca_file = path_text(&dir.path().join("other-ca.pem"));
    // One upstream whose certificate names its IP address, one that names only `backend.test`, one that asks
    // for a client certificate.
    let (cert, key, _) = ca.leaf(dir.path(), "ip", &["127.0.0.1"]);
    let by_ip = TlsUpstream::start(&cert, &key, None).await;
    let (cert, key, _) = ca.leaf(dir.path(), "named", &["backend.test"]);
    let named = TlsUpstream::start(&cert, &key, None).await;
    let (cert, key, _) = ca.leaf(dir.path(), "mutual", &["127.0.0.1"]);
    let mutual = TlsUpstream::start(&cert, &key, Some(&ca)).await;
    let (client_cert, client_key, _) = ca.leaf(dir.path(), "client", &["waf.test"]);
    let (client_cert, client_key) = (path_text(&client_cert), path_text(&client_key));

    let domain = |name: &str, upstream: &str, tls: &str| {
        format!("    {name}: {{default_upstream: '{upstream}', upstream_tls: {{{tls}}}}}\n")
    };
    let config = [
        "  upstream: {response_timeout_ms: 5000, tls: {ca_file: '".to_string()
            + &ca_file
            + "'}}\n  domains:\n",
        // The global setting: the test CA.
        format!(
            "    verified.test: {{default_upstream: '{}'}}\n",
            by_ip.url()
        ),
        domain("system-roots.test", &by_ip.url(), ""),
        domain(
            "wrong-ca.test",
            &by_ip.url(),
            &format!("ca_file: '{other_ca_file}'"),
        ),
        domain(
            "unverified.test",
            &by_ip.url(),
            &format!("ca_file: '{other_ca_file}', verify: false"),
        ),
        domain(
            "sni.test",
            &named.url(),
            &format!("ca_file: '{ca_file}', server_name: backend.test"),
        ),
        domain(
            "no-sni.test",
            &named.url(),
            &format!("ca_file: '{ca_file}'"),
        ),
        domain(
            "no-client-cert.test",
            &mutual.url(),
            &format!("ca_file: '{ca_file}'"),
        ),
        domain(
            "mutual.test",
            &mutual.url(),
            &format!("ca_file: '{ca_file}', cert_file: '{client_cert}', key_file: '{client_key}'"),
        ),
    ]
    .concat();
    Waf::write_config(dir.path(), &config);
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    let waf = Waf::launch(dir);
    // verify: false is announced at start.
    waf.wait_log("upstream TLS certificates are NOT verified", 5)
        .await;

    let (status, seen) = through(&waf, "verified.test").await;
    assert_eq!(status, 200);
    // The client's Host by default, HTTP/2 as the upstream chose it by ALPN.
    assert_eq!(seen["host"], "verified.test");
    assert_eq!(seen["forwarded_host"], "verified.test");
    assert_eq!(seen["version"], "HTTP/2.0");
    assert_eq!(
        seen["sni"],
        serde_json::Value::Null,
        "no SNI for an IP address"
    );

    for (host, reason) in [
        ("system-roots.test", "UnknownIssuer"),
        // The other CA has the same name as the right one: its signature is what fails.
        ("wrong-ca.test", "BadSignature"),
        (
            "no-sni.test",
            "certificate not valid for name \"127.0.0.1\"",
        ),
    ] {
        let (status, _) = through(&waf, host).await;
        assert_eq!(status, 502, "{host}");
        waf.wait_log(reason, 5).await;
    }
    // Refused by the upstream after the client's side of the TLS 1.3 handshake: its alert may come after the
    // proxy wrote and found the connection closed, so the log line cannot always name it.
    let (status, _) = through(&waf, "no-client-cert.test").await;
    assert_eq!(status, 502);
    assert!(
        waf.logs()
            .contains("TLS handshake: invalid peer certificate"),
        "{}",
        waf.logs()
    );

    let (status, seen) = through(&waf, "unverified.test").await;
    assert_eq!(
        status, 200,
        "verify: false accepts a certificate of another CA"
    );
    assert_eq!(seen["host"], "unverified.test");

    let (status, seen) = through(&waf, "sni.test").await;
    assert_eq!(status, 200);
    assert_eq!(seen["sni"], "backend.test");

    let (status, seen) = through(&waf, "mutual.test").await;
    assert_eq!(status, 200);
    assert_eq!(seen["client_cert"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn https_upstream_from_the_environment_over_http1_with_sessions_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    std::fs::write(dir.path().join("ca.pem"), &ca.pem).unwrap();
    let (cert, key, _) = ca.leaf(dir.path(), "ip", &["127.0.0.1"]);
    let up = TlsUpstream::start(&cert, &key, None).await;
    // No connection kept: every request opens a new one, which resumes the TLS session of the one before.
    let config = format!(
        "  upstream: {{http2: off, pool_max_idle_per_host: 0, tls: {{ca_file: '{}'}}}}\n",
        path_text(&dir.path().join("ca.pem"))
    );
    Waf::write_config(dir.path(), &config);
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_waf"));
    command.env("UPSTREAM", up.url());
    let waf = Waf::launch_with(dir, command);

    let (status, first) = through(&waf, "app.test").await;
    assert_eq!(status, 200);
    assert_eq!(first["version"], "HTTP/1.1", "upstream.http2: off");
    assert_eq!(first["resumed"], false);
    let (status, second) = through(&waf, "app.test").await;
    assert_eq!(status, 200);
    assert_eq!(second["resumed"], true, "the session is resumed");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_upstream_receives_the_host_configured_for_its_domain() {
    let up = Upstream::start().await;
    let config = format!(
        "  upstream: {{default: '{}'}}\n  domains:\n    fixed.test: {{upstream_host: 'backend.example:8443'}}\n    \
         own.test: {{upstream_host: $upstream}}\n    client.test: {{}}\n",
        up.url()
    );
    let waf = Waf::start(&config, &[]);
    for (host, expected) in [
        ("fixed.test", "backend.example:8443".to_string()),
        ("own.test", up.addr.to_string()),
        ("client.test", "client.test".to_string()),
        ("unlisted.test", "unlisted.test".to_string()),
    ] {
        let (parts, _) = get_with_host(waf.addr, host).await;
        assert_eq!(parts.status, 200, "{host}");
        let seen = up.last();
        assert_eq!(seen.headers["host"], expected.as_str(), "{host}");
        // The client's Host is still told, whatever the upstream is sent.
        assert_eq!(seen.headers["x-forwarded-host"], host, "{host}");
    }
}

async fn get_with_host(addr: SocketAddr, host: &str) -> (http::response::Parts, Bytes) {
    let req = Request::get("/")
        .header("host", host)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (parts, body) = send(addr, req).await;
    (parts, body)
}

#[test]
fn check_config_names_the_upstream_tls_key_that_cannot_work() {
    let dir = tempfile::tempdir().unwrap();
    for (config, says) in [
        (
            "waf: {upstream: {tls: {ca_file: missing.pem}}}",
            "waf.upstream.tls.ca_file: missing.pem",
        ),
        (
            "waf: {domains: {a.test: {upstream_tls: {cert_file: c.pem}}}}",
            "waf.domains.a.test.upstream_tls: cert_file and key_file go together",
        ),
        (
            "waf: {domains: {a.test: {upstream_host: 'a b'}}}",
            "waf.domains.a.test.upstream_host",
        ),
    ] {
        std::fs::write(dir.path().join("waf.yml"), config).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_waf"))
            .args(["--check-config", "--config", "waf.yml"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{config}: {stderr}");
        assert!(stderr.contains(says), "{config}: {stderr}");
    }
}
