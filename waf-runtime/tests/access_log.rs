//! The request id and the access log, through the real `waf` binary: ids generated, kept or replaced, sent to the
//! upstream, in the answers and in every log line of their request; one access line per request with its outcome,
//! in JSON and in nginx's combined format (read by a parser of that format); SIGUSR1 reopening the file under load.
mod support;

use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};
use support::*;

/// The access lines of a JSON access log in `text` (other log lines skipped).
fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| l.contains("\"dataset\":\"waf.access\""))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn file_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Waits until `read` gives an access line for request `id`, and returns it.
async fn line_for(read: impl Fn() -> String, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let lines = json_lines(&read());
        if let Some(line) = lines.iter().find(|l| l["http"]["request"]["id"] == id) {
            return line.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no access line for {id}:\n{}",
            read()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn id_of(head: &http::response::Parts) -> String {
    head.headers["x-request-id"].to_str().unwrap().to_string()
}

/// A UUIDv7 as the proxy writes it.
fn is_generated(id: &str) -> bool {
    let b = id.as_bytes();
    id.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-')
        && b[14] == b'7'
        && b"89ab".contains(&b[19])
        && id
            .chars()
            .all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c))
}

async fn get_with(
    addr: std::net::SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
) -> (http::response::Parts, Bytes) {
    let mut req = Request::get(path).header("host", "app.test");
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    send(addr, req.body(Full::new(Bytes::new())).unwrap()).await
}

/// The `x-request-id` of a raw HTTP/1.1 answer.
fn raw_id(answer: &str) -> String {
    answer
        .lines()
        .find_map(|l| l.strip_prefix("x-request-id: "))
        .unwrap_or_else(|| panic!("no x-request-id in {answer:?}"))
        .trim()
        .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn request_ids_are_made_kept_or_replaced_and_follow_the_request() {
    let up = Upstream::start().await;
    let config = format!("  upstream: {{default: '{}'}}\n", up.url());
    // Header lines of up to 16 KiB, so that a 10 KB id reaches the pipeline (by default the head guard refuses
    // its line with 431, with an id of ours: tested below).
    let server = "limits: {max_header_line_bytes: 16384, max_head_bytes: 32768}";
    let waf = Waf::start_with_server(server, &config, &[("deny.yaml", DENY_RULE)]);
    let logs = || waf.logs();

    // None sent: one is made, time-ordered, and the upstream, the answer and the access line carry it.
    let (head, _) = get_with(waf.addr, "/made", &[]).await;
    let made = id_of(&head);
    assert!(is_generated(&made), "{made}");
    assert_eq!(up.last().headers["x-request-id"], made.as_str());
    let line = line_for(logs, &made).await;
    assert_eq!(line["event"]["action"], "forwarded");
    let (head, _) = get_with(waf.addr, "/made-later", &[]).await;
    assert!(id_of(&head) > made, "ids are time-ordered");

    // A sane one is kept, upstream and back.
    let (head, _) = get_with(waf.addr, "/kept", &[("x-request-id", "lb-7f3a.01:x+y/z=")]).await;
    assert_eq!(id_of(&head), "lb-7f3a.01:x+y/z=");
    assert_eq!(up.last().headers["x-request-id"], "lb-7f3a.01:x+y/z=");
    line_for(logs, "lb-7f3a.01:x+y/z=").await;

    // Hostile ones are replaced by a made one, which is what the upstream gets.
    let long = "a".repeat(10 * 1024);
    let hostile: [(&str, &[u8]); 4] = [
        ("10 KB", long.as_bytes()),
        ("non-ASCII", "caf\u{e9}-\u{1F600}".as_bytes()),
        ("quote and space", b"a\" b"),
        ("encoded CRLF", b"a%0d%0aSet-Cookie:x"),
    ];
    for (what, id) in hostile {
        let mut request =
            b"GET /hostile HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\nX-Request-ID: "
                .to_vec();
        request.extend_from_slice(id);
        request.extend_from_slice(b"\r\n\r\n");
        let answer = raw(waf.addr, &request).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{what}: {answer}");
        let replaced = raw_id(&answer);
        assert!(is_generated(&replaced), "{what} kept: {replaced}");
        assert_eq!(
            up.last().headers["x-request-id"],
            replaced.as_str(),
            "{what}"
        );
    }
    // A bare CR inside the value, or a value folded onto a second line with CRLF: refused before parsing, still
    // with an id of ours, never the client's text.
    for (what, request) in [
        (
            "bare CR",
            &b"GET / HTTP/1.1\r\nHost: app.test\r\nX-Request-ID: a\rSet-Cookie: x\r\n\r\n"[..],
        ),
        (
            "folded CRLF",
            b"GET / HTTP/1.1\r\nHost: app.test\r\nX-Request-ID: a\r\n Set-Cookie: x\r\n\r\n",
        ),
    ] {
        let seen = up.seen().len();
        let answer = raw(waf.addr, request).await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{what}: {answer}");
        let replaced = raw_id(&answer);
        assert!(is_generated(&replaced), "{what}: {replaced}");
        assert!(
            answer.contains(&format!("\"request_id\":\"{replaced}\"")),
            "{what}: {answer}"
        );
        assert_eq!(up.seen().len(), seen, "{what} reached the upstream");
        let line = line_for(logs, &replaced).await;
        assert_eq!(line["http"]["response"]["status_code"], 400, "{what}");
    }
    // Two ids: neither is chosen.
    let (head, _) = get_with(
        waf.addr,
        "/two",
        &[("x-request-id", "one"), ("x-request-id", "two")],
    )
    .await;
    assert!(is_generated(&id_of(&head)));

    // A blocked request: the id in the 403, in its rule match line and in its access line.
    let (head, body) = get_with(waf.addr, "/?q=attack-me", &[("x-request-id", "support-42")]).await;
    assert_eq!(head.status, 403);
    assert_eq!(id_of(&head), "support-42");
    assert_eq!(json(&body)["request_id"], "support-42");
    let line = line_for(logs, "support-42").await;
    assert_eq!(line["event"]["action"], "blocked");
    assert_eq!(line["waf"]["rule_ids"], serde_json::json!([100001]));
    let match_line = waf
        .logs()
        .lines()
        .find(|l| l.contains("rule match [id \"100001\"]"))
        .map(str::to_string)
        .unwrap();
    assert!(
        match_line.contains("[request_id \"support-42\"]"),
        "{match_line}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_failure_names_the_request_in_its_answer_and_log() {
    let config = format!(
        "  upstream: {{default: 'http://127.0.0.1:{}', connect_timeout_ms: 500}}\n",
        closed_port()
    );
    let waf = Waf::start(&config, &[]);
    let (head, body) = get_with(waf.addr, "/down", &[("x-request-id", "down-1")]).await;
    assert_eq!(head.status, 502);
    assert_eq!(json(&body)["request_id"], "down-1");
    let line = line_for(|| waf.logs(), "down-1").await;
    assert_eq!(line["event"]["action"], "upstream_error");
    assert_eq!(line["http"]["response"]["status_code"], 502);
    assert!(
        line["waf"]["upstream"]["address"]
            .as_str()
            .unwrap()
            .starts_with("127.0.0.1:")
    );
    assert!(
        waf.logs().lines().any(|l| l.contains("upstream")
            && l.contains("failed")
            && l.ends_with("[request_id \"down-1\"]")),
        "{}",
        waf.logs()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn each_outcome_has_its_access_line() {
    let up = Upstream::start().await;
    let config = format!(
        "  upstream: {{default: '{}'}}\n  body: {{limit_bytes: 100}}\n  logging: {{access: {{path: access.log}}}}\n  \
         rate_limit: {{enabled: true, requests: 100000, window_sec: 60}}\n  domains:\n    \
         limited.test:\n      rate_limit: {{requests: 1, window_sec: 60}}\n    \
         denied.test:\n      ip_filter: {{deny: [127.0.0.1]}}\n    \
         quiet.test:\n      access_log: false\n",
        up.url()
    );
    let waf = Waf::start(&config, &[("deny.yaml", DENY_RULE)]);
    let path = waf.dir.path().join("access.log");
    let read = || file_text(&path);
    let host = |name: &str, id: &str| {
        Request::get("/p?token=s3cret")
            .header("host", name)
            .header("x-request-id", id)
            .header("user-agent", "curl/8.5 \"quoted\"")
            .header("referer", "https://ref.test/")
            .body(Full::new(Bytes::new()))
            .unwrap()
    };

    let (head, _) = send(waf.addr, host("App.Test:3030", "fwd")).await;
    assert_eq!(head.status, 200);
    let line = line_for(read, "fwd").await;
    assert_eq!(line["event"]["action"], "forwarded");
    assert_eq!(line["url"]["domain"], "app.test");
    assert_eq!(line["url"]["path"], "/p");
    assert!(
        line["url"].get("query").is_none(),
        "the query is off by default: {line}"
    );
    assert!(
        !read().contains("s3cret"),
        "a secret in a query reached the log"
    );
    assert_eq!(line["http"]["request"]["method"], "GET");
    assert_eq!(line["http"]["version"], "1.1");
    assert_eq!(line["http"]["response"]["status_code"], 200);
    assert_eq!(line["client"]["ip"], "127.0.0.1");
    assert_eq!(line["user_agent"]["original"], "curl/8.5 \"quoted\"");
    assert_eq!(line["http"]["request"]["referrer"], "https://ref.test/");
    assert_eq!(line["waf"]["upstream"]["address"], up.addr.to_string());
    assert!(line["waf"]["upstream"]["duration"].as_u64().unwrap() > 0);
    assert!(
        line["event"]["duration"].as_u64().unwrap()
            >= line["waf"]["upstream"]["duration"].as_u64().unwrap()
    );
    assert!(line["@timestamp"].as_str().unwrap().ends_with('Z'));
    assert!(line.get("tls").is_none());

    // Bytes both ways: the echo upstream answers with the request body.
    let req = Request::post("/echo")
        .header("host", "app.test")
        .header("x-request-id", "bytes")
        .body(Full::new(Bytes::from_static(b"0123456789")))
        .unwrap();
    let (_, body) = send(waf.addr, req).await;
    assert_eq!(body.len(), 10);
    let line = line_for(read, "bytes").await;
    assert_eq!(line["http"]["request"]["body"]["bytes"], 10);
    assert_eq!(line["http"]["response"]["body"]["bytes"], 10);
    assert!(line["waf"].get("aborted").is_none(), "{line}");

    let (head, _) = get_with(waf.addr, "/?q=attack-me", &[("x-request-id", "blk")]).await;
    assert_eq!(head.status, 403);
    let line = line_for(read, "blk").await;
    assert_eq!(line["event"]["action"], "blocked");
    assert_eq!(line["waf"]["rule_ids"], serde_json::json!([100001]));
    assert_eq!(line["http"]["response"]["status_code"], 403);
    assert!(line.get("waf").unwrap().get("upstream").is_none());

    let (head, _) = send(waf.addr, host("limited.test", "rl-1")).await;
    assert_eq!(head.status, 200);
    let (head, body) = send(waf.addr, host("limited.test", "rl-2")).await;
    assert_eq!(head.status, 429);
    assert_eq!(json(&body)["request_id"], "rl-2");
    assert_eq!(
        line_for(read, "rl-2").await["event"]["action"],
        "rate_limited"
    );

    let (head, body) = send(waf.addr, host("denied.test", "ip")).await;
    assert_eq!(head.status, 403);
    assert_eq!(json(&body)["request_id"], "ip");
    assert_eq!(line_for(read, "ip").await["event"]["action"], "ip_denied");

    let (head, body) = post(waf.addr, "/too-big", "x".repeat(101)).await;
    assert_eq!(head.status, 413);
    let id = id_of(&head);
    assert_eq!(json(&body)["request_id"], id.as_str());
    assert_eq!(
        line_for(read, &id).await["event"]["action"],
        "body_too_large"
    );

    let long_target = format!(
        "GET /{} HTTP/1.1\r\nHost: app.test\r\n\r\n",
        "a".repeat(20_000)
    );
    let answer = raw(waf.addr, long_target.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 414"), "{answer}");
    let line = line_for(read, &raw_id(&answer)).await;
    assert_eq!(line["event"]["action"], "refused_head");
    assert_eq!(line["http"]["response"]["status_code"], 414);
    // Its head was never parsed: no method, path or version is made up for it.
    assert!(line["url"].get("path").is_none(), "{line}");
    assert!(line["http"]["request"].get("method").is_none(), "{line}");
    assert!(line["http"].get("version").is_none(), "{line}");

    // A 10 KB id on its own header line, over the default line limit: refused before parsing, with an id of ours.
    let long_id = format!(
        "GET / HTTP/1.1\r\nHost: app.test\r\nX-Request-ID: {}\r\n\r\n",
        "b".repeat(10_240)
    );
    let answer = raw(waf.addr, long_id.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
    let id = raw_id(&answer);
    assert!(is_generated(&id), "{id}");
    let line = line_for(read, &id).await;
    assert_eq!(line["event"]["action"], "refused_head");
    assert!(!read().contains("bbbbbbbb"));

    let (head, _) = get_with(waf.addr, "/health", &[("x-request-id", "health")]).await;
    assert_eq!(head.status, 200);
    assert_eq!(
        line_for(read, "health").await["event"]["action"],
        "internal"
    );

    // A silenced domain: answered, not logged (the line after it is, so the writer has caught up).
    let (head, _) = send(waf.addr, host("quiet.test", "quiet")).await;
    assert_eq!(head.status, 200);
    get_with(waf.addr, "/after", &[("x-request-id", "after-quiet")]).await;
    line_for(read, "after-quiet").await;
    assert!(!read().contains("\"quiet\""), "{}", read());
    assert!(!read().contains("quiet.test"));

    // Exactly one line per request: every id appears once.
    let lines = json_lines(&read());
    let ids: Vec<&str> = lines
        .iter()
        .map(|l| l["http"]["request"]["id"].as_str().unwrap())
        .collect();
    let distinct: HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), distinct.len(), "{ids:?}");
    // And the access log stays out of stdout when it has a file.
    assert!(json_lines(&waf.logs()).is_empty());
}

/// GoAccess's `COMBINED` log format (`%h %^[%d:%t %^] "%r" %s %b "%R" "%u"`), as a strict regular expression:
/// what a line must look like for GoAccess, and the other tools that read nginx's default format, to read it.
const COMBINED: &str = r#"^(?P<host>[0-9a-fA-F.:]+) - (?P<user>-|\S+) \[(?P<date>\d{2}/[A-Z][a-z]{2}/\d{4}):(?P<time>\d{2}:\d{2}:\d{2}) (?P<zone>[+-]\d{4})\] "(?P<request>(?P<method>[A-Z]+) (?P<target>[^ "]+) (?P<protocol>HTTP/\d\.\d))" (?P<status>\d{3}) (?P<bytes>\d+|-) "(?P<referer>(?:[^"\\]|\\x[0-9A-F]{2})*)" "(?P<agent>(?:[^"\\]|\\x[0-9A-F]{2})*)"$"#;

#[tokio::test(flavor = "multi_thread")]
async fn combined_lines_read_as_nginx_combined_and_observe_mode_is_named() {
    let up = Upstream::start().await;
    let config = format!(
        "  mode: observe\n  upstream: {{default: '{}'}}\n  logging: {{access: {{format: combined, query: true}}}}\n",
        up.url()
    );
    let waf = Waf::start(&config, &[("deny.yaml", DENY_RULE)]);
    let req = Request::get("/obs/p?q=attack-me&x=%22")
        .header("host", "app.test")
        .header("user-agent", "evil \"agent\" \\ with\ttab")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (head, body) = send(waf.addr, req).await;
    assert_eq!(head.status, 200, "observe mode forwards");
    let (plain, _) = get_with(waf.addr, "/plain", &[]).await;
    assert_eq!(plain.status, 200);
    let pattern = regex::Regex::new(COMBINED).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let lines = loop {
        let logs = waf.logs();
        let find = |request: &str| {
            logs.lines()
                .find(|l| l.contains(request))
                .map(str::to_string)
        };
        if let (Some(observed), Some(plain)) = (find("\"GET /obs/p"), find("\"GET /plain")) {
            break [observed, plain];
        }
        assert!(Instant::now() < deadline, "{logs}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let observed = pattern
        .captures(&lines[0])
        .unwrap_or_else(|| panic!("not combined: {}", lines[0]));
    assert_eq!(&observed["host"], "127.0.0.1");
    assert_eq!(&observed["method"], "GET");
    assert_eq!(
        &observed["target"], "/obs/p?q=attack-me&x=%22",
        "query: true keeps it"
    );
    assert_eq!(&observed["protocol"], "HTTP/1.1");
    assert_eq!(&observed["status"], "200");
    assert_eq!(&observed["bytes"], body.len().to_string());
    assert_eq!(&observed["referer"], "-");
    assert_eq!(
        &observed["agent"],
        "evil \\x22agent\\x22 \\x5C with\\x09tab"
    );
    assert_eq!(&observed["zone"], "+0000");
    let plain_line = pattern
        .captures(&lines[1])
        .unwrap_or_else(|| panic!("not combined: {}", lines[1]));
    assert_eq!(&plain_line["agent"], "-");
    // A line that is not one must not match: the expression is strict.
    assert!(!pattern.is_match(&lines[0].replacen(" - - [", " - [", 1)));
    // Observe mode's rule match names the request.
    let id = id_of(&head);
    assert!(
        waf.logs()
            .lines()
            .any(|l| l.contains("OBSERVE MODE") && l.contains(&format!("[request_id \"{id}\"]"))),
        "{}",
        waf.logs()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn observe_mode_access_line_says_observed() {
    let up = Upstream::start().await;
    let config = format!("  mode: observe\n  upstream: {{default: '{}'}}\n", up.url());
    let waf = Waf::start(&config, &[("deny.yaml", DENY_RULE)]);
    let (head, _) = get_with(waf.addr, "/?q=attack-me", &[("x-request-id", "obs")]).await;
    assert_eq!(head.status, 200);
    let line = line_for(|| waf.logs(), "obs").await;
    assert_eq!(line["event"]["action"], "observed");
    assert_eq!(line["waf"]["rule_ids"], serde_json::json!([100001]));
}

#[tokio::test(flavor = "multi_thread")]
async fn sigusr1_reopens_the_file_under_load_without_losing_a_line() {
    let up = Upstream::start().await;
    let config = format!(
        "  upstream: {{default: '{}'}}\n  logging: {{access: {{path: access.log}}}}\n",
        up.url()
    );
    let waf = Waf::start(&config, &[]);
    let path = waf.dir.path().join("access.log");
    let rotated = waf.dir.path().join("access.log.1");
    const CLIENTS: usize = 4;
    const EACH: usize = 200;
    let addr = waf.addr;
    let load: Vec<_> = (0..CLIENTS)
        .map(|c| {
            tokio::spawn(async move {
                let mut ids = Vec::new();
                for i in 0..EACH {
                    let id = format!("load-{c}-{i}");
                    let (head, _) = get_with(addr, "/load", &[("x-request-id", &id)]).await;
                    assert_eq!(head.status, 200);
                    ids.push(id);
                }
                ids
            })
        })
        .collect();
    // Rotate as logrotate does without copytruncate, while the load runs.
    let deadline = Instant::now() + Duration::from_secs(10);
    while json_lines(&file_text(&path)).len() < 50 {
        assert!(Instant::now() < deadline, "no lines written");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    std::fs::rename(&path, &rotated).unwrap();
    waf.signal("USR1");
    let mut sent = HashSet::new();
    for task in load {
        sent.extend(task.await.unwrap());
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    let (before, after) = loop {
        let before = json_lines(&file_text(&rotated));
        let after = json_lines(&file_text(&path));
        if before.len() + after.len() >= CLIENTS * EACH {
            break (before, after);
        }
        assert!(
            Instant::now() < deadline,
            "{} + {} lines for {} requests",
            before.len(),
            after.len(),
            CLIENTS * EACH
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        !after.is_empty(),
        "nothing went to the new file: not reopened"
    );
    assert!(before.len() >= 50);
    let logged: Vec<String> = before
        .iter()
        .chain(&after)
        .map(|l| l["http"]["request"]["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(logged.len(), sent.len(), "a line lost or repeated");
    assert_eq!(logged.into_iter().collect::<HashSet<_>>(), sent);
    waf.wait_log("SIGUSR1 received", 5).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_access_log_follows_a_reload() {
    let up = Upstream::start().await;
    let base = format!("  upstream: {{default: '{}'}}\n", up.url());
    let waf = Waf::start(&base, &[]);
    get_with(waf.addr, "/first", &[("x-request-id", "first")]).await;
    line_for(|| waf.logs(), "first").await;

    let reloads = || waf.logs().matches("configuration reloaded").count();
    let reloaded = reloads();
    Waf::write_config(
        waf.dir.path(),
        &format!("{base}  logging: {{access: {{enabled: false}}}}\n"),
    );
    waf.signal("HUP");
    let deadline = Instant::now() + Duration::from_secs(10);
    while reloads() == reloaded {
        assert!(Instant::now() < deadline, "{}", waf.logs());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    get_with(waf.addr, "/while-off", &[]).await;

    Waf::write_config(
        waf.dir.path(),
        &format!("{base}  logging: {{access: {{format: combined}}}}\n"),
    );
    waf.signal("HUP");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        get_with(waf.addr, "/again-on", &[]).await;
        if waf.logs().contains("\"GET /again-on HTTP/1.1\" 200") {
            break;
        }
        assert!(Instant::now() < deadline, "{}", waf.logs());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!waf.logs().contains("/while-off"), "{}", waf.logs());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_leaves_before_its_answer_still_has_its_line() {
    use tokio::io::AsyncWriteExt;
    let up = Upstream::start().await;
    let waf = Waf::start(&format!("  upstream: {{default: '{}'}}\n", up.url()), &[]);
    // The upstream answers /slow after 3 s; the client is gone after 0.3 s.
    let mut stream = tokio::net::TcpStream::connect(waf.addr).await.unwrap();
    stream
        .write_all(b"GET /slow HTTP/1.1\r\nHost: app.test\r\nX-Request-ID: gone\r\n\r\n")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(stream);
    let line = line_for(|| waf.logs(), "gone").await;
    assert_eq!(line["url"]["path"], "/slow");
    // nginx's 499: no answer was made. Written when the client left, not when the upstream answered.
    assert_eq!(line["http"]["response"]["status_code"], 499, "{line}");
    assert_eq!(line["event"]["action"], "aborted");
    assert_eq!(line["waf"]["aborted"], true);
    assert!(
        line["event"]["duration"].as_u64().unwrap() < 2_000_000_000,
        "{line}"
    );
}
