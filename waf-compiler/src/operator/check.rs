//! The operators that are not searches: comparisons of the whole value, numeric comparisons, and the encoding
//! and address checks of ModSecurity (`@streq`, `@within`, `@eq`, `@validateByteRange`, `@ipMatch`, ...).
//!
//! Each follows ModSecurity v3's behaviour, quirks included, since CRS rules are written against it: `@within`
//! is a substring test of the value in the pattern (an empty value is within anything), numbers are read as C's
//! `atoi` reads them (leading spaces, a sign, digits, and anything else ends the number; no digits is 0).

use crate::rule::OperatorKind;
use std::net::IpAddr;
use std::ops::Range;

/// A compiled check, ready to run on a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    EndsWith(Vec<u8>),
    Equals(Vec<u8>),
    Within(WithinList),
    ContainsWord(Vec<u8>),
    Number(Comparison, i64),
    Unconditional,
    /// `allowed[b]`: byte `b` is in one of the ranges.
    ByteRange(Box<[bool; 256]>),
    UrlEncoding,
    Utf8Encoding,
    IpMatch(Vec<Network>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Eq,
    Gt,
    Ge,
    Lt,
    Le,
}

/// Why a check's pattern cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error("`{value}` in byte range `{spec}` is not a byte (0-255)")]
    NotAByte { value: String, spec: String },
    #[error("byte range `{range}` in `{spec}` is empty")]
    EmptyByteRange { range: String, spec: String },
    #[error("`{0}` is not an IP address or CIDR range")]
    NotAnAddress(String),
    #[error("`{0}` has an invalid prefix length")]
    PrefixLength(String),
}

/// An address and how many of its leading bits must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    address: IpAddr,
    prefix: u8,
}

impl Check {
    /// The check of `kind` with argument `pattern`, or `None` when `kind` is not a check (a search operator).
    pub fn new(kind: OperatorKind, pattern: Option<&str>) -> Option<Result<Check, CheckError>> {
        let text = || pattern.unwrap_or_default();
        let bytes = || text().as_bytes().to_vec();
        let number = |comparison| Ok(Check::Number(comparison, atoi(text().as_bytes())));
        Some(match kind {
            OperatorKind::EndsWith => Ok(Check::EndsWith(bytes())),
            OperatorKind::Equals => Ok(Check::Equals(bytes())),
            OperatorKind::Within => Ok(Check::Within(WithinList::new(bytes()))),
            OperatorKind::ContainsWord => Ok(Check::ContainsWord(bytes())),
            OperatorKind::Eq => number(Comparison::Eq),
            OperatorKind::Gt => number(Comparison::Gt),
            OperatorKind::Ge => number(Comparison::Ge),
            OperatorKind::Lt => number(Comparison::Lt),
            OperatorKind::Le => number(Comparison::Le),
            OperatorKind::Unconditional => Ok(Check::Unconditional),
            OperatorKind::ValidateByteRange => byte_ranges(text()).map(Check::ByteRange),
            OperatorKind::ValidateUrlEncoding => Ok(Check::UrlEncoding),
            OperatorKind::ValidateUtf8Encoding => Ok(Check::Utf8Encoding),
            OperatorKind::IpMatch => networks(text()).map(Check::IpMatch),
            OperatorKind::Regex
            | OperatorKind::Contains
            | OperatorKind::StartsWith
            | OperatorKind::DetectorSqli
            | OperatorKind::DetectorXss
            | OperatorKind::Pm
            | OperatorKind::AnomalyThreshold
            | OperatorKind::AnomalyReport => return None,
        })
    }

    /// Where in `value` the check matched (the whole value for the comparisons), or `None`.
    pub fn find(&self, value: &[u8]) -> Option<Range<usize>> {
        let whole = 0..value.len();
        let hit = match self {
            Check::EndsWith(suffix) => value.ends_with(suffix),
            Check::Equals(expected) => value == expected.as_slice(),
            Check::Within(list) => list.contains(value),
            Check::ContainsWord(word) => return contains_word(value, word),
            Check::Number(comparison, right) => {
                let left = atoi(value);
                match comparison {
                    Comparison::Eq => left == *right,
                    Comparison::Gt => left > *right,
                    Comparison::Ge => left >= *right,
                    Comparison::Lt => left < *right,
                    Comparison::Le => left <= *right,
                }
            }
            Check::Unconditional => true,
            Check::ByteRange(allowed) => {
                let at = value.iter().position(|&b| !allowed[usize::from(b)])?;
                return Some(at..at + 1);
            }
            Check::UrlEncoding => return invalid_url_encoding(value),
            Check::Utf8Encoding => {
                let error = std::str::from_utf8(value).err()?;
                let at = error.valid_up_to();
                return Some(at..value.len().min(at + error.error_len().unwrap_or(1)));
            }
            Check::IpMatch(networks) => std::str::from_utf8(value)
                .ok()
                .and_then(|text| text.trim().parse::<IpAddr>().ok())
                .is_some_and(|ip| networks.iter().any(|n| n.contains(ip))),
        };
        hit.then_some(whole)
    }
}

/// C's `atoi`, saturating instead of overflowing: the count of a huge collection or a long digit string never
/// panics.
pub fn atoi(bytes: &[u8]) -> i64 {
    let rest = bytes.trim_ascii_start();
    let (negative, digits) = match rest.first() {
        Some(b'-') => (true, &rest[1..]),
        Some(b'+') => (false, &rest[1..]),
        _ => (false, rest),
    };
    let magnitude = digits
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .fold(0i64, |n, &d| {
            n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
    if negative { -magnitude } else { magnitude }
}

/// The list of a `within` operator, where the values are the needles: every value is a new needle, and
/// building a substring searcher for each (what `memmem::find` does) cost more than the search. The list is
/// indexed by byte instead, once: a value is compared only where its byte that is rarest in the list occurs
/// (in CRS lists such as `/content-encoding/ /proxy/ ...`, not at every delimiter). At most one comparison
/// per position of the list: the work is bounded by the list's length times the value's, and the list is the
/// operator's pattern, never request data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WithinList {
    list: Vec<u8>,
    /// `at[starts[b]..starts[b + 1]]`: the positions of byte `b` in `list`, in order.
    starts: Box<[u32; 257]>,
    at: Vec<u32>,
}

impl WithinList {
    pub fn new(list: Vec<u8>) -> WithinList {
        let mut starts = Box::new([0u32; 257]);
        for &b in &list {
            starts[usize::from(b) + 1] += 1;
        }
        for b in 0..256 {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut at = vec![0u32; list.len()];
        for (i, &b) in list.iter().enumerate() {
            let slot = &mut next[usize::from(b)];
            // Lists are settings of a few kilobytes: positions fit a `u32`.
            at[*slot as usize] = i as u32;
            *slot += 1;
        }
        WithinList { list, starts, at }
    }

    /// Whether `value` occurs in the list (an empty value is within every list, as in ModSecurity).
    pub fn contains(&self, value: &[u8]) -> bool {
        let positions = |b: u8| {
            let b = usize::from(b);
            &self.at[self.starts[b] as usize..self.starts[b + 1] as usize]
        };
        let Some((offset, rarest)) = value
            .iter()
            .enumerate()
            .min_by_key(|&(_, &b)| positions(b).len())
        else {
            return true;
        };
        positions(*rarest).iter().any(|&p| {
            (p as usize)
                .checked_sub(offset)
                .and_then(|start| self.list.get(start..start + value.len()))
                == Some(value)
        })
    }
}

/// `word` in `value` with no ASCII letter on either side (an empty word is everywhere). As in ModSecurity v3,
/// only letters bind: a digit or `_` beside the word is a boundary (`select1` holds the word `select`), which
/// finds more than a letter-digit-underscore rule would. Occurrences may overlap (`-1-` is a word of
/// `x-1-1-` at 3), since ModSecurity resumes its search one byte after each occurrence.
fn contains_word(value: &[u8], word: &[u8]) -> Option<Range<usize>> {
    if word.is_empty() {
        return Some(0..0);
    }
    let letter = |i: Option<usize>| {
        i.and_then(|i| value.get(i))
            .is_some_and(u8::is_ascii_alphabetic)
    };
    let finder = memchr::memmem::Finder::new(word);
    let mut from = 0;
    while let Some(offset) = value.get(from..).and_then(|rest| finder.find(rest)) {
        let at = from + offset;
        let end = at + word.len();
        if !letter(at.checked_sub(1)) && !letter(Some(end)) {
            return Some(at..end);
        }
        from = at + 1;
    }
    None
}

/// The first `%` not followed by two hex digits.
fn invalid_url_encoding(value: &[u8]) -> Option<Range<usize>> {
    let mut i = 0;
    while let Some(offset) = memchr::memchr(b'%', &value[i..]) {
        let at = i + offset;
        let valid = value
            .get(at + 1..at + 3)
            .is_some_and(|pair| pair.iter().all(u8::is_ascii_hexdigit));
        if !valid {
            return Some(at..value.len().min(at + 3));
        }
        i = at + 3;
    }
    None
}

/// `@validateByteRange`'s argument: comma-separated bytes and ranges, `9,10,13,32-126`.
fn byte_ranges(spec: &str) -> Result<Box<[bool; 256]>, CheckError> {
    let mut allowed = Box::new([false; 256]);
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let byte = |s: &str| {
            s.trim().parse::<u8>().map_err(|_| CheckError::NotAByte {
                value: s.to_owned(),
                spec: spec.to_owned(),
            })
        };
        let (low, high) = match part.split_once('-') {
            Some((low, high)) => (byte(low)?, byte(high)?),
            None => (byte(part)?, byte(part)?),
        };
        if low > high {
            return Err(CheckError::EmptyByteRange {
                range: part.to_owned(),
                spec: spec.to_owned(),
            });
        }
        for b in low..=high {
            allowed[usize::from(b)] = true;
        }
    }
    Ok(allowed)
}

/// `@ipMatch`'s argument: comma-separated addresses and CIDR ranges.
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
    use super::*;

    fn check(kind: OperatorKind, pattern: &str) -> Check {
        Check::new(kind, Some(pattern)).unwrap().unwrap()
    }

    #[test]
    fn comparisons_follow_modsecurity() {
        use OperatorKind::*;
        assert!(check(Within, "GET HEAD POST").find(b"HEAD").is_some());
        assert!(check(Within, "GET HEAD POST").find(b"PUT").is_none());
        assert!(check(Within, "GET").find(b"").is_some());
        // At the list's end, longer than the list, and in a list long enough for the searcher.
        assert!(check(Within, "GET HEAD POST").find(b"POST").is_some());
        assert!(check(Within, "GET").find(b"GETS").is_none());
        let long = format!("{} /proxy/", "/x/ ".repeat(100));
        assert!(check(Within, &long).find(b"/proxy/").is_some());
        assert!(check(Within, &long).find(b"/proxy/x").is_none());
        assert!(check(EndsWith, ".php").find(b"/a/b.php").is_some());
        assert!(check(Equals, "abc").find(b"abcd").is_none());
        assert_eq!(check(ContainsWord, "cat").find(b"concat cat;"), Some(7..10));
        assert!(check(ContainsWord, "cat").find(b"concatenate").is_none());
        // ModSecurity v3's boundaries: only letters bind, and occurrences overlap.
        assert_eq!(check(ContainsWord, "cat").find(b"cat1 cat_"), Some(0..3));
        assert_eq!(check(ContainsWord, "cat").find(b"_cat"), Some(1..4));
        assert!(check(ContainsWord, "cat").find(b"cats").is_none());
        assert_eq!(check(ContainsWord, "1").find(b"2019"), Some(2..3));
        assert_eq!(check(ContainsWord, "-1-").find(b"x-1-1-"), Some(3..6));
        assert_eq!(check(ContainsWord, "").find(b""), Some(0..0));
        assert!(check(Eq, "0").find(b"").is_some());
        assert!(check(Gt, "255").find(b" 300x").is_some());
        assert!(check(Lt, "-1").find(b"-2").is_some());
        assert_eq!(atoi(&[b'9'; 100]), i64::MAX);
    }

    #[test]
    fn encoding_and_range_checks() {
        use OperatorKind::*;
        let range = check(ValidateByteRange, "9,10,13,32-126");
        assert!(range.find(b"plain text\r\n").is_none());
        assert_eq!(range.find(b"a\x01b"), Some(1..2));
        assert!(
            Check::new(ValidateByteRange, Some("1-300"))
                .unwrap()
                .is_err()
        );
        let url = check(ValidateUrlEncoding, "");
        assert!(url.find(b"a%20b%2f").is_none());
        assert!(url.find(b"a%2").is_some());
        assert!(url.find(b"%zz").is_some());
        let utf8 = check(ValidateUtf8Encoding, "");
        assert!(utf8.find("é".as_bytes()).is_none());
        assert!(utf8.find(b"\xc0\xaf").is_some());
    }

    #[test]
    fn ip_match() {
        let ips = check(OperatorKind::IpMatch, "127.0.0.1,10.0.0.0/8, ::1,fe80::/10");
        for hit in ["127.0.0.1", "10.200.3.4", "::1", "fe80::1"] {
            assert!(ips.find(hit.as_bytes()).is_some(), "{hit}");
        }
        for miss in ["127.0.0.2", "11.0.0.1", "::2", "not an ip"] {
            assert!(ips.find(miss.as_bytes()).is_none(), "{miss}");
        }
        assert!(
            check(OperatorKind::IpMatch, "0.0.0.0/0")
                .find(b"8.8.8.8")
                .is_some()
        );
        assert!(
            Check::new(OperatorKind::IpMatch, Some("1.2.3.4/33"))
                .unwrap()
                .is_err()
        );
    }
}
