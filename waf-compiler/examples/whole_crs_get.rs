//! Evaluates the `whole_crs_pl1` benchmark's benign browser GET (`benches/evaluate.rs`) N times with the memo
//! off, for counting instructions under callgrind, which a shared machine's load does not move:
//!
//! ```text
//! cargo build --release -p waf-compiler --example whole_crs_get
//! valgrind --tool=callgrind --dump-instr=no target/release/examples/whole_crs_get 200
//! ```
//!
//! Arguments: the number of evaluations (default 200), then `stats` to print, per rule, how many values its
//! operator ran on in one evaluation. Rule set: `rules`, `crs-942`, `crs` at paranoia level 1, as the proxy's
//! default (`RULES=rules,crs-942 PARANOIA=4` for the other benches' set). To count the evaluations alone, add
//! `--toggle-collect='waf_compiler::ruleset::CompiledRuleSet::evaluate'` and subtract a run of one
//! evaluation from a run of 201 (the first evaluation also builds lazy tables).

use std::collections::BTreeMap;
use std::path::PathBuf;
use waf_compiler::CompiledRule;
use waf_compiler::Observer;
use waf_compiler::Variable;
use waf_compiler::{CompileOptions, CompiledRuleSet, HttpRequest};

#[derive(Default)]
struct Count {
    runs: BTreeMap<u32, usize>,
    values: BTreeMap<(u32, String), usize>,
}

impl Observer for Count {
    fn inspected(
        &mut self,
        rule: &CompiledRule,
        variable: Variable,
        key: &[u8],
        _value: &[u8],
        _matched: bool,
    ) {
        *self.runs.entry(rule.rule.id).or_default() += 1;
        let label = format!("{}:{}", variable.name(), String::from_utf8_lossy(key));
        *self.values.entry((rule.rule.id, label)).or_default() += 1;
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(200, |a| a.parse().expect("a number"));
    let stats = args.next().is_some_and(|a| a == "stats");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    // `RULES=rules,crs-942 PARANOIA=4` for the `evaluation` group's rule set instead.
    let dirs: Vec<PathBuf> = std::env::var("RULES")
        .unwrap_or_else(|_| "rules,crs-942,crs".into())
        .split(',')
        .map(|d| root.join(d))
        .collect();
    let paranoia_level = std::env::var("PARANOIA").map_or(1, |p| p.parse().expect("a level"));
    let outcome = CompiledRuleSet::load_dirs(
        &dirs,
        &CompileOptions {
            paranoia_level,
            ..Default::default()
        },
    );
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let mut ruleset = outcome.ruleset;
    ruleset.set_value_memo(false);
    let headers: Vec<(&str, &[u8])> = vec![
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
        ("Connection", b"keep-alive"),
    ];
    let request = HttpRequest {
        method: "GET",
        uri: "/catalog/search?q=trail+running+shoes&size=42&colour=blue&sort=price&page=2",
        version: "HTTP/1.1",
        headers: &headers,
        body: b"",
    };
    let mut matched = 0;
    for _ in 0..n {
        matched += std::hint::black_box(ruleset.evaluate(std::hint::black_box(&request)))
            .matches
            .len();
    }
    if stats {
        let mut count = Count::default();
        let verdict = ruleset.evaluate_observed(&request, &mut count);
        let total: usize = count.runs.values().sum();
        println!(
            "{} rule runs on values, {} rules ran, matched {:?}",
            total,
            count.runs.len(),
            verdict
                .matches
                .iter()
                .map(|m| m.rule_id)
                .collect::<Vec<_>>()
        );
        let mut by_rule: Vec<_> = count.runs.iter().collect();
        by_rule.sort_by_key(|(_, n)| std::cmp::Reverse(**n));
        for (id, n) in by_rule {
            let values: Vec<String> = count
                .values
                .iter()
                .filter(|((r, _), _)| r == id)
                .map(|((_, v), n)| format!("{v}x{n}"))
                .collect();
            println!("{id}\t{n}\t{}", values.join(" "));
        }
    }
    println!("{n} evaluations, {matched} matches");
}
