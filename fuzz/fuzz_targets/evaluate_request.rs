//! Arbitrary bytes as a raw HTTP request, evaluated against the shipped rules at paranoia level 4: the request
//! path must never panic, whatever the client sends (bodies of every content type, broken encodings).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use waf_compiler::{CompileOptions, CompiledRuleSet, OwnedRequest};

fn rules() -> &'static CompiledRuleSet {
    static RULES: OnceLock<CompiledRuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../rules");
        let outcome = CompiledRuleSet::load_dirs(
            &[dir],
            &CompileOptions {
                paranoia_level: 4,
                ..Default::default()
            },
        );
        assert!(
            outcome.errors.is_empty(),
            "shipped rules must load: {:?}",
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
