//! Allocation: the integer counts of a design (threads per pool, a
//! mapReduce's `m` and `n`, processor groups) that minimize its time per
//! element under a thread budget, exactly, for any semantics.
//!
//! An [`Allocator`] takes a design with symbolic counts, the point (the
//! models' variables such as `x`), the budget (the design's own threads,
//! [`Design::resources`], at most the budget, and at most the cores if
//! given) and each count's range (`1..=budget` unless set). Its semantics is
//! the plain operators ([`OperatorsTime`], the default), the queueing model
//! ([`QueueingTime`]), the simulator ([`SimulationTime`]), or any
//! [`TimeModel`] of your own.
//!
//! **Exact.** [`Allocator::solve`] returns the true optimum; ties go to the
//! fewest threads, then to the smallest counts in the design's order, and
//! times within 1e-9 (relative) of the optimum tie with
//! it, so that a model's rounding never buys threads. The
//! plain operators' model is non-increasing in every task pool's count
//! (`Laws::tpool_monotone`; `pipe` is a maximum and `seq` a sum of their
//! parts, both monotone), which bounds every branch of a depth-first search
//! (see the `search` module's notes); a count the model is not provably
//! monotone in (a mapReduce's, a group's, a count an atom's model names, a
//! pool around a body with a negative time) is enumerated over its whole
//! range. Queueing is not monotone beyond the cores, but never below the
//! operators on a machine no faster than the models' (each station of `n`
//! servers takes at least its demand over `n`, and sharing the cores only
//! slows): it is then pruned by the operators' bound, with a relative slack
//! of 1e-9 for rounding; its machine's nodes cap a mapReduce's. The simulation, and
//! a model of your own unless it says it is bounded below by the operators
//! ([`TimeModel::bounded_below_by_operators`]), is evaluated at every
//! feasible allocation; only the thread cap prunes. [`Solution`] says how
//! many points were evaluated.
//!
//! **Over sizes.** [`Allocator::over_sizes`] gives the best allocation at
//! each size of a grid, the intervals of sizes over which one allocation
//! stays optimal (their ends found by bisection to the tolerance) and the
//! robust allocation: the one whose worst relative loss over the grid is
//! smallest.
//!
//! **Greedy rules.** [`pipebalance`] and [`maxresources`] are RPL-shell's
//! rules on the same inputs, and [`greedy_gap`] how far each is from the
//! optimum. Both apply to a pipeline (a single stage counts as one) whose
//! stages are either sequential (no symbolic count: an atom, a `seq`, a pool
//! of fixed size) or `tpool[c](body)` with a count `c` of their own and a
//! body without symbolic counts. A pool stage's worker time `T_w` is its
//! body's time under the plain operators at the allocator's point.
//!
//! - **pipebalance**: each pool gets `nw = ceil(T_w / ts_max)` workers
//!   (within its range), `ts_max` the time of the slowest sequential stage,
//!   so that no pool is slower than it. The rule does not look at the
//!   budget: under the plain operators its time is `ts_max`, optimal
//!   whenever it fits, but it may exceed the budget, and it leaves spare
//!   threads unused. With no sequential stage (a pipeline of pools only),
//!   `ts_max` is the fastest pool's one-worker time: the fastest stage gets
//!   one worker and the others as many as balance them to it.
//! - **maxresources**: from pipebalance's counts, take a worker from the
//!   fastest pool (the smallest `T_w / nw`, the first on ties) until the
//!   threads fit the budget.
//!
//! RPL-shell's third rule, farmopt, is left out: it sizes a farm by its
//! emitter's and collector's service times, which a design here does not
//! have.
//!
//! ```
//! use pattern_core::Design;
//! use pattern_core::explore::allocation::Allocator;
//!
//! let d = Design::parse("s1 = 2*x; s2 = x; pipe(tpool[a](s1), tpool[b](s2))")?;
//! let best = Allocator::new(&d, 8).at(&[("x", 1000.0)]).solve()?;
//! // max(2000/a, 1000/b) with a + b <= 8: a = 5, b = 3 gives max(400, 333).
//! assert_eq!(best.allocation.count("a"), Some(5));
//! assert_eq!(best.allocation.count("b"), Some(3));
//! assert_eq!(best.allocation.time_per_element, 400.0);
//! assert_eq!(best.allocation.threads, 8);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod evaluation;
mod greedy;
mod model;
mod search;
mod sizes;
mod space;
mod steps;

pub use greedy::{GreedyGap, GreedyRule, greedy_gap, maxresources, pipebalance};
pub use model::{OperatorsTime, QueueingTime, SimulationTime, TimeModel};
pub use sizes::{Robust, SizeInterval, SizePlan};

use crate::grammar::MAX_COUNT;
use crate::machine::Machine;
use crate::{Design, EvalError};
use evaluation::{BOUND_SLACK, Memo, allocation, operators_time, solution, values_of};
use model::model_time;
use search::{Pruning, search_with_ties};
use space::Space;
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use steps::StepMeter;

/// Why no allocation could be given.
#[derive(Debug, thiserror::Error)]
pub enum AllocationError {
    /// The design has no count to choose.
    #[error(
        "the design has no symbolic count to choose: name one, as in `tpool[a](..)` or `mapreduce[m, n, ..]`"
    )]
    NoSymbolicCount,
    /// A range or a point names a count the design does not have.
    #[error("`{name}` is not a symbolic count of the design (its counts: {counts})")]
    UnknownCount {
        /// The name given.
        name: String,
        /// The design's counts.
        counts: String,
    },
    /// A count's range holds no positive integer up to 2^53.
    #[error("the range {from}..={to} of `{name}` is empty: a count is an integer from 1 to 2^53")]
    EmptyRange {
        /// The count.
        name: String,
        /// The range's start.
        from: u64,
        /// The range's end.
        to: u64,
    },
    /// Even the smallest counts need more threads than allowed.
    #[error(
        "no allocation fits {budget} threads: the design needs {minimum} with every count at its smallest"
    )]
    BudgetTooSmall {
        /// The budget (or the cores, if fewer).
        budget: u64,
        /// The threads at the smallest counts.
        minimum: u64,
    },
    /// Even the smallest counts need more nodes than allowed
    /// ([`Allocator::nodes`], or the simulation's machine).
    #[error(
        "no allocation fits {nodes} nodes: the design needs {minimum} with every count at its smallest"
    )]
    TooFewNodes {
        /// The nodes allowed.
        nodes: u64,
        /// The nodes at the smallest counts.
        minimum: u64,
    },
    /// Even the smallest counts put more threads on a node than it has
    /// cores, where the operators assume a core per thread.
    #[error(
        "no allocation fits the machine: the design puts {threads} threads on a node of {cores} cores with every count at its smallest, and the plain operators assume a core per thread (price threads beyond the cores with the queueing or simulated semantics)"
    )]
    NodeTooSmall {
        /// The threads on a node at the smallest counts.
        threads: f64,
        /// The node's cores.
        cores: f64,
    },
    /// The point binds a count being chosen.
    #[error("`{name}` is a count being chosen: leave it out of the point")]
    CountInPoint {
        /// The count.
        name: String,
    },
    /// A model cannot be evaluated (an unbound variable, no value).
    #[error("{what} cannot be evaluated: {source}")]
    Model {
        /// Which model.
        what: String,
        /// Why.
        source: EvalError,
    },
    /// The semantics gave no finite time.
    #[error("the time per element at {counts} is {value}, not a finite number")]
    NotFinite {
        /// The allocation.
        counts: String,
        /// The time.
        value: f64,
    },
    /// The semantics failed.
    #[error("the semantics failed at {counts}: {source}")]
    Semantics {
        /// The allocation.
        counts: String,
        /// Why.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The search took more steps than allowed.
    #[error(
        "the search stopped after {limit} steps (the step limit): narrow the counts' ranges or raise the limit"
    )]
    TooManySteps {
        /// The limit.
        limit: u64,
    },
    /// The sizes of a sweep are not a non-empty increasing list of finite
    /// numbers, or the tolerance is not positive.
    #[error("{0}")]
    Sizes(String),
    /// The greedy rules need a pipeline of sequential stages and pools.
    #[error(
        "the greedy rules need a pipeline whose stages are sequential or `tpool[c](..)` with a count of their own: {0}"
    )]
    NotAPipelineOfPools(String),
}

/// An allocation: a value for each count, its threads and its time.
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    /// Each count's value, in the order of the design.
    pub counts: Vec<(String, u64)>,
    /// The design's threads at these counts.
    pub threads: u64,
    /// The time per element (ns) under the semantics searched.
    pub time_per_element: f64,
}

impl Allocation {
    /// The value of the count `name`.
    pub fn count(&self, name: &str) -> Option<u64> {
        self.counts.iter().find(|(n, _)| n == name).map(|(_, c)| *c)
    }

    /// The counts as bindings, to evaluate a model or bind a simulation.
    pub fn bindings(&self) -> Vec<(&str, f64)> {
        self.counts
            .iter()
            .map(|(n, c)| (n.as_str(), *c as f64))
            .collect()
    }
}

/// The optimum and the work it took.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// The best allocation.
    pub allocation: Allocation,
    /// Calls of the semantics: each allocation once for a costly one (the
    /// queueing model, the simulator, a model of your own), every call for
    /// the plain operators (cheaper to evaluate again than to remember).
    pub evaluations: u64,
    /// Calls of the operators' bound for a semantics pruned by it.
    pub bound_evaluations: u64,
}

/// The simulator's settings for [`Pricing::Simulation`].
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationSettings {
    /// The machine simulated.
    pub machine: Machine,
    /// The elements of each run.
    pub elements: usize,
}

/// The semantics that prices an allocation: what an [`Allocator`]
/// minimizes, and how a ranking times its candidates.
#[derive(Clone, Debug, PartialEq)]
pub enum Pricing {
    /// The plain operators ([`OperatorsTime`]).
    Operators,
    /// The queueing semantics on a machine ([`QueueingTime`]).
    Queueing(Machine),
    /// The simulator on a machine ([`SimulationTime`]).
    Simulation(SimulationSettings),
}

impl Pricing {
    /// The simulation of `elements` elements on `machine`.
    pub fn simulation(machine: &Machine, elements: usize) -> Pricing {
        Pricing::Simulation(SimulationSettings {
            machine: machine.clone(),
            elements,
        })
    }

    /// Its name in reports: `operators`, `queueing` or `simulation`.
    pub fn name(&self) -> &'static str {
        match self {
            Pricing::Operators => "operators",
            Pricing::Queueing(_) => "queueing",
            Pricing::Simulation(_) => "simulation",
        }
    }

    /// The machine it prices on, if any.
    pub fn machine(&self) -> Option<&Machine> {
        match self {
            Pricing::Operators => None,
            Pricing::Queueing(m) => Some(m),
            Pricing::Simulation(s) => Some(&s.machine),
        }
    }

    /// The time per element of `design` with every variable and count
    /// bound by `at`.
    pub fn time_per_element(
        &self,
        design: &Design,
        at: &[(&str, f64)],
    ) -> Result<f64, Box<dyn std::error::Error + Send + Sync>> {
        Ok(match self {
            Pricing::Operators => design.model().eval(at)?,
            Pricing::Queueing(m) => design.queueing(m, at)?.time_per_element,
            Pricing::Simulation(s) => crate::sim::Simulation::new(design, &s.machine)
                .at(at)
                .elements(s.elements)
                .run_steady()?
                .time_per_element(),
        })
    }
}

/// The search for the best counts of a design: what to minimize, where and
/// under which constraints. See the [module overview](self).
#[derive(Clone, Debug)]
pub struct Allocator<'d> {
    design: &'d Design,
    budget: u64,
    cores: Option<u64>,
    nodes: Option<u64>,
    ranges: Vec<(String, u64, u64)>,
    at: Vec<(String, f64)>,
    choice: Pricing,
    machine: Option<Machine>,
    max_steps: u64,
    step_counter: Option<Arc<AtomicU64>>,
    tolerance: f64,
}

/// The steps a call takes at most unless set: seconds under every
/// semantics (docs/explore.md measures them: a budget of 10^6 threads over
/// three pools takes under 10^7 steps of the plain operators; a search
/// under queueing or simulation reaches the limit in about 5 s).
pub const DEFAULT_MAX_STEPS: u64 = 20_000_000;

impl<'d> Allocator<'d> {
    /// The allocations of `design` within `budget` threads, under the plain
    /// operators, no variable bound, every count in `1..=budget`.
    pub fn new(design: &'d Design, budget: u64) -> Self {
        Allocator {
            design,
            budget,
            cores: None,
            nodes: None,
            ranges: Vec::new(),
            at: Vec::new(),
            choice: Pricing::Operators,
            machine: None,
            max_steps: DEFAULT_MAX_STEPS,
            step_counter: None,
            tolerance: 1e-6,
        }
    }

    /// The point: values of the models' variables (`x`, ...), not of the
    /// counts.
    pub fn at(mut self, point: &[(&str, f64)]) -> Self {
        self.at = point.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        self
    }

    /// At most `cores` threads as well.
    pub fn cores(mut self, cores: u64) -> Self {
        self.cores = Some(cores);
        self
    }

    /// At most `nodes` nodes ([`Design::resources`]: a mapReduce's `m`).
    /// Under queueing and the simulation, the machine's nodes cap them as
    /// well: a mapReduce of more maps than nodes cannot be placed.
    pub fn nodes(mut self, nodes: u64) -> Self {
        self.nodes = Some(nodes);
        self
    }

    /// The machine the plain operators' allocations must fit: no more nodes
    /// than it has, and a core for every thread on each node (the
    /// operators' assumption). The queueing and simulated semantics take
    /// their machine with [`Allocator::queueing`] and
    /// [`Allocator::simulation`], and price threads beyond a node's cores.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::explore::allocation::Allocator;
    /// use pattern_core::machine::Machine;
    ///
    /// let d = Design::parse("map = 3*x; mapreduce[m = m, n = n, d = x, k = 8](map, map, map)")?;
    /// let eight_by_eight = Machine::new(8, 8);
    /// let best = Allocator::new(&d, 64).machine(&eight_by_eight).at(&[("x", 1e6)]).solve()?;
    /// // 64 workers, at most 8 on a node of 8 cores: 8 nodes of 8.
    /// assert_eq!(best.allocation.counts, [("m".to_string(), 8), ("n".to_string(), 8)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn machine(mut self, machine: &Machine) -> Self {
        self.machine = Some(machine.clone());
        self
    }

    /// The values the count `name` may take.
    pub fn range(mut self, name: &str, range: RangeInclusive<u64>) -> Self {
        self.ranges
            .push((name.to_string(), *range.start(), *range.end()));
        self
    }

    /// Minimize the plain operators' model (the default).
    pub fn operators(mut self) -> Self {
        self.choice = Pricing::Operators;
        self
    }

    /// Minimize the queueing model on `machine` ([`QueueingTime`]).
    pub fn queueing(mut self, machine: &Machine) -> Self {
        self.choice = Pricing::Queueing(machine.clone());
        self
    }

    /// Minimize the simulated time per element on `machine`, each run of
    /// `elements` elements ([`SimulationTime`]).
    pub fn simulation(mut self, machine: &Machine, elements: usize) -> Self {
        self.choice = Pricing::simulation(machine, elements);
        self
    }

    /// Minimize what `pricing` gives.
    pub fn pricing(mut self, pricing: Pricing) -> Self {
        self.choice = pricing;
        self
    }

    /// Stop with [`AllocationError::TooManySteps`] after `steps` steps of
    /// one search ([`Allocator::solve`] runs two: the optimum, then the
    /// fewest threads among its ties; [`Allocator::over_sizes`] one per
    /// size); [`DEFAULT_MAX_STEPS`] unless set. A step is a
    /// branch or an evaluation of the search, about a microsecond; an
    /// evaluation that costs more (a network solve, a simulation) counts
    /// as many steps as it costs ([`TimeModel::steps`]), so that the limit
    /// bounds the time under every semantics.
    pub fn max_steps(mut self, steps: u64) -> Self {
        self.max_steps = steps;
        self
    }

    /// Adds the search's steps to `counter` as it goes (a few thousand at
    /// a time, and the rest when the call returns), so that another thread
    /// can show its progress toward [`Allocator::max_steps`].
    pub fn count_steps(mut self, counter: Arc<AtomicU64>) -> Self {
        self.step_counter = Some(counter);
        self
    }

    /// The step meter of one call (restarted by each search).
    fn meter(&self) -> StepMeter<'_> {
        StepMeter::new(self.max_steps, self.step_counter.as_deref())
    }

    /// The relative tolerance of the sizes at which the best allocation
    /// changes ([`Allocator::over_sizes`]); 1e-6 unless set.
    pub fn tolerance(mut self, relative: f64) -> Self {
        self.tolerance = relative;
        self
    }

    /// The most threads allowed: the budget, or the cores if fewer.
    fn cap(&self) -> u64 {
        self.budget
            .min(self.cores.unwrap_or(u64::MAX))
            .min(MAX_COUNT)
    }

    fn point(&self) -> Vec<(&str, f64)> {
        self.at.iter().map(|(n, v)| (n.as_str(), *v)).collect()
    }

    /// The machine the chosen semantics prices the design on, if any.
    fn on(&self) -> Option<&Machine> {
        match &self.choice {
            Pricing::Operators => self.machine.as_ref(),
            Pricing::Queueing(m) => Some(m),
            Pricing::Simulation(s) => Some(&s.machine),
        }
    }

    /// The most nodes allowed: as set, and the machine's.
    fn node_cap(&self) -> Option<u64> {
        let machine = self.on().map(|m| m.nodes() as u64);
        match (self.nodes, machine) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn space(&self, at: &[(&str, f64)]) -> Result<Space, AllocationError> {
        // Only the operators need a core per thread.
        let per_node = match (&self.choice, &self.machine) {
            (Pricing::Operators, Some(m)) => Some(space::node_groups(m)),
            _ => None,
        };
        Space::new(
            self.design,
            &self.ranges,
            self.cap(),
            self.node_cap(),
            per_node,
            at,
        )
    }

    /// The design's symbolic counts, in the order of the design.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::explore::allocation::Allocator;
    ///
    /// let d = Design::parse("s = x; pipe(tpool[b](s), tpool[a](s), tpool[b](s))")?;
    /// assert_eq!(Allocator::new(&d, 8).counts()?, ["b", "a"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn counts(&self) -> Result<Vec<String>, AllocationError> {
        Ok(self.space(&self.point())?.names)
    }

    /// The best allocation under the chosen semantics.
    pub fn solve(&self) -> Result<Solution, AllocationError> {
        let at = self.point();
        let space = self.space(&at)?;
        self.solve_at(&space, &at, &self.meter())
    }

    /// The best allocation under the chosen semantics at the point `at`.
    fn solve_at(
        &self,
        space: &Space,
        at: &[(&str, f64)],
        meter: &StepMeter<'_>,
    ) -> Result<Solution, AllocationError> {
        match &self.choice {
            Pricing::Operators => {
                // No memo: an evaluation of the operators costs less than
                // looking it up, and a memo of every point grows with the
                // search (gigabytes at 50 million steps).
                let ops = self.operators_at(space, at)?;
                let found = search_with_ties(
                    space,
                    |c: &[u64]| operators_time(&ops, space, c),
                    Pruning::<fn(&[u64]) -> Result<f64, AllocationError>>::Itself,
                    meter,
                )?;
                Ok(solution(space, found))
            }
            Pricing::Queueing(machine) => self.solve_model_at(
                space,
                at,
                &QueueingTime::new(self.design, machine, at),
                meter,
            ),
            Pricing::Simulation(s) => self.solve_model_at(
                space,
                at,
                &SimulationTime::new(self.design, &s.machine, at).elements(s.elements),
                meter,
            ),
        }
    }

    /// The best allocation under a semantics of your own, at the
    /// allocator's point.
    pub fn solve_with<M: TimeModel>(&self, model: &M) -> Result<Solution, AllocationError> {
        let at = self.point();
        let space = self.space(&at)?;
        self.solve_model_at(&space, &at, model, &self.meter())
    }

    fn solve_model_at<M: TimeModel>(
        &self,
        space: &Space,
        at: &[(&str, f64)],
        model: &M,
        meter: &StepMeter<'_>,
    ) -> Result<Solution, AllocationError> {
        let mut memo = Memo::default();
        let mut objective = |c: &[u64]| memo.time(c, |c| model_time(model, space, c, meter));
        let ops = if model.bounded_below_by_operators() {
            // No operators' model (a name only the semantics binds): no bound.
            self.operators_at(space, at).ok()
        } else {
            None
        };
        let found = match &ops {
            Some(ops) => search_with_ties(
                space,
                &mut objective,
                Pruning::By {
                    bound: |c: &[u64]| operators_time(ops, space, c),
                    slack: BOUND_SLACK,
                },
                meter,
            )?,
            None => search_with_ties(
                space,
                &mut objective,
                Pruning::<fn(&[u64]) -> Result<f64, AllocationError>>::Threads,
                meter,
            )?,
        };
        Ok(solution(space, memo.counted(found)))
    }

    fn operators_at(
        &self,
        space: &Space,
        at: &[(&str, f64)],
    ) -> Result<OperatorsTime, AllocationError> {
        OperatorsTime::new(self.design, &space.names, at).map_err(|source| AllocationError::Model {
            what: "the design's model".into(),
            source,
        })
    }

    /// The time and threads of given counts under the chosen semantics
    /// (every count of the design, by name); the cap is not checked.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::explore::allocation::Allocator;
    ///
    /// let d = Design::parse("s1 = 2*x; s2 = x; pipe(tpool[a](s1), tpool[b](s2))")?;
    /// let a = Allocator::new(&d, 8).at(&[("x", 1000.0)]).evaluate(&[("a", 4), ("b", 4)])?;
    /// assert_eq!((a.time_per_element, a.threads), (500.0, 8));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn evaluate(&self, counts: &[(&str, u64)]) -> Result<Allocation, AllocationError> {
        let at = self.point();
        let space = self.space(&at)?;
        let values = values_of(&space, counts)?;
        let time = self.time_at(&space, &at, &values)?;
        allocation(&space, &values, time)
    }

    /// The time of the counts `values` (in the space's order) at the point
    /// `at`, under the chosen semantics.
    fn time_at(
        &self,
        space: &Space,
        at: &[(&str, f64)],
        values: &[u64],
    ) -> Result<f64, AllocationError> {
        // One evaluation: no search to bound.
        let unmetered = StepMeter::new(u64::MAX, None);
        Ok(match &self.choice {
            Pricing::Operators => operators_time(&self.operators_at(space, at)?, space, values)?,
            Pricing::Queueing(m) => model_time(
                &QueueingTime::new(self.design, m, at),
                space,
                values,
                &unmetered,
            )?,
            Pricing::Simulation(s) => model_time(
                &SimulationTime::new(self.design, &s.machine, at).elements(s.elements),
                space,
                values,
                &unmetered,
            )?,
        })
    }
}
