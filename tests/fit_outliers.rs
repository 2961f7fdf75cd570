//! Outliers among the points. One parameter: Extra-P's default classes as the truth,
//! `1000 + 100·f(x)` at x = 4..64, the value at 16 ten times too low (or
//! too high); the model extrapolated to x = 512 against the truth. Three
//! parameters: `x³·y² + z` with two points ten times too low.

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
        if fit.outliers().iter().any(|o| o.coordinate == [16.0]) {
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
    assert!(
        Fitter::default()
            .fit(&points)
            .unwrap()
            .outliers()
            .is_empty()
    );
    // ±4 % noise: no point is ten times the others' scatter off.
    let noisy: Vec<(f64, f64)> = XS
        .iter()
        .zip([1.04, 0.96, 1.03, 0.97, 1.02])
        .map(|(&x, n)| (x, cube(x) * n))
        .collect();
    let fit = Fitter::default().fit(&noisy).unwrap();
    assert!(fit.outliers().is_empty());
    assert_eq!(fit.class(), Some(TermClass::extrap(3, 1, 0)));
}

/// `x³·y² + z` on a 5×5×5 grid, as Extra-P's `json_test_input3`: values
/// `low` times the truth at the coordinates `bad`, ±`noise` alternating.
fn grid(bad: &[[f64; 3]], low: f64, noise: f64) -> Vec<(Vec<f64>, f64)> {
    let mut points = Vec::new();
    for x in [4.0, 8.0, 16.0, 32.0, 64.0] {
        for y in [10.0, 20.0, 30.0, 40.0, 50.0] {
            for z in [100.0, 200.0, 300.0, 400.0, 500.0] {
                let truth = x * x * x * y * y + z;
                let sign = if points.len() % 2 == 0 { 1.0 } else { -1.0 };
                let y_value = if bad.contains(&[x, y, z]) {
                    truth * low
                } else {
                    truth * (1.0 + sign * noise)
                };
                points.push((vec![x, y, z], y_value));
            }
        }
    }
    points
}

#[test]
fn several_parameters_leave_out_the_points_the_others_contradict() {
    let bad = [[16.0, 10.0, 400.0], [16.0, 10.0, 500.0]];
    let fit = Fitter::default()
        .fit_multi(&["x", "y", "z"], &grid(&bad, 0.1, 0.0))
        .unwrap();
    let left: Vec<&[f64]> = fit
        .outliers()
        .iter()
        .map(|o| o.coordinate.as_slice())
        .collect();
    assert_eq!(left, [bad[0].as_slice(), bad[1].as_slice()]);
    assert!(
        fit.outliers()
            .iter()
            .all(|o| (o.ratio() - 0.1).abs() < 1e-3)
    );
    // At 4x the measured range the model is the truth's: x³·y² leads.
    let at = [("x", 256.0), ("y", 200.0), ("z", 2000.0)];
    let truth = 256.0f64.powi(3) * 200.0 * 200.0 + 2000.0;
    let got = fit.model().eval(&at).unwrap();
    assert!(
        (got / truth - 1.0).abs() < 1e-3,
        "{} gives {got}",
        fit.model()
    );
    // Without leaving them out, the fit of all points is far off there.
    let kept = Fitter::default()
        .robust(false)
        .fit_multi(&["x", "y", "z"], &grid(&bad, 0.1, 0.0))
        .unwrap();
    assert!(
        (kept.model().eval(&at).unwrap() / truth - 1.0).abs() > 0.05,
        "{}",
        kept.model()
    );
}

#[test]
fn several_parameters_keep_every_point_of_noisy_data() {
    // ±2 % noise and no outlier: nothing is ten times the others' scatter off.
    let fit = Fitter::default()
        .fit_multi(&["x", "y", "z"], &grid(&[], 1.0, 0.02))
        .unwrap();
    assert!(fit.outliers().is_empty(), "{:?}", fit.outliers());
}
