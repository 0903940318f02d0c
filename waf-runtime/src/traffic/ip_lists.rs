//! IP allow and deny lists as sorted, merged address ranges: a lookup is a binary search, so a list of 100,000
//! blocks costs a handful of comparisons more than a list of 10 (`benches/ip_lists.rs`), never a scan.
//!
//! IPv4 and IPv6 share one 128-bit space: an IPv4 address is placed where its IPv4-mapped IPv6 form
//! (`::ffff:a.b.c.d`) lives, the same canonical form `client_ip.rs` gives the client address, so a v4 block
//! never matches a v6 address by accident and `::ffff:10.0.0.1` is `10.0.0.1`.
use crate::cidr::{Cidr, CidrError};
use std::net::IpAddr;
use std::path::Path;

/// A set of addresses: inclusive ranges `(first, last)`, sorted, not overlapping, not adjacent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IpSet {
    ranges: Vec<(u128, u128)>,
}

/// An address as a point of the shared 128-bit space.
pub fn point(ip: IpAddr) -> u128 {
    match ip.to_canonical() {
        IpAddr::V4(v4) => u128::from(v4.to_ipv6_mapped()),
        IpAddr::V6(v6) => u128::from(v6),
    }
}

fn range(cidr: &Cidr) -> (u128, u128) {
    let (network, prefix) = cidr.parts();
    // An IPv4 block's prefix counts from the 96 bits of the mapped form's fixed part.
    let prefix = if network.is_ipv4() {
        u32::from(prefix) + 96
    } else {
        u32::from(prefix)
    };
    let first = point(network);
    let host_bits = 128 - prefix;
    let mask = if host_bits == 128 {
        u128::MAX
    } else {
        (1u128 << host_bits) - 1
    };
    (first & !mask, first | mask)
}

impl IpSet {
    pub fn new<'a>(cidrs: impl IntoIterator<Item = &'a Cidr>) -> IpSet {
        let mut ranges: Vec<(u128, u128)> = cidrs.into_iter().map(range).collect();
        ranges.sort_unstable();
        let mut merged: Vec<(u128, u128)> = Vec::with_capacity(ranges.len());
        for (first, last) in ranges {
            match merged.last_mut() {
                Some(prev) if first <= prev.1.saturating_add(1) => prev.1 = prev.1.max(last),
                _ => merged.push((first, last)),
            }
        }
        merged.shrink_to_fit();
        IpSet { ranges: merged }
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let p = point(ip);
        // The last range starting at or before `p` is the only one that can hold it.
        let after = self.ranges.partition_point(|&(first, _)| first <= p);
        after > 0 && self.ranges[after - 1].1 >= p
    }
}

/// Why a list file was refused: the file and line, and what is wrong there.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    #[error("cannot read IP list {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {source}")]
    Entry {
        path: String,
        line: usize,
        source: CidrError,
    },
}

/// Reads a list file: one address or CIDR block per line; `#` starts a comment; blank lines are ignored.
pub fn read_file(path: &Path) -> Result<Vec<Cidr>, ListError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ListError::Read {
        path: shown.clone(),
        source,
    })?;
    parse(&text, &shown)
}

fn parse(text: &str, shown: &str) -> Result<Vec<Cidr>, ListError> {
    let mut cidrs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let entry = line.split('#').next().unwrap_or("").trim();
        if entry.is_empty() {
            continue;
        }
        let cidr = entry.parse::<Cidr>().map_err(|source| ListError::Entry {
            path: shown.to_string(),
            line: i + 1,
            source,
        })?;
        cidrs.push(cidr);
    }
    Ok(cidrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(entries: &[&str]) -> IpSet {
        let cidrs: Vec<Cidr> = entries.iter().map(|e| e.parse().unwrap()).collect();
        IpSet::new(&cidrs)
    }

    fn has(s: &IpSet, ip: &str) -> bool {
        s.contains(ip.parse().unwrap())
    }

    #[test]
    fn v4_and_v6_blocks_and_single_addresses() {
        let s = set(&["10.0.0.0/8", "192.0.2.7", "2001:db8::/32", "::1"]);
        assert!(has(&s, "10.0.0.0") && has(&s, "10.255.255.255"));
        assert!(!has(&s, "9.255.255.255") && !has(&s, "11.0.0.0"));
        assert!(has(&s, "192.0.2.7") && !has(&s, "192.0.2.8") && !has(&s, "192.0.2.6"));
        assert!(has(&s, "2001:db8:ffff::1") && !has(&s, "2001:db9::"));
        assert!(has(&s, "::1") && !has(&s, "::2"));
        assert!(
            has(&s, "::ffff:10.1.2.3"),
            "a mapped peer is its IPv4 address"
        );
        assert!(
            !has(&s, "::a00:1"),
            "an IPv4-compatible v6 address is not 10.0.0.1"
        );
        assert!(!has(&set(&[]), "10.0.0.1"));
    }

    #[test]
    fn whole_spaces_and_overlaps_merge() {
        let all_v4 = set(&["0.0.0.0/0"]);
        assert!(has(&all_v4, "255.255.255.255") && has(&all_v4, "0.0.0.0"));
        assert!(!has(&all_v4, "2001:db8::1"));
        let all = set(&["::/0"]);
        assert!(has(&all, "2001:db8::1") && has(&all, "1.2.3.4"));
        let s = set(&["10.0.0.0/9", "10.128.0.0/9", "10.1.0.0/16", "10.0.0.5"]);
        assert_eq!(s.ranges.len(), 1);
        assert!(has(&s, "10.200.0.1"));
    }

    #[test]
    fn a_file_with_comments_and_an_error_names_its_line() {
        let ok = parse("# header\n10.0.0.0/8  # office\n\n2001:db8::/32\n", "l.txt").unwrap();
        assert_eq!(ok.len(), 2);
        let e = parse("10.0.0.0/8\n\n10.0.0.0/33\n", "l.txt").unwrap_err();
        assert!(e.to_string().starts_with("l.txt:3: "), "{e}");
    }
}
