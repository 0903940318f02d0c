//! ACME end to end: the real `waf` binary against Debian's `pebble` (a test ACME server) with
//! `pebble-challtestsrv` as its DNS, all on loopback, with real HTTP-01 validation on the proxy's HTTP port.
//! Covers a failed order retried, issuance, the certificate served by SNI, the challenge path refusing what is
//! not an exact token, renewal of a short-lived certificate without restart, and reuse after a restart; and ACME
//! following the configuration in force: a domain given ACME by a reload is ordered for and served at once, its
//! task started again when `waf.acme` changes, and its certificate withdrawn at once when the domain loses ACME.
mod support;

use http::{Request, StatusCode};
use http_body_util::Full;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::tls::*;
use support::*;

const DOMAIN: &str = "shop.example.com";
/// Pebble's certificate lifetime here: renewal is due after two thirds of it (`tls/acme.rs`).
const VALIDITY_SECS: u64 = 24;

/// A child process killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Whether pebble can run here; a loud skip otherwise (a failure under REQUIRE_EXTERNAL_TESTS=1).
fn pebble_installed() -> bool {
    let found = ["pebble", "pebble-challtestsrv"].iter().all(|b| {
        Command::new(b)
            .arg("-h")
            .stderr(Stdio::null())
            .stdout(Stdio::null())
            .status()
            .is_ok()
    });
    if !found {
        if std::env::var("REQUIRE_EXTERNAL_TESTS").is_ok_and(|v| v == "1") {
            panic!("REQUIRE_EXTERNAL_TESTS=1 but pebble is not installed (apt-get install pebble)");
        }
        eprintln!("SKIPPED: pebble is not installed");
    }
    found
}

fn wait_listening(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} never listened on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Pebble serving its API on `api` over HTTPS with a certificate `ca` signed, validating HTTP-01 on `http_port`
/// and resolving names through `dns`.
fn start_pebble(dir: &Path, ca: &TestCa, api: u16, http_port: u16, dns: u16) -> Killed {
    let (cert, key, _) = ca.leaf(dir, "pebble", &["127.0.0.1", "localhost"]);
    let config = serde_json::json!({"pebble": {
        "listenAddress": format!("127.0.0.1:{api}"),
        "managementListenAddress": format!("127.0.0.1:{}", closed_port()),
        "certificate": cert,
        "privateKey": key,
        "httpPort": http_port,
        "tlsPort": closed_port(),
        "ocspResponderURL": "",
        "externalAccountBindingRequired": false,
        "certificateValidityPeriod": VALIDITY_SECS,
    }});
    let config_path = dir.join("pebble.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let child = Command::new("pebble")
        .arg("-config")
        .arg(&config_path)
        .arg("-dnsserver")
        .arg(format!("127.0.0.1:{dns}"))
        // No random waits before validation, no nonces refused on purpose, a new authorization per order.
        .env("PEBBLE_VA_NOSLEEP", "1")
        .env("PEBBLE_WFE_NONCEREJECT", "0")
        .env("PEBBLE_AUTHZREUSE", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let child = Killed(child);
    wait_listening(api, "pebble");
    child
}

/// The DNS pebble asks: every name is 127.0.0.1 and ::1 (A and AAAA, as a name with IPv6 has; pebble validates
/// over IPv6 then, so the proxy must listen on both families), the other challenge servers off.
/// Pebble on free ports, its CA written to `ca_file` (the CA the proxy's `waf.acme.ca_file` trusts) in `dir`;
/// its DNS (`start_dns(dns)`) is left to the test, which may want validations to fail first.
struct Pki {
    dir: tempfile::TempDir,
    ca_file: std::path::PathBuf,
    http_port: u16,
    api: u16,
    dns: u16,
    pebble: Killed,
}

impl Pki {
    fn start() -> Pki {
        let dir = tempfile::tempdir().unwrap();
        let ca = TestCa::new();
        let ca_file = dir.path().join("ca.pem");
        std::fs::write(&ca_file, &ca.pem).unwrap();
        let (http_port, api, dns) = (closed_port(), closed_port(), closed_port());
        let pebble = start_pebble(dir.path(), &ca, api, http_port, dns);
        Pki {
            dir,
            ca_file,
            http_port,
            api,
            dns,
            pebble,
        }
    }
}

fn start_dns(dns: u16) -> Killed {
    let child = Command::new("pebble-challtestsrv")
        .args([
            "-http01",
            "",
            "-https01",
            "",
            "-tlsalpn01",
            "",
            "-defaultIPv6",
            "::1",
        ])
        .arg("-dns01")
        .arg(format!("127.0.0.1:{dns}"))
        .arg("-management")
        .arg(format!("127.0.0.1:{}", closed_port()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The DNS server is UDP: give it a moment rather than probe it.
    std::thread::sleep(Duration::from_millis(500));
    Killed(child)
}

async fn wait_at_least(waf: &Waf, series: &str, value: f64, secs: u64) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let now = waf.metric(series).await;
        if now >= value {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{series} stayed at {now}, not {value}:\n{}",
            waf.logs()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn from_pebble(leaf: &[u8]) -> bool {
    let (_, cert) = x509_parser::parse_x509_certificate(leaf).unwrap();
    cert.issuer().to_string().contains("Pebble")
}

/// The leaf served for `DOMAIN` once it is one pebble issued (and not `not`), waiting up to `secs`.
async fn pebble_leaf(waf: &Waf, tls: SocketAddr, not: Option<&[u8]>, secs: u64) -> Vec<u8> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Ok(leaf) = served(tls, Some(DOMAIN)).await
            && from_pebble(&leaf)
            && not != Some(leaf.as_slice())
        {
            return leaf;
        }
        assert!(
            Instant::now() < deadline,
            "no (new) certificate from pebble:\n{}",
            waf.logs()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

// The child processes are started with blocking calls: the upstream needs a runtime thread of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pebble_issues_after_a_failed_order_and_the_certificate_is_renewed_without_restart() {
    if !pebble_installed() {
        return;
    }
    let upstream = Upstream::start().await;
    // Pebble without its DNS: the first validation cannot resolve the name, so the first order fails.
    let Pki {
        dir: _pki,
        ca_file,
        http_port,
        api,
        dns,
        pebble: _pebble,
    } = Pki::start();

    // The default listen address (both families): the name has an AAAA record.
    let server = format!(
        "listen_address: '::', http_port: {http_port}, https_enabled: true, https_port: 0, tls: {{auto_cert_dir: certs}}"
    );
    let config = format!(
        "  upstream: {{default: '{}'}}\n  domains:\n    {DOMAIN}: {{acme_enabled: true, acme_email: ops@example.com, force_https: true}}\n  acme: {{directory_url: 'https://127.0.0.1:{api}/dir', ca_file: '{}'}}\n",
        upstream.url(),
        path_text(&ca_file)
    );
    let waf = Waf::start_with_server(&server, &config, &[]);
    let tls = waf.https_addr();
    wait_at_least(&waf, "waf_acme_order_failures_total", 1.0, 60).await;
    assert!(
        waf.logs()
            .contains(&format!("ACME: order for {DOMAIN} failed"))
    );
    // Nothing to serve yet: a handshake alert, not some other certificate.
    assert!(served(tls, Some(DOMAIN)).await.is_err());

    // With DNS up, the retry (10 s after the failure) is validated over HTTP-01 on the proxy's HTTP port, through
    // force_https, which does not apply to challenges.
    let _dns = start_dns(dns);
    let first = pebble_leaf(&waf, tls, None, 60).await;
    let kept = waf.dir.path().join("certs/acme");
    for key in ["account.json", &format!("{DOMAIN}.key")] {
        assert_eq!(mode(&kept.join(key)), 0o600, "{key}");
    }
    assert!(kept.join(format!("{DOMAIN}.pem")).is_file());
    let (_, body) = get(waf.addr, "/health").await;
    assert_eq!(json(&body)["tls"]["certificates"][DOMAIN]["source"], "acme");

    // The challenge path answers exact tokens of orders in progress only, and never reaches the upstream.
    for (method, path, status) in [
        (
            "GET",
            "/.well-known/acme-challenge/unknown-token",
            StatusCode::NOT_FOUND,
        ),
        (
            "GET",
            "/.well-known/acme-challenge/../../waf.yml",
            StatusCode::NOT_FOUND,
        ),
        (
            "GET",
            "/.well-known/acme-challenge/..%2f..%2fwaf.yml",
            StatusCode::NOT_FOUND,
        ),
        (
            "POST",
            "/.well-known/acme-challenge/unknown-token",
            StatusCode::METHOD_NOT_ALLOWED,
        ),
    ] {
        let req = Request::builder()
            .method(method)
            .uri(path)
            .header("host", DOMAIN)
            .body(Full::default())
            .unwrap();
        let (head, _) = send(waf.addr, req).await;
        assert_eq!(head.status, status, "{method} {path}");
    }
    assert!(upstream.seen().is_empty());

    // The certificate lives VALIDITY_SECS: renewal is due after two thirds of it, and the new one is served on
    // the same listener, without restart.
    let renewed = pebble_leaf(&waf, tls, Some(&first), 60).await;
    assert_ne!(first, renewed);
    assert!(waf.metric("waf_acme_orders_total").await >= 3.0);

    // After a restart the account and the kept certificate are used again.
    let dir = waf.stop();
    let waf = Waf::restart_in(dir);
    waf.https_addr();
    waf.wait_log("ACME: serving the certificate kept", 20).await;
    assert!(!waf.logs().contains("account created"), "{}", waf.logs());
}

/// The leaf served for `DOMAIN`, once it is not one pebble issued, waiting up to `secs`.
async fn leaf_not_from_pebble(waf: &Waf, tls: SocketAddr, secs: u64) -> Vec<u8> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let leaf = served(tls, Some(DOMAIN)).await.unwrap();
        if !from_pebble(&leaf) {
            return leaf;
        }
        assert!(
            Instant::now() < deadline,
            "the pebble certificate is still served:\n{}",
            waf.logs()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acme_follows_the_configuration_in_force_without_restart() {
    if !pebble_installed() {
        return;
    }
    let upstream = Upstream::start().await;
    let Pki {
        dir: pki,
        ca_file,
        http_port,
        api,
        dns,
        pebble: _pebble,
    } = Pki::start();
    let _dns = start_dns(dns);

    // No ACME domain at start: the domain gets the global (self-signed) certificate.
    let server = format!(
        "listen_address: '::', http_port: {http_port}, https_enabled: true, https_port: 0, tls: {{auto_generate: true, auto_cert_dir: certs}}"
    );
    let config_with = |acme: bool, ca_file: &Path| {
        format!(
            "  upstream: {{default: '{}'}}\n  domains:\n    {DOMAIN}: {{acme_enabled: {acme}, acme_email: ops@example.com}}\n  acme: {{directory_url: 'https://127.0.0.1:{api}/dir', ca_file: '{}'}}\n",
            upstream.url(),
            path_text(ca_file)
        )
    };
    let config = |acme: bool| config_with(acme, &ca_file);
    let waf = Waf::start_with_server(&server, &config(false), &[]);
    let tls = waf.https_addr();
    let global = served(tls, Some(DOMAIN)).await.unwrap();
    assert!(!waf.logs().contains("ACME"), "{}", waf.logs());

    // Given ACME in waf.yml: ordered at the reload, and served by SNI on the same listener.
    Waf::write_config_with_server(waf.dir.path(), &server, &config(true));
    waf.wait_log(&format!("ACME: {DOMAIN} started"), 20).await;
    pebble_leaf(&waf, tls, None, 60).await;
    let (_, body) = get(waf.addr, "/health").await;
    assert_eq!(json(&body)["tls"]["certificates"][DOMAIN]["source"], "acme");
    assert!(!waf.logs().contains("next restart"), "{}", waf.logs());

    // Another waf.acme (the same CA in another file): the task starts again with it, and serves the kept
    // certificate at once.
    let ca_copy = pki.path().join("ca-copy.pem");
    std::fs::copy(&ca_file, &ca_copy).unwrap();
    Waf::write_config_with_server(waf.dir.path(), &server, &config_with(true, &ca_copy));
    waf.wait_log(
        &format!("ACME: serving the certificate kept for {DOMAIN}"),
        20,
    )
    .await;
    pebble_leaf(&waf, tls, None, 5).await;

    // ACME taken away: the task stops and the handshake falls back to the global certificate at once.
    Waf::write_config_with_server(waf.dir.path(), &server, &config(false));
    assert_eq!(leaf_not_from_pebble(&waf, tls, 20).await, global);
    waf.wait_log(&format!("ACME: {DOMAIN} stopped"), 5).await;
    let (_, body) = get(waf.addr, "/health").await;
    assert_eq!(
        json(&body)["tls"]["certificates"][DOMAIN]["source"],
        "self_signed"
    );
    // Stopped for good: no renewal of the withdrawn certificate comes back (pebble's live 24 s, renewal at 16 s).
    let orders = waf.metric("waf_acme_orders_total").await;
    tokio::time::sleep(Duration::from_secs(VALIDITY_SECS)).await;
    assert_eq!(waf.metric("waf_acme_orders_total").await, orders);
    assert_eq!(served(tls, Some(DOMAIN)).await.unwrap(), global);
}
