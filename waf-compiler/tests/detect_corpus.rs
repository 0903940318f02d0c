//! Runs every upstream libinjection test file (`third_party/libinjection/tests`) against our
//! detectors: SQLi fingerprints, folding, tokens and the HTML5 tokenizer. Prints
//! `N passed, M failed` per category and in total, and fails on any failure not in
//! [`KNOWN_DIFFERENCES`] or any known difference that now passes.

mod detect_support;

use std::collections::BTreeMap;
use std::fs;

use waf_compiler::detect::sqli::{self, fold};
use waf_compiler::detect::sqli_tokenizer::{Flags, Token, TokenType, Tokenizer};
use waf_compiler::detect::xss;

/// Test files we knowingly do not match, with the reason. Empty: all pass.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

struct Case {
    name: String,
    input: Vec<u8>,
    expected: String,
}

/// Splits a `--TEST--`/`--INPUT--`/`--EXPECTED--` file. The input is the bytes between the
/// markers without the final newline.
fn parse(name: &str, text: &[u8]) -> Option<Case> {
    let find = |needle: &[u8]| text.windows(needle.len()).position(|w| w == needle);
    let input_at = find(b"--INPUT--\n")? + b"--INPUT--\n".len();
    let expected_at = find(b"--EXPECTED--")?;
    let input = text.get(input_at..expected_at)?;
    let input = input.strip_suffix(b"\n").unwrap_or(input);
    let expected = &text[expected_at + b"--EXPECTED--".len()..];
    Some(Case {
        name: name.to_string(),
        input: input.to_vec(),
        expected: String::from_utf8_lossy(expected).trim().to_string(),
    })
}

/// A token as upstream's test driver prints it: class, space, value (a C string, so it stops at
/// NUL), strings with their quotes and variables with their `@`s.
fn print_token(token: &Token) -> String {
    let cstr = |v: &[u8]| {
        let end = v.iter().position(|&c| c == 0).unwrap_or(v.len());
        String::from_utf8_lossy(&v[..end]).into_owned()
    };
    let quoted = |t: &Token| {
        let mut out = String::new();
        if t.str_open != 0 {
            out.push(char::from(t.str_open));
        }
        out.push_str(&cstr(t.value()));
        if t.str_close != 0 {
            out.push(char::from(t.str_close));
        }
        out
    };
    let value = match token.kind {
        TokenType::String => quoted(token),
        TokenType::Variable => "@".repeat(usize::from(token.count.min(2))) + &quoted(token),
        _ => cstr(token.value()),
    };
    format!("{} {}", token.kind.as_char(), value)
}

fn print_tokens(tokens: impl IntoIterator<Item = Token>) -> String {
    tokens
        .into_iter()
        .map(|t| print_token(&t) + "\n")
        .collect::<String>()
        .trim()
        .to_string()
}

fn actual(case: &Case) -> Option<String> {
    let name = case.name.as_str();
    let input = case.input.as_slice();
    if name.starts_with("test-sqli-") {
        Some(
            sqli::fingerprint(input)
                .map(|fp| fp.to_string())
                .unwrap_or_default(),
        )
    } else if name.starts_with("test-folding-") {
        Some(print_tokens(fold(input, Flags::ANSI)))
    } else if name.starts_with("test-tokens-") {
        let mut tokenizer = Tokenizer::new(input, Flags::ANSI);
        Some(print_tokens(std::iter::from_fn(|| tokenizer.next_token())))
    } else if name.starts_with("test-html5-") {
        Some(xss::html5_trace(input).trim().to_string())
    } else {
        None
    }
}

fn category(name: &str) -> &'static str {
    ["sqli", "folding", "tokens", "html5"]
        .into_iter()
        .find(|c| name.starts_with(&format!("test-{c}-")))
        .unwrap_or("other")
}

#[test]
fn upstream_corpus() {
    let dir = detect_support::libinjection_dir().join("tests");
    let Ok(entries) = fs::read_dir(&dir) else {
        detect_support::skip(&format!(
            "libinjection corpus not found at {}",
            dir.display()
        ));
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt"))
        .collect();
    names.sort();
    assert!(
        names.len() >= 480,
        "expected the 480 upstream test files, found {}",
        names.len()
    );

    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut unexpected = Vec::new();
    for name in &names {
        let text = fs::read(dir.join(name)).expect("read test file");
        let case = parse(name, &text).unwrap_or_else(|| panic!("{name}: malformed test file"));
        let got = actual(&case).unwrap_or_else(|| panic!("{name}: unknown test category"));
        let passed = got == case.expected;
        let entry = counts.entry(category(name)).or_default();
        if passed {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
        let known = KNOWN_DIFFERENCES.iter().any(|(n, _)| n == name);
        if passed == known {
            unexpected.push(format!(
                "{name}: {}\n  input:    {:?}\n  expected: {:?}\n  actual:   {:?}",
                if known {
                    "known difference now passes"
                } else {
                    "FAILED"
                },
                String::from_utf8_lossy(&case.input),
                case.expected,
                got
            ));
        }
    }
    let (mut pass, mut fail) = (0, 0);
    for (cat, (p, f)) in &counts {
        println!("{cat}: {p} passed, {f} failed");
        pass += p;
        fail += f;
    }
    println!("total: {pass} passed, {fail} failed");
    assert!(
        unexpected.is_empty(),
        "{} unexpected results:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
}
