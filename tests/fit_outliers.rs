//! One outlier among the points: Extra-P's default classes as the truth,
//! `1000 + 100·f(x)` at x = 4..64, the value at 16 ten times too low (or
//! too high); the model extrapolated to x = 512 against the truth.

use pattern_core::fit::{Fitter, HypothesisSpace, TermClass};

const XS: [f64; 5] = [4.0, 8.0, 16.0, 32.0, 64.0];

/// The cases whose model is off the truth by more than half at x = 512,
/// and how many named the point at 16 as the outlier.
fn off_at_512(fitter: &Fitter, scale: f64) -> (usize, usize) {
    let (mut off, mut named) = (0, 0);
    for &class in HypothesisSpace::extrap().terms() {
        let truth = |x: f64| 1000.0 + 100.0 * class.eval(x);
        let points: Vec<(f64, f64)> = XS
            .iter()
            .map(|&x| {
                (
                    x,
                    if x == 16.0 {
                        truth(x) * scale
                    } else {
                        truth(x)
                    },
                )
            })
            .collect();
        let fit = fitter.fit(&points).unwrap();
        let at = fit.model().eval(&[("x", 512.0)]).unwrap();
        if (at / truth(512.0) - 1.0).abs() > 0.5 {
            off += 1;
        }
        if fit.outlier().is_some_and(|o| o.x == 16.0) {
            named += 1;
        }
    }
    (off, named)
}

#[test]
fn a_low_outlier_does_not_move_the_class() {
    assert_eq!(HypothesisSpace::extrap().terms().len(), 42);
    let (off, named) = off_at_512(&Fitter::default(), 0.1);
    assert_eq!(off, 0, "{off} of 42 off by more than half at 512");
    assert_eq!(named, 42);
    // Without leaving it out, most are off (Extra-P's choices too).
    let (kept_off, none) = off_at_512(&Fitter::default().robust(false), 0.1);
    assert!(kept_off > 30, "{kept_off}");
    assert_eq!(none, 0);
}

#[test]
fn a_high_outlier_does_not_either() {
    let (off, named) = off_at_512(&Fitter::default(), 10.0);
    assert_eq!(off, 0, "{off} of 42 off by more than half at 512");
    assert_eq!(named, 42);
}

#[test]
fn the_first_and_last_points_and_clean_data_are_kept() {
    let cube = |x: f64| 100.0 * x * x * x + 1000.0;
    // The last point ten times higher: a change of growth, not an outlier.
    let points: Vec<(f64, f64)> = XS
        .iter()
        .map(|&x| (x, if x == 64.0 { cube(x) * 10.0 } else { cube(x) }))
        .collect();
    assert!(Fitter::default().fit(&points).unwrap().outlier().is_none());
    // ±4 % noise: no point is ten times the others' scatter off.
    let noisy: Vec<(f64, f64)> = XS
        .iter()
        .zip([1.04, 0.96, 1.03, 0.97, 1.02])
        .map(|(&x, n)| (x, cube(x) * n))
        .collect();
    let fit = Fitter::default().fit(&noisy).unwrap();
    assert!(fit.outlier().is_none());
    assert_eq!(fit.class(), Some(TermClass::extrap(3, 1, 0)));
}
