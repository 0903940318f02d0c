//! `validate_url_encoding` (ModSecurity's `@validateUrlEncoding`): the value has a `%` not followed by two hex
//! digits. It takes no pattern.

use super::condition::ConditionOp;
use super::{Build, Check, Operator, OperatorError};
use std::ops::Range;

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["validateUrlEncoding"],
    takes_pattern: false,
    compares_settings: false,
    build: Build::Check(|_| Ok(Check::UrlEncoding)),
    condition: Some(|pattern, _, _| match pattern.is_empty() {
        true => Ok(ConditionOp::Check(Check::UrlEncoding)),
        false => Err(OperatorError::ConditionTakesNoPattern),
    }),
};

/// The first `%` not followed by two hex digits.
pub(super) fn find(value: &[u8]) -> Option<Range<usize>> {
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

#[cfg(test)]
mod tests {
    #[test]
    fn finds_a_bad_escape() {
        assert!(super::find(b"a%20b%2f").is_none());
        assert_eq!(super::find(b"a%2"), Some(1..3));
        assert_eq!(super::find(b"%zz"), Some(0..3));
    }
}
