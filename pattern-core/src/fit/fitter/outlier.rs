//! Points that the others contradict: a single-parameter fit leaves out
//! an interior point that lies far off the model of all the other points,
//! when those fit it within their own scatter, and says so
//! ([`Fit::outliers`](super::Fit::outliers)). A first or last point is never
//! left out: off the others' model it cannot be told from a change of
//! growth there. A multi-parameter fit of many points leaves out up to one
//! in twenty by the same rule (`multi.rs`).

use super::settings::Fitter;
use super::single::Single;
use crate::fit::error::FitError;

/// The most distinct sizes the check runs on: it fits the data once per
/// interior point, so its cost grows as the square of the points.
pub(crate) const MAX_POINTS: usize = 64;

/// The fewest distinct sizes it needs: four left after one is out.
const MIN_POINTS: usize = 5;

/// The fewest points of a multi-parameter fit that leaves points out:
/// twenty, of which it may leave one.
pub(super) const MIN_POINTS_MULTI: usize = 20;

/// The most points a multi-parameter fit of `n` points leaves out: one in
/// twenty.
pub(super) fn most_left_out(n: usize) -> usize {
    n / 20
}

/// How many times the others' largest relative residual a point must lie
/// off their model to be left out.
pub(super) const FACTOR: f64 = 10.0;

/// The scatter assumed at least (1 %), so that points that fit almost
/// exactly do not make a small deviation an outlier.
pub(super) const FLOOR: f64 = 0.01;

/// The check runs only when the fit of all points leaves one at least this
/// far off (5 %): an outlier is at least [`FACTOR`]·[`FLOOR`] = 10 % off the
/// others' model, and a least-squares fit of all points moves towards an
/// interior point by its leverage, well under half of its distance with 5
/// or more points. Data that fit well cost one fit, not one per point.
pub(super) const GATE: f64 = 0.05;

/// A point left out of a fit ([`Fitter::robust`](super::Fitter::robust)).
#[derive(Clone, Debug, PartialEq)]
pub struct Outlier {
    /// Where it was measured: one value per parameter.
    pub coordinate: Vec<f64>,
    /// Its value (repetitions combined).
    pub value: f64,
    /// What the model of the other points gives there.
    pub expected: f64,
    /// The other points' largest relative residual from their model.
    pub others_scatter: f64,
}

impl Outlier {
    /// `value / expected`: 0.1 for a value ten times too low.
    pub fn ratio(&self) -> f64 {
        self.value / self.expected
    }
}

/// Whether `single`, fitted on `xs`, `ys`, leaves a point at least
/// [`GATE`] off.
fn leaves_a_point_off(single: &Single, xs: &[f64], ys: &[f64]) -> bool {
    xs.iter()
        .zip(ys)
        .any(|(&x, &y)| relative(y, single.at(x)) >= GATE)
}

impl Fitter {
    /// The fit of the points but the interior one furthest off the others'
    /// model, if it lies at least [`FACTOR`] times their largest relative
    /// residual (at least [`FLOOR`]) off it; `None` if no point does, if
    /// `all` (the fit of every point) leaves none [`GATE`] off, or with
    /// fewer than [`MIN_POINTS`] or more than [`MAX_POINTS`] sizes.
    pub(super) fn without_outlier(
        &self,
        param: &str,
        xs: &[f64],
        ys: &[f64],
        errors: Option<&[f64]>,
        all: &Single,
    ) -> Result<Option<(Single, Outlier)>, FitError> {
        let n = xs.len();
        if !(MIN_POINTS..=MAX_POINTS).contains(&n) || !leaves_a_point_off(all, xs, ys) {
            return Ok(None);
        }
        let mut worst: Option<(f64, Single, Outlier)> = None;
        for i in 1..n - 1 {
            let keep = |v: &[f64]| -> Vec<f64> {
                v.iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, &y)| y)
                    .collect()
            };
            let (xs_i, ys_i) = (keep(xs), keep(ys));
            let errors_i = errors.map(keep);
            let single = self.fit_line(param, &xs_i, &ys_i, errors_i.as_deref())?;
            let scatter = xs_i
                .iter()
                .zip(&ys_i)
                .map(|(&x, &y)| relative(y, single.at(x)))
                .fold(0.0, f64::max);
            let expected = single.at(xs[i]);
            let off = relative(ys[i], expected) / scatter.max(FLOOR);
            if off >= FACTOR && worst.as_ref().is_none_or(|(w, _, _)| off > *w) {
                let outlier = Outlier {
                    coordinate: vec![xs[i]],
                    value: ys[i],
                    expected,
                    others_scatter: scatter,
                };
                worst = Some((off, single, outlier));
            }
        }
        Ok(worst.map(|(_, single, outlier)| (single, outlier)))
    }
}

/// `|value − model| / |model|`; infinite where the model is zero and the
/// value is not.
pub(super) fn relative(value: f64, model: f64) -> f64 {
    let d = (value - model).abs();
    if d == 0.0 { 0.0 } else { d / model.abs() }
}
