//! The fitter: its options, the input checks, the single-parameter search and
//! the fitted model with its statistics.

use super::error::FitError;
use super::hypothesis::{HypothesisSpace, TermClass, TermEval};
use super::multi;
use super::search::{Engine, Options, Scored, Selection, Weighting};
use super::significance::{self, Significance};
use super::stats;
use crate::Expr;
use std::fmt;

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
    space: HypothesisSpace,
    var: String,
    selection: Selection,
    weighting: Weighting,
    aggregate: Aggregate,
    cross_validation: bool,
    max_terms: usize,
    nonnegative_terms: bool,
    allow_negative_values: bool,
    min_term_contribution: f64,
    numpy_rank_truncation: bool,
    significance: Option<f64>,
    resolution: Option<f64>,
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
    pub fn extrap_compatible() -> Fitter {
        let mut f = Fitter::default()
            .weighting(Weighting::Absolute)
            .aggregate(Aggregate::Mean)
            .significance(None);
        f.numpy_rank_truncation = true;
        f
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
    /// `σ̂ = 1.4826·MAD`; mean: `sd/√r`). The chosen hypothesis and the
    /// constant are both fitted by least squares with weights `1/s²`; if the
    /// truth were constant, the improvement in `χ² = Σ ((y − model)/s)²`
    /// would follow a χ² distribution with one degree of freedom per term
    /// (the likelihood-ratio test of nested linear models — for one term,
    /// the squared `z` of its coefficient). The terms are kept when that
    /// improvement has a p-value of at most `α / H`, where `H` is the number
    /// of hypotheses the search compared (Bonferroni: the search picked the
    /// best of them). [`Fit::significance`] reports the test. It does not
    /// apply to multi-parameter fits, to data with fewer than 3 repetitions
    /// at some point, or when some point has a spread of zero (more than
    /// half of its repetitions equal).
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
    /// // 25 ns ± 3 % whatever x, 9 repetitions per size, with a chance
    /// // drift of 0.4 % per doubling: a log term wins the search without
    /// // the test, the constant with it.
    /// let mut points = Vec::new();
    /// for k in 10..=18 {
    ///     let x = f64::from(1 << k);
    ///     for r in -4..=4 {
    ///         points.push((x, 25.0 * (1.0 + 0.004 * f64::from(k - 10)) * (1.0 + 0.0075 * f64::from(r))));
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
    /// instead; [`Fit::resolution`] reports the comparison. Single-parameter
    /// fits only.
    ///
    /// A statistically significant trend can still be an artifact of the
    /// timing: [`Measurement::resolution_ns`](super::measure::Measurement::resolution_ns)
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
        }
    }

    fn check_options(&self) -> Result<(), FitError> {
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
        if let Some(r) = self.resolution {
            if !(r >= 0.0 && r.is_finite()) {
                return Err(FitError::InvalidOption(format!(
                    "the resolution must be a finite value ≥ 0, not {r}"
                )));
            }
        }
        if let Some(alpha) = self.significance {
            if !(alpha > 0.0 && alpha < 1.0) {
                return Err(FitError::InvalidOption(format!(
                    "the significance level must be between 0 and 1, not {alpha}"
                )));
            }
        }
        Ok(())
    }

    /// Fits a single-parameter model to `(x, y)` points. Several points may
    /// share an `x` (repetitions): they are combined by the median (see
    /// [`Fitter::aggregate`]); their order does not matter.
    ///
    /// Input rules: at least 3 distinct `x` ([`FitError::TooFewPoints`]),
    /// all finite ([`FitError::NonFinite`]), `x > 0`
    /// ([`FitError::NonPositiveParameter`]), `y ≥ 0` unless
    /// [`Fitter::allow_negative_values`] ([`FitError::NegativeValue`]). When
    /// some `0 < x < 1`, `log2(x)` is negative, and as in Extra-P the
    /// hypotheses with a log factor are left out
    /// ([`Fit::log_terms_dropped`] tells).
    pub fn fit(&self, points: &[(f64, f64)]) -> Result<Fit, FitError> {
        self.check_options()?;
        let params = [self.var.clone()];
        let data = Data::prepare(
            &params,
            points.len(),
            |i| std::slice::from_ref(&points[i].0),
            |i| points[i].1,
            self,
        )?;
        let xs: Vec<f64> = data.coords.iter().map(|c| c[0]).collect();
        let single = self.fit_line(&self.var, &xs, &data.values, data.errors.as_deref())?;
        Ok(single.into_fit(&self.var, xs, data.values))
    }

    /// Fits a model in several parameters, like Extra-P's multi-parameter
    /// modeler: for each parameter, the single-parameter model along the
    /// longest lines of points where the other parameters are fixed (values
    /// averaged over such lines); then the products and sums of the terms
    /// found (for two parameters `a·b`, `a + b`, `a·b + a`, `a·b + b`; for
    /// three the 23 combinations of Extra-P; for more, product and sum),
    /// coefficients by least squares on all points, and the choice by
    /// leave-one-out cross-validation (Extra-P compares in-sample SMAPE
    /// here).
    ///
    /// ```
    /// use pattern_core::fit::Fitter;
    ///
    /// // t(x, n) = 50 + 2·x·log2(x)/n on a 5×5 grid.
    /// let mut points = Vec::new();
    /// for x in [64.0, 256.0, 1024.0, 4096.0, 16384.0] {
    ///     for n in [1.0, 2.0, 4.0, 8.0, 16.0] {
    ///         points.push(([x, n], 50.0 + 2.0 * x * f64::log2(x) / n));
    ///     }
    /// }
    /// let fitter = Fitter::default()
    ///     .space(pattern_core::fit::HypothesisSpace::extrap().with_negative_exponents());
    /// let fit = fitter.fit_multi(&["x", "n"], &points).unwrap();
    /// assert_eq!(fit.model().growth("x").unwrap().to_string(), "O(x·log₂x)");
    /// let at = fit.model().eval(&[("x", 2048.0), ("n", 4.0)]).unwrap();
    /// assert!((at - (50.0 + 2.0 * 2048.0 * 11.0 / 4.0)).abs() < 1e-6 * at);
    /// ```
    pub fn fit_multi<P: AsRef<[f64]>>(
        &self,
        params: &[&str],
        points: &[(P, f64)],
    ) -> Result<Fit, FitError> {
        self.check_options()?;
        if params.is_empty() {
            return Err(FitError::Parameters("no parameter named".into()));
        }
        for (i, p) in params.iter().enumerate() {
            if p.is_empty() || params[..i].contains(p) {
                return Err(FitError::Parameters(format!(
                    "`{p}` is empty or repeated in {params:?}"
                )));
            }
        }
        let names: Vec<String> = params.iter().map(|p| p.to_string()).collect();
        let data = Data::prepare(
            &names,
            points.len(),
            |i| points[i].0.as_ref(),
            |i| points[i].1,
            self,
        )?;
        if names.len() == 1 {
            let xs: Vec<f64> = data.coords.iter().map(|c| c[0]).collect();
            let single = self.fit_line(&names[0], &xs, &data.values, data.errors.as_deref())?;
            return Ok(single.into_fit(&names[0], xs, data.values));
        }
        multi::fit(self, &names, data)
    }

    /// The single-parameter search on aggregated, distinct, sorted `xs`;
    /// `errors`, the standard errors of `ys`, enable the noise test.
    pub(crate) fn fit_line(
        &self,
        param: &str,
        xs: &[f64],
        ys: &[f64],
        errors: Option<&[f64]>,
    ) -> Result<Single, FitError> {
        if xs.len() < 3 {
            return Err(FitError::TooFewPoints {
                param: param.to_string(),
                needed: 3,
                got: xs.len(),
            });
        }
        let log_ok = xs.iter().all(|&x| x >= 1.0);
        let log_terms_dropped = !log_ok && self.space.terms().iter().any(TermClass::has_log);
        let classes: Vec<TermClass> = self
            .space
            .terms()
            .iter()
            .copied()
            .filter(|t| log_ok || !t.has_log())
            .collect();
        let columns: Vec<Vec<f64>> = classes
            .iter()
            .map(|&t| {
                let e = TermEval::new(t);
                xs.iter().map(|&x| e.eval(x)).collect()
            })
            .collect();

        let mut engine = Engine::new(ys, self.options());
        let tss = engine.total_sum_of_squares();
        let mut best = engine.constant();
        let mut best_terms: Vec<usize> = Vec::new();
        let mut evaluated = 1;
        if tss > 0.0 {
            let mut combo: Vec<usize> = Vec::new();
            for k in 1..=self.max_terms.min(classes.len()) {
                combo.clear();
                combo.extend(0..k);
                loop {
                    let cols: Vec<&[f64]> = combo.iter().map(|&h| columns[h].as_slice()).collect();
                    evaluated += 1;
                    if let Some(s) = engine.evaluate(&cols) {
                        if s.score < best.score {
                            best = s;
                            best_terms.clone_from(&combo);
                        }
                    }
                    if !next_combination(&mut combo, classes.len()) {
                        break;
                    }
                }
            }
        }
        let mut tested = None;
        if let (Some(alpha), Some(errors), false) =
            (self.significance, errors, best_terms.is_empty())
        {
            let cols: Vec<&[f64]> = best_terms.iter().map(|&h| columns[h].as_slice()).collect();
            let terms: Vec<TermClass> = best_terms.iter().map(|&h| classes[h]).collect();
            tested = significance::test(ys, errors, &cols, &terms, evaluated - 1, alpha);
            if tested.as_ref().is_some_and(|t| !t.significant) {
                best = engine.constant();
                best_terms.clear();
            }
        }
        let mut resolved = None;
        if let (Some(floor), false) = (self.resolution, best_terms.is_empty()) {
            let model: Vec<f64> = (0..xs.len())
                .map(|i| {
                    best_terms
                        .iter()
                        .zip(&best.coefficients[1..])
                        .map(|(&h, c)| c * columns[h][i])
                        .sum()
                })
                .collect();
            let (lo, hi) = model
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                    (lo.min(v), hi.max(v))
                });
            let span = hi - lo;
            let check = Resolution {
                terms: best_terms.iter().map(|&h| classes[h]).collect(),
                span,
                resolution: floor,
                resolved: span >= floor,
            };
            if !check.resolved {
                best = engine.constant();
                best_terms.clear();
            }
            resolved = Some(check);
        }
        let cols: Vec<&[f64]> = best_terms.iter().map(|&h| columns[h].as_slice()).collect();
        let (rss, smape) = engine.in_sample(&cols, &best.coefficients);
        let stats = FitStats::new(xs.len(), best_terms.len(), rss, smape, tss, &best);
        Ok(Single {
            classes: best_terms.iter().map(|&h| classes[h]).collect(),
            coefficients: best.coefficients,
            stats,
            evaluated,
            log_terms_dropped,
            significance: tested,
            resolution: resolved,
        })
    }
}

/// Advances `combo` (strictly increasing indices below `n`) to the next
/// combination in lexicographic order; `false` after the last.
fn next_combination(combo: &mut [usize], n: usize) -> bool {
    let k = combo.len();
    for i in (0..k).rev() {
        if combo[i] < n - k + i {
            combo[i] += 1;
            for j in i + 1..k {
                combo[j] = combo[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

/// The result of a single-parameter search.
#[derive(Clone, Debug)]
pub(crate) struct Single {
    pub classes: Vec<TermClass>,
    pub coefficients: Vec<f64>,
    pub stats: FitStats,
    pub evaluated: usize,
    pub log_terms_dropped: bool,
    pub significance: Option<Significance>,
    pub resolution: Option<Resolution>,
}

impl Single {
    fn into_fit(self, var: &str, xs: Vec<f64>, ys: Vec<f64>) -> Fit {
        let terms = self
            .classes
            .iter()
            .zip(&self.coefficients[1..])
            .map(|(&class, &coefficient)| FittedTerm {
                coefficient,
                factors: vec![(var.to_string(), class)],
            })
            .collect();
        let mut fit = Fit::new(
            vec![var.to_string()],
            self.coefficients[0],
            terms,
            self.stats,
            self.evaluated,
            self.log_terms_dropped,
            xs.into_iter().map(|x| vec![x]).zip(ys).collect(),
        );
        fit.significance = self.significance;
        fit.resolution = self.resolution;
        fit
    }
}

/// Input points after the checks, with repetitions aggregated: distinct
/// coordinates in ascending (lexicographic) order.
#[derive(Clone, Debug)]
pub(crate) struct Data {
    pub coords: Vec<Vec<f64>>,
    pub values: Vec<f64>,
    /// The standard error of each value, if every point has enough
    /// repetitions (see [`significance::standard_error`]).
    pub errors: Option<Vec<f64>>,
}

impl Data {
    fn prepare<'a>(
        params: &[String],
        len: usize,
        coord: impl Fn(usize) -> &'a [f64],
        value: impl Fn(usize) -> f64,
        fitter: &Fitter,
    ) -> Result<Data, FitError> {
        if len == 0 {
            return Err(FitError::NoData);
        }
        for index in 0..len {
            let c = coord(index);
            if c.len() != params.len() {
                return Err(FitError::Dimension {
                    index,
                    expected: params.len(),
                    got: c.len(),
                });
            }
            for (p, &v) in params.iter().zip(c) {
                if !v.is_finite() {
                    return Err(FitError::NonFinite {
                        index,
                        what: format!("{p} = {v}"),
                    });
                }
                if v <= 0.0 {
                    return Err(FitError::NonPositiveParameter {
                        index,
                        param: p.clone(),
                        value: v,
                    });
                }
            }
            let y = value(index);
            if !y.is_finite() {
                return Err(FitError::NonFinite {
                    index,
                    what: format!("value = {y}"),
                });
            }
            if y < 0.0 && !fitter.allow_negative_values {
                return Err(FitError::NegativeValue { index, value: y });
            }
        }
        let cmp = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| x.total_cmp(y))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        };
        let mut order: Vec<usize> = (0..len).collect();
        order.sort_by(|&a, &b| cmp(coord(a), coord(b)));
        let mut coords = Vec::new();
        let mut values = Vec::new();
        let mut errors = Some(Vec::new());
        let mut group: Vec<f64> = Vec::new();
        let mut start = 0;
        while start < order.len() {
            let c = coord(order[start]);
            let mut end = start;
            group.clear();
            while end < order.len() && cmp(coord(order[end]), c).is_eq() {
                group.push(value(order[end]));
                end += 1;
            }
            coords.push(c.to_vec());
            values.push(fitter.aggregate.apply(&mut group));
            errors = errors.and_then(|mut e: Vec<f64>| {
                e.push(significance::standard_error(&group, fitter.aggregate)?);
                Some(e)
            });
            start = end;
        }
        Ok(Data {
            coords,
            values,
            errors,
        })
    }
}

/// Fit statistics of the chosen model, on the aggregated points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitStats {
    /// Number of distinct points (after aggregating repetitions).
    pub points: usize,
    /// Residual sum of squares.
    pub rss: f64,
    /// Symmetric mean absolute percentage error, in percent.
    pub smape: f64,
    /// Adjusted R² (`1 − (RSS/TSS)·(n − 1)/(n − k − 1)` with `k` terms; 0 for
    /// the constant model, `NaN` if all values are equal or `n = k + 1`).
    pub adjusted_r2: f64,
    /// Leave-one-out cross-validation RSS (`NaN` with cross-validation off).
    pub cv_rss: f64,
    /// Leave-one-out cross-validation SMAPE in percent (`NaN` with
    /// cross-validation off).
    pub cv_smape: f64,
    /// The score the selection compared (lower is better): the
    /// cross-validated SMAPE or RSS — for the constant model, its in-sample
    /// cost, as in Extra-P.
    pub score: f64,
}

impl FitStats {
    pub(crate) fn new(
        n: usize,
        k: usize,
        rss: f64,
        smape: f64,
        tss: f64,
        scored: &Scored,
    ) -> FitStats {
        let dof = n as f64 - k as f64 - 1.0;
        let adjusted_r2 = if tss > 0.0 && dof > 0.0 {
            1.0 - (rss / tss) * (n as f64 - 1.0) / dof
        } else {
            f64::NAN
        };
        FitStats {
            points: n,
            rss,
            smape,
            adjusted_r2,
            cv_rss: scored.cv_rss,
            cv_smape: scored.cv_smape,
            score: scored.score,
        }
    }
}

/// One term of a fitted model: a coefficient times a product of term classes,
/// one per parameter it involves.
#[derive(Clone, Debug, PartialEq)]
pub struct FittedTerm {
    /// The coefficient.
    pub coefficient: f64,
    /// `(parameter, class)` factors.
    pub factors: Vec<(String, TermClass)>,
}

impl FittedTerm {
    /// The term as an expression, `c · Π x^i·log2(x)^j`.
    pub fn expr(&self) -> Expr {
        self.factors
            .iter()
            .fold(Expr::num(self.coefficient), |e, (p, c)| e * c.expr(p))
    }
}

/// A fitted model with its statistics; see [`Fitter`].
#[derive(Clone, Debug)]
pub struct Fit {
    params: Vec<String>,
    constant: f64,
    terms: Vec<FittedTerm>,
    model: Expr,
    stats: FitStats,
    evaluated: usize,
    log_terms_dropped: bool,
    points: Vec<(Vec<f64>, f64)>,
    significance: Option<Significance>,
    resolution: Option<Resolution>,
}

/// The check of [`Fitter::resolution`]: did the chosen terms change the
/// model by more than the measurements resolve?
#[derive(Clone, Debug, PartialEq)]
pub struct Resolution {
    /// The term classes of the hypothesis checked (after the noise test).
    pub terms: Vec<TermClass>,
    /// How much those terms change the model across the measured `x`
    /// (`max − min` of their sum), in the unit of `y`.
    pub span: f64,
    /// The floor it was compared with ([`Fitter::resolution`]).
    pub resolution: f64,
    /// `span ≥ resolution`: the terms were kept; if not, the fit is the
    /// constant model.
    pub resolved: bool,
}

impl Fit {
    pub(crate) fn new(
        params: Vec<String>,
        constant: f64,
        terms: Vec<FittedTerm>,
        stats: FitStats,
        evaluated: usize,
        log_terms_dropped: bool,
        points: Vec<(Vec<f64>, f64)>,
    ) -> Fit {
        let model = terms
            .iter()
            .map(FittedTerm::expr)
            .fold(Expr::num(constant), |e, t| e + t)
            .simplify();
        Fit {
            params,
            constant,
            terms,
            model,
            stats,
            evaluated,
            log_terms_dropped,
            points,
            significance: None,
            resolution: None,
        }
    }

    /// The check of [`Fitter::resolution`], if it was made (a floor was set
    /// and the search, after the noise test, chose terms).
    /// `resolved == false` means they were replaced by the constant model.
    pub fn resolution(&self) -> Option<&Resolution> {
        self.resolution.as_ref()
    }

    /// The noise test of [`Fitter::significance`], if it was made: when the
    /// search chose a model with terms, the test was on, and every point had
    /// enough repetitions. `significant == false` means the search's choice
    /// ([`Significance::terms`]) was replaced by the constant model.
    pub fn significance(&self) -> Option<&Significance> {
        self.significance.as_ref()
    }

    /// The model in PMNF normal form, exact exponents
    /// (`1034.17·x·log₂(x) + 5422.97`).
    pub fn model(&self) -> &Expr {
        &self.model
    }

    /// The model, by value.
    pub fn into_model(self) -> Expr {
        self.model
    }

    /// The parameter names.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// The constant coefficient `c0`.
    pub fn constant(&self) -> f64 {
        self.constant
    }

    /// The terms besides the constant (none for the constant model).
    pub fn terms(&self) -> &[FittedTerm] {
        &self.terms
    }

    /// For a single-parameter model: the class of its fastest-growing term
    /// ([`TermClass::CONSTANT`] for the constant model). `None` for a model
    /// in several parameters.
    pub fn class(&self) -> Option<TermClass> {
        if self.params.len() != 1 {
            return None;
        }
        Some(
            self.terms
                .iter()
                .map(|t| t.factors[0].1)
                .max()
                .unwrap_or(TermClass::CONSTANT),
        )
    }

    /// For a single-parameter model: the coefficient of its fastest-growing
    /// term (`c0` for the constant model). `None` for several parameters.
    pub fn leading_coefficient(&self) -> Option<f64> {
        let class = self.class()?;
        Some(
            self.terms
                .iter()
                .find(|t| t.factors[0].1 == class)
                .map_or(self.constant, |t| t.coefficient),
        )
    }

    /// The fit statistics.
    pub fn stats(&self) -> &FitStats {
        &self.stats
    }

    /// How many hypotheses were scored (the constant model included).
    pub fn hypotheses_evaluated(&self) -> usize {
        self.evaluated
    }

    /// Whether hypotheses with a log factor were left out because some
    /// parameter value was below 1 (Extra-P does the same).
    pub fn log_terms_dropped(&self) -> bool {
        self.log_terms_dropped
    }

    /// The points the model was fitted to: distinct coordinates and the
    /// aggregated (median or mean) value at each.
    pub fn points(&self) -> &[(Vec<f64>, f64)] {
        &self.points
    }

    /// The model in Extra-P's printed form, e.g.
    /// `5422.97 + 1034.17 * x^(1) * log2(x)^(1)`, for pasting next to
    /// Extra-P's output; it parses back with [`Expr::parse`].
    pub fn to_extrap_string(&self) -> String {
        let mut parts = Vec::new();
        if self.constant != 0.0 || self.terms.is_empty() {
            parts.push(format!("{}", self.constant));
        }
        for t in &self.terms {
            let mut factors = vec![format!("{}", t.coefficient)];
            factors.extend(t.factors.iter().map(|(p, c)| c.to_extrap(p)));
            parts.push(factors.join(" * "));
        }
        parts.join(" + ")
    }
}

impl fmt::Display for Fit {
    /// The model.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.model.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_in_lexicographic_order() {
        let mut c = vec![0, 1];
        let mut all = vec![c.clone()];
        while next_combination(&mut c, 4) {
            all.push(c.clone());
        }
        assert_eq!(
            all,
            [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]].map(|a| a.to_vec())
        );
        let mut c = vec![0];
        let mut n = 1;
        while next_combination(&mut c, 42) {
            n += 1;
        }
        assert_eq!(n, 42);
    }

    #[test]
    fn aggregation_groups_repetitions() {
        let points = [(4.0, 3.0), (2.0, 1.0), (4.0, 1.0), (2.0, 5.0), (4.0, 2.0)];
        let data = Data::prepare(
            &["x".to_string()],
            points.len(),
            |i| std::slice::from_ref(&points[i].0),
            |i| points[i].1,
            &Fitter::default(),
        )
        .unwrap();
        assert_eq!(data.coords, [vec![2.0], vec![4.0]]);
        assert_eq!(data.values, [3.0, 2.0]);
        let mean = Fitter::default().aggregate(Aggregate::Mean);
        let data = Data::prepare(
            &["x".to_string()],
            points.len(),
            |i| std::slice::from_ref(&points[i].0),
            |i| points[i].1,
            &mean,
        )
        .unwrap();
        assert_eq!(data.values, [3.0, 2.0]);
    }

    #[test]
    fn extrap_string_parses_back() {
        let points: Vec<(f64, f64)> = (1..=8)
            .map(|k| {
                let x = f64::from(k * 100);
                (x, 7.0 + 0.5 * x.powf(1.5))
            })
            .collect();
        let fit = Fitter::default().fit(&points).unwrap();
        assert_eq!(fit.class(), Some(TermClass::extrap(3, 2, 0)));
        let text = fit.to_extrap_string();
        assert!(text.contains("x^(3/2)"), "{text}");
        let back = Expr::parse(&text).unwrap();
        assert!(
            back.approx_eq(fit.model(), 1e-12),
            "{back} vs {}",
            fit.model()
        );
    }
}
