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

/// Why a text is not an upstream URL; each names the text.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamUrlError {
    #[error("{text:?} is not a URL: {source}")]
    NotAUrl {
        text: String,
        source: http::uri::InvalidUri,
    },
    #[error("{0:?}: expected http://host:port or https://host:port")]
    Scheme(String),
    #[error("{0:?}: missing host")]
    MissingHost(String),
    #[error("{0:?}: user info in an upstream URL is not supported")]
    UserInfo(String),
    #[error("{0:?}: an upstream URL has no path or query; requests keep their own")]
    PathOrQuery(String),
}

impl FromStr for UpstreamUrl {
    type Err = UpstreamUrlError;

    fn from_str(s: &str) -> Result<Self, UpstreamUrlError> {
        let uri: Uri = s.parse().map_err(|source| UpstreamUrlError::NotAUrl {
            text: s.to_string(),
            source,
        })?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => return Err(UpstreamUrlError::Scheme(s.to_string())),
        };
        let authority = uri
            .authority()
            .filter(|a| !a.host().is_empty())
            .ok_or_else(|| UpstreamUrlError::MissingHost(s.to_string()))?;
        if authority.as_str().contains('@') {
            return Err(UpstreamUrlError::UserInfo(s.to_string()));
        }
        if uri.path_and_query().is_some_and(|pq| pq.as_str() != "/") {
            return Err(UpstreamUrlError::PathOrQuery(s.to_string()));
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
