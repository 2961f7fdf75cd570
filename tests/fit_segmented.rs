//! Segmented models: Extra-P 4.2's `test_segmented_modeler.py` cases,
//! their data generated here (one function below a size, another from
//! it), and smooth noisy data that must stay one model.

mod common;

use common::extrap_approx;
use pattern_core::fit::{Fit, Fitter, Segmentation, TermClass};

/// `f` below `change`, `g` from it, at `ps`.
fn data(
    ps: &[f64],
    change: f64,
    f: impl Fn(f64) -> f64,
    g: impl Fn(f64) -> f64,
) -> Vec<(f64, f64)> {
    ps.iter()
        .map(|&p| (p, if p >= change { g(p) } else { f(p) }))
        .collect()
}

/// Whether `fit` is `constant + coefficient·class`.
/// Asserts that `fit` is `constant + coefficient·class` to Extra-P's 6 digits.
fn assert_is(fit: &Fit, constant: f64, coefficient: f64, class: TermClass) {
    let is = fit.class() == Some(class)
        && extrap_approx(constant, fit.constant())
        && fit
            .leading_coefficient()
            .is_some_and(|c| extrap_approx(coefficient, c));
    assert!(is, "{}", fit.model());
}

fn two(points: &[(f64, f64)]) -> pattern_core::fit::Segmented {
    match Fitter::default().var("p").fit_segmented(points).unwrap() {
        Segmentation::Two(s) => s,
        Segmentation::One(fit) => panic!("one model: {}", fit.model()),
    }
}

#[test]
fn extrap_segmented_cases_give_both_functions_and_the_change() {
    let ten: Vec<f64> = (1..=10).map(f64::from).collect();
    let s = two(&data(&ten, 6.0, |p| p * p, |p| 30.0 + p));
    assert_eq!((s.last_of_first, s.first_of_second), (5.0, 6.0));
    assert_is(&s.first, 0.0, 1.0, TermClass::extrap(2, 1, 0));
    assert_is(&s.second, 30.0, 1.0, TermClass::extrap(1, 1, 0));

    let nine: Vec<f64> = (1..=9).map(f64::from).collect();
    let s = two(&data(&nine, 5.0, |p| p * p, |p| 50.0 + 4.0 * p));
    assert_eq!((s.last_of_first, s.first_of_second), (4.0, 5.0));
    assert_is(&s.first, 0.0, 1.0, TermClass::extrap(2, 1, 0));
    assert_is(&s.second, 50.0, 4.0, TermClass::extrap(1, 1, 0));

    let fours: Vec<f64> = (1..=10).map(|k| f64::from(4 * k)).collect();
    let s = two(&data(&fours, 22.0, f64::log2, |p| p * p));
    assert_eq!((s.last_of_first, s.first_of_second), (20.0, 24.0));
    assert_is(&s.first, 0.0, 1.0, TermClass::extrap(0, 1, 1));
    assert_is(&s.second, 0.0, 1.0, TermClass::extrap(2, 1, 0));

    let s = two(&data(
        &ten,
        6.0,
        |p| 67.0 + 63.0 * p.powf(0.25) * p.log2().powi(2),
        |p| 93.0 + 64.0 * p.powf(5.0 / 3.0),
    ));
    assert_eq!((s.last_of_first, s.first_of_second), (5.0, 6.0));
    assert_is(&s.first, 67.0, 63.0, TermClass::extrap(1, 4, 2));
    assert_is(&s.second, 93.0, 64.0, TermClass::extrap(5, 3, 0));
    // One expression for both, usable as an atom's model.
    let model = s.model();
    for p in ten {
        let expected = if p >= 6.0 {
            93.0 + 64.0 * p.powf(5.0 / 3.0)
        } else {
            67.0 + 63.0 * p.powf(0.25) * p.log2().powi(2)
        };
        let got = model.eval(&[("p", p)]).unwrap();
        assert!(
            (got - expected).abs() <= 1e-9 * expected,
            "{p}: {got} vs {expected}"
        );
    }
    let atom = pattern_core::Design::parse(&format!("k = {model:#}; k")).unwrap();
    assert!(atom.term().check().is_ok());
}

#[test]
fn one_function_throughout_stays_one_model() {
    let tens: Vec<f64> = (1..=10).map(|k| f64::from(10 * k)).collect();
    let f = |p: f64| p * p * p.log2();
    match Fitter::default()
        .var("p")
        .fit_segmented(&data(&tens, 50.0, f, f))
        .unwrap()
    {
        Segmentation::One(fit) => assert_eq!(fit.class(), Some(TermClass::extrap(2, 1, 1))),
        Segmentation::Two(s) => panic!("two: {}", s.model()),
    }
}

#[test]
fn smooth_noisy_data_is_not_split() {
    use rand::{Rng, SeedableRng};
    let mut split = 0;
    for seed in 0..40 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let points: Vec<(f64, f64)> = (4..=13)
            .map(|k| f64::from(1u32 << k))
            .map(|x| {
                (
                    x,
                    1034.17 * x * x.log2() * (1.0 + 0.03 * (2.0 * rng.random::<f64>() - 1.0)),
                )
            })
            .collect();
        if matches!(
            Fitter::default().fit_segmented(&points).unwrap(),
            Segmentation::Two(_)
        ) {
            split += 1;
        }
    }
    assert_eq!(split, 0, "{split} of 40 split");
}
