//! The request id: one token that the client, the upstream, the proxy's own answers and every log line about a
//! request share, so that the id a user quotes from a 403 finds the request in the logs and the admin panel.
//!
//! An `X-Request-ID` sent by the client (or by a proxy in front of us) is kept when it is one sane token, so an id
//! given further out follows the request through; anything else is replaced by a new UUIDv7 (RFC 9562): time-ordered
//! (its first 48 bits are the Unix time in milliseconds, so ids sort and index by time), with 74 random bits.
use http::{HeaderMap, HeaderName, HeaderValue};

pub const HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// Longest client id kept. 128 bytes hold every common shape (UUID 36, ULID 26, AWS X-Ray 40, W3C traceparent
/// 55) and bound what a client adds to every log line about its request.
const MAX_LEN: usize = 128;

/// A request's id: one to `MAX_LEN` bytes of letters, digits and `-._:+/=` (see [`is_sane`]).
#[derive(Clone, Debug)]
pub struct RequestId(HeaderValue);

impl RequestId {
    /// The client's id when it sent exactly one and that one is sane, else a new one. Several ids are not
    /// chosen between: which one the upstream would read is its own business.
    pub fn of(headers: &HeaderMap) -> RequestId {
        let mut sent = headers.get_all(HEADER).iter();
        match (sent.next(), sent.next()) {
            (Some(id), None) if is_sane(id.as_bytes()) => RequestId(id.clone()),
            _ => RequestId::generate(),
        }
    }

    /// A new UUIDv7.
    pub fn generate() -> RequestId {
        let unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let text = uuid_v7(unix_ms, rand::random());
        RequestId(HeaderValue::from_bytes(&text).unwrap_or(HeaderValue::from_static("-")))
    }

    pub fn as_str(&self) -> &str {
        // Only visible ASCII gets here (`is_sane`, or hex and dashes): never the default.
        self.0.to_str().unwrap_or_default()
    }

    pub fn header(&self) -> HeaderValue {
        self.0.clone()
    }
}

/// Whether a client's id is kept. Only letters, digits and `-._:+/=`: no space, quote, backslash, control or
/// non-ASCII byte, because the id is written as it is into log lines (text, JSON, nginx's combined format), JSON
/// bodies and headers, where any of those could break a field or forge one.
fn is_sane(id: &[u8]) -> bool {
    (1..=MAX_LEN).contains(&id.len())
        && id
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || b"-._:+/=".contains(c))
}

/// The text of the UUIDv7 for `unix_ms` with the random bits taken from `random`.
fn uuid_v7(unix_ms: u64, random: u128) -> [u8; 36] {
    let mut bytes = random.to_be_bytes();
    bytes[..6].copy_from_slice(&unix_ms.to_be_bytes()[2..]);
    bytes[6] = 0x70 | (bytes[6] & 0x0f); // version 7
    bytes[8] = 0x80 | (bytes[8] & 0x3f); // variant 0b10
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut text = [b'-'; 36];
    let mut at = 0;
    for (i, byte) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            at += 1;
        }
        text[at] = HEX[usize::from(byte >> 4)];
        text[at + 1] = HEX[usize::from(byte & 0x0f)];
        at += 2;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&[u8]]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for v in values {
            map.append(HEADER, HeaderValue::from_bytes(v).unwrap());
        }
        map
    }

    #[test]
    fn a_uuid_v7_has_its_time_version_and_variant() {
        let text = uuid_v7(0x0190_1234_5678, u128::MAX);
        assert_eq!(&text, b"01901234-5678-7fff-bfff-ffffffffffff");
        let text = uuid_v7(0x0190_1234_5678, 0);
        assert_eq!(&text, b"01901234-5678-7000-8000-000000000000");
    }

    #[test]
    fn generated_ids_are_time_ordered_and_distinct() {
        let a = RequestId::generate();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = RequestId::generate();
        assert!(
            a.as_str() < b.as_str(),
            "{} then {}",
            a.as_str(),
            b.as_str()
        );
        assert_eq!(a.as_str().len(), 36);
        assert_eq!(&a.as_str()[14..15], "7");
    }

    #[test]
    fn a_sane_client_id_is_kept_and_anything_else_replaced() {
        let kept = RequestId::of(&headers(&[b"support-42.a:b+c/d="]));
        assert_eq!(kept.as_str(), "support-42.a:b+c/d=");
        let longest = "a".repeat(MAX_LEN);
        assert_eq!(
            RequestId::of(&headers(&[longest.as_bytes()])).as_str(),
            longest
        );
        let too_long = "a".repeat(MAX_LEN + 1);
        let hostile: [&[u8]; 6] = [
            too_long.as_bytes(),
            b"",
            b"has space",
            b"quote\"d",
            b"back\\slash",
            "caf\u{e9}".as_bytes(),
        ];
        for id in hostile {
            let replaced = RequestId::of(&headers(&[id]));
            assert_eq!(
                replaced.as_str().len(),
                36,
                "{:?} kept",
                String::from_utf8_lossy(id)
            );
        }
        assert_eq!(
            RequestId::of(&headers(&[b"one", b"two"])).as_str().len(),
            36
        );
        assert_eq!(RequestId::of(&HeaderMap::new()).as_str().len(), 36);
    }
}
