//! IP list lookups: a list of 100,000 CIDR blocks must cost about what a list of 10 does per request (sorted
//! ranges and a binary search, `traffic/ip_lists.rs`). Run with `cargo bench -p waf-runtime --bench ip_lists`.
//!
//! The blocks are spread over the IPv4 and IPv6 spaces by a fixed pseudo-random sequence, so every run measures
//! the same lists; the probes are a mix of addresses inside and outside them.
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use waf_runtime::Cidr;
use waf_runtime::IpSet;

/// xorshift64: a fixed sequence, no dependency.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn list(n: usize) -> Vec<Cidr> {
    let mut seq = Sequence(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|i| {
            let r = seq.next();
            let text = if i % 4 == 3 {
                let addr = Ipv6Addr::from((u128::from(r) << 64) | 0x2001_0db8);
                format!("{addr}/{}", 32 + r % 33)
            } else {
                format!("{}/{}", Ipv4Addr::from(r as u32), 16 + r % 17)
            };
            text.parse().unwrap()
        })
        .collect()
}

fn probes() -> Vec<IpAddr> {
    let mut seq = Sequence(0x2545_f491_4f6c_dd1d);
    (0..64)
        .map(|i| {
            let r = seq.next();
            if i % 4 == 3 {
                IpAddr::V6(Ipv6Addr::from(u128::from(r) << 64))
            } else {
                IpAddr::V4(Ipv4Addr::from(r as u32))
            }
        })
        .collect()
}

fn lookups(c: &mut Criterion) {
    let probes = probes();
    let mut group = c.benchmark_group("ip_list_lookup");
    for n in [10, 100_000] {
        let set = IpSet::new(&list(n));
        group.bench_with_input(BenchmarkId::from_parameter(n), &set, |b, set| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % probes.len();
                black_box(set.contains(black_box(probes[i])))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, lookups);
criterion_main!(benches);
