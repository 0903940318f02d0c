//! The `continue` sanitiser: where a redirect may send a browser after sign-in, login or logout.
//!
//! An open redirect turns our trusted login page into a phishing relay, so only two shapes pass: a path on this
//! host (`/...`, but not `//host` nor `/\host`, which browsers read as another host), or an absolute `http(s)` URL
//! whose host is the request's host, without credentials. Control characters and backslashes refuse the whole
//! value, because browsers strip tabs and newlines and turn `\` into `/` before they resolve a URL. Absolute URLs are
//! parsed with the WHATWG parser browsers use, so we judge the host they will actually visit.

/// Longest `continue` accepted; anything longer is not a URL we issued.
const MAX_CONTINUE_LEN: usize = 2048;

/// `target` when it stays on `host` (lower-case, no port), else `None`.
pub fn sanitize(target: &str, host: &str) -> Option<String> {
    if target.is_empty()
        || target.len() > MAX_CONTINUE_LEN
        || target
            .chars()
            .any(|c| c.is_control() || c == '\\' || c.is_whitespace())
    {
        return None;
    }
    if target.starts_with('/') {
        return (!target.starts_with("//")).then(|| target.to_string());
    }
    let url = url::Url::parse(target).ok()?;
    let same_host = url.host_str().is_some_and(|h| h.eq_ignore_ascii_case(host));
    let plain = url.username().is_empty() && url.password().is_none();
    (matches!(url.scheme(), "http" | "https") && same_host && plain).then(|| url.to_string())
}

/// Whether `target` names a file other than an HTML page (`/app.js`, `/x/data.json`): `/auth/login` refuses those,
/// since a login must land on a page.
pub fn names_non_html_file(target: &str) -> bool {
    let path = match url::Url::parse(target) {
        Ok(url) => url.path().to_string(),
        Err(_) => target
            .split(['?', '#'])
            .next()
            .unwrap_or_default()
            .to_string(),
    };
    let last = path.rsplit('/').next().unwrap_or_default();
    last.contains('.') && !last.to_ascii_lowercase().ends_with(".html")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_local_paths_and_same_host_urls() {
        assert_eq!(
            sanitize("/app?x=1#y", "a.test").as_deref(),
            Some("/app?x=1#y")
        );
        assert_eq!(
            sanitize("https://a.test/app", "a.test").as_deref(),
            Some("https://a.test/app")
        );
        assert_eq!(
            sanitize("http://A.TEST:8080/", "a.test").as_deref(),
            Some("http://a.test:8080/")
        );
    }

    #[test]
    fn refuses_other_hosts_and_tricks() {
        for bad in [
            "//evil.test",
            "/\\evil.test",
            "\\\\evil.test",
            "https://evil.test/",
            "https://a.test.evil.test/",
            "https://a.test@evil.test/",
            "https://user:pw@a.test/",
            "javascript:alert(1)",
            "data:text/html,x",
            "evil.test",
            "/\t/evil.test",
            "/\n/evil.test",
            "https:/evil.test",
            "",
        ] {
            assert_eq!(sanitize(bad, "a.test"), None, "{bad:?}");
        }
        assert_eq!(
            sanitize(&format!("/{}", "a".repeat(MAX_CONTINUE_LEN)), "a.test"),
            None
        );
    }

    #[test]
    fn recognises_non_html_files() {
        assert!(names_non_html_file("/static/app.js"));
        assert!(names_non_html_file("https://a.test/x/data.json?y=1"));
        assert!(!names_non_html_file("/index.html"));
        assert!(!names_non_html_file("/app/settings?x=a.b"));
        assert!(!names_non_html_file("/"));
    }
}
