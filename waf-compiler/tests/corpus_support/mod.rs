//! Shared by the tests that run the go-ftw suites or every test request we have: the repository's paths, the
//! test files of a directory, and the corpus of raw requests (the default rules' suites with the benign corpus,
//! plus the CRS 942 regression suite from the shared directory). Each test crate declares `mod detect_support;`
//! beside `mod corpus_support;`.

#![allow(dead_code)] // each test binary uses part of this module

use crate::detect_support;
use std::path::{Path, PathBuf};
use waf_compiler::ftw::{self, TestFile};

/// A path inside the repository.
pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// The CRS 942 tests, or `None` after a loud skip (a failure under REQUIRE_EXTERNAL_TESTS=1).
pub fn crs_tests_dir() -> Option<PathBuf> {
    let dir = detect_support::shared_dir().join("crs/tests/REQUEST-942-APPLICATION-ATTACK-SQLI");
    if dir.is_dir() {
        Some(dir)
    } else {
        detect_support::skip(&format!(
            "no CRS tests at {} (set WAF_SHARED_DIR)",
            dir.display()
        ));
        None
    }
}

/// Every `.yaml` go-ftw file in `dir`, sorted, labelled by its file stem.
pub fn test_files(dir: &Path) -> Vec<(String, TestFile)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let label = p.file_stem().unwrap().to_string_lossy().into_owned();
            (label, ftw::read_file(p).unwrap())
        })
        .collect()
}

/// The raw request of every stage of every test in `dir`, named `<file>-<test id>/<stage>`.
pub fn raw_requests(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut requests = Vec::new();
    for (label, file) in test_files(dir) {
        for test in &file.tests {
            for (n, stage) in test.stages.iter().enumerate() {
                let raw = ftw::raw_request(&stage.input).unwrap();
                requests.push((format!("{label}-{}/{n}", test.test_id), raw));
            }
        }
    }
    requests
}

/// The default rules' suites with the benign corpus, and the CRS 942 suite (after a loud skip when absent).
pub fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut requests = raw_requests(&repo("waf-compiler/tests/default-rules"));
    if let Some(crs) = crs_tests_dir() {
        let crs_requests = raw_requests(&crs);
        assert!(
            crs_requests.len() >= 1030,
            "{} CRS requests, the suite has 1,030 tests",
            crs_requests.len()
        );
        requests.extend(crs_requests);
    }
    requests
}
