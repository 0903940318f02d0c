//! libinjection-compatible detectors for the `detector_sqli` and `detector_xss` operators.
//!
//! Interface only for now: the implementation lands with the detector work.

pub mod sqli;
pub mod xss;
