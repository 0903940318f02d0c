//! The response phase's cost (issue 29, "Speed"): [`CompiledRuleSet::evaluate_response`] with the proxy's
//! default rule set (`rules/`, `crs-942/`, `crs/`) at its default paranoia level 1, on the answers
//! `benches/responses.sh` loads the proxy with: benign HTML of 2 KB, 64 KB and 512 KiB (the default response body
//! limit: what the proxy reads of its 1 MB page), and a head alone (a JSON answer, whose body is not read).
//! A leaking page (an SQL error inside the same prose) shows what a match costs on top.
//!
//! The memo of earlier values is off, as in `benches/evaluate.rs`: a benchmark repeats one answer, and a body is
//! too long to be remembered anyway. Before measuring, each answer's verdict is checked (the benign ones match
//! nothing, the leaking one 951120), so the engine does the job it is timed at.

mod support;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use waf_compiler::{HttpRequest, HttpResponse};

/// The prose of `benches/responses.sh`'s pages, repeated to `size` bytes.
fn page(size: usize) -> Vec<u8> {
    let para = "<p>Our bakery opens at seven. Fresh bread, croissants and seasonal tarts are made every morning \
                with flour from the mill down the road; orders for parties are taken a day ahead.</p>\n";
    let mut body = String::from("<html><head><title>Bakery</title></head><body>\n");
    while body.len() < size {
        body.push_str(para);
    }
    body.truncate(size);
    body.into_bytes()
}

fn responses(c: &mut Criterion) {
    let ruleset = support::default_rule_set();
    let request_headers: &[(&str, &[u8])] = &[("host", b"bakery.test")];
    let request = HttpRequest {
        method: "GET",
        uri: "/menu",
        version: "HTTP/1.1",
        headers: request_headers,
        body: b"",
    };
    let html: &[(&str, &[u8])] = &[
        ("content-type", b"text/html"),
        ("server", b"nginx"),
        ("date", b"Sat, 28 Nov 2026 18:00:00 GMT"),
    ];
    let json: &[(&str, &[u8])] = &[
        ("content-type", b"application/json"),
        ("server", b"nginx"),
        ("date", b"Sat, 28 Nov 2026 18:00:00 GMT"),
    ];
    let mut leak = page(64 * 1024);
    let at = leak.len() / 2;
    leak.splice(
        at..at,
        b"<b>Warning</b>: ORA-00933: SQL command not properly ended"
            .iter()
            .copied(),
    );
    // Name, headers, body (none: not read) and the rules it matches.
    type Case<'h> = (
        &'h str,
        &'h [(&'h str, &'h [u8])],
        Option<Vec<u8>>,
        &'h [u32],
    );
    let cases: Vec<Case> = vec![
        ("head_only", json, None, &[]),
        ("html_2k", html, Some(page(2 * 1024)), &[]),
        ("html_64k", html, Some(page(64 * 1024)), &[]),
        ("html_512k", html, Some(page(512 * 1024)), &[]),
        ("html_64k_leak", html, Some(leak), &[951120, 959100]),
    ];
    let mut g = c.benchmark_group("responses_pl1");
    for (name, headers, body, expected) in &cases {
        let response = HttpResponse {
            status: 200,
            version: "HTTP/1.1",
            headers,
            body: body.as_deref(),
        };
        let mut verdict = ruleset.evaluate_response(&request, &response);
        verdict.settle(waf_compiler::DEFAULT_OUTBOUND_ANOMALY_THRESHOLD);
        let ids: Vec<u32> = verdict.matches.iter().map(|m| m.rule_id).collect();
        assert_eq!(&ids, expected, "{name}: rules matched");
        g.throughput(Throughput::Bytes(
            body.as_ref().map_or(0, |b| b.len() as u64),
        ));
        g.bench_function(BenchmarkId::new("evaluate_response", name), |b| {
            b.iter(|| ruleset.evaluate_response(black_box(&request), black_box(&response)))
        });
    }
    g.finish();
}

criterion_group!(benches, responses);
criterion_main!(benches);
