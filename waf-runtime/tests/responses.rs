//! The response phase through the real `waf` binary with the converted CRS response rules (`crs/RESPONSE-*`),
//! in front of a real upstream that answers leaking pages (an SQL error, a Java stack trace, a PHP warning, a
//! web shell) and benign ones (an article about SQL errors, a 1 MB JSON, a gzip page, a server-sent event
//! stream): the leaks become a 502 that leaks nothing, logged with the rule ids and counted; the benign ones
//! pass unchanged, a stream without waiting for its end.
mod support;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;
use support::*;
use tokio::net::TcpListener;

const SQL_ERROR: &str = "<html><body><h1>Error</h1><p>You have an error in your SQL syntax; check the manual that \
     corresponds to your MySQL server version for the right syntax to use near ''1'' at line 1</p></body></html>";
const JAVA_TRACE: &str = "<pre>java.lang.NullPointerException: cart is null\n\tat com.shop.Cart.total(Cart.java:42)\n\
     \tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:897)\n</pre>";
const PHP_WARNING: &str = "<br />\n<b>Warning</b>:  include(config.php): failed to open stream: No such file or \
     directory in <b>/var/www/html/index.php</b> on line <b>3</b><br />";
const WEB_SHELL: &str =
    "<html><head><title>shell</title></head><body><h1>.:NCC:. Shell v1.0</h1></body></html>";
const ARTICLE: &str = "<html><body><h1>Reading database errors</h1><p>When a query is malformed, the database \
     answers with an error that names the problem and the line. Logging these messages on the server, and showing \
     the visitor a friendly page instead, keeps the details of your schema private.</p></body></html>";

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// One megabyte of JSON that quotes an SQL error: JSON is not a type whose bodies are inspected.
fn big_json() -> String {
    let item = format!(
        "{{\"log\":\"{}\"}},",
        "You have an error in your SQL syntax"
    );
    let mut out = String::from("[");
    while out.len() < 1 << 20 {
        out.push_str(&item);
    }
    out.push_str("{}]");
    out
}

type Body = http_body_util::Either<Full<Bytes>, ChannelBody>;

fn page(status: u16, content_type: &str, body: impl Into<Bytes>) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", content_type)
        .body(http_body_util::Either::Left(Full::new(body.into())))
        .unwrap()
}

async fn answer(req: Request<Incoming>) -> Response<Body> {
    let html = "text/html; charset=utf-8";
    match req.uri().path() {
        "/sql" => page(500, html, SQL_ERROR),
        "/java" => page(200, html, JAVA_TRACE),
        "/php" => page(200, "text/plain", PHP_WARNING),
        "/shell" => page(200, html, WEB_SHELL),
        "/article" => page(200, html, ARTICLE),
        "/json" => page(200, "application/json", big_json()),
        "/gzip-sql" => {
            let mut r = page(200, html, gzip(SQL_ERROR.as_bytes()));
            r.headers_mut()
                .insert("content-encoding", "gzip".parse().unwrap());
            r
        }
        "/gzip-article" => {
            let mut r = page(200, html, gzip(ARTICLE.as_bytes()));
            r.headers_mut()
                .insert("content-encoding", "gzip".parse().unwrap());
            r
        }
        // The leak after 2 KB of padding: past a 1 KB limit.
        "/late-leak" => page(200, html, format!("{}{SQL_ERROR}", " ".repeat(2048))),
        "/not-modified" => page(304, html, ""),
        "/events" => {
            // The first event now, the second only after a second: a buffering proxy would hold the first.
            let (tx, rx) = tokio::sync::mpsc::channel(2);
            tokio::spawn(async move {
                let event = |text: &str| Bytes::from(format!("data: {text}\n\n"));
                let _ = tx.send(event("You have an error in your SQL syntax")).await;
                tokio::time::sleep(Duration::from_secs(1)).await;
                let _ = tx.send(event("second")).await;
            });
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(http_body_util::Either::Right(ChannelBody(rx)))
                .unwrap()
        }
        _ => page(200, html, "<p>ok</p>"),
    }
}

async fn start_upstream() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(|req| async { Ok::<_, Infallible>(answer(req).await) });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    addr
}

/// `waf` with the CRS response rules (and only those: the request rules are not what is tested here), answers
/// inspected (`rules.responses`, off by default), and `extra` configuration.
fn start_waf(upstream: SocketAddr, extra: &str) -> Waf {
    start_waf_with(upstream, extra, &[])
}

/// `start_waf` with more rule files (name, content).
fn start_waf_with(upstream: SocketAddr, extra: &str, rules: &[(&str, &str)]) -> Waf {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    for (name, text) in rules {
        std::fs::write(dir.path().join("rules").join(name), text).unwrap();
    }
    let crs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crs");
    for entry in std::fs::read_dir(&crs).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_owned();
        if name.to_string_lossy().starts_with("RESPONSE-") {
            std::fs::copy(&path, dir.path().join("rules").join(name)).unwrap();
        }
    }
    Waf::start_in(
        dir,
        &format!(
            "  rules: {{directories: [rules], responses: true}}\n  upstream: {{default: 'http://{upstream}'}}\n{extra}"
        ),
    )
}

async fn fetch(waf: &Waf, method: &str, path: &str, host: &str) -> (http::response::Parts, Bytes) {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header("host", host)
        .body(Full::new(Bytes::new()))
        .unwrap();
    send(waf.addr, req).await
}

#[tokio::test(flavor = "multi_thread")]
async fn leaking_pages_are_withheld_and_benign_ones_pass() {
    let upstream = start_upstream().await;
    let waf = start_waf(upstream, "");
    for (path, rule) in [
        ("/sql", "951"),
        ("/java", "952"),
        ("/php", "953"),
        ("/shell", "955"),
        ("/gzip-sql", "951"),
    ] {
        let (head, body) = fetch(&waf, "GET", path, "app.test").await;
        assert_eq!(head.status, StatusCode::BAD_GATEWAY, "{path}");
        let text = String::from_utf8_lossy(&body);
        let json = json(&body);
        assert_eq!(
            json["message"], "the upstream's answer was withheld",
            "{path}"
        );
        assert!(
            !text.contains("SQL")
                && !text.contains("java")
                && !text.contains("Warning")
                && !text.contains("rule"),
            "{path}: the 502 tells something: {text}"
        );
        let id = json["request_id"].as_str().unwrap().to_owned();
        // The log is read from the child's stderr by another thread: the lines may trail the response.
        let mut line = None;
        for _ in 0..50 {
            line = waf
                .logs()
                .lines()
                .find(|l| l.contains(&format!("[id \"{rule}")) && l.contains(&id))
                .map(str::to_owned);
            if line.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let line =
            line.unwrap_or_else(|| panic!("{path}: no line for a rule {rule}xxx of request {id}"));
        assert!(line.contains("[action \"blocked\"]"), "{line}");
    }
    assert!(waf.metric("waf_response_blocked_total").await >= 5.0);

    for path in ["/article", "/", "/not-modified"] {
        let (head, body) = fetch(&waf, "GET", path, "app.test").await;
        assert_ne!(head.status, StatusCode::BAD_GATEWAY, "{path}");
        if path == "/article" {
            assert_eq!(body, ARTICLE.as_bytes());
        }
    }
    // The compressed page reaches the client as the upstream compressed it.
    let (head, body) = fetch(&waf, "GET", "/gzip-article", "app.test").await;
    assert_eq!(head.status, 200);
    assert_eq!(head.headers["content-encoding"], "gzip");
    assert_eq!(body, gzip(ARTICLE.as_bytes()));
    // JSON is not inspected: a megabyte that quotes an SQL error passes whole.
    let (head, body) = fetch(&waf, "GET", "/json", "app.test").await;
    assert_eq!(head.status, 200);
    assert_eq!(body, big_json().as_bytes());
    // HEAD has no body to leak: the leaking page's head passes.
    let (head, _) = fetch(&waf, "HEAD", "/sql", "app.test").await;
    assert_eq!(head.status, 500);
    assert!(
        waf.metric("waf_responses_inspected_total{part=\"body\"}")
            .await
            >= 6.0
    );
}

/// A request rule that scores a numeric Host (as CRS 920350 does) under the inbound threshold: the request is
/// forwarded with an inbound score of 3.
const NUMERIC_HOST: &str = r#"
id: 100003
msg: "Host header is a numeric IP address"
severity: MEDIUM
operator: regex
pattern: '^[\d.]+$'
variables: [{type: REQUEST_HEADERS, names: [Host]}]
action: block
"#;

/// The line of request `id` that `needle` starts, waited for (the log is read from the child's stderr by another
/// thread: the lines may trail the response).
async fn line_of(waf: &Waf, needle: &str, id: &str) -> String {
    for _ in 0..50 {
        if let Some(line) = waf
            .logs()
            .lines()
            .find(|l| l.contains(needle) && l.contains(&format!("[request_id \"{id}\"]")))
        {
            return line.to_owned();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no line {needle} for request {id}:\n{}", waf.logs());
}

/// The request id of an answer.
fn request_id(head: &http::response::Parts) -> String {
    head.headers["x-request-id"].to_str().unwrap().to_owned()
}

/// Each transaction that scored, inbound or outbound, ends with one correlation line (CRS 980170) naming the
/// request, both scores and every rule that matched; one that scored nothing has none.
#[tokio::test(flavor = "multi_thread")]
async fn a_scored_transaction_ends_with_its_correlation() {
    let upstream = start_upstream().await;
    let waf = start_waf_with(upstream, "", &[("numeric-host.yaml", NUMERIC_HOST)]);
    let correlation = "correlation [id \"980170\"]";

    // Outbound only: the leak withheld.
    let (head, _) = fetch(&waf, "GET", "/java", "app.test").await;
    assert_eq!(head.status, 502);
    let line = line_of(&waf, correlation, &request_id(&head)).await;
    assert!(line.contains("[inbound_score \"0\"]"), "{line}");
    assert!(!line.contains("[outbound_score \"0\"]"), "{line}");
    assert!(line.contains("952110"), "{line}");
    assert!(
        line.contains("(Inbound Scores: blocking=0) - (Outbound Scores: blocking="),
        "{line}"
    );

    // Inbound only: a request that scored under the threshold, its answer clean.
    let (head, _) = fetch(&waf, "GET", "/", "127.0.0.1").await;
    assert_eq!(head.status, 200);
    let line = line_of(&waf, correlation, &request_id(&head)).await;
    assert!(
        line.contains("[inbound_score \"3\"] [outbound_score \"0\"] [rule_ids \"100003\"]"),
        "{line}"
    );

    // Both: the scored request's answer leaks.
    let (head, _) = fetch(&waf, "GET", "/java", "127.0.0.1").await;
    assert_eq!(head.status, 502);
    let line = line_of(&waf, correlation, &request_id(&head)).await;
    assert!(line.contains("[inbound_score \"3\"]"), "{line}");
    assert!(line.contains("[rule_ids \"100003 952110"), "{line}");

    // Nothing scored: no correlation, though the answer was inspected (its rule lines would come first).
    let (head, _) = fetch(&waf, "GET", "/article", "app.test").await;
    assert_eq!(head.status, 200);
    let id = request_id(&head);
    let (head, _) = fetch(&waf, "GET", "/shell", "app.test").await;
    line_of(&waf, correlation, &request_id(&head)).await;
    assert!(
        !waf.logs()
            .lines()
            .any(|l| l.contains(&id) && l.contains("correlation")),
        "{}",
        waf.logs()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_event_stream_is_not_held() {
    let upstream = start_upstream().await;
    let waf = start_waf(upstream, "");
    let stream = tokio::net::TcpStream::connect(waf.addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    let req = Request::get("/events")
        .header("host", "app.test")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let mut response = sender.send_request(req).await.unwrap();
    assert_eq!(response.status(), 200);
    // The first event arrives while the upstream is still waiting to send the second.
    let first = tokio::time::timeout(Duration::from_millis(700), response.body_mut().frame())
        .await
        .expect("the first event was held back")
        .unwrap()
        .unwrap();
    assert!(
        first
            .data_ref()
            .unwrap()
            .starts_with(b"data: You have an error")
    );
}

/// The phase, status, outcome and rule ids of request `id`'s event in the panel's event store, waited for (the
/// store writes in batches).
async fn stored_event(waf: &Waf, id: &str) -> (String, Option<i64>, String, String) {
    let path = waf.dir.path().join("admin-data/events.sqlite");
    for _ in 0..100 {
        if path.exists() {
            let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
            let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
            let row = sqlx::query_as(
                "SELECT phase, status, outcome, rule_ids FROM events WHERE request_id = ?",
            )
            .bind(id)
            .fetch_optional(&pool)
            .await
            .unwrap();
            pool.close().await;
            if let Some(row) = row {
                return row;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no event of request {id}:\n{}", waf.logs());
}

#[tokio::test(flavor = "multi_thread")]
async fn limits_domains_and_modes() {
    let upstream = start_upstream().await;
    // Past the body limit the rest streams uninspected; a domain can turn the inspection off.
    let waf = start_waf(
        upstream,
        "  response_body: {limit_bytes: 1024}\n  domains: {quiet.test: {responses: false}}\n",
    );
    let (head, body) = fetch(&waf, "GET", "/late-leak", "app.test").await;
    assert_eq!(head.status, 200);
    assert!(body.ends_with(SQL_ERROR.as_bytes()));
    let (head, _) = fetch(&waf, "GET", "/java", "quiet.test").await;
    assert_eq!(head.status, 200);
    let (head, _) = fetch(&waf, "GET", "/java", "app.test").await;
    assert_eq!(head.status, 502);
    drop(waf);

    // Refusing what cannot be inspected whole, by configuration: an event of the response phase for the panel,
    // though no rule matched.
    let waf = start_waf(
        upstream,
        "  response_body: {limit_bytes: 1024, over_limit: reject}\n  \
         admin: {enabled: true, port: 0, data_dir: admin-data}\n",
    );
    let (head, body) = fetch(&waf, "GET", "/late-leak", "app.test").await;
    assert_eq!(head.status, 502);
    let id = json(&body)["request_id"].as_str().unwrap().to_owned();
    assert_eq!(
        stored_event(&waf, &id).await,
        (
            "response".to_owned(),
            Some(502),
            "blocked".to_owned(),
            "[]".to_owned()
        )
    );
    let (head, _) = fetch(&waf, "GET", "/article", "app.test").await;
    assert_eq!(head.status, 200);
    drop(waf);

    // Observe mode logs and passes; without `rules.responses` (off by default) nothing is inspected.
    let waf = start_waf(upstream, "  mode: observe\n");
    let (head, _) = fetch(&waf, "GET", "/java", "app.test").await;
    assert_eq!(head.status, 200);
    waf.wait_log("OBSERVE MODE rule match [id \"952110\"]", 5)
        .await;
    drop(waf);
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    let crs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crs");
    for name in [
        "RESPONSE-952-DATA-LEAKAGES-JAVA.yaml",
        "RESPONSE-959-BLOCKING-EVALUATION.yaml",
    ] {
        std::fs::copy(crs.join(name), dir.path().join("rules").join(name)).unwrap();
    }
    let waf = Waf::start_in(
        dir,
        &format!(
            "  rules: {{directories: [rules]}}\n  upstream: {{default: 'http://{upstream}'}}\n  \
             domains: {{loud.test: {{responses: true}}}}\n"
        ),
    );
    let (head, _) = fetch(&waf, "GET", "/java", "app.test").await;
    assert_eq!(head.status, 200);
    assert_eq!(
        waf.metric("waf_responses_inspected_total{part=\"body\"}")
            .await,
        0.0
    );
    // A domain can turn it on for itself.
    let (head, _) = fetch(&waf, "GET", "/java", "loud.test").await;
    assert_eq!(head.status, 502);
}
