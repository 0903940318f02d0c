//! Content codings (`Content-Encoding`) the engine undoes before the rules read a body: requests' and
//! responses' alike.
//!
//! CRS refuses a request with a `Content-Encoding` (920450) because ModSecurity cannot read a compressed body:
//! its rules would see compressed bytes and let anything through. Here a body in `gzip`, `deflate`, `br` or
//! Snappy (`snappy`, the raw block format of Prometheus remote write and Loki pushes; `x-snappy-framed`, the
//! framed one) is decoded first, so the rules read what the application will, and the coding hides nothing.
//! Other codings (`zstd`, `compress`, `aes128gcm`, several stacked) stay unread, and 920450 still counts for
//! them. So does a body that is not in the coding it names: many applications ignore a request's
//! `Content-Encoding` and read the bytes as sent, so those bytes are what the rules read.

use std::io::Read;

/// A content coding the engine can undo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Identity,
    Gzip,
    Deflate,
    Brotli,
    /// Snappy's raw block format (`Content-Encoding: snappy`).
    Snappy,
    /// Snappy's framing format (`Content-Encoding: x-snappy-framed`).
    SnappyFramed,
}

impl Coding {
    /// The coding of a message whose `Content-Encoding` header values are `values`, when the engine can undo it:
    /// none (or `identity`), `gzip`, `deflate`, `br`, `snappy` or `x-snappy-framed`, alone. `None` for several
    /// codings or any other.
    pub fn of<'h>(values: impl IntoIterator<Item = &'h [u8]>) -> Option<Coding> {
        let mut found = Coding::Identity;
        let mut codings = 0;
        for value in values {
            for token in value.split(|&b| b == b',') {
                let token = token.trim_ascii();
                if token.is_empty() || token.eq_ignore_ascii_case(b"identity") {
                    continue;
                }
                found = Coding::named(token)?;
                codings += 1;
            }
        }
        (codings <= 1).then_some(found)
    }

    /// The coding `token` names, other than `identity`.
    fn named(token: &[u8]) -> Option<Coding> {
        const NAMES: [(&[u8], Coding); 6] = [
            (b"gzip", Coding::Gzip),
            (b"x-gzip", Coding::Gzip),
            (b"deflate", Coding::Deflate),
            (b"br", Coding::Brotli),
            (b"snappy", Coding::Snappy),
            (b"x-snappy-framed", Coding::SnappyFramed),
        ];
        NAMES
            .iter()
            .find(|(name, _)| token.eq_ignore_ascii_case(name))
            .map(|&(_, coding)| coding)
    }

    /// The body of a request with `headers` decoded, at most `limit` bytes of it, with the coding undone: when
    /// the request's `Content-Encoding` names one the engine undoes (not `identity`), it has a body, and the body
    /// is in that coding ([`Coding::decode`]).
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
        Some((coding, coding.decode(body, limit)?))
    }

    /// `bytes` decoded, at most `limit` bytes of it: a compression bomb inflates no further than the limit the
    /// body itself is read to (`bytes` being at most that much). A body cut at the read limit ends mid-stream: it
    /// gives what decoded before the cut, which is also all an application can read within the limit. `None`
    /// when `bytes` are not in this coding (a corrupt or unfinished stream, bytes after its end, a raw Snappy
    /// block that declares more than `limit` bytes, which cannot be decoded in part): the caller reads them as
    /// they are.
    pub fn decode(self, bytes: &[u8], limit: usize) -> Option<Vec<u8>> {
        let cap = u64::try_from(limit).unwrap_or(u64::MAX);
        let mut out = Vec::new();
        // A stream that breaks off is read up to the break only when the body was cut at the read limit; a
        // shorter one that breaks (bytes after a complete stream, a corrupt or unfinished stream) is not in the
        // coding, and its bytes as sent are what the rules read.
        let cut = bytes.len() >= limit;
        let mut read =
            |reader: &mut dyn Read| reader.take(cap).read_to_end(&mut out).is_ok() || cut;
        let whole = match self {
            Coding::Identity => return Some(bytes[..bytes.len().min(limit)].to_vec()),
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
            Coding::SnappyFramed => read(&mut snap::read::FrameDecoder::new(bytes)),
            Coding::Snappy => {
                // A raw block states its decoded length first; it is allocated only within the limit.
                if !snap::raw::decompress_len(bytes).is_ok_and(|len| len <= limit) {
                    return None;
                }
                return snap::raw::Decoder::new().decompress_vec(bytes).ok();
            }
        };
        whole.then_some(out)
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
        assert_eq!(header(&["snappy"]), Some(Coding::Snappy));
        assert_eq!(header(&["X-Snappy-Framed"]), Some(Coding::SnappyFramed));
        assert_eq!(header(&["aes128gcm"]), None);
        assert_eq!(header(&["gzip, br"]), None);
        assert_eq!(header(&["gzip", "gzip"]), None);
    }

    #[test]
    fn decoding_is_bounded_and_keeps_a_truncated_stream() {
        let page = b"<p>ORA-00933: SQL command not properly ended</p>".repeat(100);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&page).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(Coding::Gzip.decode(&gz, 1 << 20).unwrap(), page);
        assert_eq!(Coding::Gzip.decode(&gz, 100).unwrap(), page[..100]);
        // Cut mid-stream (a body past the limit): what decoded so far.
        // Cut at the read limit (the body was longer): what decoded so far. Cut short of it: not gzip.
        let half = &gz[..gz.len() / 2];
        let cut = Coding::Gzip.decode(half, half.len()).unwrap();
        assert!(!cut.is_empty() && page.starts_with(&cut));
        assert_eq!(Coding::Gzip.decode(half, 1 << 20), None);
        // Bytes not in the coding they name are not decoded at all: the caller reads them as sent.
        assert_eq!(Coding::Gzip.decode(b"' OR 1=1 --", 1 << 20), None);
        let mut trailing = gz.clone();
        trailing.extend_from_slice(b"' OR 1=1 --");
        assert_eq!(Coding::Gzip.decode(&trailing, 1 << 20), None);
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        zlib.write_all(&page).unwrap();
        assert_eq!(
            Coding::Deflate
                .decode(&zlib.finish().unwrap(), 1 << 20)
                .unwrap(),
            page
        );
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        raw.write_all(&page).unwrap();
        assert_eq!(
            Coding::Deflate
                .decode(&raw.finish().unwrap(), 1 << 20)
                .unwrap(),
            page
        );
        assert_eq!(Coding::Identity.decode(b"abcdef", 3).unwrap(), b"abc");
        // `brotli -c` (Debian's brotli 1.0.9) of a PHP warning.
        let br = "1f8300002c8e77909c201c23b2e849f9c5b09a47eccd4e8238ddc1061c693a055b8522573e61089303f663cba3d696\
                  5098eef0cd9f6256b26b6ae46384800e0e121fc65e4b91e94f206f4ad0387e539c1c2ef23dde6ef9b21a2855f124";
        let br = hex::decode(br).unwrap();
        let text = Coding::Brotli.decode(&br, 1 << 20).unwrap();
        assert!(text.starts_with(b"<b>Warning</b>:  include(config.php): failed to open stream"));
        assert!(text.ends_with(b"on line <b>3</b>"));
        let half = &br[..br.len() / 2];
        assert!(text.starts_with(&Coding::Brotli.decode(half, half.len()).unwrap()));
        assert_eq!(Coding::Brotli.decode(half, 1 << 20), None);
        // A bomb: a megabyte of zeros decodes to no more than the limit.
        let mut bomb = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        bomb.write_all(&vec![0u8; 1 << 20]).unwrap();
        assert_eq!(
            Coding::Gzip
                .decode(&bomb.finish().unwrap(), 4096)
                .unwrap()
                .len(),
            4096
        );
    }

    #[test]
    fn snappy_blocks_and_frames() {
        let samples = b"{\"__name__\":\"up\",\"job\":\"node\"}".repeat(50);
        let block = snap::raw::Encoder::new().compress_vec(&samples).unwrap();
        assert_eq!(Coding::Snappy.decode(&block, 1 << 20).unwrap(), samples);
        // A block declaring more than the limit is not decoded in part (nor allocated).
        assert_eq!(Coding::Snappy.decode(&block, 100), None);
        assert_eq!(
            Coding::Snappy.decode(b"\xff\xff\xff\xff\x0fabc", 1 << 30),
            None
        );
        let mut framed = snap::write::FrameEncoder::new(Vec::new());
        framed.write_all(&samples).unwrap();
        let framed = framed.into_inner().unwrap();
        assert_eq!(
            Coding::SnappyFramed.decode(&framed, 1 << 20).unwrap(),
            samples
        );
        assert_eq!(
            Coding::SnappyFramed.decode(&framed, 100).unwrap(),
            samples[..100]
        );
        assert_eq!(Coding::SnappyFramed.decode(&samples, 1 << 20), None);
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
        // Named gzip, sent plain: read as sent (many applications ignore a request's coding).
        assert_eq!(Coding::undo(&headers, b"q=1' OR '1'='1", 1 << 20), None);
    }
}
