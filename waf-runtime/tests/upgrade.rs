//! Protocol upgrades (WebSocket handshakes) through the real `waf` binary: the handshake is inspected like any
//! request; a clean one is switched and bytes relay both ways, an attack in it is refused before the upstream.
mod support;

use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::Empty;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A WebSocket-ish upstream: switches any request that asks to, then echoes every byte back upper-cased (so an
/// answer cannot be mistaken for the client's own bytes). Records the handshakes' URIs.
async fn echo_upstream() -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let record = record.clone();
            tokio::spawn(async move {
                let service = service_fn(move |mut req: Request<Incoming>| {
                    record.lock().unwrap().push(req.uri().to_string());
                    let upgrade = req.headers().get(header::UPGRADE).cloned();
                    let on_upgrade = hyper::upgrade::on(&mut req);
                    async move {
                        let Some(protocol) = upgrade else {
                            return Ok::<_, Infallible>(Response::new(Empty::<Bytes>::new()));
                        };
                        tokio::spawn(async move {
                            let mut io = TokioIo::new(on_upgrade.await.unwrap());
                            let mut buf = [0u8; 1024];
                            loop {
                                let n = io.read(&mut buf).await.unwrap_or(0);
                                if n == 0 {
                                    return;
                                }
                                buf[..n].make_ascii_uppercase();
                                if io.write_all(&buf[..n]).await.is_err() {
                                    return;
                                }
                            }
                        });
                        Ok(Response::builder()
                            .status(StatusCode::SWITCHING_PROTOCOLS)
                            .header(header::CONNECTION, "upgrade")
                            .header(header::UPGRADE, protocol)
                            .body(Empty::new())
                            .unwrap())
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .with_upgrades()
                    .await;
            });
        }
    });
    (addr, seen)
}

fn handshake(target: &str) -> String {
    format!(
        "GET {target} HTTP/1.1\r\nHost: app.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
}

/// Reads until the end of a response head; returns the head.
async fn read_head(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut byte))
            .await
            .expect("response head in time")
            .unwrap();
        assert!(
            n == 1,
            "connection closed after {:?}",
            String::from_utf8_lossy(&head)
        );
        head.push(byte[0]);
    }
    String::from_utf8(head).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn clean_handshake_is_switched_and_bytes_relay_both_ways() {
    let (up, seen) = echo_upstream().await;
    let waf = Waf::start(
        &format!("  upstream: {{default: 'http://{up}'}}\n"),
        &[("deny.yaml", DENY_RULE)],
    );
    let mut stream = TcpStream::connect(waf.addr).await.unwrap();
    stream
        .write_all(handshake("/chat?room=1").as_bytes())
        .await
        .unwrap();
    let head = read_head(&mut stream).await.to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 101"), "{head}");
    assert!(head.contains("upgrade: websocket"), "{head}");
    assert!(head.contains("connection: upgrade"), "{head}");
    for message in [&b"hello"[..], b"second message, after the first"] {
        stream.write_all(message).await.unwrap();
        let mut echoed = vec![0u8; message.len()];
        tokio::time::timeout(Duration::from_secs(5), stream.read_exact(&mut echoed))
            .await
            .expect("echo in time")
            .unwrap();
        assert_eq!(echoed, message.to_ascii_uppercase());
    }
    assert_eq!(*seen.lock().unwrap(), vec!["/chat?room=1".to_string()]);
}

#[tokio::test(flavor = "multi_thread")]
async fn attack_in_the_handshake_is_refused_before_the_upstream() {
    let (up, seen) = echo_upstream().await;
    let waf = Waf::start(
        &format!("  upstream: {{default: 'http://{up}'}}\n"),
        &[("deny.yaml", DENY_RULE)],
    );
    let mut stream = TcpStream::connect(waf.addr).await.unwrap();
    stream
        .write_all(handshake("/chat?room=attack-me").as_bytes())
        .await
        .unwrap();
    let head = read_head(&mut stream).await.to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 403"), "{head}");
    let length: usize = head
        .split("content-length: ")
        .nth(1)
        .and_then(|rest| rest.split("\r\n").next())
        .and_then(|n| n.parse().ok())
        .expect("a Content-Length");
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).await.unwrap();
    assert_eq!(json(&body)["rule_id"], 100001);
    assert!(
        seen.lock().unwrap().is_empty(),
        "the upstream saw the attack"
    );
}

/// A switched connection still counts against the connection limits while it relays: with one connection per
/// client address, a second from the same address is closed at accept until the relay ends.
#[tokio::test(flavor = "multi_thread")]
async fn a_relayed_connection_keeps_its_place_under_the_connection_limits() {
    let (up, _) = echo_upstream().await;
    let waf = Waf::start_with_server(
        "max_connections_per_client: 1",
        &format!("  upstream: {{default: 'http://{up}'}}\n"),
        &[],
    );
    let mut relayed = TcpStream::connect(waf.addr).await.unwrap();
    relayed
        .write_all(handshake("/chat").as_bytes())
        .await
        .unwrap();
    let head = read_head(&mut relayed).await.to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 101"), "{head}");
    // Past the hand-over from hyper to the relay.
    relayed.write_all(b"ping").await.unwrap();
    let mut echoed = [0u8; 4];
    relayed.read_exact(&mut echoed).await.unwrap();
    assert_eq!(&echoed, b"PING");

    let mut second = TcpStream::connect(waf.addr).await.unwrap();
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(2), second.read(&mut buf)).await;
    assert!(
        matches!(read, Ok(Ok(0) | Err(_))),
        "a second connection was admitted while the first relays: {read:?}"
    );

    drop(relayed);
    // Once the relay ends, the address has its place back.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (head, _) = get(waf.addr, "/").await;
    assert_eq!(head.status, 200);
}
