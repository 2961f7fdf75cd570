//! Benchmarks of the design decisions: the exact allocation of a 6-stage
//! pipeline of pools under a budget of 64 threads (the target: under
//! 100 ms), on the paper's atoms and on random ones, and brute force (every
//! feasible count vector) against the search on a smaller case; the
//! search's growth with the budget (2^12 to 2^18 threads).
//! Run with `cargo bench --bench explore`.
use criterion::{Criterion, criterion_group, criterion_main};
use pattern_core::Design;
use pattern_core::explore::allocation::{Allocator, OperatorsTime, TimeModel};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

// `pools`, shared with the allocation tests.
#[path = "../tests/common/allocation.rs"]
mod allocation;
use allocation::pools;

/// Six of Table 1's atoms.
fn paper() -> Design {
    let models = [
        "1034.17 * x * log2(x)",
        "536.185 * x",
        "5422.97",
        "9376 * x",
        "0.353395 * x",
        "38316",
    ];
    pools(&models.map(String::from))
}

/// Six random atoms `a·x^b·log2(x)^c + d`, seeded.
fn random(seed: u64, k: usize) -> Design {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let models: Vec<String> = (0..k)
        .map(|_| {
            let a: f64 = rng.random_range(0.1..1000.0);
            let b = [0.0, 0.5, 1.0, 1.5, 2.0][rng.random_range(0..5)];
            let c = rng.random_range(0..=2);
            let d: f64 = rng.random_range(0.0..1000.0);
            format!("{a}*x^{b}*log2(x)^{c} + {d}")
        })
        .collect();
    pools(&models)
}

/// Every count vector of `k` counts in `1..=budget` summing to at most the
/// budget: the least time.
fn brute_force(d: &Design, k: usize, budget: u64, x: f64) -> f64 {
    let names: Vec<String> = (0..k).map(|i| format!("c{i}")).collect();
    let ops = OperatorsTime::new(d, &names, &[("x", x)]).unwrap();
    let mut counts = vec![1u64; k];
    let mut best = f64::INFINITY;
    loop {
        if counts.iter().sum::<u64>() <= budget {
            let pairs: Vec<(&str, u64)> = names
                .iter()
                .map(String::as_str)
                .zip(counts.iter().copied())
                .collect();
            best = best.min(ops.time_per_element(&pairs).unwrap());
        }
        let mut i = k;
        loop {
            if i == 0 {
                return best;
            }
            i -= 1;
            if counts[i] < budget {
                counts[i] += 1;
                break;
            }
            counts[i] = 1;
        }
    }
}

fn allocation(c: &mut Criterion) {
    let mut group = c.benchmark_group("allocation");
    group.sample_size(20);
    let d = paper();
    group.bench_function("6 pools of Table 1 atoms, budget 64", |b| {
        b.iter(|| {
            let a = Allocator::new(&d, black_box(64)).at(&[("x", 1000.0)]);
            black_box(a.solve().unwrap().allocation.time_per_element)
        })
    });
    let r = random(19, 6);
    group.bench_function("6 pools of random atoms, budget 64", |b| {
        b.iter(|| {
            let a = Allocator::new(&r, black_box(64)).at(&[("x", 1000.0)]);
            black_box(a.solve().unwrap().allocation.time_per_element)
        })
    });
    // The smaller case, both ways: the search and brute force agree.
    let small = random(7, 4);
    let exact = Allocator::new(&small, 24)
        .at(&[("x", 1000.0)])
        .solve()
        .unwrap();
    assert_eq!(
        exact.allocation.time_per_element,
        brute_force(&small, 4, 24, 1000.0)
    );
    group.bench_function("4 pools of random atoms, budget 24: search", |b| {
        b.iter(|| {
            let a = Allocator::new(&small, black_box(24)).at(&[("x", 1000.0)]);
            black_box(a.solve().unwrap().allocation.time_per_element)
        })
    });
    group.bench_function("4 pools of random atoms, budget 24: brute force", |b| {
        b.iter(|| black_box(brute_force(&small, 4, black_box(24), 1000.0)))
    });
    group.finish();
}

/// The search's growth with the budget: three pools of Table 1's atoms
/// (`examples/data/stages.design` at x = 10), budgets 2^12 to 2^18. Above
/// 2048 threads the search goes by doubling; each quadrupling of the budget
/// should cost about four times as much (it cost about 12 times before).
fn allocation_budget(c: &mut Criterion) {
    let mut group = c.benchmark_group("allocation budget");
    group.sample_size(10);
    let d = Design::parse(
        "qsort = 1034.17*x*log2(x); inc = 536.185*x; nop = 5422.97; \
         pipe(tpool[a](qsort), tpool[b](inc), tpool[c](nop))",
    )
    .unwrap();
    for budget in [1u64 << 12, 1 << 14, 1 << 16, 1 << 18] {
        group.bench_function(format!("3 pools, budget {budget}"), |b| {
            b.iter(|| {
                let a = Allocator::new(&d, black_box(budget)).at(&[("x", 10.0)]);
                black_box(a.solve().unwrap().allocation.threads)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, allocation, allocation_budget);
criterion_main!(benches);
