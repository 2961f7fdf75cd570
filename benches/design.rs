//! Lowering and simplifying generated designs of 1,000 to 100,000 nodes
//! (random trees of seq, pipe and tpool over the Table 1 atoms, seeded), to
//! show how the cost grows with the size of the design. Run with
//! `cargo bench --bench design`.
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use pattern_core::semantics::Throughput;
use pattern_core::{Expr, Term};
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

criterion_group!(benches, lowering);
criterion_main!(benches);
