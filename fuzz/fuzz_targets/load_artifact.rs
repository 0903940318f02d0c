//! Arbitrary bytes as an artifact payload, sealed with a valid preamble (magic, version, length, checksum) so the
//! fuzzer reaches the payload decoder, the DFA validation and the rule checks instead of stopping at the checksum.
//! Loading must refuse or load, never panic; a set that loads must evaluate a request without panicking.
//! Its committed seeds are real payloads (`tail -c +53 x.wafc`): the shipped rules compiled with lazy DFAs
//! (`rulec compile rules --dfa-size-limit 0`) and two protocol rules with dense DFAs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use waf_compiler::{CompiledRuleSet, OwnedRequest, artifact};

fuzz_target!(|data: &[u8]| {
    let Ok(rules) = CompiledRuleSet::from_artifact(&artifact::seal(data)) else {
        return;
    };
    let request = OwnedRequest::parse(
        b"GET /?q=1%27%20or%201=1&x=%3Cscript%3E HTTP/1.1\r\nHost: a\r\nCookie: a=b\r\n\r\n",
    )
    .expect("a valid request");
    let headers = request.headers();
    let _ = rules.evaluate(&request.as_request(&headers));
});
