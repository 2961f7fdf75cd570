//! What a probe measures, and how many samples it takes.

use crate::exec::ExecError;
use crate::machine::{Runtime, Waiting};
use std::fmt;
use std::str::FromStr;

/// Why rayon cannot be probed in a build without the feature `rayon`.
pub(super) const NEEDS_RAYON: &str =
    "runtime(rayon): probing rayon needs pattern-core's feature `rayon`";

/// The most samples a probe takes of a quantity ([`Options::samples`]).
pub const MAX_SAMPLES: usize = 100_000;

/// The largest array, in MiB, each thread streams to measure the memory
/// ([`Options::memory_mib`]).
pub const MAX_MEMORY_MIB: usize = 4096;

/// A quantity of [`Waiting`] that a probe measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// [`Waiting::handoff_ns`].
    Handoff,
    /// [`Waiting::take_ns`].
    Take,
    /// [`Waiting::wake_latency_ns`].
    WakeLatency,
    /// [`Waiting::spin_ns`].
    Spin,
    /// [`Waiting::wake_cost_ns`].
    WakeCost,
    /// [`Waiting::waker_cost_ns`].
    WakerCost,
}

impl Part {
    /// Every part, in the order a probe measures them.
    pub const ALL: [Part; 6] = [
        Part::WakeLatency,
        Part::Spin,
        Part::WakeCost,
        Part::WakerCost,
        Part::Handoff,
        Part::Take,
    ];

    /// Its key in a machine file's `waiting` (`handoff_ns`).
    pub fn key(self) -> &'static str {
        match self {
            Part::Handoff => "handoff_ns",
            Part::Take => "take_ns",
            Part::WakeLatency => "wake_latency_ns",
            Part::Spin => "spin_ns",
            Part::WakeCost => "wake_cost_ns",
            Part::WakerCost => "waker_cost_ns",
        }
    }

    /// The value a machine keeps where it is not measured, as a file says it.
    pub(super) fn free(self) -> &'static str {
        match self {
            Part::Spin => "null (polls for ever)",
            _ => "0",
        }
    }

    /// `w` with this part set to `ns`.
    pub(super) fn set(self, w: Waiting, ns: f64) -> Waiting {
        match self {
            Part::Handoff => w.handoff_ns(ns),
            Part::Take => w.take_ns(ns),
            Part::WakeLatency => w.wake_latency_ns(ns),
            Part::Spin => w.spin_ns(ns),
            Part::WakeCost => w.wake_cost_ns(ns),
            Part::WakerCost => w.waker_cost_ns(ns),
        }
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl FromStr for Part {
    type Err = String;

    /// A part by its key, with or without `_ns` (`handoff_ns`, `handoff`).
    fn from_str(s: &str) -> Result<Part, String> {
        let key = s.trim();
        (Part::ALL.into_iter())
            .find(|p| p.key() == key || p.key().strip_suffix("_ns") == Some(key))
            .ok_or_else(|| {
                let keys: Vec<&str> = Part::ALL.iter().map(|p| p.key()).collect();
                format!(
                    "`{s}` is not a quantity a probe measures: one of {}",
                    keys.join(", ")
                )
            })
    }
}

/// What a probe measures, of which runtime, and how many samples it takes
/// of each.
///
/// ```
/// use pattern_core::exec::probe::{Options, Part};
/// use pattern_core::machine::Runtime;
///
/// let o = Options::new().samples(100).only(&[Part::Handoff, Part::WakeLatency]);
/// assert_eq!(o.sample_count(), 100);
/// assert!(o.measures(Part::Handoff) && !o.measures(Part::Take));
/// assert_eq!(o.probed(), Runtime::Executor);
/// assert_eq!(o.runtime(Runtime::Threads).probed(), Runtime::Threads);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    samples: usize,
    parts: Vec<Part>,
    runtime: Runtime,
    memory_mib: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options::new()
    }
}

impl Options {
    /// Every part, 400 samples, the memory over 64 MiB per thread: a few
    /// seconds, most of them in 400 wake-ups 2 ms apart and in 16 runs of
    /// each executor design over 50,000 elements.
    pub fn new() -> Options {
        Options {
            samples: 400,
            parts: Part::ALL.to_vec(),
            runtime: Runtime::Executor,
            memory_mib: 64,
        }
    }

    /// Every part, 20 samples, the memory over 4 MiB per thread (which a
    /// large cache may hold): well under a second, for tests and a first
    /// look.
    pub fn quick() -> Options {
        Options::new().samples(20).memory_mib(4)
    }

    /// Measures the memory's bandwidth ([`Memory`](crate::machine::Memory))
    /// with an array of `mib` MiB per thread (`0..=`[`MAX_MEMORY_MIB`]; 0
    /// does not measure it): far larger than the caches, or the caches are
    /// measured. Its samples are `n / 40` passes (3 to 25), `n` the
    /// samples of [`Options::samples`].
    pub fn memory_mib(mut self, mib: usize) -> Options {
        self.memory_mib = mib;
        self
    }

    /// The MiB per thread the memory is measured over (0: not measured).
    pub fn memory_size_mib(&self) -> usize {
        self.memory_mib
    }

    /// `n` samples (`1..=`[`MAX_SAMPLES`], checked by [`measure`](super::measure)): `n`
    /// wake-ups for the wake-up latency, `n / 4` waits for the spin, `n /
    /// 8` wake-ups in vain, `n / 50` pairs of blocks for the waker's cost
    /// (3 at least) and `n / 25` runs for the hand-over and the take (1 at
    /// least, of `125·n` elements, within 2,000 and 50,000), rounded up.
    pub fn samples(mut self, n: usize) -> Options {
        self.samples = n;
        self
    }

    /// Measures `parts` only; the others keep their free default.
    pub fn only(mut self, parts: &[Part]) -> Options {
        self.parts = parts.to_vec();
        self
    }

    /// Measures what the threads of `runtime` cost to wait and hand over
    /// (by default the executor's): the experiments are that runtime's, and
    /// the machine returned runs on it ([`Machine::runtime`]). rayon's
    /// needs the feature `rayon` ([`measure`](super::measure) says so
    /// otherwise).
    ///
    /// [`Machine::runtime`]: crate::machine::Machine::runtime
    pub fn runtime(mut self, runtime: Runtime) -> Options {
        self.runtime = runtime;
        self
    }

    /// The runtime probed.
    pub fn probed(&self) -> Runtime {
        self.runtime
    }

    /// The samples asked for.
    pub fn sample_count(&self) -> usize {
        self.samples
    }

    /// Whether `part` is measured.
    pub fn measures(&self, part: Part) -> bool {
        self.parts.contains(&part)
    }

    pub(super) fn check(&self) -> Result<(), ExecError> {
        if !(1..=MAX_SAMPLES).contains(&self.samples) {
            return Err(ExecError::InvalidOption(format!(
                "samples({}): a probe takes 1 to {MAX_SAMPLES} samples",
                self.samples
            )));
        }
        if self.memory_mib > MAX_MEMORY_MIB {
            return Err(ExecError::InvalidOption(format!(
                "memory_mib({}): a probe streams 0 to {MAX_MEMORY_MIB} MiB per thread",
                self.memory_mib
            )));
        }
        if self.runtime == Runtime::Rayon && !cfg!(feature = "rayon") {
            return Err(ExecError::InvalidOption(NEEDS_RAYON.into()));
        }
        Ok(())
    }
}
