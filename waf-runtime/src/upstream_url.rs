//! An upstream address as configured: `http://host:port`, nothing else.
//!
//! Only the scheme and authority are kept: the request's own path and query are sent as they came. A path,
//! query, user info or an `https` upstream are refused at load time rather than half-honoured.
use http::uri::{Authority, Uri};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamUrl {
    authority: Authority,
}

impl UpstreamUrl {
    pub fn authority(&self) -> &Authority {
        &self.authority
    }
}

impl FromStr for UpstreamUrl {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let uri: Uri = s.parse().map_err(|e| format!("{s:?} is not a URL: {e}"))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") => {
                return Err(format!(
                    "{s:?}: https upstreams are not yet supported by this version of waf"
                ));
            }
            _ => return Err(format!("{s:?}: expected http://host:port")),
        }
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
            authority: authority.clone(),
        })
    }
}

impl fmt::Display for UpstreamUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "http://{}", self.authority)
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
    fn accepts_host_and_port_only() {
        let u: UpstreamUrl = "http://127.0.0.1:8080".parse().unwrap();
        assert_eq!(u.authority().as_str(), "127.0.0.1:8080");
        assert!("http://app/".parse::<UpstreamUrl>().is_ok());
        for bad in [
            "https://a",
            "a:80",
            "http://a/x",
            "http://u@a",
            "http://a/?q",
            "ftp://a",
        ] {
            assert!(bad.parse::<UpstreamUrl>().is_err(), "{bad}");
        }
    }
}
