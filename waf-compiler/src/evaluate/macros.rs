//! ModSecurity's macros in a rule's message (`%{MATCHED_VAR}`, `%{TX.BLOCKING_INBOUND_ANOMALY_SCORE}`, ...),
//! expanded when a match is reported, so log lines, the 403 body and the admin panel show what ModSecurity
//! shows (`Inbound Anomaly Score Exceeded (Total Score: 10)`), not the macro.
//!
//! The values a report knows are expanded: the matched variable's value and name and a request header when the
//! match is made, the anomaly score and its threshold when the verdict is settled (`Verdict::settle`). A macro
//! naming anything else (a transaction variable the engine does not keep) is left as written, which shows
//! what is missing rather than hiding it, where ModSecurity would write nothing. Every value is an excerpt
//! ([`excerpt`]): bounded and escaped, so a macro cannot forge a log line.
use super::verdict::excerpt;
use std::borrow::Cow;

/// `msg` with each `%{NAME}` that `value` knows (names compared case-insensitively, as ModSecurity does)
/// replaced by its value. Borrowed when there is nothing to replace, which is every message without a macro.
pub fn expand<'m>(msg: &'m str, value: impl Fn(&str) -> Option<String>) -> Cow<'m, str> {
    if !msg.contains("%{") {
        return Cow::Borrowed(msg);
    }
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(start) = rest.find("%{") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        let name = &rest[start + 2..start + 2 + len];
        out.push_str(&rest[..start]);
        match value(name) {
            Some(v) => out.push_str(&v),
            None => out.push_str(&rest[start..start + 3 + len]),
        }
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The value of a macro a match knows when it is made: `MATCHED_VAR` (the matched value), `MATCHED_VAR_NAME`
/// (`ARGS_GET:id`), `REQUEST_HEADERS.<name>` (the first such header; `REQUEST_HEADERS:<name>` too).
pub fn at_match(
    name: &str,
    matched_value: &[u8],
    matched_name: &str,
    headers: &[(&str, &[u8])],
) -> Option<String> {
    if name.eq_ignore_ascii_case("MATCHED_VAR") {
        return Some(excerpt(matched_value));
    }
    if name.eq_ignore_ascii_case("MATCHED_VAR_NAME") {
        return Some(matched_name.to_owned());
    }
    let (collection, key) = name.split_once(['.', ':'])?;
    if !collection.eq_ignore_ascii_case("REQUEST_HEADERS") {
        return None;
    }
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(key))
        .map(|(_, v)| excerpt(v))
}

/// The value of a macro the settled verdict knows: CRS's names for the request's anomaly score and for the
/// threshold it was held to.
pub fn at_settle(name: &str, score: u32, threshold: u32) -> Option<String> {
    let (collection, key) = name.split_once(['.', ':'])?;
    if !collection.eq_ignore_ascii_case("TX") {
        return None;
    }
    let key = key.to_ascii_lowercase();
    match key.as_str() {
        // A verdict is of one phase, and each blocking evaluation names its own phase's score (949110 the
        // inbound, 959100 the outbound): the settled score is that one.
        "blocking_inbound_anomaly_score"
        | "inbound_anomaly_score"
        | "blocking_outbound_anomaly_score"
        | "outbound_anomaly_score"
        | "anomaly_score" => Some(score.to_string()),
        "inbound_anomaly_score_threshold" | "outbound_anomaly_score_threshold" => {
            Some(threshold.to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_macros_are_expanded_and_others_kept() {
        let headers: &[(&str, &[u8])] = &[("Host", b"shop.example"), ("X-A", b"1\"\n")];
        let at = |name: &str| {
            at_match(
                name,
                b"content-encoding",
                "REQUEST_HEADERS_NAMES:x",
                headers,
            )
        };
        assert_eq!(
            expand("restricted (%{MATCHED_VAR}) in %{matched_var_name}", at),
            "restricted (content-encoding) in REQUEST_HEADERS_NAMES:x"
        );
        assert_eq!(
            expand("for %{REQUEST_HEADERS.host}, %{request_headers:x-a}", at),
            "for shop.example, 1\\x22\\x0a"
        );
        assert_eq!(
            expand("%{TX.unknown} and %{MISSING", at),
            "%{TX.unknown} and %{MISSING"
        );
        assert!(matches!(expand("no macro", at), Cow::Borrowed(_)));
        let settled = |name: &str| at_settle(name, 10, 5);
        assert_eq!(
            expand(
                "Inbound Anomaly Score Exceeded (Total Score: %{TX.BLOCKING_INBOUND_ANOMALY_SCORE})",
                settled
            ),
            "Inbound Anomaly Score Exceeded (Total Score: 10)"
        );
        assert_eq!(
            expand("%{tx.inbound_anomaly_score_threshold}", settled),
            "5"
        );
    }
}
