//! Benchmarks of the cost-expression engine: parsing, simplification, and
//! evaluating `1034.17*x*log2(x) + 536.185*x + 5422.97` at 10^6 points by tree
//! walk, compiled form (one point at a time and in blocks) and a hand-written
//! closure, all in one run so the ratios are meaningful on a noisy machine.
//! Run with `cargo bench --bench expr`.
use criterion::{Criterion, criterion_group, criterion_main};
use pattern_core::Expr;
use std::hint::black_box;

const MODEL: &str = "1034.17*x*log2(x) + 536.185*x + 5422.97";
const POINTS: usize = 1_000_000;

fn points() -> Vec<f64> {
    (1..=POINTS).map(|i| 1024.0 + i as f64).collect()
}

fn parse_and_simplify(c: &mut Criterion) {
    let shuffle =
        "(m*n - 1)/(m*n) * 12288 * x / 0.125 + max(1034.17*x*log2(x)/n, 536.185*x/n) + 9376*x/768";
    c.bench_function("parse/table1_model", |b| {
        b.iter(|| Expr::parse(black_box(MODEL)).unwrap())
    });
    c.bench_function("parse/mapreduce_model", |b| {
        b.iter(|| Expr::parse(black_box(shuffle)).unwrap())
    });
    let e = Expr::parse(shuffle).unwrap();
    c.bench_function("simplify/mapreduce_model", |b| {
        b.iter(|| black_box(&e).simplify())
    });
}

fn evaluate(c: &mut Criterion) {
    let xs = points();
    let e = Expr::parse(MODEL).unwrap();
    let compiled = e.compile(&["x"]).unwrap();
    let closure = |x: f64| 1034.17 * x * x.log2() + 536.185 * x + 5422.97;
    let mut group = c.benchmark_group("eval_1e6_points");
    group.sample_size(20);
    group.bench_function("closure", |b| {
        b.iter(|| black_box(&xs).iter().map(|&x| closure(x)).sum::<f64>())
    });
    group.bench_function("compiled_batch", |b| {
        let mut out = vec![0.0; xs.len()];
        b.iter(|| {
            compiled.eval_batch(&[black_box(&xs)], &mut out);
            out.iter().sum::<f64>()
        })
    });
    group.bench_function("compiled_scalar", |b| {
        b.iter(|| {
            black_box(&xs)
                .iter()
                .map(|&x| compiled.eval(&[x]))
                .sum::<f64>()
        })
    });
    group.bench_function("tree_walk", |b| {
        b.iter(|| {
            black_box(&xs)
                .iter()
                .map(|&x| e.eval(&[("x", x)]).unwrap())
                .sum::<f64>()
        })
    });
    group.finish();
}

criterion_group!(benches, parse_and_simplify, evaluate);
criterion_main!(benches);
