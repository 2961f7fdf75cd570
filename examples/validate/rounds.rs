//! The protocol a suite runs ([`Suite::run`]): rounds, and in each round
//! every size in turn; at a size, the costs of threads (the hand-overs,
//! waking a stage) and then every configuration, its atoms timed right
//! before and right after its run. The rounds' timings and runs are
//! collected ([`Collected`]) and, after the last round, fitted and compared
//! ([`Suite::report`]).

use crate::atoms::{AtomTimings, fit_atom, merge, scaled};
use crate::cases::Case;
use crate::compare::{CaseRuns, Fits};
use crate::error::ValidationError;
use crate::machine_aware::{Overheads, predict};
use crate::probe::Speed;
use crate::refinements::{
    HANDOFF, SHARED_HANDOFF, pool_handoff_name, pool_sizes, refine, without_handed,
};
use crate::report::{AtomReport, Predictions, SuiteReport};
use crate::settings::Settings;
use crate::suite::{Probe, Suite, atom_ns, machine_cores};
use crate::variants::Variant;
use crate::waking::{Waking, Wakings};
use pattern_core::exec::{Kernels, Metrics, Warning};
use pattern_core::semantics::Throughput;
use pattern_core::{Atom, Design, Expr, Term};
use std::collections::BTreeMap;
use std::time::Instant;

/// Timings in ns, by size.
pub(crate) type BySize = BTreeMap<usize, Vec<f64>>;

/// What a suite decides once, before its rounds, from its configurations.
struct Plan {
    /// The cores of this machine the validation uses.
    cores: usize,
    /// The pool sizes whose hand-over is timed.
    pools: Vec<usize>,
    /// The probes whose cost of waking the next stage is timed.
    waking: Vec<usize>,
    /// Whether some configuration has more threads than cores (its stages
    /// hand over by blocking).
    beyond_cores: bool,
    /// Element atoms no configuration uses, measured all the same.
    unused: Vec<usize>,
}

/// What the rounds collect, for the fits and the comparisons.
pub(crate) struct Collected {
    /// Each probe's timings, at the reference speed.
    cold: Vec<BySize>,
    /// The same timings as measured, before the speed factor.
    raw: Vec<BySize>,
    /// Each probe's variants timed around the runs (warm, co-run, handed,
    /// handing), at the reference speed.
    variants: BTreeMap<Variant, Vec<BySize>>,
    /// The hand-over between pipeline stages on cores of their own.
    handoff: BySize,
    /// The hand-over between stages that share a core.
    shared: BySize,
    /// A pool's hand-over, by its busy workers.
    pools: BTreeMap<usize, BySize>,
    /// What waking the next stage costs each probe.
    wakings: Wakings,
    /// Each configuration's runs.
    cases: Vec<CaseRuns>,
}

impl Collected {
    fn new(probes: usize, cases: usize) -> Collected {
        let none = || vec![BySize::new(); probes];
        Collected {
            cold: none(),
            raw: none(),
            // What waking costs is timed apart, before the runs (wakings).
            variants: (Variant::ALL.into_iter())
                .filter(|&v| v != Variant::Waking)
                .map(|v| (v, none()))
                .collect(),
            handoff: BySize::new(),
            shared: BySize::new(),
            pools: BTreeMap::new(),
            wakings: Wakings::new(probes),
            cases: (0..cases).map(|_| CaseRuns::default()).collect(),
        }
    }

    /// Adds the timings of probe `i` around one run.
    fn add(&mut self, i: usize, t: &AtomTimings) {
        merge(&mut self.cold[i], &t.cold);
        merge(&mut self.raw[i], &t.cold_raw);
        for (variant, m) in &t.variants {
            if let Some(samples) = self.variants.get_mut(variant) {
                merge(&mut samples[i], m);
            }
        }
    }
}

/// One size of one round: the costs of threads measured there, which every
/// configuration run there is predicted with.
struct Round {
    /// The round, from 0.
    index: usize,
    /// The size.
    x: usize,
    /// The hand-over between pipeline stages on cores of their own.
    handoff: Option<Atom>,
    /// The hand-over between pipeline stages that share a core.
    shared_handoff: Option<Atom>,
    /// The pools' hand-overs ([`pool_handoff_name`]).
    pools: Vec<Atom>,
}

impl Round {
    /// The hand-over between the stages of a design with `threads` threads
    /// on `cores` cores: the shared one beyond the cores.
    fn handoff_for(&self, threads: usize, cores: usize) -> Option<&Atom> {
        match (&self.shared_handoff, threads > cores) {
            (Some(h), true) => Some(h),
            _ => self.handoff.as_ref(),
        }
    }
}

/// Where a configuration runs: the round and size, the suite's plan and
/// its settings.
struct At<'r> {
    round: &'r Round,
    plan: &'r Plan,
    settings: &'r Settings,
}

/// The speeds a suite's timings are stated at: probed for the atoms and
/// runs, unprobed for the costs of threads (not of memory: timed as is).
struct Speeds {
    probed: Speed,
    unprobed: Speed,
}

/// An atom of constant time `ns`.
fn constant(name: String, ns: f64) -> Atom {
    Atom {
        name,
        model: Expr::num(ns),
        bytes: None,
    }
}

impl<E: Send + 'static> Suite<E> {
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
        let mut speeds = Speeds {
            probed: Speed::new(settings),
            unprobed: Speed::unprobed(settings),
        };
        let plan = self.plan()?;
        let mut collected = Collected::new(self.probes.len(), self.cases.len());
        for index in 0..rounds {
            log(&format!("{}: round {} of {rounds}", self.name, index + 1));
            // Size by size, the atoms and every configuration at that size,
            // so that atoms and designs are measured close together in
            // time. The machine's speed drifts between rounds (other
            // guests, memory traffic), so every run is compared with the
            // atoms of its own round and size.
            for &x in &self.sizes {
                let round =
                    self.costs_of_threads(index, x, &plan, settings, &mut speeds, &mut collected)?;
                let at = At {
                    round: &round,
                    plan: &plan,
                    settings,
                };
                for (c, case) in self.cases.iter().enumerate() {
                    self.run_case(c, case, &at, &mut speeds.probed, &mut collected)?;
                }
            }
        }
        self.report(collected, settings, started)
    }

    /// What the configurations ask to be measured besides their atoms.
    fn plan(&self) -> Result<Plan, ValidationError> {
        let cores = machine_cores();
        let mut pools = Vec::new();
        if self.handoff {
            for case in &self.cases {
                pool_sizes(self.shape(case)?.term(), cores, &mut pools);
            }
            pools.sort_unstable();
            pools.dedup();
        }
        let mut waking = Vec::new();
        let mut beyond_cores = false;
        let mut used = vec![false; self.probes.len()];
        for case in &self.cases {
            waking.extend(self.waking_atoms_of(case, cores)?);
            beyond_cores |= self.threads_of(case)? > cores;
            for i in self.atoms_of(case)? {
                used[i] = true;
            }
        }
        waking.sort_unstable();
        waking.dedup();
        let unused = (0..self.probes.len())
            .filter(|&i| !used[i] && matches!(self.probes[i], Probe::Element(_)))
            .collect();
        Ok(Plan {
            cores,
            pools,
            waking,
            beyond_cores,
            unused,
        })
    }

    /// At size `x` of round `index`: the atoms no configuration uses, the
    /// hand-overs and what waking a stage costs, collected; the hand-overs
    /// returned for the configurations' predictions.
    fn costs_of_threads(
        &self,
        index: usize,
        x: usize,
        plan: &Plan,
        settings: &Settings,
        speeds: &mut Speeds,
        collected: &mut Collected,
    ) -> Result<Round, ValidationError> {
        let speed = &mut speeds.probed;
        for &i in &plan.unused {
            let (raw, factor) = speed.atom(|| self.measure_probe(&self.probes[i], settings, &[x]));
            let raw = raw?;
            merge(&mut collected.cold[i], &scaled(&raw, factor));
            merge(&mut collected.raw[i], &raw);
        }
        let mut round = Round {
            index,
            x,
            handoff: None,
            shared_handoff: None,
            pools: Vec::new(),
        };
        let unprobed = &mut speeds.unprobed;
        if self.handoff
            && let Some(t) = self.time_handoff(x, index, settings, unprobed)?
        {
            collected.handoff.entry(x).or_default().push(t);
            round.handoff = Some(constant(HANDOFF.to_string(), t));
        }
        // Stages that share a core hand over by blocking.
        if self.handoff
            && plan.beyond_cores
            && let Some(t) = self.time_shared_handoff(x, index, plan.cores, settings, unprobed)?
        {
            collected.shared.entry(x).or_default().push(t);
            round.shared_handoff = Some(constant(HANDOFF.to_string(), t));
        }
        for &w in &plan.pools {
            if let Some(each) = self.time_pool_handoff(w, index, settings, unprobed)? {
                let samples = collected.pools.entry(w).or_default();
                samples.entry(x).or_default().push(each);
                round.pools.push(constant(pool_handoff_name(w), each));
            }
        }
        for &i in &plan.waking {
            let on = speed.cores.clone();
            let (w, factor) = speed.atom(|| {
                self.measure_waking(self.probes[i].name(), settings, x, index, on.as_ref())
            });
            if let Some(w) = w? {
                let w = Waking {
                    polled: w.polled * factor,
                    cost: w.cost * factor,
                };
                collected.wakings.record(i, x, w);
            }
        }
        Ok(round)
    }

    /// Configuration `c` at the round's size: its element atoms timed right
    /// before and right after its run, and the run compared with them (the
    /// machine's speed changes from one second to the next, more than the
    /// operators' errors); the run, the timings and the predictions
    /// collected.
    fn run_case(
        &self,
        c: usize,
        case: &Case,
        at: &At,
        speed: &mut Speed,
        collected: &mut Collected,
    ) -> Result<(), ValidationError> {
        let (round, plan, settings) = (at.round, at.plan, at.settings);
        let x = round.x;
        let timing = self.timing_of(case, plan.cores)?;
        let mut timed: Vec<Option<AtomTimings>> = vec![None; self.probes.len()];
        self.time_atoms(&timing, settings, x, &mut timed, speed)?;
        let (before, _) = self.local_atoms(&timed, &collected.cold, x, settings);
        let design = self.design(case, &before)?;
        let n = *collected.cases[c]
            .elements
            .entry(x)
            .or_insert_with(|| self.elements_for(&design, x, settings));
        let threads = self.threads_of(case)?;
        let overheads = Overheads {
            take: self.pool_take(case, &round.pools, plan.cores)?,
            handoff: atom_ns(round.handoff_for(threads, plan.cores)),
            waker: self.waker_of(case, &before, x, plan.cores, settings, &collected.wakings)?,
        };
        let simulate_direct = |d: &Design| {
            (self.direct)
                .then(|| {
                    let (kernels, round) = (&self.kernels, round.index);
                    self.simulate_direct(kernels, d, x, n, round, plan.cores, overheads, settings)
                })
                .flatten()
        };
        // The direct simulation beside the run it predicts, first in every
        // other round (a steady drift of the machine's speed then favours
        // neither).
        let odd = round.index % 2 == 1;
        let direct_first = if odd { simulate_direct(&design) } else { None };
        let run = self.least_disturbed(
            &self.kernels,
            design.term(),
            x,
            n,
            round.index,
            settings,
            speed,
        )?;
        self.time_atoms(&timing, settings, x, &mut timed, speed)?;
        for (i, t) in timed.iter().enumerate() {
            if let Some(t) = t {
                collected.add(i, t);
            }
        }
        let (local, variants) = self.local_atoms(&timed, &collected.cold, x, settings);
        let design = self.design(case, &local)?;
        let mut predicted =
            self.predictions(&design, &local, variants, at, overheads.waker, threads);
        let direct = if odd {
            direct_first
        } else {
            simulate_direct(&design)
        };
        // Stated at the reference speed as the run is: the pair's ratio is
        // kept.
        predicted.direct = direct.map(|t| t * run.factor);
        collected.cases[c].add(x, run, predicted);
        Ok(())
    }

    /// The predictions of `design` at the round's size, from its atoms as
    /// timed around the run (`local`, `variants`) and the round's
    /// hand-overs: the plain operators, the refined design, and the
    /// machine-aware ones (the direct simulation apart).
    fn predictions(
        &self,
        design: &Design,
        local: &[(String, Expr)],
        mut variants: Vec<Atom>,
        at: &At,
        waker: Option<f64>,
        threads: usize,
    ) -> Predictions {
        let (round, plan, settings) = (at.round, at.plan, at.settings);
        variants.extend(round.pools.iter().cloned());
        // A probe of an atom's co-run variant refines the model like the
        // element atoms' co-run timings.
        variants.extend(
            (local.iter())
                .filter(|(name, _)| self.is_corun_probe(name))
                .map(|(name, model)| constant_model(name, model)),
        );
        let bindings = [("x", round.x as f64)];
        let refining = self.handoff || self.warm || self.contention;
        let refined = refining
            .then(|| {
                let term = refine(design.term(), round.handoff.as_ref(), &variants, plan.cores);
                Throughput::new().expr(&term).eval(&bindings).ok()
            })
            .flatten();
        // On this machine's cores: stages that share a core hand over at the
        // shared cost, and take their element late, no longer fresh in the
        // other core's cache.
        let beyond = threads > plan.cores;
        let machine_variants = if beyond {
            without_handed(&variants)
        } else {
            variants
        };
        let machine_term: Term = if refining {
            let handoff = round.handoff_for(threads, plan.cores);
            refine(design.term(), handoff, &machine_variants, plan.cores)
        } else {
            design.term().clone()
        };
        let variation = self.variation_of(design, round.x, settings);
        let (queueing, simulated) = predict(
            &machine_term,
            plan.cores,
            settings,
            &bindings,
            variation,
            waker,
        );
        Predictions {
            plain: design.model().eval(&bindings).ok(),
            refined,
            queueing,
            simulated,
            direct: None,
            variation,
        }
    }

    /// Fits the atoms, their variants and the hand-overs from what the
    /// rounds collected, and compares every configuration's runs with the
    /// models composed from them.
    fn report(
        &self,
        mut collected: Collected,
        settings: &Settings,
        started: Instant,
    ) -> Result<SuiteReport, ValidationError> {
        let mut atoms = self.fit_atoms(&collected.cold, settings)?;
        for (atom, raw) in atoms.iter_mut().zip(&collected.raw) {
            for s in &mut atom.samples {
                s.raw_times_ns = raw.get(&s.x).cloned().unwrap_or_default();
            }
        }
        let handoff = if self.handoff {
            Some(fit_atom(HANDOFF, &collected.handoff, settings)?)
        } else {
            None
        };
        let variants = self.fit_variants(&collected, settings)?;
        // Probes of co-run variants refine the reported models too (they
        // are reported among the atoms already).
        let mut refining = variants.clone();
        refining.extend(
            atoms
                .iter()
                .filter(|a| self.is_corun_probe(&a.name))
                .cloned(),
        );
        let fits = Fits {
            atoms: &atoms,
            raw: &collected.raw,
            handoff: handoff.as_ref(),
            variants: &refining,
        };
        let mut rows = Vec::with_capacity(self.cases.len());
        for (case, runs) in self.cases.iter().zip(&mut collected.cases) {
            rows.push(self.row(case, &fits, std::mem::take(runs), settings)?);
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

    /// The variants fitted, in the report's order: each kind of variant
    /// for every probe that has one, then the shared and the pools'
    /// hand-overs.
    fn fit_variants(
        &self,
        collected: &Collected,
        settings: &Settings,
    ) -> Result<Vec<AtomReport>, ValidationError> {
        let mut variants = Vec::new();
        for variant in Variant::ALL {
            let samples = match variant {
                Variant::Waking => collected.wakings.costs(),
                other => collected.variants[&other].as_slice(),
            };
            for (probe, samples) in self.probes.iter().zip(samples) {
                if !samples.is_empty() {
                    let name = variant.name(probe.name());
                    variants.push(fit_atom(&name, samples, settings)?);
                }
            }
        }
        if !collected.shared.is_empty() {
            variants.push(fit_atom(SHARED_HANDOFF, &collected.shared, settings)?);
        }
        for (w, samples) in &collected.pools {
            variants.push(fit_atom(&pool_handoff_name(*w), samples, settings)?);
        }
        Ok(variants)
    }

    /// Runs `term` at `x` on `n` fresh elements between two readings of
    /// the speed probe; a run disturbed by other load
    /// ([`Settings::max_wait_share`]) or by a change of the machine's speed
    /// ([`Settings::max_speed_change`]) is repeated up to
    /// [`Settings::retries`] times and the least disturbed attempt kept.
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
    ) -> Result<Run, ValidationError> {
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
        Ok(Run {
            metrics: run.metrics,
            warnings: run.warnings,
            repeated,
            factor,
        })
    }
}

/// The atom `name` of model `model`.
fn constant_model(name: &str, model: &Expr) -> Atom {
    Atom {
        name: name.to_string(),
        model: model.clone(),
        bytes: None,
    }
}

/// A configuration's run, the least disturbed of its attempts
/// ([`Suite::least_disturbed`]).
pub(crate) struct Run {
    /// Its metrics.
    pub(crate) metrics: Metrics,
    /// The executor's warnings.
    pub(crate) warnings: Vec<Warning>,
    /// The attempts repeated for it.
    pub(crate) repeated: usize,
    /// Its speed factor ([`SpeedProbe::factor`](crate::probe::SpeedProbe::factor)).
    pub(crate) factor: f64,
}
