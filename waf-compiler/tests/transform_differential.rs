//! Differential test of every transform against ModSecurity v3 itself (Debian's `libmodsecurity3`).
//!
//! `tests/modsec_oracle/oracle.c` is compiled here with `cc` against `libmodsecurity-dev`; it loads one
//! rule per transform through the C API and prints what ModSecurity made of each input (see the harness for how
//! the value comes out). The inputs: a corpus of edge cases, plus [`GENERATED`] inputs from a fixed seed, built
//! from the pieces transforms react to (valid, invalid and truncated `%` and `%u` escapes, HTML entities, comment
//! markers, whitespace, NUL bytes, valid, truncated, overlong and surrogate UTF-8, random bytes). Each runs
//! through ModSecurity with the Unicode map of code page 20127 (our default), and the chains with `urlDecodeUni`
//! (the only transform that reads the map) also without a map and with code page 1252; our output must equal ModSecurity's byte for byte, apart from the deliberate differences that
//! [`deliberate`] names (documented in `docs/transforms.md`), each of which must still occur.

mod detect_support;
mod modsec_oracle;

use modsec_oracle::{Rng, show};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use waf_compiler::Transform;
use waf_compiler::{UnicodeMap, apply_transforms as apply_chain};

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
    ("cmdLine", &[Transform::CmdLine]),
    ("jsDecode", &[Transform::JsDecode]),
    ("cssDecode", &[Transform::CssDecode]),
    ("normalizePath", &[Transform::NormalizePath]),
    ("normalizePathWin", &[Transform::NormalizePathWin]),
    ("escapeSeqDecode", &[Transform::EscapeSeqDecode]),
    ("base64Decode", &[Transform::Base64Decode]),
    ("hexEncode", &[Transform::HexEncode]),
    ("length", &[Transform::Length]),
];

/// How many generated inputs (on top of the corpus), and from which seed.
const GENERATED: usize = 5000;
const SEED: u64 = 0x5ec0_de20;

/// The code pages tried (`None`: ModSecurity without `SecUnicodeMapFile`).
const CODE_PAGES: [Option<u32>; 3] = [Some(20127), None, Some(1252)];

/// The differences kept on purpose, each documented in `docs/transforms.md` and required to occur.
const CUT_AT_NUL: &str = "cssDecode reads past a NUL byte";
const BASE64_PREFIX: &str =
    "base64Decode decodes up to a bad character, a short last group included";
const DELIBERATE: &[&str] = &[CUT_AT_NUL, BASE64_PREFIX];

/// Our output differs from ModSecurity's on purpose (see `docs/transforms.md`): the reason, or `None`.
fn deliberate(transform: &str, input: &[u8], ours: &[u8], theirs: &[u8]) -> Option<&'static str> {
    // ModSecurity v3's base64Decode gives nothing at all for a value with a byte outside the alphabet
    // (`user=admin’--`, `YWJjZA==x`) and drops an unpadded final group (`YWJjZA` is `abc`, `xx0` nothing); ours
    // decodes everything before the first byte outside the alphabet, so a payload with junk appended is still
    // seen. ModSecurity's output is then the start of ours.
    if transform == "base64Decode" && ours.starts_with(theirs) {
        return Some(BASE64_PREFIX);
    }
    // ModSecurity v3's cssDecode stops at the first NUL byte and drops the rest of the value: a NUL would hide
    // whatever follows it from every rule. Ours decodes the whole value.
    let nul = input.iter().position(|&b| b == 0)?;
    let prefix = apply_chain(&[Transform::CssDecode], &input[..nul], UnicodeMap::NONE);
    (transform == "cssDecode" && theirs == &*prefix).then_some(CUT_AT_NUL)
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
        b"YWJjZA==",
        b"YWJjZA",
        b"YWJjZGU",
        b"YWJjZA%3d",
        b"YWJjZA==x",
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

fn generated() -> Vec<Vec<u8>> {
    Rng(SEED).inputs(GENERATED, 24, PIECES)
}

#[test]
fn every_transform_equals_modsecurity_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = modsec_oracle::build(dir.path()) else {
        return;
    };
    let mut inputs = edge_cases();
    inputs.extend(generated());
    let mut differences = Vec::new();
    let mut per_transform: BTreeMap<&str, usize> = BTreeMap::new();
    let mut deliberate_seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut compared = 0;
    for (i, code_page) in CODE_PAGES.into_iter().enumerate() {
        let map = UnicodeMap::for_code_page(code_page).unwrap();
        // Only urlDecodeUni reads the map: the other transforms run with the first one alone.
        let transforms: Vec<&(&str, &[Transform])> = TRANSFORMS
            .iter()
            .filter(|(_, chain)| i == 0 || chain.contains(&Transform::UrlDecodeUni))
            .collect();
        let names: Vec<&str> = transforms.iter().map(|(name, _)| *name).collect();
        let theirs = modsec_oracle::run(&exe, code_page, &names, &inputs);
        compared += inputs.len() * names.len();
        for (input, outputs) in inputs.iter().zip(&theirs) {
            for ((name, chain), theirs) in transforms.iter().zip(outputs) {
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
    let mut report = format!(
        "{} inputs x {} transforms (urlDecodeUni's x {} maps) = {compared} comparisons; {} differences",
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
    modsec_oracle::assert_only_deliberate(&report, DELIBERATE, &deliberate_seen, &differences, 40);
}

/// The whole map, for every code page of the file: `urlDecodeUni` of every `%uXXXX` (one input holding all
/// 65,536 escapes) is ModSecurity's, so our tables read the file as `SecUnicodeMapFile` does.
#[test]
fn every_code_point_of_every_code_page_decodes_as_in_modsecurity() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = modsec_oracle::build(dir.path()) else {
        return;
    };
    let all: Vec<u8> = (0..=0xffffu32)
        .flat_map(|c| format!("%u{c:04x}").into_bytes())
        .collect();
    let mut pages: Vec<Option<u32>> = UnicodeMap::code_pages().map(Some).collect();
    pages.push(None);
    for code_page in pages {
        let map = UnicodeMap::for_code_page(code_page).unwrap();
        let theirs = &modsec_oracle::run(
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
