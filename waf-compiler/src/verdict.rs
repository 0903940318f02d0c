//! What evaluation returns: every matching rule, and whether the request is blocked.

use crate::rule::{Action, Severity};

/// One rule that matched a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleMatch {
    pub rule_id: u32,
    /// The variable and key that matched, as ModSecurity writes it: `ARGS_GET:id`, `REQUEST_LINE`.
    pub variable: String,
    /// The matched part of the (transformed) value, truncated and escaped so it is safe to log.
    pub value_excerpt: String,
    pub msg: String,
    pub severity: Option<Severity>,
    pub action: Action,
    pub paranoia_level: u8,
    pub tags: Vec<String>,
}

/// The outcome of evaluating a request: every matching rule in rule-id order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    pub matches: Vec<RuleMatch>,
}

impl Verdict {
    /// The match that blocks the request: the first `deny` match. Any one suffices (no anomaly scoring), since only
    /// rules at or below the configured paranoia level run at all.
    pub fn blocking(&self) -> Option<&RuleMatch> {
        self.matches.iter().find(|m| m.action == Action::Deny)
    }

    pub fn is_blocked(&self) -> bool {
        self.blocking().is_some()
    }
}

/// At most this many bytes of a matched value go into a report: enough to recognise the attack, short enough
/// that a huge payload cannot flood the logs.
pub const EXCERPT_MAX_BYTES: usize = 120;

/// Renders bytes for a log line: printable ASCII as is, everything else (control characters, quotes, non-ASCII)
/// as `\xNN`, so a match report can never forge log lines or break JSON.
pub fn excerpt(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(EXCERPT_MAX_BYTES)];
    let mut out = String::with_capacity(shown.len() + 8);
    for &b in shown {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\x22"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    if shown.len() < bytes.len() {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_escaped_and_bounded() {
        assert_eq!(excerpt(b"a' or 1=1"), "a' or 1=1");
        assert_eq!(excerpt(b"x\r\ny\"\\\xff"), "x\\x0d\\x0ay\\x22\\\\\\xff");
        let long = vec![b'a'; 500];
        assert_eq!(excerpt(&long).len(), EXCERPT_MAX_BYTES + 3);
    }
}
