//! `contains_word` (ModSecurity's `@containsWord`): the pattern occurs in the value as a whole word.

use super::{Build, Check, Operator};
use std::ops::Range;

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["containsWord"],
    takes_pattern: true,
    compares_settings: false,
    build: Build::Check(|pattern| Ok(Check::ContainsWord(pattern.as_bytes().to_vec()))),
    condition: None,
};

/// `word` in `value` with no ASCII letter on either side (an empty word is everywhere). As in ModSecurity v3,
/// only letters bind: a digit or `_` beside the word is a boundary (`select1` holds the word `select`), which
/// finds more than a letter-digit-underscore rule would. Occurrences may overlap (`-1-` is a word of
/// `x-1-1-` at 3), since ModSecurity resumes its search one byte after each occurrence.
pub(super) fn find(value: &[u8], word: &[u8]) -> Option<Range<usize>> {
    if word.is_empty() {
        return Some(0..0);
    }
    let letter = |i: Option<usize>| {
        i.and_then(|i| value.get(i))
            .is_some_and(u8::is_ascii_alphabetic)
    };
    let finder = memchr::memmem::Finder::new(word);
    let mut from = 0;
    while let Some(offset) = value.get(from..).and_then(|rest| finder.find(rest)) {
        let at = from + offset;
        let end = at + word.len();
        if !letter(at.checked_sub(1)) && !letter(Some(end)) {
            return Some(at..end);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::operator::check::Check;
    use crate::rule::OperatorKind;

    fn word(word: &str) -> Check {
        Check::new(OperatorKind::ContainsWord, Some(word))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn letters_bind_and_occurrences_overlap() {
        assert_eq!(word("cat").find(b"concat cat;"), Some(7..10));
        assert!(word("cat").find(b"concatenate").is_none());
        // ModSecurity v3's boundaries: only letters bind, and occurrences overlap.
        assert_eq!(word("cat").find(b"cat1 cat_"), Some(0..3));
        assert_eq!(word("cat").find(b"_cat"), Some(1..4));
        assert!(word("cat").find(b"cats").is_none());
        assert_eq!(word("1").find(b"2019"), Some(2..3));
        assert_eq!(word("-1-").find(b"x-1-1-"), Some(3..6));
        assert_eq!(word("").find(b""), Some(0..0));
    }
}
