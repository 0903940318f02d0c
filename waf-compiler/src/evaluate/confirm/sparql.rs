//! SPARQL, the query language of RDF stores: Wikidata's query service, DBpedia, the catalogues of libraries,
//! museums and open-data portals take a whole query in a `query` parameter (`GET /sparql?query=...`, or a form
//! post), and their pages and tools send one with every view. A query's keywords (`SELECT`, `SERVICE`, `FILTER`)
//! and its line breaks are what the SQL and shell patterns look for. A value that lexes as SPARQL from end to end,
//! in a parameter named for a query, is the API's language; an injection into a shell or an SQL statement needs
//! what SPARQL has no token for (a backquote, `$(`, a lone `&`, a word that is neither a keyword nor a name with
//! its prefix), or a quote left open.

/// Words a SPARQL query is written with besides names: its keywords and the functions it calls (SPARQL 1.1
/// Query, sections 17 and 19), case-insensitive, and `a` (`rdf:type`).
const KEYWORDS: &[&str] = &[
    "a",
    "abs",
    "as",
    "asc",
    "ask",
    "avg",
    "base",
    "bind",
    "bnode",
    "bound",
    "by",
    "ceil",
    "coalesce",
    "concat",
    "construct",
    "contains",
    "count",
    "datatype",
    "day",
    "desc",
    "describe",
    "distinct",
    "encode_for_uri",
    "exists",
    "false",
    "filter",
    "floor",
    "from",
    "graph",
    "group",
    "group_concat",
    "having",
    "hours",
    "if",
    "in",
    "iri",
    "isblank",
    "isiri",
    "isliteral",
    "isnumeric",
    "isuri",
    "lang",
    "langmatches",
    "lcase",
    "limit",
    "max",
    "md5",
    "min",
    "minus",
    "minutes",
    "month",
    "named",
    "not",
    "now",
    "offset",
    "optional",
    "order",
    "prefix",
    "rand",
    "reduced",
    "regex",
    "replace",
    "round",
    "sample",
    "sameterm",
    "seconds",
    "select",
    "separator",
    "service",
    "sha1",
    "sha256",
    "sha384",
    "sha512",
    "silent",
    "str",
    "strafter",
    "strbefore",
    "strdt",
    "strends",
    "strlang",
    "strlen",
    "strstarts",
    "struuid",
    "substr",
    "sum",
    "timezone",
    "true",
    "tz",
    "ucase",
    "undef",
    "union",
    "uri",
    "uuid",
    "values",
    "where",
    "year",
];

/// The forms of a query, one of which follows its prologue (`PREFIX`, `BASE`).
const QUERY_FORMS: [&str; 4] = ["select", "ask", "construct", "describe"];

/// Why `value`, the parameter `name` (one named for a query: `query`, `q`), is a whole SPARQL query rather than
/// a value breaking out of one: it lexes as SPARQL to its end ([`lex`]), its first keyword after the prologue
/// is a query form, its group `{ ... }` and brackets are closed.
pub fn whole_query(name: &[u8], value: &[u8]) -> Option<String> {
    if !super::sql::is_query_parameter(name) {
        return None;
    }
    let text = std::str::from_utf8(value).ok()?;
    let words = lex(text)?;
    let first = words
        .iter()
        .find(|word| !matches!(word.as_str(), "prefix" | "base"))?;
    QUERY_FORMS.contains(&first.as_str()).then(|| {
        format!(
            "`{}` holds a whole SPARQL query (the API's language), not a value breaking out of one",
            String::from_utf8_lossy(name)
        )
    })
}

/// The keywords of `text`, lower-cased, when all of it lexes as SPARQL's tokens (comments, IRIs, prefixed names,
/// variables, literals, numbers, punctuation and operators) with its braces, brackets and parentheses paired and
/// one group at least; `None` otherwise.
fn lex(text: &str) -> Option<Vec<String>> {
    let bytes = text.as_bytes();
    let (mut words, mut open, mut groups) = (Vec::new(), Vec::new(), 0usize);
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i =
            match b {
                b if b.is_ascii_whitespace() => i + 1,
                b'#' => bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |end| i + end),
                b'"' | b'\'' => string_end(bytes, i)?,
                b'<' => iri_end(bytes, i)
                    .unwrap_or(i + 1 + usize::from(bytes.get(i + 1) == Some(&b'='))),
                b'?' | b'$' => {
                    let end = name_end(bytes, i + 1);
                    // `?` alone is a path's modifier (`wdt:P31/wdt:P279?`); `$` alone is no token.
                    if end == i + 1 && b == b'$' {
                        return None;
                    }
                    end
                }
                b'@' => name_end(bytes, i + 1).max(i + 2),
                b'0'..=b'9' => name_end(bytes, i),
                b'{' | b'(' | b'[' => {
                    groups += usize::from(b == b'{');
                    open.push(b);
                    i + 1
                }
                b'}' | b')' | b']' => {
                    let opening = match b {
                        b'}' => b'{',
                        b')' => b'(',
                        _ => b'[',
                    };
                    (open.pop()? == opening).then_some(i + 1)?
                }
                b'&' if bytes.get(i + 1) == Some(&b'&') => i + 2,
                b'.' | b',' | b';' | b'*' | b'=' | b'!' | b'+' | b'-' | b'/' | b'|' | b'^'
                | b'>' => i + 1,
                b':' | b'_' => name_end(bytes, i),
                b if b.is_ascii_alphabetic() || b >= 0x80 => {
                    let end = name_end(bytes, i);
                    let word = &text[i..end];
                    // A prefixed name (`wd:Q5`, `rdfs:label`) or a keyword; any other word is none of SPARQL's.
                    if !word.contains(':') {
                        let lower = word.to_ascii_lowercase();
                        if !KEYWORDS.contains(&lower.as_str()) {
                            return None;
                        }
                        words.push(lower);
                    }
                    end
                }
                _ => return None,
            };
    }
    (open.is_empty() && groups > 0).then_some(words)
}

/// Where the name that starts at `start` ends: letters (of any script), digits, `_`, `-`, `.` inside it (not at
/// its end, where a `.` ends a triple) and `:` (a prefixed name, a blank node's `_:b0`).
fn name_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while let Some(&b) = bytes.get(end) {
        let inside_dot = b == b'.'
            && bytes
                .get(end + 1)
                .is_some_and(|&next| next.is_ascii_alphanumeric() || next == b'_');
        if b.is_ascii_alphanumeric() || b >= 0x80 || matches!(b, b'_' | b'-' | b':') || inside_dot {
            end += 1;
        } else {
            break;
        }
    }
    end
}

/// Where the literal that opens at `start` with a quote ends, after its closing quote (a long literal's three):
/// `None` when it is left open.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let quote = bytes[start];
    let long = bytes.get(start..start + 3) == Some(&[quote; 3][..]);
    let delimiter = if long { 3 } else { 1 };
    let mut i = start + delimiter;
    while let Some(&b) = bytes.get(i) {
        if b == b'\\' {
            i += 2;
        } else if b == quote && bytes.get(i..i + delimiter)? == &[quote; 3][..delimiter] {
            return Some(i + delimiter);
        } else if !long && b == b'\n' {
            return None;
        } else {
            i += 1;
        }
    }
    None
}

/// Where the IRI that opens at `start` (`<http://www.wikidata.org/entity/>`) ends, after its `>`: `None` when
/// what follows the `<` is no IRI (a comparison: `?age < 30`).
fn iri_end(bytes: &[u8], start: usize) -> Option<usize> {
    let length = bytes[start + 1..].iter().position(|&b| {
        b == b'>'
            || b <= b' '
            || matches!(b, b'<' | b'"' | b'{' | b'}' | b'|' | b'^' | b'`' | b'\\')
    })?;
    (bytes.get(start + 1 + length) == Some(&b'>')).then_some(start + length + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIKIDATA: &str = "#defaultView:BubbleChart\nSELECT ?country ?countryLabel (COUNT(?p) AS ?count) WHERE {\n  ?p wdt:P31 wd:Q5; wdt:P27 ?country.\n  FILTER(?count > 10 && LANG(?label) = \"en\")\n  SERVICE wikibase:label { bd:serviceParam wikibase:language \"[AUTO_LANGUAGE],en\". }\n}\nGROUP BY ?country ?countryLabel\nORDER BY DESC(?count)\nLIMIT 20";

    #[test]
    fn a_whole_query_is_the_apis_language() {
        assert!(whole_query(b"query", WIKIDATA.as_bytes()).is_some());
        let dbpedia = "PREFIX dbo: <http://dbpedia.org/ontology/>\nASK { <http://dbpedia.org/resource/Berlin> dbo:country ?c . ?c rdfs:label 'Deutschland'@de }";
        assert!(whole_query(b"query", dbpedia.as_bytes()).is_some());
        let path = "SELECT ?item WHERE { ?item wdt:P31/wdt:P279* wd:Q515 . ?item wdt:P1082 ?pop FILTER(?pop < 100000) }";
        assert!(whole_query(b"query", path.as_bytes()).is_some());
    }

    #[test]
    fn a_value_that_leaves_sparql_is_no_query() {
        assert!(whole_query(b"comment", WIKIDATA.as_bytes()).is_none());
        for value in [
            "SELECT * WHERE { ?s ?p ?o } ; cat /etc/passwd",
            "SELECT * WHERE { ?s ?p ?o } $(id)",
            "SELECT * WHERE { ?s ?p \"x }",
            "SELECT * WHERE { ?s ?p ?o ",
            "SELECT * FROM users WHERE id = 1",
            "x' or '1'='1",
            "SELECT * WHERE { ?s ?p `id` }",
            "INSERT DATA { <a> <b> <c> }",
        ] {
            assert!(whole_query(b"query", value.as_bytes()).is_none(), "{value}");
        }
    }
}
