//! The strings of a Protocol Buffers message read without its schema, as `protoc --decode_raw` reads one: the
//! body of an OTLP export, a gRPC-web call or an app's protobuf API.
//!
//! Text runs of the raw bytes glue a field's tag and length to its string when those bytes are printable (a
//! tag of field 5 is `*`, a length of 13 a carriage return): `*\rSELECT orders` is no span name, and rules read
//! it as a fragment of SQL. Walking the wire format gives each string as the application decodes it.
//!
//! A length-delimited field is a string when it is printable text (UTF-8 without control characters other than
//! tab, CR and LF), else a nested message when it parses as one to its last byte, else bytes whose text runs
//! are read. A body that does not parse to its last byte is not a message, and the caller reads its text runs.

/// Nested messages deeper than this are not walked: real schemas nest a handful of levels (OTLP six).
const MAX_DEPTH: usize = 32;

/// What a message holds for the rules: its strings, and fields of bytes that are neither text nor a message.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Fields<'a> {
    pub strings: Vec<&'a [u8]>,
    pub bytes: Vec<&'a [u8]>,
}

/// The strings of `body` when it is a protobuf message (or gRPC frames of messages, flag and length before each),
/// to its last byte; `None` otherwise.
pub fn fields(body: &[u8]) -> Option<Fields<'_>> {
    let mut fields = Fields::default();
    match grpc_frames(body) {
        Some(messages) => {
            for message in messages {
                walk(message, 0, &mut fields)?;
            }
        }
        None => walk(body, 0, &mut fields)?,
    }
    Some(fields)
}

/// The messages of gRPC (and gRPC-web) frames that make up all of `body`: a flag byte (0, or 1 for a compressed
/// message, whose bytes are left to text runs: `None`; 0x80 a trailer frame, skipped), a 4-byte big-endian length,
/// the message.
fn grpc_frames(mut body: &[u8]) -> Option<Vec<&[u8]>> {
    let mut messages = Vec::new();
    while !body.is_empty() {
        let (&flag, rest) = body.split_first()?;
        let length = usize::try_from(u32::from_be_bytes(rest.get(..4)?.try_into().ok()?)).ok()?;
        let message = rest.get(4..4 + length)?;
        match flag {
            0 => messages.push(message),
            0x80 => {}
            _ => return None,
        }
        body = &rest[4 + length..];
    }
    (!messages.is_empty()).then_some(messages)
}

/// Reads the fields of `message` into `fields`; `None` when it is not a message to its last byte.
fn walk<'a>(mut message: &'a [u8], depth: usize, fields: &mut Fields<'a>) -> Option<()> {
    if message.is_empty() || depth > MAX_DEPTH {
        return None;
    }
    while !message.is_empty() {
        let tag = varint(&mut message)?;
        if tag >> 3 == 0 {
            return None;
        }
        match tag & 7 {
            0 => {
                varint(&mut message)?;
            }
            1 => message = message.get(8..)?,
            5 => message = message.get(4..)?,
            2 => {
                let length = usize::try_from(varint(&mut message)?).ok()?;
                let value = message.get(..length)?;
                message = &message[length..];
                field(value, depth, fields);
            }
            // Groups (3, 4) are deprecated and no encoder of today writes them; 6 and 7 do not exist.
            _ => return None,
        }
    }
    Some(())
}

/// A length-delimited field's value, read as a string, a nested message or bytes.
fn field<'a>(value: &'a [u8], depth: usize, fields: &mut Fields<'a>) {
    if value.is_empty() {
        return;
    }
    // A message can be printable too: the tags of field 1 are a tab, a line feed and a carriage return, and a
    // length is often a letter (`\nu10.80.148.125 - - ...` is OpenTelemetry's value `{1: "10.80..."}`, the
    // `u` its length, 117). Text starts with a line break rarely, and one whose lengths then add up to its last
    // byte is a message.
    let text = is_text(value);
    let starts_with_a_tag = matches!(value.first(), Some(b'\t' | b'\n' | b'\r'));
    let mut nested = Fields::default();
    if (!text || starts_with_a_tag) && walk(value, depth + 1, &mut nested).is_some() {
        fields.strings.append(&mut nested.strings);
        fields.bytes.append(&mut nested.bytes);
    } else if text {
        fields.strings.push(value);
    } else {
        fields.bytes.push(value);
    }
}

/// Printable text: UTF-8 without control characters other than tab, CR and LF.
fn is_text(value: &[u8]) -> bool {
    std::str::from_utf8(value).is_ok_and(|text| {
        !text
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\t' | '\r' | '\n'))
    })
}

/// A base-128 varint of at most 10 bytes, advancing `input` past it.
fn varint(input: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for (i, &byte) in input.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            *input = &input[i + 1..];
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_come_without_their_tags_and_lengths() {
        // {1: "alice", 5: "SELECT orders", 3: 1, 4: {2: "nested"}}; field 5's tag is `*`, 13 a CR.
        let body = b"\x0a\x05alice\x2a\x0dSELECT orders\x18\x01\x22\x08\x12\x06nested";
        let found = fields(body).unwrap();
        assert_eq!(found.strings, [&b"alice"[..], b"SELECT orders", b"nested"]);
        assert!(found.bytes.is_empty());
    }

    #[test]
    fn a_printable_message_is_walked() {
        // OpenTelemetry's log record body {1: "10.80.1.2 - - \"GET / HTTP/1.1\" 200"} inside field 5: the value's
        // tag is a line feed and its length a printable byte.
        let line = b"10.80.1.2 - - \"GET / HTTP/1.1\" 200";
        let mut value = vec![b'\n', u8::try_from(line.len()).unwrap()];
        value.extend_from_slice(line);
        let mut body = vec![0x2a, u8::try_from(value.len()).unwrap()];
        body.extend_from_slice(&value);
        assert_eq!(fields(&body).unwrap().strings, [&line[..]]);
        // Text that starts with a line break but is no message stays text.
        let text = b"\nhello world";
        let mut body = vec![0x0a, u8::try_from(text.len()).unwrap()];
        body.extend_from_slice(text);
        assert_eq!(fields(&body).unwrap().strings, [&text[..]]);
    }

    #[test]
    fn grpc_frames_are_unwrapped() {
        let message = b"\x0a\x0fhello' or 1=1--";
        let mut body = vec![0u8];
        body.extend_from_slice(&(message.len() as u32).to_be_bytes());
        body.extend_from_slice(message);
        body.extend_from_slice(b"\x80\x00\x00\x00\x00");
        assert_eq!(fields(&body).unwrap().strings, [&b"hello' or 1=1--"[..]]);
    }

    #[test]
    fn bytes_that_are_neither_text_nor_a_message_are_kept() {
        let body = b"\x0a\x04\x00\xffab\x10\x01";
        assert_eq!(fields(body).unwrap().bytes, [&b"\x00\xffab"[..]]);
    }

    #[test]
    fn what_is_no_message_to_its_last_byte_is_none() {
        assert_eq!(fields(b"GIF89a\x00\x01"), None);
        assert_eq!(fields(b"\x0a\x10short"), None);
        assert_eq!(fields(b"\x0b\x00"), None);
        assert_eq!(fields(b""), None);
    }
}
