//! What the compiled artifact buys (issue 3, "artifact load time vs compile-from-YAML time"), measured in one run:
//!
//! - `load/*`: building the shipped `rules/` + `crs-942/` rule set at paranoia level 4 (and 1) from the YAML
//!   directories (the meta engine for every regex, as the proxy's YAML reload does), against loading the
//!   artifact file `rulec compile` writes for it (dense DFAs within the default budget) and an all-lazy artifact.
//! - `first_request/*`: load, then evaluate one benign browser GET: the latency of the first request after a
//!   (re)load, which includes whatever the engines build on first use (the lazy DFAs' caches).
//! - `evaluate/*`: a benign browser GET and a SQL injection against the dense-DFA set and the all-lazy set, once
//!   warm (engines built, memo of earlier requests off): what the ahead-of-time DFAs change on the request path.
//! - `load_whole_crs/*`: the proxy's default rule set (`rules/`, `crs-942/`, `crs/`) at its default paranoia
//!   level 1, from YAML and from its dense artifact (whose size is printed).
//!
//! The artifacts are written to a temporary directory before measuring and checked to load the same rules.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use waf_compiler::DEFAULT_DFA_SIZE_LIMIT;
use waf_compiler::{CompileOptions, CompiledRuleSet, EnginePlan, HttpRequest, artifact};

/// The shipped rules and CRS 942, and with `whole_crs` the rest of the CRS too.
fn rule_dirs(whole_crs: bool) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let dirs: &[&str] = match whole_crs {
        true => &["rules", "crs-942", "crs"],
        false => &["rules", "crs-942"],
    };
    dirs.iter().map(|d| root.join(d)).collect()
}

fn from_yaml(paranoia_level: u8, plan: EnginePlan) -> CompiledRuleSet {
    load(false, paranoia_level, plan)
}

fn load(whole_crs: bool, paranoia_level: u8, plan: EnginePlan) -> CompiledRuleSet {
    let outcome = CompiledRuleSet::load_dirs_with(
        &rule_dirs(whole_crs),
        &CompileOptions {
            paranoia_level,
            ..Default::default()
        },
        plan,
    );
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    outcome.ruleset
}

fn write_artifact(dir: &Path, name: &str, rules: &CompiledRuleSet) -> PathBuf {
    let path = dir.join(name);
    artifact::write_file(&path, &rules.to_artifact().unwrap()).unwrap();
    let loaded = CompiledRuleSet::from_artifact_file(&path).unwrap();
    assert_eq!(loaded.source_hash(), rules.source_hash());
    assert_eq!(loaded.rule_count(), rules.rule_count());
    path
}

const BENIGN_URI: &str = "/catalog/search?q=running+shoes&size=42&sort=price_asc&page=2";
const ATTACK_URI: &str = "/catalog/search?q=1%27%20UNION%20SELECT%20password%20FROM%20users--";

fn with_request<R>(uri: &str, f: impl FnOnce(&HttpRequest<'_>) -> R) -> R {
    let headers: &[(&str, &[u8])] = &[
        ("Host", b"shop.example.com"),
        (
            "User-Agent",
            b"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
        ),
        (
            "Accept",
            b"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
        ),
        ("Accept-Language", b"en-GB,en;q=0.9,fr;q=0.8"),
        ("Accept-Encoding", b"gzip, deflate, br"),
        ("Referer", b"https://shop.example.com/catalog/shoes"),
        (
            "Cookie",
            b"session=9f2c1e7a4b8d4f0e8a6b2c3d5e7f9a1b; theme=dark; lang=en; _ga=GA1.2.1234567890.1700000000",
        ),
    ];
    f(&HttpRequest {
        method: "GET",
        uri,
        version: "HTTP/1.1",
        headers,
        body: b"",
    })
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let dense_plan = EnginePlan::Dense {
        size_limit: DEFAULT_DFA_SIZE_LIMIT,
    };
    let dense4 = from_yaml(4, dense_plan);
    let lazy4 = from_yaml(4, EnginePlan::Lazy);
    let dense4_file = write_artifact(dir.path(), "pl4.wafc", &dense4);
    let lazy4_file = write_artifact(dir.path(), "pl4-lazy.wafc", &lazy4);
    let dense1_file = write_artifact(dir.path(), "pl1.wafc", &from_yaml(1, dense_plan));
    let whole_file = write_artifact(dir.path(), "whole-pl1.wafc", &load(true, 1, dense_plan));
    for (name, path) in [
        ("pl4 dense", &dense4_file),
        ("pl4 lazy", &lazy4_file),
        ("pl1 dense", &dense1_file),
        ("whole CRS pl1 dense", &whole_file),
    ] {
        eprintln!(
            "artifact {name}: {} bytes",
            std::fs::metadata(path).unwrap().len()
        );
    }
    // The same verdicts from both engines before anything is timed.
    for uri in [BENIGN_URI, ATTACK_URI] {
        let ids = |rules: &CompiledRuleSet| {
            with_request(uri, |r| {
                rules
                    .evaluate(r)
                    .matches
                    .iter()
                    .map(|m| m.rule_id)
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(ids(&dense4), ids(&lazy4), "{uri}");
    }

    let mut g = c.benchmark_group("load");
    g.sample_size(10);
    g.bench_function("pl4_yaml", |b| {
        b.iter(|| from_yaml(black_box(4), EnginePlan::Lazy))
    });
    g.bench_function("pl4_artifact_dense", |b| {
        b.iter(|| CompiledRuleSet::from_artifact_file(black_box(&dense4_file)).unwrap())
    });
    g.bench_function("pl4_artifact_lazy", |b| {
        b.iter(|| CompiledRuleSet::from_artifact_file(black_box(&lazy4_file)).unwrap())
    });
    g.bench_function("pl1_yaml", |b| {
        b.iter(|| from_yaml(black_box(1), EnginePlan::Lazy))
    });
    g.bench_function("pl1_artifact_dense", |b| {
        b.iter(|| CompiledRuleSet::from_artifact_file(black_box(&dense1_file)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("load_whole_crs");
    g.sample_size(10);
    g.bench_function("pl1_yaml", |b| {
        b.iter(|| load(true, black_box(1), EnginePlan::Lazy))
    });
    g.bench_function("pl1_artifact_dense", |b| {
        b.iter(|| CompiledRuleSet::from_artifact_file(black_box(&whole_file)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("first_request");
    g.sample_size(10);
    let first = |rules: CompiledRuleSet| with_request(BENIGN_URI, |r| rules.evaluate(r)).matches;
    g.bench_function("pl4_yaml", |b| {
        b.iter(|| first(from_yaml(4, EnginePlan::Lazy)))
    });
    g.bench_function("pl4_artifact_dense", |b| {
        b.iter(|| first(CompiledRuleSet::from_artifact_file(&dense4_file).unwrap()))
    });
    g.finish();

    // Every value of the repeated request afresh: the memo of earlier requests would answer from memory.
    let (mut dense4, mut lazy4) = (dense4, lazy4);
    dense4.set_value_memo(false);
    lazy4.set_value_memo(false);
    let mut g = c.benchmark_group("evaluate");
    for (name, uri) in [("benign_get", BENIGN_URI), ("sqli_get", ATTACK_URI)] {
        g.bench_function(format!("{name}/pl4_dense"), |b| {
            b.iter(|| with_request(black_box(uri), |r| dense4.evaluate(r)))
        });
        g.bench_function(format!("{name}/pl4_lazy"), |b| {
            b.iter(|| with_request(black_box(uri), |r| lazy4.evaluate(r)))
        });
    }
    g.finish();
}

criterion_group! {
    name = artifact_load;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(artifact_load);
