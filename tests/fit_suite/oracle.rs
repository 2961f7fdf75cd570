//! Extra-P's noise-free oracle (`tests/test_basic_modeler.py`), generated
//! here: `c0 + c·p^(a/b)·log₂(p)^j` at p = 2, 4, 8, 16, 32 for Extra-P's
//! exponent lists; and the same functions with noise, as a suite of
//! [`Case`]s for the comparison with Extra-P (`examples/extrap_compare.rs`).

use super::{Case, REPETITIONS};
use pattern_core::fit::{HypothesisSpace, TermClass};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The seed of the noisy oracle suite.
pub const SEED: u64 = 0x0AC1_E000;

/// The sizes of the oracle.
pub const POINTS: [f64; 5] = [2.0, 4.0, 8.0, 16.0, 32.0];

/// `test_modeling2`'s and `test_modeling3`'s exponents.
pub const SOME: [(i64, i64, i64); 24] = [
    (0, 1, 1),
    (0, 1, 2),
    (1, 4, 0),
    (1, 2, 0),
    (1, 2, 1),
    (1, 2, 2),
    (2, 3, 0),
    (1, 1, 0),
    (1, 1, 1),
    (1, 1, 2),
    (5, 4, 0),
    (4, 3, 0),
    (3, 2, 0),
    (5, 3, 0),
    (7, 4, 0),
    (2, 1, 0),
    (9, 4, 0),
    (7, 3, 0),
    (5, 2, 0),
    (5, 2, 2),
    (8, 3, 0),
    (11, 4, 0),
    (3, 1, 0),
    (3, 1, 1),
];

/// One oracle case: the class, its coefficient, the constant.
pub type Oracle = (TermClass, f64, f64);

/// The 234 cases of the default hypotheses: `test_modeling` (every default
/// class, coefficient 10, constant 200), `test_modeling2` (coefficients 200
/// to 500,000, constant 200), `test_modeling3` (coefficient 1000, constants
/// 200 to 500,000).
pub fn cases() -> Vec<Oracle> {
    let mut cases: Vec<Oracle> = HypothesisSpace::extrap()
        .terms()
        .iter()
        .map(|&t| (t, 10.0, 200.0))
        .collect();
    let some = |(a, b, j): (i64, i64, i64)| TermClass::extrap(a, b, j);
    for coefficient in [200.0, 3000.0, 40000.0, 500000.0] {
        cases.extend(SOME.iter().map(|&e| (some(e), coefficient, 200.0)));
    }
    for constant in [200.0, 3000.0, 40000.0, 500000.0] {
        cases.extend(SOME.iter().map(|&e| (some(e), 1000.0, constant)));
    }
    cases
}

/// The 96 cases with negative exponents (`test_modeling_negative_exponents`):
/// `SOME` mirrored, coefficient 1000, constants 2 to 5000.
pub fn negative_cases() -> Vec<Oracle> {
    let mut cases = Vec::new();
    for constant in [2.0, 30.0, 400.0, 5000.0] {
        cases.extend(
            SOME.iter()
                .map(|&(a, b, j)| (TermClass::extrap(-a, b, -j), 1000.0, constant)),
        );
    }
    cases
}

/// The 234 oracle functions twice (two draws), each size with
/// `REPETITIONS` values `f(p)·(1 + u)`, `u` uniform in `±noise`, seeded.
pub fn noisy(noise: f64, seed: u64) -> Vec<Case> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..2 {
        for (class, c1, c0) in cases() {
            let mut points = Vec::with_capacity(POINTS.len() * REPETITIONS);
            for &p in &POINTS {
                let f = c0 + c1 * class.eval(p);
                for _ in 0..REPETITIONS {
                    points.push((p, f * (1.0 + noise * rng.random_range(-1.0..=1.0))));
                }
            }
            out.push(Case {
                id: out.len(),
                class,
                c0,
                c1,
                sigma: noise,
                points,
            });
        }
    }
    out
}
