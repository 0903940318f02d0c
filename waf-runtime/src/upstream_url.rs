//! An upstream address as configured: `http://host:port` or `https://host:port`, nothing else.
//!
//! Only the scheme and authority are kept: the request's own path and query are sent as they came. A path,
//! query or user info are refused at load time rather than half-honoured.
use http::uri::{Authority, Uri};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamUrl {
    tls: bool,
    authority: Authority,
}

impl UpstreamUrl {
    pub fn authority(&self) -> &Authority {
        &self.authority
    }

    /// Whether the upstream is reached over TLS (`https://`).
    pub fn is_tls(&self) -> bool {
        self.tls
    }

    /// The host, as a resolver or a TLS server name takes it: `[::1]` in a URL is `::1`.
    pub fn host(&self) -> &str {
        self.authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']')
    }

    /// The port, the scheme's own when the URL has none.
    pub fn port(&self) -> u16 {
        self.authority
            .port_u16()
            .unwrap_or(if self.tls { 443 } else { 80 })
    }
}

impl FromStr for UpstreamUrl {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let uri: Uri = s.parse().map_err(|e| format!("{s:?} is not a URL: {e}"))?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => {
                return Err(format!(
                    "{s:?}: expected http://host:port or https://host:port"
                ));
            }
        };
        let authority = uri
            .authority()
            .filter(|a| !a.host().is_empty())
            .ok_or_else(|| format!("{s:?}: missing host"))?;
        if authority.as_str().contains('@') {
            return Err(format!(
                "{s:?}: user info in an upstream URL is not supported"
            ));
        }
        if uri.path_and_query().is_some_and(|pq| pq.as_str() != "/") {
            return Err(format!(
                "{s:?}: an upstream URL has no path or query; requests keep their own"
            ));
        }
        Ok(UpstreamUrl {
            tls,
            authority: authority.clone(),
        })
    }
}

impl fmt::Display for UpstreamUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.tls { "https" } else { "http" };
        write!(f, "{scheme}://{}", self.authority)
    }
}

impl Serialize for UpstreamUrl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_scheme_host_and_port_only() {
        let u: UpstreamUrl = "http://127.0.0.1:8080".parse().unwrap();
        assert_eq!(u.authority().as_str(), "127.0.0.1:8080");
        assert!(!u.is_tls());
        assert!("http://app/".parse::<UpstreamUrl>().is_ok());
        let u: UpstreamUrl = "https://[::1]".parse().unwrap();
        assert!(u.is_tls());
        assert_eq!((u.host(), u.port()), ("::1", 443));
        assert_eq!(u.to_string(), "https://[::1]");
        for bad in [
            "a:80",
            "http://a/x",
            "https://u@a",
            "http://a/?q",
            "ftp://a",
        ] {
            assert!(bad.parse::<UpstreamUrl>().is_err(), "{bad}");
        }
    }
}
