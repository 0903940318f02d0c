//! `unconditional` (ModSecurity's `@unconditionalMatch`): every selected value matches.

use super::{Build, Check, Operator};

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["unconditionalMatch"],
    takes_pattern: false,
    compares_settings: false,
    build: Build::Check(|_| Ok(Check::Unconditional)),
    condition: None,
};
