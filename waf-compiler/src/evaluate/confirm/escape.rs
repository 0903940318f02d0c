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
    for (i, window) in value.windows(6).enumerate() {
        let is_escape =
            matches!(window[..2], [b'\\' | b'%', b'u' | b'U']) && (i == 0 || value[i - 1] != b'\\');
        let Some(code) = is_escape
            .then(|| std::str::from_utf8(&window[2..]).ok())
            .flatten()
            .and_then(|hex| u16::from_str_radix(hex, 16).ok())
        else {
            continue;
        };
        let hides_ascii = code < 0x80
            || map
                .lookup(code)
                .is_some_and(|b| b < 0x80 && !b.is_ascii_alphanumeric());
        if hides_ascii {
            return None;
        }
        escapes += 1;
    }
    (escapes > 0).then(|| {
        format!("{escapes} Unicode escape(s), each of a character beyond ASCII that no decoding makes punctuation")
    })
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
    }
}
