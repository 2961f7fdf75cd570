//! Three-parameter accuracy against the generating function (issue 36,
//! point 6): data like Extra-P's three-parameter test files — the grid
//! x ∈ {20..60}, y ∈ {1..5}, z ∈ {100..500}, 5 repetitions with seeded
//! uniform ±2 % noise — and the model's relative error at 4 times the
//! largest measured value of every parameter, `(240, 20, 2000)`.

use pattern_core::fit::Fitter;
use rand::{Rng, SeedableRng};

/// Extra-P's generating function of `three_parameter_1.txt`.
fn extrap_truth(x: f64, y: f64, z: f64) -> f64 {
    0.1 * x * y * y * z + 0.2 * x * x * y.log2()
}

/// The grid's points, 5 repetitions each of `truth` times `1 ± 2 %`.
fn grid(seed: u64, truth: impl Fn(f64, f64, f64) -> f64) -> Vec<([f64; 3], f64)> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut points = Vec::new();
    for x in [20.0, 30.0, 40.0, 50.0, 60.0] {
        for y in [1.0, 2.0, 3.0, 4.0, 5.0] {
            for z in [100.0, 200.0, 300.0, 400.0, 500.0] {
                for _ in 0..5 {
                    let noise = 1.0 + rng.random_range(-0.02..0.02);
                    points.push(([x, y, z], truth(x, y, z) * noise));
                }
            }
        }
    }
    points
}

/// The relative error of `fitter`'s model at `(240, 20, 2000)`.
fn error_at_4x(
    fitter: &Fitter,
    seed: u64,
    truth: impl Fn(f64, f64, f64) -> f64 + Copy,
) -> (f64, String) {
    let fit = fitter
        .fit_multi(&["x", "y", "z"], &grid(seed, truth))
        .unwrap();
    let at = fit
        .model()
        .eval(&[("x", 240.0), ("y", 20.0), ("z", 2000.0)])
        .unwrap();
    let want = truth(240.0, 20.0, 2000.0);
    ((at / want - 1.0).abs(), fit.model().to_string())
}

/// Seed 10: the truth's two monomials are found (0.02 % off at 4x); Extra-P's
/// structures alone are 37 % off.
#[test]
fn extrap_three_parameter_truth_is_found() {
    let (off, model) = error_at_4x(&Fitter::default(), 10, extrap_truth);
    assert!(off < 0.01, "{:.2} % off: {model}", 100.0 * off);
    // One term per parameter (Extra-P's structures alone) cannot hold
    // y² and log₂y.
    let (before, model) = error_at_4x(&Fitter::default().monomial_search(false), 10, extrap_truth);
    assert!(before > 0.1, "{:.2} % off: {model}", 100.0 * before);
}

/// Other sums with two terms in one parameter, or with different exponents
/// per monomial, over three seeds: the search's mean error at 4x is below
/// that of Extra-P's structures alone, none is off by more than the bound
/// measured (with margin): 34 % at most (`0.02·x³ + 5·x·y²`, seed 2; the
/// others 0.03–18 %), where Extra-P's structures alone are off by up to
/// 150 times.
#[test]
fn sums_with_two_terms_in_one_parameter() {
    type Truth = fn(f64, f64, f64) -> f64;
    let cases: [(&str, Truth); 4] = [
        ("3·x·z + 40·x·y·log₂z", |x, y, z| {
            3.0 * x * z + 40.0 * x * y * z.log2()
        }),
        ("0.02·x³ + 5·x·y²", |x, y, _| {
            0.02 * x * x * x + 5.0 * x * y * y
        }),
        ("100 + 0.5·x·y·z + 20·y²·√z", |x, y, z| {
            100.0 + 0.5 * x * y * z + 20.0 * y * y * z.sqrt()
        }),
        ("2·x²·y + 0.01·x·z^1.5", |x, y, z| {
            2.0 * x * x * y + 0.01 * x * z.powf(1.5)
        }),
    ];
    let plain = Fitter::default().monomial_search(false);
    for (name, truth) in cases {
        let (mut now, mut before) = (Vec::new(), Vec::new());
        for seed in 1..=3 {
            let (off, model) = error_at_4x(&Fitter::default(), seed, truth);
            assert!(
                off < 0.4,
                "{name}, seed {seed}: {:.2} % off: {model}",
                100.0 * off
            );
            now.push(off);
            before.push(error_at_4x(&plain, seed, truth).0);
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        assert!(mean(&now) < mean(&before), "{name}: {now:?} vs {before:?}");
    }
}

/// Over twelve seeds, Extra-P's truth: never off by more than 15 % at 4x
/// (12.7 % at most measured; Extra-P's model of `three_parameter_1.txt`
/// is off by 19.6 %), always closer than Extra-P's structures alone
/// (26–37 %), and found (within 2 %) on at least two (three measured: the
/// others stop at `x·y²·z^(3/4)·log₂z` and a negative correction).
#[test]
fn extrap_truth_over_seeds() {
    let mut found = 0;
    for seed in 1..=12 {
        let (off, model) = error_at_4x(&Fitter::default(), seed, extrap_truth);
        let (before, _) = error_at_4x(
            &Fitter::default().monomial_search(false),
            seed,
            extrap_truth,
        );
        assert!(off < 0.15, "seed {seed}: {:.2} % off: {model}", 100.0 * off);
        assert!(off < before, "seed {seed}: {off} vs {before}");
        found += usize::from(off < 0.02);
    }
    assert!(found >= 2, "{found}");
}
