//! Arbitrary text as a CRS (ModSecurity `SecRule`) file: the importer must parse, convert and write YAML or
//! report a parse error, never panic; whatever YAML it writes must load (with errors reported, not panics).
#![no_main]

use libfuzzer_sys::fuzz_target;
use waf_compiler::CompileOptions;
use waf_compiler::{CompiledRuleSet, SourceFile};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(import) = waf_compiler::import::import(text, "fuzz.conf") else {
        return;
    };
    let sources = [SourceFile {
        path: "fuzz.yaml".into(),
        relative: "fuzz.yaml".into(),
        text: Ok(import.yaml),
    }];
    let _ = CompiledRuleSet::from_sources(&sources, &CompileOptions { paranoia_level: 4, ..Default::default() });
});
