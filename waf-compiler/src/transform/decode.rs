//! The decoders and normalisers the CRS request files use beyond the SQL-injection set: JavaScript and CSS
//! escapes, C escape sequences, Base64, hex, paths and command lines, each as ModSecurity does it, broken input
//! included (see the parent module). None can fail or panic; each output is at most as long as its input,
//! except `hex_encode` (twice) and `length` (at most 20 bytes).

use super::{hex_pair, hex_value};
use base64::Engine;

/// `cmdLine`: deletes `\ " ' ^`, turns each run of spaces, tabs, CR, LF, `,` and `;` into one space, deletes a
/// space before `/` or `(`, lowercases the rest (ASCII), so `C^at  "/e"t"c/pass'wd` reads `cat/etc/passwd`.
pub fn cmd_line(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut space = false;
    for &b in input {
        match b {
            b'"' | b'\'' | b'\\' | b'^' => {}
            b' ' | b',' | b';' | b'\t' | b'\r' | b'\n' => {
                if !space {
                    out.push(b' ');
                    space = true;
                }
            }
            b'/' | b'(' => {
                if space {
                    out.pop();
                }
                space = false;
                out.push(b);
            }
            _ => {
                out.push(b.to_ascii_lowercase());
                space = false;
            }
        }
    }
    out
}

/// The full-width ASCII block U+FF01..U+FF5E: ModSecurity maps `\uFF01` to `!` (the low byte plus 0x20).
fn unicode_low_byte(high: u8, low: u8) -> u8 {
    if high == 0xff && (0x01..=0x5e).contains(&low) {
        low + 0x20
    } else {
        low
    }
}

/// `jsDecode`: `\uHHHH` (the low byte, full-width ASCII to ASCII), `\xHH`, up to three octal digits (two when
/// three would exceed a byte), `\a \b \f \n \r \t \v`, and `\c` for any other `c`; a trailing `\` is kept.
pub fn js_decode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] != b'\\' || i + 1 >= input.len() {
            out.push(input[i]);
            i += 1;
            continue;
        }
        let next = input[i + 1];
        if next == b'u'
            && let (Some(high), Some(low)) = (hex_pair(input, i + 2), hex_pair(input, i + 4))
        {
            out.push(unicode_low_byte(high, low));
            i += 6;
        } else if next == b'x'
            && let Some(byte) = hex_pair(input, i + 2)
        {
            out.push(byte);
            i += 4;
        } else if next.is_ascii_digit() && next < b'8' {
            let digits = octal_digits(&input[i + 1..]);
            out.push(octal_value(&input[i + 1..i + 1 + digits]));
            i += 1 + digits;
        } else {
            out.push(simple_escape(next).unwrap_or(next));
            i += 2;
        }
    }
    out
}

/// How many of the leading bytes of `s` form an octal escape: up to three digits, two when a third would make
/// the value exceed 0o377.
fn octal_digits(s: &[u8]) -> usize {
    let n = s
        .iter()
        .take(3)
        .take_while(|b| (b'0'..=b'7').contains(b))
        .count();
    if n == 3 && s[0] > b'3' { 2 } else { n }
}

fn octal_value(digits: &[u8]) -> u8 {
    digits
        .iter()
        .fold(0u8, |v, d| v.wrapping_mul(8).wrapping_add(d - b'0'))
}

/// The C escapes with a letter: `\a \b \f \n \r \t \v`.
fn simple_escape(letter: u8) -> Option<u8> {
    Some(match letter {
        b'a' => 0x07,
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'v' => 0x0b,
        _ => return None,
    })
}

/// `escapeSeqDecode`: ANSI C escapes (`\a \b \f \n \r \t \v \\ \? \' \"`, `\xHH`, one to three octal digits);
/// in an escape it does not recognise the backslash is deleted; a trailing backslash is kept.
pub fn escape_seq_decode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] != b'\\' || i + 1 >= input.len() {
            out.push(input[i]);
            i += 1;
            continue;
        }
        let next = input[i + 1];
        if let Some(byte) =
            simple_escape(next).or(matches!(next, b'\\' | b'?' | b'\'' | b'"').then_some(next))
        {
            out.push(byte);
            i += 2;
        } else if (next == b'x' || next == b'X')
            && let Some(byte) = hex_pair(input, i + 2)
        {
            out.push(byte);
            i += 4;
        } else if (b'0'..=b'7').contains(&next) {
            let digits = octal_digits(&input[i + 1..]);
            out.push(octal_value(&input[i + 1..i + 1 + digits]));
            i += 1 + digits;
        } else {
            // As ModSecurity v3: the backslash goes, the byte after it stays (`\z` is `z`, `\x4` is `x4`).
            out.push(next);
            i += 2;
        }
    }
    out
}

/// `cssDecode`: `\` and one to six hex digits is a character (its low byte; full-width ASCII to ASCII), one
/// following whitespace byte is part of the escape; `\` before a newline is deleted, before any other byte
/// gives that byte; a trailing `\` is deleted.
pub fn css_decode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] != b'\\' {
            out.push(input[i]);
            i += 1;
            continue;
        }
        let rest = &input[i + 1..];
        let digits = rest
            .iter()
            .take(6)
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        if digits > 0 {
            let hex = &rest[..digits];
            let low = hex_tail(hex);
            // Four or more digits whose code point is FF01..FF5E: the full-width form of an ASCII character.
            let full_width = digits >= 4 && hex[..digits - 4].iter().all(|&d| d == b'0');
            let high = if full_width {
                hex_tail(&hex[..digits - 2])
            } else {
                0
            };
            out.push(unicode_low_byte(high, low));
            i += 1 + digits;
            if input.get(i).is_some_and(|&b| super::is_space(b)) {
                i += 1;
            }
        } else {
            match rest.first() {
                None | Some(b'\n') => {}
                Some(&b) => out.push(b),
            }
            i += 2;
        }
    }
    out
}

/// The value of the last two hex digits of `hex` (one digit alone when there is only one).
fn hex_tail(hex: &[u8]) -> u8 {
    match hex {
        [] => 0,
        [one] => hex_value(*one).unwrap_or(0),
        [.., a, b] => hex_value(*a).unwrap_or(0) << 4 | hex_value(*b).unwrap_or(0),
    }
}

/// `normalizePath`: deletes empty segments (`//`), `.` segments, and each `..` with the segment before it; a
/// `..` with nothing before it is kept in a relative path and deleted after the root. A trailing `/` stays.
pub fn normalize_path(input: &[u8]) -> Vec<u8> {
    let absolute = input.first() == Some(&b'/');
    let trailing = input.len() > 1 && input.last() == Some(&b'/');
    let mut segments: Vec<&[u8]> = Vec::new();
    for segment in input.split(|&b| b == b'/') {
        match segment {
            b"" | b"." => {}
            b".." => match segments.last() {
                Some(last) if *last != b".." => {
                    segments.pop();
                }
                _ if absolute => {}
                _ => segments.push(segment),
            },
            _ => segments.push(segment),
        }
    }
    let mut out = Vec::with_capacity(input.len());
    if absolute {
        out.push(b'/');
    }
    for (n, segment) in segments.iter().enumerate() {
        if n > 0 {
            out.push(b'/');
        }
        out.extend_from_slice(segment);
    }
    if trailing && !segments.is_empty() {
        out.push(b'/');
    }
    out
}

/// `normalizePathWin`: `\` is a separator too, then [`normalize_path`].
pub fn normalize_path_win(input: &[u8]) -> Vec<u8> {
    let slashed: Vec<u8> = input
        .iter()
        .map(|&b| if b == b'\\' { b'/' } else { b })
        .collect();
    normalize_path(&slashed)
}

/// `base64Decode`: the standard alphabet, padding optional; decoding stops at the first byte outside the
/// alphabet, as ModSecurity's does, and what came before it is the result.
pub fn base64_decode(input: &[u8]) -> Vec<u8> {
    let valid = input
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
        .count();
    // A lone trailing character carries fewer than 8 bits: it is dropped.
    let usable = &input[..valid - usize::from(valid % 4 == 1)];
    base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(usable)
        .unwrap_or_default()
}

/// `hexEncode`: each byte as two lowercase hex digits.
pub fn hex_encode(input: &[u8]) -> Vec<u8> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    input
        .iter()
        .flat_map(|&b| [DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 15)]])
        .collect()
}

/// `length`: the value's length in bytes, in decimal.
pub fn length(input: &[u8]) -> Vec<u8> {
    input.len().to_string().into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmd_line_table() {
        assert_eq!(cmd_line(b"C^at  \"/e\"t\"c/pass'wd"), b"cat/etc/passwd");
        assert_eq!(cmd_line(b"ls ,; -la\t\n( x"), b"ls -la( x");
    }

    #[test]
    fn js_and_escape_decoding() {
        assert_eq!(js_decode(b"\\u0041\\x42\\103\\n\\q\\uFF01\\"), b"ABC\nq!\\");
        assert_eq!(js_decode(b"\\400\\u00"), b"\x200u00");
        assert_eq!(escape_seq_decode(b"a\\x41\\101\\t\\z\\"), b"aAA\tz\\");
        assert_eq!(escape_seq_decode(b"\\x4\\+\\&"), b"x4+&");
    }

    #[test]
    fn css_decoding() {
        assert_eq!(css_decode(b"\\41 b\\000062\\\nc\\q\\"), b"Abbcq");
        assert_eq!(css_decode(b"\\ff01"), b"!");
        assert_eq!(css_decode(b"j\\61vascript"), b"javascript");
    }

    #[test]
    fn path_normalisation() {
        assert_eq!(normalize_path(b"/a//b/./c/../d/"), b"/a/b/d/");
        assert_eq!(normalize_path(b"/../../etc/passwd"), b"/etc/passwd");
        assert_eq!(normalize_path(b"../../etc/passwd"), b"../../etc/passwd");
        assert_eq!(
            normalize_path_win(b"c:\\windows\\..\\boot.ini"),
            b"c:/boot.ini"
        );
    }

    #[test]
    fn base64_hex_and_length() {
        assert_eq!(base64_decode(b"aGVsbG8="), b"hello");
        assert_eq!(base64_decode(b"aGVsbG8"), b"hello");
        assert_eq!(base64_decode(b"aGVs!bG8"), b"hel");
        assert_eq!(base64_decode(b"aGVsb"), b"hel");
        assert_eq!(hex_encode(b"\x00A\xff"), b"0041ff");
        assert_eq!(length(b"abc"), b"3");
    }
}
