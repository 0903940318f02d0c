//! The forms of a value a confirmer reads: as received, then with URL, HTML entity and JavaScript escapes undone,
//! round after round, as an application that decodes once more (or a browser that unescapes an attribute) would.

use crate::rule::Transform;
use crate::transform::{UnicodeMap, apply};
use std::borrow::Cow;

/// Rounds of decoding: double URL encoding and an entity-encoded URL escape are what attackers use; a value
/// still changing after three rounds is noise, and the bound keeps the work linear in the value.
const ROUNDS: usize = 3;

/// The decoders, in the order a round applies them, each with the byte that must be present for it to act.
const DECODERS: [(Transform, u8); 3] = [
    (Transform::UrlDecodeUni, b'%'),
    (Transform::HtmlEntityDecode, b'&'),
    (Transform::JsDecode, b'\\'),
];

/// `raw`, then each distinct form a decoding round gives.
pub fn forms(raw: &[u8], map: UnicodeMap) -> Vec<Cow<'_, [u8]>> {
    let mut forms = vec![Cow::Borrowed(raw)];
    for _ in 0..ROUNDS {
        let last = forms.last().map_or(raw, |f| f.as_ref());
        let mut next: Option<Vec<u8>> = None;
        for (transform, trigger) in DECODERS {
            let current = next.as_deref().unwrap_or(last);
            if current.contains(&trigger) {
                let decoded = apply(transform, current, map);
                if decoded != current {
                    next = Some(decoded);
                }
            }
        }
        match next {
            Some(decoded) if !forms.iter().any(|f| f.as_ref() == decoded.as_slice()) => {
                forms.push(Cow::Owned(decoded))
            }
            _ => break,
        }
    }
    forms
}

/// Whether a rule's Unicode decoding (`utf8_to_unicode`, `url_decode_uni`) makes up bytes of `raw`: as in
/// ModSecurity, a character the best-fit map does not have becomes its code point's low byte, so Thai `ว`
/// (U+0E27) reads as `'` and Russian `Ч` (U+0427) too. Text in such a script comes out as punctuation soup
/// that libinjection finds injections in; the sender wrote letters. (A character the map has, such as the
/// fullwidth `＇` attackers use, decodes to what it stands for in the forms read anyway.)
pub fn low_bytes_invented(raw: &[u8], map: UnicodeMap) -> bool {
    std::str::from_utf8(raw).is_ok_and(|text| {
        text.chars().any(|c| {
            u16::try_from(u32::from(c)).is_ok_and(|code| {
                code >= 0x100 && map.lookup(code).is_none() && (code & 0xFF) < 0x80
            })
        })
    })
}

/// Whether a rule's Unicode decoding made up bytes of `raw` in `transformed`: low bytes of letters
/// ([`low_bytes_invented`]) or escapes of them ([`unicode_escapes_invented`]).
pub fn invented(raw: &[u8], transformed: &[u8], map: UnicodeMap) -> bool {
    low_bytes_invented(raw, map) || unicode_escapes_invented(raw, transformed)
}

/// Whether `transformed` holds `%uXXXX` escapes that a rule's `utf8_to_unicode` wrote for the characters of
/// `raw` beyond ASCII (ModSecurity's transform, which 942100 reads with libinjection): Hebrew `ת"א` becomes
/// `%u05ea"%u05d0`, whose `%` are operators and `u05ea` words to SQL's tokenizer. The sender wrote letters; an
/// escape `raw` itself carries (`%u0027`) is decoded in the forms read anyway.
pub fn unicode_escapes_invented(raw: &[u8], transformed: &[u8]) -> bool {
    let has_escape = |s: &[u8]| {
        s.windows(6).any(|w| {
            w[0] == b'%'
                && w[1].eq_ignore_ascii_case(&b'u')
                && w[2..].iter().all(u8::is_ascii_hexdigit)
        })
    };
    !raw.is_ascii() && has_escape(transformed) && !has_escape(raw)
}

/// Whether a rule's URL decoding did nothing to `raw` but read its `+` as blanks. The value was decoded once
/// already where `+` means a blank (a query string, a form: its `+` came as `%2B`), and a JSON string or a header
/// keeps its `+` as is, so the application reads a `+` (a cookie is another matter: PHP URL-decodes it) (an address's tag, `john+orders@example.com`, is not the
/// words `john orders`). A value with an escape left (`%2B` sent as `%252B`) is read in its decoded forms anyway.
pub fn plus_read_as_blank(raw: &[u8], transformed: &[u8]) -> bool {
    !raw.contains(&b'%')
        && raw != transformed
        && raw.len() == transformed.len()
        && raw
            .iter()
            .zip(transformed)
            .all(|(r, t)| r == t || (*r == b'+' && *t == b' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_round_after_round_and_stops() {
        let forms = forms(b"%253Cb%253E", UnicodeMap::default());
        let forms: Vec<&[u8]> = forms.iter().map(|f| f.as_ref()).collect();
        assert_eq!(forms, [&b"%253Cb%253E"[..], b"%3Cb%3E", b"<b>"]);
        assert_eq!(super::forms(b"plain", UnicodeMap::default()).len(), 1);
    }

    #[test]
    fn a_plus_read_as_a_blank_is_told() {
        assert!(plus_read_as_blank(b"john+or@var.es", b"john or@var.es"));
        assert!(!plus_read_as_blank(b"a%2Bb+c", b"a+b c"));
        assert!(!plus_read_as_blank(b"a+b", b"a+b"));
    }

    #[test]
    fn letters_of_other_scripts_are_not_punctuation() {
        let map = UnicodeMap::default();
        assert!(low_bytes_invented("สวัสดีค่ะ".as_bytes(), map));
        assert!(low_bytes_invented("Чем помочь?".as_bytes(), map));
        assert!(!low_bytes_invented("Größe passt".as_bytes(), map));
        assert!(!low_bytes_invented(b"1' or '1'='1", map));
    }
}
