//! Arbitrary bytes as a rule file: loading must report errors, never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use waf_compiler::CompileOptions;
use waf_compiler::{CompiledRuleSet, SourceFile};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let sources = [SourceFile {
        path: "fuzz.yaml".into(),
        relative: "fuzz.yaml".into(),
        text: Ok(text.to_owned()),
    }];
    let outcome = CompiledRuleSet::from_sources(&sources, &CompileOptions { paranoia_level: 4, ..Default::default() });
    // Whatever loaded must also evaluate.
    let request = waf_compiler::HttpRequest {
        method: "POST",
        uri: "/?a=1' or 1=1",
        version: "HTTP/1.1",
        headers: &[
            ("Content-Type", b"application/x-www-form-urlencoded"),
            ("Cookie", b"c=<script>"),
        ],
        body: b"b=../../etc/passwd",
    };
    let _ = outcome.ruleset.evaluate(&request);
});
