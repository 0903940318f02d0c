//! The text log made safe for a terminal: the control characters a terminal acts on (ESC, BEL, BS, FF, DEL and
//! the C1 controls U+0080 to U+009F) written as escapes, so a logged value cannot drive the terminal of whoever
//! reads the log (a forged colour, a cleared screen, a rewritten line).
//!
//! tracing-subscriber does the same to the message of each event, a character at a time through a formatter
//! (`EscapingWriter`): about 20,000 instructions for a rule match's line, two lines for every request of the
//! benches (CRS 920350 and the correlation), a sixth of a proxied request's instructions. Here the finished line is
//! checked in one pass over its bytes and copied only when it holds such a character, which a line rarely does
//! (the request's values are escaped by `logging::clean` before they reach one). The whole line is covered, not
//! only its message: a field or an error text is made safe too.
use std::io::{self, Write};
use tracing_subscriber::fmt::MakeWriter;

/// A [`MakeWriter`] whose writers escape what [`escape`] does before the bytes reach `W`'s.
pub struct TerminalSafe<W>(pub W);

impl<'a, W: MakeWriter<'a>> MakeWriter<'a> for TerminalSafe<W> {
    type Writer = SafeWriter<W::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        SafeWriter(self.0.make_writer())
    }
}

pub struct SafeWriter<W>(W);

impl<W: Write> Write for SafeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !needs_escape(buf) {
            return self.0.write(buf);
        }
        self.0.write_all(&escape(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Whether `text` holds a byte [`escape`] may change: one of the C0 controls and DEL it escapes, or 0xC2, the
/// first byte of U+0080 to U+00BF in UTF-8 (the C1 controls among them). Not short-circuited, so the compiler
/// checks many bytes at a time.
fn needs_escape(text: &[u8]) -> bool {
    text.iter().fold(false, |found, &b| {
        found | matches!(b, 0x07 | 0x08 | 0x0c | 0x1b | 0x7f | 0xc2)
    })
}

/// `text` with ESC, BEL, BS, FF and DEL as `\x1b` (and so on), and the C1 controls as `\u{80}` to `\u{9f}`: what
/// tracing-subscriber writes for them. Everything else (newlines, other UTF-8) as it was.
fn escape(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 16);
    let mut i = 0;
    while i < text.len() {
        match (text[i], text.get(i + 1)) {
            (c @ (0x07 | 0x08 | 0x0c | 0x1b | 0x7f), _) => {
                let _ = write!(out, "\\x{c:02x}");
            }
            // U+0080 + n is 0xC2, 0x80 + n in UTF-8: the second byte is the code point.
            (0xc2, Some(&c1 @ 0x80..=0x9f)) => {
                let _ = write!(out, "\\u{{{c1:x}}}");
                i += 1;
            }
            (b, _) => out.push(b),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn safe(text: &str) -> String {
        let mut out = Vec::new();
        SafeWriter(&mut out).write_all(text.as_bytes()).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn terminal_controls_are_escaped_as_tracing_escapes_them() {
        assert_eq!(
            safe("a\x1b[31mred\x07\x08\x0c\x7fz\n"),
            "a\\x1b[31mred\\x07\\x08\\x0c\\x7fz\n"
        );
        assert_eq!(safe("x\u{9b}2J\u{80}y"), "x\\u{9b}2J\\u{80}y");
    }

    #[test]
    fn other_text_passes_unchanged() {
        // U+00A0 to U+00BF share the C1 controls' first byte; tabs, newlines and other scripts are not controls a
        // terminal acts on.
        let text = "degrees 20\u{b0} \u{a0}nbsp caf\u{e9} \u{4e2d}\t[id \"920350\"]\r\n";
        assert_eq!(safe(text), text);
    }
}
