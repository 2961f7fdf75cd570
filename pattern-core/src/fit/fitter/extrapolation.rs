//! What a single-parameter model does beyond the sizes it was fitted on:
//! where it turns negative (a time or a count cannot) and where its growth
//! turns (a model that rose starts to fall, or the reverse), so that a user
//! extrapolating it knows how far it holds.

use crate::fit::hypothesis::{TermClass, TermEval};

/// How far beyond the largest size measured the search looks: 2^20 times.
const HORIZON: f64 = 1_048_576.0;

/// Grid steps per doubling of the size.
const STEPS_PER_DOUBLING: f64 = 8.0;

/// Bisections that place a change between two grid points (2^-40 of a
/// step, below any printed digit).
const BISECTIONS: usize = 40;

/// How far up a model preferred among those within the noise must stay
/// non-negative: 16 times the largest size measured.
pub(crate) const NONNEGATIVE_UP_TO: f64 = 16.0;

/// Where a fitted single-parameter model stops behaving like a measurement
/// beyond the sizes it was fitted on, searched up to 2^20 times the largest
/// size measured ([`Fit::extrapolation`](super::Fit::extrapolation)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extrapolation {
    /// The largest size measured.
    pub largest: f64,
    /// The smallest size beyond it where the model is zero or below.
    pub negative_from: Option<f64>,
    /// The smallest size beyond it where the model's growth turns: it
    /// rose at the largest size and falls from here, or the reverse.
    pub growth_turns_at: Option<f64>,
}

impl Extrapolation {
    /// `negative_from` over the largest size measured: how far the model
    /// can be extrapolated before it turns negative.
    pub fn negative_beyond(&self) -> Option<f64> {
        self.negative_from.map(|x| x / self.largest)
    }
}

/// The model that scored best but turned negative before 16 times the
/// largest size measured, set aside for one within the noise that did not
/// ([`Fitter::prefer_nonnegative`](super::Fitter::prefer_nonnegative)).
#[derive(Clone, Debug, PartialEq)]
pub struct SetAside {
    /// The model set aside.
    pub model: crate::Expr,
    /// Where it turns negative.
    pub negative_from: f64,
    /// The chosen model's leave-one-out RSS over the one set aside's: at
    /// most [`within_noise`](super::within_noise) of the points.
    pub cv_rss_ratio: f64,
}

/// A single-parameter model `c0 + Σ c_k·t_k(x)`.
pub(crate) struct Curve {
    constant: f64,
    terms: Vec<(TermEval, f64)>,
}

impl Curve {
    /// The model of `classes` with `coefficients`, the constant first.
    pub(crate) fn new(classes: &[TermClass], coefficients: &[f64]) -> Curve {
        Curve {
            constant: coefficients[0],
            terms: classes
                .iter()
                .map(|&class| TermEval::new(class))
                .zip(coefficients[1..].iter().copied())
                .collect(),
        }
    }

    pub(crate) fn at(&self, x: f64) -> f64 {
        self.constant + self.terms.iter().map(|(t, c)| c * t.eval(x)).sum::<f64>()
    }

    /// Its slope's sign at `x`, from a step of 1/1000 of `x`.
    fn rising(&self, x: f64) -> Option<bool> {
        let (here, next) = (self.at(x), self.at(x * 1.001));
        (here != next).then_some(next > here)
    }

    /// The smallest `x` in `(from, to]` on a log grid where `holds` first
    /// becomes true, placed by bisection; `None` if it never does.
    fn first(&self, from: f64, to: f64, holds: impl Fn(f64) -> bool) -> Option<f64> {
        let ratio = 2f64.powf(1.0 / STEPS_PER_DOUBLING);
        let mut lo = from;
        while lo < to {
            let hi = (lo * ratio).min(to);
            if holds(hi) {
                let (mut a, mut b) = (lo, hi);
                for _ in 0..BISECTIONS {
                    let mid = (a * b).sqrt();
                    if holds(mid) {
                        b = mid;
                    } else {
                        a = mid;
                    }
                }
                return Some(b);
            }
            lo = hi;
        }
        None
    }

    /// Where the curve turns negative and where its growth turns, beyond
    /// `largest` and up to `largest · factor`.
    pub(crate) fn beyond(&self, largest: f64, factor: f64) -> Extrapolation {
        let end = largest * factor;
        let negative_from = if self.at(largest) <= 0.0 {
            Some(largest)
        } else {
            self.first(largest, end, |x| self.at(x) <= 0.0)
        };
        let growth_turns_at = self
            .rising(largest)
            .and_then(|up| self.first(largest, end, |x| self.rising(x) == Some(!up)));
        Extrapolation {
            largest,
            negative_from,
            growth_turns_at,
        }
    }

    /// Whether it stays above zero up to [`NONNEGATIVE_UP_TO`] times
    /// `largest`.
    pub(crate) fn positive_up_to_16x(&self, largest: f64) -> bool {
        self.beyond(largest, NONNEGATIVE_UP_TO)
            .negative_from
            .is_none()
    }

    /// The search's horizon from `largest`.
    pub(crate) fn extrapolation(&self, largest: f64) -> Extrapolation {
        self.beyond(largest, HORIZON)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_falling_log_turns_negative_where_it_crosses_zero() {
        // 93.4 − 6.55·log2(x): zero at x = 2^(93.4/6.55).
        let curve = Curve::new(&[TermClass::extrap(0, 1, 1)], &[93.4, -6.55]);
        let e = curve.extrapolation(64.0);
        let root = 2f64.powf(93.4 / 6.55);
        let x = e.negative_from.unwrap();
        assert!((x - root).abs() <= 1e-9 * root, "{x} vs {root}");
        assert!((e.negative_beyond().unwrap() - root / 64.0).abs() <= 1e-9 * root);
        assert_eq!(e.growth_turns_at, None);
        assert!(!curve.positive_up_to_16x(root / 10.0));
        assert!(curve.positive_up_to_16x(root / 17.0));
    }

    #[test]
    fn growth_that_turns_is_found_and_a_rising_model_never_turns_negative() {
        // 10·x − x·log2(x) rises until log2(x) = 1/ln 2 − ... : its slope
        // 10 − log2(x) − 1/ln 2 is zero at x = 2^(10 − 1/ln 2).
        let classes = [TermClass::extrap(1, 1, 0), TermClass::extrap(1, 1, 1)];
        let curve = Curve::new(&classes, &[0.0, 10.0, -1.0]);
        let e = curve.extrapolation(4.0);
        let top = 2f64.powf(10.0 - 1.0 / std::f64::consts::LN_2);
        let x = e.growth_turns_at.unwrap();
        assert!((x - top).abs() <= 2e-3 * top, "{x} vs {top}");
        // It reaches zero at 2^10.
        assert!((e.negative_from.unwrap() - 1024.0).abs() < 1e-6);
        let curve = Curve::new(&[TermClass::extrap(1, 1, 1)], &[-5.0, 3.0]);
        let e = curve.extrapolation(8.0);
        assert_eq!((e.negative_from, e.growth_turns_at), (None, None));
    }
}
