//! The compiled form of the operators that are not searches: comparisons of the whole value, numeric
//! comparisons, and the encoding and address checks of ModSecurity (`@streq`, `@within`, `@eq`,
//! `@validateByteRange`, `@ipMatch`, ...). Each is built and run by its operator's file; setting conditions
//! (`when:`) use these too.
//!
//! Each follows ModSecurity v3's behaviour, quirks included, since CRS rules are written against it.

use super::ip_match::Network;
use super::number::{Comparison, atoi};
use super::within::WithinList;
use super::{
    Build, contains_word, ends_with, equals, ip_match, validate_byte_range, validate_url_encoding,
    validate_utf8_encoding,
};
use crate::rule::OperatorKind;
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

impl Check {
    /// The check of `kind` with argument `pattern`, or `None` when `kind` is not a check (a search operator).
    pub fn new(kind: OperatorKind, pattern: Option<&str>) -> Option<Result<Check, CheckError>> {
        match kind.operator().build {
            Build::Check(build) => Some(build(pattern.unwrap_or_default())),
            Build::Search(_) | Build::None => None,
        }
    }

    /// Where in `value` the check matched (the whole value for the comparisons), or `None`.
    pub fn find(&self, value: &[u8]) -> Option<Range<usize>> {
        let hit = match self {
            Check::EndsWith(suffix) => ends_with::holds(value, suffix),
            Check::Equals(expected) => equals::holds(value, expected),
            Check::Within(list) => list.contains(value),
            Check::ContainsWord(word) => return contains_word::find(value, word),
            Check::Number(comparison, right) => comparison.holds(atoi(value), *right),
            Check::Unconditional => true,
            Check::ByteRange(allowed) => return validate_byte_range::find(allowed, value),
            Check::UrlEncoding => return validate_url_encoding::find(value),
            Check::Utf8Encoding => return validate_utf8_encoding::find(value),
            Check::IpMatch(networks) => ip_match::holds(networks, value),
        };
        hit.then_some(0..value.len())
    }
}
