//! A body that is a delimited document (RFC 4180's CSV, or separated by semicolons or tabs): a bank's statement
//! export, an accounting import (DATEV's `EXTF` batches, `"Kasse Mai";"EUR";...`), a marketplace's inventory
//! file. Its delimiters and quotes are the format's, which a CSV parser takes off; what a user wrote is each
//! field. Judged one field at a time, as a JSON document's strings are.

use std::borrow::Cow;

/// The delimiters a document may use, in the order tried.
const DELIMITERS: [u8; 3] = [b',', b';', b'\t'];

/// The fields of `value` read as a delimited document: two records or more, each of two fields or more, a field
/// either unquoted (no `"` in it) or quoted (`""` for a quote inside, nothing but a delimiter or a line end after
/// its closing quote). None when no delimiter reads it so; of those that do, the one that gives most fields.
pub fn fields(value: &[u8]) -> Option<Vec<Cow<'_, [u8]>>> {
    DELIMITERS
        .iter()
        .filter_map(|&delimiter| read(value, delimiter))
        .max_by_key(Vec::len)
}

fn read(value: &[u8], delimiter: u8) -> Option<Vec<Cow<'_, [u8]>>> {
    let mut fields = Vec::new();
    let (mut records, mut in_record, mut at) = (0usize, 0usize, 0usize);
    while at < value.len() {
        let (field, end) = if value[at] == b'"' {
            quoted(value, at)?
        } else {
            let end = value[at..]
                .iter()
                .position(|&b| b == delimiter || b == b'\n' || b == b'\r')
                .map_or(value.len(), |n| at + n);
            if value[at..end].contains(&b'"') {
                return None;
            }
            (Cow::Borrowed(&value[at..end]), end)
        };
        fields.push(field);
        in_record += 1;
        match value.get(end) {
            Some(&b) if b == delimiter => {
                at = end + 1;
                // A delimiter that ends the value leaves an empty last field.
                if at == value.len() {
                    in_record += 1;
                }
            }
            Some(b'\r' | b'\n') | None => {
                if in_record < 2 {
                    return None;
                }
                records += 1;
                in_record = 0;
                at = end;
                while value.get(at).is_some_and(|&b| b == b'\r' || b == b'\n') {
                    at += 1;
                }
            }
            Some(_) => return None,
        }
    }
    if in_record == 1 {
        return None;
    }
    records += usize::from(in_record >= 2);
    (records >= 2).then(|| {
        fields
            .into_iter()
            .filter(|field| !field.is_empty())
            .collect()
    })
}

/// The quoted field starting at `start` (a `"`), its doubled quotes undone, and where it ends.
fn quoted(value: &[u8], start: usize) -> Option<(Cow<'_, [u8]>, usize)> {
    let mut unquoted = Vec::new();
    let mut doubled = false;
    let mut at = start + 1;
    loop {
        match *value.get(at)? {
            b'"' if value.get(at + 1) == Some(&b'"') => {
                unquoted.push(b'"');
                doubled = true;
                at += 2;
            }
            b'"' => break,
            b => {
                unquoted.push(b);
                at += 1;
            }
        }
    }
    let field = if doubled {
        Cow::Owned(unquoted)
    } else {
        Cow::Borrowed(&value[start + 1..at])
    };
    Some((field, at + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delimited_document_is_read_field_by_field() {
        let datev = b"\"EXTF\";700;21;\"Buchungsstapel\"\r\nUmsatz;Konto;Buchungstext\r\n12,50;1000;\"Tankstelle \"\"Berlin\"\";\"\r\n";
        let batch = fields(datev).expect("DATEV's batch");
        assert!(
            batch
                .iter()
                .any(|field| field.as_ref() == b"Tankstelle \"Berlin\";")
        );
        assert!(batch.iter().any(|field| field.as_ref() == b"12,50"));
        let tsv = b"sku\tprice\nACME-1\t9.25\n";
        assert_eq!(fields(tsv).expect("a TSV file").len(), 4);
        for not in [
            &b"one line, with a comma"[..],
            b"a,b\n' or 1=1--",
            b"a,\"open\nb,c",
            b"a,b\"c\nd,e",
        ] {
            assert_eq!(fields(not), None, "{}", String::from_utf8_lossy(not));
        }
    }
}
