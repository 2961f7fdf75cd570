//! Benchmarks of the queueing solvers: exact MVA at N = 10,000 over 100
//! stations (the target: under 10 ms), the population sweep to the
//! same N (it must cost no more than its last point), multi-server and
//! load-dependent stations, and approximate MVA (the Linearizer, the
//! default, and Schweitzer-Bard).
//! Run with `cargo bench --bench queue`.
use criterion::{Criterion, criterion_group, criterion_main};
use pattern_core::queue::{Approximation, Method, Network};
use std::hint::black_box;

/// 100 single-server queues with demands 0.01..0.109 and a think time.
fn queues(k: usize) -> Network {
    (0..k).fold(Network::new().delay("think", 5.0), |net, i| {
        net.queue(format!("q{i}"), 0.01 + 0.001 * i as f64)
    })
}

fn exact(c: &mut Criterion) {
    let mut group = c.benchmark_group("mva");
    group.sample_size(20);
    let net = queues(100);
    group.bench_function("exact, 100 queues, N = 10,000", |b| {
        b.iter(|| black_box(net.mva(black_box(10_000)).unwrap().throughput()))
    });
    group.bench_function("sweep, 100 queues, N = 1..10,000", |b| {
        b.iter(|| black_box(net.sweep(black_box(10_000)).unwrap().len()))
    });
    let multi = queues(98).multi_server("cpu", 16, 1.0);
    group.bench_function("exact, 98 queues + 16 servers, N = 10,000", |b| {
        b.iter(|| black_box(multi.mva(black_box(10_000)).unwrap().throughput()))
    });
    let many = Network::new()
        .multi_server("cpu", 300, 1.0)
        .queue("disk", 0.002)
        .delay("think", 0.1);
    group.bench_function("exact, 300 servers, N = 400", |b| {
        b.iter(|| black_box(many.mva(black_box(400)).unwrap().throughput()))
    });
    let ld = queues(10).load_dependent("net", 0.5, |n| 1.0 + (n as f64).ln());
    group.bench_function("exact, 10 queues + 1 load-dependent, N = 1,000", |b| {
        b.iter(|| black_box(ld.mva(black_box(1_000)).unwrap().throughput()))
    });
    group.bench_function("approximate (Linearizer), 100 queues, N = 10,000", |b| {
        b.iter(|| black_box(net.mva_approx(black_box(10_000)).unwrap().throughput()))
    });
    let bard = Approximation {
        method: Method::SchweitzerBard,
        ..Approximation::default()
    };
    group.bench_function(
        "approximate (Schweitzer-Bard), 100 queues, N = 10,000",
        |b| {
            b.iter(|| {
                let s = net.mva_approx_with(black_box(10_000), &bard).unwrap();
                black_box(s.throughput())
            })
        },
    );
    group.bench_function(
        "approximate (Linearizer), 98 queues + 16 servers, N = 10,000",
        |b| b.iter(|| black_box(multi.mva_approx(black_box(10_000)).unwrap().throughput())),
    );
    let near = queues(10).multi_server("cpu", 16, 1.0);
    group.bench_function(
        "approximate (Linearizer), 10 queues + 16 servers, N = 20",
        |b| b.iter(|| black_box(near.mva_approx(black_box(20)).unwrap().throughput())),
    );
    group.bench_function(
        "approximate (Linearizer), 10 queues + 1 load-dependent, N = 1,000",
        |b| b.iter(|| black_box(ld.mva_approx(black_box(1_000)).unwrap().throughput())),
    );
    group.finish();
}

criterion_group!(benches, exact);
criterion_main!(benches);
