//! Request targets as clients send them, made acceptable to the `http` crate's URI type.
//!
//! Scripts and legacy clients send bytes in the target that RFC 3986 wants percent-encoded: `"`, `<`, `>`, `\`,
//! `^`, `` ` ``, `{`, `}`, `|` (`/?json={"a":1}`) and raw non-ASCII bytes. The HTTP/1 parser (httparse) accepts
//! them, as nginx and ModSecurity do, but `http::Uri`, which hyper builds for every request and which the
//! upstream client needs as well, refuses them: hyper answered 400. So the head guard rewrites such a target
//! before hyper sees it, percent-encoding exactly those bytes (the RFC 3987 mapping of an IRI to a URI), and
//! keeps the target as sent for the rules.
//!
//! Percent-encoded, not byte for byte, towards the upstream: `http::Uri` cannot hold these bytes, so the
//! upstream receives `%22` for `"`; it decodes to the same value. Every other byte is kept as sent, `%`
//! included (an existing escape is not encoded twice). Control characters, spaces and NUL never get here: the
//! parser refuses them (400).

/// Whether this byte of a target is percent-encoded: visible ASCII that `http::Uri` refuses (it accepts every
/// other visible ASCII byte), and every byte past ASCII. DEL and the other control bytes are left for the parser
/// to refuse.
fn needs_encoding(b: u8) -> bool {
    matches!(
        b,
        b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'}' | b'|' | 0x80..=0xff
    )
}

/// The target with the bytes `http::Uri` refuses percent-encoded, or `None` when it needs no change.
pub fn encode_for_parser(target: &[u8]) -> Option<Vec<u8>> {
    let extra = target.iter().filter(|b| needs_encoding(**b)).count();
    if extra == 0 {
        return None;
    }
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(target.len() + 2 * extra);
    for &b in target {
        if needs_encoding(b) {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        } else {
            out.push(b);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_the_parser_passes_makes_a_uri_once_encoded() {
        // httparse passes 0x21..=0x7e and 0x80..=0xff in a target; after encoding, http::Uri must take each.
        for b in (0x21u8..=0x7e).chain(0x80..=0xff) {
            let raw = [b'/', b'?', b'a', b'=', b];
            let target = encode_for_parser(&raw).unwrap_or(raw.to_vec());
            let parsed = http::Uri::try_from(target.as_slice());
            assert!(parsed.is_ok(), "byte {b:#04x}: {parsed:?}");
            let path = [b'/', b];
            let target = encode_for_parser(&path).unwrap_or(path.to_vec());
            assert!(
                http::Uri::try_from(target.as_slice()).is_ok(),
                "byte {b:#04x} in the path"
            );
        }
    }

    #[test]
    fn only_refused_bytes_are_encoded() {
        assert_eq!(encode_for_parser(b"/a/b?c=d&e=%41"), None);
        assert_eq!(
            encode_for_parser(b"/?json={\"a\":1}").unwrap(),
            b"/?json=%7B%22a%22:1%7D"
        );
        assert_eq!(
            encode_for_parser("/caf\u{e9}?q=<b>|`^\\".as_bytes()).unwrap(),
            b"/caf%C3%A9?q=%3Cb%3E%7C%60%5E%5C"
        );
        assert_eq!(encode_for_parser(b"/\xff").unwrap(), b"/%FF");
    }
}
