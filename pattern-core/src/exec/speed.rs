//! The machine's memory speed right now, read with a reference kernel.
//!
//! On a shared virtual machine the speed of code that touches memory is not
//! a constant. On the 2-core CI machine it switches between two levels about
//! 1.45x apart, staying on one for 50 ms to a few seconds (other guests'
//! memory traffic): a sort of 131,072 integers took 1.8–2.2 ms or 2.5–3.0 ms,
//! depending on when it ran, while a loop of multiplications in registers
//! kept its time within 6 %. Sorting and incrementing an array slowed down
//! together, by the same factor within a few percent. A composed prediction
//! can only be as good as its inputs are comparable, so the validation
//! times this reference kernel right before and after every atom timing and
//! every run, and states each timing at one reference speed
//! ([`SpeedProbe::factor`]).

use crate::fit::stats;
use std::hint::black_box;
use std::time::Instant;

/// Elements of the probe's buffer: 256 KiB of `u32`, inside the L2 cache,
/// so that the probe reads the state of the memory system, not of its own
/// data.
const PROBE_ELEMENTS: usize = 64 * 1024;
/// Timed calls per reading; the reading is their median.
const PROBE_CALLS: usize = 5;

/// A reference kernel (ten increments over a 256 KiB buffer, like `inc`,
/// about 30–60 µs) whose time tracks the speed of the machine's memory
/// system.
///
/// ```
/// use pattern_core::exec::SpeedProbe;
///
/// let mut probe = SpeedProbe::new();
/// let reference = probe.reference(21);
/// let before = probe.read_ns();
/// // ... time something ...
/// let after = probe.read_ns();
/// let factor = SpeedProbe::factor(reference, before, after);
/// assert!(reference > 0.0 && factor > 0.0 && factor.is_finite());
/// ```
#[derive(Debug)]
pub struct SpeedProbe {
    buffer: Vec<u32>,
}

impl Default for SpeedProbe {
    fn default() -> Self {
        SpeedProbe::new()
    }
}

impl SpeedProbe {
    /// A probe with its buffer allocated and touched.
    pub fn new() -> SpeedProbe {
        let mut probe = SpeedProbe {
            buffer: vec![1; PROBE_ELEMENTS],
        };
        probe.call();
        probe
    }

    fn call(&mut self) {
        for _ in 0..10 {
            for e in self.buffer.iter_mut() {
                *e = e.wrapping_add(1);
            }
            black_box(&mut self.buffer);
        }
    }

    /// One reading: the median of 5 timed calls, ns.
    pub fn read_ns(&mut self) -> f64 {
        let mut times = [0.0; PROBE_CALLS];
        for t in &mut times {
            let start = Instant::now();
            self.call();
            *t = start.elapsed().as_nanos() as f64;
        }
        stats::median(&times)
    }

    /// The reference reading: the median of `readings` readings (at least
    /// one), ns.
    pub fn reference(&mut self, readings: usize) -> f64 {
        let values: Vec<f64> = (0..readings.max(1)).map(|_| self.read_ns()).collect();
        stats::median(&values)
    }

    /// The factor that states a timing taken between the readings `before`
    /// and `after` at the speed of `reference`: `reference / mean(before,
    /// after)` (below 1 when the machine was slower than at the reference).
    /// 1 when a reading is not positive and finite.
    pub fn factor(reference: f64, before: f64, after: f64) -> f64 {
        let local = (before + after) / 2.0;
        if reference > 0.0 && local > 0.0 && reference.is_finite() && local.is_finite() {
            reference / local
        } else {
            1.0
        }
    }

    /// How much the speed changed between two readings, relative:
    /// `|after − before| / min(before, after)` (0 when a reading is not
    /// positive).
    pub fn change(before: f64, after: f64) -> f64 {
        let low = before.min(after);
        if low > 0.0 {
            (after - before).abs() / low
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factor_and_change() {
        assert_eq!(SpeedProbe::factor(100.0, 140.0, 160.0), 100.0 / 150.0);
        assert_eq!(SpeedProbe::factor(100.0, 0.0, 0.0), 1.0);
        assert_eq!(SpeedProbe::factor(f64::NAN, 1.0, 1.0), 1.0);
        assert!((SpeedProbe::change(100.0, 145.0) - 0.45).abs() < 1e-12);
        assert!((SpeedProbe::change(145.0, 100.0) - 0.45).abs() < 1e-12);
        assert_eq!(SpeedProbe::change(0.0, 1.0), 0.0);
    }

    #[test]
    fn readings_are_positive() {
        let mut p = SpeedProbe::new();
        assert!(p.read_ns() > 0.0);
        assert!(p.reference(3) > 0.0);
        assert_eq!(p.buffer.len(), PROBE_ELEMENTS);
    }
}
