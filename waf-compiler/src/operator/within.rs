//! `within` (ModSecurity's `@within`): the value occurs in the pattern, as in ModSecurity v3 a substring test
//! (an empty value is within anything), though CRS writes its lists as space-separated words.

use super::condition::{ConditionOp, Piece, checked_template};
use super::{Build, Check, Operator};

pub(super) const OPERATOR: Operator = Operator {
    modsecurity: &["within"],
    takes_pattern: true,
    compares_settings: true,
    build: Build::Check(|pattern| Ok(Check::Within(WithinList::new(pattern.as_bytes().to_vec())))),
    // A list without references is indexed once, as the rule operator's is.
    condition: Some(|pattern, groups, _| {
        let mut pieces = checked_template(pattern, groups)?;
        Ok(match pieces.as_mut_slice() {
            [Piece::Literal(list)] => {
                ConditionOp::Check(Check::Within(WithinList::new(std::mem::take(list))))
            }
            _ => ConditionOp::Text(holds, pieces),
        })
    }),
};

/// `target` occurs in `list` (the pattern expanded for the match; an empty target is within anything).
fn holds(target: &[u8], list: &[u8]) -> bool {
    target.is_empty() || memchr::memmem::find(list, target).is_some()
}

/// The list of a `within` operator, where the values are the needles: every value is a new needle, and
/// building a substring searcher for each (what `memmem::find` does) cost more than the search. The list is
/// indexed by byte instead, once: a value is compared only where its byte that is rarest in the list occurs
/// (in CRS lists such as `/content-encoding/ /proxy/ ...`, not at every delimiter). At most one comparison
/// per position of the list: the work is bounded by the list's length times the value's, and the list is the
/// operator's pattern, never request data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WithinList {
    list: Vec<u8>,
    /// `at[starts[b]..starts[b + 1]]`: the positions of byte `b` in `list`, in order.
    starts: Box<[u32; 257]>,
    at: Vec<u32>,
}

impl WithinList {
    pub fn new(list: Vec<u8>) -> WithinList {
        let mut starts = Box::new([0u32; 257]);
        for &b in &list {
            starts[usize::from(b) + 1] += 1;
        }
        for b in 0..256 {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut at = vec![0u32; list.len()];
        for (i, &b) in list.iter().enumerate() {
            let slot = &mut next[usize::from(b)];
            // Lists are settings of a few kilobytes: positions fit a `u32`.
            at[*slot as usize] = i as u32;
            *slot += 1;
        }
        WithinList { list, starts, at }
    }

    /// Whether `value` occurs in the list (an empty value is within every list, as in ModSecurity).
    pub fn contains(&self, value: &[u8]) -> bool {
        let positions = |b: u8| {
            let b = usize::from(b);
            &self.at[self.starts[b] as usize..self.starts[b + 1] as usize]
        };
        let Some((offset, rarest)) = value
            .iter()
            .enumerate()
            .min_by_key(|&(_, &b)| positions(b).len())
        else {
            return true;
        };
        positions(*rarest).iter().any(|&p| {
            (p as usize)
                .checked_sub(offset)
                .and_then(|start| self.list.get(start..start + value.len()))
                == Some(value)
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::operator::check::Check;
    use crate::rule::OperatorKind;

    fn within(list: &str) -> Check {
        Check::new(OperatorKind::Within, Some(list))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn the_value_is_a_substring_of_the_list() {
        assert!(within("GET HEAD POST").find(b"HEAD").is_some());
        assert!(within("GET HEAD POST").find(b"PUT").is_none());
        assert!(within("GET").find(b"").is_some());
        // At the list's end, longer than the list, and in a list long enough for the searcher.
        assert!(within("GET HEAD POST").find(b"POST").is_some());
        assert!(within("GET").find(b"GETS").is_none());
        let long = format!("{} /proxy/", "/x/ ".repeat(100));
        assert!(within(&long).find(b"/proxy/").is_some());
        assert!(within(&long).find(b"/proxy/x").is_none());
        // A chain condition's list with references is searched as expanded.
        assert!(super::holds(b"", b"GET"));
        assert!(super::holds(b"HEAD", b"GET HEAD"));
        assert!(!super::holds(b"PUT", b"GET HEAD"));
    }
}
