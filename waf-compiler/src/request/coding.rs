//! Content codings (`Content-Encoding`) the engine undoes before the rules read a body: requests' and
//! responses' alike.
//!
//! CRS refuses a request with a `Content-Encoding` (920450) because ModSecurity cannot read a compressed body:
//! its rules would see compressed bytes and let anything through. Here a body in `gzip`, `deflate` or `br` is
//! decoded first, so the rules read what the application will, and the coding hides nothing. Other codings
//! (`zstd`, `compress`, Snappy, several stacked) stay unread, and 920450 still counts for them.

use std::io::Read;

/// A content coding the engine can undo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Identity,
    Gzip,
    Deflate,
    Brotli,
}

impl Coding {
    /// The coding of a message whose `Content-Encoding` header values are `values`, when the engine can undo it:
    /// none (or `identity`), `gzip`, `deflate` or `br`, alone. `None` for several codings or any other.
    pub fn of<'h>(values: impl IntoIterator<Item = &'h [u8]>) -> Option<Coding> {
        let mut found = Coding::Identity;
        let mut codings = 0;
        for value in values {
            for token in value.split(|&b| b == b',') {
                let token = token.trim_ascii();
                found = if token.is_empty() || token.eq_ignore_ascii_case(b"identity") {
                    continue;
                } else if token.eq_ignore_ascii_case(b"gzip")
                    || token.eq_ignore_ascii_case(b"x-gzip")
                {
                    Coding::Gzip
                } else if token.eq_ignore_ascii_case(b"deflate") {
                    Coding::Deflate
                } else if token.eq_ignore_ascii_case(b"br") {
                    Coding::Brotli
                } else {
                    return None;
                };
                codings += 1;
            }
        }
        (codings <= 1).then_some(found)
    }

    /// The body of a request with `headers` decoded, at most `limit` bytes of it, with the coding undone: when
    /// the request's `Content-Encoding` names one the engine undoes (not `identity`) and it has a body.
    pub fn undo(headers: &[(&str, &[u8])], body: &[u8], limit: usize) -> Option<(Coding, Vec<u8>)> {
        if body.is_empty() {
            return None;
        }
        let coding = Coding::of(
            headers
                .iter()
                .filter(|(name, _)| name.eq_ignore_ascii_case("content-encoding"))
                .map(|&(_, value)| value),
        )
        .filter(|&coding| coding != Coding::Identity)?;
        Some((coding, coding.decode(body, limit)))
    }

    /// `bytes` decoded, at most `limit` bytes of it: a compression bomb inflates no further than the limit the
    /// body itself is read to. A truncated or broken stream gives what decoded before the break (a body cut at
    /// the read limit ends mid-stream), which is also all an application can read of it.
    pub fn decode(self, bytes: &[u8], limit: usize) -> Vec<u8> {
        let cap = u64::try_from(limit).unwrap_or(u64::MAX);
        let mut out = Vec::new();
        let mut read = |reader: &mut dyn Read| {
            // Errors end the read; what decoded so far is kept in `out`.
            let _ = reader.take(cap).read_to_end(&mut out);
        };
        match self {
            Coding::Identity => return bytes[..bytes.len().min(limit)].to_vec(),
            Coding::Gzip => read(&mut flate2::read::MultiGzDecoder::new(bytes)),
            Coding::Deflate => {
                // HTTP's `deflate` is zlib-wrapped, but some senders write raw DEFLATE: a zlib header tells.
                let zlib = bytes.len() >= 2
                    && bytes[0] & 0x0f == 8
                    && (u16::from(bytes[0]) << 8 | u16::from(bytes[1])) % 31 == 0;
                match zlib {
                    true => read(&mut flate2::read::ZlibDecoder::new(bytes)),
                    false => read(&mut flate2::read::DeflateDecoder::new(bytes)),
                }
            }
            Coding::Brotli => read(&mut brotli_decompressor::Decompressor::new(bytes, 4096)),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn header(values: &[&str]) -> Option<Coding> {
        Coding::of(values.iter().map(|v| v.as_bytes()))
    }

    #[test]
    fn codings_the_engine_can_undo() {
        assert_eq!(header(&[]), Some(Coding::Identity));
        assert_eq!(header(&["identity"]), Some(Coding::Identity));
        assert_eq!(header(&["GZIP"]), Some(Coding::Gzip));
        assert_eq!(header(&[" x-gzip "]), Some(Coding::Gzip));
        assert_eq!(header(&["identity, br"]), Some(Coding::Brotli));
        assert_eq!(header(&["deflate"]), Some(Coding::Deflate));
        assert_eq!(header(&["zstd"]), None);
        assert_eq!(header(&["snappy"]), None);
        assert_eq!(header(&["gzip, br"]), None);
        assert_eq!(header(&["gzip", "gzip"]), None);
    }

    #[test]
    fn decoding_is_bounded_and_keeps_a_truncated_stream() {
        let page = b"<p>ORA-00933: SQL command not properly ended</p>".repeat(100);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&page).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(Coding::Gzip.decode(&gz, 1 << 20), page);
        assert_eq!(Coding::Gzip.decode(&gz, 100), page[..100]);
        // Cut mid-stream (a body past the limit): what decoded so far.
        let cut = Coding::Gzip.decode(&gz[..gz.len() / 2], 1 << 20);
        assert!(!cut.is_empty() && page.starts_with(&cut));
        assert_eq!(Coding::Gzip.decode(b"not gzip", 1 << 20), b"");
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        zlib.write_all(&page).unwrap();
        assert_eq!(
            Coding::Deflate.decode(&zlib.finish().unwrap(), 1 << 20),
            page
        );
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        raw.write_all(&page).unwrap();
        assert_eq!(
            Coding::Deflate.decode(&raw.finish().unwrap(), 1 << 20),
            page
        );
        assert_eq!(Coding::Identity.decode(b"abcdef", 3), b"abc");
        // `brotli -c` (Debian's brotli 1.0.9) of a PHP warning.
        let br = "1f8300002c8e77909c201c23b2e849f9c5b09a47eccd4e8238ddc1061c693a055b8522573e61089303f663cba3d696\
                  5098eef0cd9f6256b26b6ae46384800e0e121fc65e4b91e94f206f4ad0387e539c1c2ef23dde6ef9b21a2855f124";
        let text = Coding::Brotli.decode(&hex::decode(br).unwrap(), 1 << 20);
        assert!(text.starts_with(b"<b>Warning</b>:  include(config.php): failed to open stream"));
        assert!(text.ends_with(b"on line <b>3</b>"));
        // A bomb: a megabyte of zeros decodes to no more than the limit.
        let mut bomb = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        bomb.write_all(&vec![0u8; 1 << 20]).unwrap();
        assert_eq!(
            Coding::Gzip.decode(&bomb.finish().unwrap(), 4096).len(),
            4096
        );
    }

    #[test]
    fn a_request_body_is_undone_only_when_there_is_one_in_a_known_coding() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"{\"q\":1}").unwrap();
        let gz = gz.finish().unwrap();
        let headers = [("Content-Encoding", &b"gzip"[..])];
        assert_eq!(
            Coding::undo(&headers, &gz, 1 << 20),
            Some((Coding::Gzip, b"{\"q\":1}".to_vec()))
        );
        assert_eq!(Coding::undo(&headers, b"", 1 << 20), None);
        assert_eq!(Coding::undo(&[], &gz, 1 << 20), None);
        assert_eq!(
            Coding::undo(&[("content-encoding", b"zstd")], &gz, 1 << 20),
            None
        );
    }
}
