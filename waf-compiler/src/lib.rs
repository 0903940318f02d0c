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
//! The request path, module by module: [`rule`] (the YAML model, serde types shared with the CRS converter) →
//! [`load`] (scan, parse, errors) → [`compile`] (regexes with their [`regex_engine`], transform chains) →
//! [`ruleset`] (the shared [`CompiledRuleSet`], also written to and read from an [`artifact`] file); per request, [`request`] → [`collection`] (lazily parsed variables, with [`body`]
//! parsers) → [`transform`] → [`operator`] → [`evaluate`] → [`verdict`]. [`ftw`] runs go-ftw regression tests
//! and [`explain`] shows every decision for one request; both back the `rulec` command, as does [`crs`], the
//! converter of OWASP CRS rule files.

pub mod artifact;
pub mod body;
pub mod collection;
pub mod compile;
pub mod crs;
pub mod detect;
pub mod evaluate;
pub mod explain;
pub mod ftw;
pub mod load;
pub mod memo;
pub mod operator;
pub mod prefilter;
pub mod regex_engine;
pub mod request;
pub mod rule;
pub mod ruleset;
pub mod transform;
pub mod verdict;

pub use artifact::ArtifactError;
pub use compile::CompileOptions;
pub use load::LoadError;
pub use regex_engine::EnginePlan;
pub use request::{HttpRequest, OwnedRequest};
pub use rule::{Action, Rule, Severity};
pub use ruleset::{CompiledRuleSet, LoadOutcome};
pub use verdict::{RuleMatch, Verdict};
