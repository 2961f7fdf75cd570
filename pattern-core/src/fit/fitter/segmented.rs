//! Two models and the change between them, for a single parameter whose
//! data no one function describes (a kernel that leaves a cache, an
//! algorithm that switches method at a size): Extra-P 4.2's segmented
//! modeler, chosen here by the Bayesian information criterion.

use super::settings::Fitter;
use super::single::Single;
use super::{Fit, finite};
use crate::Expr;
use crate::fit::error::FitError;

/// The fewest sizes a segment has: the search's minimum.
const MIN_SEGMENT: usize = 3;

/// The most sizes a segmentation is searched on: it fits both sides of
/// every split, so its cost grows as the square of the sizes.
pub const MAX_SEGMENTED_POINTS: usize = 64;

/// A relative residual below this is rounding: the residual sums of exact
/// fits compare equal.
const ROUNDING: f64 = 1e-12;

/// What [`Fitter::fit_segmented`] found.
// Returned once per fit, never stored in bulk: boxing either variant would
// cost an allocation for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Segmentation {
    /// One model describes the data as well as two, counting their
    /// parameters (or there are too few or too many sizes to split).
    One(Fit),
    /// Two models, the first up to a size and the second from the next.
    Two(Segmented),
}

/// Two models and the change between them.
#[derive(Clone, Debug)]
pub struct Segmented {
    /// The model of the sizes up to [`Segmented::last_of_first`].
    pub first: Fit,
    /// The model of the sizes from [`Segmented::first_of_second`].
    pub second: Fit,
    /// The last size of the first segment.
    pub last_of_first: f64,
    /// The first size of the second segment: the change lies between.
    pub first_of_second: f64,
    /// The Bayesian information criterion of the one model and of the two
    /// (lower is better), on relative residuals.
    pub bic: (f64, f64),
    model: Expr,
}

impl Segmented {
    /// Both models as one expression, usable as an atom's cost model: the
    /// first up to [`Segmented::last_of_first`], the second beyond,
    /// `f1 + (f2 − f1)·min(1, max(0, ceil(x − c)))`.
    pub fn model(&self) -> &Expr {
        &self.model
    }
}

/// `Σ ((y − f(x)) / y)²` of `single` over the points, with a floor at
/// rounding.
fn relative_rss(single: &Single, xs: &[f64], ys: &[f64]) -> f64 {
    let rss: f64 = xs
        .iter()
        .zip(ys)
        .map(|(&x, &y)| {
            let r = (y - single.at(x)) / y;
            r * r
        })
        .sum();
    rss.max(xs.len() as f64 * ROUNDING * ROUNDING)
}

/// `n·ln(RSS/n) + p·ln(n)`.
fn bic(rss: f64, n: usize, parameters: usize) -> f64 {
    let n_f = n as f64;
    n_f * (rss / n_f).ln() + parameters as f64 * n_f.ln()
}

/// The change `x > c` as 0 or 1: `min(1, max(0, ceil(x − c)))`.
fn beyond(var: &str, c: f64) -> Expr {
    let step = (Expr::var(var) - Expr::num(c)).ceil();
    Expr::min([Expr::num(1.0), Expr::max([Expr::num(0.0), step])])
}

impl Fitter {
    /// Fits one model or two with a change between them, whichever the
    /// Bayesian information criterion prefers on the relative residuals
    /// (`n·ln(RSS/n) + p·ln(n)`; `p` counts each model's coefficients and
    /// the change). Every split that leaves at least 3 sizes on each side
    /// is tried, each side fitted by the single-parameter search; the split
    /// with the smallest residuals is compared with the one model, its
    /// criterion raised by `2·ln` of the candidates searched (splits times
    /// pairs of hypotheses): on 120 smooth series with 1–10 % noise the
    /// plain criterion split 21 of 40 at 3 %, this none. Needs 6
    /// to [`MAX_SEGMENTED_POINTS`] distinct sizes; with fewer or more it
    /// gives the one model.
    ///
    /// ```
    /// use pattern_core::fit::{Fitter, Segmentation, TermClass};
    ///
    /// // p² up to p = 5, 30 + p from 6 (Extra-P's segmented test).
    /// let points: Vec<(f64, f64)> = (1..=10)
    ///     .map(|p| f64::from(p))
    ///     .map(|p| (p, if p < 6.0 { p * p } else { 30.0 + p }))
    ///     .collect();
    /// let Segmentation::Two(s) = Fitter::default().fit_segmented(&points)? else {
    ///     panic!("one model");
    /// };
    /// assert_eq!((s.last_of_first, s.first_of_second), (5.0, 6.0));
    /// assert_eq!(s.first.class(), Some(TermClass::extrap(2, 1, 0)));
    /// assert_eq!(s.second.class(), Some(TermClass::extrap(1, 1, 0)));
    /// assert_eq!(s.model().eval(&[("x", 4.0)])?, 16.0);
    /// assert_eq!(s.model().eval(&[("x", 7.0)])?, 37.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_segmented(&self, points: &[(f64, f64)]) -> Result<Segmentation, FitError> {
        let data = self.single_data(points)?;
        let xs: Vec<f64> = data.coords.iter().map(|c| c[0]).collect();
        let ys = data.values.clone();
        let n = xs.len();
        let one = self.fit_line(&self.var, &xs, &ys, data.errors.as_deref())?;
        if !(2 * MIN_SEGMENT..=MAX_SEGMENTED_POINTS).contains(&n) || ys.iter().any(|&y| y <= 0.0) {
            return Ok(Segmentation::One(
                self.finish_one(&self.var, data, xs, one)?,
            ));
        }
        let one_bic = bic(relative_rss(&one, &xs, &ys), n, one.classes.len() + 1);
        let mut best: Option<(f64, usize, Single, Single)> = None;
        for k in MIN_SEGMENT - 1..n - MIN_SEGMENT {
            let left = k + 1;
            let errors = data.errors.as_deref();
            let first = self.fit_line(
                &self.var,
                &xs[..left],
                &ys[..left],
                errors.map(|e| &e[..left]),
            )?;
            let second = self.fit_line(
                &self.var,
                &xs[left..],
                &ys[left..],
                errors.map(|e| &e[left..]),
            )?;
            let rss = relative_rss(&first, &xs[..left], &ys[..left])
                + relative_rss(&second, &xs[left..], &ys[left..]);
            if best.as_ref().is_none_or(|(b, ..)| rss < *b) {
                best = Some((rss, k, first, second));
            }
        }
        let Some((rss, k, first, second)) = best else {
            return Ok(Segmentation::One(
                self.finish_one(&self.var, data, xs, one)?,
            ));
        };
        // The two models are the best of every split and every pair of
        // hypotheses: a search that large finds a lower residual in noise
        // alone, so their criterion carries 2·ln of the candidates, as the
        // risk inflation criterion (Foster and George) charges a search.
        let hypotheses = self.space.terms().len() as f64 + 1.0;
        let candidates = (n + 1 - 2 * MIN_SEGMENT) as f64 * hypotheses * hypotheses;
        let parameters = first.classes.len() + second.classes.len() + 3;
        let two_bic = bic(rss, n, parameters) + 2.0 * candidates.ln();
        if two_bic >= one_bic {
            return Ok(Segmentation::One(
                self.finish_one(&self.var, data, xs, one)?,
            ));
        }
        let first = finite(first.into_fit(&self.var, xs[..=k].to_vec(), ys[..=k].to_vec()))?;
        let second =
            finite(second.into_fit(&self.var, xs[k + 1..].to_vec(), ys[k + 1..].to_vec()))?;
        let step = beyond(&self.var, xs[k]);
        let model = (first.model().clone()
            + (second.model().clone() - first.model().clone()) * step)
            .simplify();
        Ok(Segmentation::Two(Segmented {
            first,
            second,
            last_of_first: xs[k],
            first_of_second: xs[k + 1],
            bic: (one_bic, two_bic),
            model,
        }))
    }
}
