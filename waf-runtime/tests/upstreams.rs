//! Upstreams as operators configure them, through the real `waf` binary: `https://` upstreams (a test CA made
//! here with rcgen, real TLS servers with rustls), the `Host` the upstream receives, and pools of servers under
//! load while one dies and another fails its health check.
mod support;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::server::WebPkiClientVerifier;
use rustls::{HandshakeKind, RootCertStore, ServerConfig};
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
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

/// Polls `host` through the proxy until it answers `status` (the TLS files are read again every second).
async fn wait_status(waf: &Waf, host: &str, status: u16) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while through(waf, host).await.0 != status {
        assert!(
            std::time::Instant::now() < deadline,
            "{host} never answered {status}: {}",
            waf.logs()
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn upstream_tls_files_replaced_on_disk_are_used_without_a_reload() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let other_ca = TestCa::new();
    let ca_path = dir.path().join("ca.pem");
    let rotated_path = dir.path().join("rotated-ca.pem");
    std::fs::write(&ca_path, &ca.pem).unwrap();
    // A CA file that trusts the wrong CA, and a client certificate the upstream does not accept, at first.
    std::fs::write(&rotated_path, &other_ca.pem).unwrap();
    let (cert, key, _) = ca.leaf(dir.path(), "ip", &["127.0.0.1"]);
    let by_ip = TlsUpstream::start(&cert, &key, None).await;
    let mutual = TlsUpstream::start(&cert, &key, Some(&ca)).await;
    let (client_cert, client_key, _) = other_ca.leaf(dir.path(), "client", &["waf.test"]);
    let config = format!(
        "  domains:\n    rotated.test: {{default_upstream: '{}', upstream_tls: {{ca_file: '{}'}}}}\n    \
         mutual.test: {{default_upstream: '{}', upstream_tls: {{ca_file: '{}', cert_file: '{}', key_file: '{}'}}}}\n",
        by_ip.url(),
        path_text(&rotated_path),
        mutual.url(),
        path_text(&ca_path),
        path_text(&client_cert),
        path_text(&client_key),
    );
    let waf = Waf::start(&config, &[]);
    assert_eq!(through(&waf, "rotated.test").await.0, 502);
    assert_eq!(through(&waf, "mutual.test").await.0, 502);

    // The right CA replaces the file: used within a reload interval, with no reload of the configuration.
    support::tls::replace_file(&rotated_path, ca.pem.as_bytes());
    wait_status(&waf, "rotated.test", 200).await;
    waf.wait_log("upstream TLS files changed", 5).await;
    // A client certificate the upstream accepts (its two files replaced one after the other).
    ca.leaf(dir.path(), "client", &["waf.test"]);
    wait_status(&waf, "mutual.test", 200).await;
    let (_, seen) = through(&waf, "mutual.test").await;
    assert_eq!(seen["client_cert"], true);

    // A file broken on disk: said in the log, and the TLS client built before keeps serving.
    support::tls::replace_file(&rotated_path, b"not a certificate");
    waf.wait_log("keeping the one built from the files as they were", 5)
        .await;
    assert!(
        waf.logs().contains("rotated-ca.pem"),
        "the log names the file"
    );
    assert_eq!(through(&waf, "rotated.test").await.0, 200);
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

/// `--check-config` refuses `config` (a whole file) with exit status 2, naming what `says`.
fn refused(config: &str, says: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("waf.yml"), config).unwrap();
    let out = check_config(dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{config}: {stderr}");
    assert!(stderr.contains(says), "{config}: {stderr}");
}

#[test]
fn check_config_names_the_upstream_tls_key_that_cannot_work() {
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
        refused(config, says);
    }
}

/// A pool member: an HTTP server on a fixed loopback port that can be killed (listener and every connection
/// closed at once) and started again on the same port. `/health` answers 200, or 500 once told to fail; any
/// other path answers the server's name. Every POST body it receives is counted in `posts`, shared by the pool.
struct Member {
    port: u16,
    name: &'static str,
    healthy: Arc<AtomicBool>,
    served: Arc<AtomicUsize>,
    posts: Arc<Mutex<HashMap<Bytes, usize>>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Member {
    async fn start(name: &'static str, posts: Arc<Mutex<HashMap<Bytes, usize>>>) -> Member {
        let mut member = Member {
            port: 0,
            name,
            healthy: Arc::new(AtomicBool::new(true)),
            served: Arc::default(),
            posts,
            task: None,
        };
        member.restart().await;
        member
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    async fn restart(&mut self) {
        let listener = TcpListener::bind(("127.0.0.1", self.port)).await.unwrap();
        self.port = listener.local_addr().unwrap().port();
        let (name, healthy, served, posts) = (
            self.name,
            self.healthy.clone(),
            self.served.clone(),
            self.posts.clone(),
        );
        self.task = Some(tokio::spawn(async move {
            // Dropped with this task when it is aborted: every connection's task is aborted with it.
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let (healthy, served, posts) = (healthy.clone(), served.clone(), posts.clone());
                connections.spawn(async move {
                    let service = service_fn(move |req: Request<Incoming>| {
                        let (healthy, served, posts) =
                            (healthy.clone(), served.clone(), posts.clone());
                        async move {
                            if req.uri().path() == "/health" {
                                let status = match healthy.load(Ordering::SeqCst) {
                                    true => 200,
                                    false => 500,
                                };
                                let mut response = Response::new(Full::new(Bytes::new()));
                                *response.status_mut() =
                                    http::StatusCode::from_u16(status).unwrap();
                                return Ok::<_, Infallible>(response);
                            }
                            let is_post = req.method() == http::Method::POST;
                            let body = req.into_body().collect().await.unwrap().to_bytes();
                            if is_post {
                                *posts.lock().unwrap().entry(body).or_default() += 1;
                            }
                            served.fetch_add(1, Ordering::SeqCst);
                            Ok(Response::new(Full::new(Bytes::from(name))))
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        }));
    }

    fn kill(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The servers `/health` lists as down.
async fn servers_down(waf: &Waf) -> Vec<String> {
    let (_, body) = get(waf.addr, "/health").await;
    serde_json::from_value(json(&body)["upstreams_down"].clone()).unwrap()
}

/// Two clients POSTing bodies of their own (`client=N&n=M`) back to back until `stop`, counting what they sent.
fn posters(
    addr: std::net::SocketAddr,
    stop: &Arc<AtomicBool>,
    sent: &Arc<AtomicUsize>,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..2)
        .map(|client| {
            let (stop, sent) = (stop.clone(), sent.clone());
            tokio::spawn(async move {
                let mut n = 0;
                while !stop.load(Ordering::SeqCst) {
                    n += 1;
                    post(addr, "/order", format!("client={client}&n={n}")).await;
                    sent.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect()
}

async fn wait_down(waf: &Waf, url: &str, down: bool, secs: u64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while servers_down(waf).await.contains(&url.to_string()) != down {
        assert!(
            std::time::Instant::now() < deadline,
            "{url} never {} /health's upstreams_down: {}",
            if down { "entered" } else { "left" },
            waf.logs()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pool_under_load_loses_no_get_and_never_sends_a_post_twice() {
    let posts: Arc<Mutex<HashMap<Bytes, usize>>> = Arc::default();
    let mut a = Member::start("a", posts.clone()).await;
    let b = Member::start("b", posts.clone()).await;
    let c = Member::start("c", posts.clone()).await;
    let config = format!(
        "  upstream:\n    servers: ['{}', '{}', {{url: '{}', weight: 2}}]\n    \
         max_fails: 1\n    fail_timeout_sec: 2\n    connect_timeout_ms: 500\n    response_timeout_ms: 5000\n    \
         health_check: {{path: /health, interval_sec: 1, timeout_ms: 500}}\n",
        a.url(),
        b.url(),
        c.url()
    );
    let waf = Waf::start(&config, &[]);
    let stop = Arc::new(AtomicBool::new(false));
    let failed_gets = Arc::new(AtomicUsize::new(0));
    let gets = Arc::new(AtomicUsize::new(0));
    let mut load = Vec::new();
    // The load: eight clients sending GETs back to back, two sending POSTs with bodies of their own.
    for _ in 0..8 {
        let (stop, failed, gets, addr) =
            (stop.clone(), failed_gets.clone(), gets.clone(), waf.addr);
        load.push(tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                let (parts, _) = get(addr, "/page").await;
                gets.fetch_add(1, Ordering::SeqCst);
                if parts.status != 200 {
                    failed.fetch_add(1, Ordering::SeqCst);
                }
            }
        }));
    }
    let posts_sent = Arc::new(AtomicUsize::new(0));
    load.extend(posters(waf.addr, &stop, &posts_sent));

    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    // b fails its health check: out within a check interval, and sent nothing after.
    b.healthy.store(false, Ordering::SeqCst);
    wait_down(&waf, &b.url(), true, 3).await;
    let b_served = b.served.load(Ordering::SeqCst);
    assert_eq!(
        waf.metric(&format!("waf_upstream_server_up{{server=\"{}\"}}", b.url()))
            .await,
        0.0
    );

    // a dies: out at its first failure (max_fails: 1), the requests it refused go to c.
    a.kill();
    wait_down(&waf, &a.url(), true, 3).await;
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let a_before = a.served.load(Ordering::SeqCst);
    a.restart().await;
    // Back after fail_timeout_sec (2 s) at the latest, and sent requests again.
    wait_down(&waf, &a.url(), false, 4).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while a.served.load(Ordering::SeqCst) == a_before {
        assert!(
            std::time::Instant::now() < deadline,
            "a got nothing after its restart"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Requests in flight when b went out may still have reached it; none chosen after.
    assert!(
        b.served.load(Ordering::SeqCst) <= b_served + 10,
        "b was sent requests while out: {}",
        waf.logs()
    );
    // b passes again: back in.
    b.healthy.store(true, Ordering::SeqCst);
    wait_down(&waf, &b.url(), false, 3).await;

    stop.store(true, Ordering::SeqCst);
    for task in load {
        task.await.unwrap();
    }
    assert!(gets.load(Ordering::SeqCst) > 100, "the load ran");
    assert_eq!(failed_gets.load(Ordering::SeqCst), 0, "{}", waf.logs());
    // a's death was seen. Whether a GET met it or only a POST did depends on timing (a POST is not retried, so
    // the log need not say "trying"); no GET failed above, so any GET that met it went to another server.
    let logs = waf.logs();
    assert!(
        logs.contains(&format!("upstream {} failed", a.url())),
        "{logs}"
    );
    let posts = posts.lock().unwrap();
    assert!(posts_sent.load(Ordering::SeqCst) > 10);
    let twice: Vec<_> = posts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "POSTs received twice: {twice:?}");
}

#[test]
fn check_config_refuses_a_pool_that_cannot_work() {
    for (config, says) in [
        (
            "waf: {domains: {a.test: {upstreams: []}}}",
            "waf.domains.a.test.upstreams: a pool needs at least one server",
        ),
        (
            "waf: {upstream: {servers: ['http://10.0.0.1', {url: 'http://10.0.0.2', weight: 0}]}}",
            "waf.upstream.servers[1].weight: must be at least 1",
        ),
        (
            "waf: {upstream: {servers: [{url: 'http://10.0.0.2', backup: true}]}}",
            "waf.upstream.servers: every server is a backup",
        ),
        (
            "waf: {domains: {a.test: {default_upstream: 'http://10.0.0.1', upstreams: ['http://10.0.0.2']}}}",
            "waf.domains.a.test.upstreams: set default_upstream or upstreams, not both",
        ),
        // A domain's own pool settings: for its own servers only, each checked as the global one.
        (
            "waf: {domains: {a.test: {retries: 1}}}",
            "waf.domains.a.test.retries: applies to the domain's own servers",
        ),
        (
            "waf: {domains: {a.test: {upstreams: ['http://10.0.0.1'], max_fails: 0}}}",
            "waf.domains.a.test.max_fails: must be at least 1",
        ),
        (
            "waf: {domains: {a.test: {upstreams: ['http://10.0.0.1'], health_check: {expect_status: 700}}}}",
            "waf.domains.a.test.health_check.expect_status",
        ),
    ] {
        refused(config, says);
    }
}

/// Whether Debian's wrk can run (after a loud skip when it cannot: a failure under REQUIRE_EXTERNAL_TESTS=1).
fn wrk_runs() -> bool {
    match std::process::Command::new("wrk").arg("--version").output() {
        Ok(_) => true,
        Err(e) => {
            assert!(
                !std::env::var("REQUIRE_EXTERNAL_TESTS").is_ok_and(|v| v == "1"),
                "REQUIRE_EXTERNAL_TESTS=1 but wrk cannot run: {e} (see .ci/install)"
            );
            eprintln!("SKIPPED: wrk cannot run: {e}");
            false
        }
    }
}

/// The pool of one domain with settings of its own (the global ones would keep a dead server out for a minute),
/// under a wrk load of GETs and a few clients sending POSTs, while one server is killed and restarted and another
/// fails its health check: no GET fails, no POST is received twice, each server is out and back in by the
/// domain's settings. Then a reload turns the domain's health check off (`health_check: off`, though the global
/// one would fail that server too): the server it kept out is back in at once.
#[tokio::test(flavor = "multi_thread")]
async fn a_domains_own_pool_under_a_wrk_load_follows_its_settings_and_their_reload() {
    if !wrk_runs() {
        return;
    }
    let posts: Arc<Mutex<HashMap<Bytes, usize>>> = Arc::default();
    let mut a = Member::start("a", posts.clone()).await;
    let b = Member::start("b", posts.clone()).await;
    let c = Member::start("c", posts.clone()).await;
    let urls = [a.url(), b.url(), c.url()];
    let config = |health_check: &str| {
        format!(
            "  upstream: {{default: 'http://127.0.0.1:9', max_fails: 5, fail_timeout_sec: 60, \
             connect_timeout_ms: 500, response_timeout_ms: 5000, \
             health_check: {{path: /health, interval_sec: 1, timeout_ms: 500}}}}\n  domains:\n    app.test:\n      \
             upstreams: ['{}', '{}', {{url: '{}', weight: 2}}]\n      balance: least_conn\n      max_fails: 1\n      \
             fail_timeout_sec: 2\n      retries: 2\n{health_check}",
            urls[0], urls[1], urls[2]
        )
    };
    let checked = "      health_check: {path: /health, interval_sec: 1, timeout_ms: 500}\n";
    let waf = Waf::start(&config(checked), &[]);

    let mut wrk = tokio::process::Command::new("wrk")
        .args(["-t2", "-c16", "-d20s", "-H", "Host: app.test"])
        .arg(format!("http://{}/page", waf.addr))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let posts_sent = Arc::new(AtomicUsize::new(0));
    let posting = posters(waf.addr, &stop, &posts_sent);

    tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
    // b fails the domain's health check: out within its interval.
    b.healthy.store(false, Ordering::SeqCst);
    wait_down(&waf, &b.url(), true, 3).await;
    // a dies: out at its first failure, and back within the domain's fail_timeout_sec (2 s, not the global 60)
    // once it runs again.
    a.kill();
    wait_down(&waf, &a.url(), true, 3).await;
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let a_before = a.served.load(Ordering::SeqCst);
    a.restart().await;
    wait_down(&waf, &a.url(), false, 4).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while a.served.load(Ordering::SeqCst) == a_before {
        assert!(
            std::time::Instant::now() < deadline,
            "a got nothing after its restart"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    b.healthy.store(true, Ordering::SeqCst);
    wait_down(&waf, &b.url(), false, 3).await;
    assert!(
        wrk.try_wait().unwrap().is_none(),
        "the load ended before the failover did"
    );
    let output = wrk.wait_with_output().await.unwrap();
    stop.store(true, Ordering::SeqCst);
    for task in posting {
        task.await.unwrap();
    }
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{report}");
    // wrk prints these lines only when there is something to count.
    assert!(
        !report.contains("Non-2xx") && !report.contains("Socket errors"),
        "GETs failed under the load:\n{report}\n{}",
        waf.logs()
    );
    let requests: u64 = report
        .lines()
        .find_map(|l| l.trim().split_once(" requests in "))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or(0);
    assert!(requests > 1000, "the load ran:\n{report}");
    assert!(posts_sent.load(Ordering::SeqCst) > 10);
    let twice: Vec<_> = posts
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(body, n)| (body.clone(), *n))
        .collect();
    assert!(twice.is_empty(), "POSTs received twice: {twice:?}");

    // b fails again; a reload then turns the domain's health check off: b is back in at once.
    b.healthy.store(false, Ordering::SeqCst);
    wait_down(&waf, &b.url(), true, 3).await;
    Waf::write_config(waf.dir.path(), &config("      health_check: off\n"));
    wait_down(&waf, &b.url(), false, 5).await;
    waf.wait_log("is no longer health-checked: back in", 5)
        .await;
}
