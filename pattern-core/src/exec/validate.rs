//! The end-to-end validation (seed 001 §4, on this machine): measure the
//! atoms → fit their models → compose the design's model → run the whole
//! design at every size → fit the whole run → compare.
//!
//! A [`Suite`] holds a kernel registry, a generator of elements of size `x`,
//! the atoms to measure ([`Suite::measure`] for element kernels,
//! [`Suite::probe`] for anything else) and the configurations to run
//! ([`Suite::case`], design structures over the atoms). [`Suite::run`]
//! measures in [`Settings::rounds`] rounds, size by size:
//!
//! 1. the hand-over between two threads as an atom of its own, `handoff`:
//!    the steady-state time per element of `pipe(pass, pass)` with
//!    do-nothing stages, run by the [`Executor`];
//! 2. for every configuration: the element atoms it uses, each timed the
//!    way a run calls it — on a stream of elements built one after the
//!    other and followed by [`Settings::cold_bytes`] of other writes, as
//!    cold as a run's, the timing being the stream's mean
//!    ([`Settings::atom_stream`]); warm, with [`Suite::with_cache_reuse`];
//!    co-run with every other core running it too, for atoms in task pools,
//!    with [`Suite::with_contention`]); the configuration run by the
//!    [`Executor`] on enough elements for
//!    about [`Settings::run_target`]; the atoms timed again. A run
//!    disturbed by other load (threads waiting for a core, or cores taken
//!    by the hypervisor, [`Settings::max_wait_share`],
//!    [`Settings::max_steal_share`]) or by a change of the machine's speed
//!    ([`Settings::max_speed_change`]) is repeated.
//!
//! On this shared 2-core virtual machine the speed of memory-bound code
//! changes all the time, and each core on its own: a reference kernel runs
//! at two levels about 1.45x apart (sometimes far slower), staying on one
//! for milliseconds to seconds, and one core is slow while the other is
//! fast in about a third of the readings. So atoms and runs are interleaved
//! finely, compared by medians over many rounds, and stated at one
//! reference speed: the runs' threads are pinned to known cores
//! ([`Settings::pin_threads`]), the atoms are timed on the first core, a
//! [`SpeedProbe`] is read on every core before and after every atom timing
//! and every run, and each timing is multiplied by the factor that states
//! it at the reference ([`SpeedProbe::factor`] for an atom; for a run the
//! design's time at the reference over its time at the cores' speeds,
//! [`time_at_core_speeds`]). The figures as measured are kept beside
//! ([`SizeResult::error_raw`]). The hypervisor also takes cores away for
//! milliseconds at a time; the executor measures how much of each thread's
//! time it took ([`Metrics::steal_share`]) and runs that lost more than
//! [`Settings::max_steal_share`] are repeated.
//!
//! Then, per configuration and size:
//!
//! - the *composed prediction* ([`SizeResult::error`], the headline): the
//!   operators ([`Design::model`](crate::Design::model)) applied to the atoms' median times at that
//!   size, against the median of the runs;
//! - the *modular model*: the operators applied to the atoms' fitted models
//!   ([`Fitter`]), against the *monolithic model* fitted from the whole
//!   runs, by the relative error of their leading coefficients as in the
//!   paper (refitted within the modular model's class where the fitter
//!   chose another, as the paper forced Extra-P to), and pointwise
//!   ([`SizeResult::model_error`]);
//! - the same with a *refined* model: the hand-over added at every pipeline
//!   boundary ([`with_handoff`]), where an atom follows another on the
//!   same thread its warm variant ([`with_cache_reuse`]), and in a task
//!   pool the memory contention between its workers ([`with_contention`]).

use super::error::ExecError;
use super::executor::Executor;
use super::kernels::{ElementKernel, Kernels};
use super::metrics::{Metrics, Warning};
use super::placement::{Cores, time_at_core_speeds};
use super::speed::SpeedProbe;
use crate::accuracy::{leading_coefficient_error, relative_error};
use crate::fit::measure::{Harness, Measurement, Samples};
use crate::fit::{FitError, Fitter, HypothesisSpace, Rational64, TermClass, stats};
use crate::{Atom, Count, Term};
use crate::{Design, Expr};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// The name of the hand-over atom in the models.
pub const HANDOFF: &str = "handoff";

/// The kernel time of the workers that measure a pool's hand-over
/// ([`pool_handoff_name`]): long enough that the queue's memory has moved
/// to the other cores between two takes, as with real kernels.
const POOL_SPIN: Duration = Duration::from_micros(10);

/// How much to measure.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Interleaved rounds; every configuration runs once per size and round
    /// and the medians over the rounds are compared (default 15: the runs
    /// of one configuration at one size still scatter by ±10–20 % at the
    /// reference speed, and 5 rounds left medians up to 20 % apart).
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
    /// The fitter of atoms and whole runs (default [`Fitter::default`]).
    pub fitter: Fitter,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            rounds: 15,
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
            fitter: Fitter::default(),
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
            ..Settings::default()
        }
    }

    /// How far over its limit the worse of a run's disturbances is: the
    /// larger of `wait share / max_wait_share` and `steal share /
    /// max_steal_share` (above 1: disturbed).
    fn disturbance(&self, m: &Metrics) -> f64 {
        (m.wait_share().unwrap_or(0.0) / self.max_wait_share)
            .max(m.steal_share.unwrap_or(0.0) / self.max_steal_share)
    }

    fn executor<'k, E: Send>(&self, kernels: &'k Kernels<E>) -> Executor<'k, E> {
        Executor::new(kernels)
            .pin_threads(self.pin_threads)
            .capacity(self.capacity)
            .spin(self.spin)
            .steady_state_trim(self.trim)
    }
}

/// Why a validation could not be completed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ValidationError {
    /// A configuration could not be run.
    #[error("running `{design}` at x = {x}: {source}")]
    Exec {
        /// The configuration.
        design: String,
        /// The size.
        x: usize,
        /// Why.
        source: ExecError,
    },
    /// A configuration's design (with the fitted atoms) did not parse.
    #[error("the design `{design}` is not valid: {message}")]
    Design {
        /// The configuration.
        design: String,
        /// The parser's message.
        message: String,
    },
    /// A model could not be fitted.
    #[error("fitting {what}: {source}")]
    Fit {
        /// What was fitted.
        what: String,
        /// Why it failed.
        source: FitError,
    },
    /// An atom to measure has no element kernel.
    #[error("the atom `{0}` has no element kernel to measure")]
    NoKernel(String),
    /// A suite without sizes, atoms or configurations.
    #[error("the suite `{0}` is empty: it needs sizes, atoms and configurations")]
    Empty(String),
}

type Make<E> = Arc<dyn Fn(usize, u64) -> E + Send + Sync>;
type ProbeFn = Box<dyn Fn(&Harness) -> Measurement + Send + Sync>;

enum Probe {
    /// An element kernel, measured at the suite's sizes.
    Element(String),
    /// Anything else: the closure measures with the harness it is given.
    Custom(String, ProbeFn),
}

impl Probe {
    fn name(&self) -> &str {
        match self {
            Probe::Element(n) | Probe::Custom(n, _) => n,
        }
    }
}

/// One configuration: a design structure over the suite's atoms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Case {
    /// The family it belongs to (`seq`, `tpool`, `pipe`, `mapreduce`).
    pub group: String,
    /// The structure, in the design syntax: `pipe(qsort, inc)`.
    pub structure: String,
    /// Whether it counts for the acceptance figure.
    pub acceptance: bool,
}

/// A set of configurations over one element type: what to measure and what
/// to run. See the [module documentation](self).
pub struct Suite<E> {
    name: String,
    kernels: Kernels<E>,
    make: Make<E>,
    bytes: Arc<dyn Fn(usize) -> usize + Send + Sync>,
    sizes: Vec<usize>,
    probes: Vec<Probe>,
    cases: Vec<Case>,
    handoff: bool,
    warm: bool,
    contention: bool,
    /// Written after an atom's inputs are built, so that they are as cold
    /// as [`Settings::cold_bytes`] asks (cheaper than building that many
    /// bytes of further inputs).
    scratch: std::sync::Mutex<Vec<u8>>,
    /// Elements per timing of an element atom, by atom and size, fixed at
    /// the first timing ([`Settings::atom_stream`]).
    stream_lengths: std::sync::Mutex<BTreeMap<(String, usize), usize>>,
}

impl<E: Send + 'static> Suite<E> {
    /// A suite named `name` over the elements `make(x, seed)` builds (`x`
    /// is the size, `seed` varies the content), run at `sizes`.
    pub fn new(
        name: &str,
        kernels: Kernels<E>,
        sizes: &[usize],
        make: impl Fn(usize, u64) -> E + Send + Sync + 'static,
    ) -> Self {
        Suite {
            name: name.to_string(),
            kernels,
            make: Arc::new(make),
            bytes: Arc::new(|_| 0),
            sizes: sizes.to_vec(),
            probes: Vec::new(),
            cases: Vec::new(),
            handoff: false,
            warm: false,
            contention: false,
            scratch: std::sync::Mutex::new(Vec::new()),
            stream_lengths: std::sync::Mutex::new(BTreeMap::new()),
        }
    }

    /// How many bytes an element of size `x` holds, to bound the memory of
    /// a run ([`Settings::max_bytes`]); default 0 (no bound).
    pub fn element_bytes(mut self, bytes: impl Fn(usize) -> usize + Send + Sync + 'static) -> Self {
        self.bytes = Arc::new(bytes);
        self
    }

    /// Measures the element kernel `atom` at the suite's sizes.
    pub fn measure(mut self, atom: &str) -> Self {
        self.probes.push(Probe::Element(atom.to_string()));
        self
    }

    /// Measures the atom `name` with `measure`, which gets a configured
    /// [`Harness`] (warm-up, repetitions) and chooses its own sizes and
    /// inputs; its model is fitted like the others.
    pub fn probe(
        mut self,
        name: &str,
        measure: impl Fn(&Harness) -> Measurement + Send + Sync + 'static,
    ) -> Self {
        self.probes
            .push(Probe::Custom(name.to_string(), Box::new(measure)));
        self
    }

    /// Adds a configuration: `structure` in the design syntax, over the
    /// measured atoms (their definitions are added from the fits).
    pub fn case(mut self, group: &str, structure: &str, acceptance: bool) -> Self {
        self.cases.push(Case {
            group: group.to_string(),
            structure: structure.to_string(),
            acceptance,
        });
        self
    }

    /// Also measure the hand-over between threads and report the models
    /// with it (default off): between pipeline stages ([`with_handoff`]) and
    /// from a task pool's shared queue to its workers
    /// ([`with_pool_handoff`]).
    pub fn with_handoff(mut self, on: bool) -> Self {
        self.handoff = on;
        self
    }

    /// Also measure every element atom *warm* — on an element fresh in the
    /// cache, as an atom finds it when it follows another atom on the same
    /// thread — as the atom `NAME_warm`, and report the models with this
    /// cache reuse ([`with_cache_reuse`]) (default off).
    pub fn with_cache_reuse(mut self, on: bool) -> Self {
        self.warm = on;
        self
    }

    /// Also measure every element atom that runs in a task pool of two or
    /// more workers *co-run* — timed on the first core while every other
    /// core runs the same atom on elements of its own — as the atom
    /// `NAME_corun`, and refine the models with it ([`with_contention`]).
    /// Workers of a pool share the memory system: on the CI machine, `inc`
    /// on cold arrays of 4,096 elements ran 15–30 % slower on each core
    /// while the other core ran it too, though a loop in registers or on
    /// data in its own cache did not slow down at all (1–2 %).
    pub fn with_contention(mut self, on: bool) -> Self {
        self.contention = on;
        self
    }

    /// The configurations.
    pub fn cases(&self) -> &[Case] {
        &self.cases
    }

    /// The sizes.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Measures, runs, fits and compares; `log` receives a line per step.
    pub fn run(
        &self,
        settings: &Settings,
        log: &mut dyn FnMut(&str),
    ) -> Result<SuiteReport, ValidationError> {
        if self.sizes.is_empty() || self.probes.is_empty() || self.cases.is_empty() {
            return Err(ValidationError::Empty(self.name.clone()));
        }
        let started = Instant::now();
        let rounds = settings.rounds.max(1);
        let mut speed = Speed::new(settings);
        // The hand-over is a cost of threads, not of memory: timed as is.
        let mut unprobed = Speed::unprobed(settings);
        let mut atom_samples: Vec<BTreeMap<usize, Vec<f64>>> =
            vec![BTreeMap::new(); self.probes.len()];
        // The same timings as measured, before the speed factor.
        let mut raw_samples: Vec<BTreeMap<usize, Vec<f64>>> =
            vec![BTreeMap::new(); self.probes.len()];
        let mut handoff_samples: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
        let mut pool_samples: BTreeMap<usize, BTreeMap<usize, Vec<f64>>> = BTreeMap::new();
        let mut warm_samples: Vec<BTreeMap<usize, Vec<f64>>> =
            vec![BTreeMap::new(); self.probes.len()];
        let mut corun_samples: Vec<BTreeMap<usize, Vec<f64>>> =
            vec![BTreeMap::new(); self.probes.len()];
        let cores = machine_cores();
        let mut pools = Vec::new();
        if self.handoff {
            for case in &self.cases {
                pool_sizes(self.shape(case)?.term(), cores, &mut pools);
            }
            pools.sort_unstable();
            pools.dedup();
        }
        let spin_kernels = Kernels::<E>::new().add("spin", |_| {
            let start = Instant::now();
            while start.elapsed() < POOL_SPIN {
                std::hint::spin_loop();
            }
        });
        let mut collected: Vec<CaseRuns> = self.cases.iter().map(|_| CaseRuns::default()).collect();
        let pass_kernels = Kernels::<E>::new().add("pass", |_| {});
        let pass_term = Term::pipe(
            Term::atom("pass", Expr::num(0.0)),
            Term::atom("pass", Expr::num(0.0)),
        );
        let mut used = vec![false; self.probes.len()];
        for case in &self.cases {
            for i in self.atoms_of(case)? {
                used[i] = true;
            }
        }
        let unused: Vec<usize> = (0..self.probes.len())
            .filter(|&i| !used[i] && matches!(self.probes[i], Probe::Element(_)))
            .collect();
        for round in 0..rounds {
            log(&format!("{}: round {} of {rounds}", self.name, round + 1));
            // Atoms with their own sizes first; then size by size, the
            // element atoms and every configuration at that size, so that
            // atoms and designs are measured close together in time. The
            // machine's speed drifts by tens of percent between rounds
            // (other guests, memory traffic), so every run is compared with
            // the atoms of its own round and size.
            let mut round_custom: Vec<Option<Measurement>> = vec![None; self.probes.len()];
            for (i, probe) in self.probes.iter().enumerate() {
                if matches!(probe, Probe::Custom(..)) {
                    let (raw, factor) =
                        speed.atom(|| self.measure_probe(probe, settings, &self.sizes));
                    let raw = raw?;
                    let m = scaled(&raw, factor);
                    merge(&mut atom_samples[i], &m);
                    merge(&mut raw_samples[i], &raw);
                    round_custom[i] = Some(m);
                }
            }
            for &x in &self.sizes {
                // Element atoms no configuration uses are still measured.
                for &i in &unused {
                    let (raw, factor) =
                        speed.atom(|| self.measure_probe(&self.probes[i], settings, &[x]));
                    let raw = raw?;
                    merge(&mut atom_samples[i], &scaled(&raw, factor));
                    merge(&mut raw_samples[i], &raw);
                }
                let mut local_handoff = None;
                if self.handoff {
                    let n = settings.max_elements.min(self.memory_bound(x, settings));
                    let (metrics, _, _, _) = self.least_disturbed(
                        &pass_kernels,
                        &pass_term,
                        x,
                        n,
                        round,
                        settings,
                        &mut unprobed,
                    )?;
                    if let Some(t) = metrics.inter_departure_ns {
                        handoff_samples.entry(x).or_default().push(t);
                        local_handoff = Some(Atom {
                            name: HANDOFF.to_string(),
                            model: Expr::num(t),
                        });
                    }
                }
                // A pool's hand-over: what each of `w` workers spends per
                // element beside a kernel of known time.
                let mut local_pools = Vec::new();
                for &w in &pools {
                    let spin = POOL_SPIN.as_nanos() as f64;
                    let term = Term::Tpool(
                        Count::Fixed(w as u64),
                        Box::new(Term::atom("spin", Expr::num(spin))),
                    );
                    // A cost of threads, not of the elements: on elements
                    // of the smallest size, as many as a full run takes.
                    let smallest = self.sizes[0];
                    let n = ((settings.run_target.as_nanos() as f64 * w as f64 / spin) as usize)
                        .clamp(settings.min_elements, settings.max_elements.max(1))
                        .min(self.memory_bound(smallest, settings));
                    let (metrics, _, _, _) = self.least_disturbed(
                        &spin_kernels,
                        &term,
                        smallest,
                        n,
                        round,
                        settings,
                        &mut unprobed,
                    )?;
                    if let Some(t) = metrics.inter_departure_ns {
                        let each = (t * w as f64 - spin).max(0.0);
                        pool_samples
                            .entry(w)
                            .or_default()
                            .entry(x)
                            .or_default()
                            .push(each);
                        local_pools.push(Atom {
                            name: pool_handoff_name(w),
                            model: Expr::num(each),
                        });
                    }
                }
                for (c, case) in self.cases.iter().enumerate() {
                    // The case's element atoms are timed right before and
                    // right after its run, and the run is compared with
                    // them: this machine's speed changes by tens of percent
                    // from one second to the next (memory traffic of other
                    // guests), more than the operators' errors.
                    let uses = self.atoms_of(case)?;
                    let contended = if self.contention && cores > 1 {
                        self.pooled_atoms_of(case)?
                    } else {
                        Vec::new()
                    };
                    let mut timed: Vec<Option<AtomTimings>> = vec![None; self.probes.len()];
                    self.time_atoms(&uses, &contended, settings, x, &mut timed, &mut speed)?;
                    let before =
                        self.local_atoms(&timed, &round_custom, &atom_samples, x, settings);
                    let design = self.design(case, &before.0)?;
                    let runs = &mut collected[c];
                    let n = *runs
                        .elements
                        .entry(x)
                        .or_insert_with(|| self.elements_for(&design, x, settings));
                    let (metrics, run_warnings, repeated, factor) = self.least_disturbed(
                        &self.kernels,
                        design.term(),
                        x,
                        n,
                        round,
                        settings,
                        &mut speed,
                    )?;
                    self.time_atoms(&uses, &contended, settings, x, &mut timed, &mut speed)?;
                    for (i, t) in timed.iter().enumerate() {
                        if let Some(t) = t {
                            merge(&mut atom_samples[i], &t.cold);
                            merge(&mut raw_samples[i], &t.cold_raw);
                            if let Some(w) = &t.warm {
                                merge(&mut warm_samples[i], w);
                            }
                            if let Some(c) = &t.corun {
                                merge(&mut corun_samples[i], c);
                            }
                        }
                    }
                    let (local, mut local_variants) =
                        self.local_atoms(&timed, &round_custom, &atom_samples, x, settings);
                    local_variants.extend(local_pools.iter().cloned());
                    let design = self.design(case, &local)?;
                    let at = [("x", x as f64)];
                    let predicted = design.model().eval(&at).ok();
                    let refined = (self.handoff || self.warm || self.contention).then(|| {
                        crate::semantics::Throughput::new()
                            .expr(&refine(
                                design.term(),
                                local_handoff.as_ref(),
                                &local_variants,
                                cores,
                            ))
                            .eval(&at)
                            .ok()
                    });
                    for w in run_warnings {
                        let w = w.to_string();
                        if !runs.warnings.contains(&w) {
                            runs.warnings.push(w);
                        }
                    }
                    *runs.repeats.entry(x).or_default() += repeated;
                    runs.metrics.entry(x).or_default().push(metrics);
                    runs.factors.entry(x).or_default().push(factor);
                    runs.predicted
                        .entry(x)
                        .or_default()
                        .push((predicted, refined.flatten()));
                }
            }
        }
        let mut atoms = self.fit_atoms(&atom_samples, settings)?;
        for (atom, raw) in atoms.iter_mut().zip(&raw_samples) {
            for s in &mut atom.samples {
                s.raw_times_ns = raw.get(&s.x).cloned().unwrap_or_default();
            }
        }
        let handoff = if self.handoff {
            Some(fit_atom(HANDOFF, &handoff_samples, settings)?)
        } else {
            None
        };
        let mut variants = Vec::new();
        for (probe, samples) in self.probes.iter().zip(&warm_samples) {
            if !samples.is_empty() {
                variants.push(fit_atom(&warm_name(probe.name()), samples, settings)?);
            }
        }
        for (probe, samples) in self.probes.iter().zip(&corun_samples) {
            if !samples.is_empty() {
                variants.push(fit_atom(&corun_name(probe.name()), samples, settings)?);
            }
        }
        for (w, samples) in &pool_samples {
            variants.push(fit_atom(&pool_handoff_name(*w), samples, settings)?);
        }
        let mut rows = Vec::with_capacity(self.cases.len());
        for (c, case) in self.cases.iter().enumerate() {
            rows.push(self.row(
                case,
                &atoms,
                &raw_samples,
                handoff.as_ref(),
                &variants,
                std::mem::take(&mut collected[c]),
                settings,
            )?);
        }
        Ok(SuiteReport {
            name: self.name.clone(),
            sizes: self.sizes.clone(),
            acceptance_from: settings.acceptance_from,
            atoms,
            handoff,
            variants,
            rows,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Runs `term` at `x` on `n` fresh elements between two readings of
    /// the speed probe; a run disturbed by other load
    /// ([`Settings::max_wait_share`]) or by a change of the machine's speed
    /// ([`Settings::max_speed_change`]) is repeated up to
    /// [`Settings::retries`] times and the least disturbed attempt kept.
    /// Returns its metrics, its warnings, the number of repeats and its
    /// speed factor.
    #[allow(clippy::too_many_arguments)]
    fn least_disturbed(
        &self,
        kernels: &Kernels<E>,
        term: &Term,
        x: usize,
        n: usize,
        round: usize,
        settings: &Settings,
        speed: &mut Speed,
    ) -> Result<(Metrics, Vec<Warning>, usize, f64), ValidationError> {
        let mut once = || {
            let inputs = self.inputs(x, n, round);
            let (run, probed, change) = speed.run(|| settings.executor(kernels).run(term, inputs));
            let run = run.map_err(|source| ValidationError::Exec {
                design: term.to_string(),
                x,
                source,
            })?;
            let m = &run.metrics;
            let factor = speed.factor(term, x, probed.as_deref(), m, settings.discount_steal);
            let badness = settings
                .disturbance(m)
                .max(change / settings.max_speed_change);
            Ok::<_, ValidationError>((run, factor, badness))
        };
        let mut best = once()?;
        let mut repeated = 0;
        while repeated < settings.retries && best.2 > 1.0 {
            repeated += 1;
            let attempt = once()?;
            if attempt.2 < best.2 {
                best = attempt;
            }
        }
        let (run, factor, _) = best;
        Ok((run.metrics, run.warnings, repeated, factor))
    }

    fn inputs(&self, x: usize, n: usize, round: usize) -> Vec<E> {
        (0..n)
            .map(|i| (self.make)(x, (round as u64) << 32 | i as u64))
            .collect()
    }

    fn memory_bound(&self, x: usize, settings: &Settings) -> usize {
        match (self.bytes)(x) {
            0 => usize::MAX,
            b => (settings.max_bytes / b).max(settings.min_elements),
        }
    }

    fn elements_for(&self, design: &Design, x: usize, settings: &Settings) -> usize {
        let per_element = design
            .model()
            .eval(&[("x", x as f64)])
            .ok()
            .filter(|t| t.is_finite() && *t > 0.0)
            .unwrap_or(1e3)
            .max(100.0);
        let n = (settings.run_target.as_nanos() as f64 / per_element).ceil() as usize;
        n.clamp(
            settings.min_elements,
            settings.max_elements.max(settings.min_elements),
        )
        .min(self.memory_bound(x, settings))
    }

    fn measure_probe(
        &self,
        probe: &Probe,
        settings: &Settings,
        sizes: &[usize],
    ) -> Result<Measurement, ValidationError> {
        match probe {
            Probe::Custom(_, f) => Ok(f(&Harness::new()
                .warmup(1)
                .repetitions(settings.atom_repetitions)
                .progress(false)
                .label(probe.name()))),
            Probe::Element(name) => {
                let kernel = self
                    .kernels
                    .element(name)
                    .ok_or_else(|| ValidationError::NoKernel(name.clone()))?;
                let reps = settings.atom_repetitions.max(1);
                let lengths: Vec<usize> = sizes
                    .iter()
                    .map(|&x| self.stream_length(name, &kernel, x, settings))
                    .collect();
                // Every stream is built before the timings start, one
                // element after the other like a run's, and followed by
                // `cold_bytes` of other writes, so that each element is as
                // cold as a run's when its turn comes. The first element
                // of each size warms the code up, untimed.
                let mut seed = u64::MAX;
                let mut streams: Vec<Vec<E>> = sizes
                    .iter()
                    .zip(&lengths)
                    .map(|(&x, &k)| {
                        (0..1 + reps * k)
                            .map(|_| {
                                seed -= 1;
                                (self.make)(x, seed)
                            })
                            .collect()
                    })
                    .collect();
                self.evict(sizes, settings);
                let mut samples = Vec::with_capacity(sizes.len());
                for ((&x, &k), stream) in sizes.iter().zip(&lengths).zip(&mut streams) {
                    let (first, rest) = stream.split_at_mut(1);
                    kernel(&mut first[0]);
                    let times_ns = stream_means(&kernel, rest, k);
                    samples.push(Samples {
                        x,
                        times_ns,
                        stopped_early: false,
                    });
                }
                std::hint::black_box(&mut streams);
                Ok(Measurement::from_samples(name, samples))
            }
        }
    }

    /// Writes [`Settings::cold_bytes`] of scratch memory (when elements at
    /// `sizes` take memory at all), so that what was built before comes
    /// from memory.
    fn evict(&self, sizes: &[usize], settings: &Settings) {
        if settings.cold_bytes > 0 && sizes.iter().any(|&x| (self.bytes)(x) > 0) {
            let mut scratch = self
                .scratch
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            scratch.resize(settings.cold_bytes, 0);
            let stamp = scratch.first().map_or(1, |b| b.wrapping_add(1));
            scratch.fill(stamp);
            std::hint::black_box(&mut *scratch);
        }
    }

    /// Elements per timing of the element atom `name` at `x`
    /// ([`Settings::atom_stream`]): enough for the target time by a pilot
    /// call at the first request, then fixed, so that every timing of the
    /// atom at `x` is taken the same way.
    fn stream_length(
        &self,
        name: &str,
        kernel: &ElementKernel<E>,
        x: usize,
        settings: &Settings,
    ) -> usize {
        if settings.atom_stream.is_zero() {
            return 1;
        }
        let mut lengths = self
            .stream_lengths
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *lengths.entry((name.to_string(), x)).or_insert_with(|| {
            let mut pilot = [(self.make)(x, 1), (self.make)(x, 2)];
            kernel(&mut pilot[0]);
            let start = Instant::now();
            kernel(&mut pilot[1]);
            let once = start.elapsed().as_nanos().max(1) as f64;
            let by_time = (settings.atom_stream.as_nanos() as f64 / once).ceil() as usize;
            let by_memory = match (self.bytes)(x) {
                0 => usize::MAX,
                b => settings.max_bytes / 4 / b,
            };
            by_time.min(by_memory).min(settings.max_elements).max(1)
        })
    }

    /// The case's structure with every atom's model set to 1: its shape,
    /// for finding where the atoms run.
    fn shape(&self, case: &Case) -> Result<Design, ValidationError> {
        let names: Vec<(String, Expr)> = self
            .probes
            .iter()
            .map(|p| (p.name().to_string(), Expr::num(1.0)))
            .collect();
        self.design(case, &names)
    }

    /// The indices of the element probes named in `names`.
    fn element_probes(&self, names: &[String]) -> Vec<usize> {
        self.probes
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p, Probe::Element(_)) && names.iter().any(|u| u == p.name()))
            .map(|(i, _)| i)
            .collect()
    }

    /// The probes (by index) of the element atoms a case uses.
    fn atoms_of(&self, case: &Case) -> Result<Vec<usize>, ValidationError> {
        let design = self.shape(case)?;
        let used: Vec<String> = design
            .term()
            .atoms()
            .iter()
            .map(|a| a.name.clone())
            .collect();
        Ok(self.element_probes(&used))
    }

    /// The probes (by index) of the element atoms a case runs in a task
    /// pool of two or more workers.
    fn pooled_atoms_of(&self, case: &Case) -> Result<Vec<usize>, ValidationError> {
        let mut pooled = Vec::new();
        pooled_atoms(self.shape(case)?.term(), false, &mut pooled);
        Ok(self.element_probes(&pooled))
    }

    /// Times the element atoms `uses` at `x` (cold; warm with
    /// [`Suite::with_cache_reuse`]; co-run for those in `contended`), each
    /// between two readings of the speed probe, and adds the timings to
    /// `timed`.
    fn time_atoms(
        &self,
        uses: &[usize],
        contended: &[usize],
        settings: &Settings,
        x: usize,
        timed: &mut [Option<AtomTimings>],
        speed: &mut Speed,
    ) -> Result<(), ValidationError> {
        for &i in uses {
            let probe = &self.probes[i];
            let (cold_raw, factor) = speed.atom(|| self.measure_probe(probe, settings, &[x]));
            let cold_raw = cold_raw?;
            let cold = scaled(&cold_raw, factor);
            let warm = if self.warm {
                let (warm, factor) = speed.atom(|| self.measure_warm(probe.name(), settings, x));
                Some(scaled(&warm?, factor))
            } else {
                None
            };
            let corun = if contended.contains(&i) {
                let cores = speed.cores.clone();
                let (corun, factor) =
                    speed.atom(|| self.measure_corun(probe.name(), settings, x, cores.as_ref()));
                Some(scaled(&corun?, factor))
            } else {
                None
            };
            let join = |a: Option<Measurement>, b: Option<Measurement>| match (a, b) {
                (Some(a), Some(b)) => Some(join_measurements(&a, &b)),
                (a, b) => a.or(b),
            };
            timed[i] = Some(match timed[i].take() {
                None => AtomTimings {
                    cold,
                    warm,
                    corun,
                    cold_raw,
                },
                Some(before) => AtomTimings {
                    cold: join_measurements(&before.cold, &cold),
                    warm: join(before.warm, warm),
                    corun: join(before.corun, corun),
                    cold_raw: join_measurements(&before.cold_raw, &cold_raw),
                },
            });
        }
        Ok(())
    }

    /// The atoms as timed around a run (element atoms: the median at `x`),
    /// the others from this round's measurement or their fit, and the
    /// variants (warm, co-run).
    fn local_atoms(
        &self,
        timed: &[Option<AtomTimings>],
        round_custom: &[Option<Measurement>],
        atom_samples: &[BTreeMap<usize, Vec<f64>>],
        x: usize,
        settings: &Settings,
    ) -> (Vec<(String, Expr)>, Vec<Atom>) {
        let mut local = Vec::new();
        let mut warm = Vec::new();
        for (i, probe) in self.probes.iter().enumerate() {
            let fallback = || {
                fit_atom(probe.name(), &atom_samples[i], settings)
                    .map_or(Expr::num(1e3), |a| a.model)
            };
            let model = match (probe, &timed[i], &round_custom[i]) {
                (Probe::Element(name), Some(t), _) => {
                    if let Some(w) = &t.warm {
                        warm.push(Atom {
                            name: warm_name(name),
                            model: Expr::num(median_at(w, x)),
                        });
                    }
                    if let Some(c) = &t.corun {
                        warm.push(Atom {
                            name: corun_name(name),
                            model: Expr::num(median_at(c, x)),
                        });
                    }
                    Expr::num(median_at(&t.cold, x))
                }
                (Probe::Custom(..), _, Some(m)) if m.sizes().iter().any(|s| s.x == x) => {
                    Expr::num(median_at(m, x))
                }
                (Probe::Custom(..), _, Some(m)) => m
                    .fit(&settings.fitter)
                    .map_or_else(|_| fallback(), |f| f.into_model()),
                _ => fallback(),
            };
            local.push((probe.name().to_string(), model));
        }
        (local, warm)
    }

    /// Times the element kernel `name` at `x` on inputs fresh from the
    /// generator (in the cache, as after another atom on the same thread):
    /// as many calls per timing as a cold timing makes, each on an element
    /// built right before it, their mean.
    fn measure_warm(
        &self,
        name: &str,
        settings: &Settings,
        x: usize,
    ) -> Result<Measurement, ValidationError> {
        let kernel = self
            .kernels
            .element(name)
            .ok_or_else(|| ValidationError::NoKernel(name.to_string()))?;
        let k = self.stream_length(name, &kernel, x, settings);
        let mut seed = 0u64;
        let mut fresh = || {
            seed += 1;
            (self.make)(x, seed)
        };
        kernel(&mut fresh());
        let times_ns = (0..settings.atom_repetitions.max(1))
            .map(|_| {
                let mut total = 0.0;
                for _ in 0..k {
                    let mut e = fresh();
                    let start = Instant::now();
                    kernel(&mut e);
                    total += start.elapsed().as_nanos() as f64;
                    std::hint::black_box(&mut e);
                }
                total / k as f64
            })
            .collect();
        Ok(Measurement::from_samples(
            &warm_name(name),
            vec![Samples {
                x,
                times_ns,
                stopped_early: false,
            }],
        ))
    }

    /// Times the element kernel `name` at `x` like a cold timing
    /// ([`Settings::atom_stream`]) while every other core (one other thread
    /// when unpinned) runs it too, each on a cold stream of its own, from
    /// the first timed call to the last.
    fn measure_corun(
        &self,
        name: &str,
        settings: &Settings,
        x: usize,
        cores: Option<&Cores>,
    ) -> Result<Measurement, ValidationError> {
        let kernel = self
            .kernels
            .element(name)
            .ok_or_else(|| ValidationError::NoKernel(name.to_string()))?;
        let k = self.stream_length(name, &kernel, x, settings);
        let reps = settings.atom_repetitions.max(1);
        let partners = cores.map_or(1, |c| c.len() - 1).max(1);
        let mut seed = u64::MAX / 2;
        let mut build = || -> Vec<E> {
            (0..1 + reps * k)
                .map(|_| {
                    seed -= 1;
                    (self.make)(x, seed)
                })
                .collect()
        };
        let mut timed = build();
        let mut others: Vec<Vec<E>> = (0..partners).map(|_| build()).collect();
        self.evict(&[x], settings);
        let ready = AtomicUsize::new(0);
        let done = AtomicBool::new(false);
        let times_ns = thread::scope(|s| {
            for (p, stream) in others.iter_mut().enumerate() {
                let (kernel, ready, done) = (&kernel, &ready, &done);
                s.spawn(move || {
                    if let Some(cores) = cores {
                        cores.pin_current(p + 1);
                    }
                    let (first, rest) = stream.split_at_mut(1);
                    kernel(&mut first[0]);
                    ready.fetch_add(1, Ordering::AcqRel);
                    // Round and round its stream until the timing ends: the
                    // stream is larger than a core's cache, so elements
                    // worked on before come from memory again.
                    'work: loop {
                        for e in rest.iter_mut() {
                            if done.load(Ordering::Acquire) {
                                break 'work;
                            }
                            kernel(e);
                        }
                    }
                });
            }
            let (first, rest) = timed.split_at_mut(1);
            kernel(&mut first[0]);
            while ready.load(Ordering::Acquire) < partners {
                std::hint::spin_loop();
            }
            let times = stream_means(&kernel, rest, k);
            done.store(true, Ordering::Release);
            times
        });
        Ok(Measurement::from_samples(
            &corun_name(name),
            vec![Samples {
                x,
                times_ns,
                stopped_early: false,
            }],
        ))
    }

    fn fit_atoms(
        &self,
        samples: &[BTreeMap<usize, Vec<f64>>],
        settings: &Settings,
    ) -> Result<Vec<AtomReport>, ValidationError> {
        self.probes
            .iter()
            .zip(samples)
            .map(|(p, s)| fit_atom(p.name(), s, settings))
            .collect()
    }

    fn design(&self, case: &Case, atoms: &[(String, Expr)]) -> Result<Design, ValidationError> {
        let text = design_text(&case.structure, atoms);
        Design::parse(&text).map_err(|e| ValidationError::Design {
            design: case.structure.clone(),
            message: e.to_string(),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn row(
        &self,
        case: &Case,
        atoms: &[AtomReport],
        raw_samples: &[BTreeMap<usize, Vec<f64>>],
        handoff: Option<&AtomReport>,
        warm: &[AtomReport],
        collected: CaseRuns,
        settings: &Settings,
    ) -> Result<Row, ValidationError> {
        let cores = machine_cores();
        let CaseRuns {
            metrics: runs,
            factors,
            repeats,
            warnings,
            predicted: round_predictions,
            ..
        } = collected;
        let named: Vec<(String, Expr)> = atoms
            .iter()
            .map(|a| (a.name.clone(), a.model.clone()))
            .collect();
        let design = self.design(case, &named)?;
        let term = design.term();
        let modular = crate::semantics::Throughput::new().expr(term).simplify();
        let asymptotic = crate::semantics::Throughput::new()
            .asymptotic()
            .expr(term)
            .simplify();
        let refined_term = (handoff.is_some() || !warm.is_empty()).then(|| {
            let warm: Vec<Atom> = warm
                .iter()
                .map(|a| Atom {
                    name: a.name.clone(),
                    model: a.model.clone(),
                })
                .collect();
            let handoff = handoff.map(|h| Atom {
                name: HANDOFF.to_string(),
                model: h.model.clone(),
            });
            refine(term, handoff.as_ref(), &warm, cores)
        });
        let refined_model = refined_term
            .as_ref()
            .map(|t| crate::semantics::Throughput::new().expr(t).simplify());
        let refined_asymptotic = refined_term.as_ref().map(|t| {
            crate::semantics::Throughput::new()
                .asymptotic()
                .expr(t)
                .simplify()
        });

        let mut points = Vec::new();
        let mut sizes = Vec::new();
        for (&x, all) in &runs {
            // Runs disturbed by other load do not count where undisturbed
            // ones exist (a design with more threads than cores disturbs
            // itself: then all count).
            let calm: Vec<usize> = (0..all.len())
                .filter(|&i| settings.disturbance(&all[i]) <= 1.0)
                .collect();
            let counted: Vec<usize> = if calm.is_empty() {
                (0..all.len()).collect()
            } else {
                calm
            };
            let metrics: Vec<&Metrics> = counted.iter().map(|&i| &all[i]).collect();
            let run_factors = factors.get(&x).cloned().unwrap_or_default();
            let factor = |i: usize| run_factors.get(i).copied().unwrap_or(1.0);
            // Each run's time per element at the reference speed.
            let per_element: Vec<f64> = counted
                .iter()
                .filter_map(|&i| Some(all[i].inter_departure_ns? * factor(i)))
                .collect();
            points.extend(per_element.iter().map(|&t| (x as f64, t)));
            let med = |f: &dyn Fn(&Metrics) -> Option<f64>| {
                let v: Vec<f64> = metrics.iter().copied().filter_map(f).collect();
                (!v.is_empty()).then(|| stats::median(&v))
            };
            let measured = (!per_element.is_empty()).then(|| stats::median(&per_element));
            let measured_raw = med(&|m| m.inter_departure_ns);
            let at = [("x", x as f64)];
            let model_predicted = modular.eval(&at).ok();
            let model_predicted_refined = refined_model.as_ref().and_then(|m| m.eval(&at).ok());
            // The operators applied to the atoms' measured medians at x
            // (atoms measured at other sizes, such as the map of a
            // mapReduce, by their fitted model).
            let at_x = |a: &AtomReport| {
                a.samples
                    .iter()
                    .find(|s| s.x == x)
                    .map_or_else(|| a.model.clone(), |s| Expr::num(s.median_ns))
            };
            let local: Vec<(String, Expr)> =
                atoms.iter().map(|a| (a.name.clone(), at_x(a))).collect();
            let local_design = self.design(case, &local)?;
            let predicted = local_design.model().eval(&at).ok();
            let predicted_refined = refined_term.is_some().then(|| {
                let warm: Vec<Atom> = warm
                    .iter()
                    .map(|a| Atom {
                        name: a.name.clone(),
                        model: at_x(a),
                    })
                    .collect();
                let handoff = handoff.map(|h| Atom {
                    name: HANDOFF.to_string(),
                    model: at_x(h),
                });
                crate::semantics::Throughput::new()
                    .expr(&refine(local_design.term(), handoff.as_ref(), &warm, cores))
                    .eval(&at)
                    .ok()
            });
            let predicted_refined = predicted_refined.flatten();
            // The same from the timings as measured.
            let raw_at_x = |i: usize, a: &AtomReport| {
                raw_samples
                    .get(i)
                    .and_then(|r| r.get(&x))
                    .filter(|t| !t.is_empty())
                    .map_or_else(|| at_x(a), |t| Expr::num(stats::median(t)))
            };
            let raw_local: Vec<(String, Expr)> = atoms
                .iter()
                .enumerate()
                .map(|(i, a)| (a.name.clone(), raw_at_x(i, a)))
                .collect();
            let predicted_raw = self.design(case, &raw_local)?.model().eval(&at).ok();
            let error_against = |p: Option<f64>, m: Option<f64>| match (p, m) {
                (Some(p), Some(m)) if m > 0.0 => Some(relative_error(p, m)),
                _ => None,
            };
            let error = |p: Option<f64>| error_against(p, measured);
            // Each counted round against the atoms of that round.
            let rounds = round_predictions.get(&x).cloned().unwrap_or_default();
            let paired = |pick: fn(&Predictions) -> Option<f64>| {
                let errors: Vec<f64> = counted
                    .iter()
                    .filter_map(|&i| {
                        let m = all[i].inter_departure_ns? * factor(i);
                        let p = pick(rounds.get(i)?)?;
                        (m > 0.0 && p.is_finite()).then(|| relative_error(p, m))
                    })
                    .collect();
                (!errors.is_empty()).then(|| stats::median(&errors))
            };
            sizes.push(SizeResult {
                x,
                elements: metrics.first().map_or(0, |m| m.elements),
                measured_ns: measured,
                measured_raw_ns: measured_raw,
                latency_ns: med(&|m| m.latency_ns),
                makespan_ns: med(&|m| Some(m.makespan_ns)),
                max_in_flight: metrics.iter().map(|m| m.max_in_flight).max().unwrap_or(0),
                wait_share: med(&|m| m.wait_share()),
                steal_share: med(&|m| m.steal_share),
                repeated: repeats.get(&x).copied().unwrap_or(0),
                counted: metrics.len(),
                predicted_ns: predicted,
                error: error(predicted),
                predicted_raw_ns: predicted_raw,
                error_raw: error_against(predicted_raw, measured_raw),
                speed_factors: run_factors.clone(),
                predicted_refined_ns: predicted_refined,
                error_refined: error(predicted_refined),
                paired_error: paired(|p| p.0),
                paired_error_refined: paired(|p| p.1),
                round_predictions: rounds.clone(),
                model_predicted_ns: model_predicted,
                model_error: error(model_predicted),
                model_predicted_refined_ns: model_predicted_refined,
                model_error_refined: error(model_predicted_refined),
                runs: all.clone(),
            });
        }
        let (monolithic, monolithic_note) = match settings.fitter.fit(&points) {
            Ok(fit) => (Some(fit.into_model()), None),
            Err(e) => (None, Some(e.to_string())),
        };
        // As the paper did when Extra-P chose another class than the
        // composed model (§4.2.5: "we forced Extra-P to generate a linear
        // model"): the whole runs fitted again within the composed model's
        // leading class, and the coefficients compared.
        let forced = |model: &Expr| -> Option<Expr> {
            let g = model.growth("x")?;
            let class = TermClass::new(
                Rational64::approximate_float(g.power())?,
                Rational64::approximate_float(g.log_power())?,
            );
            let fitter = settings.fitter.clone().space(HypothesisSpace::new([class]));
            fitter.fit(&points).ok().map(|f| f.into_model())
        };
        let lead = |model: &Expr| match &monolithic {
            Some(mono) => match leading_coefficient_error(model, mono, "x") {
                Ok(e) => (Some(e), None),
                Err(e @ crate::accuracy::AccuracyError::DifferentClasses { .. }) => {
                    match forced(model).map(|f| (leading_coefficient_error(model, &f, "x"), f)) {
                        Some((Ok(err), f)) => (
                            Some(err),
                            Some(format!(
                                "{e}; the whole runs refitted within the composed model's class: {f:.4}"
                            )),
                        ),
                        _ => (None, Some(e.to_string())),
                    }
                }
                Err(e) => (None, Some(e.to_string())),
            },
            None => (None, monolithic_note.clone()),
        };
        let (lead_error, lead_note) = lead(&asymptotic);
        let (lead_error_refined, lead_note_refined) = match &refined_asymptotic {
            Some(m) => lead(m),
            None => (None, None),
        };
        let accepted = |f: fn(&SizeResult) -> Option<f64>| -> Vec<f64> {
            sizes
                .iter()
                .filter(|s| s.x >= settings.acceptance_from)
                .filter_map(f)
                .collect()
        };
        let summary = |v: Vec<f64>| ErrorSummary::of(&v);
        Ok(Row {
            group: case.group.clone(),
            design: case.structure.clone(),
            acceptance: case.acceptance,
            threads: runs
                .values()
                .flatten()
                .map(|m| m.threads)
                .max()
                .unwrap_or(0),
            warnings,
            monolithic: monolithic.map(|m| m.to_string()),
            monolithic_note,
            modular: modular.to_string(),
            modular_asymptotic: asymptotic.to_string(),
            lead_error,
            lead_note,
            refined_design: refined_term.map(|t| t.to_string()),
            refined_model: refined_model.map(|m| m.to_string()),
            lead_error_refined,
            lead_note_refined,
            errors_from: summary(accepted(|s| s.error)),
            errors_from_refined: summary(accepted(|s| s.error_refined)),
            errors_all: summary(sizes.iter().filter_map(|s| s.error).collect()),
            model_errors_from: summary(accepted(|s| s.model_error)),
            wait_share_max: sizes
                .iter()
                .filter(|s| s.x >= settings.acceptance_from)
                .filter_map(|s| s.wait_share)
                .reduce(f64::max),
            steal_share_max: sizes
                .iter()
                .filter(|s| s.x >= settings.acceptance_from)
                .filter_map(|s| s.steal_share)
                .reduce(f64::max),
            sizes,
        })
    }
}

/// The plain and the refined prediction of one run, ns.
pub type Predictions = (Option<f64>, Option<f64>);

/// What the rounds collected for one configuration.
#[derive(Default)]
struct CaseRuns {
    /// Elements per run, by size (chosen in the first round).
    elements: BTreeMap<usize, usize>,
    /// The metrics of each round, by size.
    metrics: BTreeMap<usize, Vec<Metrics>>,
    /// The speed factor of each round's run ([`SpeedProbe::factor`]), by
    /// size.
    factors: BTreeMap<usize, Vec<f64>>,
    /// Disturbed runs repeated, by size.
    repeats: BTreeMap<usize, usize>,
    /// The plain and the refined prediction of each round's run, composed
    /// from the atoms measured in the same round at the same size.
    predicted: BTreeMap<usize, Vec<Predictions>>,
    /// The executor's warnings, each once.
    warnings: Vec<String>,
}

/// The design text of `structure` with the atoms' fitted models as
/// definitions.
fn design_text(structure: &str, atoms: &[(String, Expr)]) -> String {
    let mut text = String::new();
    for (name, model) in atoms {
        let _ = writeln!(text, "{name} = {model:#};");
    }
    text.push_str(structure);
    text
}

/// Where a suite's work runs and how fast each core is: the cores runs and
/// atom timings are pinned to ([`Settings::pin_threads`]) and the speed
/// probes with their reference reading ([`Settings::normalize_speed`]):
/// one per core, each read on its core, when pinned; one on the calling
/// thread otherwise.
struct Speed {
    cores: Option<Cores>,
    probes: Option<(Vec<SpeedProbe>, f64)>,
}

/// Readings of the probe, interleaved over the cores, for the reference.
const REFERENCE_READINGS: usize = 21;

impl Speed {
    fn new(settings: &Settings) -> Speed {
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
    fn unprobed(settings: &Settings) -> Speed {
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
    fn atom<T: Send>(&mut self, f: impl FnOnce() -> T + Send) -> (T, f64) {
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
    fn run<T>(&mut self, f: impl FnOnce() -> T) -> (T, Option<Vec<f64>>, f64) {
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
    fn factor(
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

/// An atom's timings around one run: at the reference speed and as
/// measured.
#[derive(Clone)]
struct AtomTimings {
    cold: Measurement,
    warm: Option<Measurement>,
    corun: Option<Measurement>,
    cold_raw: Measurement,
}

/// `m` with every timing multiplied by `factor`.
fn scaled(m: &Measurement, factor: f64) -> Measurement {
    if factor == 1.0 {
        return m.clone();
    }
    Measurement::from_samples(
        &m.label,
        m.sizes()
            .iter()
            .map(|s| Samples {
                x: s.x,
                times_ns: s.times_ns.iter().map(|t| t * factor).collect(),
                stopped_early: s.stopped_early,
            })
            .collect(),
    )
}

/// The timings of two measurements together.
fn join_measurements(a: &Measurement, b: &Measurement) -> Measurement {
    let mut samples: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    merge(&mut samples, a);
    merge(&mut samples, b);
    Measurement::from_samples(
        &a.label,
        samples
            .into_iter()
            .map(|(x, times_ns)| Samples {
                x,
                times_ns,
                stopped_early: false,
            })
            .collect(),
    )
}

/// The median timing of a measurement at `x` (NaN if it has none).
fn median_at(m: &Measurement, x: usize) -> f64 {
    m.sizes()
        .iter()
        .find(|s| s.x == x)
        .map_or(f64::NAN, |s| s.median())
}

/// The refined term: cache reuse, contention, the pools' hand-over, then
/// the pipelines' hand-over.
fn refine(term: &Term, handoff: Option<&Atom>, variants: &[Atom], cores: usize) -> Term {
    let reused = with_contention(&with_cache_reuse(term, variants), variants, cores);
    let reused = with_pool_handoff(&reused, variants, cores);
    match handoff {
        Some(h) => with_handoff(&reused, h),
        None => reused,
    }
}

/// Adds a measurement's timings to the samples collected so far.
fn merge(samples: &mut BTreeMap<usize, Vec<f64>>, m: &Measurement) {
    for s in m.sizes() {
        samples.entry(s.x).or_default().extend(&s.times_ns);
    }
}

fn fit_atom(
    name: &str,
    samples: &BTreeMap<usize, Vec<f64>>,
    settings: &Settings,
) -> Result<AtomReport, ValidationError> {
    let measurement = Measurement::from_samples(
        name,
        samples
            .iter()
            .map(|(&x, t)| Samples {
                x,
                times_ns: t.clone(),
                stopped_early: false,
            })
            .collect(),
    );
    let fit = measurement
        .fit(&settings.fitter)
        .map_err(|source| ValidationError::Fit {
            what: format!("the atom `{name}`"),
            source,
        })?;
    Ok(AtomReport {
        name: name.to_string(),
        model: fit.model().clone(),
        cv_smape: fit.stats().cv_smape,
        samples: measurement
            .sizes()
            .iter()
            .map(|s| AtomSamples {
                x: s.x,
                median_ns: s.median(),
                times_ns: s.times_ns.clone(),
                raw_times_ns: Vec::new(),
            })
            .collect(),
    })
}

/// `term` with the hand-over between threads as an atom: every element that
/// crosses a pipeline boundary costs each of the two stages `handoff` (the
/// sender to hand it on, the receiver to take it), so a stage pays once per
/// boundary it touches; a task pool shares its stages' costs among its
/// workers. `pipe(a, b)` becomes `pipe(seq(a, handoff), seq(handoff, b))`,
/// whose model is `max(M[a] + h, M[b] + h)`.
///
/// ```
/// use pattern_core::exec::validate::with_handoff;
/// use pattern_core::{Atom, Design, Expr};
///
/// let d = Design::parse("a = 2*x; b = x; c = 5; pipe(a, b, c)")?;
/// let h = Atom { name: "handoff".into(), model: Expr::num(100.0) };
/// let t = with_handoff(d.term(), &h);
/// assert_eq!(
///     t.to_string(),
///     "pipe(seq(a, handoff), seq(handoff, b, handoff), seq(handoff, c))"
/// );
/// assert_eq!(pattern_core::semantics::Throughput::new().expr(&t).eval(&[("x", 1000.0)])?, 2100.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn with_handoff(term: &Term, handoff: &Atom) -> Term {
    attach(term, handoff, false, false)
}

fn attach(term: &Term, h: &Atom, left: bool, right: bool) -> Term {
    let hand = || Term::Atom(h.clone());
    match term {
        Term::Pipe(a, b) => Term::pipe(attach(a, h, left, true), attach(b, h, true, right)),
        Term::Tpool(n, t) => Term::Tpool(n.clone(), Box::new(attach(t, h, left, right))),
        Term::Seq(a, b) => Term::seq(attach(a, h, left, false), attach(b, h, false, right)),
        Term::Atom(_)
        | Term::MapReduce { .. }
        | Term::On(..)
        | Term::Par(..)
        | Term::Groups(..)
        | Term::Redist(..) => {
            let mut parts = Vec::new();
            if left {
                parts.push(hand());
            }
            parts.push(term.clone());
            if right {
                parts.push(hand());
            }
            Term::seq_all(parts).unwrap_or_else(|| term.clone())
        }
    }
}

/// The name of the warm variant of an atom.
pub fn warm_name(atom: &str) -> String {
    format!("{atom}_warm")
}

/// `term` with cache reuse: an atom that follows another atom on the same
/// thread (a later part of a `seq`) finds the element in the cache, so it
/// is replaced by its warm variant from `warm` (named by [`warm_name`]),
/// where there is one. The first atom of a thread, and the first atom of a
/// pipeline stage (the element comes from another core), stay as they are.
///
/// ```
/// use pattern_core::exec::validate::with_cache_reuse;
/// use pattern_core::{Atom, Design, Expr};
///
/// let d = Design::parse("inc = 2*x; qsort = 10*x; seq(inc, inc, pipe(qsort, inc))")?;
/// let warm = [Atom { name: "inc_warm".into(), model: Expr::parse("x")? }];
/// let t = with_cache_reuse(d.term(), &warm);
/// assert_eq!(t.to_string(), "seq(inc, inc_warm, pipe(qsort, inc))");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn with_cache_reuse(term: &Term, warm: &[Atom]) -> Term {
    reuse(term, warm, true)
}

fn reuse(term: &Term, warm: &[Atom], first: bool) -> Term {
    match term {
        Term::Atom(a) if !first => warm
            .iter()
            .find(|w| w.name == warm_name(&a.name))
            .map_or_else(|| term.clone(), |w| Term::Atom(w.clone())),
        Term::Atom(_)
        | Term::MapReduce { .. }
        | Term::On(..)
        | Term::Par(..)
        | Term::Groups(..)
        | Term::Redist(..) => term.clone(),
        Term::Seq(a, b) => Term::seq(reuse(a, warm, first), reuse(b, warm, false)),
        Term::Pipe(a, b) => Term::pipe(reuse(a, warm, first), reuse(b, warm, true)),
        Term::Tpool(n, t) => Term::Tpool(n.clone(), Box::new(reuse(t, warm, first))),
    }
}

/// Calls `kernel` on every element of `stream`, timing each run of `k`
/// consecutive calls: their mean times, ns.
fn stream_means<E>(kernel: &ElementKernel<E>, stream: &mut [E], k: usize) -> Vec<f64> {
    stream
        .chunks_mut(k.max(1))
        .map(|chunk| {
            let start = Instant::now();
            for e in chunk.iter_mut() {
                kernel(e);
            }
            start.elapsed().as_nanos() as f64 / chunk.len() as f64
        })
        .collect()
}

/// The name of the co-run variant of an atom ([`Suite::with_contention`]).
pub fn corun_name(atom: &str) -> String {
    format!("{atom}_corun")
}

/// The cores of this machine the validation may use.
fn machine_cores() -> usize {
    Cores::of_current_thread().len()
}

/// Collects the names of the atoms `term` runs in a task pool of two or
/// more workers (`pooled`: inside one already).
fn pooled_atoms(term: &Term, pooled: bool, out: &mut Vec<String>) {
    match term {
        Term::Atom(a) if pooled => out.push(a.name.clone()),
        Term::Tpool(n, t) => pooled_atoms(t, pooled || !matches!(n, Count::Fixed(1)), out),
        _ => {
            for child in term.children() {
                pooled_atoms(child, pooled, out);
            }
        }
    }
}

/// `term` with memory contention between the workers of a task pool: an
/// atom in a pool of `n ≥ 2` workers on a machine of `cores` cores runs
/// while `b − 1` other cores run it too, `b = min(n, cores)`, so it takes
/// `M[a] + (b − 1)/(cores − 1) · (M[a_corun] − M[a])`, where `a_corun`
/// (named by [`corun_name`], from `variants`) is the atom timed while all
/// other cores ran it: the slowdown grows in proportion to the busy cores,
/// to first order (each takes its share of the memory bandwidth). With
/// every core busy the atom is replaced by `a_corun`; otherwise by an atom
/// `a_corunB` with that model. Atoms without a co-run variant, a symbolic
/// `n` (counted as every core) and a machine of one core (no change) are
/// covered too.
///
/// ```
/// use pattern_core::exec::validate::with_contention;
/// use pattern_core::{Atom, Design, Expr};
///
/// let d = Design::parse("inc = 4*x; nop = 1; pipe(tpool[2](inc), tpool[1](nop))")?;
/// let corun = [Atom { name: "inc_corun".into(), model: Expr::parse("5*x")? }];
/// // On 2 cores both workers' cores are busy: 5x / 2.
/// let on_two = with_contention(d.term(), &corun, 2);
/// assert_eq!(on_two.to_string(), "pipe(tpool[2](inc_corun), tpool[1](nop))");
/// assert_eq!(pattern_core::semantics::Throughput::new().expr(&on_two).eval(&[("x", 100.0)])?, 250.0);
/// // On 5 cores, 2 workers keep 1 of the 4 other cores busy:
/// // (4x + (5x - 4x) / 4) / 2.
/// let on_five = with_contention(d.term(), &corun, 5);
/// assert_eq!(on_five.to_string(), "pipe(tpool[2](inc_corun2), tpool[1](nop))");
/// assert_eq!(pattern_core::semantics::Throughput::new().expr(&on_five).eval(&[("x", 100.0)])?, 212.5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn with_contention(term: &Term, variants: &[Atom], cores: usize) -> Term {
    contend(term, variants, cores, 1)
}

fn contend(term: &Term, variants: &[Atom], cores: usize, busy: usize) -> Term {
    match term {
        Term::Atom(a) if busy > 1 && cores > 1 => {
            let Some(corun) = variants.iter().find(|v| v.name == corun_name(&a.name)) else {
                return term.clone();
            };
            if busy >= cores {
                return Term::Atom(corun.clone());
            }
            let share = (busy - 1) as f64 / (cores - 1) as f64;
            Term::Atom(Atom {
                name: format!("{}{busy}", corun.name),
                model: Expr::Add(vec![
                    Expr::Mul(vec![Expr::num(1.0 - share), a.model.clone()]),
                    Expr::Mul(vec![Expr::num(share), corun.model.clone()]),
                ])
                .simplify(),
            })
        }
        Term::Tpool(n, t) => {
            let busy = busy
                .saturating_mul(busy_workers(n, cores))
                .min(cores.max(1));
            Term::Tpool(n.clone(), Box::new(contend(t, variants, cores, busy)))
        }
        _ => term.map_children(|child| contend(child, variants, cores, busy)),
    }
}

/// The name of the hand-over of a task pool of `workers` busy workers
/// ([`with_pool_handoff`]).
pub fn pool_handoff_name(workers: usize) -> String {
    format!("handoff_pool{workers}")
}

/// The workers a pool keeps busy at once: its count, at most `cores` (a
/// symbolic count: `cores`).
fn busy_workers(n: &Count, cores: usize) -> usize {
    let workers = match n {
        Count::Fixed(k) => usize::try_from(*k).unwrap_or(usize::MAX),
        Count::Symbol(_) => cores,
    };
    workers.min(cores.max(1))
}

/// Collects the busy workers ([`busy_workers`]) of every pool in `term`.
fn pool_sizes(term: &Term, cores: usize, out: &mut Vec<usize>) {
    if let Term::Tpool(n, _) = term {
        out.push(busy_workers(n, cores));
    }
    for child in term.children() {
        pool_sizes(child, cores, out);
    }
}

/// `term` with the hand-over of its task pools: every worker of a pool
/// takes each of its elements from the shared queue and hands it on, and
/// when `w` workers do so at once (`w` = the count, at most `cores`) the
/// queue's memory moves between their cores at every take. `tpool[n](t)`
/// becomes `tpool[n](seq(t, h))` with `h` the atom named
/// [`pool_handoff_name`]`(w)` from `variants`, where there is one. The
/// validation measures it as `w` times the time per element of
/// `tpool[w](spin)` minus the kernel's time, for a kernel that spins for
/// 10 µs, a pool at the top of the program.
///
/// ```
/// use pattern_core::exec::validate::{pool_handoff_name, with_pool_handoff};
/// use pattern_core::{Atom, Design, Expr};
///
/// let d = Design::parse("inc = 4*x; pipe(tpool[2](inc), tpool[8](inc))")?;
/// let h = [Atom { name: pool_handoff_name(2), model: Expr::num(500.0) }];
/// let t = with_pool_handoff(d.term(), &h, 2);
/// assert_eq!(
///     t.to_string(),
///     "pipe(tpool[2](seq(inc, handoff_pool2)), tpool[8](seq(inc, handoff_pool2)))"
/// );
/// assert_eq!(pattern_core::semantics::Throughput::new().expr(&t).eval(&[("x", 1000.0)])?, 2250.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn with_pool_handoff(term: &Term, variants: &[Atom], cores: usize) -> Term {
    match term {
        Term::Tpool(n, t) => {
            let inner = with_pool_handoff(t, variants, cores);
            let name = pool_handoff_name(busy_workers(n, cores));
            let inner = match variants.iter().find(|v| v.name == name) {
                Some(h) => Term::seq(inner, Term::Atom(h.clone())),
                None => inner,
            };
            Term::Tpool(n.clone(), Box::new(inner))
        }
        _ => term.map_children(|child| with_pool_handoff(child, variants, cores)),
    }
}

/// A measured atom and its fitted model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AtomReport {
    /// The atom.
    pub name: String,
    /// The fitted model, ns per call.
    pub model: Expr,
    /// The fit's leave-one-out SMAPE, percent.
    pub cv_smape: f64,
    /// Every timing, per size.
    pub samples: Vec<AtomSamples>,
}

/// The timings of an atom at one size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AtomSamples {
    /// The size.
    pub x: usize,
    /// Their median, ns.
    pub median_ns: f64,
    /// Every timing, ns, at the reference speed
    /// ([`Settings::normalize_speed`]).
    pub times_ns: Vec<f64>,
    /// The same timings as measured.
    #[serde(default)]
    pub raw_times_ns: Vec<f64>,
}

/// One configuration at one size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizeResult {
    /// The size.
    pub x: usize,
    /// Elements per run.
    pub elements: usize,
    /// The median over the rounds (see [`SizeResult::counted`]) of the
    /// steady-state time between departures, ns, at the reference speed
    /// ([`Settings::normalize_speed`]).
    pub measured_ns: Option<f64>,
    /// The same as measured, without the speed factors.
    pub measured_raw_ns: Option<f64>,
    /// The median latency, ns.
    pub latency_ns: Option<f64>,
    /// The median makespan, ns.
    pub makespan_ns: Option<f64>,
    /// The largest number of kernel calls in flight seen.
    pub max_in_flight: usize,
    /// The median over the rounds of the share of runnable time the
    /// threads waited for a core ([`Metrics::wait_share`]).
    pub wait_share: Option<f64>,
    /// The median over the rounds of the machine's share stolen by the
    /// hypervisor during the run ([`Metrics::steal_share`]).
    pub steal_share: Option<f64>,
    /// Runs repeated because they were disturbed, over all rounds.
    pub repeated: usize,
    /// Rounds whose run counts for the medians: the undisturbed ones
    /// ([`Metrics::disturbance`] at most [`Settings::max_wait_share`]), or
    /// all if none is.
    pub counted: usize,
    /// The composed prediction: the plain operators applied to the atoms'
    /// medians at `x` (over every round), ns.
    pub predicted_ns: Option<f64>,
    /// Its relative error against `measured_ns`: the headline figure.
    pub error: Option<f64>,
    /// The plain operators applied to the atoms' medians as measured.
    pub predicted_raw_ns: Option<f64>,
    /// Its relative error against `measured_raw_ns`: the comparison
    /// without the speed probe.
    pub error_raw: Option<f64>,
    /// The speed factor of each round's run ([`SpeedProbe::factor`]; 1
    /// without [`Settings::normalize_speed`]).
    pub speed_factors: Vec<f64>,
    /// The refined operators (hand-over, cache reuse) applied to the same.
    pub predicted_refined_ns: Option<f64>,
    /// Its relative error.
    pub error_refined: Option<f64>,
    /// Each counted round's run against the operators applied to the atoms
    /// timed right before and after it, the median over the rounds
    /// (noisier: fewer timings per comparison).
    pub paired_error: Option<f64>,
    /// The same for the refined operators.
    pub paired_error_refined: Option<f64>,
    /// Per round: the plain and the refined prediction from the atoms timed
    /// around that round's run, ns.
    pub round_predictions: Vec<Predictions>,
    /// The modular model (from the atoms' fitted models) at `x`, ns.
    pub model_predicted_ns: Option<f64>,
    /// Its relative error against `measured_ns`: adds the error of fitting
    /// the atoms over all sizes.
    pub model_error: Option<f64>,
    /// The refined model at `x`, ns.
    pub model_predicted_refined_ns: Option<f64>,
    /// Its relative error.
    pub model_error_refined: Option<f64>,
    /// The metrics of every run.
    pub runs: Vec<Metrics>,
}

/// Median and largest of some relative errors.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorSummary {
    /// How many.
    pub count: usize,
    /// Their median.
    pub median: f64,
    /// The largest.
    pub max: f64,
}

impl ErrorSummary {
    /// `None` for no errors.
    pub fn of(errors: &[f64]) -> Option<ErrorSummary> {
        (!errors.is_empty()).then(|| ErrorSummary {
            count: errors.len(),
            median: stats::median(errors),
            max: errors.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }
}

/// One configuration: its models and errors (a row of the paper's Table 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Its family.
    pub group: String,
    /// Its structure.
    pub design: String,
    /// Whether it counts for the acceptance figure.
    pub acceptance: bool,
    /// Threads it runs.
    pub threads: usize,
    /// The executor's warnings (threads beyond the cores).
    pub warnings: Vec<String>,
    /// The model fitted from the whole runs (monolithic).
    pub monolithic: Option<String>,
    /// Why there is none.
    pub monolithic_note: Option<String>,
    /// The model composed from the atoms, pipelines as a pointwise max
    /// (modular).
    pub modular: String,
    /// The same with the paper's asymptotic choice for pipelines.
    pub modular_asymptotic: String,
    /// Relative error of the leading coefficients, modular (asymptotic)
    /// against monolithic.
    pub lead_error: Option<f64>,
    /// Why there is none (different classes, ...).
    pub lead_note: Option<String>,
    /// The design with the hand-over atoms.
    pub refined_design: Option<String>,
    /// Its model.
    pub refined_model: Option<String>,
    /// Its leading-coefficient error.
    pub lead_error_refined: Option<f64>,
    /// Why there is none.
    pub lead_note_refined: Option<String>,
    /// Pointwise errors ([`SizeResult::error`]) at the acceptance sizes.
    pub errors_from: Option<ErrorSummary>,
    /// The same for the model with the hand-over.
    pub errors_from_refined: Option<ErrorSummary>,
    /// Pointwise errors ([`SizeResult::error`]) at every size.
    pub errors_all: Option<ErrorSummary>,
    /// Errors of the fitted modular model ([`SizeResult::model_error`]) at
    /// the acceptance sizes.
    pub model_errors_from: Option<ErrorSummary>,
    /// The largest [`SizeResult::wait_share`] at the acceptance sizes: how
    /// much other load (or more threads than cores) disturbed the runs.
    pub wait_share_max: Option<f64>,
    /// The largest [`SizeResult::steal_share`] at the acceptance sizes.
    pub steal_share_max: Option<f64>,
    /// Every size.
    pub sizes: Vec<SizeResult>,
}

/// The result of one suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteReport {
    /// The suite.
    pub name: String,
    /// Its sizes.
    pub sizes: Vec<usize>,
    /// The smallest size its error summaries ([`Row::errors_from`]) count.
    pub acceptance_from: usize,
    /// Its atoms.
    pub atoms: Vec<AtomReport>,
    /// The hand-over atom, if measured.
    pub handoff: Option<AtomReport>,
    /// The variants of the element atoms: measured warm
    /// ([`Suite::with_cache_reuse`]) and co-run ([`Suite::with_contention`]).
    pub variants: Vec<AtomReport>,
    /// Its configurations.
    pub rows: Vec<Row>,
    /// How long it took, s.
    pub seconds: f64,
}

/// The acceptance figure: pointwise errors of the acceptance configurations
/// at the acceptance sizes, over every suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Acceptance {
    /// From which size.
    pub from: usize,
    /// The limit.
    pub limit: f64,
    /// Configurations counted.
    pub configurations: usize,
    /// The plain operators.
    pub plain: Option<ErrorSummary>,
    /// The worst (configuration, size) of the plain operators.
    pub plain_worst: Option<(String, usize)>,
    /// The refined model (hand-over and cache reuse).
    pub refined: Option<ErrorSummary>,
    /// The worst (configuration, size) with the hand-over.
    pub refined_worst: Option<(String, usize)>,
    /// The plain operators on the timings as measured, without the speed
    /// factors ([`SizeResult::error_raw`]).
    #[serde(default)]
    pub raw: Option<ErrorSummary>,
    /// Its worst (configuration, size).
    #[serde(default)]
    pub raw_worst: Option<(String, usize)>,
}

impl Acceptance {
    /// Collects the figure from suite reports.
    pub fn of(suites: &[SuiteReport], from: usize, limit: f64) -> Acceptance {
        let rows: Vec<&Row> = suites
            .iter()
            .flat_map(|s| &s.rows)
            .filter(|r| r.acceptance)
            .collect();
        let collect = |f: fn(&SizeResult) -> Option<f64>| {
            let mut all = Vec::new();
            let mut worst: Option<(f64, String, usize)> = None;
            for r in &rows {
                for s in r.sizes.iter().filter(|s| s.x >= from) {
                    if let Some(e) = f(s) {
                        all.push(e);
                        if worst.as_ref().is_none_or(|w| e > w.0) {
                            worst = Some((e, r.design.clone(), s.x));
                        }
                    }
                }
            }
            (ErrorSummary::of(&all), worst.map(|(_, d, x)| (d, x)))
        };
        let (plain, plain_worst) = collect(|s| s.error);
        let (refined, refined_worst) = collect(|s| s.error_refined);
        let (raw, raw_worst) = collect(|s| s.error_raw);
        Acceptance {
            from,
            limit,
            configurations: rows.len(),
            plain,
            plain_worst,
            refined,
            refined_worst,
            raw,
            raw_worst,
        }
    }

    /// Whether the plain operators meet the limit everywhere.
    pub fn passed(&self) -> bool {
        self.plain.is_some_and(|s| s.max <= self.limit)
    }

    /// Whether the refined model meets the limit everywhere.
    pub fn passed_refined(&self) -> bool {
        self.refined.is_some_and(|s| s.max <= self.limit)
    }
}

/// The machine a validation ran on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Cores offered (`std::thread::available_parallelism`).
    pub cores: usize,
    /// The 1, 5 and 15 minute load averages (`/proc/loadavg`), where the
    /// system tells them: runnable processes, this one included.
    pub load_average: Option<[f64; 3]>,
}

impl Machine {
    /// The machine now.
    pub fn now() -> Machine {
        let load_average = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|text| {
                let v: Vec<f64> = text
                    .split_whitespace()
                    .take(3)
                    .filter_map(|t| t.parse().ok())
                    .collect();
                <[f64; 3]>::try_from(v).ok()
            });
        Machine {
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            load_average,
        }
    }
}

/// The settings of a validation, as recorded in its report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SettingsRecord {
    /// [`Settings::rounds`].
    pub rounds: usize,
    /// [`Settings::atom_repetitions`].
    pub atom_repetitions: usize,
    /// [`Settings::run_target`], ms.
    pub run_target_ms: f64,
    /// [`Settings::min_elements`].
    pub min_elements: usize,
    /// [`Settings::max_elements`].
    pub max_elements: usize,
    /// [`Settings::max_bytes`].
    pub max_bytes: usize,
    /// [`Settings::capacity`].
    pub capacity: usize,
    /// [`Settings::spin`], µs.
    pub spin_us: f64,
    /// [`Settings::trim`].
    pub trim: f64,
    /// [`Settings::max_wait_share`].
    pub max_wait_share: f64,
    /// [`Settings::retries`].
    pub retries: usize,
    /// [`Settings::cold_bytes`].
    pub cold_bytes: usize,
    /// [`Settings::normalize_speed`].
    #[serde(default)]
    pub normalize_speed: bool,
    /// [`Settings::max_speed_change`].
    #[serde(default)]
    pub max_speed_change: f64,
    /// [`Settings::pin_threads`].
    #[serde(default)]
    pub pin_threads: bool,
    /// [`Settings::max_steal_share`].
    #[serde(default)]
    pub max_steal_share: f64,
    /// [`Settings::discount_steal`].
    #[serde(default)]
    pub discount_steal: bool,
    /// [`Settings::atom_stream`], ms.
    #[serde(default)]
    pub atom_stream_ms: f64,
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
        }
    }
}

/// Everything a validation measured and concluded, for the JSON file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The machine before the run.
    pub machine_before: Machine,
    /// The machine after the run.
    pub machine_after: Machine,
    /// The settings of each suite, by suite name.
    pub settings: BTreeMap<String, SettingsRecord>,
    /// The suites.
    pub suites: Vec<SuiteReport>,
    /// The acceptance figure.
    pub acceptance: Acceptance,
    /// The whole validation's wall time, s.
    pub seconds: f64,
}

fn pct(e: Option<f64>) -> String {
    e.map_or("–".to_string(), |e| format!("{:.1}", e * 100.0))
}

fn pct_summary(s: Option<ErrorSummary>) -> String {
    s.map_or("–".to_string(), |s| {
        format!("{:.1} / {:.1}", s.median * 100.0, s.max * 100.0)
    })
}

fn rounded(text: &str) -> String {
    Expr::parse(text).map_or(text.to_string(), |e| format!("{e:.4}"))
}

impl SuiteReport {
    /// The atoms as a Markdown table.
    pub fn atoms_table(&self) -> String {
        let mut out =
            String::from("| atom | fitted model [ns] | LOO SMAPE % |\n| --- | --- | --- |\n");
        for a in self.atoms.iter().chain(&self.variants).chain(&self.handoff) {
            let _ = writeln!(out, "| {} | {:.4} | {:.2} |", a.name, a.model, a.cv_smape);
        }
        out
    }

    /// The configurations as a Markdown table like seed 001 Table 2:
    /// monolithic model, modular model, the relative error of the leading
    /// coefficients, and the pointwise errors (median / max over the sizes
    /// from [`SuiteReport::acceptance_from`]) of the plain and the refined
    /// model, and how much other load disturbed the runs.
    pub fn table(&self) -> String {
        let from = self.acceptance_from;
        let mut out = format!(
            "| configuration | threads | monolithic model [ns] | modular model [ns] | lead. coeff. error % | error % at x ≥ {from} (median / max) | refined: error % (median / max) | fitted model: error % (median / max) | CPU wait % | stolen % |\n\
             | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
        );
        for r in &self.rows {
            let mono = r
                .monolithic
                .as_deref()
                .map_or_else(|| "–".to_string(), rounded);
            let lead = match (r.lead_error, &r.lead_note) {
                (Some(e), Some(_)) => format!("{} (refitted)", pct(Some(e))),
                (Some(e), None) => pct(Some(e)),
                (None, Some(note)) if note.contains("different classes") => "classes differ".into(),
                _ => "–".into(),
            };
            let warn = if r.warnings.is_empty() { "" } else { " ⚠" };
            let _ = writeln!(
                out,
                "| {}{warn} | {} | {mono} | {} | {lead} | {} | {} | {} | {} | {} |",
                r.design,
                r.threads,
                rounded(&r.modular),
                pct_summary(r.errors_from),
                pct_summary(r.errors_from_refined),
                pct_summary(r.model_errors_from),
                pct(r.wait_share_max),
                pct(r.steal_share_max),
            );
        }
        out
    }

    /// Pointwise errors of the plain operators per configuration and size,
    /// as a Markdown table.
    pub fn errors_table(&self) -> String {
        let mut out = String::from("| configuration |");
        for x in &self.sizes {
            let _ = write!(out, " {x} |");
        }
        out.push_str("\n| --- |");
        out.push_str(&" --- |".repeat(self.sizes.len()));
        out.push('\n');
        for r in &self.rows {
            let _ = write!(out, "| {} |", r.design);
            for x in &self.sizes {
                let e = r.sizes.iter().find(|s| s.x == *x).and_then(|s| s.error);
                let _ = write!(out, " {} |", pct(e));
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h() -> Atom {
        Atom {
            name: HANDOFF.into(),
            model: Expr::num(10.0),
        }
    }

    fn term(text: &str) -> Term {
        Design::parse(&format!("a = x; b = 2*x; c = 3; {text}"))
            .unwrap()
            .term()
            .clone()
    }

    fn corun() -> Vec<Atom> {
        vec![Atom {
            name: "a_corun".into(),
            model: Expr::parse("3*x").unwrap(),
        }]
    }

    #[test]
    fn contention_only_inside_pools_of_two_or_more() {
        let v = corun();
        let on = |text: &str, cores: usize| with_contention(&term(text), &v, cores).to_string();
        assert_eq!(on("seq(a, b)", 2), "seq(a, b)");
        assert_eq!(on("tpool[1](a)", 2), "tpool[1](a)");
        assert_eq!(
            on("pipe(tpool[2](seq(a, b)), a)", 2),
            "pipe(tpool[2](seq(a_corun, b)), a)"
        );
        // A symbolic count counts as every core; one core has no contention.
        assert_eq!(on("tpool[n](a)", 4), "tpool[n](a_corun)");
        assert_eq!(on("tpool[2](a)", 1), "tpool[2](a)");
        // Nested pools multiply their workers: 2 x 2 keep 4 of 8 cores
        // busy, so a takes x + 3/7 (3x - x).
        let t = with_contention(&term("tpool[2](tpool[2](a))"), &v, 8);
        assert_eq!(t.to_string(), "tpool[2](tpool[2](a_corun4))");
        let x = 700.0;
        let want = x * (1.0 + 6.0 / 7.0) / 4.0;
        assert!(
            (crate::semantics::Throughput::new()
                .expr(&t)
                .eval(&[("x", x)])
                .unwrap()
                - want)
                .abs()
                < 1e-9
        );
    }

    #[test]
    fn pool_handoff_for_the_busy_workers_of_every_pool() {
        let h = |w: usize| Atom {
            name: pool_handoff_name(w),
            model: Expr::num(100.0 * w as f64),
        };
        let v = [h(1), h(2)];
        let on = |text: &str, cores: usize| with_pool_handoff(&term(text), &v, cores).to_string();
        assert_eq!(on("seq(a, b)", 2), "seq(a, b)");
        assert_eq!(on("tpool[1](a)", 2), "tpool[1](seq(a, handoff_pool1))");
        // More workers than cores: as many busy at once as there are cores.
        assert_eq!(
            on("pipe(tpool[8](a), tpool[n](b))", 2),
            "pipe(tpool[8](seq(a, handoff_pool2)), tpool[n](seq(b, handoff_pool2)))"
        );
        // No measured hand-over for 4 busy workers: left alone.
        assert_eq!(on("tpool[4](a)", 4), "tpool[4](a)");
        let mut sizes = Vec::new();
        pool_sizes(
            &term("seq(tpool[3](a), pipe(tpool[1](b), c))"),
            2,
            &mut sizes,
        );
        assert_eq!(sizes, [2, 1]);
    }

    #[test]
    fn pooled_atoms_are_those_in_pools_of_two_or_more() {
        let mut out = Vec::new();
        pooled_atoms(
            &term("seq(a, pipe(tpool[1](b), tpool[3](seq(b, c))))"),
            false,
            &mut out,
        );
        assert_eq!(out, ["b", "c"]);
    }

    #[test]
    fn stream_length_is_fixed_and_bounded() {
        let kernels = Kernels::<Vec<u8>>::new().add("touch", |v| v[0] = v[0].wrapping_add(1));
        let suite = Suite::new("s", kernels, &[16], |x, _| vec![0u8; x]).element_bytes(|x| x);
        let kernel = suite.kernels.element("touch").unwrap();
        let long = Settings {
            atom_stream: Duration::from_secs(10),
            max_elements: 50,
            ..Settings::default()
        };
        // Ten seconds of a call that takes nanoseconds: the element bound.
        assert_eq!(suite.stream_length("touch", &kernel, 16, &long), 50);
        // Fixed at the first request, whatever the settings say later.
        let fewer = Settings {
            max_elements: 7,
            ..long.clone()
        };
        assert_eq!(suite.stream_length("touch", &kernel, 16, &fewer), 50);
        // A quarter of the run's memory bound: 1,000 bytes of 100-byte
        // elements.
        let small = Settings {
            max_bytes: 4_000,
            ..long.clone()
        };
        assert_eq!(suite.stream_length("touch", &kernel, 100, &small), 10);
        let single = Settings {
            atom_stream: Duration::ZERO,
            ..long
        };
        assert_eq!(suite.stream_length("touch", &kernel, 200, &single), 1);
    }

    #[test]
    fn handoff_only_at_pipeline_boundaries() {
        assert_eq!(
            with_handoff(&term("seq(a, b)"), &h()).to_string(),
            "seq(a, b)"
        );
        assert_eq!(
            with_handoff(&term("tpool[2](a)"), &h()).to_string(),
            "tpool[2](a)"
        );
        let t = with_handoff(&term("pipe(tpool[2](a), b)"), &h());
        assert_eq!(
            t.to_string(),
            "pipe(tpool[2](seq(a, handoff)), seq(handoff, b))"
        );
        // max((x + 10)/2, 2x + 10) at x = 100.
        assert_eq!(
            crate::semantics::Throughput::new()
                .expr(&t)
                .eval(&[("x", 100.0)])
                .unwrap(),
            210.0
        );
        let left = with_handoff(&term("pipe(pipe(a, b), c)"), &h());
        assert_eq!(
            left.to_string(),
            "pipe(pipe(seq(a, handoff), seq(handoff, b, handoff)), seq(handoff, c))"
        );
    }

    #[test]
    fn design_text_defines_every_atom() {
        let atoms = vec![("q".to_string(), Expr::parse("2*x*log2(x) + 5").unwrap())];
        let text = design_text("tpool[2](q)", &atoms);
        let d = Design::parse(&text).unwrap();
        assert_eq!(d.model().eval(&[("x", 4.0)]).unwrap(), 10.5);
    }

    #[test]
    fn acceptance_collects_only_accepted_rows_and_sizes() {
        let size = |x, e| SizeResult {
            x,
            elements: 1,
            measured_ns: Some(1.0),
            measured_raw_ns: Some(1.5),
            latency_ns: None,
            makespan_ns: None,
            max_in_flight: 1,
            wait_share: None,
            steal_share: None,
            repeated: 0,
            counted: 1,
            predicted_ns: None,
            error: Some(e),
            predicted_raw_ns: None,
            error_raw: Some(2.0 * e),
            speed_factors: vec![1.0 / 1.5],
            predicted_refined_ns: None,
            error_refined: Some(e / 2.0),
            paired_error: None,
            paired_error_refined: None,
            round_predictions: vec![],
            model_predicted_ns: None,
            model_error: None,
            model_predicted_refined_ns: None,
            model_error_refined: None,
            runs: vec![],
        };
        let row = |design: &str, acceptance, sizes| Row {
            group: "g".into(),
            design: design.into(),
            acceptance,
            threads: 1,
            warnings: vec![],
            monolithic: None,
            monolithic_note: None,
            modular: "x".into(),
            modular_asymptotic: "x".into(),
            lead_error: None,
            lead_note: None,
            refined_design: None,
            refined_model: None,
            lead_error_refined: None,
            lead_note_refined: None,
            errors_from: None,
            errors_from_refined: None,
            errors_all: None,
            model_errors_from: None,
            wait_share_max: None,
            steal_share_max: None,
            sizes,
        };
        let suite = SuiteReport {
            name: "s".into(),
            sizes: vec![10, 100],
            acceptance_from: 100,
            atoms: vec![],
            handoff: None,
            variants: vec![],
            rows: vec![
                row("a", true, vec![size(10, 0.9), size(100, 0.05)]),
                row("b", true, vec![size(100, 0.08)]),
                row("c", false, vec![size(100, 0.5)]),
            ],
            seconds: 0.0,
        };
        let acc = Acceptance::of(&[suite], 100, 0.1);
        assert_eq!(acc.configurations, 2);
        let plain = acc.plain.unwrap();
        assert_eq!(plain.count, 2);
        assert!((plain.max - 0.08).abs() < 1e-12);
        assert_eq!(acc.plain_worst, Some(("b".to_string(), 100)));
        assert!(acc.passed());
        assert!((acc.refined.unwrap().median - 0.0325).abs() < 1e-12);
        // The as-measured errors are collected the same way.
        let raw = acc.raw.unwrap();
        assert!((raw.max - 0.16).abs() < 1e-12 && raw.count == 2);
        assert_eq!(acc.raw_worst, Some(("b".to_string(), 100)));
    }
}
