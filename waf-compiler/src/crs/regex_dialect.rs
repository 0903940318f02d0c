//! Translation of PCRE regex syntax, as ModSecurity compiles CRS patterns, into the syntax of our
//! regex engine (regex-automata, configured for bytes: see `operator.rs`).
//!
//! Both engines agree on nearly everything CRS uses. The one difference that changes matches:
//! ModSecurity runs PCRE without its UTF flag, where `\x{e2}` is the *byte* 0xE2, while in
//! regex-syntax a braced escape is always a Unicode code point (`\x{e2}` is `â`, bytes C3 A2) and only
//! the two-digit form `\xe2` is a byte. CRS writes the UTF-8 bytes of typographic quotes that way
//! (`\x{e2}\x80[\x98\x99]` in 942420 and its siblings), so braced escapes below 0x100 become the
//! two-digit form.

/// The pattern with every `\x{H}`/`\x{HH}` written as `\xHH`; everything else is kept as is.
pub fn translate(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let escape = &rest[at..];
        if let Some(byte) = braced_byte(escape) {
            out.push_str(&format!("\\x{byte:02x}"));
            rest = &escape[escape.find('}').map_or(escape.len(), |i| i + 1)..];
        } else {
            // Copy the backslash and the character it escapes, so `\\x{e2}` stays a literal.
            let len = escape[1..].chars().next().map_or(1, |c| 1 + c.len_utf8());
            out.push_str(&escape[..len]);
            rest = &escape[len..];
        }
    }
    out.push_str(rest);
    out
}

/// The value of `\x{H}` or `\x{HH}` at the start of `escape`.
fn braced_byte(escape: &str) -> Option<u8> {
    let digits = escape.strip_prefix("\\x{")?;
    let end = digits.find('}')?;
    let hex = &digits[..end];
    if hex.is_empty() || hex.len() > 2 {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn braced_byte_escapes_become_two_digit_escapes() {
        assert_eq!(
            translate(r"\x{c2}\x{b4}|\x{e2}\x80[\x98\x99]|\x{9}"),
            r"\xc2\xb4|\xe2\x80[\x98\x99]|\x09"
        );
    }

    #[test]
    fn everything_else_is_kept() {
        for pattern in [
            r"\\x{e2}",
            r"\x{100}",
            r"\x{}",
            r"\x{e2",
            r#"(?i)[\s\x0b\"'-\)`]*?\b([0-9A-Z_a-z]+)\b"#,
            "trailing\\",
            r"é\é",
        ] {
            assert_eq!(translate(pattern), pattern);
        }
    }
}
