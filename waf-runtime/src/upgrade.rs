//! Connection upgrades (`Connection: upgrade` + `Upgrade: websocket`, or any other protocol) passed through to the
//! upstream.
//!
//! The handshake is an ordinary request: it is inspected like any other (an attack in its URI or headers gets
//! 403 and never reaches the upstream). Only when it passes is it forwarded with its `Connection`/`Upgrade`
//! headers kept; if the upstream answers `101 Switching Protocols`, that answer goes back to the client and from
//! then on the bytes are relayed both ways, uninspected (the rules describe HTTP requests, not WebSocket frames).
use crate::connection_limits::Admitted;
use http::{HeaderMap, HeaderValue, header};
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use std::sync::Arc;

/// The protocol a request asks to switch to: its `Upgrade` value when its `Connection` header lists `upgrade`.
pub fn requested(headers: &HeaderMap) -> Option<HeaderValue> {
    let upgrade = headers.get(header::UPGRADE)?;
    let listed = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|token| token.trim().eq_ignore_ascii_case("upgrade"));
    listed.then(|| upgrade.clone())
}

/// Puts back the two headers an upgrade needs, after the hop-by-hop headers were removed.
pub fn keep(headers: &mut HeaderMap, protocol: HeaderValue) {
    headers.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    headers.insert(header::UPGRADE, protocol);
}

/// Once both sides have switched, copies bytes between them until either closes. Runs on the current worker;
/// a relay ends with its connections, or when the worker stops after draining at shutdown. `admitted` keeps the
/// client connection counted against the connection limits (`connection_limits.rs`) while it relays.
pub fn relay(client: OnUpgrade, upstream: OnUpgrade, admitted: Option<Arc<Admitted>>) {
    tokio::spawn(async move {
        let _admitted = admitted;
        let (client, upstream) = match tokio::try_join!(client, upstream) {
            Ok(pair) => pair,
            Err(e) => {
                tracing::debug!("upgrade did not complete: {e}");
                return;
            }
        };
        let (mut client, mut upstream) = (TokioIo::new(client), TokioIo::new(upstream));
        if let Err(e) = tokio::io::copy_bidirectional(&mut client, &mut upstream).await {
            tracing::debug!("upgraded connection ended: {e}");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upgrade_needs_both_headers() {
        let mut h = HeaderMap::new();
        h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        assert!(requested(&h).is_none());
        h.insert(
            header::CONNECTION,
            HeaderValue::from_static("keep-alive, Upgrade"),
        );
        assert_eq!(requested(&h).unwrap(), "websocket");
        h.remove(header::UPGRADE);
        assert!(requested(&h).is_none());
    }
}
