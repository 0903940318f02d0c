//! Refusal of malformed requests and request-smuggling shapes, before anything else looks at the request.
//!
//! A front proxy and the server behind it must agree on where each request ends. When a request carries two
//! framings (`Content-Length` and `Transfer-Encoding`), several lengths, or a transfer coding other than plain
//! `chunked`, two parsers can disagree, and the bytes one of them treats as body the other treats as the next
//! request. Such requests are refused with 400, never repaired: the proxy re-frames every forwarded body itself
//! (see `forward.rs`), so nothing a client says about framing reaches the upstream.
//!
//! `body_framing` is the one rule. The head guard applies it to each HTTP/1 head on the socket, before hyper
//! (which would quietly drop a `Content-Length` next to a `Transfer-Encoding`) sees it; `check` applies it
//! again to the parsed request, which also covers HTTP/2.
use http::{HeaderMap, Method, StatusCode, Version, header};

/// Why a request is refused before inspection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub status: StatusCode,
    pub reason: &'static str,
}

const fn bad(reason: &'static str) -> Refusal {
    Refusal {
        status: StatusCode::BAD_REQUEST,
        reason,
    }
}

/// How a request's body is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFraming {
    Empty,
    Length(u64),
    Chunked,
}

/// Decides the body framing from the `Content-Length` and `Transfer-Encoding` fields (`name`, `value`; other
/// fields are ignored), refusing every shape two parsers could frame differently. The one rule for both views of
/// a request: the head guard's, on the bytes of an HTTP/1 head, and `check`'s, on the parsed header map.
pub fn body_framing<'a>(
    http11: bool,
    fields: impl Iterator<Item = (&'a [u8], &'a [u8])>,
) -> Result<BodyFraming, Refusal> {
    let mut length: Option<&[u8]> = None;
    let mut lengths = 0;
    let mut coding: Option<&[u8]> = None;
    let mut codings = 0;
    for (name, value) in fields {
        if name.eq_ignore_ascii_case(b"content-length") {
            lengths += 1;
            length = Some(value.trim_ascii());
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            codings += 1;
            coding = Some(value.trim_ascii());
        }
    }
    if lengths > 0 && codings > 0 {
        return Err(bad("both Content-Length and Transfer-Encoding"));
    }
    if lengths > 1 {
        return Err(bad("more than one Content-Length"));
    }
    if codings > 1 {
        return Err(bad("more than one Transfer-Encoding"));
    }
    if let Some(digits) = length {
        // Digits only: no sign, no list, no spaces inside; a number past u64 is refused the same way.
        return match std::str::from_utf8(digits) {
            Ok(d) if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) => d
                .parse()
                .map(BodyFraming::Length)
                .map_err(|_| bad("Content-Length is not a number")),
            _ => Err(bad("Content-Length is not a number")),
        };
    }
    match coding {
        None => Ok(BodyFraming::Empty),
        Some(_) if !http11 => Err(bad("Transfer-Encoding outside HTTP/1.1")),
        Some(c) if c.eq_ignore_ascii_case(b"chunked") => Ok(BodyFraming::Chunked),
        Some(_) => Err(bad("Transfer-Encoding other than chunked")),
    }
}

pub fn check(method: &Method, version: Version, headers: &HeaderMap) -> Result<(), Refusal> {
    if method == Method::CONNECT {
        // A reverse proxy does not open tunnels; forwarding CONNECT would make it an open proxy.
        return Err(Refusal {
            status: StatusCode::METHOD_NOT_ALLOWED,
            reason: "CONNECT is not supported",
        });
    }
    let lengths = headers
        .get_all(header::CONTENT_LENGTH)
        .iter()
        .map(|v| (header::CONTENT_LENGTH.as_str().as_bytes(), v.as_bytes()));
    let codings = headers
        .get_all(header::TRANSFER_ENCODING)
        .iter()
        .map(|v| (header::TRANSFER_ENCODING.as_str().as_bytes(), v.as_bytes()));
    body_framing(version == Version::HTTP_11, lengths.chain(codings))?;
    match headers.get_all(header::HOST).iter().count() {
        0 if version == Version::HTTP_11 => Err(bad("missing Host")),
        0 | 1 => Ok(()),
        _ => Err(bad("more than one Host")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(version: Version, pairs: &[(&str, &str)]) -> Result<(), &'static str> {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        check(&Method::POST, version, &h).map_err(|r| r.reason)
    }

    #[test]
    fn refuses_smuggling_shapes() {
        let v = Version::HTTP_11;
        let host = ("host", "a");
        assert!(run(v, &[host, ("content-length", "3")]).is_ok());
        assert!(run(v, &[host, ("transfer-encoding", "chunked")]).is_ok());
        assert!(
            run(
                v,
                &[
                    host,
                    ("content-length", "3"),
                    ("transfer-encoding", "chunked")
                ]
            )
            .is_err()
        );
        assert!(run(v, &[host, ("content-length", "3"), ("content-length", "3")]).is_err());
        assert!(run(v, &[host, ("content-length", "3,3")]).is_err());
        assert!(run(v, &[host, ("content-length", "+3")]).is_err());
        assert!(run(v, &[host, ("transfer-encoding", "gzip, chunked")]).is_err());
        assert!(
            run(
                v,
                &[
                    host,
                    ("transfer-encoding", "chunked"),
                    ("transfer-encoding", "chunked")
                ]
            )
            .is_err()
        );
        assert!(run(Version::HTTP_10, &[("transfer-encoding", "chunked")]).is_err());
        assert!(run(v, &[]).is_err());
        assert!(run(v, &[host, ("host", "b")]).is_err());
        assert!(run(Version::HTTP_10, &[]).is_ok());
    }

    #[test]
    fn refuses_connect() {
        let r = check(&Method::CONNECT, Version::HTTP_11, &HeaderMap::new()).unwrap_err();
        assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    }
}
