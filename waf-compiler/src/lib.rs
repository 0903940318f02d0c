//! The WAF's rule engine: YAML rules in, a compiled rule set out, and evaluation of requests against it.
pub mod crs;
pub mod detect;
