//! Credentials in an `Authorization` (or `Proxy-Authorization`) header written as a scheme and its parameters
//! (RFC 9110 §11.4: Digest's `username="...", nonce="...", response="..."`, OAuth 1.0's signed parameters,
//! Hawk's `id="...", ts="...", nonce="...", mac="..."`). The scheme's grammar is the client library's; what a
//! sender chooses is each parameter's value, a name or a generated nonce, hash or signature in base64, whose
//! letters spell words by chance (`...OngoKZg=` reads as an event handler). Each value is judged alone.

use std::borrow::Cow;

/// Whether the header `name` carries credentials.
pub fn is_authorization(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b"authorization") || name.eq_ignore_ascii_case(b"proxy-authorization")
}

/// The scheme an `Authorization` value starts with (`Bearer`, `Basic`, `Splunk`): its first word.
pub fn scheme(value: &[u8]) -> &[u8] {
    value
        .split(|b| b.is_ascii_whitespace())
        .next()
        .unwrap_or_default()
}

/// The parameters' values of `value`, a scheme followed by two or more `name=value` parameters separated by
/// commas, each value a token or a quoted string (unescaped). None when `value` is not written so in full, or
/// has one parameter only: a scheme's single token (`Bearer <token>`) may end in `=` and so read as one, and a
/// token is judged as written.
pub fn parameters(value: &[u8]) -> Option<Vec<Cow<'_, [u8]>>> {
    let scheme_end = value.iter().position(|&b| b == b' ')?;
    if scheme_end == 0 || !value[..scheme_end].iter().all(|&b| is_tchar(b)) {
        return None;
    }
    let mut rest = value[scheme_end..].trim_ascii_start();
    let mut values = Vec::new();
    loop {
        let name_end = rest.iter().position(|&b| !is_tchar(b))?;
        if name_end == 0 {
            return None;
        }
        rest = rest[name_end..]
            .trim_ascii_start()
            .strip_prefix(b"=")?
            .trim_ascii_start();
        let (parameter, after) = if rest.first() == Some(&b'"') {
            quoted_string(rest)?
        } else {
            let end = rest
                .iter()
                .position(|&b| !is_tchar(b))
                .unwrap_or(rest.len());
            (Cow::Borrowed(&rest[..end]), &rest[end..])
        };
        values.push(parameter);
        rest = after.trim_ascii_start();
        if rest.is_empty() {
            return (values.len() >= 2).then_some(values);
        }
        rest = rest.strip_prefix(b",")?.trim_ascii_start();
    }
}

/// A quoted string at the start of `text` (which starts with `"`), its backslash escapes undone, and what follows it.
fn quoted_string(text: &[u8]) -> Option<(Cow<'_, [u8]>, &[u8])> {
    let mut unescaped = Vec::new();
    let mut escaped = false;
    for (at, &b) in text.iter().enumerate().skip(1) {
        match b {
            _ if escaped => {
                unescaped.push(b);
                escaped = false;
            }
            b'\\' => escaped = true,
            b'"' => {
                let inner = &text[1..at];
                let value = if inner.contains(&b'\\') {
                    Cow::Owned(unescaped)
                } else {
                    Cow::Borrowed(inner)
                };
                return Some((value, &text[at + 1..]));
            }
            _ => unescaped.push(b),
        }
    }
    None
}

/// RFC 9110's token characters.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_read_as_the_scheme_writes_them() {
        let hawk = br#"Hawk id="r0zQ-vu5V0==", ts="1732519379", nonce="dkkZue7f", mac="f6dvG1+sBUKP47OngoKZg=""#;
        let values = parameters(hawk).expect("Hawk credentials");
        assert_eq!(values.len(), 4);
        assert_eq!(values[3].as_ref(), b"f6dvG1+sBUKP47OngoKZg=");
        let digest = br#"Digest username="O\"Neil", realm="cam", qop=auth, nc=00000001"#;
        assert_eq!(parameters(digest).expect("Digest")[0].as_ref(), b"O\"Neil");
        for not in [
            &b"Bearer eyJhbGciOiJIUzI1NiJ9.e30.x"[..],
            b"Basic dXNlcjpwYXNz",
            b"Hawk id=\"a\" <script>",
            b"Hawk id=\"unterminated",
            b"Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0onload=.POstGet_K5DG",
        ] {
            assert_eq!(parameters(not), None, "{}", String::from_utf8_lossy(not));
        }
    }
}
