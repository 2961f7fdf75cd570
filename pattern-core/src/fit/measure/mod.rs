//! Measuring: the clock ([`timed`], [`timer_overhead_ns`]) and the
//! harness that runs a function at a list of sizes, several repetitions
//! each, and keeps every timing ([`Harness`], [`Measurement`]), so that a
//! model can be fitted and the spread reported like seed 001 Table 1. Both
//! the calibration of atoms and the validation's own timings go through
//! this module. The clock and the harness are in the feature `measure`;
//! the timings' types are in every build that fits (`fit`).

#[cfg(feature = "measure")]
pub(crate) mod clock;
#[cfg(feature = "measure")]
mod harness;

#[cfg(feature = "measure")]
pub use clock::{thread_cpu_ns, timed, timer_overhead_ns};
#[cfg(feature = "measure")]
pub use harness::{Harness, Stability};

use super::error::FitError;
use super::fitter::{Fit, Fitter};
use super::stats::{self, FiveNumber};

/// The timings of one size.
#[derive(Clone, Debug, PartialEq)]
pub struct Samples {
    /// The size.
    pub x: usize,
    /// Every timed repetition, in nanoseconds, in the order measured.
    pub times_ns: Vec<f64>,
    /// Whether [`Harness::stop_when_stable`] ended the repetitions early.
    pub stopped_early: bool,
}

impl Samples {
    /// The median time.
    pub fn median(&self) -> f64 {
        stats::median(&self.times_ns)
    }

    /// The coefficient of variation in percent (`NaN` for one repetition).
    pub fn cv(&self) -> f64 {
        stats::coefficient_of_variation(&self.times_ns)
    }
}

/// The timings of a [`Harness::run`].
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// The harness's label.
    pub label: String,
    sizes: Vec<Samples>,
    waited: Vec<usize>,
    batch: usize,
    timer_overhead_ns: Option<f64>,
    overhead_subtracted: bool,
}

impl Measurement {
    /// A measurement from timings taken elsewhere.
    pub fn from_samples(label: &str, sizes: Vec<Samples>) -> Measurement {
        Measurement {
            label: label.to_string(),
            waited: vec![0; sizes.len()],
            sizes,
            batch: 1,
            timer_overhead_ns: None,
            overhead_subtracted: false,
        }
    }

    /// Calls per timed run ([`Harness::batch`]; 1 for one call at a time and
    /// for [`Measurement::from_samples`]). The times are per call.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// Per size, the timed runs during which the thread waited for a CPU,
    /// as seen with [`Harness::exclude_waiting`] (zeros without it): single
    /// calls with the wait subtracted, and batched runs that were repeated
    /// or, after 3 repeats, kept.
    pub fn waited(&self) -> &[usize] {
        &self.waited
    }

    /// The clock's overhead measured at the start of the run
    /// ([`timer_overhead_ns`]); `None` for [`Measurement::from_samples`].
    pub fn timer_overhead_ns(&self) -> Option<f64> {
        self.timer_overhead_ns
    }

    /// The smallest change per call this measurement resolves, in ns: the
    /// clock's overhead spread over the calls of a timed run
    /// (`timer_overhead_ns / batch`); `None` for
    /// [`Measurement::from_samples`]. Pass it to
    /// [`Fitter::resolution`](super::Fitter::resolution).
    ///
    /// Why the overhead: what reading the clock costs depends on the state
    /// of the caches, which the inputs built between two timed runs change
    /// with their size: an empty function's time rises with the size of
    /// the inputs built around it, even in batches — a rise the repetitions
    /// see as significant, though it is the harness's, not the function's.
    pub fn resolution_ns(&self) -> Option<f64> {
        self.timer_overhead_ns.map(|t| t / self.batch as f64)
    }

    /// Whether the overhead was subtracted from the times
    /// ([`Harness::subtract_timer_overhead`]).
    pub fn overhead_subtracted(&self) -> bool {
        self.overhead_subtracted
    }

    /// The timings per size.
    pub fn sizes(&self) -> &[Samples] {
        &self.sizes
    }

    /// Every repetition as an `(x, ns)` point, as [`Fitter::fit`] takes them.
    pub fn points(&self) -> Vec<(f64, f64)> {
        self.sizes
            .iter()
            .flat_map(|s| s.times_ns.iter().map(move |&t| (s.x as f64, t)))
            .collect()
    }

    /// The median per size, `(x, ns)`.
    pub fn medians(&self) -> Vec<(f64, f64)> {
        self.sizes
            .iter()
            .map(|s| (s.x as f64, s.median()))
            .collect()
    }

    /// The coefficient of variation per size, in percent.
    pub fn cv(&self) -> Vec<f64> {
        self.sizes.iter().map(Samples::cv).collect()
    }

    /// Minimum, quartiles and maximum of the per-size coefficients of
    /// variation, as in seed 001 Table 1; `None` without a size of two or
    /// more repetitions.
    pub fn cv_summary(&self) -> Option<FiveNumber> {
        FiveNumber::of(&self.cv())
    }

    /// Fits a model to all repetitions (the fitter takes the median per
    /// size by default).
    pub fn fit(&self, fitter: &Fitter) -> Result<Fit, FitError> {
        fitter.fit(&self.points())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_given_samples() {
        let m = Measurement::from_samples(
            "t",
            vec![
                Samples {
                    x: 1,
                    times_ns: vec![9.0, 10.0, 11.0],
                    stopped_early: false,
                },
                Samples {
                    x: 2,
                    times_ns: vec![18.0, 20.0, 22.0],
                    stopped_early: false,
                },
                Samples {
                    x: 4,
                    times_ns: vec![40.0, 40.0, 40.0],
                    stopped_early: false,
                },
            ],
        );
        let cv = m.cv();
        assert!((cv[0] - 10.0).abs() < 1e-12 && (cv[1] - 10.0).abs() < 1e-12);
        assert_eq!(cv[2], 0.0);
        let s = m.cv_summary().unwrap();
        assert_eq!((s.min, s.max), (0.0, 10.0));
        assert_eq!(m.medians(), [(1.0, 10.0), (2.0, 20.0), (4.0, 40.0)]);
        let fit = m.fit(&Fitter::default()).unwrap();
        assert_eq!(fit.model().growth("x").unwrap().to_string(), "O(x)");
    }
}
