//! Relative errors as the paper reports them: between a prediction and a
//! measurement, and between the leading coefficients of two models of the
//! same class (seed 001 §4: "the relative error of the dominating scaling
//! terms").

use crate::{EvalError, Expr, Growth};

/// Why two models could not be compared.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AccuracyError {
    /// The models grow differently, so their coefficients do not compare.
    #[error(
        "the models are of different classes: {predicted} (predicted) and {measured} (measured)"
    )]
    DifferentClasses {
        /// Class of the prediction.
        predicted: String,
        /// Class of the measurement.
        measured: String,
    },
    /// A model's dominant part is not a single term with a numeric coefficient
    /// (or its class cannot be told).
    #[error("`{model}` has no single leading term in `{var}`")]
    NoLeadingTerm {
        /// The model, as text.
        model: String,
        /// The variable.
        var: String,
    },
    /// A model could not be evaluated.
    #[error(transparent)]
    Eval(#[from] EvalError),
}

/// `|predicted - measured| / |measured|`, the paper's relative error.
///
/// ```
/// use pattern_core::accuracy::relative_error;
///
/// // Table 2, tpool_2(qsort): 517.09 predicted, 553.72 measured: 6.62 %.
/// let e = relative_error(517.09, 553.72);
/// assert!((e * 100.0 - 6.62).abs() < 0.005);
/// ```
pub fn relative_error(predicted: f64, measured: f64) -> f64 {
    (predicted - measured).abs() / measured.abs()
}

/// The relative error of two models at one point.
pub fn relative_error_at(
    predicted: &Expr,
    measured: &Expr,
    point: &[(&str, f64)],
) -> Result<f64, EvalError> {
    Ok(relative_error(
        predicted.eval(point)?,
        measured.eval(point)?,
    ))
}

/// The relative error of the leading coefficients of two models of the same
/// growth class in `var`; constant offsets and slower terms are ignored, as
/// in the paper.
///
/// ```
/// use pattern_core::{Expr, accuracy::leading_coefficient_error};
///
/// // Table 2, seq(qsort, nop): modular 1034.17·x·log₂x + 5422.97 against
/// // the monolithic 1037.42·x·log₂x: 0.31 %.
/// let modular = Expr::parse("1034.17*x*log2(x) + 5422.97").unwrap();
/// let monolithic = Expr::parse("1037.42*x*log2(x)").unwrap();
/// let e = leading_coefficient_error(&modular, &monolithic, "x").unwrap();
/// assert!((e * 100.0 - 0.31).abs() < 0.005);
/// ```
pub fn leading_coefficient_error(
    predicted: &Expr,
    measured: &Expr,
    var: &str,
) -> Result<f64, AccuracyError> {
    let lead = |model: &Expr| -> Result<(Growth, f64), AccuracyError> {
        let missing = || AccuracyError::NoLeadingTerm {
            model: model.to_string(),
            var: var.to_string(),
        };
        let growth = model.growth(var).ok_or_else(missing)?;
        let coefficient = model.leading_coefficient(var).ok_or_else(missing)?;
        Ok((growth, coefficient))
    };
    let (gp, cp) = lead(predicted)?;
    let (gm, cm) = lead(measured)?;
    if gp != gm {
        return Err(AccuracyError::DifferentClasses {
            predicted: gp.to_string(),
            measured: gm.to_string(),
        });
    }
    Ok(relative_error(cp, cm))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointwise() {
        let p = Expr::parse("536.185*x").unwrap();
        let m = Expr::parse("540.897*x").unwrap();
        let e = relative_error_at(&p, &m, &[("x", 1000.0)]).unwrap();
        assert!((e - (540.897 - 536.185) / 540.897).abs() < 1e-15);
        assert!(relative_error_at(&p, &m, &[]).is_err());
    }

    #[test]
    fn different_classes_are_refused() {
        let p = Expr::parse("1034.17*x*log2(x)").unwrap();
        let m = Expr::parse("677.05*x").unwrap();
        let err = leading_coefficient_error(&p, &m, "x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the models are of different classes: O(x·log₂x) (predicted) and O(x) (measured)"
        );
    }

    #[test]
    fn symbolic_leading_terms_are_refused() {
        let p = Expr::parse("a*x + b*x").unwrap();
        let m = Expr::parse("x").unwrap();
        assert!(matches!(
            leading_coefficient_error(&p, &m, "x"),
            Err(AccuracyError::NoLeadingTerm { .. })
        ));
    }
}
