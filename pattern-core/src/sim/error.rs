//! Why a simulation could not run.

use thiserror::Error;

/// Bad input to the simulator: a clear error, never a panic or a hang.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SimError {
    /// A platform with no nodes, or nodes with no cores.
    #[error(
        "a platform needs at least one node of at least one core, got {nodes} nodes of {cores} cores"
    )]
    NoCores {
        /// The nodes asked for.
        nodes: usize,
        /// The cores per node asked for.
        cores: usize,
    },
    /// A platform parameter out of its range.
    #[error("the platform's {parameter} is {value}: {expected}")]
    InvalidPlatform {
        /// Which parameter (`latency`, `bandwidth`).
        parameter: &'static str,
        /// Its value, as given.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// A task on a node the platform does not have.
    #[error("task {task} runs on node {node}, but the platform has nodes 0..{nodes}")]
    UnknownNode {
        /// The task's index in its graph.
        task: usize,
        /// The node it names.
        node: usize,
        /// The platform's nodes.
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
}
