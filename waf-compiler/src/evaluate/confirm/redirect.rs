//! OAuth's loopback redirect: a native app (a command-line tool, a desktop client) signs in through the browser
//! and receives the authorization code on a port of its own machine, `redirect_uri=http://127.0.0.1:8085/` or
//! `http://localhost:53682/callback` (RFC 8252 §7.3, which requires authorization servers to accept it). The
//! authorization server sends the browser there; it fetches nothing, so the loopback address CRS's SSRF rules
//! look for (934110) is where the user's own app listens, not a request forgery.

/// The parameter RFC 6749 §3.1.2 names for the redirection endpoint; OpenID Connect and providers name others
/// after it with a prefix (`post_logout_redirect_uri`, `success_redirect_uri`).
const REDIRECT_PARAMETER: &[u8] = b"redirect_uri";

/// Why `value`, sent as `name`, is a native app's loopback redirect: a redirect URI parameter holding an `http`
/// URL of a loopback host (`127.0.0.1`, `[::1]`, `localhost`), with a port or a path only.
pub fn loopback_redirect(name: &[u8], value: &[u8]) -> Option<String> {
    // A JSON member's path ends with its name after a `.`.
    if !super::name::ends_with_name(name, REDIRECT_PARAMETER, b"_.") {
        return None;
    }
    let rest = value.strip_prefix(b"http://")?;
    let authority_end = rest
        .iter()
        .position(|&b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let host = match authority.iter().rposition(|&b| b == b':') {
        Some(colon) if !authority.ends_with(b"]") => {
            let port = &authority[colon + 1..];
            if port.is_empty() || !port.iter().all(u8::is_ascii_digit) {
                return None;
            }
            &authority[..colon]
        }
        _ => authority,
    };
    let loopback = [b"127.0.0.1".as_slice(), b"[::1]", b"localhost"]
        .iter()
        .any(|h| host.eq_ignore_ascii_case(h));
    // Nothing after the authority an injection needs: a path and a query of URL characters.
    let plain = rest[authority_end..]
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b"-._~/?=&%".contains(&b));
    (loopback && plain).then(|| {
        "a native app's loopback redirect (RFC 8252): the browser is sent there, nothing is fetched".to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_app_redirects_and_nothing_else() {
        for value in [
            "http://127.0.0.1:8085/",
            "http://localhost:53682/callback",
            "http://[::1]:9000/cb?x=1",
        ] {
            assert!(
                loopback_redirect(b"redirect_uri", value.as_bytes()).is_some(),
                "{value}"
            );
        }
        assert_eq!(loopback_redirect(b"url", b"http://127.0.0.1:8085/"), None);
        assert!(loopback_redirect(b"success_redirect_uri", b"http://localhost/done").is_some());
        assert!(
            loopback_redirect(b"json.post_logout_redirect_uri", b"http://127.0.0.1:9/").is_some()
        );
        assert_eq!(
            loopback_redirect(b"notredirect_uri", b"http://127.0.0.1:8085/"),
            None
        );
        assert_eq!(
            loopback_redirect(b"redirect_uri", b"http://169.254.169.254/latest/meta-data/"),
            None
        );
        assert_eq!(
            loopback_redirect(b"redirect_uri", b"http://localhost:80@evil.example/"),
            None
        );
        assert_eq!(
            loopback_redirect(b"redirect_uri", b"gopher://127.0.0.1:6379/_x"),
            None
        );
    }
}
