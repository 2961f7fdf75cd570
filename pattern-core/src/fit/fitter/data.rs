//! The input of a fit: the checks of the points, and the repetitions at
//! each point combined into one value with its standard error.

use super::settings::{Aggregate, Fitter};
use crate::fit::error::FitError;
use crate::fit::stats;

/// Repetitions needed at every point for the test to apply.
pub(crate) const MIN_REPETITIONS: usize = 3;

/// `√(π/2)`: the asymptotic standard error of the median of `r` normal
/// values is `√(π/2)·σ/√r`.
const MEDIAN_SE_FACTOR: f64 = 1.253_314_137_315_500_3;
/// `1/Φ⁻¹(3/4)`: makes the median absolute deviation a consistent estimate
/// of `σ` for normal data.
const MAD_TO_SIGMA: f64 = 1.482_602_218_505_602;

/// The MAD's small-sample factor `b_r` for `r` values (Croux and Rousseeuw,
/// 1992): `1.4826·b_r·MAD` is unbiased for normal `σ`. With 5 values one
/// absolute deviation is always 0, and the plain MAD is 18 % low.
fn mad_small_sample(r: usize) -> f64 {
    const B: [f64; 8] = [1.196, 1.495, 1.363, 1.206, 1.200, 1.140, 1.129, 1.107];
    match r {
        0 | 1 => 1.0,
        2..=9 => B[r - 2],
        _ => r as f64 / (r as f64 - 0.8),
    }
}

/// The standard error of the aggregate of `values`, or `None` with fewer
/// than [`MIN_REPETITIONS`] values. For the median: `√(π/2)·σ̂/√r` with the
/// robust `σ̂ = 1.4826·b_r·MAD` (median absolute deviation: timings have
/// outliers, and it ignores up to half of the values; `b_r` its
/// small-sample factor); for the mean: the sample standard deviation over
/// `√r`.
pub(crate) fn standard_error(values: &[f64], aggregate: Aggregate) -> Option<f64> {
    let r = values.len();
    if r < MIN_REPETITIONS {
        return None;
    }
    let root = (r as f64).sqrt();
    Some(match aggregate {
        Aggregate::Median => {
            let median = stats::median(values);
            let deviations: Vec<f64> = values.iter().map(|v| (v - median).abs()).collect();
            let sigma = MAD_TO_SIGMA * mad_small_sample(r) * stats::median(&deviations);
            MEDIAN_SE_FACTOR * sigma / root
        }
        Aggregate::Mean => stats::std_dev(values) / root,
    })
}

/// Input points after the checks, with repetitions aggregated: distinct
/// coordinates in ascending (lexicographic) order.
#[derive(Clone, Debug)]
pub(crate) struct Data {
    pub coords: Vec<Vec<f64>>,
    pub values: Vec<f64>,
    /// The standard error of each value, if every point has enough
    /// repetitions (see [`standard_error`]).
    pub errors: Option<Vec<f64>>,
}

impl Data {
    pub(super) fn prepare<'a>(
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
                e.push(standard_error(&group, fitter.aggregate)?);
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn standard_errors_of_median_and_mean() {
        assert_eq!(standard_error(&[1.0, 2.0], Aggregate::Median), None);
        // 1..=5: median 3, absolute deviations 2, 1, 0, 1, 2, MAD 1.
        let se = standard_error(&[5.0, 1.0, 4.0, 2.0, 3.0], Aggregate::Median).unwrap();
        let want = MEDIAN_SE_FACTOR * MAD_TO_SIGMA * 1.206 / 5f64.sqrt();
        assert!((se - want).abs() < 1e-12, "{se}");
        // An outlier does not move it; a majority of equal values gives 0.
        let with_outlier = standard_error(&[300.0, 1.0, 4.0, 2.0, 3.0], Aggregate::Median);
        assert_eq!(with_outlier, Some(want));
        assert_eq!(
            standard_error(&[7.0, 7.0, 35.0], Aggregate::Median),
            Some(0.0)
        );
        let se = standard_error(&[1.0, 2.0, 3.0, 4.0, 5.0], Aggregate::Mean).unwrap();
        assert!((se - 2.5f64.sqrt() / 5f64.sqrt()).abs() < 1e-12, "{se}");
    }
}
