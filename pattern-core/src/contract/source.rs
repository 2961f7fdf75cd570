//! Where a check's timings come from: the harness timing the function, or
//! timings recorded before (the checker's own tests, a CI artifact).

use super::error::ContractError;
use crate::fit::measure::{Harness, Measurement, Samples};
use std::time::Duration;

/// A source of timings for [`Contract::check`](super::Contract::check):
/// the timings of one function at the sizes asked for, in ns per call.
/// [`Timed`] runs the harness; [`Recorded`] replays timings taken before,
/// so that a check can be tested without a clock.
pub trait Source {
    /// The timings at `sizes` (distinct, ascending, positive).
    fn measure(&mut self, sizes: &[usize]) -> Result<Measurement, ContractError>;

    /// Whether measuring again can give other timings (default true);
    /// false for timings that replay, which a check then judges once.
    fn remeasures(&self) -> bool {
        true
    }
}

/// Timings recorded before, replayed.
///
/// ```
/// use pattern_core::contract::{Recorded, Source};
///
/// let mut source = Recorded::from_times("f", &[(10, vec![1.0, 2.0]), (20, vec![3.0])]);
/// let m = source.measure(&[20])?;
/// assert_eq!(m.medians(), [(20.0, 3.0)]);
/// assert!(source.measure(&[30]).is_err());
/// # Ok::<(), pattern_core::contract::ContractError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    measurement: Measurement,
}

impl Recorded {
    /// Replays `measurement`.
    pub fn new(measurement: Measurement) -> Recorded {
        Recorded { measurement }
    }

    /// Replays the times (ns per call) given per size.
    pub fn from_times(label: &str, times: &[(usize, Vec<f64>)]) -> Recorded {
        let sizes = times
            .iter()
            .map(|(x, t)| Samples {
                x: *x,
                times_ns: t.clone(),
                stopped_early: false,
            })
            .collect();
        Recorded::new(Measurement::from_samples(label, sizes))
    }
}

impl Source for Recorded {
    /// The recorded timings at `sizes`; an error names the first size not
    /// recorded.
    fn measure(&mut self, sizes: &[usize]) -> Result<Measurement, ContractError> {
        let recorded = self.measurement.sizes();
        let picked = sizes
            .iter()
            .map(|&x| {
                recorded
                    .iter()
                    .find(|s| s.x == x)
                    .cloned()
                    .ok_or(ContractError::MissingSize(x))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Measurement::from_samples(&self.measurement.label, picked))
    }

    /// The same timings every time.
    fn remeasures(&self) -> bool {
        false
    }
}

/// The harness timing `call` on inputs built by `input`, outside the timed
/// region ([`Harness::run`]).
pub struct Timed<G, F> {
    harness: Harness,
    input: G,
    call: F,
}

impl<G, F> Timed<G, F> {
    /// Times `call(input(x))` with `harness`.
    pub fn new(harness: Harness, input: G, call: F) -> Timed<G, F> {
        Timed {
            harness,
            input,
            call,
        }
    }
}

impl<I, O, G: FnMut(usize) -> I, F: FnMut(I) -> O> Source for Timed<G, F> {
    fn measure(&mut self, sizes: &[usize]) -> Result<Measurement, ContractError> {
        Ok(self.harness.run(sizes, &mut self.input, &mut self.call))
    }
}

/// The harness a check uses unless given another: the calibration's
/// settings (docs/calibration.md) for a loaded machine — 11 repetitions
/// interleaved in random order, the time waited for a CPU left out, calls
/// under 300 ns timed in batches of up to 32 with the clock's overhead
/// subtracted — and no progress bar.
pub fn default_harness() -> Harness {
    Harness::new()
        .warmup(1)
        .repetitions(11)
        .auto_batch(Duration::from_nanos(300), 32)
        .subtract_timer_overhead(true)
        .exclude_waiting(true)
        .random_order(true)
        .progress(false)
}
