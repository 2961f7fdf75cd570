//! The noise-free oracle of Extra-P's `tests/test_basic_modeler.py`,
//! generated here: `c0 + c·p^(a/b)·log₂(p)^j` at p = 2, 4, 8, 16, 32 for
//! Extra-P's exponent lists, each model recovered to Extra-P's
//! `assertApproxFunction` (the class exactly, the constant and the
//! coefficient to 6 significant digits). 234 cases with the default
//! hypotheses (`test_modeling`, `test_modeling2`, `test_modeling3`), 96 with
//! negative exponents (`test_modeling_negative_exponents`), in the default
//! mode and in the Extra-P compatible one.

mod common;

use common::extrap_approx;
use pattern_core::fit::{Fitter, HypothesisSpace, TermClass};

const POINTS: [f64; 5] = [2.0, 4.0, 8.0, 16.0, 32.0];

/// `test_modeling2`'s and `test_modeling3`'s exponents.
const SOME: [(i64, i64, i64); 24] = [
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

/// One oracle case: the class `(a, b, j)`, its coefficient, the constant.
type Case = ((i64, i64, i64), f64, f64);

/// The 234 cases of the default hypotheses.
fn default_cases() -> Vec<Case> {
    // `test_modeling`: every default class.
    let mut cases: Vec<Case> = HypothesisSpace::extrap()
        .terms()
        .iter()
        .map(|t| {
            let (power, log) = (t.power(), t.log());
            ((*power.numer(), *power.denom(), *log.numer()), 10.0, 200.0)
        })
        .collect();
    for coefficient in [200.0, 3000.0, 40000.0, 500000.0] {
        cases.extend(SOME.iter().map(|&e| (e, coefficient, 200.0)));
    }
    for constant in [200.0, 3000.0, 40000.0, 500000.0] {
        cases.extend(SOME.iter().map(|&e| (e, 1000.0, constant)));
    }
    cases
}

/// The 96 cases with negative exponents: `SOME` mirrored, constants 2–5000.
fn negative_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for constant in [2.0, 30.0, 400.0, 5000.0] {
        cases.extend(
            SOME.iter()
                .map(|&(a, b, j)| ((-a, b, -j), 1000.0, constant)),
        );
    }
    cases
}

/// The cases `fitter` does not recover, described.
fn misses(fitter: &Fitter, cases: &[Case]) -> Vec<String> {
    let mut misses = Vec::new();
    for &((a, b, j), coefficient, constant) in cases {
        let class = TermClass::extrap(a, b, j);
        let points: Vec<(f64, f64)> = POINTS
            .iter()
            .map(|&p| (p, constant + coefficient * class.eval(p)))
            .collect();
        let fit = fitter.fit(&points).expect("the oracle fits");
        let recovered = fit.class() == Some(class)
            && fit
                .leading_coefficient()
                .is_some_and(|c| extrap_approx(coefficient, c))
            && extrap_approx(constant, fit.constant());
        if !recovered {
            misses.push(format!(
                "{constant} + {coefficient}·{}: got {}",
                class.to_extrap("p"),
                fit.model()
            ));
        }
    }
    misses
}

#[test]
fn the_default_mode_recovers_all_234_noise_free_models() {
    let cases = default_cases();
    assert_eq!(cases.len(), 234);
    assert_eq!(misses(&Fitter::default(), &cases), Vec::<String>::new());
}

#[test]
fn the_compatible_mode_recovers_all_234_as_extrap_does() {
    let cases = default_cases();
    assert_eq!(
        misses(&Fitter::extrap_compatible(), &cases),
        Vec::<String>::new()
    );
}

#[test]
fn negative_exponents_recover_all_96() {
    let cases = negative_cases();
    assert_eq!(cases.len(), 96);
    let space = HypothesisSpace::extrap().with_negative_exponents();
    for fitter in [Fitter::default(), Fitter::extrap_compatible()] {
        let fitter = fitter.space(space.clone());
        assert_eq!(misses(&fitter, &cases), Vec::<String>::new());
    }
    // Without them, a decaying model is not in the search.
    assert!(misses(&Fitter::default(), &cases).len() > 90);
}

#[test]
fn rounding_residue_is_still_cleared() {
    // Exact data of a term alone: the fit's constant is rounding residue.
    let points: Vec<(f64, f64)> = (1..=12)
        .map(|k| f64::from(1 << k))
        .map(|x| (x, 3.0 * x.powf(2.0 / 3.0) * x.log2()))
        .collect();
    let fit = Fitter::default().fit(&points).unwrap();
    assert_eq!(fit.constant(), 0.0);
    assert_eq!(fit.model().to_string(), "3·x^(2/3)·log₂(x)");
}
