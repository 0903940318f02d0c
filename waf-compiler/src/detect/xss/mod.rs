//! XSS detection with libinjection's semantics.
//!
//! The input is tokenized as HTML5 ([`super::html5`]) from each place user input usually lands
//! (between tags, and inside an unquoted, single-, double- or back-quoted attribute value), and
//! flagged when a token is dangerous: a doctype, a tag that runs or loads code (`script`,
//! `iframe`, `svg`...), an event-handler or otherwise dangerous attribute, a URL attribute whose
//! (HTML-entity-decoded) value starts with `javascript:`, `data:`, `vbscript:` or
//! `view-source:`, or a comment that IE would execute. It is a blacklist: a deliberately small
//! one that catches what browsers execute, tuned upstream against false positives.

mod deferred;

use super::html5::{Context, Token, TokenType, Tokenizer};
use deferred::DeferredTag;

/// Whether libinjection would flag `input` as cross-site scripting.
///
/// Contexts that provably cannot flag `input` are not tokenized (most request values have no
/// `<`, `=` or quote, so this skips most of the work). The argument, from the states of
/// [`super::html5`]: a verdict needs a doctype, a tag name or a comment token, or an attribute
/// value right after an attribute name.
/// - Doctype, tag-name and comment tokens are only emitted after the tag-open state, which only
///   the data state enters, on a `<`.
/// - An attribute value that follows an attribute name is only emitted after the
///   before-attribute-value state, which is only entered on a `=`. (The one other attribute
///   value, the one a quoted context starts in, follows no name and is harmless.)
/// - From the data state without a `<` in the input, only text is emitted.
/// - A quoted context whose quote byte is absent emits the whole input as that first,
///   harmless, attribute value and ends.
///
/// So with neither `<` nor `=` no context flags, the data context needs a `<`, and a quoted
/// context also needs its quote. `tests/detect_differential.rs` checks this against C
/// libinjection on inputs with and without these bytes.
pub fn is_xss(input: &[u8]) -> bool {
    flags(input, Styles::Dangerous, b"")
}

/// Whether `input` holds HTML that runs code in some context, as [`is_xss`] decides, except that an inline style
/// counts only when it can run code (a CSS expression, a scripting URL, a binding, an import). libinjection
/// flags every `style` attribute; rich-text editors write one on every coloured word and aligned paragraph,
/// and HTML sanitizers (DOMPurify, ammonia) keep them. Namespace declarations and XLink attributes (`xmlns`,
/// `xlink:href`) count only with a scripting URL. A `<link>`, a `<base>` and a `<script>` count by what their
/// attributes make them do ([`deferred`]); `site` is the host the value is sent to (the request's `Host`), where a
/// `<base>` may point. This is the confirmation of the XSS family.
pub fn runs_code(input: &[u8], site: &[u8]) -> bool {
    flags(input, Styles::WhenScripted, site)
}

/// How inline styles are judged.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Styles {
    /// Every one is dangerous (libinjection).
    Dangerous,
    /// Only one that can run code ([`is_scripted_style`]).
    WhenScripted,
}

fn flags(input: &[u8], styles: Styles, site: &[u8]) -> bool {
    let has_lt = input.contains(&b'<');
    if !has_lt && !input.contains(&b'=') {
        return false;
    }
    let quoted = |quote: u8| input.contains(&quote);
    [
        (Context::Data, has_lt),
        (Context::ValueNoQuote, true),
        (Context::ValueSingleQuote, quoted(b'\'')),
        (Context::ValueDoubleQuote, quoted(b'"')),
        (Context::ValueBackQuote, quoted(b'`')),
    ]
    .into_iter()
    .any(|(context, applies)| applies && is_xss_in(input, context, styles, site))
}

/// The HTML5 tokens of `input` from the data state, one `TYPE,LEN,TEXT` line each (the format
/// of upstream's test driver; TEXT stops at a NUL byte as a C string does).
pub fn html5_trace(input: &[u8]) -> String {
    let mut tokenizer = Tokenizer::new(input, Context::Data);
    let mut out = String::new();
    while let Some(token) = tokenizer.next_token() {
        let text = &input[token.start..token.start + token.len];
        let text = &text[..text.iter().position(|&c| c == 0).unwrap_or(text.len())];
        out.push_str(&format!(
            "{},{},{}\n",
            token.kind.name(),
            token.len,
            String::from_utf8_lossy(text)
        ));
    }
    out
}

/// What an attribute's value means, by the attribute's name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Attribute {
    Harmless,
    /// Always dangerous (event handlers, IE data binding, `xmlns`...).
    Black,
    /// Takes a URL: dangerous with a script-like scheme.
    Url,
    /// Inline style: always dangerous (expressions, `-moz-binding`...).
    Style,
    /// SVG `attributeName`: names another attribute in its value.
    Indirect,
    /// `xmlns`, `xlink:*` in confirmation: dangerous with an active namespace or a script-like scheme.
    Namespace,
    /// `xmlns` itself in confirmation: as [`Attribute::Namespace`], except for the XHTML namespace.
    DefaultNamespace,
}

/// Tags that run or load code, or change how the rest is parsed.
const BLACK_TAGS: &[&[u8]] = &[
    b"APPLET",
    b"BASE",
    b"COMMENT",
    b"EMBED",
    b"FRAME",
    b"FRAMESET",
    b"HANDLER",
    b"IFRAME",
    b"IMPORT",
    b"ISINDEX",
    b"LINK",
    b"LISTENER",
    b"META",
    b"NOSCRIPT",
    b"OBJECT",
    b"SCRIPT",
    b"STYLE",
    b"VMLFRAME",
    b"XML",
    b"XSS",
];

/// Attributes with dangerous values, and how their values are dangerous.
const BLACK_ATTRIBUTES: &[(&[u8], Attribute)] = &[
    (b"ACTION", Attribute::Url),
    (b"ATTRIBUTENAME", Attribute::Indirect),
    (b"BY", Attribute::Url),
    (b"BACKGROUND", Attribute::Url),
    (b"DATAFORMATAS", Attribute::Black),
    (b"DATASRC", Attribute::Black),
    (b"DYNSRC", Attribute::Url),
    (b"FILTER", Attribute::Style),
    (b"FORMACTION", Attribute::Url),
    (b"FOLDER", Attribute::Url),
    (b"FROM", Attribute::Url),
    (b"HANDLER", Attribute::Url),
    (b"HREF", Attribute::Url),
    (b"LOWSRC", Attribute::Url),
    (b"POSTER", Attribute::Url),
    (b"SRC", Attribute::Url),
    (b"STYLE", Attribute::Style),
    (b"TO", Attribute::Url),
    (b"VALUES", Attribute::Url),
    (b"XLINK:HREF", Attribute::Url),
];

/// Event names. libinjection 3.9.2 flags an `on*` attribute when the rest of its name *starts
/// with* one of these (`onloadx=` counts, `onewsaction=` in a query string does not).
/// Derived (`tests/derive_xss_events.py`) by asking C libinjection, for DOM, SVG and IE event
/// names and every `on*` word of the sample payloads, whether `<a onNAME=1>` is XSS, keeping
/// the shortest names (a name with a listed prefix adds nothing).
const EVENT_HANDLERS: &[&[u8]] = &[
    b"ABORT",
    b"ACTIVATE",
    b"AFTERPRINT",
    b"BEFOREACTIVATE",
    b"BEFOREPRINT",
    b"BEFOREUNLOAD",
    b"BLUR",
    b"CANPLAY",
    b"CHANGE",
    b"CLICK",
    b"CONTEXTMENU",
    b"COPY",
    b"CUT",
    b"DBLCLICK",
    b"DRAG",
    b"DROP",
    b"DURATIONCHANGE",
    b"EMPTIED",
    b"ENDED",
    b"ERROR",
    b"FOCUS",
    b"FORMCHANGE",
    b"FORMINPUT",
    b"HASHCHANGE",
    b"INPUT",
    b"INVALID",
    b"KEYDOWN",
    b"KEYPRESS",
    b"KEYUP",
    b"LOAD",
    b"MESSAGE",
    b"MOUSEDOWN",
    b"MOUSEENTER",
    b"MOUSELEAVE",
    b"MOUSEMOVE",
    b"MOUSEOUT",
    b"MOUSEOVER",
    b"MOUSEUP",
    b"MOUSEWHEEL",
    b"OFFLINE",
    b"ONLINE",
    b"OPEN",
    b"PAGEHIDE",
    b"PAGESHOW",
    b"PASTE",
    b"PAUSE",
    b"PLAY",
    b"POPSTATE",
    b"PROGRESS",
    b"PROPERTYCHANGE",
    b"RATECHANGE",
    b"READYSTATECHANGE",
    b"RESET",
    b"RESIZE",
    b"SCROLL",
    b"SEARCH",
    b"SEEKED",
    b"SEEKING",
    b"SELECT",
    b"SHOW",
    b"STALLED",
    b"START",
    b"STORAGE",
    b"SUBMIT",
    b"SUSPEND",
    b"TIMEUPDATE",
    b"TOGGLE",
    b"TOUCHCANCEL",
    b"TOUCHEND",
    b"TOUCHMOVE",
    b"TOUCHSTART",
    b"UNLOAD",
    b"VOLUMECHANGE",
    b"WAITING",
    b"WHEEL",
];

/// URL schemes that run code or show attacker content (`JAVA` covers `javascript:`).
const BLACK_SCHEMES: &[&[u8]] = &[b"DATA", b"VIEW-SOURCE", b"JAVA", b"VBSCRIPT"];

/// CSS that runs code: IE's `expression()` and `behavior`, Firefox's `-moz-binding`, scripting URLs, imports.
fn is_scripted_style(value: &[u8]) -> bool {
    mentions(
        &squeezed(value),
        &[
            b"expression",
            b"javascript:",
            b"vbscript:",
            b"behavior",
            b"-moz-binding",
            b"@import",
        ],
    )
}

/// Whether the style `value` names another document in a `url(...)`: anything but a fragment of its own
/// (`url(#a)`, `url('#a')`).
fn loads_another_document(value: &[u8]) -> bool {
    let value = squeezed(value);
    value
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"url(")
        .any(|(at, _)| {
            let target = &value[at + 4..];
            let target = target
                .strip_prefix(b"'")
                .or_else(|| target.strip_prefix(b"\""))
                .unwrap_or(target);
            !target.starts_with(b"#")
        })
}

/// `value` lower-cased without what a browser's CSS or attribute reading skips or a writer slips in to hide a
/// word: blanks, NUL bytes and backslashes (`exp\ression`).
fn squeezed(value: &[u8]) -> Vec<u8> {
    value
        .iter()
        .filter(|b| !b.is_ascii_whitespace() && **b != 0 && **b != b'\\')
        .map(u8::to_ascii_lowercase)
        .collect()
}

/// Whether `squeezed` holds one of `words`.
fn mentions(squeezed: &[u8], words: &[&[u8]]) -> bool {
    words
        .iter()
        .any(|word| squeezed.windows(word.len()).any(|w| w == *word))
}

/// Whether the doctype token `text` has an internal subset that declares something: a `[` with a markup
/// declaration (`<!`) or a parameter entity's reference (`%`) after it.
fn declares_a_subset(text: &[u8]) -> bool {
    text.iter().position(|&b| b == b'[').is_some_and(|at| {
        let subset = &text[at..];
        subset.contains(&b'%') || subset.windows(2).any(|w| w == b"<!")
    })
}

fn is_xss_in(input: &[u8], context: Context, styles: Styles, site: &[u8]) -> bool {
    let mut tokenizer = Tokenizer::new(input, context);
    let mut attribute = Attribute::Harmless;
    // Inside a `<meta>` tag judged by what it says ([`is_active_meta_value`]).
    let mut in_meta = false;
    // Inside a `<link>`, a `<base>` or a `<script>`, judged where it ends ([`DeferredTag`]).
    let mut deferred: Option<DeferredTag<'_>> = None;
    // After an `<svg>` tag: SVG's elements are read as XML, a style sheet's text too.
    let mut in_svg = false;
    // The value writes an SVG image (whatever context the reading starts in): SVG's namespace declared in it is
    // the image's own.
    let writes_svg = input
        .windows(4)
        .any(|w| w[0] == b'<' && w[1..].eq_ignore_ascii_case(b"svg"));
    while let Some(token) = tokenizer.next_token() {
        let text = &input[token.start..token.start + token.len];
        if token.kind != TokenType::AttrValue {
            attribute = Attribute::Harmless;
        }
        if !matches!(token.kind, TokenType::AttrName | TokenType::AttrValue) {
            in_meta = false;
            if deferred.take().is_some_and(|tag| tag.runs(site)) {
                return true;
            }
        } else if let Some(tag) = deferred.as_mut() {
            tag.read(token.kind, text);
        }
        match token.kind {
            // A document type declaration runs code only through an internal subset's declarations
            // (`<!DOCTYPE x [<!ENTITY ...>]>`, `[%remote;]`); libinjection flags any. An error message quoting
            // the page a script fetched instead of JSON (`Unexpected token '<', "<!DOCTYPE "...`) runs nothing,
            // nor does the stack under it, whose URLs have brackets (`/products/[slug]/page.js`).
            TokenType::Doctype if styles == Styles::Dangerous || declares_a_subset(text) => {
                return true;
            }
            // A style sheet, like an inline style, runs code only through what it says; a `<meta>` only by
            // refreshing to a URL, setting a cookie or naming a charset that hides markup. Both are in every
            // HTML e-mail and page template (`<meta http-equiv="Content-Type" ...>`, `<style>@media ...`).
            // A `<link>`, a `<base>` and a `<script>` do what their attributes make them do ([`DeferredTag`]);
            // an `<svg>` is an image whose elements, handlers and URLs run code, each judged as it comes.
            TokenType::TagNameOpen => {
                in_meta = styles == Styles::WhenScripted && equals_ignoring_nul(b"META", text);
                deferred = if styles == Styles::WhenScripted {
                    DeferredTag::open(text)
                } else {
                    None
                };
                let runs = if styles == Styles::WhenScripted && equals_ignoring_nul(b"STYLE", text)
                {
                    let sheet = style_sheet(input, token.start + token.len);
                    // In SVG a style sheet is XML text: an escaped tag in it (`&lt;img onerror=...>`) becomes
                    // markup where a sanitiser's output is parsed again as HTML (mutation XSS).
                    is_scripted_style(sheet)
                        || (in_svg
                            && (sheet.contains(&b'<')
                                || mentions(&squeezed(sheet), &[b"&lt", b"&#"])))
                } else if styles == Styles::WhenScripted && is_svg_tag(text) {
                    in_svg = true;
                    false
                } else if styles == Styles::WhenScripted && equals_ignoring_nul(b"XML", text) {
                    // An `<xml>` data island ran code only in Internet Explorer, and only through the data
                    // binding of another element (`datasrc`, judged as a black attribute where it comes); to a
                    // browser of today it is an unknown element. Block editors save programs in it (Blockly's
                    // `<xml><block type=...>`) and Word's pasted HTML carries its settings in it.
                    false
                } else {
                    !in_meta
                        && deferred.is_none()
                        && (is_black_tag(text)
                            || (styles == Styles::WhenScripted && is_esi_tag(text)))
                };
                if runs {
                    return true;
                }
            }
            TokenType::AttrValue if in_meta && is_active_meta_value(text) => return true,
            TokenType::AttrName => {
                attribute = match black_attribute(text) {
                    // Every `on...` attribute of letters is a handler to a browser of today
                    // (`onanimationstart`, `onpointerdown`, `onbeforetoggle`), beyond libinjection's list.
                    Attribute::Harmless
                        if styles == Styles::WhenScripted && is_handler_name(text) =>
                    {
                        Attribute::Black
                    }
                    // The XHTML namespace as an element's default names the elements HTML has, which are
                    // judged by their names (`<html xmlns="http://www.w3.org/1999/xhtml">` opens every
                    // XHTML page and e-mail); under a prefix it hides a `script` as `x:script`.
                    Attribute::Black
                        if styles == Styles::WhenScripted
                            && equals_ignoring_nul(b"XMLNS", text) =>
                    {
                        Attribute::DefaultNamespace
                    }
                    // A namespace declaration or an XLink attribute runs code only through what it names: an
                    // active namespace or a scripting URL. SOAP, WebDAV and feed documents declare namespaces on
                    // every element; libinjection flags the names themselves.
                    Attribute::Black
                        if styles == Styles::WhenScripted && is_namespace_or_link(text) =>
                    {
                        Attribute::Namespace
                    }
                    other => other,
                }
            }
            TokenType::AttrValue => {
                let dangerous = match attribute {
                    Attribute::Harmless => false,
                    Attribute::Black => true,
                    // In an SVG image a style's `url(...)` of another document (`marker-start:url(x.svg#a)`)
                    // loads that document's elements into the image; its own `url(#gradient)` loads nothing.
                    Attribute::Style => {
                        styles == Styles::Dangerous
                            || is_scripted_style(text)
                            || (writes_svg && loads_another_document(text))
                    }
                    Attribute::Url => {
                        is_black_url(input, token)
                            && !(styles == Styles::WhenScripted && is_inert_script_url(text))
                    }
                    Attribute::Namespace => is_active_namespace(text) || is_black_url(input, token),
                    // SVG's namespace as the default of an SVG document's elements is their own (an editor's
                    // `<svg xmlns="http://www.w3.org/2000/svg">`), as XHTML's is an XHTML page's.
                    Attribute::DefaultNamespace => {
                        let own =
                            is_xhtml_namespace(text) || (writes_svg && is_svg_namespace(text));
                        !own && (is_active_namespace(text) || is_black_url(input, token))
                    }
                    Attribute::Indirect => black_attribute(text) != Attribute::Harmless,
                };
                if dangerous {
                    return true;
                }
                attribute = Attribute::Harmless;
            }
            TokenType::TagComment
                if is_black_comment(text)
                    && !(styles == Styles::WhenScripted
                        && (is_xml_declaration(text)
                            || !is_active_comment(text)
                            || is_office_conditional(text))) =>
            {
                return true;
            }
            _ => {}
        }
    }
    // A tag the input ends in.
    deferred.is_some_and(|tag| tag.runs(site))
}

/// Case-insensitive equality of `text` with an upper-case `word`, ignoring NUL bytes in `text`
/// (browsers drop them).
pub(super) fn equals_ignoring_nul(word: &[u8], text: &[u8]) -> bool {
    let mut letters = text
        .iter()
        .filter(|&&c| c != 0)
        .map(|c| c.to_ascii_uppercase());
    word.iter().all(|&w| letters.next() == Some(w)) && letters.next().is_none()
}

/// Whether the tag `name` is SVG's (`svg`, `svg:svg`): an image whose scripts, handlers, links and animations are
/// each an element or an attribute the reading judges as it meets them; the tag itself runs nothing (an icon, a
/// diagram, a drawing's costume saved by an editor).
fn is_svg_tag(name: &[u8]) -> bool {
    name.len() >= 3 && name[..3].eq_ignore_ascii_case(b"SVG")
}

fn is_black_tag(name: &[u8]) -> bool {
    if name.len() < 3 {
        return false;
    }
    BLACK_TAGS.iter().any(|tag| equals_ignoring_nul(tag, name))
        // Anything SVG, and XSL(T).
        || is_svg_tag(name)
        || name[..3].eq_ignore_ascii_case(b"XSL")
}

fn black_attribute(name: &[u8]) -> Attribute {
    if name.len() < 2 {
        return Attribute::Harmless;
    }
    if name.len() >= 5 {
        // Event handlers.
        if name[..2].eq_ignore_ascii_case(b"ON")
            && EVENT_HANDLERS.iter().any(|event| {
                name[2..]
                    .get(..event.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(event))
            })
        {
            return Attribute::Black;
        }
        // `xmlns`/`xlink` can create arbitrary tags.
        if is_namespace_or_link(name) {
            return Attribute::Black;
        }
    }
    BLACK_ATTRIBUTES
        .iter()
        .find(|(attr, _)| equals_ignoring_nul(attr, name))
        .map_or(Attribute::Harmless, |&(_, kind)| kind)
}

/// Namespaces whose elements run code or fetch documents where an XML or XHTML parser honours them: XInclude
/// and XSLT (file and URL inclusion), XHTML, SVG and MathML (script elements and handlers inside XML), and
/// Microsoft's HTML+TIME (`t:set` writing markup into a page) and MSXML's XSLT extensions (`msxsl:script` runs
/// code where the style sheet is applied). Others (SOAP's, XML Schema's, an application's own, and Office's
/// `urn:schemas-microsoft-com:office:*` and VML, which every mail Outlook writes declares and which run code
/// only through a `behavior` style, judged on its own) only name vocabularies.
const ACTIVE_NAMESPACES: [&[u8]; 7] = [
    b"www.w3.org/2001/xinclude",
    b"www.w3.org/1999/xsl/",
    b"www.w3.org/1999/xhtml",
    b"www.w3.org/2000/svg",
    b"www.w3.org/1998/math/",
    b"urn:schemas-microsoft-com:time",
    b"urn:schemas-microsoft-com:xslt",
];

/// Whether the attribute value `value` names an [`ACTIVE_NAMESPACES`] namespace.
fn is_active_namespace(value: &[u8]) -> bool {
    let lower = value.to_ascii_lowercase();
    ACTIVE_NAMESPACES
        .iter()
        .any(|ns| lower.windows(ns.len()).any(|w| w == *ns))
}

/// Whether the tag `name` is Edge Side Includes' (`esi:include`, `esi:vars`, `esi:eval`...): a cache in front of
/// the application (Varnish, Akamai, Fastly, Squid) runs it where the page is assembled, fetching URLs and writing
/// cookies and headers into the page.
fn is_esi_tag(name: &[u8]) -> bool {
    name.len() > 4 && name[..4].eq_ignore_ascii_case(b"esi:")
}

/// Whether the attribute `name` is `on` and three letters or more, NUL bytes dropped as browsers drop them.
fn is_handler_name(name: &[u8]) -> bool {
    let letters = || name.iter().filter(|&&b| b != 0);
    letters().count() >= 5
        && letters().take(2).map(u8::to_ascii_lowercase).eq(*b"on")
        && letters().all(u8::is_ascii_alphabetic)
}

/// Whether the attribute value `value` is the SVG namespace and nothing more.
fn is_svg_namespace(value: &[u8]) -> bool {
    value
        .trim_ascii()
        .eq_ignore_ascii_case(b"http://www.w3.org/2000/svg")
}

/// Whether the attribute value `value` is the XHTML namespace and nothing more.
fn is_xhtml_namespace(value: &[u8]) -> bool {
    let value = value.trim_ascii();
    [
        b"http://www.w3.org/1999/xhtml".as_slice(),
        b"https://www.w3.org/1999/xhtml",
    ]
    .iter()
    .any(|ns| value.eq_ignore_ascii_case(ns))
}

/// What a `<style>` element that opens at `from` holds: `input` up to its end tag (or to the end).
fn style_sheet(input: &[u8], from: usize) -> &[u8] {
    let rest = &input[from.min(input.len())..];
    let end = rest
        .windows(7)
        .position(|w| w.eq_ignore_ascii_case(b"</style"))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// What makes a `<meta>` tag act: a refresh (to a URL, a scripting one included), a cookie set (old browsers),
/// a URL in its content, or a charset that hides markup from a filter reading ASCII (UTF-7, old IE's
/// `x-imap4-modified-utf7`). `Content-Type`, `viewport`, `X-UA-Compatible`, descriptions and Open Graph
/// properties say how to show the page.
fn is_active_meta_value(value: &[u8]) -> bool {
    let value = squeezed(value);
    value == b"refresh"
        || value == b"set-cookie"
        || mentions(
            &value,
            &[
                b"url=",
                b"utf-7",
                b"utf7",
                b"javascript:",
                b"vbscript:",
                b"data:",
            ],
        )
}

/// Whether the comment `text` is a conditional comment for Microsoft Office alone (`[if mso]`, `[if gte mso
/// 9]`), as HTML e-mails carry their Outlook layout in: Outlook renders it with Word, which runs no script, and
/// every browser reads a comment. A condition that names Internet Explorer (`[if (gte mso 9)|(IE)]`) is judged
/// as a conditional comment.
fn is_office_conditional(text: &[u8]) -> bool {
    let Some(end) = text.iter().position(|&b| b == b']') else {
        return false;
    };
    let condition = text[..end].to_ascii_lowercase();
    text.len() > 3
        && text[..3].eq_ignore_ascii_case(b"[IF")
        && condition.windows(3).any(|w| w == b"mso")
        && !condition.windows(2).any(|w| w == b"ie")
}

/// `xmlns`, `xmlns:*`, `xlink:*` attribute names.
fn is_namespace_or_link(name: &[u8]) -> bool {
    name.len() >= 5
        && (equals_ignoring_nul(b"XMLNS", &name[..5]) || equals_ignoring_nul(b"XLINK", &name[..5]))
}

/// IE executes backquote-ended tags in comments, conditional comments `[if`, `<?xml`,
/// `<?import`, and XML entity definitions.
/// Whether a `<?...>` comment's `text` is the XML declaration that starts a document (`xml version="1.0"`), which
/// names the XML version and encoding; IE's `<?xml:namespace ...>` imports behaviours and stays black.
fn is_xml_declaration(text: &[u8]) -> bool {
    text.len() > 3
        && text[..3].eq_ignore_ascii_case(b"XML")
        && text[3].is_ascii_whitespace()
        && text[3..]
            .trim_ascii_start()
            .get(..7)
            .is_some_and(|word| word.eq_ignore_ascii_case(b"version"))
}

/// What of a comment a browser of today can run: Internet Explorer's conditional comments (`[if`) and XML's
/// processing instructions, entities and imports. libinjection also flags any comment with a backquote, an old
/// Internet Explorer quirk; a comment a code span closes (`` `<?php` `` in a message, a bogus comment up to the
/// next `>`) runs nothing.
fn is_active_comment(text: &[u8]) -> bool {
    text.len() > 3
        && (text[..3].eq_ignore_ascii_case(b"[IF") || text[..3].eq_ignore_ascii_case(b"XML"))
        || text.len() > 5
            && (equals_ignoring_nul(b"IMPORT", &text[..6])
                || equals_ignoring_nul(b"ENTITY", &text[..6]))
}

fn is_black_comment(text: &[u8]) -> bool {
    text.contains(&b'`') || is_active_comment(text)
}

/// `javascript:` URLs whose code does nothing, as pages write them on links a script handles
/// (`<a href="javascript:void(0)">`, in menus, rich text and every DOM a session recorder captures), compared
/// without blanks and case.
const INERT_SCRIPT_URLS: &[&[u8]] = &[
    b"javascript:",
    b"javascript:;",
    b"javascript:void(0)",
    b"javascript:void(0);",
    b"javascript:void0",
    b"javascript:void0;",
];

/// Whether `value` is one of the [`INERT_SCRIPT_URLS`] and nothing more, or `javascript:` and a version
/// number (`javascript:3.0.5`, the SDK version Application Insights' JavaScript SDK puts in every telemetry
/// item): digits and dots are a number or a syntax error, no call, no name. A character reference or a percent
/// escape (which a browser decodes before it runs the code) makes it another URL.
pub fn is_inert_script_url(value: &[u8]) -> bool {
    let plain: Vec<u8> = value
        .iter()
        .filter(|b| !b.is_ascii_whitespace())
        .map(u8::to_ascii_lowercase)
        .collect();
    let version = plain.strip_prefix(b"javascript:").is_some_and(|code| {
        code.first().is_some_and(u8::is_ascii_digit)
            && code.iter().all(|&b| b.is_ascii_digit() || b == b'.')
    });
    version || INERT_SCRIPT_URLS.iter().any(|url| plain == *url)
}

/// Whether a URL attribute value starts (after whitespace, control and non-ASCII bytes, and
/// HTML entity decoding) with a dangerous scheme.
fn is_black_url(input: &[u8], value: Token) -> bool {
    let mut start = value.start;
    let end = value.start + value.len;
    while start < end && (input[start] <= 32 || input[start] >= 127) {
        start += 1;
    }
    BLACK_SCHEMES
        .iter()
        .any(|scheme| entity_decoded_starts_with(scheme, input, start, end))
}

/// Whether the HTML-entity-decoded `input[start..end]` starts with the upper-case `prefix`,
/// case-insensitively, ignoring leading whitespace/control characters and any NUL or newline.
fn entity_decoded_starts_with(prefix: &[u8], input: &[u8], mut start: usize, end: usize) -> bool {
    let mut want = prefix.iter().peekable();
    let mut leading = true;
    while start < end {
        if want.peek().is_none() {
            return true;
        }
        let (c, consumed) = decode_char_at(input, start, end);
        start += consumed;
        if leading && c <= 32 {
            continue;
        }
        leading = false;
        if c == 0 || c == u32::from(b'\n') {
            continue;
        }
        let c = if (u32::from(b'a')..=u32::from(b'z')).contains(&c) {
            c - 0x20
        } else {
            c
        };
        // libinjection compares a C `char`: only the low byte of the decoded value counts.
        if want.next().is_some_and(|&w| w != (c & 0xff) as u8) {
            return false;
        }
    }
    want.peek().is_none()
}

/// Largest numeric character reference decoded; anything above is left as a literal `&`
/// (beyond Unicode's range, and it bounds the arithmetic).
const MAX_ENTITY: u32 = 0x10_00FF;

/// Decodes the character at `input[at]` (with `at < end`): a numeric entity (`&#65;`,
/// `&#x41;`, with or without `;`) or a byte. Returns the value and the bytes consumed. As in
/// libinjection, the two bytes after `&#` are read even past `end` (past the input they read
/// as NUL).
fn decode_char_at(input: &[u8], at: usize, end: usize) -> (u32, usize) {
    let byte = |i: usize| u32::from(input.get(i).copied().unwrap_or(0));
    let first = byte(at);
    if first != u32::from(b'&') || end - at < 2 {
        return (first, 1);
    }
    if byte(at + 1) != u32::from(b'#') {
        return (first, 1);
    }
    let amp = (u32::from(b'&'), 1);
    let hex = matches!(byte(at + 2), 0x58 | 0x78);
    let (radix, digits_from) = if hex { (16, at + 3) } else { (10, at + 2) };
    let digit = |i: usize| char::from_u32(byte(i)).and_then(|c| c.to_digit(radix));
    let Some(mut value) = digit(digits_from) else {
        return amp;
    };
    let mut i = digits_from + 1;
    while i < end {
        if byte(i) == u32::from(b';') {
            return (value, i + 1 - at);
        }
        let Some(d) = digit(i) else {
            return (value, i - at);
        };
        value = value * radix + d;
        if value > MAX_ENTITY {
            return amp;
        }
        i += 1;
    }
    (value, i - at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host the values below are sent to.
    const SITE: &[u8] = b"nl.wikipedia.org";

    fn runs_code(input: &[u8]) -> bool {
        super::runs_code(input, SITE)
    }

    #[test]
    fn a_script_url_that_does_nothing_runs_nothing() {
        assert!(!runs_code(b"<a href=\"javascript:void(0)\">Menu</a>"));
        assert!(!runs_code(b"<a href='JavaScript: void 0;'>x</a>"));
        assert!(runs_code(b"<a href=\"javascript:void(0);alert(1)\">x</a>"));
        assert!(is_inert_script_url(b"javascript:3.0.5"));
        assert!(!is_inert_script_url(b"javascript:1-alert(1)"));
        assert!(!is_inert_script_url(b"javascript:1.0.0-beta.1"));
        assert!(runs_code(
            b"<a href=\"javascript:void(0)&#59;alert(1)\">x</a>"
        ));
        assert!(runs_code(
            b"<a href=\"javascript:void(0)%3Balert(1)\">x</a>"
        ));
        assert!(is_xss(b"<a href=\"javascript:void(0)\">Menu</a>"));
    }

    #[test]
    fn a_comment_of_today_runs_nothing_but_a_conditional_or_xml_one() {
        let message = b"nit: `<?php` I can't find the invoice for order #761248";
        assert!(is_xss(message));
        assert!(!runs_code(message));
        assert!(runs_code(
            b"<!--[if gte IE 4]><script>alert(1)</script><![endif]-->"
        ));
        assert!(runs_code(b"<?xml-stylesheet href=\"x.xsl\"?>`"));
        assert!(runs_code(b"`<?php` <img src=x onerror=alert(1)>"));
    }

    #[test]
    fn an_e_mail_template_runs_nothing() {
        let head = br#"<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html xmlns="http://www.w3.org/1999/xhtml"><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"/><meta name="viewport" content="width=device-width"/><style type="text/css">body{margin:0}@media only screen and (max-width:480px){.col{width:100%!important}}</style><!--[if mso]><xml><o:OfficeDocumentSettings><o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml><![endif]--></head><body><p>Hi</p></body></html>"#;
        assert!(is_xss(head));
        assert!(!runs_code(head));
        let outlook = br#"<html xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" xmlns="http://www.w3.org/TR/REC-html40"><head><meta name=Generator content="Microsoft Word 15 (filtered medium)"><style><!-- p.MsoNormal {margin:0in;} --></style><!--[if gte mso 9]><xml><o:shapedefaults v:ext="edit" spidmax="1026" /></xml><![endif]--></head><body lang=EN-US><p class=MsoNormal>Hi<o:p></o:p></p></body></html>"#;
        assert!(!runs_code(outlook));
        for active in [
            &b"<style>li{list-style-image:url(\"javascript:alert(1)\")}</style>"[..],
            b"<style>@import 'http://evil.example/x.css';</style>",
            b"<style onload=alert(1)></style>",
            b"<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
            b"<meta http-equiv=\"Set-Cookie\" content=\"sid=x\">",
            b"<meta charset=\"x-imap4-modified-utf7\">",
            b"<!--[if (gte mso 9)|(IE)]><script>alert(1)</script><![endif]-->",
            b"<x:script xmlns:x=\"http://www.w3.org/1999/xhtml\">alert(1)</x:script>",
            b"<include xmlns=\"http://www.w3.org/2001/XInclude\" href=\"file:///etc/passwd\"/>",
            b"<base href=\"https://evil.example/\">",
            b"<t:set xmlns:t=\"urn:schemas-microsoft-com:time\" attributeName=\"innerHTML\" to=\"x\"/>",
            b"Safari/537.36<esi:include src=\"http://evil.example/x\"/>",
            b"<v:rect xmlns:v=\"urn:schemas-microsoft-com:vml\" style=\"behavior:url(#default#VML)\"/>",
            b"<style>@keyframes a{}b{animation:a;}</style><b onanimationstart=prompt`1`>",
        ] {
            assert!(runs_code(active), "{}", String::from_utf8_lossy(active));
        }
    }

    #[test]
    fn a_data_island_runs_only_through_its_binding() {
        let program = br#"<xml><block type="when_run" deletable="false"><next><block type="maze_turn"><title name="DIR">turnRight</title></block></next></block></xml>"#;
        assert!(is_xss(program));
        assert!(!runs_code(program));
        let bound = br##"<XML ID="x"><I><B>&lt;IMG SRC=x&gt;</B></I></XML><SPAN DATASRC="#x" DATAFLD="B" DATAFORMATAS="HTML"></SPAN>"##;
        assert!(runs_code(bound));
        assert!(runs_code(
            b"<xml><block type=\"x\"><img src=x onerror=alert(1)></block></xml>"
        ));
    }

    #[test]
    fn an_svg_image_runs_only_what_its_elements_and_attributes_run() {
        let costume = br##"<svg version="1.1" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="90" height="161" viewBox="0,0,90,161"><!--rotationCenter:45:80--><g fill="#ffab19" stroke="#000"><path d="M1,2L3,4z"/><text x="5" y="9" font-family="Sans Serif">Hi</text></g></svg>"##;
        assert!(is_xss(costume));
        assert!(!runs_code(costume));
        let gradient = br##"<svg xmlns="http://www.w3.org/2000/svg"><rect style="fill:url(#g);stroke:#000" width="4"/></svg>"##;
        assert!(!runs_code(gradient));
        for active in [
            &b"<svg onload=alert(1)>"[..],
            b"<svg/onload=alert(1)>",
            b"<svg><script>alert(1)</script></svg>",
            b"<svg><animate onbegin=alert(1) attributeName=x dur=1s>",
            b"<svg><a xlink:href=\"javascript:alert(1)\"><text>x</text></a></svg>",
            b"<svg><use href=\"data:image/svg+xml;base64,PHN2Zz4=#x\"/></svg>",
            b"<svg><foreignObject><iframe src=//evil.example></iframe></foreignObject></svg>",
            b"<svg><style>&lt;img/src=x onerror=alert(1)// </b>",
            b"<svg><set attributeName=href to=javascript:alert(1) />",
            b"<svg xmlns=\"http://www.w3.org/2000/svg\"><path d=\"M0,0\" style=\"marker-start:url(test4.svg#a)\"/></svg>",
        ] {
            assert!(runs_code(active), "{}", String::from_utf8_lossy(active));
        }
    }

    #[test]
    fn a_document_type_runs_code_only_through_entities() {
        let message = br#"SyntaxError: Unexpected token '<', "<!DOCTYPE "... is not valid JSON"#;
        assert!(is_xss(message));
        assert!(!runs_code(message));
        assert!(runs_code(
            b"<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"
        ));
        assert!(runs_code(b"<!DOCTYPE x [%remote;]>"));
        let stack = b"SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON\n    at p (https://x.example/_next/static/chunks/app/products/[slug]/page.js:1:2)";
        assert!(!runs_code(stack));
    }
}
