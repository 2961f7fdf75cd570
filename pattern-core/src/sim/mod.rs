//! Discrete-event simulation of flow graphs (seed 003): what the operators
//! leave out — a finite run's fill and drain, more steps than cores, transfers
//! that share a node's link — predicted by running the program's flow graph
//! on a model of the machine.
//!
//! The resource model, stated so that results are exact:
//!
//! - **Cores.** The `k` compute steps running on a node of `c` cores share
//!   them by processor sharing: each progresses at rate `min(1, c/k)`.
//! - **Links.** A transfer takes `latency + bytes / bandwidth` alone. Each
//!   node has one outgoing and one incoming link to a crossbar that is
//!   never the bottleneck; the transfers on a link get equal shares of it,
//!   and a transfer's bytes move at the smaller of its two shares,
//!   recomputed at every start and end. The latency is a delay before the
//!   bytes move, which occupies no link.
//! - **Dependencies.** A task starts when every task it depends on has
//!   ended.
//!
//! ```
//! use pattern_core::sim::{Platform, Simulation, TaskGraph};
//!
//! // Two transfers of 1.5 and 3 bytes on one link of 1 byte/ns: both at
//! // half the bandwidth until the first ends at 3.0, the second alone after.
//! let mut g = TaskGraph::new();
//! let a = g.transfer(0, 1, 1.5, &[]);
//! let b = g.transfer(0, 1, 3.0, &[]);
//! let r = Simulation::graph(&g, &Platform::new(2, 1)).run()?;
//! assert_eq!((r.finish(a), r.finish(b)), (3.0, 4.5));
//! # Ok::<(), pattern_core::sim::SimError>(())
//! ```

mod busy;
mod cores;
mod engine;
mod error;
mod graph;
mod plan;
mod platform;
mod plot;
mod result;
mod stream;
mod variation;

use crate::Design;
pub use error::SimError;
pub use graph::{Task, TaskGraph, TaskId, Work};
pub use plan::MAX_THREADS;
pub use platform::Platform;
pub use result::SimResult;

/// What a simulation runs.
#[derive(Clone, Debug)]
enum Source<'a> {
    Graph(&'a TaskGraph),
    Design(&'a Design),
}

/// A simulation to run: a flow graph, or a stream of elements through a
/// design, on a platform.
///
/// ```
/// use pattern_core::sim::{Platform, Simulation, TaskGraph};
///
/// // Three steps of 1, 2 and 3 ns on a node of 2 cores: each at 2/3 until
/// // the first ends at 1.5, then each at full speed.
/// let mut g = TaskGraph::new();
/// let steps: Vec<_> = [1.0, 2.0, 3.0].iter().map(|&d| g.compute(0, d, &[])).collect();
/// let r = Simulation::graph(&g, &Platform::new(1, 2)).run()?;
/// let ends: Vec<f64> = steps.iter().map(|&s| r.finish(s)).collect();
/// assert_eq!(ends, [1.5, 2.5, 3.5]);
/// # Ok::<(), pattern_core::sim::SimError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Simulation<'a> {
    source: Source<'a>,
    platform: &'a Platform,
    at: Vec<(String, f64)>,
    elements: usize,
    buffer: usize,
    variation: (f64, u64),
    overheads: stream::Overheads,
}

impl<'a> Simulation<'a> {
    /// The flow graph `graph` on `platform`.
    pub fn graph(graph: &'a TaskGraph, platform: &'a Platform) -> Simulation<'a> {
        Simulation::of(Source::Graph(graph), platform)
    }

    /// A stream of elements through `design` on node 0 of `platform`, its
    /// atoms' models giving the durations of their steps (partial direct
    /// execution). Every stage of a pipeline is a thread (a task pool's
    /// workers are threads taking elements from one shared queue), the
    /// threads share the node's cores by processor sharing, and the stages
    /// of a pipeline pass elements through buffers of 4 places unless set.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::sim::{Platform, Simulation};
    ///
    /// let d = Design::parse("a = 3*x; b = x; pipe(a, b)")?;
    /// let r = Simulation::new(&d, &Platform::new(1, 2)).at(&[("x", 10.0)]).elements(1000).run()?;
    /// assert_eq!(r.time_per_element(), 30.0);            // the slower stage, as M[pipe]
    /// assert_eq!(r.makespan(), 40.0 + 999.0 * 30.0);     // fill, then one element per 30 ns
    /// // One core: both stages share it, 40 ns per element.
    /// let r = Simulation::new(&d, &Platform::new(1, 1)).at(&[("x", 10.0)]).elements(1000).run()?;
    /// assert!((r.time_per_element() - 40.0).abs() < 1e-9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(design: &'a Design, platform: &'a Platform) -> Simulation<'a> {
        Simulation::of(Source::Design(design), platform)
    }

    fn of(source: Source<'a>, platform: &'a Platform) -> Simulation<'a> {
        Simulation {
            source,
            platform,
            at: Vec::new(),
            elements: 1,
            buffer: 4,
            variation: (0.0, 0),
            overheads: stream::Overheads::default(),
        }
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
    /// unless set).
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
    /// use pattern_core::sim::{Platform, Simulation};
    ///
    /// // Two exponential stages with one place between them: blocking
    /// // costs a third of the throughput that one place more would save
    /// // (μ(B + 2)/(B + 3) for B places, a classic tandem-queue result).
    /// let d = Design::parse("a = 100; pipe(a, a)")?;
    /// let r = Simulation::new(&d, &Platform::new(1, 2))
    ///     .elements(100_000).buffer(1).variation(1.0, 7).run()?;
    /// assert!((r.time_per_element() / (100.0 * 4.0 / 3.0) - 1.0).abs() < 0.03);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn variation(mut self, cv: f64, seed: u64) -> Simulation<'a> {
        self.variation = (cv, seed);
        self
    }

    /// CPU time, in ns, that a thread of a design spends moving each
    /// element: `take` to take it from a queue several threads share (a
    /// task pool's), `handoff` to hand it to the next stage of a pipeline.
    /// Both 0 unless set; the queueing model's `Machine` measures the same
    /// two costs.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::sim::{Platform, Simulation};
    ///
    /// let d = Design::parse("a = 100; pipe(a, a)")?;
    /// let one_core = Platform::new(1, 1);
    /// let r = Simulation::new(&d, &one_core).elements(1000).overheads(0.0, 20.0).run()?;
    /// // Both stages and one hand-over share the core: 220 ns per element.
    /// assert!((r.time_per_element() - 220.0).abs() < 1e-6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn overheads(mut self, take: f64, handoff: f64) -> Simulation<'a> {
        self.overheads = stream::Overheads { take, handoff };
        self
    }

    /// Runs the simulation. A node or a dependency the graph names that
    /// does not exist, a negative or non-finite duration or size, a
    /// platform out of range, an atom whose model has no value at the
    /// bindings, an unbound count, a pattern the design simulator does not
    /// run yet, or no elements is a [`SimError`].
    pub fn run(&self) -> Result<SimResult, SimError> {
        let variation = variation::Variation::new(self.variation.0, self.variation.1)?;
        match self.source {
            Source::Graph(graph) => {
                Ok(engine::Engine::new(graph, self.platform, variation)?.run(self.platform))
            }
            Source::Design(design) => {
                self.platform.check()?;
                if self.elements == 0 {
                    return Err(SimError::InvalidOption {
                        what: "the number of elements",
                        value: 0,
                        expected: "at least 1",
                    });
                }
                let o = self.overheads;
                if !(o.take.is_finite()
                    && o.take >= 0.0
                    && o.handoff.is_finite()
                    && o.handoff >= 0.0)
                {
                    return Err(SimError::InvalidOverhead {
                        take: o.take,
                        handoff: o.handoff,
                    });
                }
                if self.buffer == 0 {
                    return Err(SimError::InvalidOption {
                        what: "a buffer's places",
                        value: 0,
                        expected: "at least 1",
                    });
                }
                let at: Vec<(&str, f64)> = self.at.iter().map(|(n, v)| (n.as_str(), *v)).collect();
                let plan = design.fold(&mut plan::Planner { at: &at })?;
                let stream = stream::Stream::new(
                    &plan,
                    self.platform.cores(),
                    self.elements,
                    self.buffer,
                    variation,
                    self.overheads,
                )?;
                Ok(SimResult::of_stream(self.platform, stream.run()?))
            }
        }
    }
}
