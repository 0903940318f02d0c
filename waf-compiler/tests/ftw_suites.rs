//! go-ftw suites of the shipped rules. The CRS 942 regression suite against `crs-942/`, with the bars of the
//! issue: at least 99% of the tests pass at paranoia level 4 (as the CRS runs them), every
//! false-positive check (`no_expect_ids`) passes, and the level-1 rules pass their own tests at
//! level 1, the level production runs. Also: the default rules of `rules/` block what their tests
//! say and nothing of the benign corpus. Failures print the test names and why.

mod corpus_support;
mod detect_support;

use corpus_support::{crs_tests_dir, repo, test_files};
use std::path::PathBuf;
use waf_compiler::ftw::{self, TestFile};
use waf_compiler::{CompileOptions, CompiledRuleSet, OwnedRequest};

fn load(dirs: &[&str], paranoia_level: u8) -> CompiledRuleSet {
    let paths: Vec<PathBuf> = dirs.iter().map(|d| repo(d)).collect();
    let outcome = CompiledRuleSet::load_dirs(
        &paths,
        &CompileOptions {
            paranoia_level,
            ..Default::default()
        },
    );
    assert!(outcome.errors.is_empty(), "{dirs:?}: {:#?}", outcome.errors);
    outcome.ruleset
}

/// Runs the files; returns (passed, failures as "name: why", failed false-positive checks).
fn run(rules: &CompiledRuleSet, files: &[(String, TestFile)]) -> (usize, Vec<String>, Vec<String>) {
    let (mut passed, mut failures, mut false_positives) = (0, Vec::new(), Vec::new());
    for (label, file) in files {
        let outcomes = ftw::run_file(rules, label, file);
        assert_eq!(outcomes.len(), file.tests.len());
        for (test, outcome) in file.tests.iter().zip(outcomes) {
            let Some(why) = outcome.failure else {
                passed += 1;
                continue;
            };
            let line = format!("{}: {why}", outcome.name);
            if test
                .stages
                .iter()
                .any(|s| !s.output.log.no_expect_ids.is_empty())
            {
                false_positives.push(line.clone());
            }
            failures.push(line);
        }
    }
    (passed, failures, false_positives)
}

fn assert_rate(what: &str, passed: usize, failures: &[String], min_percent: usize) {
    let total = passed + failures.len();
    eprintln!("{what}: {passed} passed, {} failed", failures.len());
    assert!(total > 0, "{what}: no tests ran");
    assert!(
        passed * 100 >= total * min_percent,
        "{what}: {passed}/{total} passed, below {min_percent}%:\n{}",
        failures.join("\n")
    );
}

#[test]
fn crs_942_at_paranoia_4_passes_99_percent_and_every_false_positive_check() {
    let Some(dir) = crs_tests_dir() else { return };
    let files = test_files(&dir);
    let (passed, failures, false_positives) = run(&load(&["crs-942"], 4), &files);
    assert_eq!(
        passed + failures.len(),
        1030,
        "the CRS 942 suite has 1,030 tests"
    );
    assert!(
        false_positives.is_empty(),
        "false-positive checks failed:\n{}",
        false_positives.join("\n")
    );
    assert_rate("paranoia 4", passed, &failures, 99);
}

#[test]
fn crs_942_level_1_rules_pass_their_tests_at_paranoia_1() {
    let Some(dir) = crs_tests_dir() else { return };
    let level_1 = load(&["crs-942"], 1);
    let ids: Vec<u32> = level_1
        .rules()
        .filter(|r| r.rule.paranoia_level == 1)
        .map(|r| r.rule.id)
        .collect();
    assert_eq!(ids.len(), 20, "CRS 942 has 20 level-1 rules");
    let files: Vec<_> = test_files(&dir)
        .into_iter()
        .filter(|(_, f)| f.rule_id.is_some_and(|id| ids.contains(&id)))
        .collect();
    let (passed, failures, false_positives) = run(&level_1, &files);
    assert!(false_positives.is_empty(), "{false_positives:#?}");
    assert_rate("paranoia 1, level-1 tests", passed, &failures, 99);
}

#[test]
fn default_rules_block_their_attacks_and_no_benign_request() {
    let files = test_files(&repo("waf-compiler/tests/default-rules"));
    assert!(files.iter().any(|(label, _)| label == "benign"));
    let (passed, failures, _) = run(&load(&["rules"], 1), &files);
    assert!(passed > 40);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What production runs by default (the shipped rules and CRS 942 at paranoia level 1) reports
/// nothing at all, not even a `log` match, on the benign corpus.
#[test]
fn benign_corpus_passes_the_default_production_rule_set_untouched() {
    let rules = load(&["rules", "crs-942"], 1);
    let path = repo("waf-compiler/tests/default-rules/benign.yaml");
    let file = ftw::read_file(&path).unwrap();
    assert!(file.tests.len() >= 15);
    for test in &file.tests {
        for stage in &test.stages {
            let raw = ftw::raw_request(&stage.input).unwrap();
            let request = OwnedRequest::parse(&raw).unwrap();
            let headers = request.headers();
            let verdict = rules.evaluate(&request.as_request(&headers));
            let hits: Vec<_> = verdict
                .matches
                .iter()
                .map(|m| format!("{} at {} {:?}", m.rule_id, m.variable, m.value_excerpt))
                .collect();
            assert!(
                hits.is_empty(),
                "benign test {} ({:?}) matched: {hits:?}",
                test.test_id,
                test.desc
            );
        }
    }
}
