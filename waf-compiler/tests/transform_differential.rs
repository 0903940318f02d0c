//! Differential test of every transform against ModSecurity v3 itself (Debian's `libmodsecurity3`).
//!
//! `tests/modsec_oracle/transform_oracle.c` is compiled here with `cc` against `libmodsecurity-dev`; it loads one
//! rule per transform through the C API and prints what ModSecurity made of each input (see the harness for how
//! the value comes out). The inputs: a corpus of edge cases, plus [`GENERATED`] inputs from a fixed seed, built
//! from the pieces transforms react to (valid, invalid and truncated `%` and `%u` escapes, HTML entities, comment
//! markers, whitespace, NUL bytes, valid, truncated, overlong and surrogate UTF-8, random bytes). Each runs
//! through ModSecurity with the Unicode map of code page 20127 (our default), without a map, and with code page
//! 1252; our output must equal ModSecurity's byte for byte, apart from the deliberate differences that
//! [`deliberate`] names (documented in `docs/transforms.md`), each of which must still occur.

mod detect_support;

use detect_support::skip;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use waf_compiler::rule::Transform;
use waf_compiler::transform::{UnicodeMap, apply_chain};

/// Each transform by ModSecurity's name; a chain is written as ModSecurity's names joined by commas.
const TRANSFORMS: &[(&str, &[Transform])] = &[
    ("urlDecode", &[Transform::UrlDecode]),
    ("urlDecodeUni", &[Transform::UrlDecodeUni]),
    ("utf8toUnicode", &[Transform::Utf8ToUnicode]),
    (
        "utf8toUnicode,urlDecodeUni",
        &[Transform::Utf8ToUnicode, Transform::UrlDecodeUni],
    ),
    ("lowercase", &[Transform::Lowercase]),
    ("removeNulls", &[Transform::RemoveNulls]),
    ("replaceComments", &[Transform::ReplaceComments]),
    ("removeCommentsChar", &[Transform::RemoveCommentsChar]),
    ("removeWhitespace", &[Transform::RemoveWhitespace]),
    ("compressWhitespace", &[Transform::CompressWhitespace]),
    ("htmlEntityDecode", &[Transform::HtmlEntityDecode]),
    ("trim", &[Transform::Trim]),
];

/// How many generated inputs (on top of the corpus), and from which seed.
const GENERATED: usize = 5000;
const SEED: u64 = 0x5ec0_de20;

/// The code pages tried (`None`: ModSecurity without `SecUnicodeMapFile`).
const CODE_PAGES: [Option<u32>; 3] = [Some(20127), None, Some(1252)];

/// Our output differs from ModSecurity's on purpose (see `docs/transforms.md`): the reason, or `None`.
fn deliberate(transform: &str, _input: &[u8], ours: &[u8], theirs: &[u8]) -> Option<&'static str> {
    let _ = (transform, ours, theirs);
    None
}

fn edge_cases() -> Vec<Vec<u8>> {
    let text: &[&[u8]] = &[
        b"",
        b"%",
        b"%%",
        b"%2",
        b"%27",
        b"%2g",
        b"%g2",
        b"%%41",
        b"+",
        b"%u",
        b"%U",
        b"%u2",
        b"%u201",
        b"%u2019",
        b"%U2019",
        b"%u201g",
        b"%uFF07",
        b"%uff5e%uff5f%uff00%uff01",
        b"%u3002%uff61%uff0e%u002e",
        b"%u0000",
        b"%u00e9%u00C9",
        b"%%u2019",
        b"%u%41",
        b"x%u2019 OR %u2019a%u2019=%u2019a",
        "user=admin’--".as_bytes(),
        "x’ OR ’a’=’a".as_bytes(),
        "xʼ OR ʼaʼ=ʼa".as_bytes(),
        "’ OR ’1’=’x’--##".as_bytes(),
        "“quoted” and ‘single’ — and … ellipsis".as_bytes(),
        "l’école d’été, un’altra cosa".as_bytes(),
        "ＳＥＬＥＣＴ ＇１＇".as_bytes(),
        "\u{1f600}\u{10ffff}".as_bytes(),
        b"\xc0\xa7",
        b"\xc1\xbf",
        b"\xe0\x80\xa7",
        b"\xf0\x80\x80\xa7",
        b"\xed\xa0\x80",
        b"\xed\xbf\xbf",
        b"\xf4\x90\x80\x80",
        b"\xf5\x80\x80\x80",
        b"\xf8\x88\x80\x80\x80",
        b"\xff\xfe",
        b"\x80\xbf",
        b"a\xc3",
        b"a\xe2\x80",
        b"a\xf0\x9f\x98",
        b"\xc3(",
        b"\xe2(\x99",
        b"\xe2\x80(",
        b"a\0b",
        b"\0",
        b"\0\0%00",
        b"\xc3\0",
        b"&lt;&gt;&amp;&quot;&nbsp;&apos;",
        b"&LT;&Lt;&lt&gt",
        b"&#60;&#x3c;&#X3C;&#60&#x3c",
        b"&#;&#x;&#xg;&",
        b"&#99999999999999999999;&#4294967296;&#x100;",
        b"&#0;&#x0;",
        b"&amp&amp;amp;",
        b"/* c */x/*",
        b"*/x/**/",
        b"/*/",
        b"a--b#c<!--d-->e",
        b"<!-->",
        b"---",
        b" \t\n\x0b\x0c\r\xa0x \xa0 ",
        b"  a  b  ",
        b"\xa0",
        b"SeLeCt \xc3\x89 \xc0",
    ];
    text.iter().map(|t| t.to_vec()).collect()
}

/// Pieces the generated inputs are made of.
const PIECES: &[&[u8]] = &[
    b"%",
    b"%u",
    b"%U",
    b"%2",
    b"%27",
    b"%2G",
    b"%00",
    b"%ff",
    b"%u2019",
    b"%uff07",
    b"%uFF1c",
    b"%u00",
    b"%u0",
    b"u",
    b"+",
    b"&",
    b"&#",
    b"&#x",
    b"&#X",
    b"&lt",
    b"&amp",
    b"&nbsp",
    b"&quot",
    b";",
    b"/*",
    b"*/",
    b"*",
    b"/",
    b"--",
    b"-",
    b"#",
    b"<!--",
    b"-->",
    b"<",
    b"!",
    b" ",
    b"\t",
    b"\n",
    b"\r",
    b"\x0b",
    b"\x0c",
    b"\xa0",
    b"\0",
    b"a",
    b"Z",
    b"0",
    b"9",
    b"f",
    b"F",
    b"x",
    b"'",
    b"\"",
    b"\xc3\xa9",
    b"\xe2\x80\x99",
    b"\xca\xbc",
    b"\xef\xbc\x87",
    b"\xf0\x9f\x98\x80",
    b"\xc3",
    b"\xe2\x80",
    b"\xf0\x9f",
    b"\xc0\xa7",
    b"\xe0\x80\xa7",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xf5",
    b"\xf8",
    b"\xff",
    b"\x80",
    b"\xbf",
];

/// SplitMix64: a fixed seed gives the same inputs on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn generated() -> Vec<Vec<u8>> {
    let mut rng = Rng(SEED);
    (0..GENERATED)
        .map(|_| {
            let mut input = Vec::new();
            for _ in 0..rng.below(24) {
                // One piece in eight is a random byte.
                if rng.below(8) == 0 {
                    input.push(rng.next() as u8);
                } else {
                    input.extend_from_slice(PIECES[rng.below(PIECES.len())]);
                }
            }
            input
        })
        .collect()
}

/// The harness, compiled into `dir`, or `None` after a skip.
fn build_oracle(dir: &Path) -> Option<PathBuf> {
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modsec_oracle/transform_oracle.c");
    let exe = dir.join("transform_oracle");
    let output = Command::new("cc")
        .arg("-O1")
        .arg("-o")
        .arg(&exe)
        .arg(&source)
        .arg("-lmodsecurity")
        .output();
    match output {
        Ok(out) if out.status.success() => Some(exe),
        Ok(out) => {
            skip(&format!(
                "cannot build the ModSecurity oracle (apt install libmodsecurity-dev, see .ci/install): {}",
                String::from_utf8_lossy(&out.stderr)
            ));
            None
        }
        Err(e) => {
            skip(&format!("cannot run cc: {e}"));
            None
        }
    }
}

/// ModSecurity's output of each transform (by ModSecurity's name) for every input: `[input][transform]`.
fn oracle(
    exe: &Path,
    code_page: Option<u32>,
    names: &[&str],
    inputs: &[Vec<u8>],
) -> Vec<Vec<Vec<u8>>> {
    let map_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("unicode/unicode.mapping");
    let (file, page) = match code_page {
        Some(n) => (map_file.display().to_string(), n.to_string()),
        None => ("-".to_owned(), "0".to_owned()),
    };
    let mut child = Command::new(exe)
        .arg(file)
        .arg(page)
        .args(names)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the oracle");
    let mut stdin = child.stdin.take().unwrap();
    let text: String = inputs.iter().map(|i| hex::encode(i) + "\n").collect();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().expect("oracle output");
    writer.join().unwrap().expect("write the inputs");
    assert!(
        out.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), inputs.len(), "one line per input");
    lines
        .iter()
        .map(|line| {
            let outputs: Vec<Vec<u8>> = line
                .split(' ')
                .map(|h| hex::decode(h).expect("hex output"))
                .collect();
            assert_eq!(outputs.len(), names.len(), "{line}");
            outputs
        })
        .collect()
}

#[test]
fn every_transform_equals_modsecurity_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = build_oracle(dir.path()) else {
        return;
    };
    let mut inputs = edge_cases();
    inputs.extend(generated());
    let mut differences = Vec::new();
    let mut per_transform: BTreeMap<&str, usize> = BTreeMap::new();
    let mut deliberate_seen: BTreeMap<&str, usize> = BTreeMap::new();
    for code_page in CODE_PAGES {
        let map = UnicodeMap::for_code_page(code_page).unwrap();
        let names: Vec<&str> = TRANSFORMS.iter().map(|(name, _)| *name).collect();
        let theirs = oracle(&exe, code_page, &names, &inputs);
        for (input, outputs) in inputs.iter().zip(&theirs) {
            for ((name, chain), theirs) in TRANSFORMS.iter().zip(outputs) {
                let ours = apply_chain(chain, input, map);
                if ours == *theirs {
                    continue;
                }
                match deliberate(name, input, &ours, theirs) {
                    Some(reason) => *deliberate_seen.entry(reason).or_default() += 1,
                    None => {
                        *per_transform.entry(name).or_default() += 1;
                        differences.push(format!(
                            "{name} [map {map}] of {}: ours {}, ModSecurity {}",
                            show(input),
                            show(&ours),
                            show(theirs)
                        ));
                    }
                }
            }
        }
    }
    let compared = inputs.len() * TRANSFORMS.len() * CODE_PAGES.len();
    let mut report = format!(
        "{} inputs x {} transforms x {} maps = {compared} comparisons; {} differences",
        inputs.len(),
        TRANSFORMS.len(),
        CODE_PAGES.len(),
        differences.len()
    );
    for (name, n) in &per_transform {
        let _ = write!(report, "; {name}: {n}");
    }
    for (reason, n) in &deliberate_seen {
        let _ = write!(report, "; deliberate ({reason}): {n}");
    }
    eprintln!("{report}");
    assert!(
        differences.is_empty(),
        "{report}\nfirst differences:\n{}",
        differences[..differences.len().min(40)].join("\n")
    );
}

/// The whole map, for every code page of the file: `urlDecodeUni` of every `%uXXXX` (one input holding all
/// 65,536 escapes) is ModSecurity's, so our tables read the file as `SecUnicodeMapFile` does.
#[test]
fn every_code_point_of_every_code_page_decodes_as_in_modsecurity() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = build_oracle(dir.path()) else {
        return;
    };
    let all: Vec<u8> = (0..=0xffffu32)
        .flat_map(|c| format!("%u{c:04x}").into_bytes())
        .collect();
    let mut pages: Vec<Option<u32>> = UnicodeMap::code_pages().map(Some).collect();
    pages.push(None);
    for code_page in pages {
        let map = UnicodeMap::for_code_page(code_page).unwrap();
        let theirs = &oracle(
            &exe,
            code_page,
            &["urlDecodeUni"],
            std::slice::from_ref(&all),
        )[0][0];
        let ours = apply_chain(&[Transform::UrlDecodeUni], &all, map);
        assert_eq!(theirs.len(), 0x10000, "map {map}");
        // ModSecurity did load the map: U+2019 is `'` with it, its low byte without.
        let apostrophe = if code_page == Some(20127) {
            b'\''
        } else {
            theirs[0x2019]
        };
        assert_eq!(theirs[0x2019], apostrophe, "map {map}");
        if code_page.is_none() {
            assert_eq!(theirs[0x2019], 0x19);
        }
        let wrong: Vec<String> = (0..0x10000)
            .filter(|&c| ours[c] != theirs[c])
            .map(|c| {
                format!(
                    "U+{c:04X}: ours {:#04x}, ModSecurity {:#04x}",
                    ours[c], theirs[c]
                )
            })
            .collect();
        assert!(
            wrong.is_empty(),
            "map {map}: {} code points differ: {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(20)]
        );
    }
}

/// A byte string as printable ASCII with `\xHH` escapes.
fn show(bytes: &[u8]) -> String {
    format!("\"{}\"", bytes.escape_ascii())
}
