//! OAuth's loopback redirect: a native app (a command-line tool, a desktop client) signs in through the browser
//! and receives the authorization code on a port of its own machine, `redirect_uri=http://127.0.0.1:8085/` or
//! `http://localhost:53682/callback` (RFC 8252 §7.3, which requires authorization servers to accept it). The
//! authorization server sends the browser there; it fetches nothing, so the loopback address CRS's SSRF rules
//! look for (934110) is where the user's own app listens, not a request forgery. A service on a home or office
//! network signs its users in the same way at its private address: Home Assistant's front end is its own OAuth
//! client, named by its URL as IndieAuth names clients (`client_id=http://192.168.1.52:8123/`, its
//! `redirect_uri` under it), on every sign-in of every installation reached on the LAN; CRS's remote file
//! inclusion rule flags any URL of an IP address (931100). A private network's address is nowhere an attacker
//! serves a file to include from. A CORS setting's allowed origins (`http://localhost:3000`) are compared, never
//! fetched, either.

/// The parameters OAuth names a client's own address by: RFC 6749 §3.1.2's redirection endpoint (OpenID Connect
/// and providers name others after it with a prefix: `post_logout_redirect_uri`, `success_redirect_uri`), and
/// the client's id where it is a URL (IndieAuth).
const CLIENT_PARAMETERS: [&[u8]; 2] = [b"redirect_uri", b"client_id"];

/// Why `value`, sent as `name`, is an OAuth client's own address: a redirect URI or client id parameter holding
/// an `http(s)` URL of a loopback host (`127.0.0.1`, `[::1]`, `localhost`) or of a private network's IPv4
/// address (RFC 1918: `10/8`, `172.16/12`, `192.168/16`), with a port, a path and a query of URL characters only.
pub fn client_address(name: &[u8], value: &[u8]) -> Option<String> {
    // A JSON member's path ends with its name after a `.`.
    if !CLIENT_PARAMETERS
        .iter()
        .any(|parameter| super::name::ends_with_name(name, parameter, b"_."))
    {
        return None;
    }
    let (host, rest) = host_and_rest(value)?;
    let loopback = [b"127.0.0.1".as_slice(), b"[::1]", b"localhost"]
        .iter()
        .any(|h| host.eq_ignore_ascii_case(h));
    // Nothing after the authority an injection needs: a path and a query of URL characters.
    let plain = rest
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b"-._~/?=&%".contains(&b));
    (plain && (loopback || is_private_ipv4(host))).then(|| {
        "an OAuth client's own address (a native app's loopback redirect, RFC 8252; a LAN service's address): the \
         browser is sent there, nothing is fetched from an attacker"
            .to_owned()
    })
}

/// The parameters a site's CORS settings name the origins it lets read its answers by (S3's, Azure Storage's and
/// API gateways' `AllowedOrigins`, `allowed_origins`, `cors.origins`).
const ORIGIN_PARAMETERS: [&[u8]; 2] = [b"origin", b"origins"];

/// Why `value`, sent as `name`, is an origin a CORS setting allows rather than a URL to fetch: a parameter
/// named for origins (the last part of its name ends so, an array's index aside) holding an `http(s)` origin
/// alone, a host and perhaps a port (`http://localhost:3000`, as every developer allows their own machine). A
/// browser compares the origin of a page with it; nothing fetches it, so a loopback host there forges no request.
pub fn cors_origin(name: &[u8], value: &[u8]) -> Option<String> {
    let last = super::name::member_name(name).to_ascii_lowercase();
    let named = ORIGIN_PARAMETERS
        .iter()
        .any(|parameter| last.ends_with(parameter));
    let (host, rest) = host_and_rest(value)?;
    (named && !host.is_empty() && (rest.is_empty() || rest == b"/")).then(|| {
        "an origin a CORS setting allows, which browsers compare pages with and nothing fetches"
            .to_owned()
    })
}

/// The host of the `http(s)` URL `value` (its port checked and taken off) and what follows its authority.
fn host_and_rest(value: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = value
        .strip_prefix(b"http://")
        .or_else(|| value.strip_prefix(b"https://"))?;
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
    Some((host, &rest[authority_end..]))
}

/// Whether `host` is an IPv4 address of a private network (RFC 1918), written as four decimal numbers.
fn is_private_ipv4(host: &[u8]) -> bool {
    let Some(address) = std::str::from_utf8(host)
        .ok()
        .and_then(|host| host.parse::<std::net::Ipv4Addr>().ok())
    else {
        return false;
    };
    address.is_private()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allowed_origin_is_compared_not_fetched() {
        let name = b"json.properties.cors.allowedOrigins.2";
        assert!(cors_origin(name, b"http://localhost:3000").is_some());
        assert!(cors_origin(b"AllowedOrigins", b"https://127.0.0.1/").is_some());
        assert_eq!(cors_origin(name, b"http://localhost:3000/admin"), None);
        assert_eq!(cors_origin(b"url", b"http://localhost:3000"), None);
    }

    #[test]
    fn native_app_redirects_and_nothing_else() {
        for value in [
            "http://127.0.0.1:8085/",
            "http://localhost:53682/callback",
            "http://[::1]:9000/cb?x=1",
        ] {
            assert!(
                client_address(b"redirect_uri", value.as_bytes()).is_some(),
                "{value}"
            );
        }
        assert_eq!(client_address(b"url", b"http://127.0.0.1:8085/"), None);
        assert!(client_address(b"success_redirect_uri", b"http://localhost/done").is_some());
        assert!(client_address(b"json.post_logout_redirect_uri", b"http://127.0.0.1:9/").is_some());
        assert_eq!(
            client_address(b"notredirect_uri", b"http://127.0.0.1:8085/"),
            None
        );
        assert_eq!(
            client_address(b"redirect_uri", b"http://169.254.169.254/latest/meta-data/"),
            None
        );
        assert_eq!(
            client_address(b"redirect_uri", b"http://localhost:80@evil.example/"),
            None
        );
        assert_eq!(
            client_address(b"redirect_uri", b"gopher://127.0.0.1:6379/_x"),
            None
        );
        assert!(client_address(b"client_id", b"http://192.168.1.52:8123/").is_some());
        assert!(
            client_address(b"redirect_uri", b"https://10.0.0.7:8123/?auth_callback=1").is_some()
        );
        assert!(client_address(b"json.client_id", b"http://172.20.1.4/").is_some());
        for public in [
            &b"http://203.0.113.9/shell.txt"[..],
            b"http://172.32.0.1/",
            b"http://192.168.1.52:8123/x.php?cmd=$(id)",
            b"http://0xc0a80101/",
        ] {
            assert_eq!(client_address(b"client_id", public), None);
        }
        assert_eq!(client_address(b"url", b"http://192.168.1.52/"), None);
    }
}
