//! What evaluation returns: every matching rule, and whether the request is blocked.

use crate::evaluate::confirm::Confirmation;
use crate::evaluate::macros;
use crate::rule::{Action, Severity};
use std::borrow::Cow;

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
    /// What the rule's confirmer said of the matched value ([`crate::evaluate::confirm`]); `None` for a rule
    /// without one. An unconfirmed match adds nothing to the anomaly score.
    pub confirmation: Option<Confirmation>,
}

/// The outcome of evaluating a request: every matching rule in rule-id order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    pub matches: Vec<RuleMatch>,
    /// The blocking-evaluation rules in force (`operator: anomaly_threshold`, CRS 949110), as they report: filled
    /// only when some match adds to the anomaly score. [`Verdict::settle`] adds them to `matches` when the score
    /// reaches the threshold, which evaluation does not know (a domain may have its own).
    pub score_rules: Vec<RuleMatch>,
}

/// CRS's default inbound anomaly threshold (`tx.inbound_anomaly_score_threshold`): one CRITICAL `block` match
/// (5) blocks, a WARNING (3) needs another match.
pub const DEFAULT_ANOMALY_THRESHOLD: u32 = 5;

/// CRS's default outbound anomaly threshold (`tx.outbound_anomaly_score_threshold`): one ERROR (4) response
/// match blocks the answer.
pub const DEFAULT_OUTBOUND_ANOMALY_THRESHOLD: u32 = 4;

impl Verdict {
    /// The match that blocks the request at the default anomaly threshold ([`Verdict::blocking_at`]).
    pub fn blocking(&self) -> Option<&RuleMatch> {
        self.blocking_at(DEFAULT_ANOMALY_THRESHOLD)
    }

    /// The match that blocks the request: the first `deny` match, or, once the anomaly score of the `block`
    /// matches reaches `threshold`, the first `block` match.
    pub fn blocking_at(&self, threshold: u32) -> Option<&RuleMatch> {
        self.matches
            .iter()
            .find(|m| m.action == Action::Deny)
            .or_else(|| {
                (self.anomaly_score() >= threshold)
                    .then(|| self.matches.iter().find(|m| m.action == Action::Block))
                    .flatten()
            })
    }

    /// Adds the blocking-evaluation rules ([`Verdict::score_rules`]) to the matches when the anomaly score
    /// reaches `threshold`, each with the score as its value (ModSecurity logs 949110 when it blocks by score).
    /// Their action is their own (CRS's is `deny`); they add nothing to the score. Call it once, after taking
    /// out the matches that do not count (a domain's `disabled_rules`).
    pub fn settle(&mut self, threshold: u32) {
        let score = self.anomaly_score();
        let rules = std::mem::take(&mut self.score_rules);
        if score >= threshold && score > 0 {
            self.matches.extend(rules.into_iter().map(|mut m| {
                m.value_excerpt = score.to_string();
                // CRS 949110's message names the score: `(Total Score: %{TX.BLOCKING_INBOUND_ANOMALY_SCORE})`.
                if let Cow::Owned(msg) =
                    macros::expand(&m.msg, |name| macros::at_settle(name, score, threshold))
                {
                    m.msg = msg;
                }
                m
            }));
        }
    }

    pub fn is_blocked(&self) -> bool {
        self.blocking().is_some()
    }

    /// The sum of the anomaly scores of the matches ([`RuleMatch::score`]).
    pub fn anomaly_score(&self) -> u32 {
        self.matches
            .iter()
            .map(RuleMatch::score)
            .fold(0u32, u32::saturating_add)
    }

    /// The ids of the `block` matches with what each added to the score, for `rulec explain`.
    pub fn contributions(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.matches
            .iter()
            .filter(|m| m.action == Action::Block)
            .map(|m| (m.rule_id, m.score()))
    }
}

impl RuleMatch {
    /// The report of a correlation rule (`operator: anomaly_report`, CRS 980170): the transaction's scores as
    /// its value, and in its message CRS's score macros expanded (any other left as written).
    pub fn correlation(rule: &crate::rule::Rule, inbound: u32, outbound: u32) -> RuleMatch {
        let total = inbound.saturating_add(outbound);
        let msg = macros::expand(&rule.msg, |name| {
            let (collection, key) = name.split_once(['.', ':'])?;
            if !collection.eq_ignore_ascii_case("TX") {
                return None;
            }
            let value = match key.to_ascii_lowercase().as_str() {
                "blocking_inbound_anomaly_score" | "detection_inbound_anomaly_score" => inbound,
                "blocking_outbound_anomaly_score" | "detection_outbound_anomaly_score" => outbound,
                "anomaly_score" | "blocking_anomaly_score" | "detection_anomaly_score" => total,
                _ => return None,
            };
            Some(value.to_string())
        });
        RuleMatch {
            rule_id: rule.id,
            variable: "ANOMALY_SCORE".to_owned(),
            value_excerpt: format!("inbound={inbound} outbound={outbound}"),
            msg: msg.into_owned(),
            severity: rule.severity,
            action: rule.action,
            paranoia_level: rule.paranoia_level,
            tags: rule.tags.clone(),
            confirmation: None,
        }
    }

    /// What this match adds to the request's anomaly score: its severity's score for a `block` rule (one without
    /// a severity scores as CRITICAL, as a CRS rule's `block` without a score would block alone), 0 for `deny` and
    /// `log` rules, which take no part in scoring.
    pub fn score(&self) -> u32 {
        match self.action {
            Action::Block if self.is_confirmed() => {
                self.severity.unwrap_or(Severity::Critical).anomaly_score()
            }
            _ => 0,
        }
    }

    /// Whether the match counts: its rule has no confirmer, or the confirmer found an injection.
    pub fn is_confirmed(&self) -> bool {
        self.confirmation.as_ref().is_none_or(|c| c.confirmed)
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

/// The bytes an [`excerpt`] shows, when it shows them all (None for a cut one): what the site policy reads of
/// a match's value.
pub fn excerpt_bytes(excerpt: &str) -> Option<Vec<u8>> {
    let text = excerpt.as_bytes();
    if text.len() > EXCERPT_MAX_BYTES * 4 || excerpt.ends_with("...") {
        return None;
    }
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while let Some(&b) = text.get(i) {
        match (b, text.get(i + 1)) {
            (b'\\', Some(b'\\')) => {
                out.push(b'\\');
                i += 2;
            }
            (b'\\', Some(b'x')) => {
                let hex = std::str::from_utf8(text.get(i + 2..i + 4)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 4;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(rule_id: u32, action: Action, severity: Severity) -> RuleMatch {
        RuleMatch {
            rule_id,
            variable: "ARGS_GET:a".into(),
            value_excerpt: String::new(),
            msg: String::new(),
            severity: Some(severity),
            action,
            paranoia_level: 1,
            tags: Vec::new(),
            confirmation: None,
        }
    }

    #[test]
    fn block_matches_add_up_to_the_threshold() {
        use Action::{Block, Deny, Log};
        let verdict = |matches| Verdict {
            matches,
            score_rules: Vec::new(),
        };
        let warning = verdict(vec![hit(1, Block, Severity::Medium)]);
        assert_eq!(warning.anomaly_score(), 3);
        assert!(!warning.is_blocked());
        assert_eq!(warning.blocking_at(3).map(|m| m.rule_id), Some(1));
        let two = verdict(vec![
            hit(1, Log, Severity::Critical),
            hit(2, Block, Severity::Medium),
            hit(3, Block, Severity::Low),
        ]);
        assert_eq!(two.anomaly_score(), 5);
        assert_eq!(two.blocking().map(|m| m.rule_id), Some(2));
        assert_eq!(two.contributions().collect::<Vec<_>>(), [(2, 3), (3, 2)]);
        let deny = verdict(vec![
            hit(1, Block, Severity::Low),
            hit(2, Deny, Severity::Low),
        ]);
        assert_eq!(deny.blocking_at(100).map(|m| m.rule_id), Some(2));
    }

    #[test]
    fn score_rules_report_once_the_score_reaches_the_threshold() {
        let score_rule = RuleMatch {
            variable: "ANOMALY_SCORE".into(),
            ..hit(949110, Action::Deny, Severity::Critical)
        };
        let mut low = Verdict {
            matches: vec![hit(1, Action::Block, Severity::Medium)],
            score_rules: vec![score_rule.clone()],
        };
        low.settle(5);
        assert_eq!(low.matches.len(), 1);
        assert!(low.score_rules.is_empty());
        let mut high = Verdict {
            matches: vec![
                hit(1, Action::Block, Severity::Medium),
                hit(2, Action::Block, Severity::Low),
            ],
            score_rules: vec![score_rule],
        };
        high.settle(5);
        let last = high.matches.last().unwrap();
        assert_eq!((last.rule_id, last.value_excerpt.as_str()), (949110, "5"));
        assert_eq!(high.anomaly_score(), 5, "the score rule adds nothing");
        assert_eq!(high.blocking().map(|m| m.rule_id), Some(949110));
    }

    #[test]
    fn excerpts_are_escaped_and_bounded() {
        assert_eq!(excerpt(b"a' or 1=1"), "a' or 1=1");
        assert_eq!(excerpt(b"x\r\ny\"\\\xff"), "x\\x0d\\x0ay\\x22\\\\\\xff");
        let long = vec![b'a'; 500];
        assert_eq!(excerpt(&long).len(), EXCERPT_MAX_BYTES + 3);
        let value = b"l'\xc3\xa9t\xc3\xa9 \"x\" \\ 1.pdf";
        assert_eq!(excerpt_bytes(&excerpt(value)).as_deref(), Some(&value[..]));
        assert_eq!(excerpt_bytes(&excerpt(&long)), None);
    }
}
