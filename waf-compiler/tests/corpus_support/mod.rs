//! Shared by the tests that run the go-ftw suites or every test request we have: the repository's paths, the
//! test files of a directory, and the corpus of raw requests (the default rules' suites with the benign corpus,
//! plus the CRS 942 regression suite from `third_party/`). Each test crate declares `mod detect_support;`
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
    let dir =
        detect_support::third_party_dir().join("crs/tests/REQUEST-942-APPLICATION-ATTACK-SQLI");
    if dir.is_dir() {
        Some(dir)
    } else {
        detect_support::skip(&format!(
            "no CRS tests at {} (set WAF_THIRD_PARTY_DIR)",
            dir.display()
        ));
        None
    }
}

/// The entries of `dir` that `keep` accepts, sorted.
fn sorted_entries(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| keep(p))
        .collect();
    paths.sort();
    paths
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    sorted_entries(dir, |p| p.extension().is_some_and(|e| e == "yaml"))
}

/// Every `.yaml` go-ftw file in `dir`, sorted, labelled by its file stem.
pub fn test_files(dir: &Path) -> Vec<(String, TestFile)> {
    yaml_files(dir)
        .iter()
        .map(|p| {
            let label = p.file_stem().unwrap().to_string_lossy().into_owned();
            (label, ftw::read_file(p).unwrap())
        })
        .collect()
}

/// The raw request of every stage of every test in `files`, named `<file>-<test id>/<stage>`.
fn stage_requests<'f>(
    files: impl IntoIterator<Item = (String, &'f TestFile)>,
    requests: &mut Vec<(String, Vec<u8>)>,
    strict: bool,
) {
    for (label, file) in files {
        for test in &file.tests {
            for (n, stage) in test.stages.iter().enumerate() {
                match ftw::raw_request(&stage.input) {
                    Ok(raw) => requests.push((format!("{label}-{}/{n}", test.test_id), raw)),
                    Err(e) => assert!(!strict, "{label}-{}/{n}: {e}", test.test_id),
                }
            }
        }
    }
}

/// The raw request of every stage of every test in `dir`, named `<file>-<test id>/<stage>`.
pub fn raw_requests(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let files = test_files(dir);
    let mut requests = Vec::new();
    stage_requests(
        files.iter().map(|(l, f)| (l.clone(), f)),
        &mut requests,
        true,
    );
    requests
}

/// The raw requests of every CRS request-rule suite (`REQUEST-9*` beside `crs_942`, the 942 suite's directory).
/// Files and stages the suite reader cannot turn into a request are left out, as `rulec test` reports them apart.
pub fn crs_request_suites(crs_942: &Path) -> Vec<(String, Vec<u8>)> {
    let suites = sorted_entries(crs_942.parent().unwrap(), |p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("REQUEST-9"))
    });
    let mut requests = Vec::new();
    for dir in suites {
        let files: Vec<(String, TestFile)> = yaml_files(&dir)
            .iter()
            .filter_map(|p| {
                let label = p.file_stem()?.to_string_lossy().into_owned();
                Some((label, ftw::read_file(p).ok()?))
            })
            .collect();
        stage_requests(
            files.iter().map(|(l, f)| (l.clone(), f)),
            &mut requests,
            false,
        );
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
