//! The go-ftw runner reads every CRS 942 regression test and builds each request the way go-ftw sends it.
//! (Pass rates against the converted rules are checked where those rules live.)

mod detect_support;

use waf_compiler::OwnedRequest;
use waf_compiler::ftw;

#[test]
fn every_crs_942_test_reads_and_builds_a_request() {
    let dir =
        detect_support::third_party_dir().join("crs/tests/REQUEST-942-APPLICATION-ATTACK-SQLI");
    if !dir.is_dir() {
        detect_support::skip(&format!(
            "CRS regression tests not found at {}",
            dir.display()
        ));
        return;
    }
    let (files, errors) = waf_compiler::scan_dir(&dir);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(files.len(), 60);
    let mut tests = 0;
    for path in &files {
        let file = ftw::read_file(path).unwrap_or_else(|e| panic!("{e}"));
        for test in &file.tests {
            tests += 1;
            for stage in &test.stages {
                let raw = ftw::raw_request(&stage.input).unwrap();
                let request =
                    OwnedRequest::parse(&raw).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert!(!request.method.is_empty());
                let expected = &stage.output.log;
                assert!(!expected.expect_ids.is_empty() || !expected.no_expect_ids.is_empty());
            }
        }
    }
    assert_eq!(tests, 1030);
    // go-ftw's encoding of `data`, on the first test of the suite.
    let first = ftw::read_file(&dir.join("942100.yaml")).unwrap();
    let raw = ftw::raw_request(&first.tests[0].stages[0].input).unwrap();
    let request = OwnedRequest::parse(&raw).unwrap();
    assert_eq!(request.body, b"var=1234+OR+1%3D1");
    assert!(request.headers.contains(&(
        "Content-Type".into(),
        b"application/x-www-form-urlencoded".to_vec()
    )));
}
