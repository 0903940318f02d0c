//! The list of SQLi fingerprints: token-class sequences seen in real attacks.
//!
//! The list is libinjection's own (`sqli_fingerprints.txt`, BSD-3-Clause, with its licence
//! beside it): a fingerprint is only meaningful against the list it was made for.

use std::sync::LazyLock;

use super::sqli::MAX_TOKENS;

static LIST: &str = include_str!("sqli_fingerprints.txt");

/// The fingerprints, upper-cased (libinjection compares them case-insensitively, so `t` and `T`
/// are the same entry), zero-padded, packed into integers and sorted for binary search (an
/// integer comparison per step instead of a byte-string one).
static FINGERPRINTS: LazyLock<Vec<u64>> = LazyLock::new(|| {
    let mut list: Vec<u64> = LIST
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| packed_upper(line.as_bytes()))
        .collect();
    list.sort_unstable();
    list.dedup();
    list
});

fn packed_upper(fp: &[u8]) -> Option<u64> {
    if fp.len() > MAX_TOKENS {
        return None;
    }
    let mut key = [0u8; 8];
    key[..fp.len()].copy_from_slice(fp);
    key.make_ascii_uppercase();
    Some(u64::from_le_bytes(key))
}

/// Whether `fp` is a known attack fingerprint.
pub fn is_known_fingerprint(fp: &[u8]) -> bool {
    packed_upper(fp).is_some_and(|key| FINGERPRINTS.binary_search(&key).is_ok())
}
