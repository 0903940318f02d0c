//! Header hygiene on the way to the upstream and back.
//!
//! Hop-by-hop headers describe one connection and must not be forwarded (RFC 9110 §7.6.1), including any header a
//! `Connection` header names. The forwarding headers are rebuilt by us: a client that is not a trusted proxy cannot
//! pre-fill `X-Forwarded-For`, `X-Forwarded-Proto`, `X-Forwarded-Host` or `Forwarded`, because the upstream would
//! believe them.
use crate::client_ip::Peer;
use http::{HeaderMap, HeaderName, HeaderValue, header};

static X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
static X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");
static X_FORWARDED_HOST: HeaderName = HeaderName::from_static("x-forwarded-host");
static KEEP_ALIVE: HeaderName = HeaderName::from_static("keep-alive");
/// Not standard, but widely sent.
static PROXY_CONNECTION: HeaderName = HeaderName::from_static("proxy-connection");

/// Whether a header only ever describes a single connection.
fn is_hop_by_hop(name: &HeaderName) -> bool {
    // Comparisons of header names, not strings: a standard name is an enum tag, so most cost nothing.
    name == header::CONNECTION
        || name == header::TE
        || name == header::TRAILER
        || name == header::TRANSFER_ENCODING
        || name == header::UPGRADE
        || name == header::PROXY_AUTHENTICATE
        || name == header::PROXY_AUTHORIZATION
        || name == KEEP_ALIVE
        || name == PROXY_CONNECTION
}

/// Removes hop-by-hop headers, and the headers the `Connection` header lists.
///
/// One pass over the names present finds what to remove, so the usual request, which has none, costs one look at
/// each of its headers and allocates nothing; the map is edited in place, never rebuilt.
pub fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let mut doomed: Vec<HeaderName> = headers
        .keys()
        .filter(|n| is_hop_by_hop(n))
        .cloned()
        .collect();
    if doomed.is_empty() {
        return;
    }
    if doomed.contains(&header::CONNECTION) {
        let listed = headers
            .get_all(header::CONNECTION)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok());
        doomed.extend(listed);
    }
    for name in doomed {
        headers.remove(name);
    }
}

/// Sets the forwarding headers for a request from `peer`. `trusted_peer` says whether the peer is a configured
/// trusted proxy, whose own forwarding headers are kept and extended; from anyone else they are replaced.
pub fn set_forwarded(headers: &mut HeaderMap, peer: &Peer, trusted_peer: bool, host: Option<&str>) {
    let previous: Vec<&str> = if trusted_peer {
        headers
            .get_all(&X_FORWARDED_FOR)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect()
    } else {
        headers.remove(header::FORWARDED);
        headers.remove(&X_FORWARDED_PROTO);
        headers.remove(&X_FORWARDED_HOST);
        Vec::new()
    };
    let chain = if previous.is_empty() {
        Some(peer.header.clone())
    } else {
        let peer = peer.header.to_str().unwrap_or_default();
        HeaderValue::from_str(&format!("{}, {peer}", previous.join(", "))).ok()
    };
    if let Some(value) = chain {
        headers.insert(X_FORWARDED_FOR.clone(), value);
    }
    if !headers.contains_key(&X_FORWARDED_PROTO) {
        let proto = if peer.tls { "https" } else { "http" };
        headers.insert(X_FORWARDED_PROTO.clone(), HeaderValue::from_static(proto));
    }
    if !headers.contains_key(&X_FORWARDED_HOST)
        && let Some(value) = host.and_then(|h| HeaderValue::from_str(h).ok())
    {
        headers.insert(X_FORWARDED_HOST.clone(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    #[test]
    fn strips_hop_by_hop_and_connection_listed() {
        let mut h = map(&[
            ("connection", "keep-alive, x-secret"),
            ("keep-alive", "timeout=5"),
            ("x-secret", "1"),
            ("transfer-encoding", "chunked"),
            ("upgrade", "websocket"),
            ("accept", "*/*"),
        ]);
        strip_hop_by_hop(&mut h);
        assert_eq!(h.len(), 1);
        assert!(h.contains_key("accept"));
    }

    #[test]
    fn untrusted_forwarding_headers_are_replaced() {
        let mut h = map(&[
            ("x-forwarded-for", "1.2.3.4"),
            ("x-forwarded-proto", "https"),
            ("forwarded", "for=1.2.3.4"),
        ]);
        let peer = Peer::new("203.0.113.9".parse().unwrap(), None);
        set_forwarded(&mut h, &peer, false, Some("app.test"));
        assert_eq!(h["x-forwarded-for"], "203.0.113.9");
        assert_eq!(h["x-forwarded-proto"], "http");
        assert_eq!(h["x-forwarded-host"], "app.test");
        assert!(!h.contains_key("forwarded"));
    }

    #[test]
    fn trusted_chain_is_appended() {
        let mut h = map(&[
            ("x-forwarded-for", "1.2.3.4"),
            ("x-forwarded-for", "5.6.7.8"),
            ("x-forwarded-proto", "https"),
        ]);
        let peer = Peer::new("10.0.0.1".parse().unwrap(), Some("1.3"));
        set_forwarded(&mut h, &peer, true, Some("app.test"));
        assert_eq!(h["x-forwarded-for"], "1.2.3.4, 5.6.7.8, 10.0.0.1");
        assert_eq!(h["x-forwarded-proto"], "https");
    }
}
