//! Slow clients, probed with raw sockets against the real `waf` binary: every wait on a client is bounded
//! (`waf-runtime/src/timeouts.rs`), a head not finished in time is answered 408 and never forwarded, and each
//! cut-off is counted by stage. Timeouts are 2 s here; each case checks the connection is closed no earlier than
//! its bound (so the bound, not something else, closed it) and no later than the bound + 1 s.
mod support;

use bytes::Bytes;
use http::Request;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use support::*;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const BOUND: Duration = Duration::from_secs(2);

/// Starts `waf` in front of `up` with every client timeout at `BOUND` (and `server` added).
fn start(up: &Upstream, server: &str) -> Waf {
    start_with_first_byte(up, BOUND.as_secs(), server)
}

fn start_with_first_byte(up: &Upstream, first_byte_sec: u64, server: &str) -> Waf {
    let bounds = format!(
        "first_byte_timeout_sec: {first_byte_sec}, header_read_timeout_sec: 2, body_read_timeout_sec: 2, \
         keepalive_timeout_sec: 2, tls_handshake_timeout_sec: 2, send_timeout_sec: 2"
    );
    let server = match server {
        "" => bounds,
        more => format!("{bounds}, {more}"),
    };
    Waf::start_with_server(
        &server,
        &format!("  upstream: {{default: '{}'}}\n", up.url()),
        &[],
    )
}

/// Reads until the proxy closes the connection; returns what it sent and how long after `since` it closed.
/// Fails if the connection is still open `BOUND` + 3 s after `since`.
async fn until_closed(stream: &mut (impl AsyncRead + Unpin), since: Instant) -> (String, Duration) {
    let mut answer = Vec::new();
    let limit = (since + BOUND + Duration::from_secs(3)).saturating_duration_since(Instant::now());
    match tokio::time::timeout(limit, stream.read_to_end(&mut answer)).await {
        Ok(_) => {}
        Err(_) => panic!("still open {:?} after it started", since.elapsed()),
    }
    (
        String::from_utf8_lossy(&answer).into_owned(),
        since.elapsed(),
    )
}

/// The connection was closed by the bound: not before it (less a little scheduling slack), at most 1 s after.
fn closed_by_the_bound(after: Duration) {
    assert!(
        after >= BOUND - Duration::from_millis(100),
        "closed after {after:?}, before the bound of {BOUND:?}"
    );
    assert!(
        after <= BOUND + Duration::from_secs(1),
        "closed after {after:?}, more than 1 s past the bound of {BOUND:?}"
    );
}

async fn timeouts(waf: &Waf, stage: &str) -> f64 {
    waf.metric(&format!(
        "waf_connection_timeouts_total{{stage=\"{stage}\"}}"
    ))
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_connection_that_sends_nothing_is_closed_silently() {
    let up = Upstream::start().await;
    let waf = start(&up, "");
    let since = Instant::now();
    let mut silent = TcpStream::connect(waf.addr).await.unwrap();
    let (answer, after) = until_closed(&mut silent, since).await;
    assert_eq!(answer, "", "no answer to a connection without a request");
    closed_by_the_bound(after);
    waf.wait_metric("waf_connection_timeouts_total{stage=\"first_byte\"}", 1.0)
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_line_alone_is_answered_408_and_never_forwarded() {
    let up = Upstream::start().await;
    // The first byte comes at once: only the head's own bound can close this one, even with a longer first-byte
    // bound.
    let waf = start_with_first_byte(&up, 30, "");
    for partial in [
        "GET /",
        "GET / HTTP/1.1\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n",
    ] {
        let mut stream = TcpStream::connect(waf.addr).await.unwrap();
        let since = Instant::now();
        stream.write_all(partial.as_bytes()).await.unwrap();
        let (answer, after) = until_closed(&mut stream, since).await;
        assert!(answer.starts_with("HTTP/1.1 408 "), "{partial:?}: {answer}");
        assert!(
            answer.contains("request head not received in time"),
            "{answer}"
        );
        closed_by_the_bound(after);
    }
    assert!(up.seen().is_empty(), "forwarded: {:?}", up.seen());
    assert_eq!(timeouts(&waf, "head").await, 3.0);
    assert_eq!(
        waf.metric("waf_rejected_total{reason=\"head_timeout\"}")
            .await,
        3.0
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn header_lines_trickled_are_cut_off_at_the_bound_from_the_first_byte() {
    let up = Upstream::start().await;
    let waf = start(&up, "");
    const CONNECTIONS: usize = 50;
    let since = Instant::now();
    let mut trickles = Vec::new();
    for _ in 0..CONNECTIONS {
        let addr = waf.addr;
        trickles.push(tokio::spawn(async move {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            let started = Instant::now();
            stream
                .write_all(b"GET /trickled HTTP/1.1\r\nHost: a\r\n")
                .await
                .unwrap();
            // A header line every 0.5 s, for longer than the bound: each read is quick, the head never ends.
            let mut answer = Vec::new();
            for i in 0..20 {
                let line = format!("x-{i}: {i}\r\n");
                if stream.write_all(line.as_bytes()).await.is_err() {
                    break;
                }
                let mut buf = [0u8; 512];
                match tokio::time::timeout(Duration::from_millis(500), stream.read(&mut buf)).await
                {
                    Err(_) => continue,
                    Ok(Ok(0) | Err(_)) => break,
                    Ok(Ok(n)) => answer.extend_from_slice(&buf[..n]),
                }
            }
            let _ =
                tokio::time::timeout(Duration::from_secs(1), stream.read_to_end(&mut answer)).await;
            (
                String::from_utf8_lossy(&answer).into_owned(),
                started.elapsed(),
            )
        }));
    }
    for trickle in trickles {
        let (answer, after) = trickle.await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
        // The 408 ends the loop above within one 0.5 s step of the close.
        assert!(
            after >= BOUND - Duration::from_millis(100) && after <= BOUND + Duration::from_secs(1),
            "closed after {after:?}"
        );
    }
    assert!(since.elapsed() < BOUND + Duration::from_secs(5));
    assert!(up.seen().is_empty(), "forwarded: {:?}", up.seen());
    assert_eq!(timeouts(&waf, "head").await, CONNECTIONS as f64);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_keep_alive_connection_is_closed_after_its_bound_not_during_a_slow_answer() {
    let up = Upstream::start().await;
    let waf = start(&up, "");
    let mut stream = TcpStream::connect(waf.addr).await.unwrap();
    // The upstream takes 3 s, longer than every client bound: the client owes nothing meanwhile.
    stream
        .write_all(b"GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&answer).contains("x-upstream") {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
            .await
            .expect("no answer")
            .unwrap();
        assert!(
            n > 0,
            "closed during the answer: {}",
            String::from_utf8_lossy(&answer)
        );
        answer.extend_from_slice(&buf[..n]);
    }
    let since = Instant::now();
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200 "));
    let (rest, after) = until_closed(&mut stream, since).await;
    assert_eq!(rest, "", "nothing is sent on an idle connection");
    closed_by_the_bound(after);
    assert_eq!(timeouts(&waf, "keepalive").await, 1.0);
    assert_eq!(timeouts(&waf, "head").await, 0.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_that_stops_arriving_is_answered_408() {
    let up = Upstream::start().await;
    let waf = start(&up, "");
    let mut stream = TcpStream::connect(waf.addr).await.unwrap();
    stream
        .write_all(b"POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
        .await
        .unwrap();
    let since = Instant::now();
    let (answer, after) = until_closed(&mut stream, since).await;
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    closed_by_the_bound(after);
    assert!(up.seen().is_empty(), "forwarded: {:?}", up.seen());
    assert_eq!(timeouts(&waf, "body").await, 1.0);
}

/// Connects to `addr` with a receive buffer of a few KiB, sends `request` and reads nothing: the answer fills the
/// client's window and the server's send buffer, and the server's writes wait from then on.
async fn not_reading(addr: SocketAddr, request: &[u8]) -> TcpStream {
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4(),
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6(),
    }
    .unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    stream
}

/// Reads what is left of `stream` until the server closes it: how many bytes came. Fails if it is still open
/// after 5 s (all that is left to read is what sat in the socket buffers).
async fn rest_until_closed(stream: &mut TcpStream) -> usize {
    let mut rest = Vec::new();
    match tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut rest)).await {
        Ok(Ok(_)) => rest.len(),
        // A reset (the server closed with unread bytes of ours) is a close too.
        Ok(Err(_)) => rest.len(),
        Err(_) => panic!("still open, {} bytes read", rest.len()),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_does_not_read_its_answer_is_closed_after_the_send_bound() {
    let up = Upstream::start().await;
    let waf = start(&up, "");
    let since = Instant::now();
    let mut stream = not_reading(waf.addr, b"GET /big HTTP/1.1\r\nHost: a\r\n\r\n").await;
    // The answer (8 MiB) stops within milliseconds of the request: the bound runs from about `since`.
    tokio::time::sleep_until((since + BOUND - Duration::from_millis(300)).into()).await;
    assert_eq!(timeouts(&waf, "send").await, 0.0, "closed before the bound");
    tokio::time::sleep_until((since + BOUND + Duration::from_secs(1)).into()).await;
    assert_eq!(
        timeouts(&waf, "send").await,
        1.0,
        "not closed by the bound + 1 s"
    );
    let received = rest_until_closed(&mut stream).await;
    assert!(
        received < BIG_LEN,
        "the whole answer came: {received} bytes"
    );
    // Nothing else cut it off.
    for stage in ["first_byte", "head", "body", "keepalive"] {
        assert_eq!(timeouts(&waf, stage).await, 0.0, "{stage}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn http2_connections_idle_or_without_a_settings_ack_are_closed_after_their_bound() {
    let up = Upstream::start().await;
    let waf = start(&up, "http2_enabled: true");
    const PREFACE_AND_SETTINGS: &[u8] =
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";
    const SETTINGS_ACK: &[u8] = b"\x00\x00\x00\x04\x01\x00\x00\x00\x00";
    // Acknowledges the proxy's SETTINGS, then sends nothing: a connection without a request.
    let mut idle = TcpStream::connect(waf.addr).await.unwrap();
    // Never acknowledges them.
    let mut no_ack = TcpStream::connect(waf.addr).await.unwrap();
    let since = Instant::now();
    idle.write_all(PREFACE_AND_SETTINGS).await.unwrap();
    idle.write_all(SETTINGS_ACK).await.unwrap();
    no_ack.write_all(PREFACE_AND_SETTINGS).await.unwrap();
    for stream in [&mut idle, &mut no_ack] {
        let (_, after) = until_closed(stream, since).await;
        closed_by_the_bound(after);
    }
    assert_eq!(timeouts(&waf, "http2_idle").await, 1.0);
    assert_eq!(timeouts(&waf, "http2_settings").await, 1.0);
}

/// An HTTP/2 connection to `addr` (prior knowledge) driven in a task of its own, which answers the proxy's
/// SETTINGS and pings but gives no flow-control window back unless told: what the task ends with, when the proxy
/// closes the connection, comes on the channel.
async fn h2_client(
    addr: SocketAddr,
) -> (
    h2::client::SendRequest<Bytes>,
    tokio::sync::oneshot::Receiver<Instant>,
) {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let (client, connection) = h2::client::handshake(tcp).await.unwrap();
    let (closed, on_close) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let _ = connection.await;
        let _ = closed.send(Instant::now());
    });
    (client, on_close)
}

/// A client that asks for a large answer over HTTP/2 and reads none of it keeps the flow-control window shut once
/// the first 64 KiB came: the proxy's writes never wait on the socket (h2 holds the rest), so the socket's send
/// bound alone would hold it for ever. The connection is closed `send_timeout_sec` after the answer stops.
#[tokio::test(flavor = "multi_thread")]
async fn an_http2_client_that_keeps_its_window_shut_is_closed_after_the_send_bound() {
    let up = Upstream::start().await;
    let waf = start(&up, "http2_enabled: true");
    let (mut client, closed) = h2_client(waf.addr).await;
    let request = Request::get(format!("http://{}/big", waf.addr))
        .body(())
        .unwrap();
    let (response, _) = client.send_request(request, true).unwrap();
    let mut body = response.await.unwrap().into_body();
    // The first piece of the answer: from here on the window is shut (nothing read is given back).
    let first = body.data().await.unwrap().unwrap();
    assert!(!first.is_empty());
    let since = Instant::now();
    let closed = tokio::time::timeout(BOUND + Duration::from_secs(3), closed)
        .await
        .expect("still open 5 s after the answer stopped")
        .unwrap();
    closed_by_the_bound(closed - since);
    assert_eq!(timeouts(&waf, "send").await, 1.0);
    for stage in ["http2_idle", "http2_settings", "body"] {
        assert_eq!(timeouts(&waf, stage).await, 0.0, "{stage}");
    }
}

/// `waf` with the bounds of `start`, HTTP/2 on, inspecting the first 1 KiB of larger bodies and streaming the rest.
fn start_inspecting_a_prefix(up: &Upstream) -> Waf {
    let bounds = "first_byte_timeout_sec: 2, header_read_timeout_sec: 2, body_read_timeout_sec: 2, \
                  keepalive_timeout_sec: 2, send_timeout_sec: 2, http2_enabled: true";
    Waf::start_with_server(
        bounds,
        &format!(
            "  upstream: {{default: '{}'}}\n  body: {{limit_bytes: 1024, over_limit: inspect_prefix}}\n",
            up.url()
        ),
        &[],
    )
}

/// Over HTTP/1 the head guard times the reads of a body streamed past the inspection limit; the request forwarded
/// upstream then fails for the client's body, not the upstream's doing: 408, not a gateway timeout.
#[tokio::test(flavor = "multi_thread")]
async fn a_body_that_stops_past_the_inspection_limit_is_answered_408_not_as_an_upstream_failure() {
    let up = Upstream::start().await;
    let waf = start_inspecting_a_prefix(&up);
    let mut stream = TcpStream::connect(waf.addr).await.unwrap();
    let head = b"POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 8192\r\n\r\n";
    stream.write_all(head).await.unwrap();
    stream.write_all(&[b'a'; 4096]).await.unwrap();
    let since = Instant::now();
    let (answer, after) = until_closed(&mut stream, since).await;
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    closed_by_the_bound(after);
    assert_eq!(timeouts(&waf, "body").await, 1.0);
    let rejected = "waf_rejected_total{reason=\"body_timeout\"}";
    assert_eq!(waf.metric(rejected).await, 1.0);
    for kind in ["timeout", "unavailable"] {
        let series = format!("waf_upstream_errors_total{{kind=\"{kind}\"}}");
        assert_eq!(waf.metric(&series).await, 0.0, "{kind}");
    }
}

/// A request body over the inspection limit streams on to the upstream past the part inspected; over HTTP/2 no
/// head guard times its reads, so each wait for its next bytes is bounded on the stream itself.
#[tokio::test(flavor = "multi_thread")]
async fn an_http2_request_body_that_stops_past_the_inspection_limit_is_cut_off_at_the_body_bound() {
    let up = Upstream::start().await;
    let waf = start_inspecting_a_prefix(&up);
    let (mut client, _closed) = h2_client(waf.addr).await;
    let request = Request::post(format!("http://{}/upload", waf.addr))
        .header("content-type", "application/octet-stream")
        .body(())
        .unwrap();
    let (response, mut body) = client.send_request(request, false).unwrap();
    // Past the limit, then nothing more, the stream left open.
    body.send_data(Bytes::from(vec![b'a'; 4096]), false)
        .unwrap();
    let since = Instant::now();
    let answered = tokio::time::timeout(BOUND + Duration::from_secs(3), response)
        .await
        .expect("no answer 5 s after the body stopped");
    let status = answered.map(|r| r.status().as_u16());
    closed_by_the_bound(since.elapsed());
    assert_eq!(timeouts(&waf, "body").await, 1.0, "answer: {status:?}");
    assert_eq!(status.ok(), Some(408));
    for stage in ["http2_idle", "send"] {
        assert_eq!(timeouts(&waf, stage).await, 0.0, "{stage}");
    }
}

/// The admin panel's listener has the proxy's bounds: a connection that sends nothing, one that sends a head a
/// line at a time, one whose body stops and one that reads nothing of its answers are closed at their bound; an
/// ordinary request is still answered.
#[tokio::test(flavor = "multi_thread")]
async fn the_admin_panel_bounds_its_clients_as_the_proxy_does() {
    let up = Upstream::start().await;
    let bounds = "first_byte_timeout_sec: 2, header_read_timeout_sec: 2, body_read_timeout_sec: 2, \
                  keepalive_timeout_sec: 2, tls_handshake_timeout_sec: 2, send_timeout_sec: 2";
    let waf = Waf::start_with_server(
        bounds,
        &format!(
            "  admin: {{enabled: true, port: 0, data_dir: admin-data}}\n  upstream: {{default: '{}'}}\n",
            up.url()
        ),
        &[],
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let panel: SocketAddr = loop {
        if let Some(rest) = waf.logs().split("admin panel listening on ").nth(1) {
            break rest.split_whitespace().next().unwrap().parse().unwrap();
        }
        assert!(Instant::now() < deadline, "no admin panel:\n{}", waf.logs());
        tokio::time::sleep(Duration::from_millis(20)).await;
    };

    let since = Instant::now();
    let mut silent = TcpStream::connect(panel).await.unwrap();
    let (answer, after) = until_closed(&mut silent, since).await;
    assert_eq!(answer, "");
    closed_by_the_bound(after);

    let (mut read, mut write) = TcpStream::connect(panel).await.unwrap().into_split();
    let since = Instant::now();
    write
        .write_all(b"GET /api/status HTTP/1.1\r\n")
        .await
        .unwrap();
    let trickle = async {
        for _ in 0..10 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            if write.write_all(b"X-Slow: 1\r\n").await.is_err() {
                break;
            }
        }
    };
    let ((), (_, after)) = tokio::join!(trickle, until_closed(&mut read, since));
    closed_by_the_bound(after);

    // A body that stops after 3 of 100 bytes: 408 at the bound, never handed whole to the handler.
    let mut stream = TcpStream::connect(panel).await.unwrap();
    stream
        .write_all(
            b"POST /api/session HTTP/1.1\r\nHost: panel\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"u",
        )
        .await
        .unwrap();
    let since = Instant::now();
    let (answer, after) = until_closed(&mut stream, since).await;
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    assert!(answer.contains("not received in time"), "{answer}");
    closed_by_the_bound(after);
    assert_eq!(timeouts(&waf, "body").await, 1.0);

    // A client that asks for more than the socket buffers hold (pipelined requests for the panel's script) and
    // reads nothing: closed by the send bound.
    let script = b"GET /app.js HTTP/1.1\r\nHost: panel\r\n\r\n".repeat(400);
    let since = Instant::now();
    let mut stream = not_reading(panel, &script).await;
    tokio::time::sleep_until((since + BOUND - Duration::from_millis(300)).into()).await;
    assert_eq!(timeouts(&waf, "send").await, 0.0, "closed before the bound");
    tokio::time::sleep_until((since + BOUND + Duration::from_secs(1)).into()).await;
    assert_eq!(
        timeouts(&waf, "send").await,
        1.0,
        "not closed by the bound + 1 s"
    );
    rest_until_closed(&mut stream).await;

    let mut client = TcpStream::connect(panel).await.unwrap();
    client
        .write_all(b"GET /api/status HTTP/1.1\r\nHost: panel\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let (answer, _) = until_closed(&mut client, Instant::now()).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// Writes `waf.yml` without a `listen_address` (the default) and starts `waf` on it.
fn start_default_listener(up: &Upstream, more: &str) -> Waf {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    let text = format!(
        "waf:\n  server: {{http_port: 0, workers: {WORKERS}}}\n  rules: {{directories: [rules]}}\n  upstream: {{default: '{}'}}\n{more}",
        up.url()
    );
    std::fs::write(dir.path().join("waf.yml"), text).unwrap();
    Waf::launch(dir)
}

#[tokio::test(flavor = "multi_thread")]
async fn both_address_families_by_default_with_ipv4_clients_seen_as_ipv4() {
    let up = Upstream::start().await;
    // 127.0.0.1 is denied: an IPv4 client arriving mapped (::ffff:127.0.0.1) must still match it.
    let waf = start_default_listener(&up, "  ip_filter: {deny: [127.0.0.1]}\n");
    assert!(
        waf.addr.ip().is_unspecified() && waf.addr.is_ipv6(),
        "{}",
        waf.addr
    );
    let port = waf.addr.port();
    let v4 = SocketAddr::from(([127, 0, 0, 1], port));
    let v6: SocketAddr = format!("[::1]:{port}").parse().unwrap();

    let (head, _) = get(v6, "/").await;
    assert_eq!(head.status, 200, "over IPv6");
    assert_eq!(up.last().headers["x-forwarded-for"], "::1");

    let (head, _) = get(v4, "/").await;
    assert_eq!(head.status, 403, "the IPv4 client is on the deny list");
    // The log names the client in its IPv4 form.
    let answer = raw(v4, b"GET / HTTP/1.1\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
    waf.wait_log("refused request from 127.0.0.1:", 5).await;
    assert!(!waf.logs().contains("::ffff:"), "{}", waf.logs());
}

#[tokio::test(flavor = "multi_thread")]
async fn ipv4_only_and_ipv6_only_listeners() {
    let up = Upstream::start().await;
    for (server, v4_ok, v6_ok) in [
        ("listen_address: 0.0.0.0", true, false),
        ("listen_address: '::', ipv6_only: true", false, true),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("rules")).unwrap();
        let text = format!(
            "waf:\n  server: {{{server}, http_port: 0, workers: 1}}\n  rules: {{directories: [rules]}}\n  upstream: {{default: '{}'}}\n",
            up.url()
        );
        std::fs::write(dir.path().join("waf.yml"), text).unwrap();
        let waf = Waf::launch(dir);
        let port = waf.addr.port();
        let v4 = TcpStream::connect(SocketAddr::from(([127, 0, 0, 1], port))).await;
        let v6 = TcpStream::connect(format!("[::1]:{port}")).await;
        assert_eq!((v4.is_ok(), v6.is_ok()), (v4_ok, v6_ok), "{server}");
    }
}

/// Whether the proxy closed `stream` within `wait` having sent nothing, rather than holding it open. The test
/// that uses it gives admitted connections a minute before their first byte, so a close within `wait` is a
/// refusal.
async fn closed_within(stream: &mut TcpStream, wait: Duration) -> bool {
    let mut buf = [0u8; 64];
    matches!(
        tokio::time::timeout(wait, stream.read(&mut buf)).await,
        Ok(Ok(0) | Err(_))
    )
}

/// Waits (up to 10 s, as a loaded machine may start the workers well after the log line that names the port)
/// for one of `streams` to be closed by the proxy, and returns the others. Which one is refused is not fixed:
/// the workers accept from one queue, so a later connection may be admitted before an earlier one that another
/// worker took off the queue first.
async fn one_refused_among(mut streams: Vec<TcpStream>) -> Vec<TcpStream> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        for i in 0..streams.len() {
            if closed_within(&mut streams[i], Duration::from_millis(20)).await {
                streams.remove(i);
                return streams;
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "none of {} connections was refused",
            streams.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn connections_over_the_limits_are_closed_at_accept_and_the_limits_reload() {
    let up = Upstream::start().await;
    let limits = |per_client: u32| {
        format!(
            "  server: {{http_port: PORT, workers: {WORKERS}, first_byte_timeout_sec: 60, max_connections: 3, max_connections_per_client: {per_client}}}\n"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    let write = |dir: &std::path::Path, server: String| {
        let text = format!(
            "waf:\n{server}  rules: {{directories: [rules], reload_interval_sec: 1}}\n  upstream: {{default: '{}'}}\n",
            up.url()
        );
        std::fs::write(dir.join("waf.yml.tmp"), text).unwrap();
        std::fs::rename(dir.join("waf.yml.tmp"), dir.join("waf.yml")).unwrap();
    };
    write(dir.path(), limits(2).replace("PORT", "0"));
    let waf = Waf::launch(dir);
    let port = waf.addr.port();
    let v4 = SocketAddr::from(([127, 0, 0, 1], port));
    let v6: SocketAddr = format!("[::1]:{port}").parse().unwrap();

    let admitted = Duration::from_secs(1);
    let mut from_one = Vec::new();
    for _ in 0..3 {
        from_one.push(TcpStream::connect(v4).await.unwrap());
    }
    // A third from one address is refused...
    let mut held = one_refused_among(from_one).await;
    // ...and, from another, a fourth in all.
    let other = vec![
        TcpStream::connect(v6).await.unwrap(),
        TcpStream::connect(v6).await.unwrap(),
    ];
    held.extend(one_refused_among(other).await);
    for stream in &mut held {
        assert!(
            !closed_within(stream, admitted).await,
            "an admitted connection was closed"
        );
    }
    drop(held);
    // The proxy frees their places once it sees them close: then /metrics can connect.
    tokio::time::sleep(Duration::from_millis(500)).await;
    waf.wait_metric("waf_connections_refused_total{limit=\"per_client\"}", 1.0)
        .await;
    assert_eq!(
        waf.metric("waf_connections_refused_total{limit=\"total\"}")
            .await,
        1.0
    );

    // Reloaded: three from one address now pass.
    write(waf.dir.path(), limits(3).replace("PORT", &port.to_string()));
    waf.wait_log("configuration reloaded", 10).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(TcpStream::connect(v4).await.unwrap());
    }
    for stream in &mut held {
        assert!(
            !closed_within(stream, admitted).await,
            "refused after the reload"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_soft_open_file_limit_is_raised_to_the_hard_one_and_logged() {
    let up = Upstream::start().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    let text = format!(
        "waf:\n  server: {{listen_address: 127.0.0.1, http_port: 0, workers: 1}}\n  rules: {{directories: [rules]}}\n  upstream: {{default: '{}'}}\n",
        up.url()
    );
    std::fs::write(dir.path().join("waf.yml"), text).unwrap();
    let mut shell = std::process::Command::new("sh");
    shell.args([
        "-c",
        "ulimit -Sn 512 && exec \"$0\" \"$@\"",
        env!("CARGO_BIN_EXE_waf"),
    ]);
    let waf = Waf::launch_with(dir, shell);
    waf.wait_log("open-file limit: soft ", 5).await;
    let logs = waf.logs();
    let line = logs
        .lines()
        .find(|l| l.contains("open-file limit"))
        .unwrap();
    let field = |name: &str| {
        line.split(name)
            .nth(1)
            .and_then(|rest| rest.split([' ', ',', ';', ')']).next())
            .unwrap()
            .to_string()
    };
    assert_eq!(field("(was "), "512", "{line}");
    assert_eq!(field("soft "), field("hard "), "{line}");
    assert_ne!(field("soft "), "512", "{line}");
}

/// One slow client against `addr`: the first line the server answered and when it closed, counted from when the
/// stage's clock started (accept, the first byte, the end of the first response, the last body byte).
async fn probe(addr: SocketAddr, shape: &str) -> (String, Duration) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let (answer, after) = match shape {
        "silent" => until_closed(&mut stream, Instant::now()).await,
        "request line" => {
            let since = Instant::now();
            stream.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
            until_closed(&mut stream, since).await
        }
        "trickle" => {
            let since = Instant::now();
            stream
                .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n")
                .await
                .unwrap();
            let (mut read, mut write) = stream.into_split();
            tokio::spawn(async move {
                for i in 0.. {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    let line = format!("x-{i}: {i}\r\n");
                    if write.write_all(line.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
            until_closed(&mut read, since).await
        }
        "idle keep-alive" => {
            stream
                .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                .await
                .unwrap();
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            // The test upstream echoes an empty body: the response ends with its head.
            while !head.ends_with(b"\r\n\r\n") {
                assert_eq!(stream.read(&mut byte).await.unwrap(), 1, "closed early");
                head.push(byte[0]);
            }
            until_closed(&mut stream, Instant::now()).await
        }
        "slow body" => {
            stream
                .write_all(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
                .await
                .unwrap();
            until_closed(&mut stream, Instant::now()).await
        }
        other => panic!("no shape {other}"),
    };
    let first = answer.lines().next().unwrap_or("(nothing)").to_string();
    (first, after)
}

/// A bare nginx reverse proxy in front of `up` with every client timeout at `BOUND`, in the foreground, one
/// process, killed on drop. `None` (a loud skip) where nginx is not installed.
struct Nginx {
    addr: SocketAddr,
    child: std::process::Child,
    _dir: tempfile::TempDir,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_nginx(up: &Upstream) -> Option<Nginx> {
    let installed = std::process::Command::new("nginx")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        assert!(
            std::env::var("REQUIRE_EXTERNAL_TESTS").as_deref() != Ok("1"),
            "REQUIRE_EXTERNAL_TESTS=1 but nginx is not installed"
        );
        eprintln!("SKIPPED: nginx is not installed");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let d = dir.path().display();
    let bound = BOUND.as_secs();
    let conf = format!(
        "daemon off; master_process off; pid {d}/nginx.pid; error_log {d}/error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{ access_log off; client_body_temp_path {d}; proxy_temp_path {d};\n\
           client_header_timeout {bound}s; client_body_timeout {bound}s; keepalive_timeout {bound}s;\n\
           send_timeout {bound}s;\n\
           server {{ listen 127.0.0.1:{port}; location / {{ proxy_pass http://{}; }} }} }}\n",
        up.addr
    );
    std::fs::write(dir.path().join("nginx.conf"), conf).unwrap();
    let child = std::process::Command::new("nginx")
        .args(["-p", &d.to_string(), "-c"])
        .arg(dir.path().join("nginx.conf"))
        .spawn()
        .unwrap();
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "nginx did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(Nginx {
        addr,
        child,
        _dir: dir,
    })
}

/// The same slow clients against `waf` and a bare nginx (1.22) with the same timeouts (a client that reads
/// nothing of its answer included): both close every one within the bound + 1 s. They differ in what they answer: nginx closes a timed-out head or body without an
/// answer (it only logs 408), `waf` answers 408 (`head_guard.rs` says why).
#[tokio::test(flavor = "multi_thread")]
async fn the_same_slow_clients_against_nginx_with_the_same_timeouts() {
    let up = Upstream::start().await;
    let Some(nginx) = start_nginx(&up) else {
        return;
    };
    let waf = start(&up, "");
    for shape in [
        "silent",
        "request line",
        "trickle",
        "idle keep-alive",
        "slow body",
    ] {
        let ((waf_answer, waf_after), (nginx_answer, nginx_after)) =
            tokio::join!(probe(waf.addr, shape), probe(nginx.addr, shape));
        eprintln!(
            "{shape}: waf {waf_answer:?} after {waf_after:?}, nginx {nginx_answer:?} after {nginx_after:?}"
        );
        closed_by_the_bound(waf_after);
        assert!(
            nginx_after <= BOUND + Duration::from_secs(1),
            "{shape}: nginx closed after {nginx_after:?}"
        );
        let expected = match shape {
            "request line" | "trickle" | "slow body" => "HTTP/1.1 408 Request Timeout",
            _ => "(nothing)",
        };
        assert_eq!(waf_answer, expected, "{shape}");
    }
    // A client that reads nothing of a large answer: both stop sending and close by the bound + 1 s, before the
    // whole answer went out.
    let request = b"GET /big HTTP/1.1\r\nHost: a\r\n\r\n";
    let since = Instant::now();
    let (mut to_waf, mut to_nginx) = tokio::join!(
        not_reading(waf.addr, request),
        not_reading(nginx.addr, request)
    );
    tokio::time::sleep_until((since + BOUND + Duration::from_secs(1)).into()).await;
    let (waf_received, nginx_received) = tokio::join!(
        rest_until_closed(&mut to_waf),
        rest_until_closed(&mut to_nginx)
    );
    eprintln!("unread answer: waf sent {waf_received} bytes, nginx {nginx_received}");
    assert!(waf_received < BIG_LEN, "waf sent it all");
    assert!(nginx_received < BIG_LEN, "nginx sent it all");
    assert_eq!(timeouts(&waf, "send").await, 1.0);
}
