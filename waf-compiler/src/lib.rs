//! The WAF's rule engine: YAML rules in, a compiled rule set out, and evaluation of requests against it.
//!
//! The proxy needs three calls:
//!
//! ```no_run
//! use waf_compiler::{CompileOptions, CompiledRuleSet, HttpRequest};
//!
//! let outcome = CompiledRuleSet::load_dirs(&["rules"], &CompileOptions::default());
//! for error in &outcome.errors {
//!     eprintln!("skipped: {error}"); // names the file, the rule id and the field
//! }
//! let rules = std::sync::Arc::new(outcome.ruleset);
//! let headers: &[(&str, &[u8])] = &[("Host", b"example.com")];
//! let request = HttpRequest { method: "GET", uri: "/?id=1' or '1'='1", version: "HTTP/1.1", headers, body: b"" };
//! if let Some(hit) = rules.evaluate(&request).blocking() {
//!     println!("403: rule {} ({})", hit.rule_id, hit.msg);
//! }
//! ```
//!
//! The engine by thing. The things both stages use sit at the root: the rule model (`rule`), the
//! `operator`s (one table, for rules and chain conditions alike), the `regex_engine`s, the value
//! `transform`s, the libinjection-compatible [`detect`]ors and the `request` with its lazily parsed
//! variables. Three stages, one folder each, use them: [`import`] turns OWASP CRS (ModSecurity `SecRule`) files
//! into YAML rules; `compile` loads YAML rules and builds what runs (and the prefilter's automata);
//! `evaluate` runs one request against it (the prefilter's scan, then the rules) and returns a [`Verdict`].
//! The shared [`CompiledRuleSet`] (`ruleset`, with its [`artifact`] file) joins the last two. Imports go
//! one way: `import` → `compile` → `operator` → `request`, `detect`, `regex_engine`, `transform` → `rule`
//! → `operator::kind` (the operators' names, generated from the operator list, importing nothing of the crate);
//! `evaluate` → `compile`; `ruleset` → `evaluate`, `compile`. `compile` never imports `evaluate`. Each
//! folder's module documentation walks through its files in order. Beside them, [`ftw`] runs go-ftw regression
//! tests and [`explain`] shows every decision for one request; both back the `rulec` command.

// The modules are private; what the proxy, `rulec`, the tests and the benches use is here, named once. The
// detectors, the CRS converter, the go-ftw runner and `explain` are libraries of their own, kept as modules.
mod compile;
pub mod detect;
mod evaluate;
pub mod explain;
pub mod ftw;
pub mod import;
mod operator;
mod policy;
mod regex_engine;
mod request;
mod rule;
mod ruleset;
mod transform;

// The rule model: the contract of docs/rule-format.md.
pub use rule::{
    Action, ChainCondition, ChainTarget, Confirm, OperatorKind, Phase, Rule, SettingCondition,
    Severity, Transform, UnknownChainTarget, UnknownVariable, Variable, VariableSpec,
};
// Loading and compiling rules.
pub use compile::load::{LoadError, parse_rules, rule_entries, scan_dir};
pub use compile::prefilter::{Prefilter, PrefilterData, Target as PrefilterTarget};
pub use compile::{Chains, CompileOptions, CompiledRule};
pub use regex_engine::{DEFAULT_DFA_SIZE_LIMIT, EngineKind, EnginePlan, pcre_byte_escapes};
pub use ruleset::artifact::{self, ArtifactError};
pub use ruleset::{CompiledRuleSet, LoadOutcome, SourceError, SourceFile, read_dirs};
pub use transform::unicode_map::DEFAULT_CODE_PAGE;
pub use transform::{
    UnicodeMap, UnknownCodePage, apply as apply_transform, apply_chain as apply_transforms,
};
// Evaluating a request.
pub use evaluate::exclusion::{Exclusions, TargetExclusion};
pub use evaluate::verdict::{
    DEFAULT_ANOMALY_THRESHOLD, DEFAULT_OUTBOUND_ANOMALY_THRESHOLD, RuleMatch, Verdict,
};
pub use evaluate::{Observer, Scratch, Silent};
pub use operator::{Condition, Found, Matcher};
pub use policy::{ALLOWED_METHODS_SETTING, Profile, site_settings};
pub use request::body::parse_body;
pub use request::coding::Coding;
pub use request::collection::RequestView;
pub use request::{
    DEFAULT_BODY_LIMIT, HttpRequest, HttpResponse, OwnedRequest, OwnedResponse, ParseError,
    split_requests,
};
