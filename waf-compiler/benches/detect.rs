//! Throughput of the libinjection-compatible detectors on typical request values: benign
//! values as found in query strings, headers and cookies, a SQL injection, an XSS payload, and
//! a 4 KiB benign form value.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use waf_compiler::detect::{sqli, xss};

fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let form: Vec<u8> = b"name=John+Smith&comment=Looking forward to the meeting, see you at 10. "
        .iter()
        .copied()
        .cycle()
        .take(4096)
        .collect();
    vec![
        ("benign_word", b"john.smith@example.com".to_vec()),
        ("benign_id", b"482913".to_vec()),
        ("benign_token", b"a3f9c2e81b7d4c60".to_vec()),
        (
            "benign_uuid",
            b"3f2b8c1e-9a4d-4e7b-8c2f-1d6e5a9b0c7f".to_vec(),
        ),
        ("benign_date", b"2026-11-23T20:43:47Z".to_vec()),
        (
            "benign_accept",
            b"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8".to_vec(),
        ),
        (
            "benign_user_agent",
            b"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
                .to_vec(),
        ),
        (
            "benign_cookie",
            b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
                .to_vec(),
        ),
        (
            "benign_prose",
            b"Thanks for the quick reply, I will send the documents tomorrow morning.".to_vec(),
        ),
        (
            "sqli",
            b"1' UNION SELECT username, password FROM users--".to_vec(),
        ),
        (
            "xss",
            b"<img src=x onerror=alert(document.cookie)>".to_vec(),
        ),
        ("benign_4k", form),
    ]
}

fn bench(c: &mut Criterion) {
    for (name, input) in inputs() {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_function("is_sqli", |b| b.iter(|| sqli::is_sqli(black_box(&input))));
        group.bench_function("is_xss", |b| b.iter(|| xss::is_xss(black_box(&input))));
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
