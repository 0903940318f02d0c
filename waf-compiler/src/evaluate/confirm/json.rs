//! JSON documents carried in a field (a cookie holding a consent record or a list of recent searches, a form
//! field holding a serialised state, a query parameter holding a filter): the application parses the document
//! and uses its strings, so the strings are where a value lands in a query, a page or a command. The document's
//! own quotes, brackets and commas are JSON's syntax: read as SQL, `["from the set","and the harbour"]` opens and
//! closes strings around keywords and looks like an injection; read as JSON it is two phrases.

use serde_json::Value;

/// Strings a document may hold before the rest is left unread: far more than a cookie or a form field carries,
/// and a bound on the work a pattern hit can cause on a large document.
const MAX_STRINGS: usize = 10_000;

/// The strings of `document` (names and values, decoded from JSON's escapes), when it parses as JSON.
pub fn strings(document: &[u8]) -> Option<Vec<String>> {
    let value: Value = serde_json::from_slice(document.trim_ascii()).ok()?;
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        if out.len() >= MAX_STRINGS {
            break;
        }
        match value {
            Value::String(string) => out.push(string),
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => {
                for (name, value) in members {
                    out.push(name);
                    stack.push(value);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_are_read_unescaped() {
        let mut found = strings(br#"{"q":["drop leaf table","\u0027x"],"n":1,"ok":true}"#).unwrap();
        found.sort();
        assert_eq!(found, ["'x", "drop leaf table", "n", "ok", "q"]);
        assert!(strings(b"[\"open").is_none());
    }
}
