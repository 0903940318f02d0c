//! The upstream's response as the engine sees it, for `phase: response` rules (ModSecurity's phases 3 and 4).
//!
//! Like [`HttpRequest`](crate::request::HttpRequest), it borrows everything from the caller: the proxy hands
//! over the status, the headers as the upstream sent them, and the body as inspected (decompressed and cut
//! to the body limit), or no body when the response is not inspected past its head (a stream, a download,
//! a content type not inspected).

/// A response as the engine sees it.
#[derive(Debug, Clone, Copy)]
pub struct HttpResponse<'a> {
    pub status: u16,
    /// The protocol as the upstream answered: `HTTP/1.1`.
    pub version: &'a str,
    /// Header names and values in arrival order.
    pub headers: &'a [(&'a str, &'a [u8])],
    /// The body as inspected; `None` when it is not inspected (`RESPONSE_BODY` then has no value).
    pub body: Option<&'a [u8]>,
}

/// An owned response (the go-ftw runner builds the answer of go-ftw's reflecting backend). Borrow it with
/// [`OwnedResponse::headers`] and [`OwnedResponse::as_response`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnedResponse {
    pub status: u16,
    pub version: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Option<Vec<u8>>,
}

impl OwnedResponse {
    /// The header pairs in the borrowed form [`HttpResponse`] takes.
    pub fn headers(&self) -> Vec<(&str, &[u8])> {
        self.headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_slice()))
            .collect()
    }

    /// Borrows this response; `headers` comes from [`OwnedResponse::headers`].
    pub fn as_response<'a>(&'a self, headers: &'a [(&'a str, &'a [u8])]) -> HttpResponse<'a> {
        HttpResponse {
            status: self.status,
            version: &self.version,
            headers,
            body: self.body.as_deref(),
        }
    }
}
