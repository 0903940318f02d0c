//! Size limits on request heads (`server.limits`), the same for HTTP/1 and HTTP/2.
//!
//! Without them the proxy parsed, inspected and forwarded heads of any size up to hyper's ~400 KB read buffer: a
//! cheap way to make the proxy (and the upstream behind it) work hard, and a difference between what the proxy and
//! the upstream accept. The defaults are nginx's (`large_client_header_buffers 4 8k`): a request line or one header
//! line of 8 KiB, a head of 32 KiB, and hyper's 100 headers. A refusal never reaches the rules or the upstream.
//!
//! HTTP/1 heads are measured on the socket by `head_guard.rs` before hyper sees them; HTTP/2 header lists are
//! bounded by SETTINGS_MAX_HEADER_LIST_SIZE (announced to the client and enforced by the h2 library) and the
//! target length and header count by [`Limits::check_h2`].
use crate::framing::Refusal;
use http::{Request, StatusCode, Version};
use serde::Serialize;

/// The largest `max_head_bytes` accepted. The guard may percent-encode a target (`request_target.rs`), which
/// at worst triples it, and what it hands hyper must stay inside hyper's own read buffer (about 400 KB): 128 KiB
/// times three does.
pub const MAX_HEAD_BYTES_CEILING: usize = 128 * 1024;
/// The largest `max_request_line_bytes` accepted: tripled by percent-encoding it stays under the 64 KiB that
/// hyper and the `http` crate allow a request target.
pub const MAX_REQUEST_LINE_CEILING: usize = 16 * 1024;
/// The largest `max_headers` accepted: hyper allocates room for this many headers for every request.
pub const MAX_HEADERS_CEILING: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// The request line (method, target, version), without its line ending. Over it: 414.
    pub max_request_line_bytes: usize,
    /// One header line, name and value, without its line ending. Over it: 431.
    pub max_header_line_bytes: usize,
    /// The whole head, from the first byte of the request line to the end of the blank line. Over it: 431.
    /// For HTTP/2, the header list size (RFC 9113 §6.5.2: names, values and 32 bytes per field).
    pub max_head_bytes: usize,
    /// Header fields. Over it: 431.
    pub max_headers: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_request_line_bytes: 8 * 1024,
            max_header_line_bytes: 8 * 1024,
            max_head_bytes: 32 * 1024,
            max_headers: 100,
        }
    }
}

pub const fn target_too_long() -> Refusal {
    Refusal {
        status: StatusCode::URI_TOO_LONG,
        reason: "request line over the limit",
    }
}

pub const fn header_line_too_long() -> Refusal {
    too_large("header line over the limit")
}

pub const fn head_too_large() -> Refusal {
    too_large("request head over the limit")
}

pub const fn too_many_headers() -> Refusal {
    too_large("more header fields than the limit")
}

const fn too_large(reason: &'static str) -> Refusal {
    Refusal {
        status: StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        reason,
    }
}

impl Limits {
    /// SETTINGS_MAX_HEADER_LIST_SIZE for HTTP/2 connections (cleartext now, TLS with ALPN `h2` alike).
    pub fn h2_max_header_list_size(&self) -> u32 {
        u32::try_from(self.max_head_bytes).unwrap_or(u32::MAX)
    }

    /// The limits the HTTP/2 settings do not cover: the target's length and the number of header fields.
    /// HTTP/1 requests were measured on the socket already; this only looks at the others.
    pub fn check_h2<B>(&self, req: &Request<B>) -> Result<(), Refusal> {
        if req.version() != Version::HTTP_2 {
            return Ok(());
        }
        let target = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
        if target > self.max_request_line_bytes {
            return Err(target_too_long());
        }
        if req.headers().len() > self.max_headers {
            return Err(too_many_headers());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(version: Version, target: &str, headers: usize) -> Request<()> {
        let mut req = Request::builder().version(version).uri(target);
        for i in 0..headers {
            req = req.header(format!("x-{i}"), "v");
        }
        req.body(()).unwrap()
    }

    #[test]
    fn h2_requests_are_held_to_the_target_and_count_limits() {
        let limits = Limits::default();
        let long = format!("/{}", "a".repeat(8 * 1024));
        assert_eq!(
            limits.check_h2(&parts(Version::HTTP_2, &long, 1)),
            Err(target_too_long())
        );
        assert_eq!(
            limits.check_h2(&parts(Version::HTTP_2, "/", 101)),
            Err(too_many_headers())
        );
        assert!(limits.check_h2(&parts(Version::HTTP_2, "/", 100)).is_ok());
        // HTTP/1 heads were measured by the guard, with the line ending rules of their own.
        assert!(
            limits
                .check_h2(&parts(Version::HTTP_11, &long, 101))
                .is_ok()
        );
    }
}
