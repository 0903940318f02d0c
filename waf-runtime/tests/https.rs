//! HTTPS through the real `waf` binary with real TLS handshakes: a rustls client and Debian's `curl`, against
//! certificates made here by a test CA (rcgen). Covers the global certificate, SNI per domain and its priority,
//! unknown SNI with and without a global certificate, `auto_generate` and its reuse, a certificate replaced on
//! disk, TLS 1.1 refused, a silent client cut off, HTTP/2 via ALPN with the same inspection, `force_https`,
//! `/health` and `/metrics`.
mod support;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::Full;
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use support::tls::*;
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[tokio::test]
async fn sni_chooses_each_domains_certificate_and_falls_back_to_the_global_one() {
    let upstream = Upstream::start().await;
    let certs = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (gc, gk, global) = ca.leaf(certs.path(), "global", &["default.test"]);
    let (ac, ak, a) = ca.leaf(certs.path(), "a", &["a.test"]);
    let (rc, rk, r) = ca.rsa_leaf(certs.path(), "r", &["r.test"]);
    let server = format!(
        "https_enabled: true, https_port: 0, tls: {{cert_file: '{}', key_file: '{}'}}",
        path_text(&gc),
        path_text(&gk)
    );
    let config = format!(
        "  upstream: {{default: '{}'}}\n  domains:\n    a.test: {{cert_file: '{}', key_file: '{}'}}\n    b.test: {{}}\n    r.test: {{cert_file: '{}', key_file: '{}'}}\n",
        upstream.url(),
        path_text(&ac),
        path_text(&ak),
        path_text(&rc),
        path_text(&rk)
    );
    let waf = Waf::start_with_server(&server, &config, &[("deny.yaml", DENY_RULE)]);
    let tls = waf.https_addr();

    assert_eq!(served(tls, Some("a.test")).await.unwrap(), a);
    assert_eq!(served(tls, Some("A.TEST")).await.unwrap(), a);
    // An RSA certificate (the others are ECDSA), verified by a browser-like client.
    assert_eq!(served(tls, Some("r.test")).await.unwrap(), r);
    let (head, _) = https_get(tls, "r.test", &ca.pem, "/rsa").await;
    assert_eq!(head.status, StatusCode::OK);
    // A configured domain without its own certificate, a name nobody configured, and no SNI at all.
    assert_eq!(served(tls, Some("b.test")).await.unwrap(), global);
    assert_eq!(served(tls, Some("unknown.test")).await.unwrap(), global);
    assert_eq!(served(tls, None).await.unwrap(), global);

    // A browser-like client verifies the chain and name, and the request is proxied (and inspected) as over HTTP.
    let (head, _) = https_get(tls, "a.test", &ca.pem, "/hello?x=1").await;
    assert_eq!(head.status, StatusCode::OK);
    let seen = upstream.last();
    assert_eq!(seen.uri, "/hello?x=1");
    assert_eq!(seen.headers["x-forwarded-proto"], "https");
    let (head, body) = https_get(tls, "a.test", &ca.pem, "/?q=attack-me").await;
    assert_eq!(head.status, StatusCode::FORBIDDEN);
    assert_eq!(json(&body)["rule_id"], 100001);
    // Plain HTTP still works beside HTTPS, and says so upstream.
    let (head, _) = get(waf.addr, "/plain").await;
    assert_eq!(head.status, StatusCode::OK);
    assert_eq!(upstream.last().headers["x-forwarded-proto"], "http");

    // Handshakes, failures and expiry are visible.
    assert!(waf.metric("waf_tls_handshakes_total").await >= 7.0);
    let a_expiry = waf
        .metric("waf_tls_certificate_not_after_seconds{domain=\"a.test\"}")
        .await;
    assert!(a_expiry > 1.7e9, "{a_expiry}");
    let (_, body) = get(waf.addr, "/health").await;
    let health = json(&body);
    assert_eq!(
        health["tls"]["certificates"]["a.test"]["source"],
        "domain_files"
    );
    assert_eq!(
        health["tls"]["certificates"]["b.test"]["source"],
        "global_files"
    );
    assert_eq!(health["tls"]["certificates"]["*"]["source"], "global_files");
    assert_eq!(
        health["tls"]["certificates"]["a.test"]["not_after_unix"].as_f64(),
        Some(a_expiry)
    );
}

#[tokio::test]
async fn without_a_global_certificate_an_unknown_name_gets_a_handshake_alert() {
    let upstream = Upstream::start().await;
    let certs = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (ac, ak, a) = ca.leaf(certs.path(), "a", &["a.test"]);
    let config = format!(
        "  upstream: {{default: '{}'}}\n  domains:\n    a.test: {{cert_file: '{}', key_file: '{}'}}\n",
        upstream.url(),
        path_text(&ac),
        path_text(&ak)
    );
    let waf = Waf::start_with_server("https_enabled: true, https_port: 0", &config, &[]);
    let tls = waf.https_addr();
    assert_eq!(served(tls, Some("a.test")).await.unwrap(), a);
    for sni in [Some("other.test"), None] {
        let e = served(tls, sni).await.unwrap_err();
        assert!(e.contains("alert"), "{sni:?}: {e}");
    }
    // The client may read the alert before the server's task counts the failure.
    waf.wait_metric("waf_tls_handshake_failures_total{reason=\"error\"}", 2.0)
        .await;
}

#[tokio::test]
async fn auto_generate_makes_a_ca_and_a_leaf_and_reuses_them_after_a_restart() {
    let upstream = Upstream::start().await;
    let server = "https_enabled: true, https_port: 0, http_enabled: false, tls: {auto_generate: true, auto_cert_dir: gen}";
    let config = format!(
        "  upstream: {{default: '{}'}}\n  domains:\n    a.test: {{}}\n",
        upstream.url()
    );
    let waf = Waf::start_with_server(server, &config, &[]);
    waf.wait_log("FOR TESTING ONLY", 10).await;
    let tls = waf.https_addr();
    let gen_dir = waf.dir.path().join("gen");
    let ca_pem = std::fs::read_to_string(gen_dir.join("ca.pem")).unwrap();
    for key in ["ca.key", "server.key"] {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(gen_dir.join(key))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{key}");
    }
    // Trusted through the generated CA, for the configured domain and for localhost.
    for host in ["a.test", "localhost"] {
        let (head, _) = https_get(tls, host, &ca_pem, "/").await;
        assert_eq!(head.status, StatusCode::OK, "{host}");
    }
    let first = served(tls, Some("a.test")).await.unwrap();

    let dir = waf.stop();
    let waf = Waf::restart_in(dir);
    let tls = waf.https_addr();
    assert!(
        waf.logs()
            .contains("serving the self-signed certificate kept in")
    );
    assert_eq!(served(tls, Some("a.test")).await.unwrap(), first);
    let (head, _) = https_get(tls, "a.test", &ca_pem, "/").await;
    assert_eq!(head.status, StatusCode::OK);
    let (_, body) = raw_https_health(tls, &ca_pem).await;
    assert_eq!(
        json(&body)["tls"]["certificates"]["a.test"]["source"],
        "self_signed"
    );
}

async fn raw_https_health(addr: SocketAddr, ca_pem: &str) -> (http::response::Parts, Bytes) {
    https_get(addr, "localhost", ca_pem, "/health").await
}

#[tokio::test]
async fn a_certificate_replaced_on_disk_is_served_without_restart_and_a_broken_one_is_not() {
    let upstream = Upstream::start().await;
    let certs = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (gc, gk, first) = ca.leaf(certs.path(), "global", &["a.test"]);
    let server = format!(
        "https_enabled: true, https_port: 0, tls: {{cert_file: '{}', key_file: '{}'}}",
        path_text(&gc),
        path_text(&gk)
    );
    let config = format!("  upstream: {{default: '{}'}}\n", upstream.url());
    let waf = Waf::start_with_server(&server, &config, &[]);
    let tls = waf.https_addr();
    assert_eq!(served(tls, Some("a.test")).await.unwrap(), first);

    // A connection made before the change keeps working on its certificate.
    let open = connect(
        tls,
        Some("a.test"),
        verifying_client(&ca.pem, &[b"http/1.1"]),
    )
    .await
    .unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(open))
        .await
        .unwrap();
    tokio::spawn(conn);

    let (_, _, second) = ca.leaf(certs.path(), "global", &["a.test"]);
    assert_ne!(first, second);
    let deadline = Instant::now() + Duration::from_secs(20);
    while served(tls, Some("a.test")).await.unwrap() != second {
        assert!(
            Instant::now() < deadline,
            "new certificate never served:\n{}",
            waf.logs()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let req = Request::get("/")
        .header("host", "a.test")
        .body(Full::new(Bytes::new()))
        .unwrap();
    assert_eq!(
        sender.send_request(req).await.unwrap().status(),
        StatusCode::OK
    );

    // A broken certificate file is logged and counted; the one served so far stays.
    replace_file(
        &gc,
        b"-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n",
    );
    waf.wait_log("keeping the certificate served so far", 20)
        .await;
    assert_eq!(served(tls, Some("a.test")).await.unwrap(), second);
    assert!(waf.metric("waf_tls_certificate_load_failures_total").await >= 1.0);
}

/// A ClientHello offering at most TLS 1.1 (record and hello version 3.2, no `supported_versions`), as an old
/// client sends it.
fn tls11_client_hello() -> Vec<u8> {
    let mut hello = vec![0x03, 0x02];
    hello.extend([7u8; 32]); // random
    hello.push(0); // no session id
    let suites: [u8; 6] = [0xc0, 0x13, 0xc0, 0x14, 0x00, 0x2f]; // ECDHE-RSA-AES-CBC-SHA, RSA-AES128-CBC-SHA
    hello.extend((suites.len() as u16).to_be_bytes());
    hello.extend(suites);
    hello.extend([1, 0]); // compression: null
    let name = b"a.test";
    let mut sni = vec![0, 0]; // extension: server_name
    let list_len = name.len() as u16 + 3;
    sni.extend((list_len + 2).to_be_bytes());
    sni.extend(list_len.to_be_bytes());
    sni.push(0);
    sni.extend((name.len() as u16).to_be_bytes());
    sni.extend(name);
    hello.extend((sni.len() as u16).to_be_bytes());
    hello.extend(sni);
    let mut handshake = vec![1];
    handshake.extend(&(hello.len() as u32).to_be_bytes()[1..]);
    handshake.extend(hello);
    let mut record = vec![0x16, 0x03, 0x01];
    record.extend((handshake.len() as u16).to_be_bytes());
    record.extend(handshake);
    record
}

#[tokio::test]
async fn tls_1_1_is_refused_and_a_silent_client_is_cut_off() {
    let upstream = Upstream::start().await;
    let certs = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (gc, gk, _) = ca.leaf(certs.path(), "global", &["a.test"]);
    let server = format!(
        "https_enabled: true, https_port: 0, first_byte_timeout_sec: 1, tls_handshake_timeout_sec: 2, tls: {{cert_file: '{}', key_file: '{}'}}",
        path_text(&gc),
        path_text(&gk)
    );
    let config = format!("  upstream: {{default: '{}'}}\n", upstream.url());
    let waf = Waf::start_with_server(&server, &config, &[]);
    let tls = waf.https_addr();

    let mut stream = TcpStream::connect(tls).await.unwrap();
    stream.write_all(&tls11_client_hello()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    // One fatal alert record (type 21, level 2; rustls says handshake_failure, 40), never a ServerHello.
    assert_eq!(answer.len(), 7, "{answer:?}");
    assert_eq!(
        (answer[0], answer[5], answer[6]),
        (0x15, 2, 40),
        "{answer:?}"
    );

    // A client that connects and says nothing is closed after the first-byte timeout, one that starts a
    // ClientHello and stops after the handshake timeout; meanwhile others are served on the same workers.
    let mut silent = TcpStream::connect(tls).await.unwrap();
    let mut stalled = TcpStream::connect(tls).await.unwrap();
    stalled.write_all(&[0x16, 0x03, 0x01]).await.unwrap();
    let since = std::time::Instant::now();
    let (head, _) = https_get(tls, "a.test", &ca.pem, "/").await;
    assert_eq!(head.status, StatusCode::OK);
    for (client, bound) in [(&mut silent, 1), (&mut stalled, 2)] {
        let mut buf = [0u8; 16];
        let read = tokio::time::timeout(Duration::from_secs(20), client.read(&mut buf))
            .await
            .expect("the client was never cut off");
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
        let after = since.elapsed();
        assert!(
            after >= Duration::from_millis(bound * 1000 - 100)
                && after <= Duration::from_secs(bound + 1),
            "closed after {after:?}, bound {bound} s"
        );
    }
    waf.wait_metric("waf_tls_handshake_failures_total{reason=\"timeout\"}", 2.0)
        .await;
    for stage in ["first_byte", "tls_handshake"] {
        let series = format!("waf_connection_timeouts_total{{stage=\"{stage}\"}}");
        assert_eq!(waf.metric(&series).await, 1.0, "{series}");
    }
}

// curl runs as a blocking child process: the upstream needs a runtime thread of its own meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn curl_http2_over_tls_is_forwarded_and_blocked_like_http_1() {
    let upstream = Upstream::start().await;
    let certs = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (gc, gk, _) = ca.leaf(certs.path(), "global", &["a.test"]);
    let ca_file = certs.path().join("ca.pem");
    std::fs::write(&ca_file, &ca.pem).unwrap();
    let server = format!(
        "https_enabled: true, https_port: 0, http2_enabled: true, tls: {{cert_file: '{}', key_file: '{}'}}",
        path_text(&gc),
        path_text(&gk)
    );
    let config = format!("  upstream: {{default: '{}'}}\n", upstream.url());
    let waf = Waf::start_with_server(&server, &config, &[("deny.yaml", DENY_RULE)]);
    let port = waf.https_addr().port();
    let resolve = format!("a.test:{port}:127.0.0.1");
    let ca_arg = path_text(&ca_file);
    let run = |version: &'static str, path: &str| {
        let url = format!("https://a.test:{port}{path}");
        curl(&[
            "-sS",
            version,
            "--cacert",
            &ca_arg,
            "--resolve",
            &resolve,
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{http_version}",
            &url,
        ])
        .map(|out| {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap()
        })
    };
    let Some(ok) = run("--http2", "/h2?x=1") else {
        return;
    };
    assert_eq!(ok, "200 2");
    let seen = upstream.last();
    assert_eq!(seen.uri, "/h2?x=1");
    assert_eq!(seen.headers["x-forwarded-proto"], "https");
    assert_eq!(run("--http2", "/?q=attack-me").unwrap(), "403 2");
    assert_eq!(run("--http1.1", "/?q=attack-me").unwrap(), "403 1.1");
    assert_eq!(run("--http1.1", "/h1").unwrap(), "200 1.1");
    assert_eq!(
        upstream.seen().len(),
        2,
        "blocked requests reached the upstream"
    );
    // The same log line for the block over HTTP/2 as over HTTP/1.1.
    let logs = waf.logs();
    let blocks: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("rule match [id \"100001\"]"))
        .map(|l| l.split_once("rule match").unwrap().1)
        // Each request has its own id.
        .map(|l| l.split_once(" [request_id").unwrap().0)
        .collect();
    assert_eq!(blocks.len(), 2, "{logs}");
    assert_eq!(blocks[0], blocks[1]);
    // The access line says which HTTP and TLS versions the request came over.
    let access: serde_json::Value = logs
        .lines()
        .find(|l| l.contains("\"dataset\":\"waf.access\"") && l.contains("\"path\":\"/h2\""))
        .map(|l| serde_json::from_str(l).unwrap())
        .unwrap_or_else(|| panic!("no access line for /h2: {logs}"));
    assert_eq!(access["http"]["version"], "2");
    assert_eq!(access["tls"]["version"], "1.3");
    assert_eq!(access["tls"]["version_protocol"], "tls");
}

#[tokio::test]
async fn force_https_redirects_plain_http_for_its_domain_only() {
    let upstream = Upstream::start().await;
    let certs = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (gc, gk, _) = ca.leaf(certs.path(), "global", &["a.test", "b.test"]);
    let server = format!(
        "https_enabled: true, https_port: 0, tls: {{cert_file: '{}', key_file: '{}'}}",
        path_text(&gc),
        path_text(&gk)
    );
    let config = format!(
        "  upstream: {{default: '{}'}}\n  domains:\n    a.test: {{force_https: true}}\n    b.test: {{}}\n",
        upstream.url()
    );
    let waf = Waf::start_with_server(&server, &config, &[("deny.yaml", DENY_RULE)]);
    let https_port = waf.https_addr().port();
    let req = |method: &str, host: &str, path: &str| {
        Request::builder()
            .method(method)
            .uri(path)
            .header("host", host)
            .body(Full::new(Bytes::from_static(b"a=1")))
            .unwrap()
    };
    let (head, _) = send(waf.addr, req("GET", "A.test:80", "/p?q=1")).await;
    assert_eq!(head.status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(
        head.headers["location"],
        format!("https://a.test:{https_port}/p?q=1")
    );
    let (head, _) = send(waf.addr, req("POST", "a.test", "/form")).await;
    assert_eq!(head.status, StatusCode::PERMANENT_REDIRECT);
    assert!(upstream.seen().is_empty());
    // Other domains and the proxy's own endpoints are not redirected; HTTPS itself is served.
    let (head, _) = send(waf.addr, req("GET", "b.test", "/p")).await;
    assert_eq!(head.status, StatusCode::OK);
    let (head, _) = send(waf.addr, req("GET", "a.test", "/health")).await;
    assert_eq!(head.status, StatusCode::OK);
    let (head, _) = https_get(waf.https_addr(), "a.test", &ca.pem, "/p").await;
    assert_eq!(head.status, StatusCode::OK);
}

#[test]
fn a_broken_certificate_at_start_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    std::fs::write(dir.path().join("bad.pem"), "not a certificate").unwrap();
    std::fs::write(dir.path().join("bad.key"), "not a key").unwrap();
    Waf::write_config_with_server(
        dir.path(),
        "https_enabled: true, https_port: 0, tls: {cert_file: bad.pem, key_file: bad.key}",
        "",
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_waf"))
        .arg("--config")
        .arg(dir.path().join("waf.yml"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.pem") && stderr.contains("no PEM certificate"),
        "{stderr}"
    );
}
