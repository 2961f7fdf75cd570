//! The result of a fit: the model with its terms, statistics and the
//! checks that were made.

use crate::Expr;
use crate::fit::hypothesis::TermClass;
use crate::fit::search::Scored;
use crate::fit::significance::Significance;
use std::fmt;

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

/// The model `constant + Σ terms`, simplified.
pub(super) fn model_of(constant: f64, terms: &[FittedTerm]) -> Expr {
    terms
        .iter()
        .map(FittedTerm::expr)
        .fold(Expr::num(constant), |e, t| e + t)
        .simplify()
}

/// A fitted model with its statistics; see [`Fitter`](crate::fit::Fitter).
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
    pub(super) significance: Option<Significance>,
    pub(super) resolution: Option<Resolution>,
    pub(super) alternatives: Vec<super::Alternative>,
    pub(super) extrapolation: Option<super::Extrapolation>,
    pub(super) set_aside: Option<super::SetAside>,
    pub(super) outliers: Vec<super::Outlier>,
}

/// The check of [`Fitter::resolution`](crate::fit::Fitter::resolution):
/// did the chosen terms change the model by more than the measurements
/// resolve?
#[derive(Clone, Debug, PartialEq)]
pub struct Resolution {
    /// The term classes of the hypothesis checked (after the noise test).
    pub terms: Vec<TermClass>,
    /// How much those terms change the model across the measured `x`
    /// (`max − min` of their sum), in the unit of `y`.
    pub span: f64,
    /// The floor it was compared with
    /// ([`Fitter::resolution`](crate::fit::Fitter::resolution)).
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
        let model = model_of(constant, &terms);
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
            alternatives: Vec::new(),
            extrapolation: None,
            set_aside: None,
            outliers: Vec::new(),
        }
    }

    /// The check of [`Fitter::resolution`](crate::fit::Fitter::resolution),
    /// if it was made (a floor was set and the search, after the noise test,
    /// chose terms).
    /// `resolved == false` means they were replaced by the constant model.
    pub fn resolution(&self) -> Option<&Resolution> {
        self.resolution.as_ref()
    }

    /// The noise test of
    /// [`Fitter::significance`](crate::fit::Fitter::significance), if it was
    /// made: when the search chose a model with terms, the test was on, and
    /// every point had enough repetitions. `significant == false` means the
    /// search's choice ([`Significance::terms`]) was replaced by the constant
    /// model.
    pub fn significance(&self) -> Option<&Significance> {
        self.significance.as_ref()
    }

    /// Models of other leading classes that fit the same data within the
    /// noise ([`within_noise`](super::within_noise)), closest first, with
    /// how far each parts from this model at 4x and 16x the largest size
    /// measured. Empty when the data tell the classes apart, without
    /// cross-validation, and for multi-parameter fits.
    ///
    /// ```
    /// use pattern_core::fit::Fitter;
    ///
    /// // x^(2/3) with ±5 % noise over three decades.
    /// let points: Vec<(f64, f64)> = (0..30)
    ///     .map(|i| {
    ///         let x = 10f64.powf(1.0 + 3.0 * (i / 5) as f64 / 5.0);
    ///         let noise = 1.0 + 0.05 * ((i as f64 * 2.399963).sin());
    ///         (x, 100.0 * x.powf(2.0 / 3.0) * noise)
    ///     })
    ///     .collect();
    /// let fit = Fitter::default().fit(&points).unwrap();
    /// for alternative in fit.alternatives() {
    ///     println!("{alternative}");
    /// }
    /// ```
    pub fn alternatives(&self) -> &[super::Alternative] {
        &self.alternatives
    }

    /// Where a single-parameter model turns negative or its growth turns,
    /// beyond the largest size measured (`None` with several parameters).
    ///
    /// ```
    /// use pattern_core::fit::Fitter;
    ///
    /// // 93.4 − 6.55·log2(p), measured at p = 2..64: negative from about
    /// // 2^14.3 = 19,500, 300 times the largest p.
    /// let points: Vec<(f64, f64)> = (1..=6)
    ///     .map(|k| (f64::from(1 << k), 93.4 - 6.55 * f64::from(k)))
    ///     .collect();
    /// let fit = Fitter::default().var("p").fit(&points).unwrap();
    /// let beyond = fit.extrapolation().unwrap();
    /// assert_eq!(beyond.largest, 64.0);
    /// let x = beyond.negative_from.unwrap();
    /// assert!((x - 2f64.powf(93.4 / 6.55)).abs() < 1.0, "{x}");
    /// ```
    pub fn extrapolation(&self) -> Option<&super::Extrapolation> {
        self.extrapolation.as_ref()
    }

    /// The model that scored best but turned negative before 16 times the
    /// largest size measured, if one within the noise that did not was
    /// chosen instead ([`Fitter::prefer_nonnegative`](super::Fitter::prefer_nonnegative)).
    pub fn set_aside(&self) -> Option<&super::SetAside> {
        self.set_aside.as_ref()
    }

    /// The points the fit left out because the others contradicted them
    /// ([`Fitter::robust`](super::Fitter::robust)): none or one in one
    /// parameter, up to one in twenty in several. They stay in
    /// [`Fit::points`]; the statistics are those of the other points.
    pub fn outliers(&self) -> &[super::Outlier] {
        &self.outliers
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
    use crate::fit::Fitter;

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
