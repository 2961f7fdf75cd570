//! Why the queueing semantics could not give a prediction.

use crate::EvalError;
use crate::machine::MachineError;
use crate::queue::QueueError;

/// Why the queueing semantics could not give a prediction.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum QueueingError {
    /// A cost model could not be evaluated at the point.
    #[error("the model of `{atom}` cannot be evaluated: {source}")]
    Eval {
        /// The atom (or `shuffle`, `mapReduce`).
        atom: String,
        /// Why.
        source: EvalError,
    },
    /// A model gave no time: negative, NaN or infinite (the one check,
    /// [`crate::semantics::check_time`]).
    #[error(transparent)]
    Time(#[from] crate::semantics::BadTime),
    /// A count that is not bound to a positive integer.
    #[error("the count `{name}` needs a value: bind it to a positive integer with `at`")]
    Count {
        /// The count.
        name: String,
    },
    /// A pattern the semantics does not model.
    #[error("the queueing semantics does not model {pattern}")]
    Unsupported {
        /// The pattern.
        pattern: &'static str,
    },
    /// A part of the design placed on nodes the machine lacks.
    #[error("the design asks for {asked} nodes (`{part}`), the machine has {available}")]
    Nodes {
        /// The part (a stage) that asks for them.
        part: String,
        /// The nodes it asks for: one past the highest it uses.
        asked: usize,
        /// The machine's.
        available: usize,
    },
    /// A communication function the machine's profile cannot price.
    #[error("the communications of `{atom}` cannot be priced on this machine: {message}")]
    Comm {
        /// The atom (or shuffle, redistribution).
        atom: String,
        /// Why (the profile's error).
        message: String,
    },
    /// More processor groups than the semantics holds.
    #[error("groups[{groups}]: at most {limit} groups")]
    TooManyGroups {
        /// The groups asked for.
        groups: usize,
        /// The most.
        limit: usize,
    },
    /// A task group placed on more nodes than the semantics holds (it
    /// keeps each node's work).
    #[error("`{part}` runs on {asked} nodes: at most {limit}")]
    TooManyNodes {
        /// The part.
        part: String,
        /// The nodes it asks for.
        asked: usize,
        /// The most.
        limit: usize,
    },
    /// A time per element beyond the largest finite time (stages whose
    /// times are each finite but near `f64`'s limit).
    #[error("the time per element is {value} ns: beyond the largest finite time")]
    Overflow {
        /// The time computed.
        value: f64,
    },
    /// A rate to feed a design that is not a finite number `> 0`.
    #[error("a design is fed at {rate} elements per ns: a rate is a finite number > 0")]
    Rate {
        /// The rate given.
        rate: f64,
    },
    /// A rate at or beyond the highest the design sustains.
    #[error(
        "at {rate:e} elements per ns the design saturates: it sustains at most {max_rate:e}, limited by {limit}"
    )]
    Saturated {
        /// The rate asked for.
        rate: f64,
        /// The highest rate it sustains.
        max_rate: f64,
        /// What reaches it first.
        limit: String,
    },
    /// An atom's bytes that are not a finite number `>= 0` at the point.
    #[error("`{atom}` moves {value} bytes at {at}: bytes are a finite number >= 0")]
    Bytes {
        /// The atom.
        atom: String,
        /// The value its bytes gave.
        value: f64,
        /// The point, `x = ..` and the other bindings.
        at: String,
    },
    /// A machine out of range.
    #[error(transparent)]
    Machine(#[from] MachineError),
    /// Channels of no place.
    #[error("a channel between threads holds at least 1 element in the queueing semantics (got 0)")]
    Buffer,
    /// The elements in flight do not fit a `usize`.
    #[error("the design holds more elements in flight than can be counted")]
    TooManyInFlight,
    /// Designs to run together: none given.
    #[error("no design to run on the machine: give at least one")]
    NoDesign,
    /// The nodes' slowdowns did not settle.
    #[error("the nodes' slowdowns found no fixed point in {iterations} solutions of the network")]
    NoFixedPoint {
        /// The solutions tried.
        iterations: usize,
    },
    /// The network could not be solved.
    #[error(transparent)]
    Queue(#[from] QueueError),
}
