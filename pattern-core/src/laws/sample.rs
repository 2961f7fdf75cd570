//! The domain over which two designs are compared, and its points.

use std::collections::BTreeMap;
use std::fmt;

/// The range of one variable: the integers from `lo` to `hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VarRange {
    /// Smallest value (at least 1).
    pub lo: u64,
    /// Largest value.
    pub hi: u64,
}

/// Why a domain is not valid.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DomainError {
    /// A range with `lo > hi`.
    #[error("the range of `{var}` is empty: {lo} > {hi}")]
    Empty {
        /// The variable.
        var: String,
        /// Its lower bound.
        lo: u64,
        /// Its upper bound.
        hi: u64,
    },
    /// A range that includes 0.
    #[error(
        "the range of `{var}` starts at 0: variables are sizes and counts, at least 1 (a model may take log2 of them or divide by them)"
    )]
    Zero {
        /// The variable.
        var: String,
    },
    /// A bound too large to be exact in floating point.
    #[error("the range of `{var}` ends at {hi}, beyond 2^53 where integers stop being exact")]
    TooLarge {
        /// The variable.
        var: String,
        /// Its upper bound.
        hi: u64,
    },
}

/// Where designs are compared: a range of integers for each variable of
/// their models. `x` (elements) defaults to 2 ..= 2^20, every other variable
/// (a symbolic thread count, nodes) to 1 ..= 64.
///
/// ```
/// use pattern_core::laws::Domain;
///
/// let d = Domain::new().with("x", 1024, 262_144)?.with("n", 1, 24)?;
/// assert_eq!(d.range("x").hi, 262_144);
/// assert_eq!(d.range("p").lo, 1); // the default for other variables
/// assert!(Domain::new().with("n", 0, 8).is_err());
/// # Ok::<(), pattern_core::laws::DomainError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Domain {
    ranges: BTreeMap<String, VarRange>,
}

impl Default for Domain {
    fn default() -> Domain {
        Domain::new()
    }
}

/// The default range of `x`.
const DEFAULT_X: VarRange = VarRange { lo: 2, hi: 1 << 20 };
/// The default range of any other variable.
const DEFAULT_OTHER: VarRange = VarRange { lo: 1, hi: 64 };

impl Domain {
    /// The default domain: `x` in 2 ..= 2^20, anything else in 1 ..= 64.
    pub fn new() -> Domain {
        Domain {
            ranges: BTreeMap::new(),
        }
    }

    /// The domain with `var` ranging over `lo ..= hi`.
    pub fn with(mut self, var: &str, lo: u64, hi: u64) -> Result<Domain, DomainError> {
        let var_name = || var.to_string();
        if lo == 0 {
            return Err(DomainError::Zero { var: var_name() });
        }
        if lo > hi {
            return Err(DomainError::Empty {
                var: var_name(),
                lo,
                hi,
            });
        }
        if hi > 1 << 53 {
            return Err(DomainError::TooLarge {
                var: var_name(),
                hi,
            });
        }
        self.ranges.insert(var_name(), VarRange { lo, hi });
        Ok(self)
    }

    /// The range of `var`: as given, or the default.
    pub fn range(&self, var: &str) -> VarRange {
        self.ranges
            .get(var)
            .copied()
            .unwrap_or(if var == "x" { DEFAULT_X } else { DEFAULT_OTHER })
    }

    /// A grid over the ranges of `vars`: for each, both ends and values
    /// spread evenly on a log scale (24 for `x`, 8 for the others), at most
    /// `max` points in all.
    pub(crate) fn grid(&self, vars: &[String], max: usize) -> Vec<Vec<f64>> {
        let axes: Vec<Vec<f64>> = vars
            .iter()
            .map(|v| log_spaced(self.range(v), if v == "x" { 24 } else { 8 }))
            .collect();
        let axes: Vec<&[f64]> = axes.iter().map(Vec::as_slice).collect();
        super::check::grid(&axes, max)
    }
}

/// About `k` integers from `lo` to `hi`, both included, evenly spread on a
/// log scale, without repeats.
fn log_spaced(r: VarRange, k: usize) -> Vec<f64> {
    let (lo, hi) = (r.lo as f64, r.hi as f64);
    let mut out: Vec<f64> = (0..k)
        .map(|i| {
            let t = i as f64 / (k - 1) as f64;
            (lo * (hi / lo).powf(t)).round().clamp(lo, hi)
        })
        .collect();
    out.dedup();
    out
}

/// A point of a domain: a value for each variable, in alphabetical order.
/// Prints as `n = 2, x = 13`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point(pub Vec<(String, u64)>);

impl Point {
    pub(crate) fn new(vars: &[String], values: &[f64]) -> Point {
        Point(
            vars.iter()
                .cloned()
                .zip(values.iter().map(|&v| v as u64))
                .collect(),
        )
    }

    /// The value of `var`, if the point has one.
    pub fn get(&self, var: &str) -> Option<u64> {
        self.0.iter().find(|(v, _)| v == var).map(|&(_, k)| k)
    }

    /// The values as bindings for [`crate::Expr::eval`].
    pub fn bindings(&self) -> Vec<(&str, f64)> {
        self.0
            .iter()
            .map(|(v, k)| (v.as_str(), *k as f64))
            .collect()
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("any point");
        }
        let parts: Vec<String> = self.0.iter().map(|(v, k)| format!("{v} = {k}")).collect();
        f.write_str(&parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_spacing_keeps_the_ends_and_no_repeats() {
        let v = log_spaced(VarRange { lo: 2, hi: 1 << 20 }, 24);
        assert_eq!(v.first(), Some(&2.0));
        assert_eq!(v.last(), Some(&1048576.0));
        assert_eq!(v.len(), 24);
        let small = log_spaced(VarRange { lo: 1, hi: 3 }, 8);
        assert_eq!(small, [1.0, 2.0, 3.0]);
        assert_eq!(log_spaced(VarRange { lo: 5, hi: 5 }, 8), [5.0]);
    }

    #[test]
    fn domain_errors() {
        assert_eq!(
            Domain::new().with("x", 9, 3).unwrap_err().to_string(),
            "the range of `x` is empty: 9 > 3"
        );
        assert!(matches!(
            Domain::new().with("x", 0, 3),
            Err(DomainError::Zero { .. })
        ));
        assert!(matches!(
            Domain::new().with("x", 1, u64::MAX),
            Err(DomainError::TooLarge { .. })
        ));
        let p = Point::new(&["n".into(), "x".into()], &[2.0, 13.0]);
        assert_eq!(p.to_string(), "n = 2, x = 13");
        assert_eq!(p.get("x"), Some(13));
    }
}
