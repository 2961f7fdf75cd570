//! The small computations of the protocol: the steady-state time per
//! element of a run, medians and spreads over processes, and the rule that
//! says whether a prediction is within.

use std::time::Instant;

/// Share of the departures left out at each end (the fill and the drain).
pub const TRIM: f64 = 0.10;

/// A prediction within this relative error counts as within.
pub const WITHIN: f64 = 0.10;

/// Where the program itself spreads by more than this from run to run, a
/// prediction inside the measured range counts as within too.
pub const NOISY: f64 = 0.20;

/// The steady-state time per element in ns from the departures of a run
/// (sorted): the mean time between departures with the first and last
/// [`TRIM`] of them left out. `None` with fewer than 3 departures left.
pub fn steady_state(departures: &[Instant]) -> Option<f64> {
    let n = departures.len();
    let cut = (n as f64 * TRIM).floor() as usize;
    let (first, last) = (cut, n.checked_sub(cut + 1)?);
    if last < first + 2 {
        return None;
    }
    let span = departures[last].duration_since(departures[first]);
    Some(span.as_secs_f64() * 1e9 / (last - first) as f64)
}

/// The median of `values` (the mean of the middle two for an even count);
/// `None` if empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The spread of `values` from run to run: (max − min) / median.
pub fn spread(values: &[f64]) -> Option<f64> {
    let (min, max) = range(values)?;
    let median = median(values)?;
    (median > 0.0).then(|| (max - min) / median)
}

/// The smallest and the largest of `values`.
pub fn range(values: &[f64]) -> Option<(f64, f64)> {
    let min = values.iter().copied().reduce(f64::min)?;
    let max = values.iter().copied().reduce(f64::max)?;
    Some((min, max))
}

/// How a prediction fares against the measured times of a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Within [`WITHIN`] of the measured median.
    Within,
    /// Off by more, but the program spreads by more than [`NOISY`] and the
    /// prediction lies inside the measured range.
    InRange,
    /// Neither.
    Off,
}

impl Verdict {
    /// Whether it counts as within.
    pub fn counts(self) -> bool {
        self != Verdict::Off
    }
}

/// The rule of the issue for `predicted` against the times `measured` over
/// the processes: its relative error against their median and its verdict.
pub fn judge(predicted: f64, measured: &[f64]) -> Option<(f64, Verdict)> {
    let median = median(measured)?;
    let (min, max) = range(measured)?;
    let error = (predicted - median) / median;
    let verdict = if error.abs() <= WITHIN {
        Verdict::Within
    } else if spread(measured)? > NOISY && (min..=max).contains(&predicted) {
        Verdict::InRange
    } else {
        Verdict::Off
    };
    Some((error, verdict))
}
