//! The client's address, for throttling.
//!
//! `X-Forwarded-For` is written by whoever sends the request, so it is believed only when the connection comes from a
//! configured trusted proxy (`TRUSTED_PROXIES`); then the client is the right-most address that is not itself a
//! trusted proxy. Anyone else is keyed by the socket's peer address, so a client cannot dodge its limit by inventing
//! headers.

use std::net::IpAddr;

use axum::http::HeaderMap;

pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let mut chain: Vec<IpAddr> = Vec::new();
    for value in headers.get_all("x-forwarded-for") {
        let Ok(value) = value.to_str() else {
            return peer;
        };
        for hop in value.split(',') {
            match hop.trim().parse() {
                Ok(ip) => chain.push(ip),
                Err(_) => return peer,
            }
        }
    }
    chain
        .iter()
        .rev()
        .find(|ip| !trusted.contains(ip))
        .or(chain.first())
        .copied()
        .unwrap_or(peer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(xff: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", xff.parse().unwrap());
        h
    }

    #[test]
    fn believes_forwarded_for_only_from_trusted_proxies() {
        let proxy: IpAddr = "10.0.0.1".parse().unwrap();
        let peer: IpAddr = "192.0.2.9".parse().unwrap();
        let client: IpAddr = "198.51.100.7".parse().unwrap();
        assert_eq!(client_ip(peer, &headers("198.51.100.7"), &[proxy]), peer);
        assert_eq!(
            client_ip(proxy, &headers("203.0.113.1, 198.51.100.7"), &[proxy]),
            client
        );
        assert_eq!(
            client_ip(proxy, &headers("198.51.100.7, 10.0.0.1"), &[proxy]),
            client
        );
        assert_eq!(client_ip(proxy, &headers("garbage"), &[proxy]), proxy);
        assert_eq!(client_ip(proxy, &HeaderMap::new(), &[proxy]), proxy);
    }
}
