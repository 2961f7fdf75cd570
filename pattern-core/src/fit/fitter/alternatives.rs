//! Other models that fit the same data within the noise, and how far they
//! part from the chosen one beyond the measured sizes: over three decades of
//! noisy data, `x^(2/3)` and `x^(1/2)·log₂(x)^2` are hard to tell apart, and
//! a user extrapolating needs to know.

use crate::Expr;
use crate::fit::hypothesis::{TermClass, TermEval};
use std::fmt;

/// A model of another leading class that fits the data about as well as the
/// chosen one: its leave-one-out RSS is within the noise of the chosen
/// model's ([`within_noise`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Alternative {
    /// The model, with its coefficients fitted on all points.
    pub model: Expr,
    /// Its leave-one-out RSS over the chosen model's: below 1 where the
    /// selection's score (which may weigh more than the RSS) still preferred
    /// the chosen model.
    pub cv_rss_ratio: f64,
    /// `alternative / chosen - 1` at 4x the largest size measured.
    pub divergence_at_4x: f64,
    /// `alternative / chosen - 1` at 16x the largest size measured.
    pub divergence_at_16x: f64,
}

impl fmt::Display for Alternative {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} fits within the noise (cross-validated RSS ×{:.2}): {:+.1} % at 4x the largest size, {:+.1} % at 16x",
            self.model,
            self.cv_rss_ratio,
            100.0 * self.divergence_at_4x,
            100.0 * self.divergence_at_16x
        )
    }
}

/// "Within the noise": a residual sum of squares over `n` points estimates
/// `n·σ²` with a relative standard deviation of `sqrt(2/n)` (chi-squared
/// with `n` degrees of freedom); two leave-one-out RSS closer than two such
/// deviations, `1 + 2·sqrt(2/n)`, are not told apart by the data.
pub fn within_noise(points: usize) -> f64 {
    1.0 + 2.0 * (2.0 / points.max(1) as f64).sqrt()
}

/// One hypothesis the search scored.
pub(super) struct Scored {
    /// Its terms' positions among the classes the search scored.
    pub terms: Vec<usize>,
    pub classes: Vec<TermClass>,
    pub coefficients: Vec<f64>,
    pub cv_rss: f64,
}

/// The alternatives to `best` among `scored`: the same number of terms, a
/// different leading class, a leave-one-out RSS within the noise; the three
/// closest, best first.
pub(super) fn alternatives(
    var: &str,
    best: &Scored,
    scored: &[Scored],
    xs: &[f64],
) -> Vec<Alternative> {
    let Some(lead) = best.classes.iter().max() else {
        return Vec::new();
    };
    if !(best.cv_rss.is_finite() && best.cv_rss > 0.0) {
        return Vec::new();
    }
    let limit = best.cv_rss * within_noise(xs.len());
    let mut close: Vec<&Scored> = scored
        .iter()
        .filter(|s| {
            s.classes.len() == best.classes.len()
                && s.classes.iter().max() != Some(lead)
                && s.cv_rss.is_finite()
                && s.cv_rss <= limit
        })
        .collect();
    close.sort_by(|a, b| a.cv_rss.total_cmp(&b.cv_rss));
    let largest = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let value = |s: &Scored, x: f64| {
        s.classes
            .iter()
            .zip(&s.coefficients[1..])
            .map(|(&t, c)| c * TermEval::new(t).eval(x))
            .sum::<f64>()
            + s.coefficients[0]
    };
    close
        .into_iter()
        .take(3)
        .map(|s| {
            let diverge = |k: f64| value(s, k * largest) / value(best, k * largest) - 1.0;
            Alternative {
                model: s
                    .classes
                    .iter()
                    .zip(&s.coefficients[1..])
                    .fold(Expr::num(s.coefficients[0]), |e, (t, c)| {
                        e + Expr::num(*c) * t.expr(var)
                    })
                    .simplify(),
                cv_rss_ratio: s.cv_rss / best.cv_rss,
                divergence_at_4x: diverge(4.0),
                divergence_at_16x: diverge(16.0),
            }
        })
        .collect()
}
