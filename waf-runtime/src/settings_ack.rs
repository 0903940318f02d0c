//! Whether an HTTP/2 client has acknowledged the proxy's SETTINGS: a walk over the frame headers of what the
//! client sends, from its connection preface until the first SETTINGS frame with the ACK flag.
//!
//! The proxy's SETTINGS (the header list size limit among them, `limits.rs`) are in force only once the client
//! acknowledges them, and RFC 9113 §6.5.3 lets an endpoint end a connection whose peer does not within "a
//! reasonable amount of time". A real client acknowledges within a round trip; one that never does is held to
//! `server.header_read_timeout_sec` by the head guard (stage `http2_settings`, `timeouts.rs`). The h2 library
//! has no such timer. Only frame headers are read (9 bytes each); payloads are skipped by their length.

/// How a connection that speaks HTTP/2 with prior knowledge opens (RFC 9113 §3.4).
const PREFACE_LEN: usize = 24;
const FRAME_HEADER_LEN: usize = 9;
const SETTINGS: u8 = 0x4;
const ACK: u8 = 0x1;

pub struct SettingsAck {
    /// Bytes still to skip: the preface, then the payload of the frame whose header was read last.
    skip: usize,
    header: [u8; FRAME_HEADER_LEN],
    /// Bytes of `header` read so far.
    filled: usize,
    seen: bool,
}

impl Default for SettingsAck {
    fn default() -> Self {
        SettingsAck {
            skip: PREFACE_LEN,
            header: [0; FRAME_HEADER_LEN],
            filled: 0,
            seen: false,
        }
    }
}

impl SettingsAck {
    /// Whether the acknowledgement has come.
    pub fn seen(&self) -> bool {
        self.seen
    }

    /// Follows the next bytes the client sent (from the first byte of the preface on).
    pub fn scan(&mut self, mut bytes: &[u8]) {
        while !self.seen && !bytes.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(bytes.len());
                self.skip -= n;
                bytes = &bytes[n..];
                continue;
            }
            let n = (FRAME_HEADER_LEN - self.filled).min(bytes.len());
            self.header[self.filled..self.filled + n].copy_from_slice(&bytes[..n]);
            self.filled += n;
            bytes = &bytes[n..];
            if self.filled == FRAME_HEADER_LEN {
                let [l0, l1, l2, kind, flags, ..] = self.header;
                self.seen = kind == SETTINGS && flags & ACK == ACK;
                self.skip = usize::from(l0) << 16 | usize::from(l1) << 8 | usize::from(l2);
                self.filled = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ack_is_found_after_other_frames_in_any_piece_size() {
        let mut stream = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        // SETTINGS with one setting (6 bytes), then a WINDOW_UPDATE, then the SETTINGS ack.
        stream.extend_from_slice(&[0, 0, 6, SETTINGS, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0xff, 0xff]);
        stream.extend_from_slice(&[0, 0, 4, 0x8, 0, 0, 0, 0, 0, 0, 0, 0x10, 0]);
        let before_ack = stream.len();
        stream.extend_from_slice(&[0, 0, 0, SETTINGS, ACK, 0, 0, 0, 0]);
        for piece in [1, 2, 5, 9, 100] {
            let mut ack = SettingsAck::default();
            for (i, part) in stream.chunks(piece).enumerate() {
                ack.scan(part);
                if (i + 1) * piece < before_ack {
                    assert!(!ack.seen(), "piece size {piece}");
                }
            }
            assert!(ack.seen(), "piece size {piece}");
        }
        // A SETTINGS frame without the flag is not an ack.
        let mut ack = SettingsAck::default();
        ack.scan(&stream[..before_ack]);
        assert!(!ack.seen());
    }
}
