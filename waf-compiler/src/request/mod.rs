//! The request the engine inspects: a borrowed view for the proxy's hot path, and an owned form parsed from raw
//! HTTP bytes (for `rulec explain`, go-ftw's `encoded_request` and the fuzzer).
//!
//! The engine never touches sockets: the proxy hands over method, URI, version, headers and the (already
//! de-chunked, size-limited) body. The raw parser here is lenient on purpose: it must show what a WAF would see
//! of a hostile request, not reject it.
//!
//! Its variables are read through [`collection::RequestView`], parsed lazily and once each, with the body
//! parsers of [`body`].

mod base64_text;
pub mod body;
pub mod coding;
pub mod collection;
mod protobuf;
pub mod response;

pub use response::{HttpResponse, OwnedResponse};

use coding::Coding;

use std::fmt;

/// How much of a request body is inspected unless configured otherwise (the proxy's `body.limit_bytes`, and
/// `rulec`'s for decoding a compressed body): a megabyte holds any form, JSON document or text field a person
/// writes, while the proxy's memory per request stays bounded.
pub const DEFAULT_BODY_LIMIT: usize = 1_048_576;

/// A request as the engine sees it, borrowing everything from the caller.
#[derive(Debug, Clone, Copy)]
pub struct HttpRequest<'a> {
    pub method: &'a str,
    /// The raw request target, with the query string (`/path?q=1`).
    pub uri: &'a str,
    /// The protocol as sent: `HTTP/1.1`.
    pub version: &'a str,
    /// Header names and values in arrival order; repeated headers appear repeatedly.
    pub headers: &'a [(&'a str, &'a [u8])],
    /// The body, already de-chunked.
    pub body: &'a [u8],
}

/// An owned request, e.g. parsed from raw bytes. Borrow it with [`OwnedRequest::headers`] and
/// [`OwnedRequest::as_request`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnedRequest {
    pub method: String,
    pub uri: String,
    pub version: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

/// Why raw bytes are not an HTTP request at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// No line ending before the end of the input.
    NoRequestLine,
    /// The request line has no space between method and target.
    BadRequestLine,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::NoRequestLine => f.write_str("no request line (missing line ending)"),
            ParseError::BadRequestLine => {
                f.write_str("request line is not `METHOD TARGET [VERSION]`")
            }
        }
    }
}

impl std::error::Error for ParseError {}

impl OwnedRequest {
    /// The header pairs in the borrowed form [`HttpRequest`] takes.
    pub fn headers(&self) -> Vec<(&str, &[u8])> {
        self.headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_slice()))
            .collect()
    }

    /// Borrows this request; `headers` comes from [`OwnedRequest::headers`].
    pub fn as_request<'a>(&'a self, headers: &'a [(&'a str, &'a [u8])]) -> HttpRequest<'a> {
        HttpRequest {
            method: &self.method,
            uri: &self.uri,
            version: &self.version,
            headers,
            body: &self.body,
        }
    }

    /// Undoes the body's content coding when the engine can ([`Coding::undo`]), keeping at most `limit` bytes of
    /// the decoded body; the coding undone.
    pub fn decode_body(&mut self, limit: usize) -> Option<Coding> {
        let (coding, decoded) = Coding::undo(&self.headers(), &self.body, limit)?;
        self.body = decoded;
        Some(coding)
    }

    /// Parses a raw HTTP/1.x request.
    ///
    /// Lenient like a permissive server: LF or CRLF line endings, a header line without `:` is kept as a name with
    /// an empty value, obsolete folded lines join the previous header. The body is everything after the blank line,
    /// cut to `Content-Length` when that is smaller, or de-chunked when `Transfer-Encoding: chunked` (if the
    /// chunking is broken, the raw rest is kept so nothing escapes inspection).
    pub fn parse(raw: &[u8]) -> Result<OwnedRequest, ParseError> {
        let (line, mut rest) = split_line(raw).ok_or(ParseError::NoRequestLine)?;
        let line = String::from_utf8_lossy(line);
        let line = line.trim_matches(|c| c == ' ' || c == '\t');
        let (method, target) = line.split_once(' ').ok_or(ParseError::BadRequestLine)?;
        let target = target.trim_start_matches(' ');
        let (uri, version) = match target.rsplit_once(' ') {
            Some((uri, version)) if version.starts_with("HTTP/") => {
                (uri.trim_end_matches(' '), version)
            }
            _ => (target, ""),
        };
        let mut headers: Vec<(String, Vec<u8>)> = Vec::new();
        let mut body: &[u8] = &[];
        while let Some((line, next)) = split_line(rest) {
            rest = next;
            if line.is_empty() {
                body = rest;
                break;
            }
            if matches!(line[0], b' ' | b'\t')
                && let Some((_, value)) = headers.last_mut()
            {
                value.push(b' ');
                value.extend_from_slice(trim_ows(line));
                continue;
            }
            let (name, value) = match memchr::memchr(b':', line) {
                Some(colon) => (&line[..colon], trim_ows(&line[colon + 1..])),
                None => (line, &[][..]),
            };
            headers.push((
                String::from_utf8_lossy(name).trim().to_owned(),
                value.to_vec(),
            ));
        }
        if body.is_empty() && !rest.is_empty() && split_line(rest).is_none() {
            // Headers not terminated by a blank line: what is left is a partial header line, not a body.
            let (name, value) = match memchr::memchr(b':', rest) {
                Some(colon) => (&rest[..colon], trim_ows(&rest[colon + 1..])),
                None => (rest, &[][..]),
            };
            headers.push((
                String::from_utf8_lossy(name).trim().to_owned(),
                value.to_vec(),
            ));
        }
        let header = |wanted: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(wanted))
                .map(|(_, v)| v.as_slice())
        };
        let chunked = header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().windows(7).any(|w| w == b"chunked"));
        let body = if chunked {
            dechunk(body).unwrap_or_else(|| body.to_vec())
        } else {
            let declared = header("content-length")
                .and_then(|v| std::str::from_utf8(v).ok())
                .and_then(|v| v.trim().parse::<usize>().ok());
            match declared {
                Some(n) if n < body.len() => body[..n].to_vec(),
                // HTTP/1.x framing: without `Content-Length` (or chunking) a request has no body (RFC 9112
                // 6.3); what follows the head is not this request's.
                None if version.starts_with("HTTP/1.") => Vec::new(),
                _ => body.to_vec(),
            }
        };
        Ok(OwnedRequest {
            method: method.to_owned(),
            uri: uri.to_owned(),
            version: version.to_owned(),
            headers,
            body,
        })
    }
}

/// Splits a file of raw requests written one after another (as the CSIC 2010 dataset and HTTP captures store
/// them) into one slice per request: each ends after its headers' blank line plus `Content-Length` bytes of body.
/// Blank lines between requests are skipped. A request without a blank line after its headers takes the rest.
pub fn split_requests(raw: &[u8]) -> Vec<&[u8]> {
    let mut requests = Vec::new();
    let mut rest = raw;
    loop {
        while let Some(next) = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))
        {
            rest = next;
        }
        if rest.is_empty() {
            return requests;
        }
        let mut at = 0;
        let mut content_length = 0usize;
        let body_start = loop {
            match split_line(&rest[at..]) {
                None => break rest.len(),
                Some((line, next)) => {
                    at = rest.len() - next.len();
                    if line.is_empty() {
                        break at;
                    }
                    if let Some(colon) = memchr::memchr(b':', line)
                        && line[..colon].eq_ignore_ascii_case(b"content-length")
                    {
                        content_length = std::str::from_utf8(trim_ows(&line[colon + 1..]))
                            .ok()
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(0);
                    }
                }
            }
        };
        let end = body_start.saturating_add(content_length).min(rest.len());
        requests.push(&rest[..end]);
        rest = &rest[end..];
    }
}

/// The first line (without its CR LF or LF) and the rest, if there is a line ending.
fn split_line(input: &[u8]) -> Option<(&[u8], &[u8])> {
    let lf = memchr::memchr(b'\n', input)?;
    let line = &input[..lf];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    Some((line, &input[lf + 1..]))
}

fn trim_ows(v: &[u8]) -> &[u8] {
    let start = v
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t'))
        .unwrap_or(v.len());
    let end = v
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t'))
        .map_or(start, |e| e + 1);
    &v[start..end]
}

/// Decodes a chunked body; `None` when the framing is broken.
fn dechunk(mut input: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(input.len());
    loop {
        let (size_line, rest) = split_line(input)?;
        let size_text = size_line.split(|b| *b == b';').next().unwrap_or(&[]);
        let size = usize::from_str_radix(std::str::from_utf8(size_text).ok()?.trim(), 16).ok()?;
        if size == 0 {
            return Some(out);
        }
        let data = rest.get(..size)?;
        out.extend_from_slice(data);
        let after = &rest[size..];
        input = after
            .strip_prefix(b"\r\n")
            .or_else(|| after.strip_prefix(b"\n"))?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_post() {
        let raw = b"POST /login?next=/ HTTP/1.1\r\nHost: a\r\nContent-Length: 7\r\nX-Empty:\r\n\r\nuser=bobEXTRA";
        let r = OwnedRequest::parse(raw).unwrap();
        assert_eq!(
            (r.method.as_str(), r.uri.as_str(), r.version.as_str()),
            ("POST", "/login?next=/", "HTTP/1.1")
        );
        assert_eq!(r.headers[0], ("Host".to_owned(), b"a".to_vec()));
        assert_eq!(r.headers[2], ("X-Empty".to_owned(), Vec::new()));
        assert_eq!(r.body, b"user=bo");
    }

    #[test]
    fn lenient_forms() {
        let r = OwnedRequest::parse(b"GET /a b\nNoColon\nX: 1\n  folded\n\n").unwrap();
        assert_eq!(r.uri, "/a b");
        assert_eq!(r.version, "");
        assert_eq!(r.headers[0], ("NoColon".to_owned(), Vec::new()));
        assert_eq!(r.headers[1], ("X".to_owned(), b"1 folded".to_vec()));
        assert_eq!(OwnedRequest::parse(b"GET"), Err(ParseError::NoRequestLine));
        assert_eq!(
            OwnedRequest::parse(b"GET\r\n"),
            Err(ParseError::BadRequestLine)
        );
    }

    #[test]
    fn splits_a_file_of_requests() {
        let raw = b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n\r\nPOST /b HTTP/1.1\r\ncontent-length: 3\r\n\r\nq=1\r\n\r\nGET /c HTTP/1.1\r\nHost: y";
        let parts = split_requests(raw);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0], b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
        assert_eq!(OwnedRequest::parse(parts[1]).unwrap().body, b"q=1");
        assert_eq!(OwnedRequest::parse(parts[2]).unwrap().uri, "/c");
        assert!(split_requests(b"\r\n\n").is_empty());
    }

    #[test]
    fn dechunks_and_keeps_broken_chunking_raw() {
        let raw = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n";
        assert_eq!(OwnedRequest::parse(raw).unwrap().body, b"abcde");
        let broken = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc";
        assert_eq!(OwnedRequest::parse(broken).unwrap().body, b"zz\r\nabc");
    }
}
