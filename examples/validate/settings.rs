//! How much a validation measures: [`Settings`].

use crate::report::SettingsRecord;
#[cfg(doc)]
use crate::{
    core_speeds::time_at_core_speeds, probe::SpeedProbe, report::SizeResult, suite::Suite,
};
use pattern_core::exec::{Executor, Kernels, Metrics};
use pattern_core::fit::Fitter;
use pattern_core::machine::Waiting;
use std::time::Duration;

/// How much to measure.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Interleaved rounds; every configuration runs once per size and round
    /// and the medians over the rounds are compared (default 11, so that
    /// the 26 configurations of the full run stay under 20 minutes: the
    /// runs of one configuration at one size still scatter by ±10–20 % at
    /// the reference speed, and 5 rounds left medians up to 20 % apart).
    pub rounds: usize,
    /// Timings of each atom a configuration uses, right before and right
    /// after each of its runs (default 2; each a stream of
    /// [`Settings::atom_stream`]).
    pub atom_repetitions: usize,
    /// The time one run of a configuration should take; the number of
    /// elements is chosen from the predicted time per element (default
    /// 15 ms: short runs see fewer changes of the machine's speed).
    pub run_target: Duration,
    /// Fewest elements per run (default 20: with 10 % trimmed at each end,
    /// 15 intervals remain).
    pub min_elements: usize,
    /// Most elements per run (default 20,000).
    pub max_elements: usize,
    /// Most bytes of input elements per run, as the suite's
    /// [`Suite::element_bytes`] counts them (default 64 MiB); never below
    /// `min_elements`.
    pub max_bytes: usize,
    /// Sizes from which a configuration counts for the acceptance figure
    /// (default 16,384).
    pub acceptance_from: usize,
    /// The acceptance limit on the relative error (default 0.10).
    pub acceptance_limit: f64,
    /// Capacity of the channels between pipeline stages (default 4).
    pub capacity: usize,
    /// How long a stage spins before it blocks (default 100 µs).
    pub spin: Duration,
    /// Fraction of departures trimmed at each end (default 0.1).
    pub trim: f64,
    /// A run whose threads spent more than this share of their runnable
    /// time waiting for a core ([`Metrics::wait_share`]) is disturbed by
    /// other load and is repeated (default 0.05).
    pub max_wait_share: f64,
    /// A run whose threads lost more than this share of their runnable
    /// time to the hypervisor ([`Metrics::steal_share`]) is repeated, and
    /// does not count where undisturbed runs exist (default 0.25: most runs
    /// of 15 ms on the CI machine lose a few percent, some up to half).
    pub max_steal_share: f64,
    /// State each run as if the hypervisor had not taken its cores
    /// (default off): each core's slowdown is divided by `1 − stolen share`
    /// of the run's threads on it ([`Metrics::steal_share_on`]) before the
    /// cores are combined. Off by default because the atoms are timed on
    /// the same machine and lose time to it as well: on the CI machine,
    /// discounting the runs alone doubled the median error (3.0 % → 6.0 %)
    /// and pushed every error up.
    pub discount_steal: bool,
    /// How often a disturbed run is repeated at most; the least disturbed
    /// attempt counts (default 3).
    pub retries: usize,
    /// State every timing at one reference speed of the machine (default
    /// on): each atom timing and each run is bracketed by readings of a
    /// [`SpeedProbe`] and multiplied by [`SpeedProbe::factor`], the
    /// reference being the median of 21 readings at the start. The
    /// as-measured figures are kept beside ([`SizeResult::error_raw`]).
    pub normalize_speed: bool,
    /// A run during which the probe's reading changed by more than this
    /// share ([`SpeedProbe::change`]: the machine switched speed while it
    /// ran) counts as disturbed and is repeated (default 0.10; only with
    /// [`Settings::normalize_speed`]).
    pub max_speed_change: f64,
    /// Pin every thread to a core (default on): the runs' threads by the
    /// executor's rule ([`Executor::pin_threads`]), the atom timings to the
    /// first core, and a speed probe to each core, read on it. On the CI
    /// machine each core switches speed on its own (one core 1.5x slower
    /// than the other in a third of the readings), so a probe read on one
    /// core does not tell the speed of a thread on the other; pinned, each
    /// run's time is stated at the reference speed with the speed of every
    /// core it used, combined by the design's structure
    /// ([`time_at_core_speeds`]). Off: threads go where the scheduler puts
    /// them and one probe is read on the calling thread.
    pub pin_threads: bool,
    /// For an element atom, the inputs it is timed on were followed by
    /// this many bytes of other writes, so that they come from memory as
    /// cold as the elements of a run do (default 192 MiB; 0 for inputs fresh
    /// from the generator). A run's element was written up to its whole
    /// footprint earlier (50–64 MiB at x ≥ 16,384, [`Settings::max_bytes`]),
    /// but the CI machine's last-level cache is large and shared, and
    /// `inc`, whose time depends most on where its array comes from, still
    /// ran faster as an atom than in the runs: 8–12 % with 32 MiB, 3–10 %
    /// with 64 MiB, 2–10 % with 192 MiB (one sort-suite run each).
    pub cold_bytes: usize,
    /// How long one timing of an element atom runs (default 4 ms): the
    /// atom is called on a stream of cold elements built one after the
    /// other, like a run's, and the timing is the stream's time divided by
    /// its length — a mean, like a run's time per element. Timed one call
    /// at a time, the median of short calls leaves out what a stream pays
    /// at its rate (interrupts, the hypervisor taking the core), which the
    /// runs do pay: on the CI machine a run's mean time per element of
    /// `inc` was 4–5.5 % above its median at 4,096–16,384 elements and 1 %
    /// at 262,144, and every `inc` configuration ran 2–10 % slower than its
    /// single-call atoms predicted. The stream's length is fixed per atom
    /// and size by a pilot call, at most a quarter of
    /// [`Settings::max_bytes`]; zero times single calls.
    pub atom_stream: Duration,
    /// In a simulation with direct execution
    /// ([`Suite::with_direct`](crate::suite::Suite::with_direct)), how many
    /// calls of each atom run its kernel (default 6): the seed's mixed
    /// mode, later calls take their mean.
    pub direct_calls: usize,
    /// The fitter of atoms and whole runs (default [`Fitter::default`]).
    pub fitter: Fitter,
    /// How this machine's threads wait (wake-up latency, polling before
    /// sleeping, the costs of a wake-up), a part of the machine that the
    /// simulations' machine takes: measured at the start of a pinned run
    /// ([`crate::wake`]), free ([`Waiting::new`]) otherwise.
    pub waiting: Waiting,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            rounds: 11,
            atom_repetitions: 2,
            run_target: Duration::from_millis(15),
            min_elements: 20,
            max_elements: 20_000,
            max_bytes: 64 << 20,
            acceptance_from: 16_384,
            acceptance_limit: 0.10,
            capacity: 4,
            spin: Duration::from_micros(100),
            trim: 0.1,
            max_wait_share: 0.05,
            max_steal_share: 0.25,
            discount_steal: false,
            retries: 3,
            normalize_speed: true,
            max_speed_change: 0.10,
            pin_threads: true,
            cold_bytes: 192 << 20,
            atom_stream: Duration::from_millis(4),
            direct_calls: 6,
            fitter: Fitter::default(),
            waiting: Waiting::new(),
        }
    }
}

impl Settings {
    /// Small and fast, for tests and smoke runs: one round, two
    /// repetitions, 3 to 20 elements per run. The numbers mean little.
    pub fn quick() -> Settings {
        Settings {
            rounds: 1,
            atom_repetitions: 2,
            run_target: Duration::from_millis(2),
            min_elements: 3,
            max_elements: 20,
            retries: 0,
            cold_bytes: 0,
            atom_stream: Duration::ZERO,
            direct_calls: 2,
            ..Settings::default()
        }
    }

    /// How far over its limit the worse of a run's disturbances is: the
    /// larger of `wait share / max_wait_share` and `steal share /
    /// max_steal_share` (above 1: disturbed).
    pub(crate) fn disturbance(&self, m: &Metrics) -> f64 {
        (m.wait_share().unwrap_or(0.0) / self.max_wait_share)
            .max(m.steal_share.unwrap_or(0.0) / self.max_steal_share)
    }

    pub(crate) fn executor<'k, E: Send>(&self, kernels: &'k Kernels<E>) -> Executor<'k, E> {
        Executor::new(kernels)
            .pin_threads(self.pin_threads)
            .capacity(self.capacity)
            .spin(self.spin)
            .steady_state_trim(self.trim)
    }
}

impl Settings {
    /// What the report records of the settings.
    pub fn record(&self) -> SettingsRecord {
        SettingsRecord {
            rounds: self.rounds,
            atom_repetitions: self.atom_repetitions,
            run_target_ms: self.run_target.as_secs_f64() * 1e3,
            min_elements: self.min_elements,
            max_elements: self.max_elements,
            max_bytes: self.max_bytes,
            capacity: self.capacity,
            spin_us: self.spin.as_secs_f64() * 1e6,
            trim: self.trim,
            max_wait_share: self.max_wait_share,
            retries: self.retries,
            cold_bytes: self.cold_bytes,
            normalize_speed: self.normalize_speed,
            max_speed_change: self.max_speed_change,
            pin_threads: self.pin_threads,
            max_steal_share: self.max_steal_share,
            discount_steal: self.discount_steal,
            atom_stream_ms: self.atom_stream.as_secs_f64() * 1e3,
            wake_latency_us: self.waiting.wake_latency_ns / 1e3,
            wait_spin_us: self.waiting.spin_ns.map(|ns| ns / 1e3),
            wake_cost_us: self.waiting.wake_cost_ns / 1e3,
            waker_cost_us: self.waiting.waker_cost_ns / 1e3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_settings_and_their_record() {
        let quick = Settings::quick();
        assert_eq!((quick.rounds, quick.retries, quick.cold_bytes), (1, 0, 0));
        assert_eq!((quick.min_elements, quick.max_elements), (3, 20));
        let r = quick.record();
        assert_eq!(r.run_target_ms, 2.0);
        assert_eq!(r.spin_us, 100.0);
        assert_eq!(r.atom_stream_ms, 0.0);
        assert_eq!(Settings::default().record().cold_bytes, 192 << 20);
    }

    #[test]
    fn disturbance_is_the_worse_share_over_its_limit() {
        let s = Settings::default();
        let mut m = Metrics::from_departures(&[], 0.1, 0.0, 0, 1);
        assert_eq!(s.disturbance(&m), 0.0);
        m.cpu_ns = Some(90.0);
        m.wait_ns = Some(10.0);
        m.steal_share = Some(0.05);
        // Wait share 0.1 against 0.05; stolen share 0.05 against 0.25.
        assert!((s.disturbance(&m) - 2.0).abs() < 1e-12);
        m.steal_share = Some(1.0);
        assert!((s.disturbance(&m) - 4.0).abs() < 1e-12);
    }
}
