//! Arbitrary bytes as a request body of each kind the engine parses (urlencoded, JSON, multipart, XML): parsing
//! must yield values or fall back to the raw body, never panic, hang or recurse without bound. The first byte picks
//! the content type, so one corpus covers every parser.
#![no_main]

use bumpalo::Bump;
use libfuzzer_sys::fuzz_target;
use waf_compiler::parse_body;

const CONTENT_TYPES: [&[u8]; 6] = [
    b"application/x-www-form-urlencoded",
    b"application/json",
    b"application/vnd.api+json",
    b"multipart/form-data; boundary=fuzz",
    b"multipart/form-data; boundary=\"a b\"",
    b"application/xml",
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let content_type = CONTENT_TYPES[usize::from(selector) % CONTENT_TYPES.len()];
    let arena = Bump::new();
    let parsed = parse_body(&arena, body, Some(content_type));
    // Each value is read, so a slice that the parser got wrong shows up here, not later.
    let total: usize = parsed
        .args
        .iter()
        .chain(parsed.xml)
        .map(|item| item.name.len() + item.value.len())
        .sum();
    std::hint::black_box(total);
});
