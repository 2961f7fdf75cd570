//! The meanings of a design, each one implementation of
//! [`Semantics`] folded over the term by
//! [`fold()`] — no meaning walks a term itself.
//!
//! | semantics | value | what it answers |
//! | --- | --- | --- |
//! | [`Throughput`] | `Expr` | time per element in steady state (seed 001 eqs. 2–5); pointwise or asymptotic `pipe`, a machine profile's communication functions, a per-hop cost between pipeline stages — combined freely |
//! | [`Latency`] | `Expr` | time of one element through the design |
//! | [`Footprint`] | [`Resources`] | threads and nodes the design occupies, the threads by the grammar's one definition of them (`grammar::threads`) |
//! | `Queueing` (feature `queueing`) | `QueueingPrediction` | time per element on a machine's nodes, their cores shared by more threads than they have: a closed queueing network solved by MVA; several designs sharing the machine (`Queueing::together`) |
//!
//! ```
//! use pattern_core::Design;
//! use pattern_core::comm::MachineProfile;
//! use pattern_core::semantics::Throughput;
//!
//! let d = Design::parse("a = 3 * x; b = 5; pipe(a, b)").unwrap();
//! // A per-hop cost on the T3E profile: one semantics, one expression.
//! let t3e = MachineProfile::t3e();
//! let hop = Throughput::new().machine(&t3e).per_hop("send(8 * x)".parse().unwrap());
//! let us = d.model_by(&hop).unwrap();
//! assert_eq!(us.to_string(), "max(3·x, 5) + 0.02136·x + 13.965");
//! ```

mod asymptotic;
mod counted;
mod flat;
mod footprint;
mod latency;
#[cfg(feature = "queueing")]
mod queueing;
mod throughput;
mod times;

pub use crate::grammar::{Scope, Semantics, fold};
pub use counted::count_resources;
pub use footprint::{Footprint, ResourceCounts, ResourceError, Resources};
pub use latency::{Latency, Timed};
#[cfg(feature = "explore")]
pub(crate) use queueing::MAX_EXACT_COST;
#[cfg(feature = "queueing")]
pub use queueing::{
    Fragment, NodeLoad, Queueing, QueueingError, QueueingPrediction, RatePrediction, RateStation,
    SharedDesign, SharedNode, SharedPrediction,
};
#[cfg(any(feature = "queueing", feature = "sim"))]
pub(crate) use throughput::group_size;
pub use throughput::{MapReducePhases, Mode, Operators, Resolver, Symbolic, Throughput};
pub use times::{AtomTimes, BadTime, check_atom_times, check_time};
