//! The fitter: its options ([`settings`]), the input checks and the
//! aggregation of repetitions ([`data`]), the single- and multi-parameter
//! searches ([`single`], [`multi`]) and the fitted model with its statistics
//! ([`result`]).

mod alternatives;
mod data;
mod extrapolation;
mod monomials;
mod multi;
mod outlier;
mod result;
mod segmented;
mod settings;
mod single;

use crate::fit::error::FitError;
use data::Data;

pub use alternatives::{Alternative, within_noise};
pub use extrapolation::{Extrapolation, SetAside};
pub use outlier::Outlier;
pub use result::{Fit, FitStats, FittedTerm, Resolution};
pub use segmented::{MAX_SEGMENTED_POINTS, Segmentation, Segmented};
pub use settings::{Aggregate, Fitter};

impl Fitter {
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
        let data = self.single_data(points)?;
        self.fit_one(&self.var, data)
    }

    /// The options checked and `(x, y)` points prepared for a fit in the
    /// fitter's variable.
    pub(super) fn single_data(&self, points: &[(f64, f64)]) -> Result<Data, FitError> {
        self.check_options()?;
        let params = [self.var.clone()];
        Data::prepare(
            &params,
            points.len(),
            |i| std::slice::from_ref(&points[i].0),
            |i| points[i].1,
            self,
        )
    }

    /// Fits a model in several parameters, like Extra-P's multi-parameter
    /// modeler: for each parameter, the single-parameter model along the
    /// longest lines of points where the other parameters are fixed (values
    /// averaged over such lines); then the products and sums of the terms
    /// found (for two parameters `a·b`, `a + b`, `a·b + a`, `a·b + b`; for
    /// three the 23 combinations of Extra-P; for more, product and sum),
    /// coefficients by least squares on all points, and the choice by
    /// leave-one-out cross-validation (Extra-P compares in-sample SMAPE
    /// here). By default a search of sums of products of each parameter's
    /// classes competes with those structures
    /// ([`Fitter::monomial_search`]): `0.1·x·y²·z + 0.2·x²·log₂y` has two
    /// terms in `y`, which one term per parameter cannot hold.
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
            return self.fit_one(&names[0], data);
        }
        finite(multi::fit(self, &names, data)?)
    }

    /// The single-parameter fit of `data` in `param`, with its outlier left
    /// out ([`Fitter::robust`]).
    pub(super) fn fit_one(&self, param: &str, data: Data) -> Result<Fit, FitError> {
        let xs: Vec<f64> = data.coords.iter().map(|c| c[0]).collect();
        let single = self.fit_line(param, &xs, &data.values, data.errors.as_deref())?;
        self.finish_one(param, data, xs, single)
    }

    /// [`Fitter::fit_one`] from the search's fit of all points, `single`,
    /// on `data` with sizes `xs`.
    pub(super) fn finish_one(
        &self,
        param: &str,
        data: Data,
        xs: Vec<f64>,
        mut single: single::Single,
    ) -> Result<Fit, FitError> {
        let errors = data.errors.as_deref();
        let mut outliers = Vec::new();
        if self.robust
            && let Some((without, o)) =
                self.without_outlier(param, &xs, &data.values, errors, &single)?
        {
            single = without;
            outliers.push(o);
        }
        let mut fit = single.into_fit(param, xs, data.values);
        fit.outliers = outliers;
        finite(fit)
    }
}

/// The fit, or [`FitError::Overflow`] where values near `f64::MAX` made its
/// coefficients or its residuals overflow: a model `1e999` is no model.
pub(super) fn finite(fit: Fit) -> Result<Fit, FitError> {
    let coefficients =
        std::iter::once(fit.constant()).chain(fit.terms().iter().map(|t| t.coefficient));
    let rss = fit.stats().rss;
    if rss.is_finite() && coefficients.into_iter().all(f64::is_finite) {
        return Ok(fit);
    }
    let largest = fit
        .points()
        .iter()
        .map(|(_, y)| y.abs())
        .fold(0.0, f64::max);
    Err(FitError::Overflow { largest, rss })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values near `f64::MAX` overflow the residuals: an error, not `1e999`.
    #[test]
    fn overflowing_values_are_an_error() {
        let points = [
            (1.0, 1e300),
            (2.0, 1e305),
            (3.0, 1e307),
            (4.0, 1.5e308),
            (5.0, 1.7e308),
        ];
        match Fitter::default().fit(&points) {
            Err(FitError::Overflow { largest, rss }) => {
                assert_eq!(largest, 1.7e308);
                assert!(!rss.is_finite());
            }
            other => panic!("{other:?}"),
        }
        // The same shape, scaled down, fits.
        let scaled: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x, y * 1e-300)).collect();
        assert!(Fitter::default().fit(&scaled).is_ok());
    }

    /// Points on the diagonal vary every parameter at once: the error says
    /// so instead of counting one value of `p`.
    #[test]
    fn a_diagonal_design_is_named() {
        let points: Vec<([f64; 2], f64)> = (1..=5).map(|i| ([i as f64; 2], i as f64)).collect();
        let e = Fitter::default()
            .fit_multi(&["p", "n"], &points)
            .unwrap_err();
        assert_eq!(
            e,
            FitError::NotAlongLines {
                param: "p".into(),
                distinct: 5,
                along: 1
            }
        );
        assert!(
            e.to_string()
                .starts_with("the points vary all parameters at once")
        );
        // Too few values at all is still counted as such.
        let two: Vec<([f64; 2], f64)> = (1..=2).map(|i| ([i as f64, 1.0], 1.0)).collect();
        let e = Fitter::default().fit_multi(&["p", "n"], &two).unwrap_err();
        assert!(matches!(e, FitError::TooFewPoints { .. }), "{e}");
    }
}
