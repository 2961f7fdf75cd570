//! Honest extrapolation: where a fitted model turns negative or its growth
//! turns, and the preference, among models the data cannot tell apart, for
//! one that stays non-negative up to 16 times the largest size measured.

use pattern_core::fit::{Fitter, TermClass};

/// A flat series with noise, at x = 2..64 (one of 20,000 generated: level,
/// slope and noise drawn; its values rounded).
const FLAT: [f64; 6] = [14.66, 14.22, 15.27, 14.89, 14.63, 14.22];

fn points(ys: &[f64]) -> Vec<(f64, f64)> {
    ys.iter()
        .enumerate()
        .map(|(i, &y)| (f64::from(1u32 << (i + 1)), y))
        .collect()
}

#[test]
fn a_model_that_turns_negative_soon_gives_way_to_one_within_the_noise() {
    let flat = points(&FLAT);
    // Scored alone, the best is a falling high power, negative from about
    // 3.4 times the largest size.
    let plain = Fitter::default()
        .prefer_nonnegative(false)
        .fit(&flat)
        .unwrap();
    assert!(
        plain.leading_coefficient().unwrap() < 0.0,
        "{}",
        plain.model()
    );
    let from = plain.extrapolation().unwrap().negative_from.unwrap();
    assert!(from > 64.0 && from < 16.0 * 64.0, "{from}");
    assert!(plain.set_aside().is_none());
    // Preferred: the constant, within the noise of it.
    let fit = Fitter::default().fit(&flat).unwrap();
    assert_eq!(fit.class(), Some(TermClass::CONSTANT), "{}", fit.model());
    let aside = fit.set_aside().unwrap();
    assert_eq!(&aside.model, plain.model());
    assert_eq!(aside.negative_from, from);
    let noise = pattern_core::fit::within_noise(FLAT.len());
    assert!(aside.cv_rss_ratio <= noise, "{}", aside.cv_rss_ratio);
    let mean = FLAT.iter().sum::<f64>() / 6.0;
    assert!((fit.constant() - mean).abs() < 1e-12);
    assert_eq!(fit.extrapolation().unwrap().negative_from, None);
    // Extra-P's choices keep the best scored.
    let compatible = Fitter::extrap_compatible().fit(&flat).unwrap();
    assert!(compatible.set_aside().is_none());
    assert!(compatible.leading_coefficient().unwrap() < 0.0);
}

#[test]
fn a_model_the_data_determine_is_kept_and_its_limit_reported() {
    // 93.4 − 6.55·log2(p) exactly, p = 512..16384: nothing else fits, and
    // it turns negative at 2^(93.4/6.55) ≈ 19,500, 1.2 times the largest p.
    let exact: Vec<(f64, f64)> = (9..=14)
        .map(|k| (f64::from(1u32 << k), 93.4 - 6.55 * f64::from(k)))
        .collect();
    let fit = Fitter::default().var("p").fit(&exact).unwrap();
    assert_eq!(fit.class(), Some(TermClass::extrap(0, 1, 1)));
    assert!(fit.set_aside().is_none());
    let beyond = fit.extrapolation().unwrap();
    let root = 2f64.powf(93.4 / 6.55);
    assert!((beyond.negative_from.unwrap() - root).abs() < 1e-6 * root);
    assert!((beyond.negative_beyond().unwrap() - root / 16384.0).abs() < 1e-6);
    assert_eq!(beyond.growth_turns_at, None);
}
