//! libinjection-compatible detectors for the `detector_sqli` and `detector_xss` operators.
//!
//! A pure-Rust reimplementation of libinjection's behaviour (SQLi: tokenizer, folding,
//! fingerprint list and false-positive rules; XSS: an HTML5 tokenizer and its blacklists),
//! written from the algorithm's documented behaviour and pinned by the upstream test corpus
//! (`tests/detect_corpus.rs`) and by a differential test against the C library
//! (`tests/detect_differential.rs`). The crates.io `libinjection` crate needs network access
//! to build, and `libinjectionrs` 0.1.1 disagreed with C libinjection on the sample payloads
//! (it does not merge phrases such as `INTO OUTFILE`), hence our own.
//!
//! Both detectors take arbitrary bytes, never panic, and do work linear in the input.

pub mod html5;
pub mod sqli;
mod sqli_fingerprints;
mod sqli_keywords;
pub mod sqli_tokenizer;
pub mod xss;
