//! The detectors take arbitrary client bytes on the request path: they must never panic and
//! must finish on hostile inputs. Random inputs (seeded, reproducible), inputs made of the
//! tokenizers' special characters, and large inputs built to provoke quadratic behaviour.
//! (Speed itself is measured by the criterion benchmark, not asserted here.)

use waf_compiler::detect::sqli::{self, fold};
use waf_compiler::detect::sqli_tokenizer::{Dialect, Flags, QuoteContext, Tokenizer};
use waf_compiler::detect::xss;

/// xorshift64*: reproducible without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn exercise(input: &[u8]) {
    let analysis = sqli::analyze(input);
    assert_eq!(sqli::is_sqli(input), analysis.is_sqli);
    assert!(analysis.fingerprint.as_bytes().len() <= sqli::MAX_TOKENS);
    for quote in [
        QuoteContext::None,
        QuoteContext::Single,
        QuoteContext::Double,
    ] {
        for dialect in [Dialect::Ansi, Dialect::Mysql] {
            let flags = Flags { quote, dialect };
            // Folding may end on an unparseable token just past the fingerprint.
            assert!(fold(input, flags).len() <= sqli::MAX_TOKENS + 1);
            let mut tokenizer = Tokenizer::new(input, flags);
            let mut count = 0;
            while let Some(token) = tokenizer.next_token() {
                count += 1;
                assert!(token.pos <= input.len(), "token position inside the input");
                // Every token consumes at least one byte, so the count is bounded by the length.
                assert!(count <= input.len() + 1, "tokenizer makes progress");
            }
        }
    }
    let _ = xss::is_xss(input);
    let _ = xss::html5_trace(input);
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    for _ in 0..20_000 {
        let len = rng.below(64);
        let input: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        exercise(&input);
    }
}

#[test]
fn special_characters_never_panic() {
    // Bytes every tokenizer state reacts to; random strings over this alphabet reach the
    // corner cases far more often than uniform bytes do.
    const ALPHABET: &[u8] =
        b"'\"`$@#-/*!<>=&|:;.,(){}[]\\?%^~+0123456789xXbBeEnNqQuU aA\t\n\r\x00\x0b\xa0\xff_&#;";
    let mut rng = Rng(0x5EED_1234_ABCD_0002);
    for _ in 0..50_000 {
        let len = rng.below(40);
        let input: Vec<u8> = (0..len)
            .map(|_| ALPHABET[rng.below(ALPHABET.len())])
            .collect();
        exercise(&input);
    }
}

#[test]
fn large_hostile_inputs_finish() {
    const SIZE: usize = 256 * 1024;
    let repeat = |unit: &[u8]| unit.iter().copied().cycle().take(SIZE).collect::<Vec<u8>>();
    let mut inputs = vec![
        repeat(b"1+"),
        repeat(b"\\"),
        repeat(b"\\'"),
        repeat(b"''"),
        repeat(b"$a"),
        repeat(b"-"),
        repeat(b"/*"),
        repeat(b"<a "),
        repeat(b"<!--"),
        repeat(b"-!"),
        repeat(b"]]"),
        repeat(b"%"),
        repeat(b"&#0"),
        repeat(b"\x00"),
        repeat(b"q'["),
        repeat(b"(((("),
    ];
    // A PostgreSQL `$tag$` string whose tag is most of the input.
    let mut tag = b"$".to_vec();
    tag.extend(std::iter::repeat_n(b'a', SIZE / 2));
    tag.push(b'$');
    tag.extend(std::iter::repeat_n(b'a', SIZE / 2));
    inputs.push(tag);
    // A URL attribute value of entities and newlines.
    let mut url = b"<a href=".to_vec();
    url.extend(repeat(b"&#10;"));
    inputs.push(url);
    for input in inputs {
        let _ = sqli::analyze(&input);
        let _ = xss::is_xss(&input);
    }
}
