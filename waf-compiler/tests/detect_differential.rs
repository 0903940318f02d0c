//! Differential test against C libinjection (PyPI `libinjection-python`, C libinjection 3.9.2)
//! run through `tests/libinjection_oracle.py` with `$TEST_PYTHON`.
//!
//! Inputs: every payload line of `third_party/libinjection/data` (read as upstream's sample reader
//! does: right-trimmed, empty and `#` lines skipped, URL-decoded with `+` as space), plus
//! generated inputs built from SQL and HTML fragments and random bytes, and generated plain words
//! (the inputs of the SQLi fast path). Compared: the SQLi verdict (of `analyze`, `is_sqli` and
//! `fingerprint`), the fingerprint (the matching one, or the last one tried when not SQLi) and
//! the XSS verdict. Every difference must be in [`KNOWN_DIFFERENCES`], and every known difference must
//! still occur.

mod detect_support;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use waf_compiler::detect::{sqli, xss};

/// Inputs (as Rust byte-string literals of the decoded payload) on which we knowingly differ
/// from C libinjection 3.9.2, with the reason.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// The decoding of upstream's sample reader: `+` is a space, `%XY` a byte when both are hex
/// digits and a third byte remains on the line, anything else literal.
fn url_decode(line: &[u8]) -> Vec<u8> {
    let hex = |c: u8| char::from(c).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b'%' if i + 2 < line.len() => match (hex(line[i + 1]), hex(line[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 3;
                }
                _ => {
                    out.push(b'%');
                    i += 1;
                }
            },
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn sample_payloads(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let data = std::fs::read(&file).expect("read sample file");
        for (n, line) in data.split(|&c| c == b'\n').enumerate() {
            let end = line
                .iter()
                .rposition(|c| !b" \t\r\n".contains(c))
                .map_or(0, |i| i + 1);
            let line = &line[..end];
            if line.is_empty() || line[0] == b'#' {
                continue;
            }
            out.push((format!("{name}:{}", n + 1), url_decode(line)));
        }
    }
    out
}

/// Deterministic generated inputs: SQL/HTML fragments glued at random, and raw random bytes,
/// to reach tokenizer corners the samples miss.
fn generated_payloads(count: usize) -> Vec<(String, Vec<u8>)> {
    const FRAGMENTS: &[&[u8]] = &[
        b"1",
        b"0x1F",
        b"0b01",
        b"1.5e3",
        b".5",
        b"1e",
        b"$1,0",
        b"$$a$$",
        b"$q$x$q$",
        b"'",
        b"\"",
        b"`",
        b"\\",
        b"\\N",
        b"@",
        b"@@v",
        b"@'a'",
        b"--",
        b"-- ",
        b"#",
        b"/*",
        b"*/",
        b"/*!",
        b"(",
        b")",
        b"{",
        b"}",
        b",",
        b";",
        b":",
        b"::",
        b".",
        b" ",
        b"\t",
        b"\n",
        b"\x00",
        b"\xa0",
        b"\x7f",
        b"\xff",
        b"=",
        b"<=>",
        b"!=",
        b"||",
        b"&&",
        b"!",
        b"~",
        b"+",
        b"-",
        b"*",
        b"%",
        b"^",
        b"|",
        b"<",
        b">",
        b"?",
        b"[",
        b"]",
        b"union",
        b"ALL",
        b"select",
        b"from",
        b"where",
        b"or",
        b"and",
        b"not",
        b"in",
        b"like",
        b"is",
        b"null",
        b"sleep",
        b"user",
        b"if",
        b"case",
        b"when",
        b"into",
        b"outfile",
        b"group",
        b"by",
        b"order",
        b"collate",
        b"utf8_bin",
        b"char",
        b"varchar",
        b"double",
        b"precision",
        b"E'",
        b"N'",
        b"q'[",
        b"]'",
        b"U&'",
        b"b'",
        b"x'",
        b"foo",
        b"x",
        b"<script>",
        b"<img src=x onerror=",
        b"<a href=\"javascript:",
        b"<!--",
        b"-->",
        b"<?",
        b"<!DOCTYPE",
        b"</",
        b"/>",
        b"&#",
        b"style=",
        b"<svg",
        b"onload",
        b"vbscript:",
        b"data:",
        b"&lt;",
        b"<![CDATA[",
        b"&#x6A;",
        b"&#106;",
        b"&#0000106",
        b"&#x0;",
        b"&#10;",
        b"&#x",
        b"java",
        b"script:",
        b" href=",
        b" src=",
        b" style=",
        b" on",
        b"error=",
        b"view-source:",
        b"<!--[if",
        b"<?xml",
        b"<%",
        b"%>",
        b"]]>",
        b"<x ",
        b" xmlns=",
        b" attributename=",
        b"\x0c",
    ];
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    (0..count)
        .map(|i| {
            let mut input = Vec::new();
            let pieces = 1 + next() % 12;
            for _ in 0..pieces {
                if next().is_multiple_of(8) {
                    input.push((next() % 256) as u8);
                } else {
                    input.extend_from_slice(FRAGMENTS[(next() % FRAGMENTS.len() as u64) as usize]);
                }
            }
            (format!("generated:{i}"), input)
        })
        .collect()
}

/// Deterministic plain words (letters, digits, `_`, non-ASCII bytes): the inputs of the SQLi fast
/// path, built from the corners its soundness argument relies on (`0b12`: two numbers; `0x`,
/// `1e`: bare words from the number reader; `2d`/`1fu`: suffixes; keywords of every class).
fn plain_words(count: usize) -> Vec<(String, Vec<u8>)> {
    const PIECES: &[&[u8]] = &[
        b"0b",
        b"0B",
        b"0x",
        b"0X",
        b"1e",
        b"1E",
        b"0",
        b"1",
        b"2",
        b"9",
        b"d",
        b"f",
        b"D",
        b"u",
        b"U",
        b"e",
        b"x",
        b"b",
        b"n",
        b"N",
        b"q",
        b"Q",
        b"_",
        b"g",
        b"union",
        b"UNION",
        b"true",
        b"null",
        b"not",
        b"NOT",
        b"select",
        b"char",
        b"and",
        b"or",
        b"div",
        b"collate",
        b"by",
        b"current_user",
        b"binary_float_nan",
        b"if",
        b"sleep",
        b"\x80",
        b"\xc3\xa9",
        b"\xff",
    ];
    let mut next = xorshift(0xD1B5_4A32_D192_ED03);
    (0..count)
        .map(|i| {
            let mut input = Vec::new();
            for _ in 0..1 + next() % 5 {
                input.extend_from_slice(PIECES[(next() % PIECES.len() as u64) as usize]);
            }
            (format!("plain:{i}"), input)
        })
        .collect()
}

struct Verdict {
    sqli: bool,
    fingerprint: String,
    xss: bool,
}

fn oracle(python: &Path, inputs: &[(String, Vec<u8>)]) -> Vec<Verdict> {
    let mut child = Command::new(python)
        .arg(detect_support::oracle_script())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the oracle");
    let mut request = String::new();
    for (_, input) in inputs {
        for b in input {
            let _ = write!(request, "{b:02x}");
        }
        request.push('\n');
    }
    let mut stdin = child.stdin.take().expect("oracle stdin");
    let writer = std::thread::spawn(move || stdin.write_all(request.as_bytes()));
    let output = child.wait_with_output().expect("oracle output");
    writer
        .join()
        .expect("writer thread")
        .expect("write to oracle");
    assert!(output.status.success(), "oracle failed");
    let text = String::from_utf8(output.stdout).expect("oracle output is UTF-8");
    let verdicts: Vec<Verdict> = text
        .lines()
        .map(|line| {
            let mut f = line.split('\t');
            let (s, fp, x) = (f.next(), f.next(), f.next());
            Verdict {
                sqli: s == Some("1"),
                fingerprint: fp.unwrap_or_default().to_string(),
                xss: x == Some("1"),
            }
        })
        .collect();
    assert_eq!(verdicts.len(), inputs.len(), "one oracle line per input");
    verdicts
}

#[test]
fn agrees_with_c_libinjection() {
    let Some(python) = detect_support::oracle_python() else {
        return;
    };
    let data = detect_support::libinjection_dir().join("data");
    let mut inputs = sample_payloads(&data);
    let samples = inputs.len();
    assert!(
        samples > 19_000,
        "expected the upstream sample payloads, found {samples}"
    );
    inputs.extend(generated_payloads(30_000));
    inputs.extend(plain_words(10_000));
    let expected = oracle(&python, &inputs);

    let (mut sqli_same, mut fp_same, mut xss_same) = ([0usize; 2], [0usize; 2], [0usize; 2]);
    let mut unexpected = Vec::new();
    let mut seen_known = Vec::new();
    for (i, ((origin, input), want)) in inputs.iter().zip(&expected).enumerate() {
        let group = usize::from(i >= samples);
        let got = sqli::analyze(input);
        let got_fp = got.fingerprint.to_string();
        let got_xss = xss::is_xss(input);
        // `is_sqli` and `fingerprint` take fast paths that `analyze` does not: check them too.
        let fast_path_same = sqli::is_sqli(input) == got.is_sqli
            && sqli::fingerprint(input) == got.is_sqli.then_some(got.fingerprint);
        let same = [
            got.is_sqli == want.sqli && fast_path_same,
            got_fp == want.fingerprint,
            got_xss == want.xss,
        ];
        for (count, ok) in [&mut sqli_same, &mut fp_same, &mut xss_same]
            .into_iter()
            .zip(same)
        {
            count[group] += usize::from(ok);
        }
        if same.iter().all(|&ok| ok) {
            continue;
        }
        let literal = format!("{:?}", input.escape_ascii().to_string());
        if KNOWN_DIFFERENCES.iter().any(|(k, _)| *k == literal) {
            seen_known.push(literal);
            continue;
        }
        unexpected.push(format!(
            "{origin} {literal}: C sqli={} fp={:?} xss={}; ours sqli={} fp={:?} xss={}",
            want.sqli, want.fingerprint, want.xss, got.is_sqli, got_fp, got_xss
        ));
    }
    let generated = inputs.len() - samples;
    for (name, counts) in [
        ("sqli verdict", sqli_same),
        ("fingerprint", fp_same),
        ("xss verdict", xss_same),
    ] {
        println!(
            "{name}: samples {}/{samples} agree, generated {}/{generated} agree",
            counts[0], counts[1]
        );
    }
    let stale: Vec<_> = KNOWN_DIFFERENCES
        .iter()
        .filter(|(k, _)| !seen_known.iter().any(|s| s == k))
        .collect();
    assert!(
        stale.is_empty(),
        "known differences that no longer occur: {stale:?}"
    );
    assert!(
        unexpected.is_empty(),
        "{} differences from C libinjection:\n{}",
        unexpected.len(),
        unexpected
            .iter()
            .take(60)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// xorshift64*: reproducible pseudo-random numbers without a dependency.
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}
