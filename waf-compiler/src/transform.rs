//! Transforms, byte for byte as ModSecurity does them.
//!
//! CRS patterns are written against ModSecurity's output, so an "improved" decoder would make them miss (or
//! over-match). Every function here follows ModSecurity's documented behaviour, including its handling of broken
//! input: an invalid `%` escape is kept as is, an unterminated `/*` comment still becomes one space, and so on. All
//! of them work on bytes (ModSecurity does not assume UTF-8) and none can fail.
//!
//! A rule's transform list is normalised ([`effective_chain`]) and interned once at compile time; evaluation
//! then computes each distinct chain once per value (see [`crate::evaluate`]).

mod decode;

use crate::rule::Transform;
use std::borrow::Cow;

pub mod unicode_map;

pub use unicode_map::{UnicodeMap, UnknownCodePage};

/// The transforms that actually run for a rule: the list after its last `none` (which clears what came before,
/// as in ModSecurity).
pub fn effective_chain(transforms: &[Transform]) -> Vec<Transform> {
    let start = transforms
        .iter()
        .rposition(|t| *t == Transform::None)
        .map_or(0, |i| i + 1);
    transforms[start..].to_vec()
}

/// Applies `chain` in order; `urlDecodeUni` uses `map`.
pub fn apply_chain<'a>(chain: &[Transform], input: &'a [u8], map: UnicodeMap) -> Cow<'a, [u8]> {
    // Borrowed through an empty chain: chain conditions mostly have no transforms of their own.
    let mut value = Cow::Borrowed(input);
    for t in chain {
        value = Cow::Owned(apply(*t, &value, map));
    }
    value
}

/// What a value holds that some transform acts on, found in one pass over its bytes ([`Triggers::of`]), so
/// that whether each transform of each chain can change the value is a bit test rather than a scan per
/// transform (those scans were a tenth of a benign request's time).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Triggers(u32);

impl Triggers {
    /// Every trigger: meets any transform's.
    pub const ALL: Triggers = Triggers(u32::MAX);
    const PERCENT_OR_PLUS: u32 = 1;
    const UPPER: u32 = 1 << 1;
    const NON_ASCII: u32 = 1 << 2;
    const NUL: u32 = 1 << 3;
    const AMPERSAND: u32 = 1 << 4;
    const HASH: u32 = 1 << 5;
    /// A byte `removeWhitespace` removes.
    const SPACE: u32 = 1 << 6;
    /// A whitespace byte other than ' '.
    const OTHER_SPACE: u32 = 1 << 7;
    /// `\`: what `jsDecode`, `cssDecode` and `escapeSeqDecode` act on.
    const BACKSLASH: u32 = 1 << 8;
    /// A byte `cmdLine` deletes or turns into a space: `" ' ^ , ;` tab, CR, LF (`\` is [`Triggers::BACKSLASH`]).
    const CMD_CHAR: u32 = 1 << 9;
    // Byte pairs.
    const DASH_DASH: u32 = 1 << 10;
    const SLASH_STAR: u32 = 1 << 11;
    const STAR_SLASH: u32 = 1 << 12;
    const SPACE_SPACE: u32 = 1 << 13;
    /// Two of `/` and `.` in a row (`//`, `/.`, `./`, `..`), or the value `.` alone: without one,
    /// `normalizePath` has no empty, `.` or `..` segment to remove.
    const PATH: u32 = 1 << 14;
    /// A space before `/` or `(`, which `cmdLine` deletes.
    const SPACE_OPEN: u32 = 1 << 15;
    /// Set in every value's triggers: what a transform that may change any value acts on.
    const ANY: u32 = 1 << 22;
    /// The flags above that a single byte sets; the pairs come from [`CLASSES`]' pair bits.
    const BYTE_FLAGS: u32 = 0x3ff;
    const PAIRS: u32 = 0xfc00;

    /// The triggers of `input`.
    pub fn of(input: &[u8]) -> Triggers {
        let (mut flags, mut pairs, mut opened) = (0u32, 0u32, 0u32);
        for &b in input {
            let class = CLASSES[usize::from(b)];
            flags |= class;
            // A pair is found when this byte ends one the previous byte began.
            pairs |= opened & class;
            opened = class >> OPENS_SHIFT;
        }
        if input == b"." {
            // `normalizePath` removes a lone `.` segment.
            pairs |= Self::PATH;
        }
        Triggers((flags & Self::BYTE_FLAGS) | (pairs & Self::PAIRS) | Self::ANY)
    }

    fn has(self, bits: u32) -> bool {
        self.0 & bits != 0
    }

    /// The triggers some transform of `chain` acts on. A value that [`Triggers::meets`] none of them is left
    /// as it is by every transform, so it is its own value under the whole chain.
    pub fn acted_on_by(chain: &[Transform]) -> Triggers {
        Triggers(chain.iter().fold(0, |bits, &t| bits | trigger_bits(t)))
    }

    /// Whether the two share a trigger.
    pub fn meets(self, other: Triggers) -> bool {
        self.has(other.0)
    }
}

/// Where, in a [`CLASSES`] entry, a byte says which pairs it begins: the pair's bit shifted this far left
/// (bits 16 to 21, below [`Triggers::ANY`]). A pair's own bit in the entry means the byte ends that pair.
const OPENS_SHIFT: u32 = 6;

/// Per byte: its trigger flags, the pairs it ends (the pair's bit: `-` ends `--`, `*` ends `/*`, ...) and the
/// pairs it begins (the pair's bit << [`OPENS_SHIFT`]).
static CLASSES: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        let mut class = 0u32;
        if byte == b'%' || byte == b'+' {
            class |= Triggers::PERCENT_OR_PLUS;
        }
        if byte.is_ascii_uppercase() {
            class |= Triggers::UPPER;
        }
        if byte >= 0x80 {
            class |= Triggers::NON_ASCII;
        }
        if byte == 0 {
            class |= Triggers::NUL;
        }
        if byte == b'&' {
            class |= Triggers::AMPERSAND;
        }
        if byte == b'#' {
            class |= Triggers::HASH;
        }
        if byte == b'\\' {
            class |= Triggers::BACKSLASH;
        }
        if matches!(
            byte,
            b'"' | b'\'' | b'^' | b',' | b';' | b'\t' | b'\r' | b'\n'
        ) {
            class |= Triggers::CMD_CHAR;
        }
        let (ends, begins) = match byte {
            b'-' => (Triggers::DASH_DASH, Triggers::DASH_DASH),
            b'/' => (
                Triggers::STAR_SLASH | Triggers::PATH | Triggers::SPACE_OPEN,
                Triggers::SLASH_STAR | Triggers::PATH,
            ),
            b'*' => (Triggers::SLASH_STAR, Triggers::STAR_SLASH),
            b'.' => (Triggers::PATH, Triggers::PATH),
            b'(' => (Triggers::SPACE_OPEN, 0),
            b' ' => (
                Triggers::SPACE_SPACE,
                Triggers::SPACE_SPACE | Triggers::SPACE_OPEN,
            ),
            _ if is_space(byte) => (Triggers::SPACE_SPACE, Triggers::SPACE_SPACE),
            _ => (0, 0),
        };
        class |= ends | begins << OPENS_SHIFT;
        if is_space(byte) || is_removed_space(byte) {
            class |= Triggers::SPACE;
        }
        if is_space(byte) && byte != b' ' {
            class |= Triggers::OTHER_SPACE;
        }
        table[b] = class;
        b += 1;
    }
    table
};

/// The triggers without which `transform` cannot change a value ([`may_change`] never answers `true` without
/// one of them).
fn trigger_bits(transform: Transform) -> u32 {
    match transform {
        Transform::None => 0,
        Transform::UrlDecode | Transform::UrlDecodeUni => Triggers::PERCENT_OR_PLUS,
        Transform::Lowercase => Triggers::UPPER,
        // A NUL is dropped.
        Transform::Utf8ToUnicode => Triggers::NON_ASCII | Triggers::NUL,
        Transform::RemoveNulls => Triggers::NUL,
        Transform::ReplaceComments => Triggers::SLASH_STAR,
        // Every marker (`/*`, `*/`, `<!--`, `-->`, `--`, `#`) holds one of these.
        Transform::RemoveCommentsChar => {
            Triggers::HASH | Triggers::DASH_DASH | Triggers::SLASH_STAR | Triggers::STAR_SLASH
        }
        Transform::RemoveWhitespace | Transform::Trim => Triggers::SPACE,
        // Only a space other than ' ', or two spaces in a row, are rewritten.
        Transform::CompressWhitespace => Triggers::OTHER_SPACE | Triggers::SPACE_SPACE,
        Transform::HtmlEntityDecode => Triggers::AMPERSAND,
        // Every escape starts with a backslash.
        Transform::JsDecode | Transform::CssDecode | Transform::EscapeSeqDecode => {
            Triggers::BACKSLASH
        }
        // Without an empty, `.` or `..` segment the path is rebuilt as it was.
        Transform::NormalizePath => Triggers::PATH,
        Transform::NormalizePathWin => Triggers::PATH | Triggers::BACKSLASH,
        // What it deletes, turns into a space or lowercases, a run of spaces, a space before `/` or `(`.
        Transform::CmdLine => {
            Triggers::UPPER
                | Triggers::BACKSLASH
                | Triggers::CMD_CHAR
                | Triggers::SPACE_SPACE
                | Triggers::SPACE_OPEN
        }
        // Transforms that may act on any value: their cost is a run per value and chain, cached like the others.
        Transform::Base64Decode | Transform::HexEncode | Transform::Length => Triggers::ANY,
    }
}

/// Whether `transform` can change `input`, whose triggers are `triggers`: `false` means [`apply`] would return
/// `input` unchanged, so it need not run (a value without `%` or `+` is its own URL decoding). `true` when
/// unsure.
pub fn may_change(transform: Transform, triggers: Triggers, input: &[u8]) -> bool {
    triggers.has(trigger_bits(transform))
        && (transform != Transform::Trim
            || input.first().is_some_and(|&b| is_space(b))
            || input.last().is_some_and(|&b| is_space(b)))
}

/// The longest output `transform` can give for an input of `len` bytes, or `None` when it can be longer than its
/// input (`utf8ToUnicode`, `hexEncode`, `length`). Every other transform removes, merges or decodes bytes;
/// `base64Decode` gives three bytes for four.
pub fn max_output_len(transform: Transform, len: usize) -> Option<usize> {
    match transform {
        Transform::Utf8ToUnicode | Transform::HexEncode | Transform::Length => None,
        Transform::Base64Decode => Some(len / 4 * 3 + len % 4 * 3 / 4),
        _ => Some(len),
    }
}

/// Applies one transform; `urlDecodeUni` uses `map`.
pub fn apply(transform: Transform, input: &[u8], map: UnicodeMap) -> Vec<u8> {
    match transform {
        Transform::None => input.to_vec(),
        Transform::UrlDecode => url_decode(input),
        Transform::UrlDecodeUni => url_decode_uni(input, map),
        Transform::Lowercase => input.to_ascii_lowercase(),
        Transform::Utf8ToUnicode => utf8_to_unicode(input),
        Transform::RemoveNulls => keep_bytes(input, |b| b != 0),
        Transform::ReplaceComments => replace_comments(input),
        Transform::RemoveCommentsChar => remove_comments_char(input),
        Transform::RemoveWhitespace => keep_bytes(input, |b| !is_space(b) && !is_removed_space(b)),
        Transform::CompressWhitespace => compress_whitespace(input),
        Transform::HtmlEntityDecode => html_entity_decode(input),
        Transform::Trim => trim(input).to_vec(),
        Transform::CmdLine => decode::cmd_line(input),
        Transform::JsDecode => decode::js_decode(input),
        Transform::CssDecode => decode::css_decode(input),
        Transform::NormalizePath => decode::normalize_path(input),
        Transform::NormalizePathWin => decode::normalize_path_win(input),
        Transform::EscapeSeqDecode => decode::escape_seq_decode(input),
        Transform::Base64Decode => decode::base64_decode(input),
        Transform::HexEncode => decode::hex_encode(input),
        Transform::Length => decode::length(input),
    }
}

/// The bytes of `input` that `keep` accepts, in one allocation (a filtered `collect` grows its vector from
/// empty, one reallocation after another).
fn keep_bytes(input: &[u8], keep: impl Fn(u8) -> bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    out.extend(input.iter().copied().filter(|&b| keep(b)));
    out
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Two hex digits at `input[i..i + 2]`, if both are there and valid.
fn hex_pair(input: &[u8], i: usize) -> Option<u8> {
    let hi = hex_value(*input.get(i)?)?;
    let lo = hex_value(*input.get(i + 1)?)?;
    Some(hi << 4 | lo)
}

/// ModSecurity's whitespace: C `isspace` (in the C locale). ModSecurity v3 means to count the non-breaking space
/// 0xA0 too in `compressWhitespace`, but compares it with a signed `char`, so it never does; `trim` uses
/// `isspace` alone.
const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// What `removeWhitespace` removes besides [`is_space`]: 0xA0 and 0xC2, both bytes of a UTF-8 non-breaking space
/// (ModSecurity v3 removes every such byte, wherever it is).
const fn is_removed_space(b: u8) -> bool {
    matches!(b, 0xa0 | 0xc2)
}

/// `urlDecode`: `%XX` becomes the byte, `+` a space; an invalid or truncated escape is kept as is.
pub fn url_decode(input: &[u8]) -> Vec<u8> {
    percent_decode(input, None)
}

/// [`url_decode`] into `arena`: how parsed arguments are decoded, without a heap allocation each.
pub fn url_decode_in<'a>(arena: &'a bumpalo::Bump, input: &[u8]) -> &'a [u8] {
    let out = arena.alloc_slice_fill_copy(input.len(), 0u8);
    let len = percent_decode_to(input, None, out);
    &out[..len]
}

/// `urlDecodeUni`: `urlDecode` plus IIS-style `%uXXXX`.
///
/// A code point the Unicode `map` has becomes its byte (`%u2019` → `'` in code page 20127). Any other (and every
/// one with [`UnicodeMap::NONE`]) becomes, as in ModSecurity, the low byte of the code point, except that the
/// full-width ASCII range (`%uFF01`..`%uFF5E`) maps to ASCII by adding 0x20 to it. An invalid `%u` escape keeps
/// both `%` and `u`.
pub fn url_decode_uni(input: &[u8], map: UnicodeMap) -> Vec<u8> {
    percent_decode(input, Some(map))
}

/// `unicode`: whether `%u` escapes are decoded, and with which map.
fn percent_decode(input: &[u8], unicode: Option<UnicodeMap>) -> Vec<u8> {
    let mut out = vec![0u8; input.len()];
    let len = percent_decode_to(input, unicode, &mut out);
    out.truncate(len);
    out
}

/// The decoder behind both: one output byte per escape, invalid escapes copied. Writes into `out` (at least as
/// long as `input`: the output is never longer) and returns the decoded length.
fn percent_decode_to(input: &[u8], unicode: Option<UnicodeMap>, out: &mut [u8]) -> usize {
    let mut written = 0;
    let mut i = 0;
    while i < input.len() {
        let (byte, used) = match (input[i], unicode) {
            (b'%', Some(map)) if matches!(input.get(i + 1), Some(b'u' | b'U')) => {
                match input
                    .get(i + 2..i + 6)
                    .filter(|d| d.iter().all(|b| hex_value(*b).is_some()))
                {
                    Some(d) => {
                        // All four are hex digits, so both pairs decode.
                        let high = hex_pair(d, 0).unwrap_or(0);
                        let low = hex_pair(d, 2).unwrap_or(0);
                        let byte =
                            map.lookup(u16::from_be_bytes([high, low]))
                                .unwrap_or_else(|| {
                                    let ascii = high == 0xff && low > 0x00 && low < 0x5f;
                                    if ascii { low + 0x20 } else { low }
                                });
                        (byte, 6)
                    }
                    None => {
                        // Two bytes out for the two consumed.
                        out[written] = b'%';
                        written += 1;
                        (input[i + 1], 2)
                    }
                }
            }
            (b'%', _) => hex_pair(input, i + 1).map_or((b'%', 1), |b| (b, 3)),
            (b'+', _) => (b' ', 1),
            (b, _) => (b, 1),
        };
        out[written] = byte;
        written += 1;
        i += used;
    }
    written
}

/// `utf8toUnicode`, as ModSecurity 3 does it: each multi-byte UTF-8 sequence becomes `%u` and its code point in
/// lower-case hex (at least four digits). Its quirks are kept, since rules are written against them: a lead byte
/// whose continuation bytes are missing or wrong is dropped; an overlong or surrogate sequence is converted and
/// then followed by its raw lead byte; a lead byte beyond U+10FFFF (0xF5..0xF7) is copied before the conversion;
/// any other byte (ASCII, a stray continuation byte, 0xF8..0xFF) is copied, except NUL, which ModSecurity drops
/// (it writes a NUL without moving on, and the next byte overwrites it).
pub fn utf8_to_unicode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        let c = input[i];
        let (len, lead_bits) = match c {
            0 => {
                i += 1;
                continue;
            }
            0xc0..=0xdf => (2, u32::from(c & 0x1f)),
            0xe0..=0xef => (3, u32::from(c & 0x0f)),
            0xf0..=0xf7 => (4, u32::from(c & 0x07)),
            _ => {
                out.push(c);
                i += 1;
                continue;
            }
        };
        if c >= 0xf5 {
            out.push(c);
        }
        let rest = input
            .get(i + 1..i + len)
            .filter(|rest| rest.iter().all(|b| b & 0xc0 == 0x80));
        let Some(rest) = rest else {
            i += 1;
            continue;
        };
        let code = rest
            .iter()
            .fold(lead_bits, |acc, b| acc << 6 | u32::from(b & 0x3f));
        out.extend_from_slice(format!("%u{code:04x}").as_bytes());
        let surrogate = (0xd800..=0xdfff).contains(&code);
        let shortest = match len {
            2 => 0x80,
            3 => 0x800,
            _ => 0x10000,
        };
        if surrogate {
            out.push(c);
        }
        if code < shortest {
            out.push(c);
        }
        i += len;
    }
    out
}

/// `replaceComments`: each C-style `/* ... */` comment becomes one space; an unterminated one is replaced
/// up to the end (and still becomes one space). A lone `*/` is kept.
pub fn replace_comments(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut in_comment = false;
    let mut i = 0;
    while i < input.len() {
        let pair = input.get(i..i + 2);
        if in_comment {
            if pair == Some(b"*/") {
                in_comment = false;
                out.push(b' ');
                i += 2;
            } else {
                i += 1;
            }
        } else if pair == Some(b"/*") {
            in_comment = true;
            i += 2;
        } else {
            out.push(input[i]);
            i += 1;
        }
    }
    if in_comment {
        out.push(b' ');
    }
    out
}

/// `removeCommentsChar`: deletes the comment markers `/*`, `*/`, `<!--`, `-->`, `--` and `#`, keeping the text.
pub fn remove_comments_char(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        let rest = &input[i..];
        let skip = if rest.starts_with(b"/*") || rest.starts_with(b"*/") {
            2
        } else if rest.starts_with(b"<!--") {
            4
        } else if rest.starts_with(b"-->") {
            3
        } else if rest.starts_with(b"--") {
            2
        } else if rest[0] == b'#' {
            1
        } else {
            0
        };
        if skip == 0 {
            out.push(rest[0]);
            i += 1;
        } else {
            i += skip;
        }
    }
    out
}

/// `compressWhitespace`: each run of whitespace becomes one space.
pub fn compress_whitespace(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut in_space = false;
    for &b in input {
        if is_space(b) {
            if !in_space {
                out.push(b' ');
            }
            in_space = true;
        } else {
            out.push(b);
            in_space = false;
        }
    }
    out
}

/// `trim`: removes leading and trailing whitespace.
pub fn trim(input: &[u8]) -> &[u8] {
    let start = input
        .iter()
        .position(|&b| !is_space(b))
        .unwrap_or(input.len());
    let end = input
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(start, |e| e + 1);
    &input[start..end]
}

/// `htmlEntityDecode`: `&#DD;`, `&#xHH;`, `&quot;`, `&amp;`, `&lt;`, `&gt;` and `&nbsp;` (no others, as in
/// ModSecurity), with the `;` optional. A numeric entity yields one byte (its low byte); anything else is kept.
pub fn html_entity_decode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        match decode_entity(&input[i..]) {
            Some((byte, consumed)) => {
                out.push(byte);
                i += consumed;
            }
            None => {
                out.push(input[i]);
                i += 1;
            }
        }
    }
    out
}

/// Decodes one entity at the start of `s` (which begins with `&` if it is one): the byte and the length used.
fn decode_entity(s: &[u8]) -> Option<(u8, usize)> {
    let rest = s.strip_prefix(b"&")?;
    let (byte, used) = if let Some(num) = rest.strip_prefix(b"#") {
        let (radix, digits_at) = match num.first() {
            Some(b'x' | b'X') => (16, 1),
            _ => (10, 0),
        };
        let digits = &num[digits_at..];
        let n = digits
            .iter()
            .take_while(|b| (**b as char).is_digit(radix))
            .count();
        if n == 0 {
            return None;
        }
        // ModSecurity parses with C `strtol` (which saturates at `LONG_MAX`) and keeps the low byte.
        let value = digits[..n].iter().fold(0i64, |acc, b| {
            let digit = i64::from((*b as char).to_digit(radix).unwrap_or(0));
            acc.saturating_mul(i64::from(radix)).saturating_add(digit)
        });
        (value as u8, 1 + digits_at + n)
    } else {
        let n = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        let byte = match rest[..n].to_ascii_lowercase().as_slice() {
            b"quot" => b'"',
            b"amp" => b'&',
            b"lt" => b'<',
            b"gt" => b'>',
            b"nbsp" => 0xa0,
            _ => return None,
        };
        (byte, n)
    };
    let semicolon = usize::from(rest.get(used) == Some(&b';'));
    Some((byte, 1 + used + semicolon))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(transform: Transform, input: &[u8]) -> Vec<u8> {
        apply(transform, input, UnicodeMap::NONE)
    }

    fn check_table(transform: Transform, cases: &[(&[u8], &[u8])]) {
        for (input, want) in cases {
            let got = t(transform, input);
            assert_eq!(
                got,
                *want,
                "{transform:?} of {:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn may_change_is_false_only_when_the_transform_is_the_identity() {
        let inputs: &[&[u8]] = &[
            b"",
            b"plain text",
            b"a%20b",
            b"a+b",
            b"MiXeD",
            b"caf\xc3\xa9",
            b"a\0b",
            b"1/*x*/2",
            b"a--b",
            b"a#b",
            b"x*/y",
            b"<!--c-->",
            b" lead",
            b"trail\t",
            b"a  b",
            b"a\tb",
            b"a b",
            b"&lt;",
            b"\xa0",
            b"&amp",
        ];
        for transform in Transform::ALL {
            for input in inputs {
                if !may_change(transform, Triggers::of(input), input) {
                    assert_eq!(t(transform, input), *input, "{transform:?} of {input:?}");
                }
            }
        }
        let unchanged =
            |transform, input: &[u8]| !may_change(transform, Triggers::of(input), input);
        assert!(unchanged(Transform::UrlDecode, b"plain"));
        assert!(unchanged(Transform::CompressWhitespace, b"a b c"));
        assert!(unchanged(Transform::RemoveCommentsChar, b"en-US"));
        assert!(unchanged(Transform::ReplaceComments, b"a/b*c"));
        assert!(!unchanged(Transform::CompressWhitespace, b"a  b"));
        assert!(!unchanged(Transform::RemoveCommentsChar, b"a*/b"));
        // The decoders and normalisers are told apart by the bytes they act on too.
        assert!(unchanged(Transform::JsDecode, b"text/html;q=0.9"));
        assert!(unchanged(Transform::CssDecode, b"a b"));
        assert!(unchanged(Transform::NormalizePath, b"/catalog/search.html"));
        assert!(unchanged(Transform::NormalizePathWin, b"en-GB,en;q=0.9"));
        assert!(unchanged(Transform::CmdLine, b"trail running shoes"));
        assert!(!unchanged(Transform::NormalizePath, b"https://x"));
        assert!(!unchanged(Transform::NormalizePath, b"."));
        assert!(!unchanged(Transform::CmdLine, b"a (b"));
        assert!(!unchanged(Transform::JsDecode, b"\\x41"));
    }

    #[test]
    fn may_change_holds_for_every_short_input_of_the_trigger_bytes() {
        // Every string of up to three bytes over the bytes some transform reacts to (and a few it does not):
        // the pairs (`--`, `/*`, `*/`, two spaces) at every position, next to every other trigger.
        let alphabet = b" \t-/*#%+&Aa\0\xa0\xc3<>!;u2\\.(\"'^,x";
        let mut inputs: Vec<Vec<u8>> = vec![Vec::new()];
        for len in 1..=3 {
            let mut word = vec![0usize; len];
            loop {
                inputs.push(word.iter().map(|&i| alphabet[i]).collect());
                let Some(at) = word.iter().rposition(|&i| i + 1 < alphabet.len()) else {
                    break;
                };
                word[at] += 1;
                word[at + 1..].fill(0);
            }
        }
        // And longer strings over the same bytes, drawn by a fixed generator: a path needs a few bytes to
        // have segments on both sides of a separator.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        for _ in 0..20_000 {
            let len = 4 + next(9);
            inputs.push((0..len).map(|_| alphabet[next(alphabet.len())]).collect());
        }
        for transform in Transform::ALL {
            for input in &inputs {
                if !may_change(transform, Triggers::of(input), input) {
                    assert_eq!(t(transform, input), *input, "{transform:?} of {input:?}");
                }
                if let Some(longest) = max_output_len(transform, input.len()) {
                    assert!(
                        t(transform, input).len() <= longest,
                        "{transform:?} of {input:?} is longer than {longest}"
                    );
                }
            }
        }
        // `base64Decode` on the base64 alphabet, every length up to 13, padded or not.
        for len in 0..14 {
            for input in [
                b"QUJDREVGR0hJSktMTU5P".as_slice(),
                b"YWJj=".as_slice(),
                b"+/+/+/+/+/+/+/+/",
            ] {
                let input = &input[..len.min(input.len())];
                let longest = max_output_len(Transform::Base64Decode, input.len()).unwrap_or(0);
                assert!(
                    t(Transform::Base64Decode, input).len() <= longest,
                    "{input:?}"
                );
            }
        }
        for first in Transform::ALL {
            for second in Transform::ALL {
                let chain = [first, second];
                let acted_on = Triggers::acted_on_by(&chain);
                for input in inputs.iter().filter(|i| !Triggers::of(i).meets(acted_on)) {
                    assert_eq!(
                        apply_chain(&chain, input, UnicodeMap::default()),
                        *input,
                        "{chain:?} of {input:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn none_clears_earlier_transforms() {
        use Transform::*;
        assert_eq!(
            effective_chain(&[Lowercase, None, UrlDecodeUni]),
            vec![UrlDecodeUni]
        );
        assert_eq!(effective_chain(&[None]), Vec::<Transform>::new());
        assert_eq!(
            effective_chain(&[UrlDecode, Lowercase]),
            vec![UrlDecode, Lowercase]
        );
    }

    #[test]
    fn url_decode_table() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"a%20b", b"a b"),
            (b"a+b", b"a b"),
            (b"%27%2f%2F", b"'//"),
            (b"100%", b"100%"),
            (b"%zz", b"%zz"),
            (b"%2", b"%2"),
            (b"%%41", b"%A"),
            (b"%00", b"\0"),
            (b"%u0027", b"%u0027"),
            (b"", b""),
        ];
        check_table(Transform::UrlDecode, cases);
    }

    #[test]
    fn url_decode_uni_without_a_map_table() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"%u0027", b"'"),
            (b"%U0027", b"'"),
            (b"%uff07", b"'"),    // full-width apostrophe
            (b"%uFF1C", b"<"),    // full-width less-than
            (b"%u2027", b"'"),    // low byte kept
            (b"%uff5f", b"\x5f"), // outside the full-width ASCII range: low byte as is
            (b"%u002", b"%u002"), // truncated
            (b"%uzzzz", b"%uzzzz"),
            (b"%u", b"%u"),
            (b"%41+%42", b"A B"),
            (b"%4", b"%4"),
            (b"a%u0020b", b"a b"),
        ];
        check_table(Transform::UrlDecodeUni, cases);
    }

    #[test]
    fn url_decode_uni_with_the_default_map() {
        let map = UnicodeMap::default();
        let cases: &[(&[u8], &[u8])] = &[
            (b"%u2019%u2018%u02bc%uFF07", b"''''"),
            (b"%u201c%u201D", b"\"\""),
            (b"%u3002", b"."),
            (b"%u00e9", b"e"),
            (b"%u4e00", b"\0"), // not in the map: the low byte, as without one
            (b"%uff1c", b"<"),  // in the map
            (b"%u2019zz%u20", b"'zz%u20"),
        ];
        for (input, want) in cases {
            assert_eq!(
                url_decode_uni(input, map),
                *want,
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
        // What a rule with `[utf8_to_unicode, url_decode_uni]` sees of typographic quotes.
        let chain = [Transform::Utf8ToUnicode, Transform::UrlDecodeUni];
        assert_eq!(
            *apply_chain(&chain, "x’ OR ʼaʼ=“a”".as_bytes(), map),
            *b"x' OR 'a'=\"a\""
        );
        assert_eq!(
            *apply_chain(&chain, "x’".as_bytes(), UnicodeMap::NONE),
            *b"x\x19"
        );
    }

    #[test]
    fn utf8_to_unicode_table() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"abc", b"abc"),
            ("é".as_bytes(), b"%u00e9"),
            ("\u{2018}".as_bytes(), b"%u2018"),
            ("\u{ff07}".as_bytes(), b"%uff07"),
            ("\u{1f600}".as_bytes(), b"%u1f600"),
            (b"a\xc3", b"a"),             // truncated sequence: lead byte dropped
            (b"a\0b\0", b"ab"),           // NUL dropped
            (b"\xc3(", b"("),             // bad continuation: lead byte dropped
            (b"\x80x\xff", b"\x80x\xff"), // stray continuation and 0xFF copied
            (b"\xc0\xa7", b"%u0027\xc0"), // overlong: converted, then the lead byte
            (b"\xed\xa0\x80", b"%ud800\xed"), // surrogate: the same
            (b"\xf5\x80\x80\x80", b"\xf5%u140000"), // beyond U+10FFFF: lead byte first
        ];
        check_table(Transform::Utf8ToUnicode, cases);
    }

    #[test]
    fn comment_transforms_table() {
        let replace: &[(&[u8], &[u8])] = &[
            (b"1/*x*/or/**/1", b"1 or 1"),
            (b"select/*", b"select "),
            (b"a*/b", b"a*/b"),
            (b"/*/a", b" "),
            (b"no comment", b"no comment"),
        ];
        check_table(Transform::ReplaceComments, replace);
        let remove: &[(&[u8], &[u8])] = &[
            (b"1/*x*/or 1", b"1xor 1"),
            (b"a--b#c", b"abc"),
            (b"<!--x-->", b"x"),
            (b"-a-", b"-a-"),
        ];
        check_table(Transform::RemoveCommentsChar, remove);
    }

    #[test]
    fn whitespace_and_case_table() {
        assert_eq!(
            t(
                Transform::RemoveWhitespace,
                b" a\tb\r\n\x0bc\x0c\xa0d \xc2\xa0e\xc2"
            ),
            b"abcde"
        );
        assert_eq!(t(Transform::CompressWhitespace, b"a \t\n b  c"), b"a b c");
        assert_eq!(
            t(Transform::CompressWhitespace, b"a\xa0 \xa0b"),
            b"a\xa0 \xa0b"
        );
        assert_eq!(t(Transform::Trim, b" \t a b \r\n"), b"a b");
        assert_eq!(t(Transform::Trim, b"\xa0a\xa0"), b"\xa0a\xa0");
        assert_eq!(t(Transform::Trim, b"   "), b"");
        assert_eq!(
            t(Transform::Lowercase, b"SeLeCt \xc3\x89"),
            b"select \xc3\x89"
        );
        assert_eq!(t(Transform::RemoveNulls, b"a\0b\0\0c"), b"abc");
    }

    #[test]
    fn html_entity_decode_table() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"&lt;script&gt;", b"<script>"),
            (b"&#60;&#x3C;&#X3c;", b"<<<"),
            (b"&#60&#x3cZ", b"<<Z"),
            (b"&#x3cb", b"\xcb"), // every hex digit counts; the low byte is kept
            (b"&quot;&amp;&apos;", b"\"&&apos;"),
            (b"&nbsp;", b"\xa0"),
            (b"&LT;", b"<"),
            (b"&unknown;", b"&unknown;"),
            (b"&#;&#x;&", b"&#;&#x;&"),
            (b"&#99999999999999999999;", b"\xff"), // saturated
            (b"&#4294967296;", b"\x00"),           // 2^32: low byte
        ];
        check_table(Transform::HtmlEntityDecode, cases);
    }

    #[test]
    fn chain_applies_in_order() {
        use Transform::*;
        assert_eq!(
            *apply_chain(&[UrlDecodeUni, Lowercase], b"%53ELECT", UnicodeMap::NONE),
            *b"select"
        );
        assert_eq!(
            *apply_chain(&[Lowercase, UrlDecodeUni], b"%u0053", UnicodeMap::NONE),
            *b"S"
        );
        assert_eq!(*apply_chain(&[], b"x", UnicodeMap::NONE), *b"x");
    }
}
