//! Tags whose effect their attributes decide, in whatever order those come: a `<link>`, a `<base>` and a
//! `<script>` are judged where the tag ends, by what a browser does with them.
//!
//! - A `<link>` loads what runs only through the resource it names (`href`, `imagesrcset`) and only as what its
//!   `rel` asks for ([`LOADING_RELS`]). Without a resource it is an element of no effect, as message formats
//!   write a link's place in a translated string (`<link>Upgrade now</link>`, react-intl's and i18next's rich
//!   text); with a `rel` of other types it states a relation and fetches nothing (`canonical`, `preconnect`, the
//!   RDFa relations of the HTML a wiki's visual editor saves, `<link rel="mw:PageProp/Category" href=...>`).
//! - A `<base>` moves where the page's relative URLs, its scripts' among them, load from: to an attacker's host
//!   unless its `href` stays on the site the value is sent to (a relative reference, or a URL of that host, as
//!   the same editor's `<base href="//nl.wikipedia.org/wiki/"/>`).
//! - A `<script>` runs unless its `type` makes it a data block, which a browser neither fetches nor runs
//!   ([`DATA_BLOCKS`]: the JSON-LD a site's head carries for search engines).
//!
//! A value a character reference or a NUL may hide something in (`&#115;tylesheet` is `stylesheet` to a
//! browser) counts as doing what the tag can do.

use super::super::html5::TokenType;
use super::equals_ignoring_nul;

#[derive(Clone, Copy)]
enum Kind {
    Link,
    Base,
    Script,
}

/// A tag being read: its kind and its attributes so far, each name with its value (empty while none came).
pub struct DeferredTag<'a> {
    kind: Kind,
    attributes: Vec<(&'a [u8], &'a [u8])>,
    /// Whether the last attribute's value came.
    valued: bool,
}

impl<'a> DeferredTag<'a> {
    /// The tag an element named `name` opens, when its effect is deferred to its end.
    pub fn open(name: &[u8]) -> Option<Self> {
        let kind = if equals_ignoring_nul(b"LINK", name) {
            Kind::Link
        } else if equals_ignoring_nul(b"BASE", name) {
            Kind::Base
        } else if equals_ignoring_nul(b"SCRIPT", name) {
            Kind::Script
        } else {
            return None;
        };
        Some(DeferredTag {
            kind,
            attributes: Vec::new(),
            valued: true,
        })
    }

    /// Takes in an attribute's name or value token.
    pub fn read(&mut self, token: TokenType, text: &'a [u8]) {
        match token {
            TokenType::AttrName => {
                self.attributes.push((text, b""));
                self.valued = false;
            }
            TokenType::AttrValue if !self.valued => {
                if let Some(last) = self.attributes.last_mut() {
                    last.1 = text;
                }
                self.valued = true;
            }
            _ => {}
        }
    }

    /// Whether the tag, ended, loads or runs code on a page of `site`.
    pub fn runs(&self, site: &[u8]) -> bool {
        match self.kind {
            Kind::Link => {
                (self.value(b"HREF").is_some() || self.value(b"IMAGESRCSET").is_some())
                    && self.value(b"REL").is_none_or(rel_loads)
            }
            Kind::Base => self
                .value(b"HREF")
                .is_some_and(|href| !stays_on(href, site)),
            Kind::Script => self.value(b"TYPE").is_none_or(|kind| !is_data_block(kind)),
        }
    }

    /// The value of the first attribute named `name` (a browser keeps the first of a name).
    fn value(&self, name: &[u8]) -> Option<&'a [u8]> {
        self.attributes
            .iter()
            .find(|(attribute, _)| equals_ignoring_nul(name, attribute))
            .map(|&(_, value)| value)
    }
}

/// Whether `value` may hide what it says from a reading of its bytes.
fn hides(value: &[u8]) -> bool {
    value.iter().any(|&b| b == b'&' || b == 0)
}

/// The link types for which a browser fetches the resource a `<link>` names: a style sheet (and its
/// `alternate stylesheet`), an HTML import, preloads and prefetches of scripts and documents, a manifest.
const LOADING_RELS: [&[u8]; 9] = [
    b"stylesheet",
    b"import",
    b"preload",
    b"modulepreload",
    b"prefetch",
    b"prerender",
    b"manifest",
    b"serviceworker",
    b"subresource",
];

/// Whether a `rel` value names a [`LOADING_RELS`] type.
fn rel_loads(value: &[u8]) -> bool {
    hides(value)
        || value.split(|b| b.is_ascii_whitespace()).any(|kind| {
            LOADING_RELS
                .iter()
                .any(|rel| kind.eq_ignore_ascii_case(rel))
        })
}

/// Whether a `<base>`'s `href` keeps a page's relative URLs on `site` (a host, a port after it ignored), read as a
/// browser's URL parser reads it: tabs and line breaks dropped, blanks trimmed, a backslash a slash. A relative
/// reference (`/wiki/`, `./`) does; `//host/...` and `http(s)://host/...` do when the host is `site` and no
/// credentials precede it. Anything else does not: another host, another scheme (`http:host` is
/// `http://host` on an `https` page), an empty value (a payload cut short), a hidden one.
fn stays_on(href: &[u8], site: &[u8]) -> bool {
    if hides(href) {
        return false;
    }
    let url: Vec<u8> = href
        .iter()
        .filter(|&&b| !matches!(b, b'\t' | b'\n' | b'\r'))
        .map(|&b| if b == b'\\' { b'/' } else { b })
        .collect();
    let url = url.trim_ascii();
    if url.is_empty() {
        return false;
    }
    let scheme_end = url
        .iter()
        .position(|&b| matches!(b, b':' | b'/' | b'?' | b'#'));
    let rest = match scheme_end {
        Some(end) if url[end] == b':' => {
            let scheme = &url[..end];
            if !(scheme.eq_ignore_ascii_case(b"http") || scheme.eq_ignore_ascii_case(b"https")) {
                return false;
            }
            match url[end + 1..].strip_prefix(b"//") {
                Some(rest) => rest,
                None => return false,
            }
        }
        _ => match url.strip_prefix(b"//") {
            Some(rest) => rest,
            None => return true,
        },
    };
    let authority = rest
        .split(|&b| matches!(b, b'/' | b'?' | b'#'))
        .next()
        .unwrap_or_default();
    !authority.contains(&b'@')
        && !site.is_empty()
        && host(authority).eq_ignore_ascii_case(host(site))
}

/// `authority` without its port.
fn host(authority: &[u8]) -> &[u8] {
    match authority.iter().rposition(|&b| b == b':') {
        Some(colon) if !authority[colon..].contains(&b']') => &authority[..colon],
        _ => authority,
    }
}

/// `type`s that make a `<script>` a data block: JSON and JSON-LD, which a page reads as data if at all. Other
/// types stay scripts, the templates among them (`text/x-template`, `text/babel`), which a library on the page
/// renders or compiles.
const DATA_BLOCKS: [&[u8]; 2] = [b"application/ld+json", b"application/json"];

/// Whether a `<script>`'s `type` makes it a data block ([`DATA_BLOCKS`], parameters after `;` aside).
fn is_data_block(kind: &[u8]) -> bool {
    if hides(kind) {
        return false;
    }
    let essence = kind
        .split(|&b| b == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii();
    DATA_BLOCKS
        .iter()
        .any(|data| essence.eq_ignore_ascii_case(data))
}

#[cfg(test)]
mod tests {
    use super::super::{is_xss, runs_code};

    const SITE: &[u8] = b"nl.wikipedia.org";

    /// Asserts that each of `values` runs code on a page of [`SITE`] (`runs`), or that none does.
    fn assert_each(values: &[&[u8]], runs: bool) {
        for value in values {
            assert_eq!(
                runs_code(value, SITE),
                runs,
                "{}",
                String::from_utf8_lossy(value)
            );
        }
    }

    #[test]
    fn a_base_moves_scripts_only_off_the_site() {
        assert_each(
            &[
                &b"<base href=\"//nl.wikipedia.org/wiki/\"/>"[..],
                b"<base href=\"https://NL.wikipedia.org:443/\">",
                b"<base href=\"/wiki/\">",
                b"<base target=\"_blank\">",
            ],
            false,
        );
        assert_each(
            &[
                &b"<base href=\"//evil.example/\">"[..],
                b"<base href=\"https://evil.example/\">",
                b"<base href=\"/\\evil.example/\">",
                b"<base href=\"/\t/evil.example/\">",
                b"<base href=\"http:evil.example\">",
                b"<base href=\"//nl.wikipedia.org@evil.example/\">",
                b"<base href=\"//nl.wikipedia.org.evil.example/\">",
                b"<base href=\"javascript:alert(1)//\">",
                b"<base href=\"&#47;/evil.example/\">",
                b"<BASE dsfds HREF / =",
            ],
            true,
        );
        // Where the site is not known, every host is another.
        assert!(runs_code(b"<base href=\"//nl.wikipedia.org/\">", b""));
    }

    #[test]
    fn a_script_of_data_runs_nothing() {
        let json_ld = b"<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"Organization\"}</script>";
        assert!(!runs_code(json_ld, SITE));
        assert_each(
            &[
                &b"<script>alert(1)</script>"[..],
                b"<script src=//evil.example/x.js></script>",
                b"<script type=module src=//evil.example/x.js></script>",
                b"<script type=\"text/babel\">alert(1)</script>",
                b"<script type=\"application/&#108;d+json\">alert(1)</script>",
                b"<script type=\"application/ld+json\" onload=alert(1)></script>",
                b"<script type=\"application/ld+json\"></script><script>alert(1)</script>",
            ],
            true,
        );
    }

    #[test]
    fn a_link_loads_only_what_it_names_and_asks_for() {
        let message = b"Your free trial ends in {days, plural, one {# day} other {# days}}. <link>Upgrade now</link>";
        assert!(is_xss(message));
        assert!(!runs_code(message, SITE));
        assert_each(
            &[
                &b"<link rel=stylesheet href=\"https://evil.example/x.css\">"[..],
                b"<link rel=import href=//evil.example>",
                b"<LINK HREF=\"javascript:alert(1)\">",
                b"<link rel=preload as=image imagesrcset=\"x.png 1x\">",
                b"<link onload=alert(1)>",
                b"<link href=//evil.example/x.css",
                b"<link href=//evil.example/x.css rel=\"alternate stylesheet\">",
                b"<link rel=\"&#115;tylesheet\" href=//evil.example/x.css>",
                b"<link rel=canonical href=\"javascript:alert(1)\">",
            ],
            true,
        );
        assert_each(
            &[
                &b"<link rel=\"mw:PageProp/Category\" href=\"./Category:Dams\"/>"[..],
                b"<link rel=\"dc:isVersionOf\" href=\"//nl.wikipedia.org/wiki/Afsluitdijk\"/>",
                b"<link href=\"https://example.com/a\" rel=canonical>",
            ],
            false,
        );
    }
}
