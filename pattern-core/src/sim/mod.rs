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
mod platform;
mod result;

pub use error::SimError;
pub use graph::{Task, TaskGraph, TaskId, Work};
pub use platform::Platform;
pub use result::SimResult;

/// A simulation to run: a flow graph on a platform.
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
    graph: &'a TaskGraph,
    platform: &'a Platform,
}

impl<'a> Simulation<'a> {
    /// The flow graph `graph` on `platform`.
    pub fn graph(graph: &'a TaskGraph, platform: &'a Platform) -> Simulation<'a> {
        Simulation { graph, platform }
    }

    /// Runs the simulation: every task's start and end. A node or a
    /// dependency the graph names that does not exist, a negative or
    /// non-finite duration or size, or a platform out of range is a
    /// [`SimError`].
    pub fn run(&self) -> Result<SimResult, SimError> {
        Ok(engine::Engine::new(self.graph, self.platform)?.run(self.platform))
    }
}
