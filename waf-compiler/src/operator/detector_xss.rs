//! `detector_xss` (ModSecurity's `@detectXSS`): libinjection's XSS detection ([`crate::detect::xss`]) judges the value.
//! It takes no pattern, and its verdict depends on the value alone, so evaluation remembers it per value
//! ([`super::Matcher::detector`]).

use super::{Build, Matcher, Operator};

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["detectXSS"],
    takes_pattern: false,
    compares_settings: false,
    build: Build::Search(|_, _, _| Ok(Matcher::DetectorXss)),
    condition: None,
};

/// Whether libinjection's XSS detection flags `value`.
pub(super) fn holds(value: &[u8]) -> bool {
    crate::detect::xss::is_xss(value)
}
