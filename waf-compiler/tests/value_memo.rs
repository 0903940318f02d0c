//! The memo of earlier requests' results (`waf-compiler/src/evaluate/memo.rs`) changes no verdict: every request of the CRS 942
//! regression suite, the default-rules suites and the benign corpus, evaluated twice in a row on one cache (so
//! that the second round is answered from the memo), gets the same matches as without the memo. A rule set
//! never sees another rule set's remembered marks.

mod corpus_support;
mod detect_support;

use corpus_support::repo;
use waf_compiler::SourceFile;
use waf_compiler::{CompileOptions, CompiledRuleSet, OwnedRequest, Verdict};
use waf_compiler::{Scratch, Silent};

fn load_all() -> CompiledRuleSet {
    let dirs = [repo("rules"), repo("crs-942")];
    let outcome = CompiledRuleSet::load_dirs(
        &dirs,
        &CompileOptions {
            paranoia_level: 4,
            ..Default::default()
        },
    );
    assert!(outcome.errors.is_empty(), "{:#?}", outcome.errors);
    outcome.ruleset
}

fn evaluate(rules: &CompiledRuleSet, cache: &mut Scratch, raw: &[u8]) -> Option<Verdict> {
    // A few CRS tests send requests the parser refuses on purpose; they have no verdict to compare.
    let request = OwnedRequest::parse(raw).ok()?;
    let headers = request.headers();
    cache.clear();
    Some(rules.evaluate_with(&request.as_request(&headers), cache, &mut Silent))
}

#[test]
fn verdicts_are_identical_with_and_without_the_memo() {
    let with = load_all();
    let mut without = load_all();
    without.set_value_memo(false);
    let corpus = corpus_support::corpus();
    let (mut remembering, mut fresh) = (Scratch::default(), Scratch::default());
    let mut differ = Vec::new();
    let mut matched = 0;
    for round in 0..2 {
        for (name, raw) in &corpus {
            let (Some(a), Some(b)) = (
                evaluate(&with, &mut remembering, raw),
                evaluate(&without, &mut fresh, raw),
            ) else {
                continue;
            };
            matched += usize::from(!b.matches.is_empty());
            if a != b {
                differ.push(format!(
                    "round {round}, {name}: with memo {a:?}, without {b:?}"
                ));
            }
        }
    }
    assert_eq!(fresh.memo_hits(), 0, "the memo was off");
    assert!(
        remembering.memo_hits() > 10_000,
        "only {} memo hits: the second round was not answered from the memo",
        remembering.memo_hits()
    );
    assert!(matched > 1000, "only {matched} requests matched a rule");
    assert!(
        differ.is_empty(),
        "{} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

fn one_rule(pattern: &str) -> CompiledRuleSet {
    let yaml = format!(
        "rules:\n  - {{id: 1, msg: m, pattern: '{pattern}', variables: [ARGS_GET], action: deny}}\n"
    );
    let source = SourceFile {
        path: "memo.yaml".into(),
        relative: "memo.yaml".into(),
        text: Ok(yaml),
    };
    let outcome = CompiledRuleSet::from_sources(&[source], &CompileOptions::default());
    assert!(outcome.errors.is_empty(), "{:#?}", outcome.errors);
    outcome.ruleset
}

#[test]
fn a_rule_set_never_uses_the_marks_another_one_remembered() {
    // Same groups, same rule index: were `other`'s marks for the value (none) taken for `attack`'s, `attack`
    // would skip its rule and miss.
    let (attack, other) = (one_rule("attack"), one_rule("zzzz"));
    let mut cache = Scratch::default();
    let raw = b"GET /?q=attack HTTP/1.1\r\nHost: x\r\n\r\n";
    for _ in 0..3 {
        let ids = |v: Verdict| v.matches.iter().map(|m| m.rule_id).collect::<Vec<_>>();
        assert_eq!(
            ids(evaluate(&other, &mut cache, raw).unwrap()),
            Vec::<u32>::new()
        );
        // The second time from the memo.
        for _ in 0..2 {
            assert_eq!(ids(evaluate(&attack, &mut cache, raw).unwrap()), [1]);
        }
    }
    assert!(cache.memo_hits() >= 3);
}
