//! Forwarding through the real `waf` binary to a real upstream on loopback: bytes both ways, header hygiene,
//! client address, upstream failures, body limits, smuggling shapes, own endpoints, routing, shutdown.
mod support;

use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn upstream_config(up: &Upstream) -> String {
    format!(
        "  upstream: {{default: '{}', response_timeout_ms: 1000}}\n",
        up.url()
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn benign_request_is_forwarded_byte_exact_both_ways() {
    let up = Upstream::start().await;
    let waf = Waf::start(&upstream_config(&up), &[("deny.yaml", DENY_RULE)]);
    let body: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let req = Request::post("/submit/form?a=1&b=two%20words")
        .header("host", "app.test")
        .header("content-type", "application/octet-stream")
        .header("x-custom", "kept as is")
        .header("connection", "keep-alive, x-private")
        .header("x-private", "connection-scoped")
        .header("keep-alive", "timeout=5")
        .body(Full::new(Bytes::from(body.clone())))
        .unwrap();
    let (head, echoed) = send(waf.addr, req).await;
    assert_eq!(head.status, 200);
    assert_eq!(echoed.as_ref(), body.as_slice(), "response body changed");
    assert_eq!(head.headers["x-upstream"], "echo");
    assert_eq!(head.headers["x-mixed-case"], "Value With Spaces");
    assert!(
        !head.headers.contains_key("x-hop"),
        "hop-by-hop response header leaked"
    );

    let seen = up.last();
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.uri, "/submit/form?a=1&b=two%20words");
    assert_eq!(seen.body.as_ref(), body.as_slice(), "request body changed");
    assert_eq!(seen.headers["x-custom"], "kept as is");
    assert_eq!(seen.headers["host"], "app.test");
    assert_eq!(
        seen.headers["content-length"],
        body.len().to_string().as_str()
    );
    for hop in ["x-private", "keep-alive", "transfer-encoding"] {
        assert!(!seen.headers.contains_key(hop), "{hop} forwarded");
    }
    assert_eq!(seen.headers["x-forwarded-for"], "127.0.0.1");
    assert_eq!(seen.headers["x-forwarded-proto"], "http");
    assert_eq!(seen.headers["x-forwarded-host"], "app.test");
}

#[tokio::test(flavor = "multi_thread")]
async fn upstream_connections_are_reused_across_requests() {
    let up = Upstream::start().await;
    let waf = Waf::start(&upstream_config(&up), &[("deny.yaml", DENY_RULE)]);
    // Each request on its own client connection, so either worker may take it: each worker keeps its own pool,
    // so at most one upstream connection per worker may be opened for requests that never overlap.
    for i in 0..20 {
        let (head, _) = post(waf.addr, &format!("/n/{i}"), "a=1").await;
        assert_eq!(head.status, 200);
        let (head, _) = get(waf.addr, &format!("/n/{i}?b=2")).await;
        assert_eq!(head.status, 200);
    }
    assert_eq!(up.seen().len(), 40);
    let opened = up.connections();
    assert!(
        (1..=WORKERS).contains(&opened),
        "{opened} upstream connections for 40 sequential requests"
    );
}

/// An upstream that answers each connection's first request with keep-alive framing, then, when `close_after`
/// is set, closes the connection that long after (as an upstream ending idle keep-alive connections does), else
/// waits for the proxy to close it. Counts the connections it accepted and those the proxy closed.
async fn one_shot_upstream(
    close_after: Option<Duration>,
) -> (String, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (accepted, closed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (accepted_count, closed_count) = (accepted.clone(), closed.clone());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            accepted_count.fetch_add(1, Ordering::SeqCst);
            let closed_count = closed_count.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                let _ = stream.write_all(answer).await;
                match close_after {
                    Some(delay) => tokio::time::sleep(delay).await,
                    None => {
                        if let Ok(0) = stream.read(&mut buf).await {
                            closed_count.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                }
            });
        }
    });
    (url, accepted, closed)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pooled_connection_the_upstream_closed_is_not_used() {
    let (url, connections, _) = one_shot_upstream(Some(Duration::from_millis(100))).await;
    let waf = Waf::start(
        &format!("  upstream: {{default: '{url}', response_timeout_ms: 2000}}\n"),
        &[],
    );
    for i in 0..4 {
        let (head, body) = get(waf.addr, &format!("/n/{i}")).await;
        assert_eq!(head.status, 200, "request {i}");
        assert_eq!(&body[..], b"ok");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert_eq!(connections.load(Ordering::SeqCst), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_upstream_connection_is_closed_after_the_idle_timeout() {
    let (url, _, closed) = one_shot_upstream(None).await;
    let waf = Waf::start(
        &format!("  upstream: {{default: '{url}', pool_idle_timeout_sec: 1}}\n"),
        &[],
    );
    let (head, _) = get(waf.addr, "/once").await;
    assert_eq!(head.status, 200);
    assert_eq!(
        closed.load(Ordering::SeqCst),
        0,
        "kept for the next request"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while closed.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        closed.load(Ordering::SeqCst),
        1,
        "closed by the pool once idle"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn no_connection_is_kept_when_the_pool_may_keep_none() {
    let up = Upstream::start().await;
    let waf = Waf::start(
        &format!(
            "  upstream: {{default: '{}', pool_max_idle_per_host: 0}}\n",
            up.url()
        ),
        &[],
    );
    for i in 0..5 {
        let (head, _) = get(waf.addr, &format!("/n/{i}")).await;
        assert_eq!(head.status, 200);
    }
    assert_eq!(up.connections(), 5);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_without_host_reaches_the_upstream_with_the_upstreams() {
    let up = Upstream::start().await;
    let waf = Waf::start(&upstream_config(&up), &[]);
    let answer = raw(waf.addr, b"GET /old?x=1 HTTP/1.0\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.0 200"), "{answer}");
    let seen = up.last();
    assert_eq!(seen.uri, "/old?x=1");
    assert_eq!(seen.headers["host"], up.addr.to_string().as_str());
}

#[tokio::test(flavor = "multi_thread")]
async fn chunked_request_body_is_reframed_with_a_length() {
    let up = Upstream::start().await;
    let waf = Waf::start(&upstream_config(&up), &[]);
    let answer = raw(
        waf.addr,
        b"POST /c HTTP/1.1\r\nHost: app.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let seen = up.last();
    assert_eq!(seen.body.as_ref(), b"hello world");
    assert_eq!(seen.headers["content-length"], "11");
    assert!(!seen.headers.contains_key("transfer-encoding"));
}

#[tokio::test(flavor = "multi_thread")]
async fn large_response_streams_through_intact() {
    let up = Upstream::start().await;
    let waf = Waf::start(&upstream_config(&up), &[]);
    let (head, body) = get(waf.addr, "/big").await;
    assert_eq!(head.status, 200);
    assert_eq!(body.len(), BIG_LEN);
    assert!(
        body.iter().enumerate().all(|(i, b)| *b == big_byte(i)),
        "streamed bytes differ"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn refused_upstream_is_502_and_slow_upstream_is_504() {
    let up = Upstream::start().await;
    let config = format!(
        "  upstream: {{default: 'http://127.0.0.1:{}', response_timeout_ms: 500}}\n  domains:\n    slow.test: {{default_upstream: '{}'}}\n",
        closed_port(),
        up.url()
    );
    let waf = Waf::start(&config, &[]);
    let (head, body) = get(waf.addr, "/x").await;
    assert_eq!(head.status, 502);
    assert_eq!(json(&body)["error"], "bad gateway");
    assert_eq!(head.headers["content-type"], "application/json");

    let req = Request::get("/slow")
        .header("host", "slow.test")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (head, body) = send(waf.addr, req).await;
    assert_eq!(head.status, 504);
    assert_eq!(json(&body)["error"], "gateway timeout");
    assert_eq!(
        waf.metric("waf_upstream_errors_total{kind=\"unavailable\"}")
            .await,
        1.0
    );
    assert_eq!(
        waf.metric("waf_upstream_errors_total{kind=\"timeout\"}")
            .await,
        1.0
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn upstream_is_chosen_by_configured_domain_never_by_the_client() {
    let main = Upstream::start().await;
    let other = Upstream::start().await;
    let config = format!(
        "  upstream: {{default: '{}'}}\n  domains:\n    Shop.Test: {{default_upstream: '{}'}}\n",
        main.url(),
        other.url()
    );
    let waf = Waf::start(&config, &[]);
    let req = Request::get("/p")
        .header("host", "shop.test:8080")
        .body(Full::new(Bytes::new()))
        .unwrap();
    assert_eq!(send(waf.addr, req).await.0.status, 200);
    assert_eq!(other.seen().len(), 1);
    assert_eq!(other.last().headers["host"], "shop.test:8080");

    // An absolute-form target naming another server still goes to a configured upstream.
    let answer = raw(
        waf.addr,
        format!(
            "GET http://{}/steal HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n",
            other.addr
        )
        .as_bytes(),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert_eq!(main.last().uri, "/steal");
    assert_eq!(other.seen().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn forwarded_for_is_appended_only_for_trusted_peers() {
    let up = Upstream::start().await;
    let untrusted = Waf::start(&upstream_config(&up), &[]);
    let spoof = |addr| {
        let req = Request::get("/ip")
            .header("host", "app.test")
            .header("x-forwarded-for", "1.2.3.4")
            .header("x-forwarded-proto", "https")
            .body(Full::new(Bytes::new()))
            .unwrap();
        send(addr, req)
    };
    spoof(untrusted.addr).await;
    let seen = up.last();
    assert_eq!(
        seen.headers["x-forwarded-for"], "127.0.0.1",
        "spoofed address believed"
    );
    assert_eq!(seen.headers["x-forwarded-proto"], "http");

    let trusted = Waf::start(
        &format!(
            "{}  client_ip: {{trusted_proxies: ['127.0.0.0/8', '::1']}}\n",
            upstream_config(&up)
        ),
        &[],
    );
    spoof(trusted.addr).await;
    let seen = up.last();
    assert_eq!(seen.headers["x-forwarded-for"], "1.2.3.4, 127.0.0.1");
    assert_eq!(seen.headers["x-forwarded-proto"], "https");
}

#[tokio::test(flavor = "multi_thread")]
async fn smuggling_shapes_are_refused_with_400() {
    let up = Upstream::start().await;
    let waf = Waf::start(&upstream_config(&up), &[]);
    let shapes: [&[u8]; 6] = [
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde",
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nContent-Length: 4\r\n\r\nabcd",
        b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    ];
    for shape in shapes {
        let answer = raw(waf.addr, shape).await;
        assert!(
            answer.starts_with("HTTP/1.1 400"),
            "{}\n=> {answer}",
            String::from_utf8_lossy(shape)
        );
    }
    assert!(
        up.seen().is_empty(),
        "a refused request reached the upstream"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn body_over_the_limit_is_413_unless_prefix_inspection_is_chosen() {
    let up = Upstream::start().await;
    let config = format!("{}  body: {{limit_bytes: 1000}}\n", upstream_config(&up));
    let waf = Waf::start(&config, &[]);
    let (head, body) = post(waf.addr, "/upload", vec![b'a'; 1001]).await;
    assert_eq!(head.status, 413);
    assert_eq!(json(&body)["error"], "payload too large");
    // Without a declared length the limit still holds.
    let mut chunked =
        b"POST /u HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            .to_vec();
    for _ in 0..3 {
        chunked.extend_from_slice(b"190\r\n");
        chunked.extend_from_slice(&[b'b'; 400]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    assert!(raw(waf.addr, &chunked).await.starts_with("HTTP/1.1 413"));
    let (head, _) = post(waf.addr, "/upload", vec![b'a'; 1000]).await;
    assert_eq!(head.status, 200);
    assert_eq!(up.seen().len(), 1);
    assert_eq!(
        waf.metric("waf_rejected_total{reason=\"body_too_large\"}")
            .await,
        2.0
    );

    let config = format!(
        "{}  body: {{limit_bytes: 1000, over_limit: inspect_prefix}}\n",
        upstream_config(&up)
    );
    let prefix = Waf::start(&config, &[]);
    let big = vec![b'c'; 300_000];
    let (head, echoed) = post(prefix.addr, "/upload", big.clone()).await;
    assert_eq!(head.status, 200);
    assert_eq!(echoed.len(), big.len());
    assert_eq!(up.last().body.len(), big.len());
    prefix.wait_log("only the first 1000 inspected", 2).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn own_endpoints_answer_get_only_and_count() {
    let up = Upstream::start().await;
    let waf = Waf::start(&upstream_config(&up), &[("deny.yaml", DENY_RULE)]);
    let (head, body) = get(waf.addr, "/health").await;
    assert_eq!(head.status, 200);
    let health = json(&body);
    assert_eq!(health["status"], "ok");
    assert_eq!(health["observe_mode"], false);
    assert_eq!(health["mode"], "enforce");
    assert!(health["rules_loaded"].is_u64());
    assert!(up.seen().is_empty());

    // Anything but GET to the same paths is an ordinary request: inspected, then forwarded.
    let (head, _) = post(waf.addr, "/health", "x=1").await;
    assert_eq!(head.status, 200);
    assert_eq!(up.last().uri, "/health");
    let (head, _) = post(waf.addr, "/metrics", "x=1").await;
    assert_eq!(head.status, 200);
    assert_eq!(up.last().uri, "/metrics");

    let before = waf.metric("waf_requests_total").await;
    get(waf.addr, "/page").await;
    let after = waf.metric("waf_requests_total").await;
    // The scrape itself counts as a request too.
    assert_eq!(after - before, 2.0);
    let (_, text) = get(waf.addr, "/metrics").await;
    let text = String::from_utf8(text.to_vec()).unwrap();
    for name in [
        "waf_requests_total",
        "waf_blocked_total",
        "waf_observed_total",
        "waf_rules_loaded",
        "waf_request_duration_seconds_bucket",
        "waf_reloads_total",
    ] {
        assert!(text.contains(name), "{name} missing from /metrics:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_drains_requests_in_flight() {
    let up = Upstream::start().await;
    let mut waf = Waf::start(&format!("  upstream: {{default: '{}'}}\n", up.url()), &[]);
    let addr = waf.addr;
    let slow = tokio::spawn(async move { get(addr, "/slow").await });
    while up.seen().is_empty() {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    waf.signal("TERM");
    let (head, _) = slow.await.unwrap();
    assert_eq!(head.status, 200, "request in flight was cut off");
    assert!(
        waf.wait_exit(10),
        "waf did not exit cleanly:\n{}",
        waf.logs()
    );
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "still accepting after SIGTERM"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn config_reload_changes_the_mode_without_restart() {
    let up = Upstream::start().await;
    let base = upstream_config(&up);
    let waf = Waf::start(&format!("{base}  mode: enforce\n"), &[]);
    waf.wait_health(5, |h| h["mode"] == "enforce").await;
    Waf::write_config(waf.dir.path(), &format!("{base}  mode: observe\n"));
    waf.wait_health(5, |h| h["observe_mode"] == true).await;
    // A broken config is refused and the one in force stays.
    Waf::write_config(waf.dir.path(), &format!("{base}  mode: sideways\n"));
    waf.wait_log("config reload failed", 5).await;
    waf.wait_health(1, |h| h["mode"] == "observe").await;
    Waf::write_config(waf.dir.path(), &format!("{base}  mode: disabled\n"));
    waf.wait_health(5, |h| h["mode"] == "disabled").await;
    waf.signal("HUP");
    waf.wait_log("SIGHUP", 5).await;
}
