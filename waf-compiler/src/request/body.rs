//! Request body parsers: urlencoded forms, JSON, multipart forms and XML, into named values.
//!
//! The one rule here: **parsing can only add inspection, never remove it.** A body that is malformed, or that
//! exceeds a parsing limit, still yields its raw bytes as a value, so an attacker gains nothing by breaking the
//! syntax (a classic WAF bypass). The raw body is also always available as `BODY`.
//!
//! Values borrow from the request where its bytes already are; what parsing produces (decoded arguments, JSON
//! leaf names, XML text) is written into the request's arena ([`bumpalo::Bump`]), which is reset after the
//! request: no heap allocation and no free per value.

use super::protobuf;
use bumpalo::Bump;
use bumpalo::collections::Vec as ArenaVec;
use serde::de::DeserializeSeed;
use std::fmt::Write;

/// A named value of a collection (an argument, a cookie, a header...), borrowed from the request or its arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item<'a> {
    pub name: &'a [u8],
    pub value: &'a [u8],
    /// The value is the text another value encodes ([`super::base64_text`]): one more value to inspect, not
    /// one more name or argument.
    pub decoded: bool,
}

impl<'a> Item<'a> {
    pub fn new(name: &'a [u8], value: &'a [u8]) -> Self {
        Item {
            name,
            value,
            decoded: false,
        }
    }

    /// The raw-inspection fallback: no name (so it is not an argument name), the raw bytes as value.
    pub fn raw(value: &'a [u8]) -> Self {
        Item::new(b"", value)
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
    /// `multipart/related` (RFC 2387): a document and the parts it refers to, as Google's APIs take an upload
    /// with its metadata (`uploadType=multipart`) and SOAP a message with its attachments (MTOM). ModSecurity has
    /// no processor for it; here each part is read by its own `Content-Type`, its values nameless `ARGS_POST`
    /// values (a JSON part's leaves under their `json.` names), and `REQUEST_BODY` keeps the raw bytes.
    Related,
    /// Absent or unknown content type: the raw body is the one `ARGS_POST` value.
    Other,
}

impl BodyKind {
    pub fn from_content_type(content_type: Option<&[u8]>) -> BodyKind {
        let Some(ct) = content_type else {
            return BodyKind::Other;
        };
        let media = ct.split(|b| *b == b';').next().unwrap_or(&[]);
        let media = media.trim_ascii();
        let is = |name: &[u8]| media.eq_ignore_ascii_case(name);
        let ends_with = |suffix: &[u8]| {
            media.len() >= suffix.len()
                && media[media.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
        };
        if is(b"application/x-www-form-urlencoded") {
            BodyKind::UrlEncoded
        } else if is(b"multipart/form-data") {
            BodyKind::Multipart
        } else if is(b"multipart/related") {
            BodyKind::Related
        } else if is(b"application/json") || ends_with(b"+json") {
            BodyKind::Json
        } else if is(b"application/xml") || is(b"text/xml") || ends_with(b"+xml") {
            BodyKind::Xml
        } else {
            BodyKind::Other
        }
    }
}

/// The values a body yields.
#[derive(Debug, Default, Clone, Copy)]
pub struct ParsedBody<'a> {
    /// `ARGS_POST` (names are `ARGS_POST_NAMES`); a raw fallback value has an empty name.
    pub args: &'a [Item<'a>],
    /// `XML`: the document's text (name `/*`) and attribute values (name `@*`).
    pub xml: &'a [Item<'a>],
    /// `FILES`: the file name of each multipart file part, named by the part's field name (`FILES_NAMES`).
    pub files: &'a [Item<'a>],
    /// `MULTIPART_PART_HEADERS`: each header line of each multipart part, as sent, named by the part's name.
    pub part_headers: &'a [Item<'a>],
}

pub fn parse_body<'a>(
    arena: &'a Bump,
    body: &'a [u8],
    content_type: Option<&'a [u8]>,
) -> ParsedBody<'a> {
    let mut parsed = ParsedBody::default();
    if body.is_empty() {
        return parsed;
    }
    match BodyKind::from_content_type(content_type) {
        BodyKind::UrlEncoded => match form_labelled_xml(arena, body) {
            Some(xml) => parsed.xml = xml,
            None => {
                parsed.args = form_labelled_binary(arena, body)
                    .unwrap_or_else(|| parse_urlencoded(arena, body, b'&'))
            }
        },
        BodyKind::Json => parsed.args = parse_json(arena, body),
        BodyKind::Multipart => {
            (parsed.args, parsed.files, parsed.part_headers) =
                parse_multipart(arena, body, content_type.unwrap_or_default())
        }
        BodyKind::Xml => parsed.xml = parse_xml(arena, body),
        BodyKind::Related => {
            parsed.args = parse_related(arena, body, content_type.unwrap_or_default())
                .unwrap_or_else(|| parse_untyped(arena, body, content_type))
        }
        BodyKind::Other => parsed.args = parse_untyped(arena, body, content_type),
    }
    parsed
}

/// A body whose content type names no parser (`text/plain` from `navigator.sendBeacon`, `application/csp-report`,
/// protobuf, `application/octet-stream`, none at all) is read as what its bytes are, as the application reading
/// it would:
/// - a JSON document (beacons and browser reports are JSON sent as `text/plain` or their own media type) is
///   parsed as JSON, its leaves named as JSON's are;
/// - binary data (a NUL byte, or bytes that are not UTF-8: protobuf, gRPC frames, images) yields the strings of
///   a protobuf message when it is one to its last byte ([`protobuf`]), else its runs of text, so that a rule
///   reads the strings an application will decode, not the bytes between them, which no text rule is written for;
/// - anything else is one raw value.
///
/// Whatever it is, `REQUEST_BODY` and `BODY` still hold the raw bytes.
fn parse_untyped<'a>(
    arena: &'a Bump,
    body: &'a [u8],
    content_type: Option<&[u8]>,
) -> &'a [Item<'a>] {
    // A script's batch is posted unlabelled or as text; a compressed file is uploaded labelled as an archive or
    // as bytes (`application/gzip`, `application/octet-stream`: a `.sql.gz` backup), whose content the
    // application stores rather than reads.
    let as_text = content_type
        .is_none_or(|label| label.len() >= 5 && label[..5].eq_ignore_ascii_case(b"text/"));
    match as_text.then(|| compressed(body)).flatten() {
        Some(decoded) => parse_uncompressed(arena, arena.alloc_slice_copy(&decoded)),
        None => parse_uncompressed(arena, body),
    }
}

/// At most this many bytes are inflated from a body compressed without a `Content-Encoding` ([`compressed`]):
/// a beacon or an event batch is a few kilobytes, and a compression bomb inflates no further.
const MAX_INFLATED: usize = 1 << 20;

/// `body` inflated, when it is one whole gzip or zlib stream sent without a `Content-Encoding`: analytics and
/// session-replay scripts compress their batches in the page and post the bytes as they are (PostHog's
/// `compression=gzip-js`, Datadog's RUM, Microsoft Clarity), and their collectors inflate them. Read as sent,
/// such a body is noise whose short printable runs trip patterns by chance (`";` of a SQL split query); inflated,
/// it is the JSON the collector reads, and an injection compressed to hide is found.
fn compressed(body: &[u8]) -> Option<Vec<u8>> {
    use super::coding::Coding;
    let gzip = body.starts_with(&[0x1f, 0x8b, 0x08]);
    // RFC 1950's header: deflate (method 8) with a window of at most 32 KiB, and a check making it a multiple of 31.
    let zlib = body.len() >= 2
        && body[0] & 0x0f == 8
        && body[0] >> 4 <= 7
        && (u16::from(body[0]) << 8 | u16::from(body[1])) % 31 == 0;
    let coding = match (gzip, zlib) {
        (true, _) => Coding::Gzip,
        (_, true) => Coding::Deflate,
        _ => return None,
    };
    // A limit above the body's own length: `decode` then takes a stream that breaks off for no such stream (it
    // reads one cut short only from a body cut at the read limit), and inflates at most the limit.
    coding.decode(body, MAX_INFLATED.max(body.len() + 1))
}

/// Whether `body` is binary data: a NUL byte, or bytes that are not UTF-8 with a control character among them
/// (text of any language a form, a JSON document or a script sends is UTF-8 without NUL). Bytes that are not
/// UTF-8 but no control character are text in a legacy 8-bit encoding (an accounting import in Windows-1252,
/// DATEV's `Buchungsstapel` CSV): one value, read whole, not runs cut at each accented letter.
fn is_binary(body: &[u8]) -> bool {
    let control = |b: &u8| (*b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || *b == 0x7f;
    body.contains(&0) || (std::str::from_utf8(body).is_err() && body.iter().any(control))
}

/// [`parse_untyped`] of a body that is not, or no longer, compressed.
///
/// Binary data is told first: JSON is UTF-8 text without NUL bytes (RFC 8259), so binary data whose first byte
/// happens to be `{` or `[` (one body in a hundred and twenty-eight) is no JSON document to fall back from whole.
fn parse_uncompressed<'a>(arena: &'a Bump, body: &'a [u8]) -> &'a [Item<'a>] {
    if is_binary(body) {
        return match protobuf::fields(body) {
            Some(fields) => protobuf_values(arena, body, &fields),
            None => text_runs(arena, body),
        };
    }
    let first = body
        .iter()
        .find(|&&b| !b.is_ascii_whitespace() && b != RECORD_SEPARATOR);
    if matches!(first, Some(b'{' | b'[')) {
        return parse_json(arena, body);
    }
    arena.alloc_slice_copy(&[Item::raw(body)])
}

/// The strings of a protobuf message, each a nameless `ARGS_POST` value, then the text runs of its fields that
/// are neither text nor a message; past [`MAX_ARGS`] values, the whole body is one more value, raw.
fn protobuf_values<'a>(
    arena: &'a Bump,
    body: &'a [u8],
    fields: &protobuf::Fields<'a>,
) -> &'a [Item<'a>] {
    let mut items = ArenaVec::new_in(arena);
    items.extend(fields.strings.iter().map(|&string| Item::raw(string)));
    for &bytes in &fields.bytes {
        items.extend_from_slice(text_runs(arena, bytes));
    }
    if items.len() > MAX_ARGS {
        items.truncate(MAX_ARGS);
        items.push(Item::raw(body));
    }
    items.into_bump_slice()
}

/// Runs of text shorter than this in structured binary data (protobuf, gRPC frames) are not inspected: a tag and
/// a length are one to three bytes; a payload is longer.
const MIN_TEXT_RUN: usize = 4;

/// In opaque binary data (compressed, encrypted, media: [`is_opaque`]) a run of printable bytes is chance, and
/// runs of a few bytes come by the dozen in every kilobyte (37% of random bytes are printable ASCII). A run of
/// this length is one in 10^13 by chance, so the text found there is text someone put there.
const MIN_OPAQUE_TEXT_RUN: usize = 32;

/// Shannon entropy, in bits per byte, above which data is opaque: compressed and encrypted data and media come
/// close to 8; protobuf with its strings and numbers, and any text, stay well under 7.
const OPAQUE_ENTROPY_BITS: f64 = 7.0;

/// Whether `body` is opaque binary data, by the entropy of its bytes.
fn is_opaque(body: &[u8]) -> bool {
    let mut counts = [0u32; 256];
    for &b in body {
        counts[usize::from(b)] += 1;
    }
    let len = body.len() as f64;
    let entropy: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / len;
            -p * p.log2()
        })
        .sum();
    entropy > OPAQUE_ENTROPY_BITS
}

/// The runs of printable text (valid UTF-8, no control characters but tab, CR and LF) of binary `body`, each a
/// nameless `ARGS_POST` value; past [`MAX_ARGS`] runs, the rest of the body is one more value, raw.
fn text_runs<'a>(arena: &'a Bump, body: &'a [u8]) -> &'a [Item<'a>] {
    let min_run = match is_opaque(body) {
        true => MIN_OPAQUE_TEXT_RUN,
        false => MIN_TEXT_RUN,
    };
    let mut items = ArenaVec::new_in(arena);
    let mut offset = 0;
    for chunk in body.utf8_chunks() {
        let valid = chunk.valid().as_bytes();
        for run in valid.split(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r') || b == 0x7f) {
            if run.len() < min_run {
                continue;
            }
            if items.len() == MAX_ARGS {
                items.push(Item::raw(&body[offset..]));
                return items.into_bump_slice();
            }
            items.push(Item::raw(run));
        }
        offset += valid.len() + chunk.invalid().len();
    }
    items.into_bump_slice()
}

/// `a=1&b=2` (the query string, or a form body): names and values URL-decoded as ModSecurity does
/// (`urlDecode`: `+` is a space, invalid escapes kept). Empty segments are skipped; a segment without `=` is a
/// name with an empty value.
pub fn parse_urlencoded<'a>(arena: &'a Bump, input: &'a [u8], separator: u8) -> &'a [Item<'a>] {
    let mut items = ArenaVec::new_in(arena);
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
        items.push(Item::new(decode_arg(arena, name), decode_arg(arena, value)));
    }
    items.into_bump_slice()
}

fn decode_arg<'a>(arena: &'a Bump, raw: &'a [u8]) -> &'a [u8] {
    if raw.iter().any(|b| matches!(b, b'%' | b'+')) {
        crate::transform::url_decode_in(arena, raw)
    } else {
        raw
    }
}

/// The cookies of one `Cookie` header (`a=1; b=2`), appended to `items`. Values are not decoded (ModSecurity
/// does not); names and values are trimmed.
pub fn parse_cookies<'a>(header: &'a [u8], items: &mut ArenaVec<'a, Item<'a>>) {
    // Pairs found with memchr: a byte-by-byte split was most of the cost of a browser's Cookie header.
    let mut start = 0;
    for i in 0..=MAX_ARGS {
        let rest = &header[start..];
        if i == MAX_ARGS {
            items.push(Item::raw(rest));
            return;
        }
        let end = memchr::memchr(b';', rest).unwrap_or(rest.len());
        let pair = rest[..end].trim_ascii();
        if !pair.is_empty() {
            let (name, value) = match memchr::memchr(b'=', pair) {
                Some(eq) => (pair[..eq].trim_ascii(), pair[eq + 1..].trim_ascii()),
                None => (pair, &[][..]),
            };
            items.push(Item::new(name, value));
        }
        if end == rest.len() {
            return;
        }
        start += end + 1;
    }
}

/// JSON leaves, named by their dotted path under `json` as ModSecurity names them (`json.user.name`; array
/// elements by index, `json.ids.0`). Strings are unescaped; numbers, booleans and null as written. Leaves come
/// in document order, a repeated key once per occurrence (an application may read either). The document is
/// walked as it is parsed, without building a tree of it (building it and then walking it was most of a JSON
/// request's inspection time). A body of several documents one after another (NDJSON and JSON Lines: log and
/// event shipments, RUM beacons, Elasticsearch's bulk and multi-search) yields each document's leaves in turn,
/// under the same names, as a reader of lines parses them.
pub(super) fn parse_json<'a>(arena: &'a Bump, body: &'a [u8]) -> &'a [Item<'a>] {
    let mut walk = JsonWalk {
        // Leaf names repeat their parents' keys, so a long key over many leaves could make the names far larger
        // than the body (memory amplification). Names and values together get at most this many bytes; past
        // that the walk stops and the raw body is inspected instead.
        budget: body.len().saturating_mul(2).saturating_add(4096),
        arena,
        items: ArenaVec::new_in(arena),
        path: b"json".to_vec(),
        stopped: false,
        nested: 0,
    };
    // Documents follow one another apart by blanks (NDJSON, Elasticsearch's bulk bodies) or by the record
    // separator (RFC 7464's JSON text sequences; SignalR's JSON hub protocol ends each message with it). A raw RS
    // is no part of a document (JSON escapes control characters in strings), so splitting at it cuts none.
    let parsed = body
        .split(|&b| b == RECORD_SEPARATOR)
        .filter(|sequence| !sequence.trim_ascii().is_empty())
        .try_for_each(|sequence| walk.documents(sequence));
    if parsed.is_err() {
        return arena.alloc_slice_copy(&[Item::raw(body)]);
    }
    if walk.stopped {
        walk.items.push(Item::raw(body));
    }
    walk.items.into_bump_slice()
}

struct JsonWalk<'a> {
    budget: usize,
    arena: &'a Bump,
    items: ArenaVec<'a, Item<'a>>,
    /// The dotted name of the value being parsed.
    path: Vec<u8>,
    /// A limit stopped the walk: the rest of the document is parsed but not collected, and the raw body is
    /// inspected as well.
    stopped: bool,
    /// How many JSON strings holding documents the value being parsed is inside ([`Leaves::nested_document`]).
    nested: usize,
}

/// The record separator (ASCII RS) that sets JSON documents apart in a text sequence.
const RECORD_SEPARATOR: u8 = 0x1e;

impl<'a> JsonWalk<'a> {
    /// Walks the JSON documents of `text`, one after another apart by whitespace.
    fn documents(&mut self, text: &'a [u8]) -> Result<(), serde_json::Error> {
        let mut parser = serde_json::Deserializer::from_slice(text);
        loop {
            let document = Leaves {
                walk: self,
                depth: 0,
            }
            .deserialize(&mut parser);
            // `end` only skips whitespace when more follows: the next document starts where it stopped.
            match document.map(|()| parser.end()) {
                Ok(Ok(())) => return Ok(()),
                Ok(Err(_)) => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// A leaf whose text is in the body (a string without escapes) or in the arena already.
    fn leaf_in_place(&mut self, text: &'a [u8]) {
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
        let name = self.arena.alloc_slice_copy(&self.path);
        self.items.push(Item::new(name, text));
    }

    /// A leaf whose text is elsewhere (an unescaped string): copied into the arena.
    fn leaf(&mut self, text: &[u8]) {
        let text = self.arena.alloc_slice_copy(text);
        self.leaf_in_place(text);
    }

    /// A number as `serde_json` writes it (the text a rule sees does not depend on how it was parsed).
    fn number(&mut self, number: serde_json::Number) {
        let mut text = bumpalo::collections::String::new_in(self.arena);
        // Writing to a string cannot fail.
        let _ = write!(text, "{number}");
        self.leaf_in_place(text.into_bump_str().as_bytes());
    }
}

/// One JSON value at `depth`, collected into the walk.
struct Leaves<'w, 'a> {
    walk: &'w mut JsonWalk<'a>,
    depth: usize,
}

/// JSON documents in JSON strings are walked this many levels deep; deeper, the string is a leaf. Each level
/// is unescaped into the arena again, so the bound keeps a body's memory a small multiple of its size; real
/// APIs nest once or twice (an event's payload, a state in a field).
const MAX_NESTED_DOCUMENTS: usize = 3;

/// Whether a string is shaped as a JSON object or array (the cheap test before [`Leaves::nested_document`]).
fn is_document_text(v: &str) -> bool {
    let v = v.trim_ascii();
    matches!(
        (v.as_bytes().first(), v.as_bytes().last()),
        (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']'))
    )
}

impl<'a> Leaves<'_, 'a> {
    /// A string that is itself a JSON document (an event's payload, a serialised state, a GraphQL variables
    /// object: APIs nest JSON in JSON strings all the time) is walked as part of the document, its leaves named
    /// under the string's name, so rules see its values unescaped, as the application reading it will, rather
    /// than JSON syntax with escaped quotes. Whether it was: a string that does not parse whole is a leaf as
    /// usual (and any leaves collected before its error stay, inspected too).
    fn nested_document(&mut self, v: &'a str) -> bool {
        if !is_document_text(v) || self.walk.nested >= MAX_NESTED_DOCUMENTS {
            return false;
        }
        self.walk.nested += 1;
        let mut parser = serde_json::Deserializer::from_str(v);
        let parsed = Leaves {
            walk: self.walk,
            depth: self.depth + 1,
        }
        .deserialize(&mut parser)
        .and_then(|()| parser.end())
        .is_ok();
        self.walk.nested -= 1;
        parsed
    }
}

impl<'a> DeserializeSeed<'a> for Leaves<'_, 'a> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'a>>(self, parser: D) -> Result<(), D::Error> {
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

impl<'a> serde::de::Visitor<'a> for Leaves<'_, 'a> {
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

    fn visit_borrowed_str<E>(mut self, v: &'a str) -> Result<(), E> {
        if !self.nested_document(v) {
            self.walk.leaf_in_place(v.as_bytes());
        }
        Ok(())
    }

    fn visit_str<E>(mut self, v: &str) -> Result<(), E> {
        if is_document_text(v) {
            let v = self.walk.arena.alloc_str(v);
            if self.nested_document(v) {
                return Ok(());
            }
        }
        self.walk.leaf(v.as_bytes());
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.walk.leaf(b"");
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'a>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0usize;
        loop {
            let len = self.walk.path.len();
            // Writing to a vector cannot fail.
            let _ = std::io::Write::write_fmt(&mut self.walk.path, format_args!(".{index}"));
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

    fn visit_map<A: serde::de::MapAccess<'a>>(self, mut map: A) -> Result<(), A::Error> {
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
/// Returns the form fields, the file parts (field name, file name) and the parts' header lines (part name, line;
/// those of the parts before a malformed one are kept).
fn parse_multipart<'a>(
    arena: &'a Bump,
    body: &'a [u8],
    content_type: &[u8],
) -> (&'a [Item<'a>], &'a [Item<'a>], &'a [Item<'a>]) {
    let mut files = ArenaVec::new_in(arena);
    let mut headers = ArenaVec::new_in(arena);
    match multipart_fields(arena, body, content_type, &mut files, &mut headers) {
        Some(items) => (
            items.into_bump_slice(),
            files.into_bump_slice(),
            headers.into_bump_slice(),
        ),
        None => (
            arena.alloc_slice_copy(&[Item::raw(body)]),
            &[],
            headers.into_bump_slice(),
        ),
    }
}

fn multipart_fields<'a>(
    arena: &'a Bump,
    body: &'a [u8],
    content_type: &[u8],
    files: &mut ArenaVec<'a, Item<'a>>,
    part_headers: &mut ArenaVec<'a, Item<'a>>,
) -> Option<ArenaVec<'a, Item<'a>>> {
    let parts = multipart_parts(arena, body, content_type)?;
    let mut items = ArenaVec::new_in(arena);
    for &(headers, content) in &parts.parts {
        let disposition = part_header(headers, b"content-disposition");
        let name = disposition
            .and_then(|d| header_param(d, b"name"))
            .unwrap_or_default();
        part_headers.extend(header_lines(headers).map(|line| Item::new(name, line)));
        let disposition = disposition?;
        if let Some(file_name) = header_param(disposition, b"filename") {
            files.push(Item::new(name, file_name));
            continue;
        }
        items.push(Item::new(name, content));
    }
    if parts.truncated {
        items.push(Item::raw(body));
    }
    Some(items)
}

/// The values of a `multipart/related` body ([`BodyKind::Related`]): each part read as a body of its own
/// `Content-Type` would be (JSON walked, XML's text, binary's strings or text runs, anything else raw); `None`
/// when the body is not one multipart message.
fn parse_related<'a>(
    arena: &'a Bump,
    body: &'a [u8],
    content_type: &[u8],
) -> Option<&'a [Item<'a>]> {
    let parts = multipart_parts(arena, body, content_type)?;
    let mut items = ArenaVec::new_in(arena);
    for &(headers, content) in &parts.parts {
        let part_type = part_header(headers, b"content-type");
        // A part that is itself multipart is read as bytes: nesting parts in parts would buy an attacker a parser
        // as deep as the body is long.
        if matches!(
            BodyKind::from_content_type(part_type),
            BodyKind::Related | BodyKind::Multipart
        ) {
            items.extend_from_slice(parse_untyped(arena, content, None));
            continue;
        }
        let part = parse_body(arena, content, part_type);
        items.extend_from_slice(part.args);
        items.extend_from_slice(part.xml);
    }
    if parts.truncated {
        items.push(Item::raw(body));
    }
    Some(items.into_bump_slice())
}

/// The parts of a multipart body: each one's header block and content, at most [`MAX_MULTIPART_PARTS`] of them
/// (`truncated` past them).
struct Parts<'a> {
    parts: ArenaVec<'a, (&'a [u8], &'a [u8])>,
    truncated: bool,
}

/// The parts of the multipart `body` whose boundary `content_type` names; `None` when it is not one multipart
/// message (no boundary, no closing delimiter, a part without its blank line).
fn multipart_parts<'a>(arena: &'a Bump, body: &'a [u8], content_type: &[u8]) -> Option<Parts<'a>> {
    let boundary = header_param(content_type, b"boundary")?;
    if boundary.is_empty() {
        return None;
    }
    let mut delimiter = b"--".to_vec();
    delimiter.extend_from_slice(boundary);
    let finder = memchr::memmem::Finder::new(&delimiter);
    let first = finder.find(body)?;
    let mut rest = &body[first + delimiter.len()..];
    let mut parts = ArenaVec::new_in(arena);
    loop {
        if rest.starts_with(b"--") {
            return Some(Parts {
                parts,
                truncated: false,
            });
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
        if parts.len() == MAX_MULTIPART_PARTS {
            return Some(Parts {
                parts,
                truncated: true,
            });
        }
        parts.push(split_part(part)?);
    }
}

/// The value of the header `name` (lower case, without its colon) in a part's header block.
fn part_header<'h>(headers: &'h [u8], name: &[u8]) -> Option<&'h [u8]> {
    header_lines(headers).find_map(|line| {
        let (found, value) = line.split_at_checked(name.len())?;
        let value = value.strip_prefix(b":")?;
        found.eq_ignore_ascii_case(name).then(|| value.trim_ascii())
    })
}

/// The non-empty lines of a part's header block.
fn header_lines(headers: &[u8]) -> impl Iterator<Item = &[u8]> {
    headers
        .split(|b| *b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.is_empty())
}

/// Splits a part into its header block and content at the first blank line.
fn split_part(part: &[u8]) -> Option<(&[u8], &[u8])> {
    if let Some(at) = memchr::memmem::find(part, b"\r\n\r\n") {
        return Some((&part[..at], &part[at + 4..]));
    }
    memchr::memmem::find(part, b"\n\n").map(|at| (&part[..at], &part[at + 2..]))
}

/// The value of `name=value` or `name="value"` in a header such as `Content-Type` or `Content-Disposition`.
/// A quoted value may hold `;` (`name="a;b"`), and a backslash in it escapes the next byte (`\"` does not end
/// it); the value is returned as written between the quotes, escapes included.
fn header_param<'h>(header: &'h [u8], name: &[u8]) -> Option<&'h [u8]> {
    let mut rest = &header[memchr::memchr(b';', header)? + 1..];
    loop {
        rest = rest.trim_ascii_start();
        let name_end = rest.iter().position(|&b| b == b'=' || b == b';')?;
        let this = rest[..name_end].trim_ascii();
        rest = &rest[name_end..];
        if rest[0] == b';' {
            rest = &rest[1..];
            continue;
        }
        let value = rest[1..].trim_ascii_start();
        let (found, after) = match value.first() {
            Some(b'"') => {
                let mut i = 1;
                while i < value.len() && value[i] != b'"' {
                    i += if value[i] == b'\\' { 2 } else { 1 };
                }
                let end = i.min(value.len());
                (&value[1..end], value.get(end + 1..).unwrap_or(&[]))
            }
            _ => {
                let end = memchr::memchr(b';', value).unwrap_or(value.len());
                (value[..end].trim_ascii(), &value[end..])
            }
        };
        if this.eq_ignore_ascii_case(name) {
            return Some(found);
        }
        rest = &after[memchr::memchr(b';', after)? + 1..];
    }
}

/// Binary data posted with a form's label: Firebase's Android SDK posts its analytics batches
/// (`app-measurement.com/a`, gzip-compressed) as `application/x-www-form-urlencoded`, other SDKs label their
/// binary the same way by their HTTP client's default, and Google's resumable uploads (a Gmail attachment, a Drive
/// or Photos upload, `X-Goog-Upload-Command: upload, finalize`) send a file's bytes so. No form encoder leaves a
/// NUL byte or bytes that are not UTF-8 unescaped, so a body holding them is no form. When it is also one
/// protobuf message to its last byte it is read as one ([`protobuf_values`]: every string it holds is a value the
/// rules read, a pair hidden in one too); when it begins as a file does ([`crate::policy::is_file`]: JPEG, PNG,
/// PDF, zip...) it is read as an unlabelled file is, its runs of text; either way not as pairs of binary noise
/// that only the encoding checks (920250, 920270) have something to say of. Other binary stays a form: a NUL
/// byte alone makes no file.
fn form_labelled_binary<'a>(arena: &'a Bump, body: &'a [u8]) -> Option<&'a [Item<'a>]> {
    if !is_binary(body) {
        return None;
    }
    match protobuf::fields(body) {
        Some(fields) => Some(protobuf_values(arena, body, &fields)),
        None => crate::policy::is_file(body).then(|| text_runs(arena, body)),
    }
}

/// An XML document posted with a form's label: `curl -d @envelope.xml` labels what it sends
/// `application/x-www-form-urlencoded`, as do scripts that post SOAP envelopes and XML-RPC calls without setting a
/// type. Read as pairs, the document's head becomes a name (`<s:Envelope xmlns:s`) and its markup flags XSS rules;
/// the server that answers it reads XML. A body that starts with `<` and is one well-formed document with nothing
/// outside its root is read as XML ([`xml_values`]: its text and attribute values hold every byte of the body
/// but the markup, so a pair hidden in it is still read, `&amp;id=...` as `&id=...`); anything else is a form.
fn form_labelled_xml<'a>(arena: &'a Bump, body: &'a [u8]) -> Option<&'a [Item<'a>]> {
    let start = body
        .strip_prefix(b"\xef\xbb\xbf")
        .unwrap_or(body)
        .trim_ascii_start();
    if !start.starts_with(b"<") {
        return None;
    }
    xml_values(arena, body)
}

/// XML: each run of text in the document (character data, CDATA and references between two tags) named `/*`,
/// and each attribute value named `@*`. (ModSecurity's `XML:/*` yields the root's text concatenated, blanks
/// between tags included, which joins an XML-RPC method name to the line breaks around it as a command line.) Entities are the five predefined ones
/// and character references; DTD entities are never expanded (no XXE). Broken XML is inspected raw under both
/// names.
fn parse_xml<'a>(arena: &'a Bump, body: &'a [u8]) -> &'a [Item<'a>] {
    match xml_values(arena, body) {
        Some(items) => items,
        None => arena.alloc_slice_copy(&[Item::new(b"/*", body), Item::new(b"@*", body)]),
    }
}

fn xml_values<'a>(arena: &'a Bump, body: &'a [u8]) -> Option<&'a [Item<'a>]> {
    use quick_xml::events::{BytesStart, Event};
    let mut reader = quick_xml::Reader::from_reader(body);
    // Each element's run of text (its character data, CDATA and references up to the next tag) is one value, as
    // the application reading the document gets it: an XML-RPC method name or a SOAP field. Text that only lays
    // the document out (the blanks between tags) is none.
    let mut items: Vec<Item<'a>> = Vec::new();
    let mut text = Vec::new();
    let flush = |text: &mut Vec<u8>, items: &mut Vec<Item<'a>>| {
        if !text.trim_ascii().is_empty() {
            items.push(Item::new(b"/*", arena.alloc_slice_copy(text)));
        }
        text.clear();
    };
    let mut depth = 0usize;
    // One document: a second root element or text outside the root is not XML's, and the body is inspected raw.
    let mut seen_root = false;
    let collect_attrs = |e: &BytesStart<'_>, items: &mut Vec<Item<'a>>| -> Option<()> {
        for attr in e.attributes() {
            let value = attr.ok()?.unescape_value().ok()?;
            items.push(Item::new(b"@*", arena.alloc_slice_copy(value.as_bytes())));
        }
        Some(())
    };
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) => {
                if depth == 0 && seen_root {
                    return None;
                }
                seen_root = true;
                depth += 1;
                flush(&mut text, &mut items);
                collect_attrs(&e, &mut items)?;
            }
            Event::Empty(e) => {
                if depth == 0 && seen_root {
                    return None;
                }
                seen_root = true;
                flush(&mut text, &mut items);
                collect_attrs(&e, &mut items)?;
            }
            Event::End(_) => {
                depth = depth.checked_sub(1)?;
                flush(&mut text, &mut items);
            }
            Event::Text(t) if depth > 0 => text.extend_from_slice(t.decode().ok()?.as_bytes()),
            Event::Text(t) if !t.trim_ascii().is_empty() => return None,
            Event::GeneralRef(_) | Event::CData(_) if depth == 0 => return None,
            Event::CData(t) => text.extend_from_slice(&t),
            Event::GeneralRef(r) => {
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
        if items.len() > MAX_ARGS {
            // Value stuffing: stop walking and inspect the whole document raw.
            return None;
        }
    }
    if !seen_root || depth != 0 {
        return None;
    }
    Some(arena.alloc_slice_copy(&items))
}

#[cfg(test)]
mod tests {
    use super::{Bump, Item, header_param, parse_body};

    fn args<'a>(arena: &'a Bump, body: &'a [u8], content_type: &'a [u8]) -> Vec<(String, String)> {
        let parsed = parse_body(arena, body, Some(content_type));
        parsed
            .args
            .iter()
            .map(|Item { name, value, .. }| {
                (
                    String::from_utf8_lossy(name).into_owned(),
                    String::from_utf8_lossy(value).into_owned(),
                )
            })
            .collect()
    }

    fn pair(name: &str, value: &str) -> (String, String) {
        (name.to_owned(), value.to_owned())
    }

    #[test]
    fn a_body_compressed_without_a_coding_is_read_inflated() {
        use std::io::Write;
        let json = br#"[{"event":"$pageview","properties":{"title":"Shop"}}]"#;
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gzip.write_all(json).unwrap();
        let gzip = gzip.finish().unwrap();
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        zlib.write_all(json).unwrap();
        let zlib = zlib.finish().unwrap();
        let arena = Bump::new();
        for body in [&gzip, &zlib] {
            assert_eq!(
                args(&arena, body, b"text/plain"),
                [
                    pair("json.0.event", "$pageview"),
                    pair("json.0.properties.title", "Shop")
                ]
            );
        }
        // A compressed file uploaded as one is stored, not read: its bytes are read as sent.
        assert!(
            args(&arena, &gzip, b"application/gzip")
                .iter()
                .all(|(name, _)| name.is_empty())
        );
        // A stream cut short is no such body: its bytes are read as sent.
        let cut = &gzip[..gzip.len() - 4];
        assert!(
            args(&arena, cut, b"text/plain")
                .iter()
                .all(|(name, _)| name.is_empty())
        );
    }

    #[test]
    fn binary_data_starting_as_json_is_binary() {
        let arena = Bump::new();
        let body = b"[\xb6\x00\x9fYT3\xd0\x8f' or 1=1--\x00";
        assert_eq!(
            args(&arena, body, b"application/octet-stream"),
            [pair("", "YT3Џ' or 1=1--")]
        );
    }

    #[test]
    fn an_xml_document_labelled_as_a_form_is_read_as_xml() {
        let arena = Bump::new();
        let form = b"application/x-www-form-urlencoded";
        let envelope = br#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><Ping a="1 &amp; 2">x &amp;id=3</Ping></s:Body></s:Envelope>"#;
        let parsed = parse_body(&arena, envelope, Some(form));
        assert!(parsed.args.is_empty());
        let xml: Vec<(&[u8], &[u8])> = parsed.xml.iter().map(|i| (i.name, i.value)).collect();
        assert!(
            xml.contains(&(b"/*".as_slice(), b"x &id=3".as_slice())),
            "{xml:?}"
        );
        assert!(
            xml.contains(&(b"@*".as_slice(), b"1 & 2".as_slice())),
            "{xml:?}"
        );
        // Pairs outside the root, a second root, or no markup first: a form.
        for body in [
            b"<a>x</a>&id=1".as_slice(),
            b"<a>x</a><b>y</b>",
            b"id=1&<a>x</a>",
            b"<a>unclosed",
        ] {
            let parsed = parse_body(&arena, body, Some(form));
            assert!(parsed.xml.is_empty() && !parsed.args.is_empty(), "{body:?}");
        }
    }

    #[test]
    fn a_json_body_of_another_type_is_parsed_as_json() {
        let arena = Bump::new();
        let body = br#"{"csp-report":{"blocked-uri":"https://x.example","line-number":7}}"#;
        assert_eq!(
            args(&arena, body, b"application/csp-report"),
            [
                pair("json.csp-report.blocked-uri", "https://x.example"),
                pair("json.csp-report.line-number", "7")
            ]
        );
        // Text that is not JSON stays one raw value; broken JSON too.
        assert_eq!(
            args(&arena, b"hello there", b"text/plain"),
            [pair("", "hello there")]
        );
        assert_eq!(
            args(&arena, b"{\"a\":", b"text/plain"),
            [pair("", "{\"a\":")]
        );
    }

    #[test]
    fn documents_one_after_another_are_each_walked() {
        let arena = Bump::new();
        let body = b"{\"index\":{\"_id\":\"7\"}}\n{\"title\":\"Northwind\"}\n";
        let leaves = [pair("json.index._id", "7"), pair("json.title", "Northwind")];
        assert_eq!(args(&arena, body, b"application/x-ndjson"), leaves);
        assert_eq!(args(&arena, body, b"application/json"), leaves);
        let messages = b"{\"index\":{\"_id\":\"7\"}}\x1e{\"title\":\"Northwind\"}\x1e";
        assert_eq!(args(&arena, messages, b"text/plain;charset=UTF-8"), leaves);
        let sequence = b"\x1e{\"index\":{\"_id\":\"7\"}}\n\x1e{\"title\":\"Northwind\"}\n";
        assert_eq!(args(&arena, sequence, b"application/json-seq"), leaves);
        // Anything after the documents that is not one makes the body one raw value, as broken JSON does.
        let trailing = b"{\"a\":1}\n' OR 1=1 --";
        assert_eq!(
            args(&arena, trailing, b"application/json"),
            [pair("", "{\"a\":1}\n' OR 1=1 --")]
        );
    }

    #[test]
    fn json_in_a_json_string_is_walked_under_its_name() {
        let arena = Bump::new();
        let body = br#"{"payload":"{\"batch\":[{\"q\":\"caf\u00e9\"}]}","n":1}"#;
        assert_eq!(
            args(&arena, body, b"application/json"),
            [pair("json.payload.batch.0.q", "café"), pair("json.n", "1")]
        );
    }

    #[test]
    fn binary_labelled_as_a_form_is_read_as_what_it_is() {
        let arena = Bump::new();
        let form = b"application/x-www-form-urlencoded";
        // Firebase's analytics batch: a message whose strings are event names and parameters.
        let body = b"\x0a\x0a\x0a\x02_o\x12\x04auto\x12\x0badd_to_cart\x18\x8f\xf4\xe0\x01";
        assert_eq!(
            args(&arena, body, form),
            [pair("", "_o"), pair("", "auto"), pair("", "add_to_cart")]
        );
        // A pair hidden in one of its strings is still read.
        let body = b"\x0a\x0eid=1' or 1=1--\x18\x00";
        assert_eq!(args(&arena, body, form), [pair("", "id=1' or 1=1--")]);
        // A file's bytes (Google's resumable uploads label them so) are read as an unlabelled file is: its text.
        let jpeg = b"\xff\xd8\xff\xe1\x00\x10Exif\x00\x00II*\x00=&\x00\xffCanon EOS R6\x00\xd9";
        assert_eq!(
            args(&arena, jpeg, form),
            [pair("", "Exif"), pair("", "Canon EOS R6")]
        );
        // A form, even one in another charset than UTF-8, or binary that is no message and no file, is read as
        // pairs.
        assert_eq!(args(&arena, b"q=caf\xe9&n=1", form).len(), 2);
        assert_eq!(args(&arena, b"a=\x00&b=\xff\xff", form).len(), 2);
    }

    #[test]
    fn related_parts_are_read_by_their_own_types() {
        let arena = Bump::new();
        let content_type = b"multipart/related; boundary=foo_bar_baz";
        let body = b"--foo_bar_baz\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n\
{\"name\":\"Rapport \\u2013 Q3.pdf\",\"parents\":[\"1AbC\"]}\r\n\
--foo_bar_baz\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n%\xe2\xe3\xcf\xd3\n\r\n--foo_bar_baz--\r\n";
        let items = args(&arena, body, content_type);
        assert_eq!(items[0], pair("json.name", "Rapport \u{2013} Q3.pdf"));
        assert_eq!(items[1], pair("json.parents.0", "1AbC"));
        // A part that is multipart again is read as bytes; a body that is no multipart message is read raw.
        let nested = b"--a\r\nContent-Type: multipart/related; boundary=b\r\n\r\n--b\r\n\r\nx\r\n--b--\r\n--a--";
        assert_eq!(
            args(&arena, nested, b"multipart/related; boundary=a").len(),
            1
        );
        assert_eq!(
            args(&arena, b"not multipart", content_type),
            [pair("", "not multipart")]
        );
    }

    #[test]
    fn binary_bodies_yield_their_text() {
        let arena = Bump::new();
        // Text in Windows-1252 (no control character among its bytes) is text, one value.
        let legacy = b"Umsatz;Konto;Buchungstext\r\n12,50;1000;\"B\xfccher\"\r\n";
        assert_eq!(args(&arena, legacy, b"application/octet-stream").len(), 1);
        // A protobuf-like message: tags and lengths between strings.
        let body = b"\x0a\x05alice\x12\x0fhello' or 1=1--\x18\x01\x00";
        assert_eq!(
            args(&arena, body, b"application/x-protobuf"),
            [pair("", "alice"), pair("", "hello' or 1=1--")]
        );
        // Opaque data (random bytes, as compressed data and media look): only long runs are text.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut opaque: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state.to_le_bytes()[0]
            })
            .collect();
        opaque.extend_from_slice(b"\x00<?php system($_GET['c']); ?> and a long enough run\x00");
        let opaque = arena.alloc_slice_copy(&opaque);
        assert_eq!(
            args(&arena, opaque, b"application/octet-stream"),
            [pair(
                "",
                "<?php system($_GET['c']); ?> and a long enough run"
            )]
        );
    }

    #[test]
    fn header_params_respect_quotes() {
        let d = br#"form-data; name="a;b=c"; filename="x\"y;z.txt" ; size=3"#;
        assert_eq!(header_param(d, b"name"), Some(&b"a;b=c"[..]));
        assert_eq!(header_param(d, b"filename"), Some(&br#"x\"y;z.txt"#[..]));
        assert_eq!(header_param(d, b"SIZE"), Some(&b"3"[..]));
        assert_eq!(header_param(d, b"b"), None);
        assert_eq!(
            header_param(b"form-data; flag; name=x", b"name"),
            Some(&b"x"[..])
        );
        assert_eq!(
            header_param(b"form-data; name=\"open", b"name"),
            Some(&b"open"[..])
        );
        assert_eq!(
            header_param(b"form-data; name=\"a\\", b"name"),
            Some(&b"a\\"[..])
        );
        assert_eq!(header_param(b"multipart/form-data", b"boundary"), None);
    }
}
