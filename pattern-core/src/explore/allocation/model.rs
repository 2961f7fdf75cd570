//! The time per element of an allocation: the [`TimeModel`] trait and its
//! three built-in semantics.

use super::AllocationError;
use super::space::Space;
use super::steps::StepMeter;
use crate::machine::Machine;
use crate::semantics::MAX_EXACT_COST;
use crate::semantics::QueueingError;
use crate::sim::{SimError, Simulation};
use crate::{CompiledExpr, Design, EvalError};

/// A semantics that gives the time per element of a design at given counts:
/// what an allocation minimizes. The three built-in ones are
/// [`OperatorsTime`], [`QueueingTime`] and [`SimulationTime`]; implement it
/// to plug in your own (a measured table, another simulator).
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::explore::allocation::{Allocator, TimeModel};
///
/// /// Two stages of 60 and 20 ns on pools of `a` and `b` threads, plus a
/// /// made-up 1 ns per thread of contention.
/// struct Contended;
/// impl TimeModel for Contended {
///     type Error = std::convert::Infallible;
///     fn time_per_element(&self, counts: &[(&str, u64)]) -> Result<f64, Self::Error> {
///         let (a, b) = (counts[0].1 as f64, counts[1].1 as f64);
///         Ok((60.0 / a).max(20.0 / b) + (a + b))
///     }
/// }
///
/// let d = Design::parse("s1 = 60; s2 = 20; pipe(tpool[a](s1), tpool[b](s2))")?;
/// let best = Allocator::new(&d, 16).solve_with(&Contended)?;
/// // Balanced stages with few threads: max(10, 10) + 8 = 18; one thread
/// // more or less anywhere costs more (a = 5: 12 + 7, a = 7: 10 + 9).
/// assert_eq!(best.allocation.counts, [("a".to_string(), 6), ("b".to_string(), 2)]);
/// assert_eq!(best.allocation.time_per_element, 18.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait TimeModel {
    /// Why a time could not be given.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The time per element (ns) with the design's symbolic counts bound to
    /// `counts` (every count, in the order of
    /// [`Allocator::counts`](super::Allocator::counts)).
    fn time_per_element(&self, counts: &[(&str, u64)]) -> Result<f64, Self::Error>;

    /// Whether every time this model gives is at least the plain operators'
    /// model at the same counts and point. Only then may the search prune
    /// with the operators' monotone bound; the default, `false`, enumerates
    /// every feasible allocation.
    fn bounded_below_by_operators(&self) -> bool {
        false
    }

    /// The steps of the search's limit ([`Allocator::max_steps`]) that one
    /// evaluation with `threads` threads counts as: at least 1, a step
    /// being about what an evaluation of the plain operators' compiled
    /// model costs. A semantics whose evaluations grow with the threads
    /// says how, so that the limit bounds the search's time whatever the
    /// budget. The default is 1.
    ///
    /// [`Allocator::max_steps`]: super::Allocator::max_steps
    fn steps(&self, threads: u64) -> u64 {
        let _ = threads;
        1
    }
}

/// The plain operators: the design's throughput model
/// ([`Design::model`]), compiled once and evaluated at each allocation.
/// Non-increasing in every task pool's count (`Laws::tpool_monotone`, `pipe`
/// a maximum of its stages), which the search uses to prune.
#[derive(Clone, Debug)]
pub struct OperatorsTime {
    names: Vec<String>,
    point: Vec<f64>,
    compiled: CompiledExpr,
}

impl OperatorsTime {
    /// The model of `design` at the point `at`, with the counts `counts`
    /// left to bind; an error if the model names a variable neither binds.
    pub fn new(design: &Design, counts: &[String], at: &[(&str, f64)]) -> Result<Self, EvalError> {
        let vars: Vec<&str> = counts
            .iter()
            .map(String::as_str)
            .chain(at.iter().map(|(n, _)| *n))
            .collect();
        let compiled = design.model().compile(&vars)?;
        Ok(OperatorsTime {
            names: counts.to_vec(),
            point: at.iter().map(|(_, v)| *v).collect(),
            compiled,
        })
    }

    /// The time at counts given in the order of construction.
    pub(super) fn at_values(&self, counts: &[u64]) -> Result<f64, EvalError> {
        let mut values = Vec::with_capacity(counts.len() + self.point.len());
        values.extend(counts.iter().map(|&c| c as f64));
        values.extend_from_slice(&self.point);
        let t = self.compiled.eval(&values);
        if t.is_finite() {
            Ok(t)
        } else {
            self.compiled.eval_checked(&values)
        }
    }
}

impl TimeModel for OperatorsTime {
    type Error = EvalError;

    fn time_per_element(&self, counts: &[(&str, u64)]) -> Result<f64, EvalError> {
        let values = self
            .names
            .iter()
            .map(|name| {
                counts
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, c)| *c)
                    .ok_or_else(|| EvalError::Unbound {
                        name: name.clone(),
                        bound: counts
                            .iter()
                            .map(|(n, _)| *n)
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
            })
            .collect::<Result<Vec<u64>, EvalError>>()?;
        self.at_values(&values)
    }

    fn bounded_below_by_operators(&self) -> bool {
        true
    }
}

/// Binds the point and the counts, for the semantics that take bindings.
fn bindings<'b>(point: &'b [(String, f64)], counts: &[(&'b str, u64)]) -> Vec<(&'b str, f64)> {
    point
        .iter()
        .map(|(n, v)| (n.as_str(), *v))
        .chain(counts.iter().map(|(n, c)| (*n, *c as f64)))
        .collect()
}

/// The queueing semantics ([`Design::queueing`]): threads beyond the cores,
/// a pool's shared queue and the hand-overs included. Not monotone in the
/// counts beyond the cores, but never below the plain operators on a
/// machine no faster than the models' (an element's time at a station of
/// `n` servers is at least its demand over `n`, and sharing the cores only
/// slows), which the search then uses to prune; a node faster than speed 1
/// may beat the operators, and the search evaluates every allocation.
#[derive(Clone, Debug)]
pub struct QueueingTime<'d> {
    design: &'d Design,
    machine: Machine,
    point: Vec<(String, f64)>,
}

impl<'d> QueueingTime<'d> {
    /// `design` on `machine` at the point `at`.
    pub fn new(design: &'d Design, machine: &Machine, at: &[(&str, f64)]) -> Self {
        QueueingTime {
            design,
            machine: machine.clone(),
            point: at.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        }
    }
}

impl TimeModel for QueueingTime<'_> {
    type Error = QueueingError;

    fn time_per_element(&self, counts: &[(&str, u64)]) -> Result<f64, QueueingError> {
        let at = bindings(&self.point, counts);
        Ok(self.design.queueing(&self.machine, &at)?.time_per_element)
    }

    fn bounded_below_by_operators(&self) -> bool {
        self.machine.groups().iter().all(|g| g.speed <= 1.0)
    }

    /// Exact MVA of `t` threads takes about `t²` station-steps (a pool of
    /// `t` servers, its jobs and the channels' places), a hundred of them
    /// a step; past the exact solver's limit (2·10^7) the approximation,
    /// about as costly; beyond the machine's cores, a few solves.
    fn steps(&self, threads: u64) -> u64 {
        let t = threads as f64 + 1.0;
        let solve = (t * t).min(MAX_EXACT_COST) / QUEUEING_STEPS_PER_STEP;
        // More threads than cores: the slowdowns' root search solves the
        // network a few times.
        let solves = if threads > self.machine.cores() as u64 {
            SOLVES_WHEN_SATURATED
        } else {
            1.0
        };
        1 + (solve * solves) as u64
    }
}

/// The network solves an evaluation counts when the threads exceed the
/// cores (the root search's typical iterations).
const SOLVES_WHEN_SATURATED: f64 = 3.0;

/// MVA's station-steps in a step of the search.
const QUEUEING_STEPS_PER_STEP: f64 = 100.0;

/// The discrete-event simulation of a stream of elements through the design
/// ([`Simulation::new`]) with the counts bound: its steady-state time per
/// element, a run too short for its steady state run again with the
/// elements it needs ([`Simulation::run_steady`]). A finite run's measured slope may fall below the operators'
/// model, so the search enumerates every feasible allocation.
#[derive(Clone, Debug)]
pub struct SimulationTime<'d> {
    design: &'d Design,
    machine: Machine,
    point: Vec<(String, f64)>,
    elements: usize,
    buffer: usize,
}

impl<'d> SimulationTime<'d> {
    /// `design` on `machine` at the point `at`: 1000 elements, buffers of
    /// 4 places unless set.
    pub fn new(design: &'d Design, machine: &Machine, at: &[(&str, f64)]) -> Self {
        SimulationTime {
            design,
            machine: machine.clone(),
            point: at.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            elements: 1000,
            buffer: 4,
        }
    }

    /// The elements of each run ([`Simulation::elements`]).
    pub fn elements(mut self, elements: usize) -> Self {
        self.elements = elements;
        self
    }

    /// The places of each buffer between stages ([`Simulation::buffer`]).
    pub fn buffer(mut self, places: usize) -> Self {
        self.buffer = places;
        self
    }
}

impl TimeModel for SimulationTime<'_> {
    type Error = SimError;

    fn time_per_element(&self, counts: &[(&str, u64)]) -> Result<f64, SimError> {
        let at = bindings(&self.point, counts);
        let run = Simulation::new(self.design, &self.machine)
            .at(&at)
            .elements(self.elements)
            .buffer(self.buffer)
            .run_steady()?;
        Ok(run.time_per_element())
    }

    /// A run's events grow with the threads (the elements a pool's steady
    /// state needs grow with its workers) and with the elements: 4 steps a
    /// thread and one per 8 elements, in proportion to the queueing
    /// semantics' steps (docs/explore.md measures both).
    fn steps(&self, threads: u64) -> u64 {
        1u64.saturating_add(threads.saturating_mul(4))
            .saturating_add(self.elements as u64 / 8)
    }
}

/// A model's time at counts in the space's order, which must be finite;
/// its steps beyond the search's one charged to `meter`.
pub(super) fn model_time<M: TimeModel>(
    model: &M,
    space: &Space,
    counts: &[u64],
    meter: &StepMeter<'_>,
) -> Result<f64, AllocationError> {
    if let Some(threads) = space.threads(counts)? {
        meter.take(model.steps(threads).saturating_sub(1))?;
    }
    let pairs: Vec<(&str, u64)> = space
        .names
        .iter()
        .map(String::as_str)
        .zip(counts.iter().copied())
        .collect();
    let t = model
        .time_per_element(&pairs)
        .map_err(|e| AllocationError::Semantics {
            counts: space.describe(counts),
            source: Box::new(e),
        })?;
    if t.is_finite() {
        Ok(t)
    } else {
        Err(AllocationError::NotFinite {
            counts: space.describe(counts),
            value: t,
        })
    }
}
