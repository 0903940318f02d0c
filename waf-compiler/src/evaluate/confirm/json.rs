//! JSON documents carried in a field (a cookie holding a consent record or a list of recent searches, a form
//! field holding a serialised state, a query parameter holding a filter): the application parses the document
//! and uses its strings, so the strings are where a value lands in a query, a page or a command. The document's
//! own quotes, brackets and commas are JSON's syntax: read as SQL, `["from the set","and the harbour"]` opens and
//! closes strings around keywords and looks like an injection; read as JSON it is two phrases.

use serde_json::Value;

/// Strings a document may hold before the rest is left unread: far more than a cookie or a form field carries,
/// and a bound on the work a pattern hit can cause on a large document.
const MAX_STRINGS: usize = 10_000;

/// The strings of `document` (names and values, decoded from JSON's escapes), when it parses as JSON or is an
/// [object literal](is_object_literal).
pub fn strings(document: &[u8]) -> Option<Vec<String>> {
    let document = document.trim_ascii();
    let value: Value = serde_json::from_slice(document)
        .ok()
        .or_else(|| serde_json::from_slice(&object_literal_as_json(document)?).ok())?;
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

/// The text of `value` when it is a JSON document of one string: what `JSON.stringify` writes of a string, as a
/// page does with a form it serialised before sending it inside a JSON call (Moodle's `jsonformdata`:
/// `"id=2514886&rownum=0&...&feedback%5Btext%5D=%3Cp+dir%3D%22ltr%22+style..."`). The application parses it and
/// reads the text; the quotes around it are JSON's.
pub fn string_document(value: &[u8]) -> Option<String> {
    if value.len() < 3 || value.first() != Some(&b'"') {
        return None;
    }
    serde_json::from_slice(value).ok()
}

/// Whether `value` is a JavaScript object literal that JSON's syntax with unquoted names and single-quoted
/// strings reads: the consent record Cookiebot keeps in a cookie on the sites it serves
/// (`{stamp:'...',necessary:true,preferences:false,method:'explicit',ver:1}`), a page's state written by its
/// script. Its strings are read as a JSON document's are.
pub fn is_object_literal(value: &[u8]) -> bool {
    let value = value.trim_ascii();
    value.first() == Some(&b'{')
        && object_literal_as_json(value)
            .is_some_and(|json| serde_json::from_slice::<serde::de::IgnoredAny>(&json).is_ok())
}

/// `literal` with its names quoted and its single-quoted strings written as JSON's, or None when a string is
/// left open. JSON's own strings are copied as they are.
fn object_literal_as_json(literal: &[u8]) -> Option<Vec<u8>> {
    let mut json = Vec::with_capacity(literal.len() + 32);
    let mut expect_name = false;
    let mut i = 0;
    while let Some(&b) = literal.get(i) {
        match b {
            b'"' => {
                let end = string_end(literal, i)?;
                json.extend_from_slice(&literal[i..=end]);
                i = end + 1;
                expect_name = false;
            }
            b'\'' => {
                let end = string_end(literal, i)?;
                json.push(b'"');
                let mut j = i + 1;
                while j < end {
                    match (literal[j], literal.get(j + 1)) {
                        (b'\\', Some(b'\'')) => {
                            json.push(b'\'');
                            j += 2;
                        }
                        (b'\\', Some(&escaped)) => {
                            json.extend_from_slice(&[b'\\', escaped]);
                            j += 2;
                        }
                        (b'"', _) => {
                            json.extend_from_slice(b"\\\"");
                            j += 1;
                        }
                        (other, _) => {
                            json.push(other);
                            j += 1;
                        }
                    }
                }
                json.push(b'"');
                i = end + 1;
                expect_name = false;
            }
            b'{' | b',' => {
                json.push(b);
                expect_name = true;
                i += 1;
            }
            _ if expect_name && (b.is_ascii_alphabetic() || b == b'_' || b == b'$') => {
                let len = literal[i..]
                    .iter()
                    .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'$'))
                    .unwrap_or(literal.len() - i);
                json.push(b'"');
                json.extend_from_slice(&literal[i..i + len]);
                json.push(b'"');
                i += len;
                expect_name = false;
            }
            _ => {
                expect_name &= b.is_ascii_whitespace();
                json.push(b);
                i += 1;
            }
        }
    }
    Some(json)
}

/// Where the string opened by the quote at `start` closes (the next unescaped same quote).
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let quote = bytes[start];
    let mut j = start + 1;
    while let Some(&b) = bytes.get(j) {
        match b {
            b'\\' => j += 2,
            _ if b == quote => return Some(j),
            _ => j += 1,
        }
    }
    None
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

    #[test]
    fn an_object_literal_is_read_as_json() {
        let consent =
            b"{stamp:'L8LRpX==',necessary:true,method:'explicit',ver:1,note:'it\\'s \"ok\"'}";
        assert!(is_object_literal(consent));
        let mut found = strings(consent).unwrap();
        found.sort();
        assert_eq!(
            found,
            [
                "L8LRpX==",
                "explicit",
                "it's \"ok\"",
                "method",
                "necessary",
                "note",
                "stamp",
                "ver"
            ]
        );
        assert!(!is_object_literal(b"{a:'open}"));
        assert!(!is_object_literal(b"{a:b}"));
        assert!(!is_object_literal(b"x' or {a:1}"));
    }
}
