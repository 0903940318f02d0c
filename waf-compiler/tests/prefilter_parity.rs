//! The literal prefilter changes no verdict: every request of the CRS 942 regression suite, the default-rules
//! suites and the benign corpus gets the same matches (rule ids, variables and excerpts) with the prefilter on
//! and off, against the shipped rules plus CRS 942 at paranoia level 4 (every rule active). A deliberately
//! wrong prefilter shows that the comparison catches a difference; the prefilter survives a bincode round trip
//! and refuses inconsistent data.

mod corpus_support;
mod detect_support;

use corpus_support::repo;
use waf_compiler::CompiledRule;
use waf_compiler::Variable;
use waf_compiler::{CompileOptions, CompiledRuleSet, OwnedRequest, Verdict};
use waf_compiler::{Observer, Scratch};
use waf_compiler::{Prefilter, PrefilterData, PrefilterTarget as Target};

/// The shipped rules and CRS 942 at paranoia level 4.
fn load_all() -> CompiledRuleSet {
    load(&["rules", "crs-942"])
}

/// The rule directories `dirs` of the repository at paranoia level 4, every rule loaded.
fn load(dirs: &[&str]) -> CompiledRuleSet {
    let dirs: Vec<_> = dirs.iter().map(|d| repo(d)).collect();
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

fn evaluate(rules: &CompiledRuleSet, raw: &[u8]) -> Option<Verdict> {
    // A few CRS tests send requests the parser refuses on purpose; they have no verdict to compare.
    let request = OwnedRequest::parse(raw).ok()?;
    let headers = request.headers();
    Some(rules.evaluate(&request.as_request(&headers)))
}

/// Names of the requests whose verdicts differ between `with` and `without`, and how many requests matched
/// at least one rule.
/// The requests whose verdicts differ between the two rule sets, and how many matched a rule.
fn differences(
    with: &CompiledRuleSet,
    without: &CompiledRuleSet,
    requests: &[(String, Vec<u8>)],
) -> (Vec<String>, usize) {
    let mut differ = Vec::new();
    let mut matched = 0;
    for (name, raw) in requests {
        let (Some(a), Some(b)) = (evaluate(with, raw), evaluate(without, raw)) else {
            continue;
        };
        matched += usize::from(!b.matches.is_empty());
        if a != b {
            differ.push(format!(
                "{name}: with prefilter {:?}, without {:?}",
                ids(&a),
                ids(&b)
            ));
        }
    }
    (differ, matched)
}

fn ids(verdict: &Verdict) -> Vec<u32> {
    verdict.matches.iter().map(|m| m.rule_id).collect()
}

fn without_prefilter() -> CompiledRuleSet {
    let mut rules = load_all();
    rules.set_prefilter(None).unwrap();
    rules
}

#[test]
fn verdicts_are_identical_with_and_without_the_prefilter() {
    let with = load_all();
    assert!(with.prefilter().is_some(), "the prefilter is on by default");
    let (differ, matched) = differences(&with, &without_prefilter(), &corpus_support::corpus());
    assert!(
        matched > 500,
        "only {matched} requests matched a rule: the corpus is not exercising the rules"
    );
    assert!(
        differ.is_empty(),
        "{} requests differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// The same on the whole CRS (`rules`, `crs-942`, `crs`) at paranoia level 4, over every request of the CRS
/// request suites (`REQUEST-9*`) and the default rules' corpus: the whole CRS has the transform chains,
/// one-byte literals and phrase lists that CRS 942 alone does not.
#[test]
fn verdicts_are_identical_with_and_without_the_prefilter_on_the_whole_crs() {
    let Some(crs_942) = corpus_support::crs_tests_dir() else {
        return;
    };
    let whole_crs = ["rules", "crs-942", "crs"];
    let with = load(&whole_crs);
    let mut without = load(&whole_crs);
    without.set_prefilter(None).unwrap();
    let mut requests = corpus_support::raw_requests(&repo("waf-compiler/tests/default-rules"));
    requests.extend(corpus_support::crs_request_suites(&crs_942));
    assert!(requests.len() > 4000, "{} requests", requests.len());
    let (differ, matched) = differences(&with, &without, &requests);
    assert!(matched > 3000, "only {matched} requests matched a rule");
    assert!(
        differ.is_empty(),
        "{} requests differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

#[test]
fn a_wrong_literal_set_is_caught_by_the_parity_check() {
    let mut wrong = load_all();
    let mut data = wrong.prefilter().unwrap().data().clone();
    // Every literal replaced by one that no request contains: every gated rule is skipped everywhere.
    for group in &mut data.groups {
        for (i, literal) in group.literals.iter_mut().enumerate() {
            *literal = format!("\u{1}never-{i}").into_bytes();
        }
    }
    wrong
        .set_prefilter(Some(Prefilter::try_from(data).unwrap()))
        .unwrap();
    let (differ, _) = differences(&wrong, &without_prefilter(), &corpus_support::corpus());
    assert!(differ.len() > 100, "only {} differences", differ.len());
}

/// Counts rule/value pairs the prefilter skipped and those it let through.
#[derive(Default)]
struct Count {
    skipped: usize,
    inspected: usize,
}

impl Observer for Count {
    fn inspected(&mut self, _: &CompiledRule, _: Variable, _: &[u8], _: &[u8], _: bool) {
        self.inspected += 1;
    }

    fn skipped(&mut self, _: &CompiledRule, _: Variable, _: &[u8]) {
        self.skipped += 1;
    }

    fn skipped_rule(&mut self, _: &CompiledRule) {
        self.skipped += 1;
    }
}

#[test]
fn the_prefilter_skips_most_rules_on_a_benign_request() {
    let rules = load_all();
    let raw = b"GET /catalog/search?q=trail+running+shoes&size=42 HTTP/1.1\r\nHost: shop.example.com\r\n\
                User-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0\r\nCookie: session=9f2c1e7a; lang=en\r\n\r\n";
    let request = OwnedRequest::parse(raw).unwrap();
    let headers = request.headers();
    let mut count = Count::default();
    let verdict = rules.evaluate_with(
        &request.as_request(&headers),
        &mut Scratch::default(),
        &mut count,
    );
    assert!(verdict.matches.is_empty(), "{:?}", ids(&verdict));
    assert!(
        count.skipped > 3 * count.inspected,
        "skipped {}, inspected {}",
        count.skipped,
        count.inspected
    );
}

#[test]
fn the_prefilter_survives_a_bincode_round_trip() {
    let rules = load_all();
    let prefilter = rules.prefilter().unwrap();
    let config = bincode::config::standard();
    let bytes = bincode::serde::encode_to_vec(prefilter, config).unwrap();
    let (decoded, used): (Prefilter, usize) =
        bincode::serde::decode_from_slice(&bytes, config).unwrap();
    assert_eq!(used, bytes.len());
    assert_eq!(decoded.data(), prefilter.data());
    let mut restored = load_all();
    restored.set_prefilter(Some(decoded)).unwrap();
    let raw = b"GET /item?id=1%27%20UNION%20SELECT%20password%20FROM%20users-- HTTP/1.1\r\nHost: x\r\n\r\n";
    let verdict = evaluate(&restored, raw).unwrap();
    assert!(!verdict.matches.is_empty());
    assert_eq!(Some(verdict), evaluate(&rules, raw));
}

#[test]
fn inconsistent_prefilter_data_is_refused() {
    let rules = load_all();
    let good = rules.prefilter().unwrap().data().clone();
    let broken = |edit: &dyn Fn(&mut PrefilterData)| {
        let mut data = good.clone();
        edit(&mut data);
        Prefilter::try_from(data).unwrap_err().to_string()
    };
    let rule_count = good.rule_count;
    assert!(
        broken(&|d| d.groups[0].targets[0].push(Target {
            rule: rule_count,
            chain: 0
        }))
        .contains("out of range")
    );
    assert!(
        broken(&|d| d.groups[0].targets[0].push(Target {
            rule: 0,
            chain: u32::MAX
        }))
        .contains("out of range")
    );
    assert!(
        broken(&|d| {
            d.groups[0].targets.pop();
        })
        .contains("target lists")
    );
    assert!(broken(&|d| d.groups[0].literals[0].clear()).contains("empty"));
    assert!(
        broken(&|d| {
            let copy = d.groups[0].clone();
            d.groups.push(copy);
        })
        .contains("two groups")
    );

    // Consistent, but built for another rule set.
    let mut other = good.clone();
    other.rule_count -= 1;
    other.groups.clear();
    let mut target = load_all();
    let err = target
        .set_prefilter(Some(Prefilter::try_from(other).unwrap()))
        .unwrap_err();
    assert!(err.to_string().contains("built for"), "{err}");
}

/// The response phase too, where a body of hundreds of kilobytes is one value, walked as pieces side by side
/// with its own automaton: a leak found at any place of a page, across the pieces' boundaries included, gives the
/// same verdict with the prefilter and without it (whole CRS at paranoia level 4).
#[test]
fn response_verdicts_are_identical_with_and_without_the_prefilter_across_pieces() {
    use waf_compiler::{HttpRequest, HttpResponse};
    let whole_crs = ["rules", "crs-942", "crs"];
    let with = load(&whole_crs);
    let mut without = load(&whole_crs);
    without.set_prefilter(None).unwrap();
    let request = HttpRequest {
        method: "GET",
        uri: "/",
        version: "HTTP/1.1",
        headers: &[("host", b"bakery.test")],
        body: b"",
    };
    let para: &[u8] =
        b"<p>Fresh bread, croissants and seasonal tarts are made every morning.</p>\n";
    let page: Vec<u8> = para.iter().copied().cycle().take(9000).collect();
    // Leaks of the SQL, Java, PHP and IIS files, and a web shell's title with the spaces its rule removes.
    // Each on lines of its own: some patterns want a word boundary before them.
    let leaks: [&[u8]; 5] = [
        b"\nORA-00933: SQL command not properly ended\n",
        b"\njava.sql.SQLException: Invalid column index\n",
        b"\n<b>Warning</b>:  include(config.php): failed to open stream\n",
        b"\nMicrosoft OLE DB Provider for ODBC Drivers error '80004005'\n",
        b"\n< title > punkholic shell </title>\n",
    ];
    let headers: &[(&str, &[u8])] = &[("content-type", b"text/html")];
    let mut checked = 0;
    for leak in leaks {
        // At the start, the end, and at every offset around a quarter of the page (where the pieces meet).
        let quarters = [page.len() / 4, page.len() / 2, 3 * page.len() / 4];
        let offsets = [0, page.len() - leak.len()].into_iter().chain(
            quarters
                .into_iter()
                .flat_map(|q| q.saturating_sub(leak.len() + 2)..q + 2),
        );
        for at in offsets {
            let mut body = page.clone();
            body[at..at + leak.len()].copy_from_slice(leak);
            let response = HttpResponse {
                status: 200,
                version: "HTTP/1.1",
                headers,
                body: Some(&body),
            };
            let a = with.evaluate_response(&request, &response);
            let b = without.evaluate_response(&request, &response);
            assert!(
                !b.matches.is_empty(),
                "{} at {at}: no rule matched",
                String::from_utf8_lossy(leak)
            );
            assert_eq!(
                a,
                b,
                "{} at {at}: with prefilter {:?}, without {:?}",
                String::from_utf8_lossy(leak),
                ids(&a),
                ids(&b)
            );
            checked += 1;
        }
    }
    assert!(checked > 250, "{checked} bodies");
}
