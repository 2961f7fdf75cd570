//! How expression operations grow with the expression: a sum of n distinct
//! PMNF terms (`c·x^a·y^b·log2(z)^k`, n from 10^3 to 10^6) parsed, printed,
//! evaluated, compiled, simplified and put in canonical form, and a product
//! of n factors parsed. Linear operations take about 10x the time for 10x
//! the terms. Run with `cargo bench --bench expr_scale`.
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pattern_core::Expr;
use std::fmt::Write as _;
use std::hint::black_box;

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// `n` distinct terms over three variables.
fn sum_text(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        if i > 0 {
            out.push_str(" + ");
        }
        let (a, b, k) = (i % 100, (i / 100) % 100, i / 10_000);
        let _ = write!(out, "{}*x^{a}*y^{b}*log2(z)^{k}", 1.0 + (i % 7) as f64);
    }
    out
}

/// A product of `n` factors over as many variables.
fn product_text(n: usize) -> String {
    (0..n)
        .map(|i| format!("v{i}"))
        .collect::<Vec<_>>()
        .join(" * ")
}

fn scale(c: &mut Criterion) {
    let at = [("x", 1.001), ("y", 0.999), ("z", 2.5)];
    let mut group = c.benchmark_group("expr_scale");
    group.sample_size(10);
    for n in SIZES {
        group.throughput(Throughput::Elements(n as u64));
        let text = sum_text(n);
        let e = Expr::parse(&text).unwrap();
        group.bench_with_input(BenchmarkId::new("parse_sum", n), &text, |b, t| {
            b.iter(|| Expr::parse(black_box(t)).unwrap())
        });
        let product = product_text(n);
        group.bench_with_input(BenchmarkId::new("parse_product", n), &product, |b, t| {
            b.iter(|| Expr::parse(black_box(t)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("display", n), &e, |b, e| {
            b.iter(|| black_box(e).to_string())
        });
        group.bench_with_input(BenchmarkId::new("eval", n), &e, |b, e| {
            b.iter(|| black_box(e).eval(&at).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("compile", n), &e, |b, e| {
            b.iter(|| black_box(e).compile(&["x", "y", "z"]).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("simplify", n), &e, |b, e| {
            b.iter(|| black_box(e).simplify())
        });
        group.bench_with_input(BenchmarkId::new("canonical", n), &e, |b, e| {
            b.iter(|| black_box(e).canonical())
        });
    }
    group.finish();
}

/// The deep inputs of issue 33, built through the public API: a nest of
/// `log2`, a nest of squares, alternating `+` and `*`, and the compiled sum
/// and `max` of distinct variables, at 10^3, 10^4 and 10^5. Linear work
/// takes about 10x the time for 10x the input.
fn deep(c: &mut Criterion) {
    let mut group = c.benchmark_group("expr_deep");
    group.sample_size(10);
    for n in [1_000usize, 10_000, 100_000] {
        group.throughput(Throughput::Elements(n as u64));
        let logs = (0..n).fold(Expr::var("x"), |e, _| e.log2());
        group.bench_with_input(BenchmarkId::new("log2_nest_simplify", n), &logs, |b, e| {
            b.iter(|| black_box(e).simplify())
        });
        let squares = (0..n).fold(Expr::var("x"), |e, _| e.pow(2.0));
        group.bench_with_input(
            BenchmarkId::new("square_nest_simplify", n),
            &squares,
            |b, e| b.iter(|| black_box(e).simplify()),
        );
        let alternating = (0..n).fold(Expr::var("x"), |e, i| {
            if i % 2 == 0 {
                e + Expr::var("y")
            } else {
                e * Expr::var("y")
            }
        });
        group.bench_with_input(
            BenchmarkId::new("alternating_simplify", n),
            &alternating,
            |b, e| b.iter(|| black_box(e).simplify()),
        );
        let names: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
        let vars: Vec<&str> = names.iter().map(String::as_str).collect();
        let sum = Expr::Add(vars.iter().map(|v| Expr::var(v)).collect());
        group.bench_with_input(BenchmarkId::new("compile_sum_of_vars", n), &sum, |b, e| {
            b.iter(|| black_box(e).compile(&vars).unwrap())
        });
        let max = Expr::max(vars.iter().map(|v| Expr::var(v)));
        group.bench_with_input(BenchmarkId::new("compile_max_of_vars", n), &max, |b, e| {
            b.iter(|| black_box(e).compile(&vars).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, scale, deep);
criterion_main!(benches);
