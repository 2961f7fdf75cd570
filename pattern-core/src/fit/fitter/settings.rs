//! The fitter's options: what to search, how to combine repetitions, which
//! checks to make, with their defaults and their validation.

use crate::fit::error::FitError;
use crate::fit::hypothesis::HypothesisSpace;
use crate::fit::search::{Options, Selection, Weighting};
use crate::fit::stats;

/// How the repetitions measured at one point are combined into one value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Aggregate {
    /// The median, as in seed 001 ("we configured Extra-P to use the median
    /// of all values", §4) — robust against a slow first run.
    #[default]
    Median,
    /// The mean (Extra-P's default).
    Mean,
}

impl Aggregate {
    pub(crate) fn apply(self, values: &mut [f64]) -> f64 {
        match self {
            Aggregate::Median => {
                values.sort_by(f64::total_cmp);
                stats::quantile_sorted(values, 0.5)
            }
            Aggregate::Mean => stats::mean(values),
        }
    }
}

/// Fits PMNF models to measurements: Extra-P's modeler, in Rust.
///
/// The default is Extra-P's single-parameter search: the constant model and
/// the 42 hypotheses `c0 + c1·x^i·log2(x)^j` of [`HypothesisSpace::extrap`],
/// coefficients by least squares, the choice by leave-one-out
/// cross-validation and SMAPE, with Extra-P's cleaning of tiny constants and
/// its minimum term contribution. Repetitions at one `x` are combined by
/// their median (the paper's choice; [`Aggregate::Mean`] is Extra-P's
/// default).
///
/// ```
/// use pattern_core::fit::{Fitter, TermClass};
///
/// // qsort-like timings, 3 repetitions per size, ±1 % noise.
/// let mut points = Vec::new();
/// for k in 10..=18 {
///     let x = f64::from(1 << k);
///     for noise in [0.99, 1.0, 1.01] {
///         points.push((x, (1034.17 * x * x.log2() + 5422.97) * noise));
///     }
/// }
/// let fit = Fitter::default().fit(&points).unwrap();
/// assert_eq!(fit.class(), Some(TermClass::extrap(1, 1, 1)));
/// assert_eq!(fit.model().growth("x").unwrap().to_string(), "O(x·log₂x)");
/// let c = fit.leading_coefficient().unwrap();
/// assert!((c - 1034.17).abs() < 0.01 * 1034.17);
/// println!("{fit}  (LOO SMAPE {:.3} %)", fit.stats().cv_smape);
/// ```
///
/// Several parameters: [`Fitter::fit_multi`]. Several terms per model:
/// [`Fitter::max_terms`]. Own exponent sets: [`Fitter::space`] with
/// [`HypothesisSpace::from_exponents`].
#[derive(Clone, Debug)]
pub struct Fitter {
    pub(super) space: HypothesisSpace,
    pub(super) var: String,
    selection: Selection,
    weighting: Weighting,
    pub(super) aggregate: Aggregate,
    cross_validation: bool,
    pub(super) max_terms: usize,
    nonnegative_terms: bool,
    pub(super) allow_negative_values: bool,
    min_term_contribution: f64,
    numpy_rank_truncation: bool,
    /// Extra-P's cleaning of the final fit's constant ([`Fitter::extrap_compatible`]).
    extrap_final_constant: bool,
    pub(super) prefer_nonnegative: bool,
    pub(super) robust: bool,
    pub(super) monomial_search: bool,
    pub(super) significance: Option<f64>,
    pub(super) resolution: Option<f64>,
}

/// The default level of [`Fitter::significance`].
const DEFAULT_SIGNIFICANCE: f64 = 0.01;

impl Default for Fitter {
    fn default() -> Fitter {
        Fitter {
            space: HypothesisSpace::extrap(),
            var: "x".to_string(),
            selection: Selection::Smape,
            weighting: Weighting::Relative,
            aggregate: Aggregate::Median,
            cross_validation: true,
            max_terms: 1,
            nonnegative_terms: false,
            allow_negative_values: false,
            min_term_contribution: 0.0005,
            numpy_rank_truncation: false,
            extrap_final_constant: false,
            prefer_nonnegative: true,
            robust: true,
            monomial_search: true,
            significance: Some(DEFAULT_SIGNIFICANCE),
            resolution: None,
        }
    }
}

impl Fitter {
    /// The default fitter (Extra-P's search, median of repetitions).
    pub fn new() -> Fitter {
        Fitter::default()
    }

    /// The variable name of single-parameter models (default `x`).
    pub fn var(mut self, name: &str) -> Fitter {
        self.var = name.to_string();
        self
    }

    /// The term classes to search (default [`HypothesisSpace::extrap`]).
    pub fn space(mut self, space: HypothesisSpace) -> Fitter {
        self.space = space;
        self
    }

    /// SMAPE (default) or RSS as the selection criterion.
    pub fn selection(mut self, selection: Selection) -> Fitter {
        self.selection = selection;
        self
    }

    /// Relative (default) or absolute least squares; see [`Weighting`].
    pub fn weighting(mut self, weighting: Weighting) -> Fitter {
        self.weighting = weighting;
        self
    }

    /// Extra-P's exact semantics, to reproduce its choices:
    /// [`Weighting::Absolute`] least squares, [`Aggregate::Mean`] of
    /// repetitions (Extra-P's default; the paper switched Extra-P to the
    /// median: add `.aggregate(Aggregate::Median)`), and numpy's rank
    /// decision in the least-squares solve: when a term reaches ~10^15 times
    /// the constant column (`x^(5/2)·log2(x)` at `x = 2^20`), numpy's
    /// `lstsq` drops the constant, so Extra-P effectively fits `c1·t(x)`.
    /// The final fit's constant is kept as Extra-P keeps it (with
    /// cross-validation, always; without, unless below 0.1 % of the
    /// smallest value), where the default keeps every constant above
    /// rounding residue.
    pub fn extrap_compatible() -> Fitter {
        let mut f = Fitter::default()
            .weighting(Weighting::Absolute)
            .aggregate(Aggregate::Mean)
            .significance(None);
        f.numpy_rank_truncation = true;
        f.extrap_final_constant = true;
        f.prefer_nonnegative = false;
        f.robust = false;
        f.monomial_search = false;
        f
    }

    /// Among the models that fit within the noise, prefer one that stays
    /// above zero up to 16 times the largest size measured, when the best
    /// scored turns negative before (default on; off in
    /// [`Fitter::extrap_compatible`]). A time or a count cannot be
    /// negative: of two models the data cannot tell apart, the one that
    /// extrapolates to a negative time is the wrong one. The model set
    /// aside is kept ([`Fit::set_aside`](super::Fit::set_aside)).
    /// Single-parameter fits; with cross-validation, whose leave-one-out
    /// RSS measures the noise.
    ///
    /// ```
    /// use pattern_core::fit::{Fitter, TermClass};
    ///
    /// // A flat, noisy series at x = 2..64.
    /// let ys = [14.66, 14.22, 15.27, 14.89, 14.63, 14.22];
    /// let points: Vec<(f64, f64)> =
    ///     (0..6).map(|i| (f64::from(1 << (i + 1)), ys[i])).collect();
    /// let fit = Fitter::default().fit(&points).unwrap();
    /// assert_eq!(fit.class(), Some(TermClass::CONSTANT));
    /// // Scored best: a falling x^2.5·log2(x), negative from x ≈ 220.
    /// let aside = fit.set_aside().unwrap();
    /// assert!(aside.negative_from < 16.0 * 64.0);
    /// ```
    pub fn prefer_nonnegative(mut self, on: bool) -> Fitter {
        self.prefer_nonnegative = on;
        self
    }

    /// Leave out points that the others contradict (default on; off in
    /// [`Fitter::extrap_compatible`]), and name them
    /// ([`Fit::outliers`](super::Fit::outliers)). One parameter: a fit of
    /// 5 to 64 sizes is made again without each interior point in turn, and
    /// the point furthest off the model of the others, if at least 10 times
    /// their largest relative residual (at least 1 %) off it, is left out;
    /// a first or last point is kept, since off the others' model it cannot
    /// be told from a change of growth. Several parameters, 20 points or
    /// more: up to one in twenty, by the same rule, among those furthest off
    /// the chosen model fitted again by plain least squares.
    ///
    /// ```
    /// use pattern_core::fit::{Fitter, TermClass};
    ///
    /// // 100·x³ + 1000 at x = 4..64, the value at 16 ten times too low.
    /// let points: Vec<(f64, f64)> = [4.0, 8.0, 16.0, 32.0, 64.0]
    ///     .iter()
    ///     .map(|&x| {
    ///         let y = 100.0 * x * x * x + 1000.0;
    ///         (x, if x == 16.0 { y / 10.0 } else { y })
    ///     })
    ///     .collect();
    /// let fit = Fitter::default().fit(&points).unwrap();
    /// assert_eq!(fit.class(), Some(TermClass::extrap(3, 1, 0)));
    /// let left_out = &fit.outliers()[0];
    /// assert_eq!(left_out.coordinate, [16.0]);
    /// assert!((left_out.ratio() - 0.1).abs() < 1e-9);
    /// ```
    pub fn robust(mut self, on: bool) -> Fitter {
        self.robust = on;
        self
    }

    /// Multi-parameter fits: besides Extra-P's structures of one term per
    /// parameter, search sums of products of each parameter's classes
    /// (default on; off in [`Fitter::extrap_compatible`]). A time that is a
    /// sum of monomials with different exponents, or with two terms in one
    /// parameter (`0.1·x·y²·z + 0.2·x²·log₂y`), is out of reach of one term
    /// per parameter.
    ///
    /// The candidates are the products of at most one class per parameter
    /// of the best models with one and with up to two terms along each
    /// parameter's line of points, and every single class. Monomials are
    /// added one at a time, the candidate that scores best by leave-one-out
    /// (from the leverages of one fit), when the points' leave-one-out
    /// losses drop by at least two standard errors of the paired drops and
    /// it changes the fit by Extra-P's minimum term contribution, up to one
    /// monomial more than there are parameters. After each, every factor of
    /// every monomial moves to the class of the space (or none) that scores
    /// best with the others fixed, while that improves, and a monomial that
    /// does not earn its place beyond chance is left out; at the end, a
    /// monomial is dropped when the others, settled again without it, score
    /// better. That structure is scored like Extra-P's and the better score
    /// wins. The search needs 20 points or more, at least half of them
    /// varying two parameters or more from the smallest point: on lines
    /// alone a product cannot be told from a sum.
    ///
    /// ```
    /// use pattern_core::fit::Fitter;
    ///
    /// // 0.1·x·y²·z + 0.2·x²·log₂y on Extra-P's three-parameter grid.
    /// let truth = |x: f64, y: f64, z: f64| 0.1 * x * y * y * z + 0.2 * x * x * y.log2();
    /// let mut points = Vec::new();
    /// for x in [20.0, 30.0, 40.0, 50.0, 60.0] {
    ///     for y in [1.0, 2.0, 3.0, 4.0, 5.0] {
    ///         for z in [100.0, 200.0, 300.0, 400.0, 500.0] {
    ///             points.push(([x, y, z], truth(x, y, z)));
    ///         }
    ///     }
    /// }
    /// let off = |fitter: Fitter| {
    ///     let fit = fitter.fit_multi(&["x", "y", "z"], &points).unwrap();
    ///     let at = fit.model().eval(&[("x", 240.0), ("y", 20.0), ("z", 2000.0)]).unwrap();
    ///     (at / truth(240.0, 20.0, 2000.0) - 1.0).abs()
    /// };
    /// assert!(off(Fitter::default()) < 0.01);
    /// assert!(off(Fitter::default().monomial_search(false)) > 0.05);
    /// ```
    pub fn monomial_search(mut self, on: bool) -> Fitter {
        self.monomial_search = on;
        self
    }

    /// How repetitions at one point are combined (default median).
    pub fn aggregate(mut self, aggregate: Aggregate) -> Fitter {
        self.aggregate = aggregate;
        self
    }

    /// Leave-one-out cross-validation on (default) or off. Off, hypotheses
    /// are compared by their in-sample cost, as Extra-P does with its
    /// `use_crossvalidation = false`.
    pub fn cross_validation(mut self, on: bool) -> Fitter {
        self.cross_validation = on;
        self
    }

    /// Multi-term mode: hypotheses with up to `n` terms from the space
    /// (`c0 + c1·t1 + c2·t2`, every combination of distinct classes), all
    /// compared by the same cross-validated score. Default 1 (Extra-P's
    /// basic search). A hypothesis with `k` terms needs `k + 2` distinct
    /// points and is skipped with fewer. `n` must be 1 to 3
    /// ([`FitError::InvalidOption`] otherwise): 42 classes give 861 pairs and
    /// 11 480 triples.
    pub fn max_terms(mut self, n: usize) -> Fitter {
        self.max_terms = n;
        self
    }

    /// Reject hypotheses with a negative term coefficient (default off, as in
    /// Extra-P, which keeps them).
    pub fn nonnegative_terms(mut self, on: bool) -> Fitter {
        self.nonnegative_terms = on;
        self
    }

    /// Accept negative measured values (default off: a negative time is an
    /// error, [`FitError::NegativeValue`]).
    pub fn allow_negative_values(mut self, on: bool) -> Fitter {
        self.allow_negative_values = on;
        self
    }

    /// The noise test (default on at `α = 0.01`; off in
    /// [`Fitter::extrap_compatible`]): when every point has at least 3
    /// repetitions, a model with terms is kept only if its terms are
    /// significant given the spread of the repetitions; otherwise the
    /// constant model is chosen.
    ///
    /// The repetitions at each `x` give the standard error `s` of the
    /// aggregated value (median: `√(π/2)·σ̂/√r` with the robust
    /// `σ̂ = 1.4826·b_r·MAD`, `b_r` the MAD's small-sample factor; mean:
    /// `sd/√r`), pooled over the sizes as one relative variance (few
    /// repetitions estimate each poorly). The chosen hypothesis and the
    /// constant are both fitted by least squares with weights `1/s²`; if the
    /// truth were constant, the improvement in `χ² = Σ ((y − model)/s)²`
    /// would follow a χ² distribution with one degree of freedom per term
    /// (the likelihood-ratio test of nested linear models — for one term,
    /// the squared `z` of its coefficient). The terms are kept when that
    /// improvement has a p-value of at most `α / H`, where `H` is the number
    /// of hypotheses the search compared (Bonferroni: the search picked the
    /// best of them; at most `2·(n − 1)` effective tests for `n` sizes).
    /// Growth is also asked alone, without that correction: a straight
    /// line over the sizes' order whose slope is beyond `α` and whose
    /// residuals the repetitions accept keeps the terms too.
    /// [`Fit::significance`](crate::fit::Fit::significance) reports the
    /// test (see `fit::significance` for the scaled test of scatter between
    /// sizes). It does not apply to multi-parameter fits, to data
    /// with fewer than 3 repetitions at some point, or when some point has a
    /// spread of zero (more than half of its repetitions equal).
    ///
    /// This is what keeps a function whose time does not depend on `x` from
    /// getting a small `log₂x` term fitted to noise: Extra-P has no such
    /// test (the paper corrected 31 of its 162 models by hand, §4.2).
    /// `None` turns it off; a level outside `(0, 1)` is
    /// [`FitError::InvalidOption`].
    ///
    /// ```
    /// use pattern_core::fit::{Fitter, TermClass};
    ///
    /// // 25 ns ± 3 % whatever x, 9 repetitions per size, with a drift of
    /// // 0.1 % per doubling, well within the repetitions' noise: a log
    /// // term wins the search without the test, the constant with it.
    /// let mut points = Vec::new();
    /// for k in 10..=18 {
    ///     let x = f64::from(1 << k);
    ///     for r in -4..=4 {
    ///         points.push((x, 25.0 * (1.0 + 0.001 * f64::from(k - 10)) * (1.0 + 0.0075 * f64::from(r))));
    ///     }
    /// }
    /// let plain = Fitter::default().significance(None).fit(&points).unwrap();
    /// assert_ne!(plain.class(), Some(TermClass::CONSTANT));
    /// let fit = Fitter::default().fit(&points).unwrap();
    /// assert_eq!(fit.class(), Some(TermClass::CONSTANT));
    /// assert!(!fit.significance().unwrap().significant);
    /// ```
    pub fn significance(mut self, alpha: Option<f64>) -> Fitter {
        self.significance = alpha;
        self
    }

    /// The smallest change in `y` the measurements can resolve (default
    /// `None`: no floor). When the terms the search chose change the model
    /// by less than this across the measured `x` — the span
    /// `max − min` of `Σ c_k·t_k(x_i)` — the constant model is chosen
    /// instead; [`Fit::resolution`](crate::fit::Fit::resolution) reports the
    /// comparison. Single-parameter fits only.
    ///
    /// A statistically significant trend can still be an artifact of the
    /// timing: [`Measurement::resolution_ns`](crate::fit::measure::Measurement::resolution_ns)
    /// gives the floor for a harness measurement (the clock's overhead per
    /// call of a timed run). A negative or non-finite value is
    /// [`FitError::InvalidOption`].
    ///
    /// ```
    /// use pattern_core::fit::{Fitter, TermClass};
    ///
    /// // 3 ns plus a steady rise of 0.3 ns over the sizes, 1 % noise.
    /// let mut points = Vec::new();
    /// for k in 1..=16 {
    ///     let x = f64::from(k * 8192);
    ///     for r in -2..=2 {
    ///         points.push((x, (3.0 + 0.02 * f64::from(k)) * (1.0 + 0.01 * f64::from(r))));
    ///     }
    /// }
    /// let fit = Fitter::default().fit(&points).unwrap();
    /// assert_eq!(fit.class(), Some(TermClass::extrap(1, 1, 0)));
    /// // With a clock that cannot tell 0.5 ns apart, the rise is no term.
    /// let fit = Fitter::default().resolution(Some(0.5)).fit(&points).unwrap();
    /// assert_eq!(fit.class(), Some(TermClass::CONSTANT));
    /// let r = fit.resolution().unwrap();
    /// assert!(!r.resolved && r.span < 0.5 && r.terms == [TermClass::extrap(1, 1, 0)]);
    /// ```
    pub fn resolution(mut self, smallest_change: Option<f64>) -> Fitter {
        self.resolution = smallest_change;
        self
    }

    /// A term must contribute at least this fraction of the measured value at
    /// some point, or the hypothesis is rejected (Extra-P's
    /// `minimum_term_contribution`, default 0.0005).
    pub fn min_term_contribution(mut self, fraction: f64) -> Fitter {
        self.min_term_contribution = fraction;
        self
    }

    pub(crate) fn options(&self) -> Options {
        Options {
            selection: self.selection,
            weighting: self.weighting,
            cross_validation: self.cross_validation,
            nonnegative_terms: self.nonnegative_terms,
            min_term_contribution: self.min_term_contribution,
            numpy_rank_truncation: self.numpy_rank_truncation,
            extrap_final_constant: self.extrap_final_constant,
        }
    }

    pub(super) fn check_options(&self) -> Result<(), FitError> {
        if !(1..=3).contains(&self.max_terms) {
            return Err(FitError::InvalidOption(format!(
                "max_terms must be 1, 2 or 3, not {}",
                self.max_terms
            )));
        }
        if !(self.min_term_contribution >= 0.0 && self.min_term_contribution.is_finite()) {
            return Err(FitError::InvalidOption(format!(
                "min_term_contribution must be a finite fraction ≥ 0, not {}",
                self.min_term_contribution
            )));
        }
        if let Some(r) = self.resolution
            && !(r >= 0.0 && r.is_finite())
        {
            return Err(FitError::InvalidOption(format!(
                "the resolution must be a finite value ≥ 0, not {r}"
            )));
        }
        if let Some(alpha) = self.significance
            && !(alpha > 0.0 && alpha < 1.0)
        {
            return Err(FitError::InvalidOption(format!(
                "the significance level must be between 0 and 1, not {alpha}"
            )));
        }
        Ok(())
    }
}
