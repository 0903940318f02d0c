//! Arbitrary bytes as a raw HTTP request, evaluated against the shipped default rule set (the project's rules and
//! the whole CRS) at paranoia level 4, so every rule runs: the request path must never panic, whatever the client
//! sends (bodies of every content type, broken encodings, values that overflow a transform or a count).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use waf_compiler::{CompileOptions, CompiledRuleSet, OwnedRequest};

fn rules() -> &'static CompiledRuleSet {
    static RULES: OnceLock<CompiledRuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let dirs = ["rules", "crs-942", "crs"].map(|d| format!("{root}/{d}"));
        let outcome = CompiledRuleSet::load_dirs(
            &dirs,
            &CompileOptions {
                paranoia_level: 4,
                ..Default::default()
            },
        );
        assert!(
            outcome.errors.is_empty(),
            "the shipped rule set must load: {:?}",
            outcome.errors
        );
        outcome.ruleset
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(request) = OwnedRequest::parse(data) else {
        return;
    };
    let headers = request.headers();
    let _ = rules().evaluate(&request.as_request(&headers));
});
