//! A provider's profile (untrusted JSON) read through mappings and `ensure_matching` rules: the first line of the
//! input is the mappings object, the second the rules, the rest the profile. Reading must yield a value or none,
//! never panic, whatever the paths (`a.b[3]`, unclosed brackets, huge indexes, multi-byte keys) and the profile.
#![no_main]

use auth::oauth_client::profile;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(3, '\n');
    let (Some(mappings), Some(rules), Some(body)) = (parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    let (Ok(mappings), Ok(rules), Ok(body)) = (
        serde_json::from_str::<Value>(mappings),
        serde_json::from_str::<Value>(rules),
        serde_json::from_str::<Value>(body),
    ) else {
        return;
    };
    for field in ["uid", "email", "name"] {
        let _ = profile::field(&body, &mappings, field);
    }
    let _ = profile::ensure_matching(&body, &mappings, &rules);
    if let Some(path) = mappings.as_str() {
        let _ = profile::lookup(&body, path);
    }
});
