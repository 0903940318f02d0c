//! The forms of a value a confirmer reads: as received, then with URL, HTML entity and JavaScript escapes undone,
//! round after round, as an application that decodes once more (or a browser that unescapes an attribute) would.

use crate::rule::Transform;
use crate::transform::{UnicodeMap, apply};
use std::borrow::Cow;

/// Rounds of decoding: double URL encoding and an entity-encoded URL escape are what attackers use; a value
/// still changing after three rounds is noise, and the bound keeps the work linear in the value.
const ROUNDS: usize = 3;

/// The decoders, in the order a round applies them, each with the byte that must be present for it to act.
const DECODERS: [(Transform, u8); 3] = [
    (Transform::UrlDecodeUni, b'%'),
    (Transform::HtmlEntityDecode, b'&'),
    (Transform::JsDecode, b'\\'),
];

/// `raw`, then each distinct form a decoding round gives.
pub fn forms(raw: &[u8], map: UnicodeMap) -> Vec<Cow<'_, [u8]>> {
    let mut forms = vec![Cow::Borrowed(raw)];
    for _ in 0..ROUNDS {
        let last = forms.last().map_or(raw, |f| f.as_ref());
        let mut next: Option<Vec<u8>> = None;
        for (transform, trigger) in DECODERS {
            let current = next.as_deref().unwrap_or(last);
            if current.contains(&trigger) {
                let decoded = apply(transform, current, map);
                if decoded != current {
                    next = Some(decoded);
                }
            }
        }
        match next {
            Some(decoded) if !forms.iter().any(|f| f.as_ref() == decoded.as_slice()) => {
                forms.push(Cow::Owned(decoded))
            }
            _ => break,
        }
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_round_after_round_and_stops() {
        let forms = forms(b"%253Cb%253E", UnicodeMap::default());
        let forms: Vec<&[u8]> = forms.iter().map(|f| f.as_ref()).collect();
        assert_eq!(forms, [&b"%253Cb%253E"[..], b"%3Cb%3E", b"<b>"]);
        assert_eq!(super::forms(b"plain", UnicodeMap::default()).len(), 1);
    }
}
