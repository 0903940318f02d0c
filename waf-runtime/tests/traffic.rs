//! Traffic controls against the real binary: IP allow and deny lists, GeoIP with a database built here, rate
//! limits in process and shared through a real Redis started by the test.
//!
//! Clients other than 127.0.0.1 come two ways: as the TCP peer itself (loopback is all of 127/8, so a socket
//! bound to 127.0.0.2 is another client), or through `X-Forwarded-For` from 127.0.0.1 configured as a trusted
//! proxy (how the IPv6 and documentation-range clients reach the proxy).
mod support;

use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::geoip::*;
use support::*;
use tokio::net::TcpSocket;

/// One request from `source` (the TCP peer address) to `host`, with `X-Forwarded-For: xff` when given.
async fn from(
    addr: SocketAddr,
    source: &str,
    host: &str,
    xff: Option<&str>,
) -> (http::response::Parts, Bytes) {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(source.parse().unwrap(), 0))
        .unwrap();
    let stream = socket.connect(addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut req = Request::get("/page").header("host", host);
    if let Some(xff) = xff {
        req = req.header("x-forwarded-for", xff);
    }
    let response = sender
        .send_request(req.body(Full::new(Bytes::new())).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    (parts, body.collect().await.unwrap().to_bytes())
}

/// The status of a request from the trusted proxy 127.0.0.1 on behalf of `client`.
async fn status_for(waf: &Waf, host: &str, client: &str) -> u16 {
    from(waf.addr, "127.0.0.1", host, Some(client))
        .await
        .0
        .status
        .as_u16()
}

/// The `reason` of a 403 for `client`, or `"passed"` when it was forwarded.
async fn verdict(waf: &Waf, host: &str, client: &str) -> String {
    let (parts, body) = from(waf.addr, "127.0.0.1", host, Some(client)).await;
    match parts.status.as_u16() {
        200 => "passed".into(),
        403 => json(&body)["reason"].as_str().unwrap().to_string(),
        other => panic!("unexpected status {other} for {client}"),
    }
}

const TRUST_LOOPBACK: &str = "  client_ip: {trusted_proxies: [127.0.0.1]}\n";

#[tokio::test]
async fn ip_lists_allow_and_deny_v4_and_v6_per_domain() {
    let upstream = Upstream::start().await;
    let config = format!(
        "  upstream: {{default: '{}'}}\n{TRUST_LOOPBACK}  ip_filter:\n    allow: [127.0.0.1, 198.51.100.0/24, '2001:db8::/32']\n    deny: [198.51.100.66, '2001:db8:bad::/48']\n  domains:\n    open.test:\n      ip_filter: {{allow: ['0.0.0.0/0', '::/0'], deny: [203.0.113.13]}}\n",
        upstream.url()
    );
    let waf = Waf::start(&config, &[]);
    for (client, expected) in [
        ("198.51.100.7", "passed"),
        ("198.51.100.66", "ip_denied"),
        ("203.0.113.1", "ip_not_allowed"),
        ("2001:db8::5", "passed"),
        ("2001:0db8:0bad::1", "ip_denied"),
        ("2001:db9::1", "ip_not_allowed"),
        // The right-most untrusted entry is the client; what the client wrote to the left of it is not.
        ("203.0.113.9, 198.51.100.7", "passed"),
        ("198.51.100.7, 203.0.113.9", "ip_not_allowed"),
    ] {
        assert_eq!(
            verdict(&waf, "app.test", client).await,
            expected,
            "{client}"
        );
    }
    // A domain with its own allow list admits everyone it lists; the global deny list still applies there,
    // and the domain's own deny entries apply only there.
    assert_eq!(verdict(&waf, "open.test", "203.0.113.1").await, "passed");
    assert_eq!(
        verdict(&waf, "open.test", "198.51.100.66").await,
        "ip_denied"
    );
    assert_eq!(
        verdict(&waf, "open.test", "203.0.113.13").await,
        "ip_denied"
    );
    assert_eq!(
        verdict(&waf, "app.test", "203.0.113.13").await,
        "ip_not_allowed"
    );

    let (parts, body) = from(waf.addr, "127.0.0.1", "app.test", Some("198.51.100.66")).await;
    assert_eq!(parts.status, 403);
    let body = json(&body);
    assert_eq!(body["error"], "forbidden");
    assert!(body["message"].is_string());
    assert!(
        waf.metric("waf_ip_blocked_total{reason=\"ip_denied\"}")
            .await
            >= 4.0,
        "{}",
        waf.logs()
    );
    assert!(
        waf.metric("waf_ip_blocked_total{reason=\"ip_not_allowed\"}")
            .await
            >= 4.0
    );
    assert!(
        waf.logs().contains(
            "traffic control [reason \"ip_denied\"] [action \"blocked\"] [client \"198.51.100.66\"]"
        ),
        "{}",
        waf.logs()
    );
}

#[tokio::test]
async fn a_forwarded_for_header_from_an_untrusted_peer_changes_nothing() {
    let upstream = Upstream::start().await;
    let config = format!(
        "  upstream: {{default: '{}'}}\n{TRUST_LOOPBACK}  ip_filter: {{allow: [127.0.0.1, 198.51.100.7], deny: [127.0.0.3]}}\n",
        upstream.url()
    );
    let waf = Waf::start(&config, &[]);
    // 127.0.0.2 is not a trusted proxy: the allowed address it claims is ignored, and so is a claim to be the
    // trusted proxy itself.
    for xff in [
        None,
        Some("198.51.100.7"),
        Some("127.0.0.1"),
        Some("198.51.100.7, 127.0.0.1"),
    ] {
        let (parts, body) = from(waf.addr, "127.0.0.2", "app.test", xff).await;
        assert_eq!(parts.status, 403, "{xff:?}");
        assert_eq!(json(&body)["reason"], "ip_not_allowed");
    }
    // A denied peer cannot escape its entry by naming an allowed address either.
    let (parts, body) = from(waf.addr, "127.0.0.3", "app.test", Some("198.51.100.7")).await;
    assert_eq!(parts.status, 403);
    assert_eq!(json(&body)["reason"], "ip_denied");
    // The same header through the trusted proxy is believed.
    assert_eq!(status_for(&waf, "app.test", "198.51.100.7").await, 200);
}

/// Replaces `path` by writing a temporary file and renaming it over, as a deploy tool would.
fn replace(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(tmp, path).unwrap();
}

async fn wait_verdict(waf: &Waf, client: &str, expected: &str) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let got = verdict(waf, "app.test", client).await;
        if got == expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{client} still {got}, expected {expected}:\n{}",
            waf.logs()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn list_files_replaced_on_disk_apply_without_restart() {
    let upstream = Upstream::start().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    let deny = dir.path().join("deny.txt");
    std::fs::write(&deny, "# abusers\n192.0.2.1   # first\n\n2001:db8:1::/48\n").unwrap();
    let config = format!(
        "  upstream: {{default: '{}'}}\n{TRUST_LOOPBACK}  ip_filter: {{deny_file: deny.txt}}\n",
        upstream.url()
    );
    Waf::write_config(dir.path(), &config);
    let waf = Waf::launch(dir);
    assert_eq!(verdict(&waf, "app.test", "192.0.2.1").await, "ip_denied");
    assert_eq!(
        verdict(&waf, "app.test", "2001:db8:1::7").await,
        "ip_denied"
    );
    assert_eq!(verdict(&waf, "app.test", "192.0.2.2").await, "passed");

    replace(&deny, "192.0.2.2\n");
    wait_verdict(&waf, "192.0.2.2", "ip_denied").await;
    assert_eq!(verdict(&waf, "app.test", "192.0.2.1").await, "passed");

    // A bad line is reported with file and line, and the lists in force stay.
    replace(&deny, "192.0.2.3\n192.0.2.300\n");
    waf.wait_log("deny.txt:2: ", 15).await;
    assert_eq!(verdict(&waf, "app.test", "192.0.2.2").await, "ip_denied");
    assert_eq!(verdict(&waf, "app.test", "192.0.2.3").await, "passed");

    // A change of the configuration itself applies too: an inline allow list appears.
    let config = format!(
        "  upstream: {{default: '{}'}}\n{TRUST_LOOPBACK}  ip_filter: {{allow: [127.0.0.1, 192.0.2.0/24]}}\n",
        upstream.url()
    );
    Waf::write_config(waf.dir.path(), &config);
    wait_verdict(&waf, "198.51.100.1", "ip_not_allowed").await;
    assert_eq!(verdict(&waf, "app.test", "192.0.2.2").await, "passed");
}

#[test]
fn check_config_reads_the_list_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    std::fs::write(dir.path().join("allow.txt"), "10.0.0.0/8\n10.0.0.0/40\n").unwrap();
    let config =
        "  ip_filter: {allow_file: allow.txt}\n  geoip: {enabled: true, database: missing.mmdb}\n";
    Waf::write_config(dir.path(), config);
    let out = Command::new(env!("CARGO_BIN_EXE_waf"))
        .args(["--check-config", "--config", "waf.yml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("allow.txt:2: "), "{stderr}");

    std::fs::write(dir.path().join("allow.txt"), "10.0.0.0/8\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_waf"))
        .args(["--check-config", "--config", "waf.yml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("missing.mmdb"), "{stderr}");

    let config = "  rate_limit: {enabled: true, backend: redis, redis_url: 'redis://u:s3cret@127.0.0.1:1/'}\n";
    Waf::write_config(dir.path(), config);
    let out = Command::new(env!("CARGO_BIN_EXE_waf"))
        .args(["--check-config", "--config", "waf.yml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("redis://u:***@127.0.0.1:1/"), "{stdout}");
    assert!(!stdout.contains("s3cret"), "{stdout}");
}

/// Sends requests as `client` until one is refused; returns how many passed and the refusal.
async fn until_limited(
    waf: &Waf,
    host: &str,
    client: &str,
    max: usize,
) -> (usize, http::response::Parts) {
    for passed in 0..max {
        let (parts, _) = from(waf.addr, "127.0.0.1", host, Some(client)).await;
        if parts.status == 429 {
            return (passed, parts);
        }
        assert_eq!(parts.status, 200);
    }
    panic!("{max} requests from {client} to {host} and none was limited");
}

fn header(parts: &http::response::Parts, name: &str) -> u64 {
    parts.headers[name].to_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn rate_limit_burst_recovery_and_domain_override() {
    let upstream = Upstream::start().await;
    // One request per second on average, three at once; strict.test: one per minute.
    let config = format!(
        "  upstream: {{default: '{}'}}\n{TRUST_LOOPBACK}  rate_limit: {{enabled: true, requests: 2, window_sec: 2, burst: 3}}\n  domains:\n    strict.test:\n      rate_limit: {{requests: 1, window_sec: 60}}\n",
        upstream.url()
    );
    let waf = Waf::start(&config, &[]);
    let (passed, refused) = until_limited(&waf, "app.test", "198.51.100.1", 10).await;
    assert_eq!(passed, 3, "the burst");
    assert_eq!(header(&refused, "ratelimit-limit"), 2);
    assert_eq!(header(&refused, "ratelimit-remaining"), 0);
    let retry = header(&refused, "retry-after");
    assert!((1..=2).contains(&retry), "{retry}");
    assert_eq!(header(&refused, "ratelimit-reset"), retry);
    // Another client has its own budget.
    assert_eq!(status_for(&waf, "app.test", "198.51.100.2").await, 200);
    // After the announced wait, the client may send again.
    tokio::time::sleep(Duration::from_secs(retry)).await;
    assert_eq!(status_for(&waf, "app.test", "198.51.100.1").await, 200);

    let (passed, refused) = until_limited(&waf, "strict.test", "198.51.100.3", 10).await;
    assert_eq!(
        passed, 1,
        "the domain's own limit, with its own default burst"
    );
    assert_eq!(header(&refused, "ratelimit-limit"), 1);
    assert!(header(&refused, "retry-after") > 50);
    assert!(waf.metric("waf_rate_limited_total").await >= 2.0);
    assert!(
        waf.logs()
            .contains("[reason \"rate_limited\"] [action \"blocked\"]")
    );
}

#[tokio::test]
async fn observe_mode_forwards_and_logs_what_would_be_refused() {
    let upstream = Upstream::start().await;
    let config = format!(
        "  mode: observe\n  upstream: {{default: '{}'}}\n{TRUST_LOOPBACK}  ip_filter: {{deny: [198.51.100.66]}}\n  rate_limit: {{enabled: true, requests: 1, window_sec: 60}}\n",
        upstream.url()
    );
    let waf = Waf::start(&config, &[]);
    for _ in 0..3 {
        assert_eq!(status_for(&waf, "app.test", "198.51.100.66").await, 200);
        assert_eq!(status_for(&waf, "app.test", "198.51.100.5").await, 200);
    }
    waf.wait_log(
        "OBSERVE MODE traffic control [reason \"ip_denied\"] [action \"observed\"]",
        5,
    )
    .await;
    waf.wait_log(
        "OBSERVE MODE traffic control [reason \"rate_limited\"] [action \"observed\"]",
        5,
    )
    .await;
    assert_eq!(waf.metric("waf_rate_limited_total").await, 0.0);
    assert_eq!(
        waf.metric("waf_ip_blocked_total{reason=\"ip_denied\"}")
            .await,
        0.0
    );
}

fn required() -> bool {
    std::env::var("REQUIRE_EXTERNAL_TESTS").is_ok_and(|v| v == "1")
}

#[tokio::test]
async fn geoip_by_country_from_a_database_replaced_on_disk() {
    let Some(python) = python_with_mmdb_writer() else {
        return;
    };
    let upstream = Upstream::start().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    let db = dir.path().join("country.mmdb");
    write_mmdb(
        &python,
        &db,
        &[
            ("127.0.0.0/8", "ZZ"),
            ("198.51.100.0/24", "FR"),
            ("203.0.113.0/24", "DE"),
            ("2001:db8::/32", "FR"),
        ],
    );
    let config = format!(
        "  upstream: {{default: '{}'}}\n{TRUST_LOOPBACK}  geoip: {{enabled: true, database: country.mmdb, deny_countries: [fr], unknown: deny}}\n  domains:\n    de-only.test:\n      geoip: {{allow_countries: [DE], deny_countries: [], unknown: allow}}\n",
        upstream.url()
    );
    Waf::write_config(dir.path(), &config);
    let waf = Waf::launch(dir);
    assert_eq!(
        verdict(&waf, "app.test", "198.51.100.1").await,
        "country_denied"
    );
    // Its access line: the outcome, and the client address as read through the trusted proxy.
    waf.wait_log("\"action\":\"geo_denied\"", 5).await;
    let logs = waf.logs();
    let access: serde_json::Value = logs
        .lines()
        .find(|l| l.contains("\"action\":\"geo_denied\""))
        .map(|l| serde_json::from_str(l).unwrap())
        .unwrap();
    assert_eq!(access["client"]["ip"], "198.51.100.1", "{access}");
    assert_eq!(access["http"]["response"]["status_code"], 403);
    assert_eq!(
        verdict(&waf, "app.test", "2001:db8::1").await,
        "country_denied"
    );
    assert_eq!(verdict(&waf, "app.test", "203.0.113.1").await, "passed");
    assert_eq!(
        verdict(&waf, "app.test", "192.0.2.1").await,
        "country_denied",
        "unknown: deny"
    );
    assert_eq!(verdict(&waf, "de-only.test", "203.0.113.1").await, "passed");
    assert_eq!(
        verdict(&waf, "de-only.test", "198.51.100.1").await,
        "country_denied"
    );
    assert_eq!(
        verdict(&waf, "de-only.test", "192.0.2.1").await,
        "passed",
        "unknown: allow"
    );
    assert!(waf.metric("waf_geo_blocked_total{country=\"FR\"}").await >= 3.0);
    assert!(
        waf.metric("waf_geo_blocked_total{country=\"unknown\"}")
            .await
            >= 1.0
    );
    assert!(waf.logs().contains("[country \"FR\"]"), "{}", waf.logs());

    // The database is replaced: 198.51.100.0/24 is now German.
    write_mmdb(
        &python,
        &waf.dir.path().join("country.mmdb"),
        &[("127.0.0.0/8", "ZZ"), ("198.51.100.0/24", "DE")],
    );
    wait_verdict(&waf, "198.51.100.1", "passed").await;
    assert_eq!(
        verdict(&waf, "app.test", "2001:db8::1").await,
        "country_denied",
        "now unknown"
    );
}

/// A throwaway `redis-server` on a loopback port, no persistence; stopped on drop. Restartable on the same port.
struct Redis {
    program: PathBuf,
    port: u16,
    child: Option<Child>,
}

impl Redis {
    fn start() -> Option<Redis> {
        let program = std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .map(|d| d.join("redis-server"))
            .find(|p| p.is_file());
        let Some(program) = program else {
            let why = "redis-server is not installed (apt-get install redis-server)";
            assert!(!required(), "REQUIRE_EXTERNAL_TESTS=1 but {why}");
            eprintln!("SKIPPED: {why}");
            return None;
        };
        let mut redis = Redis {
            program,
            port: closed_port(),
            child: None,
        };
        redis.resume();
        Some(redis)
    }

    fn resume(&mut self) {
        let child = Command::new(&self.program)
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

#[tokio::test]
async fn two_proxies_share_one_limit_in_redis_and_fail_open_while_it_is_down() {
    let Some(mut redis) = Redis::start() else {
        return;
    };
    let upstream = Upstream::start().await;
    let config = format!(
        "  upstream: {{default: '{}'}}\n{TRUST_LOOPBACK}  rate_limit: {{enabled: true, requests: 4, window_sec: 600, backend: redis, redis_url: '{}', redis_timeout_ms: 200}}\n",
        upstream.url(),
        redis.url()
    );
    let a = Waf::start(&config, &[]);
    let b = Waf::start(&config, &[]);
    // Alternating between the two proxies: one budget of 4 for the pair, not 4 each.
    let mut passed = 0;
    for i in 0..8 {
        let waf = if i % 2 == 0 { &a } else { &b };
        match status_for(waf, "app.test", "198.51.100.1").await {
            200 => passed += 1,
            429 => {}
            other => panic!("status {other}"),
        }
    }
    assert_eq!(passed, 4, "{}\n{}", a.logs(), b.logs());
    assert_eq!(status_for(&b, "app.test", "198.51.100.1").await, 429);

    // Redis goes away: requests are forwarded (fail_open defaults to true), counted, and said once in the log.
    redis.stop();
    for _ in 0..5 {
        assert_eq!(status_for(&a, "app.test", "198.51.100.1").await, 200);
    }
    assert!(a.metric("waf_rate_limit_backend_errors_total").await >= 5.0);
    a.wait_log("rate limit: Redis unavailable", 5).await;
    assert_eq!(a.logs().matches("rate limit: Redis unavailable").count(), 1);

    // Redis is back (empty: it kept nothing): the shared limit applies again without a restart.
    redis.resume();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (parts, _) = from(a.addr, "127.0.0.1", "app.test", Some("198.51.100.9")).await;
        if parts.status == 429 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the limit never came back:\n{}",
            a.logs()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Both proxies count together again: a fresh client gets 4 in all.
    let mut passed = 0;
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        let waf = if passed % 2 == 0 { &a } else { &b };
        match status_for(waf, "app.test", "198.51.100.10").await {
            200 => passed += 1,
            _ => break,
        }
    }
    assert!(
        passed <= 4 + 1,
        "{passed}: b may still be reconnecting for one request"
    );
    assert!(
        b.logs().contains("rate limit: connected to Redis"),
        "{}",
        b.logs()
    );
}

#[tokio::test]
async fn redis_down_fails_closed_when_configured() {
    let upstream = Upstream::start().await;
    let config = format!(
        "  upstream: {{default: '{}'}}\n  rate_limit: {{enabled: true, requests: 100, window_sec: 1, backend: redis, redis_url: 'redis://127.0.0.1:{}/', fail_open: false}}\n",
        upstream.url(),
        closed_port()
    );
    let waf = Waf::start(&config, &[]);
    let (parts, body) = from(waf.addr, "127.0.0.1", "app.test", None).await;
    assert_eq!(parts.status, 429);
    assert_eq!(json(&body)["reason"], "rate_limited");
    assert!(waf.metric("waf_rate_limit_backend_errors_total").await >= 1.0);
    // The log is written by a thread of its own: its line may come a little after the answer.
    waf.wait_log("[backend \"unavailable\"]", 5).await;
}
