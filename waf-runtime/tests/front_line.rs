//! The proxy's front line, probed as a hostile client would: raw bytes on a socket to the real `waf` binary, a
//! logging upstream behind it. Each case names the status a bare nginx 1.22 reverse proxy (Debian's
//! `nginx-light`, default settings, `proxy_pass` to an upstream) gave for the same bytes.
mod support;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use support::*;
use tokio::net::TcpStream;

/// Starts `waf` in front of `up` with `server.limits` (YAML flow entries, may be empty) and the rules given.
fn start(up: &Upstream, limits: &str, http2: bool, rules: &[(&str, &str)]) -> Waf {
    Waf::start_with_server(
        &format!("http2_enabled: {http2}, limits: {{{limits}}}"),
        &format!(
            "  upstream: {{default: '{}', response_timeout_ms: 2000}}\n",
            up.url()
        ),
        rules,
    )
}

/// Every status line in what the proxy answered on one connection.
fn statuses(answer: &str) -> Vec<u16> {
    answer
        .match_indices("HTTP/1.1 ")
        .filter_map(|(i, _)| answer.get(i + 9..i + 12)?.parse().ok())
        .collect()
}

fn paths(up: &Upstream) -> Vec<String> {
    up.seen().into_iter().map(|s| s.uri).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn heads_over_the_limits_are_refused_counted_and_never_forwarded() {
    let up = Upstream::start().await;
    let waf = start(&up, "", false, &[]);
    let headers = |n: usize, len: usize| -> String {
        (0..n)
            .map(|i| format!("x-{i}: {}\r\n", "a".repeat(len)))
            .collect()
    };
    let cases: Vec<(&str, String, u16)> = vec![
        // nginx 400 (its "Request Header Or Cookie Too Large"); before: forwarded, 200, all 100,000 bytes upstream.
        (
            "one header line of 100 KB",
            format!(
                "GET /a HTTP/1.1\r\nHost: a\r\nx: {}\r\n\r\n",
                "a".repeat(100_000)
            ),
            431,
        ),
        // nginx 400.
        (
            "one header line of 9,000 bytes",
            format!(
                "GET /b HTTP/1.1\r\nHost: a\r\nx: {}\r\n\r\n",
                "a".repeat(9000)
            ),
            431,
        ),
        // nginx 414; before: forwarded, 200.
        (
            "a 20 KB target",
            format!("GET /{} HTTP/1.1\r\nHost: a\r\n\r\n", "c".repeat(20_000)),
            414,
        ),
        // nginx 414.
        (
            "a 9,000-byte target",
            format!("GET /{} HTTP/1.1\r\nHost: a\r\n\r\n", "d".repeat(9000)),
            414,
        ),
        // nginx 414: the request line is measured even when it never ends.
        (
            "an endless request line",
            format!("GET /{}", "e".repeat(50_000)),
            414,
        ),
        // nginx 400; before: 431 from hyper, neither logged nor counted.
        (
            "5,000 headers",
            format!("GET /f HTTP/1.1\r\nHost: a\r\n{}\r\n", headers(5000, 1)),
            431,
        ),
        // nginx 200 (it has no count limit); hyper's default of 100 kept, as the issue asks.
        (
            "101 headers",
            format!("GET /g HTTP/1.1\r\n{}\r\n", headers(101, 1)),
            431,
        ),
        // nginx 400: five 8,000-byte lines, each under the line limit, 40 KB in all.
        (
            "a 40 KB head of short lines",
            format!("GET /h HTTP/1.1\r\nHost: a\r\n{}\r\n", headers(5, 8000)),
            431,
        ),
        // nginx 400: the same head with bare LF line endings.
        (
            "a 40 KB head with bare LF",
            format!(
                "GET /i HTTP/1.1\nHost: a\n{}\n",
                headers(5, 8000).replace("\r\n", "\n")
            ),
            431,
        ),
    ];
    for (name, request, status) in &cases {
        let answer = raw(waf.addr, request.as_bytes()).await;
        assert_eq!(statuses(&answer), vec![*status], "{name}: {answer}");
    }
    assert!(paths(&up).is_empty(), "forwarded: {:?}", paths(&up));

    // Just under the length limits: forwarded whole (nginx 200). (Not 100 headers: the proxy adds its
    // X-Forwarded-* fields, and the test upstream, hyper, takes 100.)
    let under = format!(
        "GET /{} HTTP/1.1\r\nHost: a\r\nConnection: close\r\nx: {}\r\n{}\r\n",
        "j".repeat(8000),
        "k".repeat(8000),
        headers(90, 10)
    );
    let answer = raw(waf.addr, under.as_bytes()).await;
    assert_eq!(statuses(&answer), vec![200], "{answer}");
    let seen = up.last();
    assert_eq!(seen.uri.len(), 8001);
    assert_eq!(seen.headers["x"].len(), 8000);

    assert_eq!(
        waf.metric(r#"waf_rejected_total{reason="target_too_long"}"#)
            .await,
        3.0
    );
    assert_eq!(
        waf.metric(r#"waf_rejected_total{reason="head_too_large"}"#)
            .await,
        6.0
    );
    waf.wait_log(
        "refused request from 127.0.0.1: request line over the limit (414)",
        5,
    )
    .await;
    waf.wait_log(
        "refused request from 127.0.0.1: more header fields than the limit (431)",
        5,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_limits_are_settings() {
    let up = Upstream::start().await;
    let waf = start(
        &up,
        "max_request_line_bytes: 100, max_header_line_bytes: 50, max_head_bytes: 200, max_headers: 3",
        false,
        &[],
    );
    let close = "Connection: close\r\n";
    let cases: [(String, u16); 5] = [
        // A request line of 109 bytes.
        (
            format!("GET /{} HTTP/1.1\r\n{close}\r\n", "a".repeat(95)),
            414,
        ),
        // A header line of 51 bytes.
        (
            format!("GET / HTTP/1.1\r\n{close}x: {}\r\n\r\n", "a".repeat(48)),
            431,
        ),
        // Four headers.
        (
            format!("GET / HTTP/1.1\r\nHost: a\r\n{close}b: 1\r\nc: 1\r\n\r\n"),
            431,
        ),
        // A head of 217 bytes, every line within its limit.
        (
            format!(
                "GET /{} HTTP/1.1\r\n{close}x: {}\r\ny: {}\r\n\r\n",
                "a".repeat(76),
                "b".repeat(47),
                "c".repeat(47)
            ),
            431,
        ),
        // A head of 174 bytes.
        (
            format!(
                "GET /{} HTTP/1.1\r\nHost: a\r\n{close}x: {}\r\n\r\n",
                "a".repeat(76),
                "b".repeat(47)
            ),
            200,
        ),
    ];
    for (request, status) in &cases {
        let answer = raw(waf.addr, request.as_bytes()).await;
        assert_eq!(statuses(&answer), vec![*status], "{request}");
    }
    assert_eq!(up.seen().len(), 1);
}

/// The line-ending styles of a head: request line, header lines, blank line.
const STYLES: [(&str, [&str; 3]); 3] = [
    ("CRLF", ["\r\n", "\r\n", "\r\n"]),
    ("bare LF", ["\n", "\n", "\n"]),
    ("mixed", ["\r\n", "\n", "\r\n"]),
];

/// A head from lines, in a line-ending style.
fn head(lines: &[&str], style: [&str; 3]) -> String {
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate() {
        text.push_str(line);
        text.push_str(if i == 0 { style[0] } else { style[1] });
    }
    text.push_str(style[2]);
    text
}

/// The body after every conflicting head: chunked, it ends after `0`; by a length of 4 or 5, the rest would be
/// a request of its own. Nothing of `/smuggled` may ever reach the upstream.
const SMUGGLER: &str = "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n";

/// Framing conflicts, each with the status nginx 1.22 gave (alone on a connection, in every line-ending style).
const CONFLICTS: [(&str, &[&str], u16); 11] = [
    (
        "CL+TE",
        &["Content-Length: 5", "Transfer-Encoding: chunked"],
        400,
    ),
    (
        "TE+CL",
        &["Transfer-Encoding: chunked", "Content-Length: 5"],
        400,
    ),
    (
        "CL+CL equal",
        &["Content-Length: 4", "Content-Length: 4"],
        400,
    ),
    (
        "CL+CL different",
        &["Content-Length: 4", "Content-Length: 5"],
        400,
    ),
    ("CL list", &["Content-Length: 4, 4"], 400),
    ("CL with a sign", &["Content-Length: +4"], 400),
    (
        "TE twice",
        &["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"],
        400,
    ),
    // nginx 501 (not implemented) for a coding it does not know; refused here as a framing it will not guess.
    (
        "TE gzip, chunked",
        &["Transfer-Encoding: gzip, chunked"],
        400,
    ),
    (
        "TE identity + chunked",
        &["Transfer-Encoding: identity", "Transfer-Encoding: chunked"],
        400,
    ),
    (
        "TE with a space before the colon",
        &["Transfer-Encoding : chunked"],
        400,
    ),
    ("TE obs-fold", &["Transfer-Encoding:", " chunked"], 400),
];

#[tokio::test(flavor = "multi_thread")]
async fn framing_conflicts_are_pinned_on_their_own_request_in_every_pipeline() {
    let up = Upstream::start().await;
    let waf = start(&up, "", false, &[]);
    let mut case = 0;
    for (conflict, fields, _nginx) in CONFLICTS {
        for (clean_style_name, clean_style) in STYLES {
            for (bad_style_name, bad_style) in STYLES {
                case += 1;
                let clean_path = format!("/c{case}/clean");
                let bad_path = format!("/c{case}/conflict");
                let clean_line = format!("GET {clean_path} HTTP/1.1");
                let clean = head(&[&clean_line, "Host: a"], clean_style);
                let bad_line = format!("POST {bad_path} HTTP/1.1");
                let mut lines = vec![bad_line.as_str(), "Host: a"];
                lines.extend_from_slice(fields);
                let bad = head(&lines, bad_style) + SMUGGLER;
                let what =
                    format!("{conflict}: clean {clean_style_name}, conflict {bad_style_name}");

                // Clean first: nginx 200 then 400 (the issue's probe); so here.
                let answer = raw(waf.addr, (clean.clone() + &bad).as_bytes()).await;
                assert_eq!(
                    statuses(&answer),
                    vec![200, 400],
                    "{what}, clean first: {answer}"
                );
                // Conflict first: nginx 400 and the connection closed; so here, the clean request never read.
                let answer = raw(waf.addr, (bad + &clean).as_bytes()).await;
                assert_eq!(
                    statuses(&answer),
                    vec![400],
                    "{what}, conflict first: {answer}"
                );

                let seen = paths(&up);
                assert_eq!(
                    seen.iter()
                        .filter(|p| p.starts_with(&format!("/c{case}/")))
                        .collect::<Vec<_>>(),
                    vec![&clean_path],
                    "{what}: the upstream received {seen:?}"
                );
            }
        }
    }
    let seen = paths(&up);
    assert!(!seen.iter().any(|p| p.contains("smuggled")), "{seen:?}");
    assert_eq!(seen.len(), case);
}

#[tokio::test(flavor = "multi_thread")]
async fn pipelines_in_every_line_ending_style_reach_the_upstream_request_by_request() {
    let up = Upstream::start().await;
    let waf = start(&up, "", false, &[]);
    let mut stream = String::new();
    let mut expected = Vec::new();
    for (i, (_, style)) in STYLES.iter().enumerate() {
        let get = format!("GET /p{i}/get HTTP/1.1");
        stream += &head(&[&get, "Host: a"], *style);
        let post = format!("POST /p{i}/length HTTP/1.1");
        stream += &head(&[&post, "Host: a", "Content-Length: 5"], *style);
        stream += "hello";
        let chunked = format!("POST /p{i}/chunked HTTP/1.1");
        stream += &head(&[&chunked, "Host: a", "Transfer-Encoding: chunked"], *style);
        // Chunk lines stay CRLF, as hyper wants (nginx also takes bare LF there).
        stream += "3;ext=1\r\nabc\r\n0\r\nx-trailer: 1\r\n\r\n";
        expected.extend([
            (format!("/p{i}/get"), ""),
            (format!("/p{i}/length"), "hello"),
            (format!("/p{i}/chunked"), "abc"),
        ]);
    }
    stream += "GET /last HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
    expected.push(("/last".into(), ""));
    // Leading empty lines are skipped, as by the parser (nginx 200).
    let answer = raw(waf.addr, format!("\r\n\n{stream}").as_bytes()).await;
    assert_eq!(statuses(&answer), vec![200; expected.len()], "{answer}");
    let seen: Vec<(String, String)> = up
        .seen()
        .into_iter()
        .map(|s| (s.uri, String::from_utf8_lossy(&s.body).into_owned()))
        .collect();
    let expected: Vec<(String, String)> = expected
        .into_iter()
        .map(|(p, b)| (p, b.to_string()))
        .collect();
    assert_eq!(seen, expected);
}

/// A rule that reads the target without any transform: it matches only when it sees the bytes as sent.
const RAW_URI_RULE: &str = r#"
id: 100002
msg: "raw angle brackets in the target"
severity: CRITICAL
operator: contains
pattern: "<script>"
variables: [REQUEST_URI]
action: deny
"#;

#[tokio::test(flavor = "multi_thread")]
async fn targets_clients_send_unencoded_are_inspected_as_sent_and_forwarded_encoded() {
    let up = Upstream::start().await;
    let waf = start(&up, "", false, &[("raw.yaml", RAW_URI_RULE)]);
    let forwarded: [(&[u8], &str); 6] = [
        // nginx 200 for each; before: 400.
        (br#"/?json={"a":1}"#, "/?json=%7B%22a%22:1%7D"),
        (b"/?q=<b>|^`\\", "/?q=%3Cb%3E%7C%5E%60%5C"),
        ("/caf\u{e9}".as_bytes(), "/caf%C3%A9"),
        (b"/caf\xe9", "/caf%E9"),
        // An escape the client made is kept, not encoded twice.
        (b"/a%20b?x=%22", "/a%20b?x=%22"),
        (b"/{x}", "/%7Bx%7D"),
    ];
    for (target, upstream_sees) in forwarded {
        let mut request = b"GET ".to_vec();
        request.extend_from_slice(target);
        request.extend_from_slice(b" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
        let answer = raw(waf.addr, &request).await;
        assert_eq!(
            statuses(&answer),
            vec![200],
            "{}: {answer}",
            String::from_utf8_lossy(target)
        );
        assert_eq!(up.last().uri, upstream_sees);
    }

    // Inspected as sent: the rule sees `<script>`, not `%3Cscript%3E` (nginx+ModSecurity: 403 likewise).
    let answer = raw(
        waf.addr,
        b"GET /?q=<script> HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(statuses(&answer), vec![403], "{answer}");
    waf.wait_log(r#"[uri "/?q=<script>"]"#, 5).await;

    let before = up.seen().len();
    let refused: [&[u8]; 6] = [
        // nginx 400 for each: control characters, space, tab, NUL, DEL.
        b"/a\x01b", b"/a\x1bb", b"/a b", b"/a\tb", b"/a\x00b", b"/a\x7fb",
    ];
    for target in refused {
        let mut request = b"GET ".to_vec();
        request.extend_from_slice(target);
        request.extend_from_slice(b" HTTP/1.1\r\nHost: a\r\n\r\n");
        let answer = raw(waf.addr, &request).await;
        assert_eq!(
            statuses(&answer),
            vec![400],
            "{:?}: {answer}",
            String::from_utf8_lossy(target)
        );
    }
    assert_eq!(up.seen().len(), before, "a refused target was forwarded");
}

#[tokio::test(flavor = "multi_thread")]
async fn http2_heads_are_held_to_the_same_limits() {
    let up = Upstream::start().await;
    let waf = start(&up, "", true, &[]);
    let stream = TcpStream::connect(waf.addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(conn);
    let ok = h2_get(&mut sender, "/h2".into(), 10, 10).await.unwrap();
    assert_eq!(ok.status(), 200);
    let _ = ok.into_body().collect().await;

    let long = h2_get(&mut sender, format!("/{}", "a".repeat(9000)), 1, 1)
        .await
        .unwrap();
    assert_eq!(long.status(), 414);
    let many = h2_get(&mut sender, "/many".into(), 101, 1).await.unwrap();
    assert_eq!(many.status(), 431);
    // 40 KB of header list: over SETTINGS_MAX_HEADER_LIST_SIZE, refused by the h2 library before the pipeline.
    let big = h2_get(&mut sender, "/big".into(), 5, 8000).await;
    assert!(
        big.as_ref().map_or(true, |r| r.status() == 431),
        "{:?}",
        big.map(|r| r.status())
    );
    assert_eq!(paths(&up), vec!["/h2".to_string()]);
}

/// One GET over HTTP/2 with `headers` header fields of `len` bytes each.
async fn h2_get(
    sender: &mut hyper::client::conn::http2::SendRequest<Full<Bytes>>,
    target: String,
    headers: usize,
    len: usize,
) -> Result<http::Response<hyper::body::Incoming>, hyper::Error> {
    let mut req = http::Request::get(format!("http://a{target}"));
    for i in 0..headers {
        req = req.header(format!("x-{i}"), "v".repeat(len));
    }
    sender.ready().await?;
    sender
        .send_request(req.body(Full::new(Bytes::new())).unwrap())
        .await
}
