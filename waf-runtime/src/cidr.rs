//! CIDR blocks matched on parsed addresses.
//!
//! An earlier design compared IPv6 blocks as strings, so `2001:db8::1` and `2001:0db8::1` were different
//! addresses. Here both sides are parsed and compared as integers; IPv4-mapped IPv6 peers (`::ffff:10.0.0.1`, what
//! a dual-stack socket reports) are treated as the IPv4 address they carry.
use serde::Serialize;
use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// An address block: `10.0.0.0/8`, `2001:db8::/32`, or a single address (`192.0.2.7`, meaning `/32` or `/128`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// The address as written (host bits not cleared) and the prefix length.
    pub fn parts(&self) -> (IpAddr, u8) {
        (self.network, self.prefix)
    }

    pub fn contains(&self, addr: IpAddr) -> bool {
        match (self.network, addr.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(a)) => {
                masked(u32::from(net).into(), self.prefix, 32)
                    == masked(u32::from(a).into(), self.prefix, 32)
            }
            (IpAddr::V6(net), IpAddr::V6(a)) => {
                masked(u128::from(net), self.prefix, 128) == masked(u128::from(a), self.prefix, 128)
            }
            _ => false,
        }
    }
}

/// Keeps the top `prefix` bits of a `width`-bit address.
fn masked(addr: u128, prefix: u8, width: u32) -> u128 {
    if prefix == 0 {
        return 0;
    }
    let host_bits = width - u32::from(prefix);
    (addr >> host_bits) << host_bits
}

/// Why a text is not an address or CIDR block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CidrError {
    #[error("{0:?} is not an IP address or CIDR block")]
    NotAnAddress(String),
    #[error("{text:?}: prefix length must be 0 to {width}")]
    PrefixLength { text: String, width: u8 },
}

impl FromStr for Cidr {
    type Err = CidrError;

    fn from_str(s: &str) -> Result<Self, CidrError> {
        let (addr, prefix) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let network = addr
            .trim()
            .parse::<IpAddr>()
            .map_err(|_| CidrError::NotAnAddress(s.to_string()))?
            .to_canonical();
        let width = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => width,
            Some(p) => p
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= width)
                .ok_or_else(|| CidrError::PrefixLength {
                    text: s.to_string(),
                    width,
                })?,
        };
        Ok(Cidr { network, prefix })
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

impl Serialize for Cidr {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(cidr: &str, addr: &str) -> bool {
        cidr.parse::<Cidr>()
            .unwrap()
            .contains(addr.parse().unwrap())
    }

    #[test]
    fn v4_and_v6_blocks() {
        assert!(has("10.0.0.0/8", "10.255.1.2"));
        assert!(!has("10.0.0.0/8", "11.0.0.1"));
        assert!(has("192.0.2.7", "192.0.2.7"));
        assert!(!has("192.0.2.7", "192.0.2.8"));
        assert!(has("0.0.0.0/0", "203.0.113.9"));
        assert!(has("2001:db8::/32", "2001:0db8:0:0::1"));
        assert!(!has("2001:db8::/32", "2001:db9::1"));
        assert!(has("::/0", "::1"));
        assert!(!has("10.0.0.0/8", "::1"));
    }

    #[test]
    fn mapped_v4_peer_matches_a_v4_block() {
        assert!(has("127.0.0.0/8", "::ffff:127.0.0.1"));
    }

    #[test]
    fn bad_blocks_are_refused() {
        for s in ["10.0.0.0/33", "::/129", "nope", "10.0.0.0/x", "10.0.0/8"] {
            assert!(s.parse::<Cidr>().is_err(), "{s}");
        }
    }
}
