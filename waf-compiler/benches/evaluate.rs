//! Evaluation speed of the rule engine against a straightforward baseline, measured in the same run (issue 3,
//! "Benchmarks"), and the time to compile the rule set from YAML.
//!
//! The rule set is the shipped `rules/` plus the converted `crs-942/` at paranoia level 4 (every CRS 942 rule
//! runs); `crs_only` is `crs-942/` alone. The requests: a benign browser GET (query, cookies, the usual headers),
//! a 1 KB urlencoded form, a 4 KB JSON document, a SQL injection in the query, a 64 KB form body, and benign form
//! bodies of 1 KB, 16 KB and 256 KB to show how the time grows with the input.
//!
//! `whole_crs` is the proxy's default rule set (`rules/`, `crs-942/`, `crs/`) at its default paranoia level 1,
//! engine only (the baseline does not implement every CRS operator), memo off: never-seen values.
//!
//! The baseline is what an engine without any of the engine's work would do, built from the engine's own public
//! pieces so that only the matching strategy differs:
//! - variables come from the same [`RequestView`] (parsed once per request, as the engine does) and are
//!   selected by the same [`Selector::accepts`](the variable selector);
//! - every active rule, in order, transforms every selected value with [`apply_chain`] afresh (no sharing of
//!   transformed values between rules, as the engine's `Scratch` does); a `multi_match` rule computes
//!   each step afresh too and runs on the raw value and each step that changed it, as in the engine;
//! - a `regex` rule runs a `regex::bytes::Regex` built from the same pattern text (after the same `\x{HH}`
//!   byte rewrite) with the engine's flags: `.` matches a newline, multi-line anchors, Unicode off. No prefilter
//!   skips it. Capture groups are resolved only for rules whose chain conditions read them;
//! - `contains`, `starts_with` and the detectors run the engine's own [`Matcher`], and chain conditions its own
//!   [`Condition::holds`](waf_compiler::Condition::holds): they are the same work in both;
//! - a rule stops at its first matching value, as in the engine, and the result is the list of matching rule ids.
//!
//! The engine is [`CompiledRuleSet::evaluate`] as loaded from YAML, so with its literal prefilter (on by default),
//! but with the memo of earlier requests' results off: a benchmark repeats one request, which the memo would
//! answer from memory after the first iteration. `memo_warm` measures that case apart. Before measuring, each
//! request's baseline result is checked to equal the engine's, so the two do the same job.

mod support;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::PathBuf;
use waf_compiler::RequestView;
use waf_compiler::pcre_byte_escapes;
use waf_compiler::{Chains, CompiledRule};
use waf_compiler::{CompileOptions, CompiledRuleSet, HttpRequest};
use waf_compiler::{Found, Matcher};
use waf_compiler::{apply_transform as apply, apply_transforms as apply_chain};

const PARANOIA: u8 = 4;

fn rule_dirs(with_shipped: bool) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut dirs = vec![root.join("crs-942")];
    if with_shipped {
        dirs.insert(0, root.join("rules"));
    }
    dirs
}

/// The rule set as the engine is measured: without the memo of earlier requests' results
/// (`waf-compiler/src/evaluate/memo.rs`), which would answer every iteration after the first from memory. Each request is
/// measured as if its values had never been seen; [`memo_warm`] measures the other case.
fn load(with_shipped: bool) -> CompiledRuleSet {
    let mut ruleset = load_as_shipped(with_shipped);
    ruleset.set_value_memo(false);
    ruleset
}

/// The rule set as loaded by the proxy: with the memo.
fn load_as_shipped(with_shipped: bool) -> CompiledRuleSet {
    let outcome = CompiledRuleSet::load_dirs(
        &rule_dirs(with_shipped),
        &CompileOptions {
            paranoia_level: PARANOIA,
            ..Default::default()
        },
    );
    assert!(
        outcome.errors.is_empty(),
        "rule load errors: {:?}",
        outcome.errors
    );
    outcome.ruleset
}

/// One rule of the baseline: the engine's compiled rule, with a `regex` crate regex for regex rules.
struct BaselineRule<'s> {
    compiled: &'s CompiledRule,
    regex: Option<regex::bytes::Regex>,
}

struct Baseline<'s> {
    rules: Vec<BaselineRule<'s>>,
    chains: &'s Chains,
}

impl<'s> Baseline<'s> {
    fn new(ruleset: &'s CompiledRuleSet) -> Self {
        let rules = ruleset
            .rules()
            .filter(|r| r.rule.paranoia_level <= ruleset.paranoia_level())
            .map(|compiled| {
                let regex = match compiled.matcher {
                    Matcher::Regex(_) => {
                        let pattern = compiled.rule.pattern.as_deref().unwrap_or_default();
                        let built = regex::bytes::RegexBuilder::new(&pcre_byte_escapes(pattern))
                            .dot_matches_new_line(true)
                            .multi_line(true)
                            .unicode(false)
                            .size_limit(64 << 20)
                            .build();
                        Some(built.unwrap_or_else(|e| {
                            panic!("rule {}: regex crate refuses: {e}", compiled.rule.id)
                        }))
                    }
                    _ => None,
                };
                BaselineRule { compiled, regex }
            })
            .collect();
        Baseline {
            rules,
            chains: ruleset.chains(),
        }
    }

    /// Ids of the matching rules, in rule order.
    fn evaluate(&self, request: &HttpRequest<'_>) -> Vec<u32> {
        let arena = bumpalo::Bump::new();
        let view = RequestView::new(request, &arena);
        self.rules
            .iter()
            .filter(|rule| self.rule_matches(rule, &view))
            .map(|rule| rule.compiled.rule.id)
            .collect()
    }

    fn rule_matches(&self, rule: &BaselineRule<'_>, view: &RequestView<'_>) -> bool {
        let compiled = rule.compiled;
        let chain = self.chains.get(compiled.chain);
        compiled.selectors.iter().any(|selector| {
            view.values(selector.variable)
                .iter()
                .filter(|(_, key, _)| selector.accepts(key))
                .any(|(_, _, raw)| {
                    if !compiled.rule.multi_match {
                        return self.value_matches(
                            rule,
                            &apply_chain(chain, raw, self.chains.unicode_map()),
                        );
                    }
                    let mut value = raw.to_vec();
                    if self.value_matches(rule, &value) {
                        return true;
                    }
                    chain.iter().any(|t| {
                        let next = apply(*t, &value, self.chains.unicode_map());
                        let changed = next != value;
                        value = next;
                        changed && self.value_matches(rule, &value)
                    })
                })
        })
    }

    fn value_matches(&self, rule: &BaselineRule<'_>, value: &[u8]) -> bool {
        let compiled = rule.compiled;
        let found = match &rule.regex {
            Some(re) if compiled.needs_captures => re.captures(value).map(|caps| {
                let groups = caps.iter().map(|g| g.map(|m| m.range())).collect();
                Found {
                    span: caps.get(0).map_or(0..0, |m| m.range()),
                    groups,
                }
            }),
            Some(re) => re.find(value).map(|m| Found {
                span: m.range(),
                groups: Vec::new(),
            }),
            None => compiled.matcher.find(value, compiled.needs_captures),
        };
        // The baseline reads no other part of the request: an empty one.
        let arena = bumpalo::Bump::new();
        let empty = HttpRequest {
            method: "",
            uri: "",
            version: "",
            headers: &[],
            body: b"",
        };
        let view = waf_compiler::RequestView::new(&empty, &arena);
        found.is_some_and(|f| {
            compiled
                .conditions
                .iter()
                .all(|c| c.holds(value, &f, &view, self.chains.unicode_map()))
        })
    }
}

/// A request with owned parts, so cases can be built by functions and borrowed by the benchmarks.
struct Case {
    name: &'static str,
    method: &'static str,
    uri: String,
    headers: Vec<(&'static str, Vec<u8>)>,
    body: Vec<u8>,
}

impl Case {
    fn with<R>(&self, f: impl FnOnce(&HttpRequest<'_>) -> R) -> R {
        let headers: Vec<(&str, &[u8])> = self
            .headers
            .iter()
            .map(|(n, v)| (*n, v.as_slice()))
            .collect();
        f(&HttpRequest {
            method: self.method,
            uri: &self.uri,
            version: "HTTP/1.1",
            headers: &headers,
            body: &self.body,
        })
    }
}

fn browser_headers() -> Vec<(&'static str, Vec<u8>)> {
    [
        ("Host", "shop.example.com"),
        (
            "User-Agent",
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
        ),
        (
            "Accept",
            "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
        ),
        ("Accept-Language", "en-GB,en;q=0.9,fr;q=0.8"),
        ("Accept-Encoding", "gzip, deflate, br"),
        ("Referer", "https://shop.example.com/catalog/shoes"),
        (
            "Cookie",
            "session=9f2c1e7a4b8d4f0e8a6b2c3d5e7f9a1b; theme=dark; lang=en; _ga=GA1.2.1234567890.1700000000",
        ),
        ("Connection", "keep-alive"),
    ]
    .into_iter()
    .map(|(n, v)| (n, v.as_bytes().to_vec()))
    .collect()
}

fn get(name: &'static str, uri: &str) -> Case {
    Case {
        name,
        method: "GET",
        uri: uri.to_owned(),
        headers: browser_headers(),
        body: Vec::new(),
    }
}

fn post(name: &'static str, content_type: &str, body: Vec<u8>) -> Case {
    let mut headers = browser_headers();
    headers.push(("Content-Type", content_type.as_bytes().to_vec()));
    headers.push(("Content-Length", body.len().to_string().into_bytes()));
    Case {
        name,
        method: "POST",
        uri: "/account/profile".to_owned(),
        headers,
        body,
    }
}

/// A benign urlencoded form of exactly `size` bytes: fields of about 400 bytes of prose, so even 256 KB stays
/// under the engine's argument limit and every size is parsed the same way.
fn form_body(size: usize) -> Vec<u8> {
    let prose = "Thanks+for+the+quick+delivery%2C+the+shoes+fit+well+and+the+colour+is+as+shown.+\
                 I+would+order+again+from+this+shop+and+recommend+it+to+friends.+";
    let mut body = Vec::with_capacity(size + 512);
    let mut field = 0;
    while body.len() < size {
        if field > 0 {
            body.push(b'&');
        }
        body.extend_from_slice(format!("comment{field}=").as_bytes());
        while body.len() % 400 < 390 && body.len() < size {
            body.extend_from_slice(prose.as_bytes());
        }
        field += 1;
    }
    body.truncate(size);
    body
}

/// A 1 KB urlencoded form with the short fields of a real profile form.
fn profile_form() -> Vec<u8> {
    let fields = "first_name=Jane&last_name=Doe&email=jane.doe%40example.com&phone=%2B44+20+7946+0958\
                  &street=221B+Baker+Street&city=London&postcode=NW1+6XE&country=GB&newsletter=on\
                  &bio=Runner+and+hiker%2C+likes+trail+shoes+and+long+weekends+in+the+mountains.";
    let mut body = fields.as_bytes().to_vec();
    let mut i = 0;
    while body.len() < 1024 {
        body.extend_from_slice(format!("&pref{i}=size+42+colour+blue").as_bytes());
        i += 1;
    }
    body.truncate(1024);
    body
}

/// A 4 KB JSON order document (about 4096 bytes).
fn json_order() -> Vec<u8> {
    let item = |i: usize| {
        format!(
            r#"{{"sku":"SHOE-{i:04}","name":"Trail runner {i}","quantity":1,"price":89.5,"options":{{"size":"42","colour":"blue"}},"note":"gift wrap please"}}"#
        )
    };
    let mut items = Vec::new();
    let mut len = 0;
    let mut i = 0;
    while len < 3900 {
        let it = item(i);
        len += it.len() + 1;
        items.push(it);
        i += 1;
    }
    format!(
        r#"{{"customer":{{"id":4711,"email":"jane.doe@example.com"}},"items":[{}],"currency":"GBP"}}"#,
        items.join(",")
    )
    .into_bytes()
}

fn cases() -> Vec<Case> {
    vec![
        get(
            "benign_get",
            "/catalog/search?q=trail+running+shoes&size=42&colour=blue&sort=price&page=2",
        ),
        post(
            "form_post_1k",
            "application/x-www-form-urlencoded",
            profile_form(),
        ),
        post("json_post_4k", "application/json", json_order()),
        get(
            "sqli_attack",
            "/catalog/item?id=1%27%20UNION%20SELECT%20username%2C%20password%20FROM%20users--",
        ),
        post(
            "body_64k",
            "application/x-www-form-urlencoded",
            form_body(64 << 10),
        ),
    ]
}

fn engine_ids(ruleset: &CompiledRuleSet, request: &HttpRequest<'_>) -> Vec<u32> {
    let verdict = ruleset.evaluate(request);
    verdict.matches.iter().map(|m| m.rule_id).collect()
}

/// Engine and baseline on one request; panics if they disagree (the comparison would be meaningless).
fn bench_pair(
    c: &mut Criterion,
    group: &str,
    case: &Case,
    ruleset: &CompiledRuleSet,
    baseline: &Baseline<'_>,
    bytes: Option<u64>,
) {
    case.with(|request| {
        let engine = engine_ids(ruleset, request);
        assert_eq!(
            engine,
            baseline.evaluate(request),
            "{}: baseline disagrees with the engine",
            case.name
        );
        eprintln!("{group}/{}: rules matched {engine:?}", case.name);
        let mut g = c.benchmark_group(group);
        if let Some(bytes) = bytes {
            g.throughput(Throughput::Bytes(bytes));
            g.sample_size(10);
        }
        g.bench_function(BenchmarkId::new("engine", case.name), |b| {
            b.iter(|| ruleset.evaluate(black_box(request)))
        });
        g.bench_function(BenchmarkId::new("baseline", case.name), |b| {
            b.iter(|| baseline.evaluate(black_box(request)))
        });
        g.finish();
    });
}

fn evaluation(c: &mut Criterion) {
    let full = load(true);
    let full_baseline = Baseline::new(&full);
    for case in cases() {
        bench_pair(c, "shipped+crs", &case, &full, &full_baseline, None);
    }

    let crs = load(false);
    let crs_baseline = Baseline::new(&crs);
    bench_pair(
        c,
        "crs_only",
        &cases().swap_remove(0),
        &crs,
        &crs_baseline,
        None,
    );

    for (name, size) in [
        ("body_1k", 1 << 10),
        ("body_16k", 16 << 10),
        ("body_256k", 256 << 10),
    ] {
        let case = post(name, "application/x-www-form-urlencoded", form_body(size));
        bench_pair(
            c,
            "body_size",
            &case,
            &full,
            &full_baseline,
            Some(size as u64),
        );
    }
}

/// The benign requests again, with the memo on: every value was seen by the iteration before, as a browser's
/// headers and cookies are on every request of a visit after the first.
fn memo_warm(c: &mut Criterion) {
    let full = load_as_shipped(true);
    let mut g = c.benchmark_group("memo_warm");
    for case in cases()
        .into_iter()
        .filter(|case| matches!(case.name, "benign_get" | "form_post_1k" | "json_post_4k"))
    {
        case.with(|request| {
            g.bench_function(BenchmarkId::new("engine", case.name), |b| {
                b.iter(|| full.evaluate(black_box(request)))
            });
        });
    }
    g.finish();
}

fn load_time(c: &mut Criterion) {
    let mut g = c.benchmark_group("load");
    g.sample_size(10);
    g.bench_function("compile_from_yaml", |b| {
        b.iter(|| load_as_shipped(black_box(true)))
    });
    g.finish();
}

/// The default rule set of the proxy, the whole CRS, at paranoia level 1, on the benign requests and the attack.
fn whole_crs(c: &mut Criterion) {
    let mut ruleset = support::default_rule_set();
    let mut g = c.benchmark_group("whole_crs_pl1");
    for case in cases().into_iter().filter(|case| {
        matches!(
            case.name,
            "benign_get" | "form_post_1k" | "json_post_4k" | "sqli_attack"
        )
    }) {
        case.with(|request| {
            eprintln!(
                "whole_crs_pl1/{}: rules matched {:?}",
                case.name,
                engine_ids(&ruleset, request)
            );
            g.bench_function(BenchmarkId::new("engine", case.name), |b| {
                b.iter(|| ruleset.evaluate(black_box(request)))
            });
        });
    }
    // What confirmation costs a request whose values patterns hit: a rich-text post (XSS and SQL rules hit its
    // HTML and prose, the parsers find no injection), with confirmation and without (every hit scored).
    let rich_text = post("rich_text_post", "application/json", rich_text_body());
    for confirm in [true, false] {
        ruleset.set_confirm(confirm);
        let name = if confirm { "confirmed" } else { "unconfirmed" };
        rich_text.with(|request| {
            g.bench_function(BenchmarkId::new(name, rich_text.name), |b| {
                b.iter(|| ruleset.evaluate(black_box(request)))
            });
        });
    }
    ruleset.set_confirm(true);
    g.finish();
}

/// A CMS's article update: HTML from a rich-text editor, with inline styles, a link, a table and prose that
/// names SQL keywords.
fn rich_text_body() -> Vec<u8> {
    let html = "<h2 style=\"text-align: center;\">Spring sale: select your size before Friday</h2>\
        <p>Our <a href=\"https://shop.example/boots\" target=\"_blank\">trail boots</a> are back; drop us a \
        line if yours don't fit &amp; we'll exchange them (free, as always).</p><table style=\"width: 100%;\">\
        <tr><td><span style=\"color: #e03e2d;\">-20%</span></td><td>union of comfort &amp; grip</td></tr></table>";
    serde_json::json!({"article": {"title": "Spring sale", "body_html": html, "published": true}})
        .to_string()
        .into_bytes()
}

criterion_group!(benches, evaluation, memo_warm, whole_crs, load_time);
criterion_main!(benches);
