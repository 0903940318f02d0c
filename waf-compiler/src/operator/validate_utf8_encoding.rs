//! `validate_utf8_encoding` (ModSecurity's `@validateUtf8Encoding`): the value is not valid UTF-8. It takes
//! no pattern.

use super::condition::ConditionOp;
use super::{Build, Check, Operator, OperatorError};
use std::ops::Range;

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["validateUtf8Encoding"],
    takes_pattern: false,
    compares_settings: false,
    build: Build::Check(|_| Ok(Check::Utf8Encoding)),
    condition: Some(|pattern, _, _| match pattern.is_empty() {
        true => Ok(ConditionOp::Check(Check::Utf8Encoding)),
        false => Err(OperatorError::ConditionTakesNoPattern),
    }),
};

/// The first invalid sequence of `value`.
pub(super) fn find(value: &[u8]) -> Option<Range<usize>> {
    let error = std::str::from_utf8(value).err()?;
    let at = error.valid_up_to();
    Some(at..value.len().min(at + error.error_len().unwrap_or(1)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_an_invalid_sequence() {
        assert!(super::find("é".as_bytes()).is_none());
        assert_eq!(super::find(b"a\xc0\xafb"), Some(1..2));
        assert_eq!(super::find(b"a\xe2\x82"), Some(1..2));
    }
}
