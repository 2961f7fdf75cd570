//! Discrete-event simulation of flow graphs (seed 003): what the operators
//! leave out — a finite run's fill and drain, more steps than cores, transfers
//! that share a node's link — predicted by running the program's flow graph
//! on a model of the machine.
//!
//! The resource model, stated so that results are exact:
//!
//! - **Cores.** The `k` compute steps running on a node of `c` cores share
//!   them by processor sharing: each progresses at rate `min(1, c/k)`.
//! - **Links.** A transfer waits for its route's latency (a delay that
//!   occupies no link), then its bytes cross the links of its route
//!   ([`Network::route`]: the sender's link out and the receiver's link in,
//!   and between racks the two rack uplinks and the backbone) at one rate.
//!   The transfers moving bytes share the links max-min (the default:
//!   progressive filling, recomputed over the transfers a start or an end
//!   is connected to through shared links) or in equal shares
//!   ([`Sharing`]). Alone, a transfer takes `latency + bytes / bandwidth`.
//! - **Speeds.** A step of `t` ns takes `t / speed` alone on a node of
//!   that speed.
//! - **Memory.** On a node with a [`Memory`], an atom's step of `t` ns
//!   that moves `b` bytes ([`Atom::bytes`]) is its cores' part and its
//!   memory part `m`, as [`Memory::split`] gives them (an element handed
//!   over by the stage before may come from the caches, on the core: then
//!   `m` is 0); the cores' part is shared by the cores (and at the node's
//!   speed) as any step, then the memory part of `m` ns: the `k`
//!   memory parts running at once on the node each progress at rate
//!   `min(1, lanes/k)` ([`Memory::lanes`], at most the node's cores), at no
//!   speed but the memory's. A memory part holds its core meanwhile (a core
//!   stalled on memory is busy), as the queueing semantics counts it.
//!   Without a memory, or without bytes, a step is as above.
//! - **Dependencies.** A task starts when every task it depends on has
//!   ended.
//!
//! [`Network::route`]: crate::machine::Network::route
//! [`Memory`]: crate::machine::Memory
//! [`Memory::split`]: crate::machine::Memory::split
//! [`Memory::lanes`]: crate::machine::Memory::lanes
//! [`Atom::bytes`]: crate::Atom#structfield.bytes
//! [`Sharing`]: crate::machine::Sharing
//!
//! ```
//! use pattern_core::machine::Machine;
//! use pattern_core::sim::{Simulation, TaskGraph};
//!
//! // Two transfers of 1.5 and 3 bytes on one link of 1 byte/ns: both at
//! // half the bandwidth until the first ends at 3.0, the second alone after.
//! let mut g = TaskGraph::new();
//! let a = g.transfer(0, 1, 1.5, &[]);
//! let b = g.transfer(0, 1, 3.0, &[]);
//! let r = Simulation::graph(&g, &Machine::new(2, 1)).run()?;
//! assert_eq!((r.finish(a), r.finish(b)), (3.0, 4.5));
//! # Ok::<(), pattern_core::sim::SimError>(())
//! ```

mod bound;
mod busy;
mod change;
mod cores;
mod direct;
mod engine;
mod environment;
mod error;
mod graph;
mod links;
mod plan;
#[cfg(feature = "plots")]
mod plot;
mod resources;
mod result;
mod stats;
mod steady;
mod stream;
mod template;
mod variation;

use crate::Design;
#[cfg(feature = "exec")]
use crate::exec::Kernels;
use crate::machine::Machine;
pub use change::{Change, When};
pub use direct::Direct;
use direct::StepTimer;
pub use engine::MAX_TASKS;
pub use error::SimError;
pub use graph::{Task, TaskGraph, TaskId, Work};
pub use plan::{MAX_THREADS, Shuffle};
#[cfg(feature = "plots")]
pub use plot::MAX_GANTT_TASKS;
pub use resources::{MAX_NODES, MAX_UNITS};

/// The most elements [`Simulation::run_steady`] runs a design for.
pub const MAX_STEADY_ELEMENTS: usize = 1 << 20;
pub use result::{MAX_WINDOWS, SimResult};
use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
pub use steady::SteadyState;

/// What a simulation runs.
#[derive(Clone, Debug)]
enum Source<'a> {
    Graph(&'a TaskGraph),
    Design(&'a Design),
}

/// A simulation to run: a flow graph, or a stream of elements through a
/// design, on a machine.
///
/// ```
/// use pattern_core::machine::Machine;
/// use pattern_core::sim::{Simulation, TaskGraph};
///
/// // Three steps of 1, 2 and 3 ns on a node of 2 cores: each at 2/3 until
/// // the first ends at 1.5, then each at full speed.
/// let mut g = TaskGraph::new();
/// let steps: Vec<_> = [1.0, 2.0, 3.0].iter().map(|&d| g.compute(0, d, &[])).collect();
/// let r = Simulation::graph(&g, &Machine::new(1, 2)).run()?;
/// let ends: Vec<f64> = steps.iter().map(|&s| r.finish(s)).collect();
/// assert_eq!(ends, [1.5, 2.5, 3.5]);
/// # Ok::<(), pattern_core::sim::SimError>(())
/// ```
pub struct Simulation<'a> {
    source: Source<'a>,
    machine: &'a Machine,
    at: Vec<(String, f64)>,
    elements: usize,
    buffer: usize,
    variation: (f64, u64),
    arrivals: Option<(f64, u64)>,
    cpu_per_byte: f64,
    changes: change::Changes,
    shuffle: Shuffle,
    direct: Option<RefCell<Box<dyn StepTimer + 'a>>>,
    how: Direct,
    trace: bool,
    progress: Option<Arc<AtomicU64>>,
}

impl fmt::Debug for Simulation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Simulation")
            .field("source", &self.source)
            .field("machine", &self.machine)
            .field("at", &self.at)
            .field("elements", &self.elements)
            .field("direct", &self.direct.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a> Simulation<'a> {
    /// The flow graph `graph` on `machine`.
    pub fn graph(graph: &'a TaskGraph, machine: &'a Machine) -> Simulation<'a> {
        Simulation::of(Source::Graph(graph), machine)
    }

    /// A stream of elements through `design` on node 0 of `machine`, its
    /// atoms' models giving the durations of their steps (partial direct
    /// execution). Every stage of a pipeline is a thread (a task pool's
    /// workers are threads taking elements from one shared queue), the
    /// threads share the node's cores by processor sharing, and the stages
    /// of a pipeline pass elements through buffers of 4 places unless set.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::Simulation;
    ///
    /// let d = Design::parse("a = 3*x; b = x; pipe(a, b)")?;
    /// let r = Simulation::new(&d, &Machine::new(1, 2)).at(&[("x", 10.0)]).elements(1000).run()?;
    /// assert_eq!(r.time_per_element(), 30.0);            // the slower stage, as M[pipe]
    /// assert_eq!(r.makespan(), 40.0 + 999.0 * 30.0);     // fill, then one element per 30 ns
    /// // One core: both stages share it, 40 ns per element.
    /// let r = Simulation::new(&d, &Machine::new(1, 1)).at(&[("x", 10.0)]).elements(1000).run()?;
    /// assert!((r.time_per_element() - 40.0).abs() < 1e-9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(design: &'a Design, machine: &'a Machine) -> Simulation<'a> {
        Simulation::of(Source::Design(design), machine)
    }

    fn of(source: Source<'a>, machine: &'a Machine) -> Simulation<'a> {
        Simulation {
            source,
            machine,
            at: Vec::new(),
            elements: 1,
            buffer: 4,
            variation: (0.0, 0),
            arrivals: None,
            cpu_per_byte: 0.0,
            changes: change::Changes::default(),
            shuffle: Shuffle::Model,
            direct: None,
            how: Direct::new(),
            trace: false,
            progress: None,
        }
    }

    /// CPU time per byte sent or received, in ns (0 unless set): a
    /// transfer of `b` bytes between two nodes then also runs a step of
    /// `b × ns_per_byte` on the sender's and on the receiver's cores, taking
    /// them from the compute steps, and ends when its bytes and both steps
    /// are done.
    ///
    /// ```
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::{Simulation, TaskGraph};
    ///
    /// // One core: a 10 ns step and a transfer's 10 ns of sending share it.
    /// let mut g = TaskGraph::new();
    /// let step = g.compute(0, 10.0, &[]);
    /// let send = g.transfer(0, 1, 10.0, &[]);
    /// let r = Simulation::graph(&g, &Machine::new(2, 1)).transfer_cpu(1.0).run()?;
    /// assert_eq!((r.finish(step), r.finish(send)), (20.0, 20.0));
    /// # Ok::<(), pattern_core::sim::SimError>(())
    /// ```
    pub fn transfer_cpu(mut self, ns_per_byte: f64) -> Simulation<'a> {
        self.cpu_per_byte = ns_per_byte;
        self
    }

    /// An allocation that changes during the run: a node's cores (0
    /// removes the node, more adds cores) or a task pool's workers, at a
    /// time, when a task of the flow graph ends, or when a number of
    /// elements have left the design.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::{Change, Simulation, When};
    ///
    /// // 4 workers of 100 ns per element on 4 cores; at 2550 ns two are
    /// // removed, each ending the element it holds first: 104 elements by
    /// // 2600 ns, then 96 more on two workers.
    /// let d = Design::parse("a = 100; tpool[4](a)")?;
    /// let p = Machine::new(1, 4);
    /// let r = Simulation::new(&d, &p)
    ///     .elements(200)
    ///     .change(When::At(2550.0), Change::Workers { pool: 0, workers: 2 })
    ///     .run()?;
    /// assert_eq!(r.makespan(), 2600.0 + 48.0 * 100.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn change(mut self, when: When, change: Change) -> Simulation<'a> {
        self.changes.push(when, change);
        self
    }

    /// How a mapReduce's shuffle runs ([`Shuffle::Model`] unless set).
    pub fn shuffle(mut self, shuffle: Shuffle) -> Simulation<'a> {
        self.shuffle = shuffle;
        self
    }

    /// Direct execution (feature `exec`): an atom with a kernel in `kernels` takes, on each
    /// element, as long as its kernel takes on it, measured as the
    /// simulation runs (one kernel at a time, so free of contention, unless
    /// [`Direct::together`]); `input(i)` makes element `i`; `how` says
    /// where the kernels run and which calls are measured ([`Direct`]).
    /// Atoms without a kernel, and a mapReduce's phases, take their models'
    /// durations (partial direct execution).
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::exec::Kernels;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::{Direct, Simulation};
    ///
    /// let d = Design::parse("sort = x; tpool[2](sort)")?;
    /// let kernels = Kernels::<Vec<u32>>::new().add("sort", |v| v.sort_unstable());
    /// let r = Simulation::new(&d, &Machine::new(1, 2))
    ///     .at(&[("x", 1000.0)])
    ///     .elements(20)
    ///     .direct(&kernels, |i| (0..1000u32).map(|k| k.wrapping_mul(2654435761) ^ i as u32).collect(), Direct::new())
    ///     .run()?;
    /// assert!(r.makespan() > 0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "exec")]
    pub fn direct<E: Send>(
        mut self,
        kernels: &'a Kernels<E>,
        input: impl FnMut(usize) -> E + 'a,
        how: Direct,
    ) -> Simulation<'a> {
        let direct: Box<dyn StepTimer + 'a> = Box::new(direct::Kernel::new(kernels, input));
        self.direct = Some(RefCell::new(direct));
        self.how = how;
        self
    }

    /// Keeps a trace of every step of a design's run (a flow graph's tasks
    /// are always kept), for [`SimResult::trace_json`] and
    /// [`SimResult::gantt_svg`]; memory then grows with the elements.
    pub fn trace(mut self, keep: bool) -> Simulation<'a> {
        self.trace = keep;
        self
    }

    /// Stores in `counter` the elements of a design's run that have left
    /// it, as the run goes, so that another thread can show its progress
    /// (a flow graph's run leaves it at 0).
    pub fn count_elements(mut self, counter: Arc<AtomicU64>) -> Simulation<'a> {
        self.progress = Some(counter);
        self
    }

    /// Bindings for the models' variables and the design's symbolic counts.
    pub fn at(mut self, bindings: &[(&str, f64)]) -> Simulation<'a> {
        self.at = bindings.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        self
    }

    /// The elements of the stream (1 unless set).
    pub fn elements(mut self, elements: usize) -> Simulation<'a> {
        self.elements = elements;
        self
    }

    /// The places of each buffer between two stages of a pipeline (4
    /// unless set). 0 places make a rendezvous, as a channel of no
    /// capacity (or SimGrid's mailboxes) does: a stage that has done its
    /// step waits until the next stage takes the element.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::Simulation;
    ///
    /// // The first stage (10 ns) hands an element to the second (30 ns)
    /// // only when that one takes it: from the third on, an element
    /// // enters when the one before it is taken, and takes 60 ns through.
    /// let d = Design::parse("a = 10; b = 30; pipe(a, b)")?;
    /// let run = |places| Simulation::new(&d, &Machine::new(1, 2)).elements(100).buffer(places).run();
    /// let (rendezvous, one) = (run(0)?, run(1)?);
    /// assert_eq!(rendezvous.makespan(), 10.0 + 100.0 * 30.0);
    /// assert_eq!(one.makespan(), rendezvous.makespan());
    /// // One place more holds an element 30 ns longer: 90 ns through.
    /// assert!((rendezvous.latency_percentile(100.0).unwrap() / 60.0 - 1.0).abs() < 0.01);
    /// assert!((one.latency_percentile(100.0).unwrap() / 90.0 - 1.0).abs() < 0.01);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn buffer(mut self, places: usize) -> Simulation<'a> {
        self.buffer = places;
        self
    }

    /// Every compute step's duration varied at random, seeded: times a
    /// Gamma variate of mean 1 and coefficient of variation `cv` (`cv = 1`
    /// is exponential; 0, the default, no variation). Transfers do not
    /// vary.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::Simulation;
    ///
    /// // Two exponential stages with one place between them: blocking
    /// // costs a third of the throughput that one place more would save
    /// // (μ(B + 2)/(B + 3) for B places, a classic tandem-queue result).
    /// let d = Design::parse("a = 100; pipe(a, a)")?;
    /// let r = Simulation::new(&d, &Machine::new(1, 2))
    ///     .elements(100_000).buffer(1).variation(1.0, 7).run()?;
    /// assert!((r.time_per_element() / (100.0 * 4.0 / 3.0) - 1.0).abs() < 0.03);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn variation(mut self, cv: f64, seed: u64) -> Simulation<'a> {
        self.variation = (cv, seed);
        self
    }

    /// An open stream: the elements arrive at the instants of a Poisson
    /// process of `rate_per_ns` elements per ns (exponential gaps of mean
    /// `1 / rate_per_ns` ns, the first element too arriving after one),
    /// drawn from a generator seeded with `seed`, instead of being all
    /// there from the start. An element cannot be taken before it arrives,
    /// a first stage that finds none waits for the next, and an element's
    /// latency ([`SimResult::latency_mean`],
    /// [`SimResult::latency_percentile`]) counts from its arrival, its
    /// wait to be taken included. Where the design keeps up (the rate
    /// below its capacity, `1 /` [`SteadyState::bound`]), the time per
    /// element, the mean gap between departures, is `1 / rate_per_ns`.
    /// A flow graph's run ignores it. A rate that is not a finite number
    /// > 0 is a [`SimError`] when the simulation runs.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::Simulation;
    ///
    /// // One stage of 100 ns fed at one element per 200 ns: an M/D/1
    /// // queue at a load of 0.5, whose mean latency is, by
    /// // Pollaczek-Khinchine, 100 + 0.5·100/(2·(1 − 0.5)) = 150 ns.
    /// let d = Design::parse("a = 100; a")?;
    /// let r = Simulation::new(&d, &Machine::new(1, 1))
    ///     .elements(20_000)
    ///     .arrivals(1.0 / 200.0, 1)
    ///     .run()?;
    /// assert!((r.latency_mean().unwrap() / 150.0 - 1.0).abs() < 0.05);
    /// assert!((r.time_per_element() / 200.0 - 1.0).abs() < 0.05);
    /// // Fed faster than it serves, it falls behind: latencies grow
    /// // with the run, and elements leave every 100 ns.
    /// let r = Simulation::new(&d, &Machine::new(1, 1))
    ///     .elements(1000)
    ///     .arrivals(1.0 / 50.0, 1)
    ///     .run()?;
    /// assert!(r.latency_mean().unwrap() > 10_000.0);
    /// assert!((r.time_per_element() / 100.0 - 1.0).abs() < 1e-6);
    /// // A rate must be a finite number > 0.
    /// assert!(Simulation::new(&d, &Machine::new(1, 1)).arrivals(0.0, 1).run().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn arrivals(mut self, rate_per_ns: f64, seed: u64) -> Simulation<'a> {
        self.arrivals = Some((rate_per_ns, seed));
        self
    }

    /// Runs the simulation of a design long enough for its steady state:
    /// a run too short for it ([`SimResult::steady_state`]) is run again
    /// with the elements it needs, up to [`MAX_STEADY_ELEMENTS`] (direct
    /// execution, whose kernels run once per element, is run once). The
    /// decisions made on simulated times (`explore`) take these.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::Simulation;
    ///
    /// // 1000 workers on 4 cores: 1000 elements all start at once.
    /// let d = Design::parse("a = 100; b = 1; pipe(tpool[1000](a), b)")?;
    /// let four = Machine::new(1, 4);
    /// let short = Simulation::new(&d, &four).elements(1000).run()?;
    /// assert!(!short.steady_state().unwrap().steady);
    /// let long = Simulation::new(&d, &four).elements(1000).run_steady()?;
    /// assert!(long.steady_state().unwrap().steady);
    /// assert!((long.time_per_element() - 101.0 / 4.0).abs() < 1e-6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_steady(&self) -> Result<SimResult, SimError> {
        let first = self.run()?;
        let needed = match first.steady_state() {
            Some(s) if !s.steady && s.elements_needed > self.elements => s.elements_needed,
            _ => return Ok(first),
        };
        if self.direct.is_some() || needed > MAX_STEADY_ELEMENTS {
            return Ok(first);
        }
        self.run_elements(needed)
    }

    /// Runs the simulation. A node or a dependency the graph names that
    /// does not exist, a negative or non-finite duration or size, a
    /// machine out of range, an atom whose model has no value at the
    /// bindings, an unbound count, a pattern the design simulator does not
    /// run yet, or no elements is a [`SimError`].
    pub fn run(&self) -> Result<SimResult, SimError> {
        self.run_elements(self.elements)
    }

    /// [`Simulation::run`] with `elements` elements.
    fn run_elements(&self, elements: usize) -> Result<SimResult, SimError> {
        let variation = variation::Variation::new(self.variation.0, self.variation.1)?;
        let arrivals = (self.arrivals)
            .map(|(rate, seed)| stream::Arrivals::new(rate, seed))
            .transpose()?;
        if !(self.cpu_per_byte.is_finite() && self.cpu_per_byte >= 0.0) {
            return Err(SimError::InvalidCpuCost {
                value: self.cpu_per_byte,
            });
        }
        match self.source {
            Source::Graph(graph) => engine::Engine::new(
                graph,
                self.machine,
                variation,
                self.cpu_per_byte,
                self.changes.clone(),
            )?
            .run(self.machine),
            Source::Design(design) => self.run_design(design, variation, arrivals, elements),
        }
    }

    fn run_design(
        &self,
        design: &Design,
        variation: variation::Variation,
        arrivals: Option<stream::Arrivals>,
        elements: usize,
    ) -> Result<SimResult, SimError> {
        let positive = |what, value: usize| {
            if value == 0 {
                Err(SimError::InvalidOption {
                    what,
                    value,
                    expected: "at least 1",
                })
            } else {
                Ok(())
            }
        };
        positive("the number of elements", elements)?;
        if let Some(k) = self.how.measure_first {
            positive("the calls measured", k)?;
        }
        if let Shuffle::BytesPerKey(b) = self.shuffle
            && !(b.is_finite() && b >= 0.0)
        {
            return Err(SimError::InvalidAmount {
                task: 0,
                what: "a shuffle size in bytes per key",
                value: b,
            });
        }
        let at: Vec<(&str, f64)> = self.at.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        let mut planner = plan::Planner::new(&at, self.shuffle);
        let plan = design.fold(&mut planner)?;
        let pools = planner.pools();
        let labels = planner.labels.clone();
        let plan = planner.finish(plan)?;
        let random = self.variation.0 > 0.0 || self.direct.is_some();
        let mut direct = self.direct.as_ref().map(|d| d.borrow_mut());
        let waits = *self.machine.waiting_costs();
        let options = stream::Options {
            elements,
            buffer: self.buffer,
            variation,
            overheads: stream::Overheads {
                take: waits.take_ns,
                handoff: waits.handoff_ns,
            },
            cpu_per_byte: self.cpu_per_byte,
            changes: self.changes.clone(),
            direct: direct.as_mut().map(|d| &mut ***d as &mut dyn StepTimer),
            measure_first: self.how.measure_first,
            direct_on_cores: self.how.on_cores,
            direct_together: self.how.together,
            labels: &labels,
            trace: self.trace,
            progress: self.progress.as_deref(),
            random: random || arrivals.is_some(),
            arrivals,
            wake_latency: waits.wake_latency_ns,
            spin: waits.spin(),
            wake_cost: waits.wake_cost_ns,
            waker_cost: waits.waker_cost_ns,
        };
        let stats = stream::Stream::new(&plan, self.machine, pools, options)?.run()?;
        let cx = bound::Context {
            machine: self.machine,
            take: waits.take_ns,
            handoff: waits.handoff_ns,
            cpu_per_byte: self.cpu_per_byte,
            changes: &self.changes,
        };
        // Varied or measured durations: the work the steps did.
        let bound = if random {
            bound::measured_bound(&stats.element_work, elements, &cx)
        } else {
            bound::capacity_bound(&plan, &cx)
        };
        let steady = SteadyState::judge(elements, stats.in_flight, stats.slope, bound);
        Ok(SimResult::of_stream(
            self.machine,
            stats,
            steady,
            elements,
            &labels,
        ))
    }
}
