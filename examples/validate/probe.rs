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
//!
//! [`Speed`] holds a probe per core (each read on its core when the threads
//! are pinned) and brackets atom timings and runs with their readings.

use crate::core_speeds::time_at_core_speeds;
use crate::settings::Settings;
use pattern_core::Term;
use pattern_core::exec::{Cores, Metrics};
use pattern_core::fit::measure::timed;
use pattern_core::fit::stats;
use std::hint::black_box;

/// Elements of the probe's buffer: 256 KiB of `u32`, inside the L2 cache,
/// so that the probe reads the state of the memory system, not of its own
/// data.
const PROBE_ELEMENTS: usize = 64 * 1024;
/// Timed calls per reading; the reading is their median.
const PROBE_CALLS: usize = 5;

/// A reference kernel (ten increments over a 256 KiB buffer, like `inc`,
/// about 30–60 µs) whose time tracks the speed of the machine's memory
/// system.
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
            *t = timed(|| self.call()).1;
        }
        stats::median(&times)
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

/// Where a suite's work runs and how fast each core is: the cores runs and
/// atom timings are pinned to ([`Settings::pin_threads`]) and the speed
/// probes with their reference reading ([`Settings::normalize_speed`]):
/// one per core, each read on its core, when pinned; one on the calling
/// thread otherwise.
pub(crate) struct Speed {
    /// The cores work is pinned to (`None` unpinned).
    pub(crate) cores: Option<Cores>,
    /// The probes, one per core when pinned, and their reference reading,
    /// ns (`None` without [`Settings::normalize_speed`]).
    probes: Option<(Vec<SpeedProbe>, f64)>,
}

/// Readings of the probe, interleaved over the cores, for the reference.
const REFERENCE_READINGS: usize = 21;

impl Speed {
    pub(crate) fn new(settings: &Settings) -> Speed {
        let mut speed = Speed::unprobed(settings);
        if settings.normalize_speed {
            let probes = match &speed.cores {
                Some(cores) => (0..cores.len())
                    .map(|k| cores.run_on(k, SpeedProbe::new))
                    .collect(),
                None => vec![SpeedProbe::new()],
            };
            speed.probes = Some((probes, 0.0));
            // One reference for all cores, as they are the same hardware:
            // the median of readings taken on each in turn.
            let mut readings = Vec::new();
            let rounds = REFERENCE_READINGS.div_ceil(speed.count());
            for _ in 0..rounds {
                readings.extend(speed.read().unwrap_or_default());
            }
            if let Some((_, reference)) = &mut speed.probes {
                *reference = stats::median(&readings);
            }
        }
        speed
    }

    /// Pinned like `settings` say, without probes (for costs of threads,
    /// not of memory, such as the hand-over).
    pub(crate) fn unprobed(settings: &Settings) -> Speed {
        Speed {
            cores: settings.pin_threads.then(Cores::of_current_thread),
            probes: None,
        }
    }

    fn count(&self) -> usize {
        self.probes.as_ref().map_or(0, |(p, _)| p.len())
    }

    /// A reading of every probe, each on its core.
    fn read(&mut self) -> Option<Vec<f64>> {
        let (probes, _) = self.probes.as_mut()?;
        Some(match &self.cores {
            Some(cores) => probes
                .iter_mut()
                .enumerate()
                .map(|(k, p)| cores.run_on(k, || p.read_ns()))
                .collect(),
            None => vec![probes[0].read_ns()],
        })
    }

    /// Runs the atom timing `f` (on the first core when pinned) between two
    /// readings of that core's probe, on the same thread: its result and
    /// the factor that states its timings at the reference speed.
    pub(crate) fn atom<T: Send>(&mut self, f: impl FnOnce() -> T + Send) -> (T, f64) {
        let bracket = |probe: Option<(&mut SpeedProbe, f64)>| match probe {
            Some((probe, reference)) => {
                let before = probe.read_ns();
                let out = f();
                let after = probe.read_ns();
                (out, SpeedProbe::factor(reference, before, after))
            }
            None => (f(), 1.0),
        };
        let probe = self
            .probes
            .as_mut()
            .map(|(probes, reference)| (&mut probes[0], *reference));
        match &self.cores {
            Some(cores) => cores.run_on(0, || bracket(probe)),
            None => bracket(probe),
        }
    }

    /// Runs `f` (a run) between two readings of every core: its result,
    /// each core's slowdown against the reference over the run (`None`
    /// without probes), and the largest change of a core's reading (0
    /// without probes).
    pub(crate) fn run<T>(&mut self, f: impl FnOnce() -> T) -> (T, Option<Vec<f64>>, f64) {
        let Some(before) = self.read() else {
            return (f(), None, 0.0);
        };
        let out = f();
        let after = self.read().unwrap_or_else(|| before.clone());
        let reference = self.probes.as_ref().map_or(1.0, |(_, r)| *r);
        let change = before
            .iter()
            .zip(&after)
            .map(|(&b, &a)| SpeedProbe::change(b, a))
            .fold(0.0, f64::max);
        let slowdown = before
            .iter()
            .zip(&after)
            .map(|(&b, &a)| 1.0 / SpeedProbe::factor(reference, b, a))
            .collect();
        (out, Some(slowdown), change)
    }

    /// The factor that states the time per element of a run of `term` at
    /// `x` at the reference speed: each core's slowdown is the probe's
    /// (`probed`, 1 without) divided by `1 − stolen share` of the run's
    /// threads on it when `discount_steal` (a core taken away 20 % of the
    /// time runs its work 1.25x slower). Pinned, the design's time at the
    /// reference over its time at the cores' slowdowns
    /// ([`time_at_core_speeds`]); unpinned, one slowdown for all.
    pub(crate) fn factor(
        &self,
        term: &Term,
        x: usize,
        probed: Option<&[f64]>,
        metrics: &Metrics,
        discount_steal: bool,
    ) -> f64 {
        if probed.is_none() && !discount_steal {
            return 1.0;
        }
        let cores = self.cores.as_ref().map_or(1, Cores::len);
        let mut slowdown: Vec<f64> = match probed {
            Some(s) => s.to_vec(),
            None => vec![1.0; cores],
        };
        if discount_steal {
            for (k, s) in slowdown.iter_mut().enumerate() {
                let stolen = if self.cores.is_some() {
                    metrics.steal_share_on(k)
                } else {
                    metrics.steal_share
                };
                *s /= 1.0 - stolen.unwrap_or(0.0).clamp(0.0, MAX_STOLEN);
            }
        }
        let factor = if self.cores.is_some() {
            let at = [("x", x as f64)];
            match (
                time_at_core_speeds(term, &at, &[1.0]),
                time_at_core_speeds(term, &at, &slowdown),
            ) {
                (Ok(t), Ok(slow)) if slow > 0.0 => t / slow,
                _ => 1.0,
            }
        } else {
            1.0 / slowdown[0]
        };
        if factor.is_finite() && factor > 0.0 {
            factor
        } else {
            1.0
        }
    }
}

/// The largest stolen share a run is corrected for.
const MAX_STOLEN: f64 = 0.9;

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
    fn readings_are_positive_and_give_a_finite_factor() {
        let mut probe = SpeedProbe::new();
        assert_eq!(probe.buffer.len(), PROBE_ELEMENTS);
        let readings: Vec<f64> = (0..3).map(|_| probe.read_ns()).collect();
        assert!(readings.iter().all(|&r| r > 0.0 && r.is_finite()));
        let reference = stats::median(&readings);
        let (before, after) = (probe.read_ns(), probe.read_ns());
        let factor = SpeedProbe::factor(reference, before, after);
        assert!(factor > 0.0 && factor.is_finite(), "{factor}");
        // Ten passes over the buffer were made per call, on every call.
        assert!(probe.buffer.iter().all(|&e| e == probe.buffer[0]));
    }

    #[test]
    fn an_unprobed_speed_leaves_timings_as_measured() {
        let settings = Settings {
            normalize_speed: false,
            pin_threads: false,
            ..Settings::quick()
        };
        let mut speed = Speed::new(&settings);
        assert_eq!(speed.atom(|| 7), (7, 1.0));
        let (out, slowdown, change) = speed.run(|| 8);
        assert_eq!((out, slowdown, change), (8, None, 0.0));
        let term = pattern_core::Design::parse("a = 1; pipe(a, a)")
            .unwrap()
            .term()
            .clone();
        let m = Metrics::from_departures(&[], 0.1, 0.0, 0, 2);
        assert_eq!(speed.factor(&term, 1, None, &m, false), 1.0);
    }
}
