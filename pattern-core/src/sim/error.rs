//! Why a simulation could not run.

use thiserror::Error;

/// Bad input to the simulator: a clear error, never a panic or a hang.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SimError {
    /// A machine out of range.
    #[error(transparent)]
    Machine(#[from] crate::machine::MachineError),
    /// A machine larger than the simulator holds.
    #[error("the machine has {value} {what}: the simulator holds at most {limit}")]
    MachineTooLarge {
        /// What is too many (`nodes`, `pinned cores`).
        what: &'static str,
        /// How many the machine has.
        value: u64,
        /// The most the simulator holds.
        limit: u64,
    },
    /// A flow graph of more tasks (or dependencies) than the simulator
    /// numbers.
    #[error("the graph has {tasks} tasks or dependencies: the simulator holds at most {limit}")]
    GraphTooLarge {
        /// How many the graph has.
        tasks: usize,
        /// The most the simulator holds.
        limit: usize,
    },
    /// A task on a node the machine does not have.
    #[error("task {task} runs on node {node}, but the machine has nodes 0..{nodes}")]
    UnknownNode {
        /// The task's index in its graph.
        task: usize,
        /// The node it names.
        node: usize,
        /// The machine's nodes.
        nodes: usize,
    },
    /// A dependency on a task the graph does not have (an id from another
    /// graph).
    #[error(
        "task {task} depends on task {dependency}, which this graph does not have ({tasks} tasks)"
    )]
    UnknownTask {
        /// The task's index in its graph.
        task: usize,
        /// The dependency it names.
        dependency: usize,
        /// The tasks of the graph.
        tasks: usize,
    },
    /// A duration or a size that is negative, NaN or infinite.
    #[error("task {task} has {what} {value}: a finite number >= 0")]
    InvalidAmount {
        /// The task's index in its graph.
        task: usize,
        /// `a duration` or `a size in bytes`.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// A pattern the design simulator does not run yet.
    #[error("the simulator does not run {pattern}")]
    Unsupported {
        /// The pattern.
        pattern: &'static str,
    },
    /// An atom whose model gives no time at the bindings: negative, NaN
    /// or infinite (the one check, [`crate::semantics::check_time`]).
    #[error(transparent)]
    Time(#[from] crate::semantics::BadTime),
    /// An atom whose model gives no duration at the bindings.
    #[error("atom `{atom}`: {message}")]
    Model {
        /// The atom's name.
        atom: String,
        /// What went wrong.
        message: String,
    },
    /// A count that is not a whole number of threads from 1 to 2^20 (a
    /// symbol unbound, or bound or written out of range).
    #[error("the count `{count}` is {}: a whole number from 1 to 2^20{}", match value { Some(v) => v.to_string(), None => "unbound".to_string() }, if count.parse::<u64>().is_ok() { "" } else { ", bound with .at(..)" })]
    Count {
        /// The count as written.
        count: String,
        /// Its value, if bound.
        value: Option<f64>,
    },
    /// More threads than the simulator keeps.
    #[error("the design runs {threads} threads, more than the simulator's {limit}")]
    TooManyThreads {
        /// The threads of the design.
        threads: u64,
        /// The limit.
        limit: u64,
    },
    /// A stream of no element, or a buffer of no place.
    #[error("{what} is {value}: {expected}")]
    InvalidOption {
        /// The option.
        what: &'static str,
        /// Its value.
        value: usize,
        /// What it must be.
        expected: &'static str,
    },
    /// A coefficient of variation that is negative, NaN or infinite (or so
    /// large that no Gamma distribution has it).
    #[error("a coefficient of variation of {value}: a finite number >= 0")]
    InvalidVariation {
        /// The value given.
        value: f64,
    },
    /// An arrival rate that is not a finite number > 0.
    #[error("an arrival rate of {value} elements per ns: a finite number > 0")]
    InvalidArrivalRate {
        /// The rate given.
        value: f64,
    },
    /// An allocation change the run cannot make.
    #[error("the change {change}: {reason}")]
    InvalidChange {
        /// The change, as given.
        change: String,
        /// Why it cannot be made.
        reason: String,
    },
    /// Tasks left waiting on nodes whose cores were all taken away.
    #[error("{left} tasks never ended: their nodes' cores were taken away and not given back")]
    Stalled {
        /// The tasks (or elements) left.
        left: usize,
    },
    /// A design whose steps use more nodes than the machine has.
    #[error("the design uses nodes 0..{needed}, but the machine has nodes 0..{nodes}")]
    NotEnoughNodes {
        /// The nodes the design uses.
        needed: usize,
        /// The machine's.
        nodes: usize,
    },
    /// A CPU cost per byte that is negative, NaN or infinite.
    #[error("a CPU cost of {value} ns per byte: a finite number >= 0")]
    InvalidCpuCost {
        /// The value given.
        value: f64,
    },
    /// The simulated clock passed the largest finite number of ns: the
    /// durations or sizes are too large to add up.
    #[error(
        "the simulated time passed {} ns with {left} tasks or elements not done: durations or sizes too large to add up",
        f64::MAX
    )]
    ClockOverflow {
        /// The tasks (or elements) not done.
        left: usize,
    },
    /// A plot could not be drawn.
    #[error("a plot could not be drawn: {0}")]
    Plot(String),
}
