//! How the cost of a design grows with its size, from 10^3 to 10^5:
//! lowering and simplifying generated terms (random trees of seq, pipe and
//! tpool over the Table 1 atoms, seeded), and reading, checking, modeling
//! and counting the resources of design texts that define and use that many
//! atoms. Run with `cargo bench --bench design`.
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use pattern_core::semantics::Throughput;
use pattern_core::{Design, Expr, Term};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// A random design of exactly `nodes` nodes.
fn design(nodes: usize, rng: &mut ChaCha8Rng) -> Term {
    if nodes == 1 {
        let (name, model) = [
            ("qsort", "1034.17*x*log2(x)"),
            ("inc", "536.185*x"),
            ("nop", "5422.97"),
        ][rng.random_range(0..3)];
        return Term::atom(name, Expr::parse(model).unwrap());
    }
    match (nodes, rng.random_range(0..5)) {
        (2, _) | (_, 0) => Term::tpool(rng.random_range(1u64..=8), design(nodes - 1, rng)),
        (_, choice) => {
            let left = rng.random_range(1..nodes - 1);
            let (a, b) = (design(left, rng), design(nodes - 1 - left, rng));
            if choice % 2 == 0 {
                Term::seq(a, b)
            } else {
                Term::pipe(a, b)
            }
        }
    }
}

fn lowering(c: &mut Criterion) {
    let mut group = c.benchmark_group("lower_and_simplify");
    group.sample_size(10);
    for nodes in [1_000, 10_000, 100_000] {
        let mut rng = ChaCha8Rng::seed_from_u64(2021);
        let term = design(nodes, &mut rng);
        assert_eq!(term.size(), nodes);
        group.bench_with_input(BenchmarkId::new("lower", nodes), &term, |b, t| {
            b.iter(|| Throughput::new().expr(black_box(t)))
        });
        group.bench_with_input(BenchmarkId::new("lower+simplify", nodes), &term, |b, t| {
            b.iter(|| Throughput::new().expr(black_box(t)).simplify())
        });
    }
    group.finish();
}

/// A design text defining `atoms` atoms, each used once: a pipeline whose
/// stages are, in turn, a pair in sequence, a task pool and a lone atom.
fn design_text(atoms: usize) -> String {
    let mut text = String::new();
    for i in 0..atoms {
        text.push_str(&format!("a{i} = {}*x*log2(x) + {};\n", i + 1, i % 7));
    }
    let mut stages = Vec::new();
    let mut i = 0;
    while i < atoms {
        stages.push(match (i % 3, atoms - i) {
            (0, 2..) => {
                i += 2;
                format!("seq(a{}, a{})", i - 2, i - 1)
            }
            (1, _) => {
                i += 1;
                format!("tpool[4](a{})", i - 1)
            }
            _ => {
                i += 1;
                format!("a{}", i - 1)
            }
        });
    }
    text.push_str(&format!("pipe({})", stages.join(", ")));
    text
}

fn texts(c: &mut Criterion) {
    let mut group = c.benchmark_group("design_text");
    group.sample_size(10);
    for atoms in [1_000, 10_000, 100_000] {
        let text = design_text(atoms);
        let design = Design::parse(&text).unwrap();
        assert_eq!(design.atoms().len(), atoms);
        group.bench_with_input(BenchmarkId::new("parse", atoms), &text, |b, t| {
            b.iter(|| Design::parse(black_box(t)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("check", atoms), &design, |b, d| {
            b.iter(|| black_box(d).term().check().unwrap())
        });
        group.bench_with_input(BenchmarkId::new("lower", atoms), &design, |b, d| {
            b.iter(|| Throughput::new().expr(black_box(d).term()))
        });
        group.bench_with_input(BenchmarkId::new("model", atoms), &design, |b, d| {
            b.iter(|| black_box(d).model())
        });
        group.bench_with_input(BenchmarkId::new("resources", atoms), &design, |b, d| {
            b.iter(|| black_box(d).resources())
        });
        group.bench_with_input(BenchmarkId::new("display", atoms), &design, |b, d| {
            b.iter(|| black_box(d).to_string())
        });
    }
    group.finish();
}

/// Deep terms: a pipeline of `n` stages (a chain `n` deep) and a tower of
/// `n` task pools.
fn deep(c: &mut Criterion) {
    let mut group = c.benchmark_group("deep");
    group.sample_size(10);
    for n in [1_000, 10_000, 100_000] {
        let stages: Vec<&str> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    "tpool[k](a)"
                } else {
                    "tpool[m](b)"
                }
            })
            .collect();
        let text = format!("a = x; b = 2*x; pipe({})", stages.join(", "));
        let chain = Design::parse(&text).unwrap();
        group.bench_with_input(BenchmarkId::new("clone+drop", n), &chain, |b, d| {
            b.iter(|| black_box(d).clone())
        });
        group.bench_with_input(BenchmarkId::new("display", n), &chain, |b, d| {
            b.iter(|| black_box(d).to_string())
        });
        group.bench_with_input(BenchmarkId::new("model_asymptotic", n), &chain, |b, d| {
            b.iter(|| black_box(d).model_asymptotic())
        });
        let mut tower = Term::atom("a", Expr::var("x"));
        for _ in 0..n {
            tower = Term::tpool("k", tower);
        }
        group.bench_with_input(BenchmarkId::new("tower_lower", n), &tower, |b, t| {
            b.iter(|| Throughput::new().expr(black_box(t)))
        });
    }
    group.finish();
}

criterion_group!(benches, lowering, texts, deep);
criterion_main!(benches);
