//! The fixed synthetic suite of the fitter: data from known PMNF functions
//! `c0 + c1·x^i·log2(x)^j` (or a constant) with 1–5 % noise, seeded. Shared
//! by `tests/fit_synthetic.rs` and `examples/extrap_compare.rs`, so the
//! Extra-P comparison runs on exactly the tested data.
#![allow(dead_code)]

pub mod oracle;

use pattern_core::fit::{HypothesisSpace, TermClass};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The seed of the suite.
pub const SEED: u64 = 0x5EED_0001;
/// Number of cases.
pub const CASES: usize = 200;
/// Repetitions per size.
pub const REPETITIONS: usize = 5;

/// The sizes: 8 sizes, 2^6 to 2^20 in factors of 4.
pub fn sizes() -> Vec<f64> {
    (0..8).map(|k| f64::from(1u32 << (6 + 2 * k))).collect()
}

/// One synthetic data set.
#[derive(Clone, Debug)]
pub struct Case {
    /// Position in the suite.
    pub id: usize,
    /// The true class ([`TermClass::CONSTANT`] for a constant function).
    pub class: TermClass,
    /// The true constant.
    pub c0: f64,
    /// The true term coefficient (0 for a constant function).
    pub c1: f64,
    /// The relative noise (standard deviation) of each repetition.
    pub sigma: f64,
    /// `REPETITIONS` noisy values per size.
    pub points: Vec<(f64, f64)>,
}

impl Case {
    /// The true leading coefficient (`c0` for a constant function).
    pub fn leading(&self) -> f64 {
        if self.class.is_constant() {
            self.c0
        } else {
            self.c1
        }
    }

    /// Whether a fitted class and leading coefficient are right: the same
    /// class and the coefficient within 5 %.
    pub fn judge(&self, class: Option<TermClass>, leading: Option<f64>) -> bool {
        match (class, leading) {
            (Some(c), Some(l)) => {
                c == self.class && (l - self.leading()).abs() <= 0.05 * self.leading().abs()
            }
            _ => false,
        }
    }
}

/// A standard normal variate (Box–Muller).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The suite: `CASES` cases from `SEED`. The class is drawn uniformly from
/// the 43 hypotheses of Extra-P's default space (the constant included),
/// `c1` log-uniformly from 0.1 to 1000, `c0` uniformly between 0 and the
/// term's value at the smallest size, the noise level uniformly from 1 % to
/// 5 % and each repetition is `f(x)·(1 + σ·N(0, 1))`.
pub fn suite() -> Vec<Case> {
    let space = HypothesisSpace::extrap();
    let xs = sizes();
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    (0..CASES)
        .map(|id| {
            let pick = rng.random_range(0..=space.len());
            let class = if pick == 0 {
                TermClass::CONSTANT
            } else {
                space.terms()[pick - 1]
            };
            let sigma = rng.random_range(0.01..=0.05);
            let (c0, c1) = if class.is_constant() {
                (10f64.powf(rng.random_range(1.0..4.0)), 0.0)
            } else {
                let c1 = 10f64.powf(rng.random_range(-1.0..3.0));
                (rng.random_range(0.0..1.0) * c1 * class.eval(xs[0]), c1)
            };
            let mut points = Vec::with_capacity(xs.len() * REPETITIONS);
            for &x in &xs {
                let f = c0 + c1 * class.eval(x);
                for _ in 0..REPETITIONS {
                    points.push((x, f * (1.0 + sigma * normal(&mut rng))));
                }
            }
            Case {
                id,
                class,
                c0,
                c1,
                sigma,
                points,
            }
        })
        .collect()
}
