//! `equals` (ModSecurity's `@streq`): the value is the pattern.

use super::condition::{ConditionOp, checked_template};
use super::{Build, Check, Operator};

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["streq"],
    takes_pattern: true,
    compares_settings: true,
    build: Build::Check(|pattern| Ok(Check::Equals(pattern.as_bytes().to_vec()))),
    condition: Some(|pattern, groups, _| {
        Ok(ConditionOp::Text(holds, checked_template(pattern, groups)?))
    }),
};

/// `target` is `pattern`.
pub(super) fn holds(target: &[u8], pattern: &[u8]) -> bool {
    target == pattern
}

#[cfg(test)]
mod tests {
    use crate::operator::check::Check;
    use crate::rule::OperatorKind;

    #[test]
    fn compares_the_whole_value() {
        let check = Check::new(OperatorKind::Equals, Some("abc"))
            .unwrap()
            .unwrap();
        assert!(check.find(b"abc").is_some());
        assert!(check.find(b"abcd").is_none());
    }
}
