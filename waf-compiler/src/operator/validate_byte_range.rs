//! `validate_byte_range` (ModSecurity's `@validateByteRange`): some byte of the value is outside the
//! pattern's comma-separated bytes and ranges (`9,10,13,32-126`).

use super::check::CheckError;
use super::{Build, Check, Operator};
use std::ops::Range;

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["validateByteRange"],
    takes_pattern: true,
    compares_settings: false,
    build: Build::Check(|pattern| byte_ranges(pattern).map(Check::ByteRange)),
    condition: None,
};

/// The first byte of `value` that is not `allowed`.
pub(super) fn find(allowed: &[bool; 256], value: &[u8]) -> Option<Range<usize>> {
    let at = value.iter().position(|&b| !allowed[usize::from(b)])?;
    Some(at..at + 1)
}

/// The pattern, `9,10,13,32-126`: `allowed[b]` when byte `b` is in one of the ranges.
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

#[cfg(test)]
mod tests {
    use crate::operator::check::Check;
    use crate::rule::OperatorKind;

    #[test]
    fn finds_the_first_byte_outside() {
        let range = Check::new(OperatorKind::ValidateByteRange, Some("9,10,13,32-126"))
            .unwrap()
            .unwrap();
        assert!(range.find(b"plain text\r\n").is_none());
        assert_eq!(range.find(b"a\x01b"), Some(1..2));
        for bad in ["1-300", "x", "9-1"] {
            assert!(
                Check::new(OperatorKind::ValidateByteRange, Some(bad))
                    .unwrap()
                    .is_err(),
                "{bad}"
            );
        }
    }
}
