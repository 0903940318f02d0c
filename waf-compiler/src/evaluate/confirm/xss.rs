//! HTML and JavaScript: libinjection tokenizes the value as HTML in each context a value may be inserted in
//! (text, each kind of attribute value) and flags script tags, event-handler attributes, scripting URLs and the
//! other constructs that run code; an inline style only when it can run code, as HTML sanitizers judge it, so
//! the output of rich-text editors is not code. Angle brackets in prose ("<3", "a < b") are not such constructs.

use crate::detect::xss;

/// Why `value` is an XSS injection, when libinjection finds one.
pub fn injection(value: &[u8]) -> Option<String> {
    if xss::runs_code(value) {
        return Some(
            "a script, event handler, scripting URL or scripted style in some HTML context"
                .to_owned(),
        );
    }
    let unwrapped = without_bogus_comment_openers(value)?;
    xss::runs_code(&unwrapped).then(|| {
        "a tag behind `<!`, which a browser reads as a comment and a filter that strips `<!` or comments leaves (`<!<script>`)"
            .to_owned()
    })
}

/// `value` without the `<!` of each bogus comment that opens right before a tag (`<!<script>`), when it has one.
/// A browser reads `<!` followed by anything but `--`, `DOCTYPE` or `[CDATA[` as a comment up to the next `>`,
/// which swallows the tag's opening; no editor writes that, and a filter that strips `<!` or comments, or an
/// application that cuts the value, leaves the tag whole.
fn without_bogus_comment_openers(value: &[u8]) -> Option<Vec<u8>> {
    let opener = b"<!<";
    memchr::memmem::find(value, opener)?;
    let mut out = Vec::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = memchr::memmem::find(rest, opener) {
        out.extend_from_slice(&rest[..at]);
        rest = &rest[at + 2..];
    }
    out.extend_from_slice(rest);
    Some(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_behind_a_bogus_comment_counts() {
        assert!(injection(b"<!<script>alert(document.domain)</script>").is_some());
        assert!(injection(b"<!<img src=x onerror=alert(1)>").is_some());
        assert_eq!(injection(b"<!-- a comment --><p>text</p>"), None);
        assert_eq!(injection(b"a <! b"), None);
    }
}
