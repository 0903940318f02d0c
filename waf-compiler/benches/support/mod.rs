//! What the criterion benches share.

use std::path::PathBuf;
use waf_compiler::{CompileOptions, CompiledRuleSet};

/// The proxy's default rule set (`rules`, `crs-942`, the whole CRS) at paranoia level 1, without the memo of
/// earlier requests' results, which would answer every iteration after the first from memory.
pub fn default_rule_set() -> CompiledRuleSet {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let outcome = CompiledRuleSet::load_dirs(
        &["rules", "crs-942", "crs"].map(|d| root.join(d)),
        &CompileOptions::default(),
    );
    assert!(
        outcome.errors.is_empty(),
        "rule load errors: {:?}",
        outcome.errors
    );
    let mut ruleset = outcome.ruleset;
    ruleset.set_value_memo(false);
    ruleset
}
