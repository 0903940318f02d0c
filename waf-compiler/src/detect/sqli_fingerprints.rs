//! The list of SQLi fingerprints: token-class sequences seen in real attacks.
//!
//! The list is libinjection's own (`sqli_fingerprints.txt`, BSD-3-Clause, with its licence
//! beside it): a fingerprint is only meaningful against the list it was made for.

use std::sync::LazyLock;

use super::sqli::MAX_TOKENS;

static LIST: &str = include_str!("sqli_fingerprints.txt");

/// The fingerprints, upper-cased (libinjection compares them case-insensitively, so `t` and `T`
/// are the same entry), zero-padded and sorted for binary search.
static FINGERPRINTS: LazyLock<Vec<[u8; MAX_TOKENS]>> = LazyLock::new(|| {
    let mut list: Vec<[u8; MAX_TOKENS]> = LIST
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| padded_upper(line.as_bytes()))
        .collect();
    list.sort_unstable();
    list.dedup();
    list
});

fn padded_upper(fp: &[u8]) -> Option<[u8; MAX_TOKENS]> {
    if fp.len() > MAX_TOKENS {
        return None;
    }
    let mut key = [0u8; MAX_TOKENS];
    key[..fp.len()].copy_from_slice(fp);
    key.make_ascii_uppercase();
    Some(key)
}

/// Whether `fp` is a known attack fingerprint.
pub fn is_known_fingerprint(fp: &[u8]) -> bool {
    padded_upper(fp).is_some_and(|key| FINGERPRINTS.binary_search(&key).is_ok())
}
