//! `eq`, `gt`, `ge`, `lt` and `le` (ModSecurity's `@eq` ...): the value and the pattern, read as numbers,
//! compare so. Numbers are read as C's `atoi` reads them, as ModSecurity v3 does: leading spaces, a sign,
//! digits, and anything else ends the number; no digits is 0. The five share this file: they differ only by
//! their [`Comparison`].

use super::condition::{ConditionOp, checked_template};
use super::{Build, Check, Operator};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Eq,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Comparison {
    pub(super) fn holds(self, left: i64, right: i64) -> bool {
        match self {
            Comparison::Eq => left == right,
            Comparison::Gt => left > right,
            Comparison::Ge => left >= right,
            Comparison::Lt => left < right,
            Comparison::Le => left <= right,
        }
    }
}

/// One comparison's row: a rule's operator compares with the pattern read once; a chain condition's reads
/// its pattern, which may reference the match, for each value.
macro_rules! comparison {
    ($operator:ident, $kind:ident, $name:literal) => {
        pub(super) const $operator: Operator = Operator {
            modsecurity: &[$name],
            takes_pattern: true,
            compares_settings: true,
            build: Build::Check(|pattern| {
                Ok(Check::Number(Comparison::$kind, atoi(pattern.as_bytes())))
            }),
            condition: Some(|pattern, groups, _| {
                Ok(ConditionOp::Text(
                    |target, pattern| Comparison::$kind.holds(atoi(target), atoi(pattern)),
                    checked_template(pattern, groups)?,
                ))
            }),
        };
    };
}

comparison!(EQ, Eq, "eq");
comparison!(GT, Gt, "gt");
comparison!(GE, Ge, "ge");
comparison!(LT, Lt, "lt");
comparison!(LE, Le, "le");

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

#[cfg(test)]
mod tests {
    use super::atoi;
    use crate::operator::check::Check;
    use crate::rule::OperatorKind;

    fn check(kind: OperatorKind, pattern: &str) -> Check {
        Check::new(kind, Some(pattern)).unwrap().unwrap()
    }

    #[test]
    fn numbers_are_read_as_atoi_reads_them() {
        assert!(check(OperatorKind::Eq, "0").find(b"").is_some());
        assert!(check(OperatorKind::Gt, "255").find(b" 300x").is_some());
        assert!(check(OperatorKind::Lt, "-1").find(b"-2").is_some());
        assert!(check(OperatorKind::Ge, "3").find(b"3").is_some());
        assert!(check(OperatorKind::Le, "3").find(b"4").is_none());
        assert_eq!(atoi(&[b'9'; 100]), i64::MAX);
    }
}
