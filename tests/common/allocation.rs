//! The allocation tests' designs, strategies and brute force.
// Each test crate uses its own part of these.
#![allow(dead_code)]

use pattern_core::Design;
use pattern_core::explore::allocation::Allocation;

/// Times within this of the optimum tie with it (docs/explore.md, "Ties").
pub const TIE_TOLERANCE: f64 = 1e-9;
use pattern_core::paper::TABLE_1;
use proptest::prelude::*;

/// An atom's model: one of Table 1's (but `transfer`, which is in bytes),
/// or `a·x^b·log2(x)^c + d`.
pub fn atom_model() -> impl Strategy<Value = String> {
    prop_oneof![
        (0..TABLE_1.len() - 1).prop_map(|i| TABLE_1[i].1.to_string()),
        (
            0.1f64..1000.0,
            prop::sample::select(vec![0.0, 0.5, 1.0, 1.5, 2.0]),
            0u32..=2,
            0.0f64..1000.0
        )
            .prop_map(|(a, b, c, d)| format!("{a}*x^{b}*log2(x)^{c} + {d}")),
    ]
}

pub fn size() -> impl Strategy<Value = f64> {
    prop::sample::select(vec![2.0, 16.0, 1000.0, 65536.0])
}

/// `pipe(tpool[c0](s0), tpool[c1](s1), ..)` over the models.
pub fn pools(models: &[String]) -> Design {
    let defs: String = models
        .iter()
        .enumerate()
        .map(|(i, m)| format!("s{i} = {m};\n"))
        .collect();
    let stages: Vec<String> = (0..models.len())
        .map(|i| format!("tpool[c{i}](s{i})"))
        .collect();
    Design::parse(&format!("{defs}pipe({})", stages.join(", "))).unwrap()
}

/// Every vector of `k` counts in `1..=budget` whose threads (by `threads`)
/// fit the budget, its time by `time`: of those within `TIE_TOLERANCE` of
/// the least time, the fewest threads, then the smallest counts; as
/// (time, threads, counts).
pub fn brute_force(
    k: usize,
    budget: u64,
    threads: impl Fn(&[u64]) -> u64,
    time: impl Fn(&[u64]) -> f64,
) -> Option<(f64, u64, Vec<u64>)> {
    let mut counts = vec![1u64; k];
    let mut all: Vec<(f64, u64, Vec<u64>)> = Vec::new();
    loop {
        let t = threads(&counts);
        if t <= budget {
            all.push((time(&counts), t, counts.clone()));
        }
        // The next vector, the last count fastest.
        let mut i = k;
        loop {
            if i == 0 {
                let least = all.iter().map(|a| a.0).fold(f64::INFINITY, f64::min);
                let limit = least + TIE_TOLERANCE * least.abs();
                return all
                    .into_iter()
                    .filter(|a| a.0 <= limit)
                    .min_by(|p, q| (p.1, &p.2).cmp(&(q.1, &q.2)));
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

pub fn pairs<'n>(names: &'n [String], counts: &[u64]) -> Vec<(&'n str, u64)> {
    names
        .iter()
        .map(String::as_str)
        .zip(counts.iter().copied())
        .collect()
}

pub fn counts_of(best: &Allocation) -> Vec<u64> {
    best.counts.iter().map(|(_, c)| *c).collect()
}
