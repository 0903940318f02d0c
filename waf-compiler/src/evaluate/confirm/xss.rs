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

/// The head of an XML declaration as a form parser leaves it: an XML document posted with a form's label
/// (WordPress's Jetpack and XML-RPC clients, .NET SOAP clients) is split at its first `=`, and
/// `<?xml version` becomes the name of the form's only pair. Nothing after it is part of that name.
const DECLARATION_HEAD: &[u8] = b"<?xml version";

/// Why `value` is no markup, when it is the [`DECLARATION_HEAD`] and nothing else.
pub fn declaration_head(value: &[u8]) -> Option<String> {
    value
        .trim_ascii()
        .eq_ignore_ascii_case(DECLARATION_HEAD)
        .then(|| {
            "the head of an XML declaration, cut at its `=` by a form parser (an XML document labelled as a form)"
                .to_owned()
        })
}
