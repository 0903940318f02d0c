//! Shared by the differential tests against ModSecurity v3 (`transform_differential`, `operator_differential`):
//! building the C harness `oracle.c` against Debian's `libmodsecurity-dev`, running it on inputs, and the
//! seeded generator of inputs.

#![allow(dead_code)] // each test binary uses part of this module

use crate::detect_support::skip;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The harness, compiled into `dir`, or `None` after a skip.
pub fn build(dir: &Path) -> Option<PathBuf> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modsec_oracle/oracle.c");
    let exe = dir.join("modsec_oracle");
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

/// ModSecurity's output of each of `rules` for every input: `[input][rule]`. A rule is a transform chain
/// (ModSecurity's names joined by commas), whose output is the transformed value, or an operator as SecRule
/// writes it (`@within GET HEAD`), whose output is `[1]` for a match and `[0]` for none (see `oracle.c`).
/// `code_page`: the code page of the Unicode map ModSecurity loads (`None`: no `SecUnicodeMapFile`).
pub fn run(
    exe: &Path,
    code_page: Option<u32>,
    rules: &[&str],
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
        .args(rules)
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
            assert_eq!(outputs.len(), rules.len(), "{line}");
            outputs
        })
        .collect()
}

/// SplitMix64: a fixed seed gives the same inputs on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `count` inputs of up to `max_pieces` pieces each; one piece in eight is a random byte instead.
    pub fn inputs(&mut self, count: usize, max_pieces: usize, pieces: &[&[u8]]) -> Vec<Vec<u8>> {
        (0..count)
            .map(|_| {
                let mut input = Vec::new();
                for _ in 0..self.below(max_pieces) {
                    if self.below(8) == 0 {
                        input.push(self.next() as u8);
                    } else {
                        input.extend_from_slice(pieces[self.below(pieces.len())]);
                    }
                }
                input
            })
            .collect()
    }
}

/// A byte string as printable ASCII with `\xHH` escapes.
pub fn show(bytes: &[u8]) -> String {
    format!("\"{}\"", bytes.escape_ascii())
}

/// The verdict of a differential test: every deliberate difference it expects still occurs (else the exception
/// and its docs are stale), and no other difference does. `report` is the test's summary line.
pub fn assert_only_deliberate(
    report: &str,
    expected: &[&str],
    seen: &std::collections::BTreeMap<&str, usize>,
    differences: &[String],
    shown: usize,
) {
    for reason in expected {
        assert!(
            seen.contains_key(reason),
            "the deliberate difference `{reason}` no longer occurs: drop it (and its docs)"
        );
    }
    assert!(
        differences.is_empty(),
        "{report}\nfirst differences:\n{}",
        differences[..differences.len().min(shown)].join("\n")
    );
}
