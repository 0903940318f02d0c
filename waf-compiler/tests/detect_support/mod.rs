//! Shared by the `detect_*` tests: where the upstream libinjection material is, and how to
//! reach the C libinjection oracle.

#![allow(dead_code)] // each test binary uses part of this module

use std::path::PathBuf;
use std::process::Command;

/// The upstream material copied into the repository with its licences (`third_party/`: the CRS, libinjection's
/// test corpus), or `$WAF_THIRD_PARTY_DIR`.
pub fn third_party_dir() -> PathBuf {
    match std::env::var_os("WAF_THIRD_PARTY_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../third_party"),
    }
}

/// The upstream libinjection material (tests, data, fingerprints).
pub fn libinjection_dir() -> PathBuf {
    third_party_dir().join("libinjection")
}

/// Whether a missing external program must fail the test (CI) rather than skip it.
pub fn external_required() -> bool {
    std::env::var("REQUIRE_EXTERNAL_TESTS").as_deref() == Ok("1")
}

/// Reports a missing prerequisite: a panic under `REQUIRE_EXTERNAL_TESTS=1`, else a loud skip.
pub fn skip(why: &str) {
    assert!(
        !external_required(),
        "required external test prerequisite missing: {why}"
    );
    eprintln!("SKIPPED: {why}");
}

/// A Python interpreter (`$TEST_PYTHON`) that can import the C libinjection binding, or `None`
/// after reporting why not.
pub fn oracle_python() -> Option<PathBuf> {
    let Some(python) = std::env::var_os("TEST_PYTHON") else {
        skip("TEST_PYTHON is not set (a venv with libinjection-python, see .ci/install)");
        return None;
    };
    let works = Command::new(&python)
        .args(["-c", "import libinjection"])
        .status()
        .is_ok_and(|s| s.success());
    if !works {
        skip(&format!(
            "{python:?} cannot import libinjection (pip install libinjection-python)"
        ));
        return None;
    }
    Some(PathBuf::from(python))
}

/// The oracle script beside the tests.
pub fn oracle_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/libinjection_oracle.py")
}
