//! Unicode escapes (`\u00e4`, `%u00e4`): an evasion when the application's decoder turns one into ASCII
//! punctuation the rules did not see (a quote, an angle bracket: `\u0027`, or a fullwidth `＇` that a Windows
//! best-fit conversion makes `'`), and ordinary when it names a letter. JSON encoders write every character
//! beyond ASCII so by default (Python's `ensure_ascii`, PHP's `json_encode`), and APIs that carry JSON in a
//! header must (Dropbox's `Dropbox-API-Arg`): `M\u00e4rz` is März.

use crate::transform::UnicodeMap;

/// Why the Unicode escapes of `value` hide nothing, when none decodes to ASCII (directly, or through the
/// best-fit `map` to punctuation); `None` when one does or when there is none.
pub fn letters_only(value: &[u8], map: UnicodeMap) -> Option<String> {
    let mut escapes = 0;
    for i in 0..value.len().saturating_sub(5) {
        let Some(code) = escape_at(value, i) else {
            continue;
        };
        let hides_ascii = code < 0x80
            || map.lookup(code).is_some_and(|b| {
                b < 0x80 && !b.is_ascii_alphanumeric() && (!is_soft(b) || doubled(value, i, b, map))
            });
        if hides_ascii {
            return None;
        }
        escapes += 1;
    }
    (escapes > 0).then(|| {
        format!("{escapes} Unicode escape(s), each of a character beyond ASCII that no decoding makes punctuation")
    })
}

/// The code point of the Unicode escape (`\\uXXXX`, `%uXXXX`) that starts at `at` in `value`, when one does (an
/// escaped backslash before it makes it text).
fn escape_at(value: &[u8], at: usize) -> Option<u16> {
    let window = value.get(at..at + 6)?;
    let is_escape =
        matches!(window[..2], [b'\\' | b'%', b'u' | b'U']) && (at == 0 || value[at - 1] != b'\\');
    is_escape
        .then(|| std::str::from_utf8(&window[2..]).ok())
        .flatten()
        .and_then(|hex| u16::from_str_radix(hex, 16).ok())
}

/// Punctuation that typography writes as a character of its own, which a best-fit conversion makes ASCII: a dash
/// (`–`, `—`), a dot leader, a comma, a space (no-break, thin). One alone separates words (`Čeština – úkoly`,
/// as ASCII-only JSON escapes it: Python's `ensure_ascii`, Dropbox's `Dropbox-API-Arg`); two in a row are SQL's
/// `--` comment or a path's `..`.
fn is_soft(ascii: u8) -> bool {
    matches!(ascii, b'-' | b'.' | b',' | b' ')
}

/// Whether the escape at `at`, which a best-fit conversion makes `ascii`, has the same character beside it,
/// written out or escaped: `\\u2013\\u2013` and `-\\u2013` are `--`.
fn doubled(value: &[u8], at: usize, ascii: u8, map: UnicodeMap) -> bool {
    let same = |code: u16| code == u16::from(ascii) || map.lookup(code) == Some(ascii);
    at.checked_sub(1).and_then(|before| value.get(before)) == Some(&ascii)
        || value.get(at + 6) == Some(&ascii)
        || escape_at(value, at + 6).is_some_and(same)
        || at
            .checked_sub(6)
            .and_then(|before| escape_at(value, before))
            .is_some_and(same)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_of_letters_are_not_evasions() {
        let map = UnicodeMap::default();
        assert!(letters_only(br#"{"path": "/Rechnung M\u00e4rz.pdf"}"#, map).is_some());
        assert!(letters_only(br"caf\u00e9 \u65e5\u672c", map).is_some());
        assert!(letters_only(br"\u0027 or 1=1", map).is_none());
        assert!(letters_only(br"%u003cscript%u003e", map).is_none());
        assert!(letters_only(br"x \u00e4 and \u0022", map).is_none());
        assert!(letters_only(b"no escape", map).is_none());
        assert!(
            letters_only(
                br#"{"path":"/\u010ce\u0161tina \u2013 \u00fakoly.png"}"#,
                map
            )
            .is_some()
        );
        assert!(letters_only(br"1 \u2013\u2013", map).is_none());
        assert!(letters_only(br"1 -\u2013", map).is_none());
    }
}
