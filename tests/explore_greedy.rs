//! RPL-shell's greedy rules (pipebalance, maxresources) against the exact
//! allocation: cases where each loses, and their gaps over fixed sets of
//! random pipelines, as docs/explore.md and the README report them.

mod common;

use common::allocation::{counts_of, pools};
use pattern_core::Design;
use pattern_core::explore::allocation::{
    Allocator, GreedyRule, greedy_gap, maxresources, pipebalance,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Each greedy rule strictly worse than the optimum on a case.
#[test]
fn each_greedy_rule_can_lose() {
    // Two pools only: pipebalance balances to the fastest one-worker stage
    // and leaves 6 of 8 threads unused: 100 ns against 25.
    let d = Design::parse("f = 100; g = 100; pipe(tpool[a](f), tpool[b](g))").unwrap();
    let g = greedy_gap(&Allocator::new(&d, 8), GreedyRule::PipeBalance).unwrap();
    assert_eq!(counts_of(&g.greedy), [1, 1]);
    assert_eq!(counts_of(&g.optimum), [4, 4]);
    assert_eq!(g.gap, 4.0);
    assert!(g.within_budget);
    // maxresources takes a worker from a pool that then becomes the
    // bottleneck (see its doc): 250 ns against 200.
    let d = Design::parse("read = 100; f = 250; g = 1000; pipe(read, tpool[a](f), tpool[b](g))")
        .unwrap();
    let allocator = Allocator::new(&d, 8);
    let g = greedy_gap(&allocator, GreedyRule::MaxResources).unwrap();
    assert_eq!(counts_of(&g.greedy), [1, 6]);
    assert_eq!(counts_of(&g.optimum), [2, 5]);
    assert_eq!(g.gap, 1.25);
    // pipebalance there: 14 threads, over the budget (and faster).
    // (b is clamped to its range, 1..=8).
    let p = pipebalance(&allocator).unwrap();
    assert_eq!((p.threads, p.time_per_element), (12, 125.0));
    let pb = greedy_gap(&allocator, GreedyRule::PipeBalance).unwrap();
    assert!(!pb.within_budget && pb.gap < 1.0);
    assert_eq!(maxresources(&allocator).unwrap(), g.greedy);
}

fn random_atom(rng: &mut ChaCha8Rng) -> String {
    let a: f64 = rng.random_range(0.1..1000.0);
    let b = [0.0, 0.5, 1.0, 1.5, 2.0][rng.random_range(0..5)];
    let c = rng.random_range(0..=2);
    let d: f64 = rng.random_range(0.0..1000.0);
    format!("{a}*x^{b}*log2(x)^{c} + {d}")
}

fn median(v: &mut [f64]) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The gaps of both rules over a set of cases.
struct GapFigures {
    total: usize,
    pipebalance_over: usize,
    pipebalance_within: usize,
    pipebalance_optimal: usize,
    maxresources_optimal: usize,
    maxresources_median: Option<f64>,
    maxresources_mean: f64,
    maxresources_worst: f64,
}

impl GapFigures {
    /// The row of docs/explore.md's table for the case set `name`.
    fn row(&self, name: &str) -> String {
        let total = self.total;
        let mut pipebalance = format!("over the budget in {} of {total}", self.pipebalance_over);
        if self.pipebalance_within > 0 {
            pipebalance += &if self.pipebalance_optimal == self.pipebalance_within {
                format!("; optimal in the {} others", self.pipebalance_within)
            } else {
                format!(
                    "; optimal in {} of the {} others",
                    self.pipebalance_optimal, self.pipebalance_within
                )
            };
        }
        let median = self
            .maxresources_median
            .map_or_else(|| "-".to_string(), |m| format!("{m:.1}"));
        format!(
            "| {name} | {pipebalance} | optimal in {} of {total}; median gap {median}, mean {:.3}, worst {:.3} |",
            self.maxresources_optimal, self.maxresources_mean, self.maxresources_worst
        )
    }
}

/// The gaps of both rules over 50 seeded pipelines of six stages of random
/// atoms `a·x^b·log2(x)^c + d` at x = 1000, with budgets 8, 16, 32 and 64:
/// six pools, or a sequential first stage and five pools.
fn gap_figures(sequential_first: bool) -> GapFigures {
    let mut rng = ChaCha8Rng::seed_from_u64(19);
    let (mut pb, mut mr) = (Vec::new(), Vec::new());
    let (mut pb_over, mut total) = (0, 0);
    for _ in 0..50 {
        let models: Vec<String> = (0..6).map(|_| random_atom(&mut rng)).collect();
        let text = if sequential_first {
            let mut d = pools(&models[1..]).to_string();
            d = d.replacen("pipe(", "pipe(read, ", 1);
            format!("read = {};\n{d}", models[0])
        } else {
            pools(&models).to_string()
        };
        let d = Design::parse(&text).unwrap();
        for budget in [8, 16, 32, 64] {
            let allocator = Allocator::new(&d, budget).at(&[("x", 1000.0)]);
            total += 1;
            let p = greedy_gap(&allocator, GreedyRule::PipeBalance).unwrap();
            if p.within_budget {
                assert!(p.gap >= 1.0);
                pb.push(p.gap);
            } else {
                pb_over += 1;
            }
            let m = greedy_gap(&allocator, GreedyRule::MaxResources).unwrap();
            assert!(m.within_budget && m.gap >= 1.0);
            mr.push(m.gap);
        }
    }
    let optimal = |v: &[f64]| v.iter().filter(|&&g| g == 1.0).count();
    GapFigures {
        total,
        pipebalance_over: pb_over,
        pipebalance_within: pb.len(),
        pipebalance_optimal: optimal(&pb),
        maxresources_optimal: optimal(&mr),
        maxresources_median: median(&mut mr),
        maxresources_mean: mr.iter().sum::<f64>() / mr.len() as f64,
        maxresources_worst: mr.iter().copied().fold(f64::NAN, f64::max),
    }
}

/// The greedy rules' gap over the fixed sets of cases of [`gap_figures`]
/// is what docs/explore.md's table and the README say.
#[test]
fn greedy_gap_figures() {
    let root = env!("CARGO_MANIFEST_DIR");
    let docs = std::fs::read_to_string(format!("{root}/docs/explore.md")).unwrap();
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let pools_only = gap_figures(false);
    let with_reader = gap_figures(true);
    for row in [
        pools_only.row("six pools"),
        with_reader.row("a sequential stage and five pools"),
    ] {
        assert!(docs.contains(&row), "docs/explore.md lacks\n{row}");
    }
    let said = format!(
        "*pipebalance* exceeds the budget in all {};\n*maxresources* is optimal in {}, {:.1} % slower on average, {:.2}× at worst",
        pools_only.total,
        pools_only.maxresources_optimal,
        (pools_only.maxresources_mean - 1.0) * 100.0,
        pools_only.maxresources_worst
    );
    assert_eq!(pools_only.pipebalance_over, pools_only.total);
    assert!(readme.contains(&said), "README.md lacks\n{said}");
}
