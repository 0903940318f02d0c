//! `unconditional` (ModSecurity's `@unconditionalMatch`): every selected value matches.

use super::{Build, Check, Operator};
use crate::rule::OperatorKind;

pub(super) const OPERATOR: Operator = Operator {
    kind: OperatorKind::Unconditional,
    name: "unconditional",
    modsecurity: &["unconditionalMatch"],
    takes_pattern: false,
    compares_settings: false,
    build: Build::Check(|_| Ok(Check::Unconditional)),
    condition: None,
};
