//! A suite ([`Suite`]): the atoms to measure and the configurations to run
//! over one element type, and what it asks of the runs (their elements,
//! their inputs). The protocol that measures, runs, fits and compares them
//! is [`Suite::run`] (in `rounds.rs`; the method is described in the
//! example's top-level documentation).

use crate::cases::Case;
use crate::machine_aware::CallSpreads;
#[cfg(doc)]
use crate::refinements::{with_cache_reuse, with_contention, with_handoff, with_pool_handoff};
use crate::settings::Settings;
use pattern_core::exec::{Cores, Kernels};
use pattern_core::fit::measure::{Harness, Measurement};
use pattern_core::{Atom, Design};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Builds the element of size `x` from a seed.
pub(crate) type Make<E> = Arc<dyn Fn(usize, u64) -> E + Send + Sync>;
/// A custom atom's measurement at the sizes it is given ([`Suite::probe`]).
pub(crate) type ProbeFn = Box<dyn Fn(&Harness, &[usize]) -> Measurement + Send + Sync>;

/// An atom to measure.
pub(crate) enum Probe {
    /// An element kernel, measured at the suite's sizes.
    Element(String),
    /// Anything else: the closure measures with the harness and at the
    /// sizes it is given.
    Custom(String, ProbeFn),
}

impl Probe {
    pub(crate) fn name(&self) -> &str {
        match self {
            Probe::Element(n) | Probe::Custom(n, _) => n,
        }
    }
}

/// A set of configurations over one element type: what to measure and what
/// to run. See the [module documentation](self).
pub struct Suite<E> {
    /// Its name, in the log and the report.
    pub(crate) name: String,
    /// What each atom runs.
    pub(crate) kernels: Kernels<E>,
    /// Builds an element of size `x` from a seed.
    pub(crate) make: Make<E>,
    /// The bytes an element of size `x` holds ([`Suite::element_bytes`]).
    pub(crate) bytes: Arc<dyn Fn(usize) -> usize + Send + Sync>,
    /// The sizes, ascending as given.
    pub(crate) sizes: Vec<usize>,
    /// The atoms to measure.
    pub(crate) probes: Vec<Probe>,
    /// The configurations to run.
    pub(crate) cases: Vec<Case>,
    /// [`Suite::with_handoff`].
    pub(crate) handoff: bool,
    /// [`Suite::with_cache_reuse`].
    pub(crate) warm: bool,
    /// [`Suite::with_contention`].
    pub(crate) contention: bool,
    /// [`Suite::with_direct`].
    pub(crate) direct: bool,
    /// Atoms whose models are formulas over the measured ones
    /// ([`Suite::derived`]).
    pub(crate) derived: Vec<(String, String)>,
    /// Written after an atom's inputs are built, so that they are as cold
    /// as [`Settings::cold_bytes`] asks (cheaper than building that many
    /// bytes of further inputs).
    pub(crate) scratch: Mutex<Vec<u8>>,
    /// Elements per timing of an element atom, by atom and size, fixed at
    /// the first timing ([`Settings::atom_stream`]).
    pub(crate) stream_lengths: Mutex<BTreeMap<(String, usize), usize>>,
    /// The spread of single calls, by atom and size ([`Suite::call_spread`]).
    pub(crate) call_spreads: Mutex<CallSpreads>,
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
            direct: false,
            derived: Vec::new(),
            scratch: Mutex::new(Vec::new()),
            stream_lengths: Mutex::new(BTreeMap::new()),
            call_spreads: Mutex::new(BTreeMap::new()),
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
    /// [`Harness`] (warm-up, repetitions) and the sizes to measure at, and
    /// chooses its own inputs; its model is fitted like the others. Like an
    /// element atom it is timed right before and right after every run, at
    /// the run's size.
    pub fn probe(
        mut self,
        name: &str,
        measure: impl Fn(&Harness, &[usize]) -> Measurement + Send + Sync + 'static,
    ) -> Self {
        self.probes
            .push(Probe::Custom(name.to_string(), Box::new(measure)));
        self
    }

    /// An atom measured by no probe of its own: its model is `formula`
    /// with every measured atom's name replaced by that atom's model (the
    /// formula may use the variables of the place the atom stands, such as
    /// a shuffle's `o`, `m` and `n`).
    pub fn derived(mut self, name: &str, formula: &str) -> Self {
        self.derived.push((name.to_string(), formula.to_string()));
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

    /// Keeps only the configurations whose structure contains `text`
    /// (all of them for `None`).
    pub fn only(mut self, text: Option<&str>) -> Self {
        if let Some(text) = text {
            self.cases.retain(|c| c.structure.contains(text));
        }
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
    /// `NAME_corun` ([`Variant::Corun`](crate::variants::Variant::Corun)), and refine the models with it ([`with_contention`]).
    /// Workers of a pool share the memory system: on the CI machine, `inc`
    /// on cold arrays of 4,096 elements ran 15–30 % slower on each core
    /// while the other core ran it too, though a loop in registers or on
    /// data in its own cache did not slow down at all (1–2 %).
    pub fn with_contention(mut self, on: bool) -> Self {
        self.contention = on;
        self
    }

    /// Also predict every run by a simulation whose atoms run their kernels
    /// (direct execution in the seed's mixed mode,
    /// [`Suite::simulate_direct`]), beside the run (default off).
    pub fn with_direct(mut self, on: bool) -> Self {
        self.direct = on;
        self
    }

    pub(crate) fn inputs(&self, x: usize, n: usize, round: usize) -> Vec<E> {
        (0..n)
            .map(|i| (self.make)(x, (round as u64) << 32 | i as u64))
            .collect()
    }

    pub(crate) fn memory_bound(&self, x: usize, settings: &Settings) -> usize {
        match (self.bytes)(x) {
            0 => usize::MAX,
            b => (settings.max_bytes / b).max(settings.min_elements),
        }
    }

    pub(crate) fn elements_for(&self, design: &Design, x: usize, settings: &Settings) -> usize {
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
}

/// The time of a measured constant atom, ns (0 without one).
pub(crate) fn atom_ns(atom: Option<&Atom>) -> f64 {
    atom.and_then(|a| a.model.eval(&[]).ok()).unwrap_or(0.0)
}

/// The cores of this machine the validation may use.
pub(crate) fn machine_cores() -> usize {
    Cores::of_current_thread().len()
}
