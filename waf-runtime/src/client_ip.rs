//! Who the client is: the peer address, unless the peer is a trusted proxy, in which case `X-Forwarded-For` says.
//!
//! `X-Forwarded-For` is a list anyone can write to. Only the entries appended by proxies we trust mean anything, so
//! the list is read from the right, skipping trusted proxies, and the first address that is not one of them is the
//! client. From an untrusted peer the header is ignored entirely (an earlier design believed it unconditionally,
//! which let anyone pick the address that IP lists and rate limits see).
use crate::cidr::Cidr;
use http::HeaderValue;
use std::net::IpAddr;

/// The address at the other end of a connection, with its text form for `X-Forwarded-For`: built once per
/// connection, because formatting an address is a visible share of a short request's cost.
#[derive(Clone)]
pub struct Peer {
    pub ip: IpAddr,
    pub header: HeaderValue,
    /// Whether the connection is HTTPS.
    pub tls: bool,
    /// Its TLS version (`1.3`), for the access log.
    pub tls_version: Option<&'static str>,
}

impl Peer {
    /// `tls_version`: the connection's TLS version, none for plain HTTP.
    pub fn new(ip: IpAddr, tls_version: Option<&'static str>) -> Peer {
        let ip = ip.to_canonical();
        let header = text_of(ip);
        Peer {
            ip,
            header,
            tls: tls_version.is_some(),
            tls_version,
        }
    }
}

/// `ip` in text form. An IPv4 address is written out by hand: through `Display` and the formatting machinery it
/// cost 3,000 instructions, a seventh of what accepting and serving a new connection costs in all
/// (`benches/instructions.sh` with `PER_CONNECTION=1`).
fn text_of(ip: IpAddr) -> HeaderValue {
    let IpAddr::V4(v4) = ip else {
        return HeaderValue::try_from(ip.to_string())
            .expect("an IP address in text form is a valid header value");
    };
    let mut text = [0u8; 15];
    let mut len = 0;
    for (i, octet) in v4.octets().into_iter().enumerate() {
        if i > 0 {
            text[len] = b'.';
            len += 1;
        }
        let digits = [octet / 100, octet / 10 % 10, octet % 10];
        let first = match octet {
            100.. => 0,
            10.. => 1,
            _ => 2,
        };
        for digit in &digits[first..] {
            text[len] = b'0' + digit;
            len += 1;
        }
    }
    HeaderValue::from_bytes(&text[..len]).expect("digits and dots are a valid header value")
}

/// The client address of a request from `peer`, whose `X-Forwarded-For` values (all header lines, in order) are
/// `forwarded_for`.
pub fn client_addr<'a>(
    peer: IpAddr,
    forwarded_for: impl DoubleEndedIterator<Item = &'a [u8]>,
    trusted: &[Cidr],
) -> IpAddr {
    let peer = peer.to_canonical();
    let is_trusted = |ip: IpAddr| trusted.iter().any(|c| c.contains(ip));
    if !is_trusted(peer) {
        return peer;
    }
    let mut client = peer;
    for line in forwarded_for.rev() {
        for entry in line.rsplit(|b| *b == b',') {
            let Some(ip) = parse_entry(entry) else {
                // Garbage in the chain: nothing left of it can be trusted; the last good hop is the answer.
                return client;
            };
            client = ip;
            if !is_trusted(ip) {
                return ip;
            }
        }
    }
    client
}

fn parse_entry(entry: &[u8]) -> Option<IpAddr> {
    let text = std::str::from_utf8(entry).ok()?.trim();
    text.parse::<IpAddr>().ok().map(|ip| ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(peer: &str, xff: &[&str], trusted: &[&str]) -> String {
        let trusted: Vec<Cidr> = trusted.iter().map(|c| c.parse().unwrap()).collect();
        client_addr(
            peer.parse().unwrap(),
            xff.iter().map(|s| s.as_bytes()),
            &trusted,
        )
        .to_string()
    }

    #[test]
    fn peer_text_is_the_address_as_displayed() {
        for ip in [
            "0.0.0.0",
            "1.2.3.4",
            "10.20.30.40",
            "100.99.9.255",
            "255.255.255.255",
            "::ffff:192.0.2.1",
            "2001:db8::1",
            "::1",
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(
                Peer::new(ip, None).header,
                ip.to_canonical().to_string(),
                "{ip}"
            );
        }
    }

    #[test]
    fn untrusted_peer_cannot_spoof() {
        assert_eq!(
            run("203.0.113.5", &["1.2.3.4"], &["10.0.0.0/8"]),
            "203.0.113.5"
        );
        assert_eq!(run("203.0.113.5", &["1.2.3.4"], &[]), "203.0.113.5");
    }

    #[test]
    fn trusted_chain_is_read_from_the_right() {
        let t = &["10.0.0.0/8", "2001:db8::/32"];
        assert_eq!(
            run("10.0.0.1", &["6.6.6.6, 198.51.100.7, 10.0.0.2"], t),
            "198.51.100.7"
        );
        assert_eq!(
            run("10.0.0.1", &["6.6.6.6", "198.51.100.7"], t),
            "198.51.100.7"
        );
        assert_eq!(
            run("2001:db8::1", &["2001:db8::2, 2001:db9::9"], t),
            "2001:db9::9"
        );
        assert_eq!(run("10.0.0.1", &[], t), "10.0.0.1");
        assert_eq!(run("10.0.0.1", &["10.0.0.3"], t), "10.0.0.3");
        assert_eq!(run("10.0.0.1", &["garbage, 10.0.0.3"], t), "10.0.0.3");
        assert_eq!(run("::ffff:10.0.0.1", &["192.0.2.1"], t), "192.0.2.1");
    }
}
