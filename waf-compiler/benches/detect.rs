//! Throughput of the libinjection-compatible detectors on typical request values: benign text,
//! a SQL injection, an XSS payload, and a 4 KiB benign form value.

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
