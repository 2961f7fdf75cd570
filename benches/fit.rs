//! Benchmarks of the fitter: one model from 6 sizes × 5 repetitions (the
//! paper's repetition count; Extra-P's default search, 43 hypotheses with
//! leave-one-out cross-validation), the same in multi-term mode, and a
//! two-parameter model from a 5×5 grid × 3 repetitions.
//! Run with `cargo bench --bench fit`.
use criterion::{Criterion, criterion_group, criterion_main};
use pattern_core::fit::{Fitter, HypothesisSpace};
use std::hint::black_box;

/// A deterministic ±2 % wobble, so the benchmark needs no RNG.
fn wobble(i: usize) -> f64 {
    1.0 + 0.02 * ((i as f64 * 2.399_963).sin())
}

fn one_parameter() -> Vec<(f64, f64)> {
    let mut points = Vec::new();
    for k in 0..6 {
        let x = 1024.0 * f64::from(1 << (2 * k));
        for r in 0..5 {
            let y = 1034.17 * x * x.log2() + 5422.97;
            points.push((x, y * wobble(points.len() + r)));
        }
    }
    points
}

fn two_parameters() -> Vec<([f64; 2], f64)> {
    let mut points = Vec::new();
    for x in [1024.0, 4096.0, 16384.0, 65536.0, 262144.0] {
        for n in [1.0, 2.0, 4.0, 8.0, 16.0] {
            for _ in 0..3 {
                let y = 5422.97 + 1034.17 * x * f64::log2(x) / n;
                let i = points.len();
                points.push(([x, n], y * wobble(i)));
            }
        }
    }
    points
}

fn fitting(c: &mut Criterion) {
    let points = one_parameter();
    let fitter = Fitter::default();
    c.bench_function("fit/1param_6x5", |b| {
        b.iter(|| fitter.fit(black_box(&points)).unwrap())
    });
    let two_terms = Fitter::default().max_terms(2);
    c.bench_function("fit/1param_6x5_two_terms", |b| {
        b.iter(|| two_terms.fit(black_box(&points)).unwrap())
    });
    let grid = two_parameters();
    let strong = Fitter::default().space(HypothesisSpace::extrap().with_negative_exponents());
    c.bench_function("fit/2param_25x3", |b| {
        b.iter(|| strong.fit_multi(&["x", "n"], black_box(&grid)).unwrap())
    });
}

criterion_group!(benches, fitting);
criterion_main!(benches);
