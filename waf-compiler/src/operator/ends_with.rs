//! `ends_with` (ModSecurity's `@endsWith`): the value ends with the pattern.

use super::condition::{ConditionOp, checked_template};
use super::{Build, Check, Operator};

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["endsWith"],
    takes_pattern: true,
    compares_settings: true,
    build: Build::Check(|pattern| Ok(Check::EndsWith(pattern.as_bytes().to_vec()))),
    condition: Some(|pattern, groups, _| {
        Ok(ConditionOp::Text(holds, checked_template(pattern, groups)?))
    }),
};

/// `target` ends with `pattern`.
pub(super) fn holds(target: &[u8], pattern: &[u8]) -> bool {
    target.ends_with(pattern)
}

#[cfg(test)]
mod tests {
    use crate::operator::check::Check;
    use crate::rule::OperatorKind;

    #[test]
    fn matches_a_suffix() {
        let check = Check::new(OperatorKind::EndsWith, Some(".php"))
            .unwrap()
            .unwrap();
        assert!(check.find(b"/a/b.php").is_some());
        assert!(check.find(b"/a/b.phps").is_none());
    }
}
