//! HTML and JavaScript: libinjection tokenizes the value as HTML in each context a value may be inserted in
//! (text, each kind of attribute value) and flags script tags, event-handler attributes, scripting URLs and the
//! other constructs that run code; an inline style only when it can run code, as HTML sanitizers judge it, so
//! the output of rich-text editors is not code. Angle brackets in prose ("<3", "a < b") are not such constructs.

use crate::detect::xss;

/// Why `value` is an XSS injection, when libinjection finds one.
pub fn injection(value: &[u8]) -> Option<String> {
    xss::runs_code(value).then(|| {
        "a script, event handler, scripting URL or scripted style in some HTML context".to_owned()
    })
}
