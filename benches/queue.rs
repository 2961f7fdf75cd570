//! Benchmarks of the queueing solvers: exact MVA at N = 10,000 over 100
//! stations (the target: under 10 ms), the population sweep to the
//! same N (it must cost no more than its last point), multi-server and
//! load-dependent stations, and approximate MVA (the Linearizer, the
//! default, and Schweitzer-Bard); several classes: exact multi-class MVA
//! with 3 classes of 30 jobs over 20 stations, the multi-class Linearizer
//! and Bard-Schweitzer with 10 classes of 20 jobs over 100 stations, the
//! networks `scripts/line_speed.py` builds for LINE (it prints the
//! throughputs this bench prints first, to check they are the same).
//! Run with `cargo bench --bench queue`.
use criterion::{Criterion, criterion_group, criterion_main};
use pattern_core::queue::{
    Approximation, Method, MultiClassApproximation, MultiClassNetwork, Network,
};
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

/// `classes` classes of `jobs` jobs over `stations` single-server queues
/// and a think time: class `c`'s demand at queue `k` is
/// `0.01·(1 + (3k + 5c) mod 11)`, its think time `1 + 0.5c`
/// (`scripts/line_speed.py` builds the same).
fn classes(classes: usize, jobs: usize, stations: usize) -> MultiClassNetwork {
    let names: Vec<String> = (0..stations).map(|k| format!("q{k}")).collect();
    let net = names
        .iter()
        .fold(MultiClassNetwork::new().delay("think"), |net, n| {
            net.queue(n)
        });
    (0..classes).fold(net, |net, c| {
        let mut demands: Vec<(&str, f64)> = names
            .iter()
            .enumerate()
            .map(|(k, n)| (n.as_str(), 0.01 * (1 + (3 * k + 5 * c) % 11) as f64))
            .collect();
        demands.push(("think", 1.0 + 0.5 * c as f64));
        net.class(format!("c{c}"), jobs, &demands)
    })
}

fn multiclass(c: &mut Criterion) {
    let mut group = c.benchmark_group("multiclass");
    group.sample_size(20);
    let small = classes(3, 30, 20);
    let large = classes(10, 20, 100);
    let bard = MultiClassApproximation {
        method: Method::SchweitzerBard,
        ..Default::default()
    };
    // The figures scripts/line_speed.py compares LINE's with.
    let x = |s: pattern_core::queue::MultiClassSolution, n: usize| -> Vec<String> {
        (0..n)
            .map(|c| format!("{:.10}", s.throughput(&format!("c{c}")).unwrap()))
            .collect()
    };
    eprintln!("exact X: {:?}", x(small.mva().unwrap(), 3));
    eprintln!("linearizer X: {:?}", x(large.mva_approx().unwrap(), 10));
    eprintln!(
        "bard-schweitzer X: {:?}",
        x(large.mva_approx_with(&bard).unwrap(), 10)
    );
    group.bench_function("exact, 3 classes of 30 jobs, 20 queues + think", |b| {
        b.iter(|| black_box(small.mva().unwrap().throughput("c0").unwrap()))
    });
    group.bench_function(
        "Linearizer, 10 classes of 20 jobs, 100 queues + think",
        |b| b.iter(|| black_box(large.mva_approx().unwrap().throughput("c0").unwrap())),
    );
    group.bench_function(
        "Bard-Schweitzer, 10 classes of 20 jobs, 100 queues + think",
        |b| {
            b.iter(|| {
                let s = large.mva_approx_with(&bard).unwrap();
                black_box(s.throughput("c0").unwrap())
            })
        },
    );
    group.finish();
}

criterion_group!(benches, exact, multiclass);
criterion_main!(benches);
