//! The fitter's public API: exact recovery of every class, bad input, the
//! options (exponent sets, selection, multi-term, several parameters) and
//! the round trip through Extra-P's file formats.
use pattern_core::Expr;
use pattern_core::fit::extrap_io::Experiment;
use pattern_core::fit::measure::{Measurement, Samples};
use pattern_core::fit::{
    Aggregate, FitError, Fitter, HypothesisSpace, Rational64, Selection, TermClass, Weighting,
};

fn sizes() -> Vec<f64> {
    (0..7).map(|k| f64::from(1u32 << (4 + 2 * k))).collect()
}

fn data(f: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
    sizes().into_iter().map(|x| (x, f(x))).collect()
}

#[test]
fn every_class_is_recovered_exactly_from_exact_data() {
    let space = HypothesisSpace::extrap();
    for weighting in [Weighting::Relative, Weighting::Absolute] {
        let fitter = Fitter::default().weighting(weighting);
        for (i, &class) in space.terms().iter().enumerate() {
            let c1 = 0.37 * (i as f64 + 1.0);
            let c0 = 11.0 * c1 * class.eval(16.0);
            let fit = fitter.fit(&data(|x| c0 + c1 * class.eval(x))).unwrap();
            assert_eq!(
                fit.class(),
                Some(class),
                "{weighting:?} {class}: {}",
                fit.model()
            );
            let lead = fit.leading_coefficient().unwrap();
            assert!((lead - c1).abs() <= 1e-6 * c1, "{class}: {lead} vs {c1}");
            assert!(
                (fit.constant() - c0).abs() <= 1e-6 * c0,
                "{class}: {} vs {c0}",
                fit.constant()
            );
            // Leave-one-out error at rounding level (values reach 10^16).
            assert!(fit.stats().cv_smape < 1e-4, "{class}: {:?}", fit.stats());
            assert_eq!(fit.terms().len(), 1);
            assert_eq!(fit.hypotheses_evaluated(), 43);
        }
        let constant = fitter.fit(&data(|_| 5422.97)).unwrap();
        assert_eq!(constant.class(), Some(TermClass::CONSTANT));
        assert_eq!(constant.model(), &Expr::num(5422.97));
        assert_eq!(constant.leading_coefficient(), Some(5422.97));
    }
}

#[test]
fn models_are_pmnf_with_exact_exponents() {
    let fit = Fitter::default()
        .fit(&data(|x| 3.0 * x.powf(2.0 / 3.0) * x.log2()))
        .unwrap();
    assert_eq!(fit.model().to_string(), "3·x^(2/3)·log₂(x)");
    assert_eq!(fit.to_extrap_string(), "3 * x^(2/3) * log2(x)^(1)");
    let fit = Fitter::default()
        .fit(&data(|x| 536.185 * x + 5422.97))
        .unwrap();
    // The fit keeps every digit of its least squares; read to 12 of them.
    assert_eq!(format!("{:.12}", fit.model()), "536.185·x + 5422.97");
    assert_eq!(fit.params(), ["x"]);
    let stats = fit.stats();
    assert_eq!(stats.points, 7);
    assert!(stats.rss < 1e-12 && stats.smape < 1e-9);
    assert!((stats.adjusted_r2 - 1.0).abs() < 1e-12);
}

#[test]
fn statistics_of_a_noisy_fit() {
    // y = 10·x ± 1 alternating: in-sample figures by hand.
    let points: Vec<(f64, f64)> = (1..=6)
        .map(|k| {
            let x = f64::from(k * 10);
            (x, 10.0 * x + if k % 2 == 0 { 1.0 } else { -1.0 })
        })
        .collect();
    let fit = Fitter::default()
        .weighting(Weighting::Absolute)
        .space(HypothesisSpace::new([TermClass::extrap(1, 1, 0)]))
        .fit(&points)
        .unwrap();
    let predicted: Vec<f64> = points
        .iter()
        .map(|&(x, _)| fit.model().eval(&[("x", x)]).unwrap())
        .collect();
    let actual: Vec<f64> = points.iter().map(|p| p.1).collect();
    let rss: f64 = predicted
        .iter()
        .zip(&actual)
        .map(|(p, a)| (p - a).powi(2))
        .sum();
    let mean = actual.iter().sum::<f64>() / 6.0;
    let tss: f64 = actual.iter().map(|a| (a - mean).powi(2)).sum();
    let s = fit.stats();
    assert!((s.rss - rss).abs() < 1e-9);
    assert!((s.adjusted_r2 - (1.0 - rss / tss * 5.0 / 4.0)).abs() < 1e-12);
    assert!(
        s.cv_rss > s.rss,
        "leave-one-out error exceeds the in-sample error"
    );
    assert_eq!(s.score, s.cv_smape);
}

#[test]
fn bad_input_gives_clear_errors() {
    let f = Fitter::default();
    assert_eq!(f.fit(&[]).unwrap_err(), FitError::NoData);
    assert_eq!(
        f.fit(&[(1.0, 1.0), (2.0, 2.0), (2.0, 2.5)]).unwrap_err(),
        FitError::TooFewPoints {
            param: "x".into(),
            needed: 3,
            got: 2
        }
    );
    let err = f
        .fit(&[(1.0, 1.0), (2.0, f64::NAN), (3.0, 3.0)])
        .unwrap_err();
    assert_eq!(
        err,
        FitError::NonFinite {
            index: 1,
            what: "value = NaN".into()
        }
    );
    let err = f.fit(&[(f64::INFINITY, 1.0)]).unwrap_err();
    assert_eq!(err.to_string(), "point 0 is not finite: x = inf");
    let err = f.fit(&[(1.0, 1.0), (2.0, -0.5), (3.0, 3.0)]).unwrap_err();
    assert_eq!(
        err,
        FitError::NegativeValue {
            index: 1,
            value: -0.5
        }
    );
    // The message names no API (the command line adds its flag).
    assert_eq!(
        err.to_string(),
        "point 1: negative value -0.5 (times and counts cannot be negative)"
    );
    let err = f.fit(&[(0.0, 1.0), (2.0, 2.0), (3.0, 3.0)]).unwrap_err();
    assert_eq!(
        err,
        FitError::NonPositiveParameter {
            index: 0,
            param: "x".into(),
            value: 0.0
        }
    );
    assert!(matches!(
        f.fit(&[(-4.0, 1.0)]),
        Err(FitError::NonPositiveParameter { value: -4.0, .. })
    ));
    assert!(matches!(
        Fitter::default().max_terms(0).fit(&data(|x| x)),
        Err(FitError::InvalidOption(_))
    ));
    assert!(matches!(
        Fitter::default().max_terms(4).fit(&data(|x| x)),
        Err(FitError::InvalidOption(_))
    ));
    assert!(matches!(
        Fitter::default()
            .min_term_contribution(f64::NAN)
            .fit(&data(|x| x)),
        Err(FitError::InvalidOption(_))
    ));
    let points = [(vec![1.0, 2.0], 1.0), (vec![1.0], 1.0)];
    assert_eq!(
        f.fit_multi(&["x", "n"], &points).unwrap_err(),
        FitError::Dimension {
            index: 1,
            expected: 2,
            got: 1
        }
    );
    assert!(matches!(
        f.fit_multi(&["x", "x"], &points),
        Err(FitError::Parameters(_))
    ));
    assert!(matches!(
        f.fit_multi::<Vec<f64>>(&[], &[]),
        Err(FitError::Parameters(_))
    ));
}

#[test]
fn negative_values_when_allowed() {
    // A cost difference that crosses zero: 2·x − 50.
    let points = data(|x| 2.0 * x - 50.0);
    assert!(Fitter::default().fit(&points).is_err());
    let fit = Fitter::default()
        .allow_negative_values(true)
        .fit(&points)
        .unwrap();
    assert_eq!(fit.class(), Some(TermClass::extrap(1, 1, 0)));
    assert!((fit.constant() + 50.0).abs() < 1e-9);
}

#[test]
fn repetitions_and_duplicates_are_aggregated() {
    let base = data(|x| 7.0 + 2.0 * x);
    let mut noisy = Vec::new();
    for &(x, y) in base.iter().rev() {
        // The same point twice, and an outlier the median ignores.
        noisy.extend([(x, y), (x, y), (x, 5.0 * y)]);
    }
    let fit = Fitter::default().fit(&noisy).unwrap();
    assert_eq!(format!("{:.12}", fit.model()), "2·x + 7");
    let aggregated: Vec<f64> = fit.points().iter().map(|p| p.1).collect();
    assert_eq!(aggregated, base.iter().map(|p| p.1).collect::<Vec<_>>());
    // The mean of (y, y, 5·y) is 7/3·y: the outliers scale the model.
    let mean = Fitter::default()
        .aggregate(Aggregate::Mean)
        .fit(&noisy)
        .unwrap();
    assert!((mean.leading_coefficient().unwrap() - 2.0 * 7.0 / 3.0).abs() < 1e-9);
}

#[test]
fn sizes_below_one_leave_out_log_terms() {
    let points: Vec<(f64, f64)> = [0.5, 1.0, 2.0, 4.0, 8.0]
        .iter()
        .map(|&x| (x, 3.0 + x * x))
        .collect();
    let fit = Fitter::default().fit(&points).unwrap();
    assert!(fit.log_terms_dropped());
    assert_eq!(fit.class(), Some(TermClass::extrap(2, 1, 0)));
    assert_eq!(fit.hypotheses_evaluated(), 20);
    let fit = Fitter::default().fit(&data(|x| x)).unwrap();
    assert!(!fit.log_terms_dropped());
}

#[test]
fn user_defined_exponent_sets() {
    let r = Rational64::new;
    // x^(3/5) is not in Extra-P's space.
    let points = data(|x| 4.0 + 0.5 * x.powf(0.6));
    let default = Fitter::default().fit(&points).unwrap();
    assert_ne!(default.class(), Some(TermClass::extrap(3, 5, 0)));
    let space = HypothesisSpace::from_exponents(&[r(1, 2), r(3, 5), r(1, 1)], &[r(1, 1)], false);
    let fit = Fitter::default().space(space).fit(&points).unwrap();
    assert_eq!(fit.class(), Some(TermClass::extrap(3, 5, 0)));
    assert_eq!(fit.model().to_string(), "0.5·x^0.6 + 4");
    // Strong scaling needs negative exponents.
    let points = data(|x| 100.0 + 1e6 / x);
    let fit = Fitter::default()
        .space(HypothesisSpace::extrap().with_negative_exponents())
        .fit(&points)
        .unwrap();
    assert_eq!(fit.class(), Some(TermClass::extrap(-1, 1, 0)));
    assert!(
        fit.model()
            .approx_eq(&Expr::parse("100 + 1e6/x").unwrap(), 1e-9)
    );
}

#[test]
fn rss_selection_and_no_cross_validation() {
    let points = data(|x| 5.0 + 3.0 * x * x.log2());
    for fitter in [
        Fitter::default().selection(Selection::Rss),
        Fitter::default().cross_validation(false),
        Fitter::default()
            .selection(Selection::Rss)
            .cross_validation(false),
    ] {
        let fit = fitter.fit(&points).unwrap();
        assert_eq!(fit.class(), Some(TermClass::extrap(1, 1, 1)), "{fitter:?}");
    }
    let plain = Fitter::default()
        .cross_validation(false)
        .fit(&points)
        .unwrap();
    assert!(plain.stats().cv_smape.is_nan());
    assert_eq!(plain.stats().score, plain.stats().smape);
    let rss = Fitter::default()
        .selection(Selection::Rss)
        .fit(&points)
        .unwrap();
    assert_eq!(rss.stats().score, rss.stats().cv_rss);
}

#[test]
fn nonnegative_terms_reject_decreasing_models() {
    let points = data(|x| 1e4 - 3.0 * x.sqrt());
    let fit = Fitter::default().fit(&points).unwrap();
    assert!(fit.leading_coefficient().unwrap() < 0.0);
    let fit = Fitter::default()
        .nonnegative_terms(true)
        .fit(&points)
        .unwrap();
    assert!(
        fit.terms().iter().all(|t| t.coefficient > 0.0),
        "{}",
        fit.model()
    );
}

#[test]
fn multi_term_mode_finds_sums_of_classes() {
    // seq(qsort, inc) of seed 001: 1034.17·x·log2(x) + 536.185·x + 5422.97.
    let truth = |x: f64| 1034.17 * x * x.log2() + 536.185 * x + 5422.97;
    let points = data(truth);
    let single = Fitter::default().fit(&points).unwrap();
    assert_eq!(single.terms().len(), 1);
    let fit = Fitter::default().max_terms(2).fit(&points).unwrap();
    assert_eq!(fit.terms().len(), 2, "{}", fit.model());
    assert_eq!(fit.class(), Some(TermClass::extrap(1, 1, 1)));
    assert!(fit.model().approx_eq(
        &Expr::parse("1034.17*x*log2(x) + 536.185*x + 5422.97").unwrap(),
        1e-6
    ));
    assert_eq!(fit.hypotheses_evaluated(), 1 + 42 + 42 * 41 / 2);
    // A hypothesis needs k + 2 points: with 3 points only one term fits.
    let few: Vec<(f64, f64)> = points[..3].to_vec();
    let fit = Fitter::default().max_terms(2).fit(&few).unwrap();
    assert!(fit.terms().len() <= 1);
}

#[test]
fn two_parameter_models_product_and_sum() {
    let grid = |f: &dyn Fn(f64, f64) -> f64| {
        let mut points = Vec::new();
        for x in [64.0, 256.0, 1024.0, 4096.0, 16384.0] {
            for n in [2.0, 4.0, 8.0, 16.0, 32.0] {
                points.push((vec![x, n], f(x, n)));
            }
        }
        points
    };
    let fitter = Fitter::default().space(HypothesisSpace::extrap().with_negative_exponents());
    // Product: 5422.97 + 1034.17·x·log2(x)/n.
    let fit = fitter
        .fit_multi(
            &["x", "n"],
            &grid(&|x, n| 5422.97 + 1034.17 * x * x.log2() / n),
        )
        .unwrap();
    assert!(
        fit.model()
            .approx_eq(&Expr::parse("5422.97 + 1034.17*x*log2(x)/n").unwrap(), 1e-6),
        "{}",
        fit.model()
    );
    assert_eq!(fit.terms().len(), 1);
    assert_eq!(fit.terms()[0].factors.len(), 2);
    assert_eq!(fit.class(), None);
    assert_eq!(fit.params(), ["x", "n"]);
    // Sum: 7 + 2·x + 300·log2(n).
    let fit = fitter
        .fit_multi(&["x", "n"], &grid(&|x, n| 7.0 + 2.0 * x + 300.0 * n.log2()))
        .unwrap();
    assert!(
        fit.model()
            .approx_eq(&Expr::parse("7 + 2*x + 300*log2(n)").unwrap(), 1e-6),
        "{}",
        fit.model()
    );
    // A parameter without influence drops out.
    let fit = fitter
        .fit_multi(&["x", "n"], &grid(&|x, _| 3.0 * x))
        .unwrap();
    assert_eq!(fit.model().to_string(), "3·x");
    // One parameter through fit_multi names the variable.
    let fit = Fitter::default()
        .fit_multi(
            &["p"],
            &[([2.0], 4.0), ([4.0], 8.0), ([8.0], 16.0), ([16.0], 32.0)],
        )
        .unwrap();
    assert_eq!(fit.model().to_string(), "2·p");
    // Too few values along a parameter.
    let few = [
        (vec![1.0, 1.0], 1.0),
        (vec![2.0, 1.0], 2.0),
        (vec![3.0, 1.0], 3.0),
        (vec![1.0, 2.0], 2.0),
    ];
    assert_eq!(
        fitter.fit_multi(&["x", "n"], &few).unwrap_err(),
        FitError::TooFewPoints {
            param: "n".into(),
            needed: 3,
            got: 2
        }
    );
}

#[test]
fn var_names_the_model_variable() {
    let fit = Fitter::default()
        .var("b")
        .fit(&data(|b| 0.125 * b))
        .unwrap();
    assert_eq!(fit.model().to_string(), "0.125·b");
    assert_eq!(fit.model().growth("b").unwrap().to_string(), "O(b)");
}

#[test]
fn extrap_printed_models_parse() {
    for (printed, ours) in [
        (
            "-1487600.12 + 1039.05 * x^(1) * log2(x)^(1)",
            "1039.05·x·log₂(x) - 1487600.12",
        ),
        ("5422.97", "5422.97"),
        (
            "5.0 + 3.0 * x^(3/4) * log2(x)^(2)",
            "3·x^0.75·log₂(x)^2 + 5",
        ),
        ("1.2e-05 + 2.5 * x**(2/3)", "2.5·x^(2/3) + 1.2e-5"),
        ("100.0 + -3.0 * x^(1/3)", "-3·x^(1/3) + 100"),
        ("7.0 + 1e6 * x^(-1)", "7 + 1e6/x"),
        ("4.0 * x^(1) * n^(1/2) + 2.0", "4·n^0.5·x + 2"),
    ] {
        let e = Expr::parse(printed).unwrap_or_else(|e| panic!("{printed}: {e}"));
        assert_eq!(e.simplify().to_string(), ours, "{printed}");
    }
}

#[test]
fn measurements_round_trip_through_extrap_files() {
    let measurement = Measurement::from_samples(
        "qsort",
        (10..=15)
            .map(|k| {
                let x = 1usize << k;
                let t = 1034.17 * x as f64 * (x as f64).log2();
                Samples {
                    x,
                    times_ns: vec![t, t * 1.01, t * 0.99],
                    stopped_early: false,
                }
            })
            .collect(),
    );
    let mut experiment = Experiment::new(&["x"]);
    experiment.add_measurement(&measurement, "time");
    let dir = std::env::temp_dir().join(format!("pattern-fit-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text_path = dir.join("qsort.txt");
    let json_path = dir.join("qsort.json");
    std::fs::write(&text_path, experiment.to_text().unwrap()).unwrap();
    std::fs::write(&json_path, experiment.to_json().unwrap()).unwrap();
    for path in [&text_path, &json_path] {
        let back = Experiment::read_file(path).unwrap();
        assert_eq!(back, experiment, "{}", path.display());
        let fits = back.fit_all(&Fitter::default());
        assert_eq!(fits.len(), 1);
        let (region, metric, fit) = &fits[0];
        assert_eq!((region.as_str(), metric.as_str()), ("qsort", "time"));
        let fit = fit.as_ref().unwrap();
        assert_eq!(fit.class(), Some(TermClass::extrap(1, 1, 1)));
        assert!((fit.leading_coefficient().unwrap() - 1034.17).abs() < 1e-6);
    }
    let missing = Experiment::read_file(dir.join("missing.txt")).unwrap_err();
    assert!(missing.to_string().contains("missing.txt"), "{missing}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A standard normal variate (Box–Muller).
fn normal(rng: &mut rand_chacha::ChaCha8Rng) -> f64 {
    use rand::Rng;
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Timing-like data: 16 sizes 1,024..262,144, 31 repetitions each, `f(x)`
/// times `1 + σ·N(0, 1)` and now and then (5 %) a run 2–5× as long.
fn timings(seed: u64, sigma: f64, f: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut points = Vec::new();
    for k in [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256] {
        let x = f64::from(k * 1024);
        for _ in 0..31 {
            let mut y = f(x) * (1.0 + sigma * normal(&mut rng)).max(0.05);
            if rng.random::<f64>() < 0.05 {
                y *= rng.random_range(2.0..5.0);
            }
            points.push((x, y));
        }
    }
    points
}

#[test]
fn noise_test_picks_the_constant_for_flat_noisy_data() {
    // 50 flat data sets, 3–30 % noise and outliers: the search alone fits a
    // term to the noise in some of them (8 with these seeds); with the
    // noise test at most the level's share (1 %: here at most 1 of 50)
    // keeps one.
    let (mut plain_terms, mut tested_terms) = (0, 0);
    for seed in 0..50 {
        let sigma = 0.03 + 0.27 * f64::from(seed as u32) / 49.0;
        let points = timings(seed, sigma, |_| 25.0);
        let plain = Fitter::default().significance(None).fit(&points).unwrap();
        plain_terms += usize::from(plain.class() != Some(TermClass::CONSTANT));
        assert!(plain.significance().is_none());
        let fit = Fitter::default().fit(&points).unwrap();
        if fit.class() != Some(TermClass::CONSTANT) {
            tested_terms += 1;
        } else if let Some(t) = fit.significance() {
            assert!(!t.significant && t.p_value > t.threshold, "{t:?}");
            assert!((fit.constant() - 25.0).abs() < 0.1 * 25.0, "{fit}");
        }
    }
    eprintln!("terms kept: search alone {plain_terms}, with the noise test {tested_terms}");
    assert!(
        plain_terms >= 5,
        "the search alone kept a term {plain_terms} times"
    );
    assert!(tested_terms <= 1, "{tested_terms} of 50 kept a term");
}

#[test]
fn noise_test_keeps_a_genuine_trend() {
    for seed in 0..20 {
        // A drift of 20 % over the range, 10 % noise: small, but far beyond
        // the standard errors of 31 repetitions.
        let points = timings(100 + seed, 0.10, |x| 25.0 + 0.625 * (x.log2() - 10.0));
        let fit = Fitter::default().fit(&points).unwrap();
        assert_ne!(fit.class(), Some(TermClass::CONSTANT), "seed {seed}: {fit}");
        let t = fit.significance().unwrap();
        assert!(t.significant && t.p_value <= t.threshold, "{t:?}");
        // A kernel linear in x, as inc: O(x), overwhelmingly significant.
        let points = timings(200 + seed, 0.10, |x| 100.0 + 0.95 * x);
        let fit = Fitter::default().fit(&points).unwrap();
        assert_eq!(
            fit.class(),
            Some(TermClass::extrap(1, 1, 0)),
            "seed {seed}: {fit}"
        );
        let t = fit.significance().unwrap();
        assert!(t.p_value < 1e-12, "seed {seed}: {t:?}");
    }
}

#[test]
fn noise_test_needs_repetitions_and_is_off_in_extrap_mode() {
    // One value per size: no spread, no test, the search's choice.
    let points = data(|x| 25.0 + 0.01 * x.log2());
    let fit = Fitter::default().fit(&points).unwrap();
    assert!(fit.significance().is_none());
    assert_eq!(fit.class(), Some(TermClass::extrap(0, 1, 1)));
    // Extra-P's semantics: never tested.
    let noisy = timings(7, 0.2, |_| 25.0);
    let compatible = Fitter::extrap_compatible().fit(&noisy).unwrap();
    assert!(compatible.significance().is_none());
    for bad in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(matches!(
            Fitter::default().significance(Some(bad)).fit(&noisy),
            Err(FitError::InvalidOption(_))
        ));
    }
}

#[test]
fn resolution_floor_drops_only_changes_below_it() {
    // inc-like: 0.95 ns per element, the floor of a batched nop (0.8 ns):
    // kept, the check reports the span.
    let points = timings(300, 0.05, |x| 100.0 + 0.95 * x);
    let fit = Fitter::default()
        .resolution(Some(0.8))
        .fit(&points)
        .unwrap();
    assert_eq!(fit.class(), Some(TermClass::extrap(1, 1, 0)));
    let r = fit.resolution().unwrap();
    assert!(r.resolved && r.span > 1e3 && r.resolution == 0.8, "{r:?}");
    // A rise of 0.22 (0.9 %) across the sizes: significant with 0.5 %
    // noise, but below a floor of 1.25.
    let points = timings(301, 0.005, |x| 25.0 * (1.0 + 0.02 * x.log2() / 18.0));
    let tested = Fitter::default().fit(&points).unwrap();
    assert_ne!(tested.class(), Some(TermClass::CONSTANT), "{tested}");
    assert!(tested.resolution().is_none());
    let floored = Fitter::default()
        .resolution(Some(1.25))
        .fit(&points)
        .unwrap();
    assert_eq!(floored.class(), Some(TermClass::CONSTANT), "{floored}");
    assert!(!floored.resolution().unwrap().resolved);
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            Fitter::default().resolution(Some(bad)).fit(&points),
            Err(FitError::InvalidOption(_))
        ));
    }
}

#[test]
fn harness_resolution_is_the_clock_overhead_per_call() {
    use pattern_core::fit::measure::{Harness, Measurement};
    let m = Harness::new().repetitions(3).batch(4).progress(false).run(
        &[8, 16, 32],
        |x| vec![1u8; x],
        |v| v.len(),
    );
    let overhead = m.timer_overhead_ns().unwrap();
    assert_eq!(m.resolution_ns(), Some(overhead / 4.0));
    let copied = Measurement::from_samples("copy", m.sizes().to_vec());
    assert_eq!(copied.resolution_ns(), None);
}

#[test]
fn noise_test_keeps_growth_on_four_sizes() {
    // 0.2·x² at x = 20..50, each size's median off the curve by 1.5–3 %
    // (scatter between sizes), its 5 repetitions within ±0.3 %: the values
    // grow 6x, and the best term is significant against the effective
    // number of tests of 4 sizes, 2·3, where against all 42 hypotheses it
    // was not.
    let offsets = [1.03, 0.985, 1.015, 0.97];
    let mut points = Vec::new();
    for (x, off) in [20.0, 30.0, 40.0, 50.0].into_iter().zip(offsets) {
        for r in [0.997, 0.999, 1.0, 1.001, 1.003] {
            points.push((x, 0.2 * x * x * off * r));
        }
    }
    let fit = Fitter::default().fit(&points).unwrap();
    assert_ne!(fit.class(), Some(TermClass::CONSTANT), "{fit}");
    let t = fit.significance().unwrap();
    assert!(t.significant, "{t:?}");
    assert!((t.threshold - 0.01 / 6.0).abs() < 1e-15, "{t:?}");
    assert!(t.p_value > 0.01 / 42.0, "{t:?}");
}
