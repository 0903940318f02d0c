//! Request body parsers: urlencoded forms, JSON, multipart forms and XML, into named values.
//!
//! The one rule here: **parsing can only add inspection, never remove it.** A body that is malformed, or that
//! exceeds a parsing limit, still yields its raw bytes as a value, so an attacker gains nothing by breaking the
//! syntax (a classic WAF bypass). The raw body is also always available as `BODY`.

use serde::de::DeserializeSeed;
use std::borrow::Cow;
use std::io::Write;

/// A named value of a collection (an argument, a cookie, a header...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item<'r> {
    pub name: Cow<'r, [u8]>,
    pub value: Cow<'r, [u8]>,
}

impl<'r> Item<'r> {
    pub fn borrowed(name: &'r [u8], value: &'r [u8]) -> Self {
        Item {
            name: Cow::Borrowed(name),
            value: Cow::Borrowed(value),
        }
    }

    /// The raw-inspection fallback: no name (so it is not an argument name), the raw bytes as value.
    pub fn raw(value: &'r [u8]) -> Self {
        Item::borrowed(b"", value)
    }
}

/// At most this many arguments are parsed from one query string, form body, JSON body or cookie header, like
/// ModSecurity's `SecArgumentsLimit` (1000). It bounds the work an attacker can buy with one request; what is
/// past the limit is inspected raw, as one more value, so stuffing arguments is not a bypass.
pub const MAX_ARGS: usize = 1000;

/// At most this many multipart parts are parsed; the same reasoning and fallback as [`MAX_ARGS`].
pub const MAX_MULTIPART_PARTS: usize = 256;

/// JSON nesting deeper than this is not walked (serde_json itself stops at 128): a deeply nested document is
/// inspected raw instead. Real APIs nest a handful of levels; deeper is a stack-exhaustion attempt.
pub const MAX_JSON_DEPTH: usize = 64;

/// How a body is parsed, from its `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    UrlEncoded,
    Json,
    Multipart,
    Xml,
    /// Absent or unknown content type: the raw body is the one `ARGS_POST` value.
    Other,
}

impl BodyKind {
    pub fn from_content_type(content_type: Option<&[u8]>) -> BodyKind {
        let Some(ct) = content_type else {
            return BodyKind::Other;
        };
        let media = ct.split(|b| *b == b';').next().unwrap_or(&[]);
        let media = String::from_utf8_lossy(media).trim().to_ascii_lowercase();
        match media.as_str() {
            "application/x-www-form-urlencoded" => BodyKind::UrlEncoded,
            "multipart/form-data" => BodyKind::Multipart,
            "application/json" => BodyKind::Json,
            "application/xml" | "text/xml" => BodyKind::Xml,
            m if m.ends_with("+json") => BodyKind::Json,
            m if m.ends_with("+xml") => BodyKind::Xml,
            _ => BodyKind::Other,
        }
    }
}

/// The values a body yields.
#[derive(Debug, Default)]
pub struct ParsedBody<'r> {
    /// `ARGS_POST` (names are `ARGS_POST_NAMES`); a raw fallback value has an empty name.
    pub args: Vec<Item<'r>>,
    /// `XML`: the document's text (name `/*`) and attribute values (name `@*`).
    pub xml: Vec<Item<'r>>,
}

pub fn parse_body<'r>(body: &'r [u8], content_type: Option<&'r [u8]>) -> ParsedBody<'r> {
    let mut parsed = ParsedBody::default();
    if body.is_empty() {
        return parsed;
    }
    match BodyKind::from_content_type(content_type) {
        BodyKind::UrlEncoded => parsed.args = parse_urlencoded(body, b'&'),
        BodyKind::Json => parsed.args = parse_json(body),
        BodyKind::Multipart => {
            parsed.args = parse_multipart(body, content_type.unwrap_or_default())
        }
        BodyKind::Xml => parsed.xml = parse_xml(body),
        BodyKind::Other => parsed.args.push(Item::raw(body)),
    }
    parsed
}

/// `a=1&b=2` (the query string, or a form body): names and values URL-decoded as ModSecurity does
/// (`urlDecode`: `+` is a space, invalid escapes kept). Empty segments are skipped; a segment without `=` is a
/// name with an empty value.
pub fn parse_urlencoded(input: &[u8], separator: u8) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        if items.len() == MAX_ARGS {
            items.push(Item::raw(rest));
            break;
        }
        let end = memchr::memchr(separator, rest).unwrap_or(rest.len());
        let pair = &rest[..end];
        rest = rest.get(end + 1..).unwrap_or(&[]);
        if pair.is_empty() {
            continue;
        }
        let (name, value) = match memchr::memchr(b'=', pair) {
            Some(eq) => (&pair[..eq], &pair[eq + 1..]),
            None => (pair, &[][..]),
        };
        items.push(Item {
            name: decode_arg(name),
            value: decode_arg(value),
        });
    }
    items
}

fn decode_arg(raw: &[u8]) -> Cow<'_, [u8]> {
    if raw.iter().any(|b| matches!(b, b'%' | b'+')) {
        Cow::Owned(crate::transform::url_decode(raw))
    } else {
        Cow::Borrowed(raw)
    }
}

/// Cookie headers: `a=1; b=2`. Values are not decoded (ModSecurity does not); names and values are trimmed.
pub fn parse_cookies(header: &[u8]) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    for (i, pair) in header.split(|b| *b == b';').enumerate() {
        if i == MAX_ARGS {
            let consumed: usize = header
                .split(|b| *b == b';')
                .take(i)
                .map(|p| p.len() + 1)
                .sum();
            items.push(Item::raw(&header[consumed.min(header.len())..]));
            break;
        }
        let pair = trim_spaces(pair);
        if pair.is_empty() {
            continue;
        }
        let (name, value) = match memchr::memchr(b'=', pair) {
            Some(eq) => (trim_spaces(&pair[..eq]), trim_spaces(&pair[eq + 1..])),
            None => (pair, &[][..]),
        };
        items.push(Item::borrowed(name, value));
    }
    items
}

fn trim_spaces(v: &[u8]) -> &[u8] {
    let start = v
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(v.len());
    let end = v
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &v[start..end]
}

/// JSON leaves, named by their dotted path under `json` as ModSecurity names them (`json.user.name`; array
/// elements by index, `json.ids.0`). Strings are unescaped; numbers, booleans and null as written. Leaves come
/// in document order, a repeated key once per occurrence (an application may read either). The document is
/// walked as it is parsed, without building a tree of it (building it and then walking it was most of a JSON
/// request's inspection time).
fn parse_json(body: &[u8]) -> Vec<Item<'_>> {
    let mut walk = JsonWalk {
        // Leaf names repeat their parents' keys, so a long key over many leaves could make the names far larger
        // than the body (memory amplification). Names and values together get at most this many bytes; past
        // that the walk stops and the raw body is inspected instead.
        budget: body.len().saturating_mul(2).saturating_add(4096),
        items: Vec::new(),
        path: b"json".to_vec(),
        stopped: false,
    };
    let mut parser = serde_json::Deserializer::from_slice(body);
    let parsed = Leaves {
        walk: &mut walk,
        depth: 0,
    }
    .deserialize(&mut parser)
    .and_then(|()| parser.end());
    if parsed.is_err() {
        return vec![Item::raw(body)];
    }
    if walk.stopped {
        walk.items.push(Item::raw(body));
    }
    walk.items
}

struct JsonWalk<'r> {
    budget: usize,
    items: Vec<Item<'r>>,
    /// The dotted name of the value being parsed.
    path: Vec<u8>,
    /// A limit stopped the walk: the rest of the document is parsed but not collected, and the raw body is
    /// inspected as well.
    stopped: bool,
}

impl JsonWalk<'_> {
    fn leaf(&mut self, text: &[u8]) {
        if self.items.len() >= MAX_ARGS {
            self.stopped = true;
            return;
        }
        match self.budget.checked_sub(self.path.len() + text.len()) {
            Some(left) => self.budget = left,
            None => {
                self.stopped = true;
                return;
            }
        }
        self.items.push(Item {
            name: Cow::Owned(self.path.clone()),
            value: Cow::Owned(text.to_vec()),
        });
    }

    /// A number as `serde_json` writes it (the text a rule sees does not depend on how it was parsed).
    fn number(&mut self, number: serde_json::Number) {
        self.leaf(number.to_string().as_bytes());
    }
}

/// One JSON value at `depth`, collected into the walk.
struct Leaves<'w, 'r> {
    walk: &'w mut JsonWalk<'r>,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Leaves<'_, '_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, parser: D) -> Result<(), D::Error> {
        if self.depth > MAX_JSON_DEPTH {
            self.walk.stopped = true;
        }
        if self.walk.stopped {
            return parser
                .deserialize_ignored_any(serde::de::IgnoredAny)
                .map(|_| ());
        }
        parser.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Leaves<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.walk.leaf(if v { b"true" } else { b"false" });
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.walk.number(v.into());
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.walk.number(v.into());
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        // Parsed JSON numbers are finite; a non-finite one would have no text.
        match serde_json::Number::from_f64(v) {
            Some(number) => self.walk.number(number),
            None => self.walk.leaf(b""),
        }
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.walk.leaf(v.as_bytes());
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.walk.leaf(b"");
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0usize;
        loop {
            let len = self.walk.path.len();
            // Writing to a vector cannot fail.
            let _ = write!(self.walk.path, ".{index}");
            let element = seq.next_element_seed(Leaves {
                walk: self.walk,
                depth: self.depth + 1,
            })?;
            self.walk.path.truncate(len);
            if element.is_none() {
                return Ok(());
            }
            index += 1;
        }
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        loop {
            let len = self.walk.path.len();
            self.walk.path.push(b'.');
            if map.next_key_seed(KeyInto(&mut self.walk.path))?.is_none() {
                self.walk.path.truncate(len);
                return Ok(());
            }
            map.next_value_seed(Leaves {
                walk: self.walk,
                depth: self.depth + 1,
            })?;
            self.walk.path.truncate(len);
        }
    }
}

/// An object key, appended to the path as it is parsed (no allocation for it).
struct KeyInto<'p>(&'p mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for KeyInto<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, parser: D) -> Result<(), D::Error> {
        parser.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeyInto<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, key: &str) -> Result<(), E> {
        self.0.extend_from_slice(key.as_bytes());
        Ok(())
    }
}

/// `multipart/form-data`: form fields become arguments (file parts do not, as in ModSecurity: their content is
/// in `BODY`). Missing boundary, a missing closing delimiter or a part without a header block make the whole
/// body one raw value instead.
fn parse_multipart<'r>(body: &'r [u8], content_type: &[u8]) -> Vec<Item<'r>> {
    match multipart_fields(body, content_type) {
        Some(items) => items,
        None => vec![Item::raw(body)],
    }
}

fn multipart_fields<'r>(body: &'r [u8], content_type: &[u8]) -> Option<Vec<Item<'r>>> {
    let boundary = header_param(content_type, b"boundary")?;
    if boundary.is_empty() {
        return None;
    }
    let mut delimiter = b"--".to_vec();
    delimiter.extend_from_slice(&boundary);
    let finder = memchr::memmem::Finder::new(&delimiter);
    let first = finder.find(body)?;
    let mut rest = &body[first + delimiter.len()..];
    let mut items = Vec::new();
    let mut parts = 0;
    loop {
        if rest.starts_with(b"--") {
            return Some(items);
        }
        rest = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))?;
        let next = finder.find(rest)?;
        let part = &rest[..next];
        let part = part
            .strip_suffix(b"\r\n")
            .or_else(|| part.strip_suffix(b"\n"))
            .unwrap_or(part);
        rest = &rest[next + delimiter.len()..];
        parts += 1;
        if parts > MAX_MULTIPART_PARTS {
            items.push(Item::raw(body));
            return Some(items);
        }
        let (headers, content) = split_part(part)?;
        let disposition = headers
            .split(|b| *b == b'\n')
            .find(|l| l.len() > 20 && l[..20].eq_ignore_ascii_case(b"content-disposition:"))?;
        if header_param(disposition, b"filename").is_some() {
            continue;
        }
        let name = header_param(disposition, b"name").unwrap_or_default();
        items.push(Item {
            name: Cow::Owned(name),
            value: Cow::Borrowed(content),
        });
    }
}

/// Splits a part into its header block and content at the first blank line.
fn split_part(part: &[u8]) -> Option<(&[u8], &[u8])> {
    if let Some(at) = memchr::memmem::find(part, b"\r\n\r\n") {
        return Some((&part[..at], &part[at + 4..]));
    }
    memchr::memmem::find(part, b"\n\n").map(|at| (&part[..at], &part[at + 2..]))
}

/// The value of `name=value` or `name="value"` in a header such as `Content-Type` or `Content-Disposition`.
fn header_param(header: &[u8], name: &[u8]) -> Option<Vec<u8>> {
    for param in header.split(|b| *b == b';').skip(1) {
        let param = trim_spaces(param);
        let Some(eq) = memchr::memchr(b'=', param) else {
            continue;
        };
        if !trim_spaces(&param[..eq]).eq_ignore_ascii_case(name) {
            continue;
        }
        let value = trim_spaces(&param[eq + 1..]);
        let value = value
            .strip_prefix(b"\"")
            .and_then(|v| v.strip_suffix(b"\""))
            .unwrap_or(value);
        return Some(value.to_vec());
    }
    None
}

/// XML: the text of the root element (all its text and CDATA, concatenated, which is what ModSecurity's
/// `XML:/*` XPath yields) named `/*`, and each attribute value named `@*`. Entities are the five predefined ones
/// and character references; DTD entities are never expanded (no XXE). Broken XML is inspected raw under both
/// names.
fn parse_xml(body: &[u8]) -> Vec<Item<'_>> {
    match xml_values(body) {
        Some(items) => items,
        None => vec![Item::borrowed(b"/*", body), Item::borrowed(b"@*", body)],
    }
}

fn xml_values(body: &[u8]) -> Option<Vec<Item<'_>>> {
    use quick_xml::events::{BytesStart, Event};
    let mut reader = quick_xml::Reader::from_reader(body);
    let mut text = Vec::new();
    let mut attrs: Vec<Item<'_>> = Vec::new();
    let mut depth = 0usize;
    let mut seen_root = false;
    let collect_attrs = |e: &BytesStart<'_>, attrs: &mut Vec<Item<'_>>| -> Option<()> {
        for attr in e.attributes() {
            let value = attr.ok()?.unescape_value().ok()?;
            attrs.push(Item {
                name: Cow::Borrowed(&b"@*"[..]),
                value: Cow::Owned(value.into_owned().into_bytes()),
            });
        }
        Some(())
    };
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) => {
                seen_root = true;
                depth += 1;
                collect_attrs(&e, &mut attrs)?;
            }
            Event::Empty(e) => {
                seen_root = true;
                collect_attrs(&e, &mut attrs)?;
            }
            Event::End(_) => depth = depth.checked_sub(1)?,
            Event::Text(t) if depth > 0 => text.extend_from_slice(t.decode().ok()?.as_bytes()),
            Event::CData(t) if depth > 0 => text.extend_from_slice(&t),
            Event::GeneralRef(r) if depth > 0 => {
                let resolved = match r.resolve_char_ref().ok()? {
                    Some(c) => c.to_string(),
                    None => {
                        quick_xml::escape::resolve_predefined_entity(&r.decode().ok()?)?.to_owned()
                    }
                };
                text.extend_from_slice(resolved.as_bytes());
            }
            Event::Eof => break,
            _ => {}
        }
        if attrs.len() > MAX_ARGS {
            // Attribute stuffing: stop walking and inspect the whole document raw.
            return None;
        }
    }
    if !seen_root || depth != 0 {
        return None;
    }
    let mut items = vec![Item {
        name: Cow::Borrowed(&b"/*"[..]),
        value: Cow::Owned(text),
    }];
    items.extend(attrs);
    Some(items)
}
