//! Text an argument or a cookie carries in base64: the application decodes it (a `state`, a filter, a serialised
//! preference, a cookie's JSON) and reads the text, so rules read it too. Attackers encode payloads so for the
//! same reason: a WAF that reads only what was sent sees letters and digits (GoTestWAF's `Base64Flat` encoder).
//!
//! Only a value that is base64 to its last byte and decodes to text is read this way: tokens, hashes, images
//! and `__VIEWSTATE`s decode to bytes that are not text and are left as they are.

use super::body::{Item, parse_json};
use base64::Engine;
use bumpalo::Bump;
use bumpalo::collections::Vec as ArenaVec;

/// Shortest value read as base64: six bytes of text, the shortest payload worth encoding (`../etc`, `'or 1#`).
/// Shorter words of letters decode by chance to printable bytes more often.
const MIN_ENCODED: usize = 8;

/// Longest value read as base64. A longer one is a file or a blob rather than a parameter's text, and decoding it
/// would double the memory the request holds.
const MAX_ENCODED: usize = 64 * 1024;

/// `items`, then the text of each value that holds text in base64 under the same name, marked as decoded. A
/// text that is a JSON document (a token's header, a serialised state: `{"alg":"HS256","typ":"JWT"}`) gives its
/// leaves, as a JSON body does, rather than its syntax.
pub fn with_decoded<'a>(arena: &'a Bump, items: &'a [Item<'a>]) -> &'a [Item<'a>] {
    let mut decoded = items
        .iter()
        .filter(|item| !item.decoded)
        .filter_map(|item| Some((item.name, text_of(arena, item.value)?)))
        .flat_map(|(name, text)| {
            let values = match text.first() {
                Some(b'{' | b'[') => parse_json(arena, text),
                _ => arena.alloc_slice_copy(&[Item::raw(text)]),
            };
            values.iter().map(move |leaf| Item {
                decoded: true,
                ..Item::new(name, leaf.value)
            })
        })
        .peekable();
    if decoded.peek().is_none() {
        return items;
    }
    let mut all = ArenaVec::from_iter_in(items.iter().copied(), arena);
    all.extend(decoded);
    all.into_bump_slice()
}

/// The text `value` encodes, when it is all base64 (the standard or the URL-safe alphabet, padded or not) and
/// decodes to printable UTF-8 with at least one character that is neither a letter nor a digit: text a parser
/// reads has syntax, and a word of letters is no payload. Decoded into `arena`: most values of letters and digits
/// decode to bytes that are not text, and the request's arena holds them until it ends, with no heap allocation.
fn text_of<'a>(arena: &'a Bump, value: &[u8]) -> Option<&'a [u8]> {
    if !(MIN_ENCODED..=MAX_ENCODED).contains(&value.len()) {
        return None;
    }
    let unpadded = value
        .strip_suffix(b"==")
        .or_else(|| value.strip_suffix(b"="))
        .unwrap_or(value);
    // A `+` sent unescaped in a query or a form is read as a blank; decoders that expect base64 there read it
    // back as `+`.
    let standard = unpadded
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b' '));
    let url_safe = unpadded
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let engine = match (standard, url_safe) {
        (true, _) => &base64::engine::general_purpose::STANDARD_NO_PAD,
        (_, true) => &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        _ => return None,
    };
    let unpadded: &[u8] = if unpadded.contains(&b' ') {
        arena.alloc_slice_fill_iter(unpadded.iter().map(|&b| if b == b' ' { b'+' } else { b }))
    } else {
        unpadded
    };
    let out = arena.alloc_slice_fill_copy(base64::decoded_len_estimate(unpadded.len()), 0u8);
    let len = engine.decode_slice(unpadded, out).ok()?;
    let bytes = &out[..len];
    let text = std::str::from_utf8(bytes).ok()?;
    let printable = text
        .chars()
        .all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'));
    let syntax = text.chars().any(|c| !c.is_alphanumeric());
    (printable && syntax).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: &str) -> Option<String> {
        let arena = Bump::new();
        text_of(&arena, value.as_bytes()).map(|t| String::from_utf8(t.to_vec()).expect("text"))
    }

    #[test]
    fn base64_of_text_is_read() {
        assert_eq!(
            text("KikodWlkPSopKSh8KHVpZD0q").as_deref(),
            Some("*)(uid=*))(|(uid=*")
        );
        assert_eq!(
            text("Li4vLi4vZXRjL3Bhc3N3ZA==").as_deref(),
            Some("../../etc/passwd")
        );
        assert_eq!(
            text("Li4vLi4vZXRjL3Bhc3N3ZA").as_deref(),
            Some("../../etc/passwd")
        );
        assert_eq!(
            text("eyJyZXR1cm5UbyI6Ii9ob21lIn0").as_deref(),
            Some("{\"returnTo\":\"/home\"}")
        );
        // `+` read as a blank from a query string.
        assert_eq!(text("YT4 P2I/Pw==").as_deref(), Some("a>>?b??"));
    }

    #[test]
    fn tokens_words_and_blobs_are_not() {
        // A hex digest, a random token, a word of letters, an image's bytes, text of letters only.
        assert_eq!(text("5d41402abc4b2a76b9719d911017c592"), None);
        assert_eq!(text("Zm9vYmFy"), None);
        assert_eq!(text("password"), None);
        assert_eq!(text("iVBORw0KGgoAAAANSUhEUg=="), None);
        assert_eq!(text("a2F0ZQ"), None);
        assert_eq!(text("not base64!"), None);
        assert_eq!(text("some plain words here"), None);
    }

    #[test]
    fn decoded_values_follow_their_collection_under_the_same_name() {
        let arena = Bump::new();
        let items = [
            Item::new(b"q", b"plain"),
            Item::new(b"f", b"Li4vLi4vZXRjL3Bhc3N3ZA=="),
        ];
        let all = with_decoded(&arena, arena.alloc_slice_copy(&items));
        assert_eq!(all.len(), 3);
        assert_eq!(
            (all[2].name, all[2].value, all[2].decoded),
            (&b"f"[..], &b"../../etc/passwd"[..], true)
        );
        // A JSON document gives its leaves.
        let token = [Item::new(b"token", b"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9")];
        let all = with_decoded(&arena, arena.alloc_slice_copy(&token));
        let leaves: Vec<&[u8]> = all[1..].iter().map(|item| item.value).collect();
        assert_eq!(leaves, [&b"HS256"[..], b"JWT"]);
        // A decoded value is not decoded again (`Li4v...` of `Li4v...`).
        let twice = [Item::new(b"t", b"TGk0dkxpNHZaWFJqTDNCaGMzTjNaQT09")];
        let all = with_decoded(&arena, arena.alloc_slice_copy(&twice));
        assert_eq!(all.len(), 2);
    }
}
