//! `ip_match` (ModSecurity's `@ipMatch`): the value is an IP address in one of the pattern's comma-separated
//! addresses or CIDR ranges.

use super::check::CheckError;
use super::{Build, Check, Operator};
use std::net::IpAddr;

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["ipMatch"],
    takes_pattern: true,
    compares_settings: false,
    build: Build::Check(|pattern| networks(pattern).map(Check::IpMatch)),
    condition: None,
};

/// An address and how many of its leading bits must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    address: IpAddr,
    prefix: u8,
}

/// Whether `value` is an address (spaces around it allowed) in one of `networks`.
pub(super) fn holds(networks: &[Network], value: &[u8]) -> bool {
    std::str::from_utf8(value)
        .ok()
        .and_then(|text| text.trim().parse::<IpAddr>().ok())
        .is_some_and(|ip| networks.iter().any(|n| n.contains(ip)))
}

/// The pattern: comma-separated addresses and CIDR ranges.
fn networks(spec: &str) -> Result<Vec<Network>, CheckError> {
    spec.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|part| {
            let (address, prefix) = part.split_once('/').unwrap_or((part, ""));
            let address: IpAddr = address
                .parse()
                .map_err(|_| CheckError::NotAnAddress(part.to_owned()))?;
            let max = if address.is_ipv4() { 32 } else { 128 };
            let prefix = match prefix {
                "" => max,
                bits => bits
                    .parse::<u8>()
                    .ok()
                    .filter(|b| *b <= max)
                    .ok_or_else(|| CheckError::PrefixLength(part.to_owned()))?,
            };
            Ok(Network { address, prefix })
        })
        .collect()
}

impl Network {
    fn contains(&self, ip: IpAddr) -> bool {
        let (network, candidate, bits): (u128, u128, u32) = match (self.address, ip) {
            (IpAddr::V4(n), IpAddr::V4(c)) => (u32::from(n).into(), u32::from(c).into(), 32),
            (IpAddr::V6(n), IpAddr::V6(c)) => (n.into(), c.into(), 128),
            _ => return false,
        };
        let ignored = bits - u32::from(self.prefix);
        // A prefix of 0 ignores every bit; `checked_shr` is `None` for a shift of the full width.
        let mask = u128::MAX.checked_shl(ignored).unwrap_or(0);
        (network ^ candidate) & mask & (u128::MAX >> (128 - bits)) == 0
    }
}

#[cfg(test)]
mod tests {
    use crate::operator::check::Check;
    use crate::rule::OperatorKind;

    fn check(pattern: &str) -> Check {
        Check::new(OperatorKind::IpMatch, Some(pattern))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn addresses_and_ranges() {
        let ips = check("127.0.0.1,10.0.0.0/8, ::1,fe80::/10");
        for hit in ["127.0.0.1", "10.200.3.4", "::1", "fe80::1"] {
            assert!(ips.find(hit.as_bytes()).is_some(), "{hit}");
        }
        for miss in ["127.0.0.2", "11.0.0.1", "::2", "not an ip"] {
            assert!(ips.find(miss.as_bytes()).is_none(), "{miss}");
        }
        assert!(check("0.0.0.0/0").find(b"8.8.8.8").is_some());
        assert!(
            Check::new(OperatorKind::IpMatch, Some("1.2.3.4/33"))
                .unwrap()
                .is_err()
        );
    }
}
