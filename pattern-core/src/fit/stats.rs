//! Descriptive statistics of repeated measurements (median, quartiles,
//! coefficient of variation, the five-number summary of seed 001 Table 1)
//! and the error measures of model selection (RSS, SMAPE).

use std::fmt;

/// The mean; `NaN` for no values.
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The median (the mean of the two middle values for an even count); `NaN`
/// for no values. NaNs sort last.
pub fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

/// The `q`-quantile (`0 ≤ q ≤ 1`) with linear interpolation between order
/// statistics (numpy's default, R's type 7); `NaN` for no values.
///
/// ```
/// use pattern_core::fit::stats::quantile;
///
/// let v = [4.0, 1.0, 3.0, 2.0];
/// assert_eq!(quantile(&v, 0.5), 2.5);
/// assert_eq!(quantile(&v, 0.25), 1.75);
/// assert_eq!(quantile(&v, 1.0), 4.0);
/// ```
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    quantile_sorted(&sorted, q)
}

/// [`quantile`] of values already sorted in ascending order.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    if lo == hi {
        sorted[lo]
    } else {
        sorted[lo] + (sorted[hi] - sorted[lo]) * frac
    }
}

/// The sample standard deviation (divisor `n - 1`); `NaN` for fewer than two
/// values.
pub fn std_dev(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return f64::NAN;
    }
    let m = mean(values);
    let ss: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
    (ss / (values.len() - 1) as f64).sqrt()
}

/// The coefficient of variation in percent, `100 · std_dev / mean` (sample
/// standard deviation), as seed 001 Table 1 reports it; `NaN` for fewer than
/// two values or a zero mean.
///
/// ```
/// use pattern_core::fit::stats::coefficient_of_variation;
///
/// let cv = coefficient_of_variation(&[9.0, 10.0, 11.0]);
/// assert!((cv - 10.0).abs() < 1e-12);
/// ```
pub fn coefficient_of_variation(values: &[f64]) -> f64 {
    let m = mean(values);
    if m == 0.0 {
        return f64::NAN;
    }
    100.0 * std_dev(values) / m.abs()
}

/// The residual sum of squares of predictions against actual values.
pub fn rss(actual: &[f64], predicted: &[f64]) -> f64 {
    actual
        .iter()
        .zip(predicted)
        .map(|(a, p)| (p - a) * (p - a))
        .sum()
}

/// One point's share of SMAPE: `2·|p - a| / (|a| + |p|)`, `0` when both are
/// zero.
pub fn smape_term(actual: f64, predicted: f64) -> f64 {
    let sum = actual.abs() + predicted.abs();
    if sum == 0.0 {
        0.0
    } else {
        2.0 * (predicted - actual).abs() / sum
    }
}

/// The symmetric mean absolute percentage error in percent, Extra-P's
/// definition: `100/n · Σ 2·|p - a| / (|a| + |p|)` (points where both are
/// zero count as exact).
///
/// ```
/// use pattern_core::fit::stats::smape;
///
/// assert_eq!(smape(&[100.0, 100.0], &[100.0, 100.0]), 0.0);
/// assert!((smape(&[100.0], &[110.0]) - 100.0 * 20.0 / 210.0).abs() < 1e-12);
/// ```
pub fn smape(actual: &[f64], predicted: &[f64]) -> f64 {
    let n = actual.len().min(predicted.len());
    let sum: f64 = actual
        .iter()
        .zip(predicted)
        .map(|(&a, &p)| smape_term(a, p))
        .sum();
    100.0 * sum / n as f64
}

/// The five-number summary Table 1 of seed 001 gives for the coefficients of
/// variation: minimum, 0.25 quartile, median, 0.75 quartile and maximum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FiveNumber {
    /// The smallest value.
    pub min: f64,
    /// The 0.25 quartile.
    pub q1: f64,
    /// The median.
    pub median: f64,
    /// The 0.75 quartile.
    pub q3: f64,
    /// The largest value.
    pub max: f64,
}

impl FiveNumber {
    /// The summary of `values` (NaNs are left out); `None` when no value is
    /// left.
    ///
    /// ```
    /// use pattern_core::fit::stats::FiveNumber;
    ///
    /// let s = FiveNumber::of(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
    /// assert_eq!((s.min, s.q1, s.median, s.q3, s.max), (1.0, 2.0, 3.0, 4.0, 5.0));
    /// assert_eq!(s.to_string(), "(1, 2, 3, 4, 5)");
    /// ```
    pub fn of(values: &[f64]) -> Option<FiveNumber> {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        Some(FiveNumber {
            min: sorted[0],
            q1: quantile_sorted(&sorted, 0.25),
            median: quantile_sorted(&sorted, 0.5),
            q3: quantile_sorted(&sorted, 0.75),
            max: sorted[sorted.len() - 1],
        })
    }
}

impl fmt::Display for FiveNumber {
    /// `(min, q1, median, q3, max)`; a precision applies to every number
    /// (`{:.2}` gives Table 1's style).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let values = [self.min, self.q1, self.median, self.q3, self.max];
        f.write_str("(")?;
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match f.precision() {
                Some(p) => write!(f, "{v:.p$}")?,
                None => write!(f, "{v}")?,
            }
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_quantiles() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
        assert!(median(&[]).is_nan());
        // numpy.quantile([1, 2, 3, 4, 10], [0.25, 0.75]) = [2, 4]
        let v = [10.0, 1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.25), 2.0);
        assert_eq!(quantile(&v, 0.75), 4.0);
        assert_eq!(quantile(&v, 0.0), 1.0);
        // numpy.quantile([1, 2], 0.3) = 1.3
        assert!((quantile(&[2.0, 1.0], 0.3) - 1.3).abs() < 1e-12);
    }

    #[test]
    fn spread() {
        // numpy.std([2, 4, 4, 4, 5, 5, 7, 9], ddof=1) = 2.138089935299395
        let v = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert!((std_dev(&v) - 2.138_089_935_299_395).abs() < 1e-12);
        assert!((coefficient_of_variation(&v) - 100.0 * 2.138_089_935_299_395 / 5.0).abs() < 1e-9);
        assert!(std_dev(&[1.0]).is_nan());
        assert!(coefficient_of_variation(&[0.0, 0.0]).is_nan());
    }

    #[test]
    fn error_measures() {
        assert_eq!(rss(&[1.0, 2.0], &[2.0, 4.0]), 5.0);
        assert_eq!(smape_term(0.0, 0.0), 0.0);
        assert_eq!(smape_term(0.0, 1.0), 2.0);
        let s = smape(&[1.0, 2.0], &[1.0, 3.0]);
        assert!((s - 100.0 * (2.0 / 5.0) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn five_number_summary_skips_nan() {
        let s = FiveNumber::of(&[f64::NAN, 2.0, 1.0]).unwrap();
        assert_eq!(s.min, 1.0);
        assert_eq!(s.median, 1.5);
        assert_eq!(s.max, 2.0);
        assert!(FiveNumber::of(&[f64::NAN]).is_none());
        assert_eq!(format!("{s:.2}"), "(1.00, 1.25, 1.50, 1.75, 2.00)");
    }
}
