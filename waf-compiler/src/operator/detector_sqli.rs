//! `detector_sqli` (ModSecurity's `@detectSQLi`): libinjection's SQLI detection ([`crate::detect::sqli`]) judges the value.
//! It takes no pattern, and its verdict depends on the value alone, so evaluation remembers it per value
//! ([`super::Matcher::detector`]).

use super::{Build, Matcher, Operator};

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["detectSQLi"],
    takes_pattern: false,
    compares_settings: false,
    build: Build::Search(|_, _, _| Ok(Matcher::DetectorSqli)),
    condition: None,
};

/// Whether libinjection's SQLI detection flags `value`.
pub(super) fn holds(value: &[u8]) -> bool {
    crate::detect::sqli::is_sqli(value)
}
