//! HTML and JavaScript: libinjection tokenizes the value as HTML in each context a value may be inserted in
//! (text, each kind of attribute value) and flags script tags, event-handler attributes, scripting URLs and the
//! other constructs that run code; an inline style only when it can run code, as HTML sanitizers judge it, so
//! the output of rich-text editors is not code. Angle brackets in prose ("<3", "a < b") are not such constructs.

use crate::detect::xss;
use crate::rule::Transform;
use crate::transform::{UnicodeMap, apply};
use std::borrow::Cow;

/// Why `value`, sent to `site`, is an XSS injection, when libinjection finds one.
pub fn injection(value: &[u8], site: &[u8]) -> Option<String> {
    if xss::runs_code(value, site) {
        return Some(
            "a script, event handler, scripting URL or scripted style in some HTML context"
                .to_owned(),
        );
    }
    if let Some(kind) = markup_document_url(value) {
        return Some(format!(
            "a `data:` URL of a {kind} document with markup in it, which runs as a page where it is framed or linked"
        ));
    }
    let unwrapped = without_bogus_comment_openers(value)?;
    xss::runs_code(&unwrapped, site).then(|| {
        "a tag behind `<!`, which a browser reads as a comment and a filter that strips `<!` or comments leaves (`<!<script>`)"
            .to_owned()
    })
}

/// Media types of documents a browser renders with their markup and scripts (a `data:` URL of one in an `iframe`,
/// an `object` or a link is a page of its own): HTML, XHTML, SVG and XML (which may hold XHTML or SVG).
const MARKUP_DOCUMENTS: &[&str] = &[
    "text/html",
    "application/xhtml+xml",
    "image/svg+xml",
    "text/xml",
    "application/xml",
];

/// The media type, when `value` is a `data:` URL of a [`MARKUP_DOCUMENTS`] type whose content (decoded from
/// base64 if so marked) holds a tag: the document an attacker's link or frame loads, whatever its markup does.
/// Images (`data:image/png;base64,...`), as editors embed them, are not such documents.
fn markup_document_url(value: &[u8]) -> Option<&'static str> {
    let value = value.trim_ascii_start();
    let rest = value
        .get(..5)
        .filter(|scheme| scheme.eq_ignore_ascii_case(b"data:"))
        .map(|_| &value[5..])?;
    let comma = rest.iter().position(|&b| b == b',')?;
    let header = rest[..comma].to_ascii_lowercase();
    let media_type = header.split(|&b| b == b';').next()?.trim_ascii();
    let kind = MARKUP_DOCUMENTS
        .iter()
        .find(|&&kind| media_type == kind.as_bytes())?;
    let content = &rest[comma + 1..];
    let content = if header.ends_with(b";base64") {
        Cow::Owned(apply(
            Transform::Base64Decode,
            content,
            UnicodeMap::default(),
        ))
    } else {
        Cow::Borrowed(content)
    };
    content
        .windows(2)
        .any(|w| w[0] == b'<' && (w[1].is_ascii_alphabetic() || w[1] == b'!'))
        .then_some(*kind)
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

/// Why `value` runs no script though a pattern found a scripting URL in it: it is a `javascript:` URL whose code
/// does nothing ([`xss::is_inert_script_url`]: `javascript:void(0)`), as a link's `href` that a page's script
/// handles, sent alone (a DOM recording's attribute, a menu item's link in a CMS).
pub fn inert_script_url(value: &[u8]) -> Option<String> {
    xss::is_inert_script_url(value).then(|| {
        "a `javascript:` URL whose code does nothing (`void(0)`, a version number): it runs no script".to_owned()
    })
}

/// The head of an XML declaration as a form parser leaves it: an XML document posted with a form's label
/// (WordPress's Jetpack and XML-RPC clients, .NET SOAP clients) is split at its first `=`, and
/// `<?xml version` becomes the name of the form's only pair. Nothing after it is part of that name.
const DECLARATION_HEAD: &[u8] = b"<?xml version";

/// Why `value` is no markup, when it is the [`DECLARATION_HEAD`] and nothing else, or a document type
/// declaration alone (`<!DOCTYPE html>`, with a public identifier or not), as a session recorder reports the
/// page it records: a browser ignores one inside a page, and it holds no tag.
pub fn declaration_head(value: &[u8]) -> Option<String> {
    let value = value.trim_ascii();
    if value.eq_ignore_ascii_case(DECLARATION_HEAD) {
        return Some(
            "the head of an XML declaration, cut at its `=` by a form parser (an XML document labelled as a form)"
                .to_owned(),
        );
    }
    let doctype = value
        .get(..9)
        .is_some_and(|head| head.eq_ignore_ascii_case(b"<!DOCTYPE"))
        && value.last() == Some(&b'>')
        && !value[1..].contains(&b'<')
        && memchr::memchr(b'>', value) == Some(value.len() - 1);
    doctype.then(|| "a document type declaration alone, which holds no tag".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doctype_alone_is_no_markup() {
        assert!(declaration_head(b"<!DOCTYPE html>").is_some());
        assert!(
            declaration_head(b"<!doctype html PUBLIC \"-//W3C//DTD XHTML 1.0//EN\" \"x.dtd\">")
                .is_some()
        );
        assert!(declaration_head(b"<!DOCTYPE html><script>alert(1)</script>").is_none());
        assert!(
            declaration_head(b"<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>").is_none()
        );
    }

    #[test]
    fn a_tag_behind_a_bogus_comment_counts() {
        assert!(injection(b"<!<script>alert(document.domain)</script>", b"").is_some());
        assert!(injection(b"<!<img src=x onerror=alert(1)>", b"").is_some());
        assert_eq!(injection(b"<!-- a comment --><p>text</p>", b""), None);
        assert_eq!(injection(b"a <! b", b""), None);
    }

    #[test]
    fn a_data_url_of_a_markup_document_counts() {
        assert!(
            injection(
                b"data:text/html,<form action=https://x.example/ method=post>",
                b""
            )
            .is_some()
        );
        assert!(injection(b"data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", b"").is_some());
        assert_eq!(injection(b"data:image/png;base64,iVBORw0KGgo=", b""), None);
        assert_eq!(injection(b"data:text/html,hello", b""), None);
    }
}
