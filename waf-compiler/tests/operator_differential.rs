//! Differential test of the operators whose semantics are subtle against ModSecurity v3 itself (Debian's
//! `libmodsecurity3`), through the harness `tests/modsec_oracle/oracle.c` that the transform test uses.
//!
//! Each operator of [`OPERATORS`] is written once, as a SecRule's operator argument (or a chained rule's); both
//! sides read that same text. ModSecurity evaluates `SecRule REQUEST_HEADERS:v "<operator>" "...,t:none,deny"` on a header holding the
//! input; we import the same rule with `rulec import-crs`'s converter (`waf_compiler::import::import`), compile it
//! and evaluate a request with that header. The inputs: a corpus of edge cases (boundaries, empty, NUL, high
//! bytes, overlong and truncated UTF-8, bad `%` escapes, words at the start and end and beside punctuation,
//! overlapping phrases) plus [`GENERATED`] inputs from a fixed seed, built from the pieces these operators react
//! to. Match or no match must agree, apart from the deliberate differences [`deliberate`] names (documented in
//! `docs/transforms.md`, "Operators"), each of which must still occur.

mod detect_support;
mod modsec_oracle;

use modsec_oracle::{Rng, show};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use waf_compiler::SourceFile;
use waf_compiler::import::convert::{Context, DataFileError};
use waf_compiler::{CompileOptions, CompiledRuleSet, HttpRequest};

/// Each operator as SecRule writes it. The byte ranges and phrase lists are CRS's own where CRS has them.
const OPERATORS: &[&str] = &[
    "@validateByteRange 1-255",
    "@validateByteRange 9,10,13,32-126,128-255",
    "@validateByteRange 38,44-46,48-58,61,65-90,95,97-122",
    "@validateByteRange 32-36,38-126",
    "@validateByteRange 1-9,32-126",
    "@validateByteRange 0,255",
    "@validateUrlEncoding",
    "@validateUtf8Encoding",
    "@containsWord select",
    "@containsWord or",
    "@containsWord 1",
    "@containsWord a-b",
    "@containsWord -1-",
    "@within GET HEAD POST OPTIONS",
    "@within .asa/ .asax/ .backup/ .bak/",
    "@within |ab|",
    "@pm select union",
    "@pm ab abc bcd c",
    "@pm aacx cd",
    "@pm ?>",
    "@pm ( )",
    "@pm gzip compress deflate br zstd",
    "@pm document.cookie document.domain",
    "@beginsWith /adm",
    "@endsWith .php",
    "@streq GET /",
    "@contains <!--",
    // The same operators as chain conditions, which the engine implements apart.
    "chain @within GET HEAD POST OPTIONS",
    "chain @within .asa/ .asax/ .backup/ .bak/",
    "chain @pm select union",
    "chain @pm ab abc bcd c",
    "chain @pm ( )",
    "chain @beginsWith /adm",
    "chain @endsWith .php",
    "chain @streq GET /",
    "chain @contains <!--",
];

/// How many generated inputs (on top of the corpus), and from which seed.
const GENERATED: usize = 3000;
const SEED: u64 = 0x0be7_a70e;

/// The differences kept on purpose, each documented in `docs/transforms.md` ("Operators") and required to occur.
const BEYOND_UNICODE: &str = "UTF-8 past U+10FFFF is invalid";
const MISSED_PHRASE: &str = "a phrase ModSecurity's @pm misses";
const DELIBERATE: &[&str] = &[BEYOND_UNICODE, MISSED_PHRASE];

/// Our verdict differs from ModSecurity's on purpose: the reason, or `None`.
fn deliberate(operator: &str, input: &[u8], ours: bool) -> Option<&'static str> {
    // ModSecurity v3 accepts a four-byte sequence led by F4 90..BF (U+110000 and above, which RFC 3629 rules
    // out): an encoding trick that its `@validateUtf8Encoding` lets through and ours reports.
    let beyond = input.windows(2).any(|w| w[0] == 0xf4 && w[1] >= 0x90);
    if operator == "@validateUtf8Encoding" && ours && beyond {
        return Some(BEYOND_UNICODE);
    }
    // ModSecurity v3's Aho-Corasick automaton acts as if it followed one failure link where a chain is needed: with
    // the phrases `aacx` and `cd`, `aacd` is no match (after `aac` fails it restarts from the root instead of
    // from `c`). A phrase that is there, found only by us, is a hit ModSecurity wrongly misses.
    let op = operator.strip_prefix("chain ").unwrap_or(operator);
    let phrases: Vec<Vec<u8>> = if let Some(list) = op.strip_prefix("@pm ") {
        list.split_ascii_whitespace()
            .map(|p| p.as_bytes().to_vec())
            .collect()
    } else if let Some(file) = op.strip_prefix("@pmFromFile ") {
        std::fs::read(file)
            .unwrap()
            .split(|&b| b == b'\n')
            .filter(|l| !l.trim_ascii_start().is_empty() && !l.trim_ascii_start().starts_with(b"#"))
            .map(<[u8]>::to_vec)
            .collect()
    } else {
        return None;
    };
    let lower = input.to_ascii_lowercase();
    let present = phrases.iter().any(|p| {
        let p = p.to_ascii_lowercase();
        lower.windows(p.len()).any(|w| w == p.as_slice())
    });
    (ours && present).then_some(MISSED_PHRASE)
}

fn edge_cases() -> Vec<Vec<u8>> {
    let text: &[&[u8]] = &[
        b"",
        b"\0",
        b"a\0b",
        b"\x01",
        b"\x08\x09\x0a\x0b\x0c\x0d\x1f\x20",
        b"~\x7f",
        b"\x80",
        b"\xff",
        b"plain text 123",
        b"a&b,c-d.e/0:9;=A_Z z",
        b"\"#$%&'",
        b"%",
        b"%%",
        b"%2",
        b"a%2",
        b"%20",
        b"%2g",
        b"%g2",
        b"%%41",
        b"%u2019",
        b"%41%",
        b"a%41b%4",
        b"%ZZ%20",
        b"\xc3\xa9",
        b"\xc3",
        b"a\xc3",
        b"\xe2\x80",
        b"\xe2\x80\x99",
        b"\xf0\x9f\x98\x80",
        b"\xf0\x9f\x98",
        b"\xc0\xaf",
        b"\xc1\xbf",
        b"\xc2\x80",
        b"\xe0\x80\xaf",
        b"\xe0\xa0\x80",
        b"\xf0\x80\x80\xaf",
        b"\xf0\x90\x80\x80",
        b"\xed\x9f\xbf",
        b"\xed\xa0\x80",
        b"\xed\xbf\xbf",
        b"\xee\x80\x80",
        b"\xef\xbf\xbf",
        b"\xf4\x8f\xbf\xbf",
        b"\xf4\x90\x80\x80",
        b"\xf5\x80\x80\x80",
        b"\xf7\xbf\xbf\xbf",
        b"\xf8\x88\x80\x80\x80",
        b"\xfc\x84\x80\x80\x80\x80",
        b"\xfe",
        b"\xc3(",
        b"\xe2(\xa1",
        b"\x80\xbf",
        b"select",
        b"select * from t",
        b"x select",
        b"x select y",
        b"(select)",
        b"'select'",
        b"selects",
        b"reselect",
        b"select1",
        b"1select",
        b"_select_",
        b"select_",
        b"SELECT",
        b"se\0lect select",
        b"selectselect",
        b"selectselect select",
        b"selectx select",
        b"\xc3\xa9select\xc3\xa9",
        b"\xffselect\x80",
        b"or",
        b"1 or 1",
        b"for or",
        b"oror",
        b"1",
        b"11",
        b"a1b",
        b"-1-",
        b"1.1",
        b"a-b",
        b"xa-b",
        b"a-bx",
        b"a-b-a-b",
        b"x-1-1-",
        b"-1-",
        b"a-1-",
        b"GET",
        b"get",
        b"GE",
        b"ET HE",
        b"GET HEAD",
        b"POST OPTIONS",
        b"OPTIONS ",
        b" ",
        b".asa/",
        b".bak",
        b"/",
        b"|",
        b"ab|",
        b"|ab|",
        b"ab",
        b"abc",
        b"AbC",
        b"bcd",
        b"xbcdx",
        b"aacd",
        b"aacxcd",
        b"xaacd",
        b"c",
        b"a",
        b"b",
        b"UNION",
        b"uNiOn select",
        b"?>",
        b"?",
        b">",
        b"<?php ?>",
        b"()",
        b"(",
        b")",
        b"gzip, deflate, br",
        b"brotli",
        b"compres",
        b"identity",
        b"document.cookie",
        b"DOCUMENT.COOKIE",
        b"document.cooki",
        b"document.domainx",
        b"/adm",
        b"/admin",
        b"/Adm",
        b" /adm",
        b"/ad",
        b".php",
        b"index.php",
        b"index.php ",
        b"index.PHP",
        b"php",
        b"GET /",
        b"GET / ",
        b"GET /\0",
        b"get /",
        b"<!--",
        b"a<!-- b",
        b"<!-",
        b"<!---->",
    ];
    text.iter().map(|t| t.to_vec()).collect()
}

/// Pieces the generated inputs are made of.
const PIECES: &[&[u8]] = &[
    b"select",
    b"SELECT",
    b"union",
    b"or",
    b"1",
    b"a",
    b"b",
    b"c",
    b"d",
    b"ab",
    b"bc",
    b"x",
    b"_",
    b"-",
    b".",
    b",",
    b"/",
    b"|",
    b"(",
    b")",
    b"?",
    b">",
    b"<!--",
    b"<",
    b"!",
    b" ",
    b"\t",
    b"\n",
    b"\r",
    b"\0",
    b"\x7f",
    b"GET",
    b"HEAD",
    b"POST",
    b"OPTIONS",
    b".asa/",
    b".bak/",
    b"gzip",
    b"br",
    b"document.",
    b"cookie",
    b"/adm",
    b".php",
    b"%",
    b"%2",
    b"%20",
    b"%2f",
    b"%g",
    b"%u2019",
    b"\xc3\xa9",
    b"\xe2\x80\x99",
    b"\xf0\x9f\x98\x80",
    b"\xc3",
    b"\xe2\x80",
    b"\xc0\xaf",
    b"\xe0\x80\xaf",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xf8",
    b"\x80",
    b"\xff",
];

/// The SecRule text of `operators`, rule `i + 1` holding `operators[i]` (as `oracle.c` writes them).
fn secrules(operators: &[&str]) -> String {
    operators
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let id = i + 1;
            match op.strip_prefix("chain ") {
                Some(op) => format!(
                    "SecRule REQUEST_HEADERS:v \"@unconditionalMatch\" \"id:{id},phase:1,t:none,deny,msg:'operator',chain\"\n\
                     SecRule MATCHED_VAR \"{op}\" \"t:none\"\n"
                ),
                None => format!(
                    "SecRule REQUEST_HEADERS:v \"{op}\" \"id:{id},phase:1,t:none,deny,msg:'operator'\"\n"
                ),
            }
        })
        .collect()
}

/// `operators` as our engine runs them: imported from [`secrules`] as `rulec import-crs` does (`.data` files
/// read from the path `@pmFromFile` names), compiled.
fn our_rules(operators: &[&str]) -> CompiledRuleSet {
    let read = |name: &str| {
        std::fs::read_to_string(name).map_err(|source| DataFileError::Unreadable {
            path: name.into(),
            source,
        })
    };
    let context = Context {
        data_file: Some(&read),
        ..Context::default()
    };
    let import =
        waf_compiler::import::import_with(&secrules(operators), "operators.conf", &context)
            .unwrap();
    assert!(import.warnings.is_empty(), "{:#?}", import.warnings);
    assert_eq!(import.rule_count, operators.len());
    let sources = [SourceFile {
        path: "operators.yaml".into(),
        relative: "operators.yaml".into(),
        text: Ok(import.yaml),
    }];
    let outcome = CompiledRuleSet::from_sources(&sources, &CompileOptions::default());
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    outcome.ruleset
}

/// For each of `count` rules, whether our engine matched `input` in the header `v`.
fn ours(rules: &CompiledRuleSet, count: usize, input: &[u8]) -> Vec<bool> {
    let headers: &[(&str, &[u8])] = &[("v", input)];
    let verdict = rules.evaluate(&HttpRequest {
        method: "GET",
        uri: "/",
        version: "HTTP/1.1",
        headers,
        body: b"",
    });
    let matched: BTreeSet<u32> = verdict.matches.iter().map(|m| m.rule_id).collect();
    (1..=count as u32).map(|id| matched.contains(&id)).collect()
}

/// Runs `operators` on `inputs` on both sides and fails on any difference that is not [`deliberate`], on a
/// deliberate difference that no longer occurs, and on an operator ModSecurity matched on no input or on all.
fn compare(operators: &[&str], inputs: &[Vec<u8>], expected_deliberate: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = modsec_oracle::build(dir.path()) else {
        return;
    };
    let theirs = modsec_oracle::run(&exe, None, operators, inputs);
    let rules = our_rules(operators);
    let mut differences = Vec::new();
    let mut per_operator: BTreeMap<&str, usize> = BTreeMap::new();
    let mut deliberate_seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut matched = vec![0usize; operators.len()];
    for (input, verdicts) in inputs.iter().zip(&theirs) {
        let ours = ours(&rules, operators.len(), input);
        for (k, (ours, theirs)) in ours.into_iter().zip(verdicts).enumerate() {
            let operator = operators[k];
            let theirs = match theirs.as_slice() {
                [0] => false,
                [1] => true,
                other => panic!("{operator}: the oracle answered {other:?}"),
            };
            matched[k] += usize::from(theirs);
            if ours == theirs {
                continue;
            }
            match deliberate(operator, input, ours) {
                Some(reason) => *deliberate_seen.entry(reason).or_default() += 1,
                None => {
                    *per_operator.entry(operator).or_default() += 1;
                    differences.push(format!(
                        "{operator} on {}: ours {}, ModSecurity {}",
                        show(input),
                        verdict(ours),
                        verdict(theirs)
                    ));
                }
            }
        }
    }
    let compared = inputs.len() * operators.len();
    let mut report = format!(
        "{} inputs x {} operators = {compared} comparisons; {} differences",
        inputs.len(),
        operators.len(),
        differences.len()
    );
    for (operator, n) in &per_operator {
        let _ = write!(report, "; {operator}: {n}");
    }
    for (reason, n) in &deliberate_seen {
        let _ = write!(report, "; deliberate ({reason}): {n}");
    }
    eprintln!("{report}");
    // A corpus where an operator never matches, or always does, tests nothing about it.
    for (operator, &n) in operators.iter().zip(&matched) {
        assert!(
            n > 0 && n < inputs.len(),
            "{operator}: ModSecurity matched {n} of {} inputs",
            inputs.len()
        );
    }
    modsec_oracle::assert_only_deliberate(
        &report,
        expected_deliberate,
        &deliberate_seen,
        &differences,
        60,
    );
}

#[test]
fn every_operator_agrees_with_modsecurity() {
    let mut inputs = edge_cases();
    inputs.extend(Rng(SEED).inputs(GENERATED, 12, PIECES));
    compare(OPERATORS, &inputs, DELIBERATE);
}

/// The CRS `.data` files `@pmFromFile` reads the most phrases from.
const DATA_FILES: &[&str] = &[
    "lfi-os-files.data",
    "unix-shell.data",
    "restricted-files.data",
    "sql-errors.data",
    "windows-powershell-commands.data",
];

/// `@pmFromFile` with CRS's own phrase lists: the files' lines read as ModSecurity reads them, matched
/// case-insensitively at any boundary. Inputs: the phrases themselves, cut short by a byte, in upper case,
/// joined with each other and with the pieces of the main test.
#[test]
fn pm_from_file_agrees_with_modsecurity_on_crs_data() {
    let rules_dir = detect_support::third_party_dir().join("crs/rules");
    if !rules_dir.join(DATA_FILES[0]).is_file() {
        detect_support::skip(&format!(
            "no CRS checkout at {} (set WAF_THIRD_PARTY_DIR)",
            rules_dir.display()
        ));
        return;
    }
    let operators: Vec<String> = DATA_FILES
        .iter()
        .map(|f| format!("@pmFromFile {}", rules_dir.join(f).display()))
        .collect();
    let mut phrases: Vec<Vec<u8>> = Vec::new();
    for file in DATA_FILES {
        let text = std::fs::read(rules_dir.join(file)).unwrap();
        phrases.extend(
            text.split(|&b| b == b'\n')
                .filter(|l| !l.is_empty() && !l.starts_with(b"#"))
                .map(<[u8]>::to_vec),
        );
    }
    let mut rng = Rng(SEED);
    // sql-errors.data's ` in query expression` starts with a space, which belongs to the phrase.
    let mut inputs: Vec<Vec<u8>> = vec![
        b"xin query expression".to_vec(),
        b"x in query expression".to_vec(),
    ];
    inputs.extend((0..GENERATED).map(|_| {
        let mut input = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let phrase = &phrases[rng.below(phrases.len())];
            match rng.below(8) {
                0 => input.extend_from_slice(&phrase[..phrase.len() - 1]),
                1 => input.extend(phrase.to_ascii_uppercase()),
                2 | 3 => input.extend_from_slice(PIECES[rng.below(PIECES.len())]),
                _ => input.extend_from_slice(phrase),
            }
        }
        input
    }));
    let operators: Vec<&str> = operators.iter().map(String::as_str).collect();
    compare(&operators, &inputs, &[MISSED_PHRASE]);
}

fn verdict(matched: bool) -> &'static str {
    if matched { "match" } else { "no match" }
}
