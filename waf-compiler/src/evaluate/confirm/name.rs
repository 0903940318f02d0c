//! Where a phrase is a whole name. CRS's phrase lists (`pm`) match inside words: `$PATH` in PostHog's
//! `$pathname`, `bin/ar` in `bin/archive`. A name runs as long as its name characters do.

use crate::operator::continues_name;
use std::ops::Range;

/// Why the pattern's `hit` in `value` is not the word it looks for: a name character ends the hit and another
/// follows it (`$path` of `$pathname`, a key every PostHog event carries; `bin/ar` of `bin/archive`), so the
/// shell reads a longer variable or file name. A hit ending in punctuation (`bin/aa-`) is a prefix on purpose.
pub fn inside_longer_name(value: &[u8], hit: Range<usize>) -> Option<String> {
    if !continues_name(value, hit.end) {
        return None;
    }
    let longer = value[hit.end..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    Some(format!(
        "`{}` is the start of the longer name `{}`",
        String::from_utf8_lossy(value.get(hit.clone())?),
        String::from_utf8_lossy(&value[hit.start..hit.end + longer])
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_inside_a_longer_name_is_not_that_name() {
        assert!(inside_longer_name(b"json.properties.$pathname", 16..21).is_some());
        assert!(inside_longer_name(b"/usr/bin/archive", 5..11).is_some());
        assert!(inside_longer_name(b"echo $path;", 5..10).is_none());
        assert!(inside_longer_name(b"/bin/apt-get", 1..8).is_none());
    }
}
