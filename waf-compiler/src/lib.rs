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
//! The engine by thing. The things both stages use sit at the root: the rule model ([`rule`]), the
//! [`operator`]s (one table, for rules and chain conditions alike), the [`regex_engine`]s, the value
//! [`transform`]s, the libinjection-compatible [`detect`]ors and the [`request`] with its lazily parsed
//! variables. Three stages, one folder each, use them: [`import`] turns OWASP CRS (ModSecurity `SecRule`) files
//! into YAML rules; [`compile`] loads YAML rules and builds what runs (and the prefilter's automata);
//! [`evaluate`] runs one request against it (the prefilter's scan, then the rules) and returns a [`Verdict`].
//! The shared [`CompiledRuleSet`] ([`ruleset`], with its [`artifact`] file) joins the last two. Imports go
//! one way: `import` → `compile` → `operator` → `request`, `detect`, `regex_engine`, `transform` → `rule`;
//! `evaluate` → `compile`; `ruleset` → `evaluate`, `compile`. `compile` never imports `evaluate`. Each
//! folder's module documentation walks through its files in order. Beside them, [`ftw`] runs go-ftw regression
//! tests and [`explain`] shows every decision for one request; both back the `rulec` command.

pub mod compile;
pub mod detect;
pub mod evaluate;
pub mod explain;
pub mod ftw;
pub mod import;
pub mod operator;
pub mod policy;
pub mod regex_engine;
pub mod request;
pub mod rule;
pub mod ruleset;
pub mod transform;

// What the proxy (waf-runtime) needs of the engine, at the root: it reaches into no module.
pub use compile::load::{LoadError, rule_entries};
pub use compile::{CompileOptions, CompiledRule};
pub use evaluate::verdict::{
    DEFAULT_ANOMALY_THRESHOLD, DEFAULT_OUTBOUND_ANOMALY_THRESHOLD, RuleMatch, Verdict,
};
pub use policy::site_settings;
pub use regex_engine::{DEFAULT_DFA_SIZE_LIMIT, EnginePlan};
pub use request::{HttpRequest, HttpResponse, OwnedRequest, OwnedResponse};
pub use rule::{Action, Phase, Rule, Severity};
pub use ruleset::artifact::{self, ArtifactError};
pub use ruleset::{CompiledRuleSet, LoadOutcome, SourceFile, read_dirs};
pub use transform::{UnicodeMap, UnknownCodePage};
