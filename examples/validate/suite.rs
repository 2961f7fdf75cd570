//! A suite ([`Suite`]): the atoms to measure and the configurations to run
//! over one element type, and the driver that measures, runs, fits and
//! compares them ([`Suite::run`]; the method is described in the example's
//! top-level documentation).

use crate::atoms::{AtomTimings, fit_atom, merge, scaled};
use crate::compare::CaseRuns;
use crate::error::ValidationError;
use crate::machine_aware::{CallSpreads, Overheads, predict};
use crate::probe::Speed;
use crate::refinements::{
    HANDOFF, SHARED_HANDOFF, corun_name, handed_name, handing_name, pool_handoff_name, pool_sizes,
    refine, waking_name, warm_name, without_handed,
};
#[cfg(doc)]
use crate::refinements::{with_cache_reuse, with_contention, with_handoff, with_pool_handoff};
use crate::report::{Predictions, SuiteReport};
use crate::settings::Settings;
use crate::waking::{Waking, Wakings};
use pattern_core::exec::{Cores, Kernels, Metrics, Warning};
use pattern_core::fit::measure::{Harness, Measurement};
use pattern_core::semantics::Throughput;
use pattern_core::{Atom, Design, Expr, Term};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

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
    /// `NAME_corun`, and refine the models with it ([`with_contention`]).
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
        let mut handed_samples: Vec<BTreeMap<usize, Vec<f64>>> =
            vec![BTreeMap::new(); self.probes.len()];
        let mut handing_samples: Vec<BTreeMap<usize, Vec<f64>>> =
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
        let mut waking_probes = Vec::new();
        for case in &self.cases {
            waking_probes.extend(self.waking_atoms_of(case, cores)?);
        }
        waking_probes.sort_unstable();
        waking_probes.dedup();
        let mut wakings = Wakings::new(self.probes.len());
        let mut shared_samples: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
        let mut beyond_cores = false;
        for case in &self.cases {
            beyond_cores |= self.threads_of(case)? > cores;
        }
        let mut collected: Vec<CaseRuns> = self.cases.iter().map(|_| CaseRuns::default()).collect();
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
            // Size by size, the atoms and every configuration at that size,
            // so that atoms and designs are measured close together in
            // time. The machine's speed drifts by tens of percent between
            // rounds (other guests, memory traffic), so every run is
            // compared with the atoms of its own round and size.
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
                    if let Some(t) = self.time_handoff(x, round, settings, &mut unprobed)? {
                        handoff_samples.entry(x).or_default().push(t);
                        local_handoff = Some(Atom {
                            name: HANDOFF.to_string(),
                            model: Expr::num(t),
                        });
                    }
                }
                // Stages that share a core hand over by blocking.
                let mut shared_handoff = None;
                if self.handoff && beyond_cores {
                    if let Some(t) =
                        self.time_shared_handoff(x, round, cores, settings, &mut unprobed)?
                    {
                        shared_samples.entry(x).or_default().push(t);
                        shared_handoff = Some(Atom {
                            name: HANDOFF.to_string(),
                            model: Expr::num(t),
                        });
                    }
                }
                let mut local_pools = Vec::new();
                for &w in &pools {
                    if let Some(each) = self.time_pool_handoff(w, round, settings, &mut unprobed)? {
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
                for &i in &waking_probes {
                    let on = speed.cores.clone();
                    let (w, factor) = speed.atom(|| {
                        self.measure_waking(self.probes[i].name(), settings, x, round, on.as_ref())
                    });
                    if let Some(w) = w? {
                        let scale = |t: f64| t * factor;
                        let w = Waking {
                            polled: scale(w.polled),
                            cost: scale(w.cost),
                        };
                        wakings.record(i, x, w);
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
                    let handed = if self.warm {
                        self.handed_atoms_of(case)?
                    } else {
                        Vec::new()
                    };
                    let mut timed: Vec<Option<AtomTimings>> = vec![None; self.probes.len()];
                    self.time_atoms(
                        &uses, &contended, &handed, settings, x, &mut timed, &mut speed,
                    )?;
                    let before = self.local_atoms(&timed, &atom_samples, x, settings);
                    let design = self.design(case, &before.0)?;
                    let runs = &mut collected[c];
                    let n = *runs
                        .elements
                        .entry(x)
                        .or_insert_with(|| self.elements_for(&design, x, settings));
                    // The direct simulation beside the run it predicts,
                    // first in every other round (a steady drift of the
                    // machine's speed then favours neither).
                    let overheads = Overheads {
                        take: self.pool_take(case, &local_pools, cores)?,
                        handoff: atom_ns(if self.threads_of(case)? > cores {
                            shared_handoff.as_ref().or(local_handoff.as_ref())
                        } else {
                            local_handoff.as_ref()
                        }),
                        waker: self.waker_of(case, &before.0, x, cores, settings, &wakings)?,
                    };
                    let simulate_direct = |d: &Design| {
                        self.simulate_direct(
                            &self.kernels,
                            d,
                            x,
                            n,
                            round,
                            cores,
                            overheads,
                            settings,
                        )
                    };
                    let direct_first = (self.direct && round % 2 == 1)
                        .then(|| simulate_direct(&design))
                        .flatten();
                    let (metrics, run_warnings, repeated, factor) = self.least_disturbed(
                        &self.kernels,
                        design.term(),
                        x,
                        n,
                        round,
                        settings,
                        &mut speed,
                    )?;
                    self.time_atoms(
                        &uses, &contended, &handed, settings, x, &mut timed, &mut speed,
                    )?;
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
                            if let Some(h) = &t.handed {
                                merge(&mut handed_samples[i], h);
                            }
                            if let Some(h) = &t.handing {
                                merge(&mut handing_samples[i], h);
                            }
                        }
                    }
                    let (local, mut local_variants) =
                        self.local_atoms(&timed, &atom_samples, x, settings);
                    local_variants.extend(local_pools.iter().cloned());
                    // A probe of an atom's co-run variant refines the model
                    // like the element atoms' co-run timings.
                    local_variants.extend(
                        local
                            .iter()
                            .filter(|(name, _)| self.is_corun_probe(name))
                            .map(|(name, model)| Atom {
                                name: name.clone(),
                                model: model.clone(),
                            }),
                    );
                    let design = self.design(case, &local)?;
                    let at = [("x", x as f64)];
                    let predicted = design.model().eval(&at).ok();
                    let refining = self.handoff || self.warm || self.contention;
                    let refined = refining.then(|| {
                        Throughput::new()
                            .expr(&refine(
                                design.term(),
                                local_handoff.as_ref(),
                                &local_variants,
                                cores,
                            ))
                            .eval(&at)
                            .ok()
                    });
                    // On this machine's cores: stages that share a core
                    // hand over at the shared cost.
                    let beyond = self.threads_of(case)? > cores;
                    let case_handoff = match (&shared_handoff, beyond) {
                        (Some(h), true) => Some(h.clone()),
                        _ => local_handoff.clone(),
                    };
                    // Beyond the cores a stage takes its element late, no
                    // longer fresh in the other core's cache.
                    let machine_variants = if beyond {
                        without_handed(&local_variants)
                    } else {
                        local_variants.clone()
                    };
                    let machine_term = if refining {
                        refine(
                            design.term(),
                            case_handoff.as_ref(),
                            &machine_variants,
                            cores,
                        )
                    } else {
                        design.term().clone()
                    };
                    let variation = self.variation_of(&design, x, settings);
                    let (queueing, simulated) = predict(
                        &machine_term,
                        cores,
                        settings,
                        &at,
                        variation,
                        overheads.waker,
                    );
                    let direct = if round % 2 == 1 {
                        direct_first
                    } else if self.direct {
                        simulate_direct(&design)
                    } else {
                        None
                    };
                    // Stated at the reference speed as the run is: the
                    // pair's ratio is kept.
                    let direct = direct.map(|t| t * factor);
                    for w in run_warnings {
                        let w = w.to_string();
                        if !runs.warnings.contains(&w) {
                            runs.warnings.push(w);
                        }
                    }
                    *runs.repeats.entry(x).or_default() += repeated;
                    runs.metrics.entry(x).or_default().push(metrics);
                    runs.factors.entry(x).or_default().push(factor);
                    runs.predicted.entry(x).or_default().push(Predictions {
                        plain: predicted,
                        refined: refined.flatten(),
                        queueing,
                        simulated,
                        direct,
                        variation,
                    });
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
        for (probe, samples) in self.probes.iter().zip(&handed_samples) {
            if !samples.is_empty() {
                variants.push(fit_atom(&handed_name(probe.name()), samples, settings)?);
            }
        }
        for (probe, samples) in self.probes.iter().zip(&handing_samples) {
            if !samples.is_empty() {
                variants.push(fit_atom(&handing_name(probe.name()), samples, settings)?);
            }
        }
        for (probe, samples) in self.probes.iter().zip(wakings.costs()) {
            if !samples.is_empty() {
                variants.push(fit_atom(&waking_name(probe.name()), samples, settings)?);
            }
        }
        if !shared_samples.is_empty() {
            variants.push(fit_atom(SHARED_HANDOFF, &shared_samples, settings)?);
        }
        for (w, samples) in &pool_samples {
            variants.push(fit_atom(&pool_handoff_name(*w), samples, settings)?);
        }
        // Probes of co-run variants refine the reported models too (they
        // are reported among the atoms already).
        let mut refining = variants.clone();
        refining.extend(
            atoms
                .iter()
                .filter(|a| self.is_corun_probe(&a.name))
                .cloned(),
        );
        let mut rows = Vec::with_capacity(self.cases.len());
        for (c, case) in self.cases.iter().enumerate() {
            rows.push(self.row(
                case,
                &atoms,
                &raw_samples,
                handoff.as_ref(),
                &refining,
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
    pub(crate) fn least_disturbed(
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
