//! Choosing a design: the decisions a user makes from models, made exactly
//! on this crate's symbolic models.
//!
//! - [`allocation`]: the integer counts (threads per stage, a mapReduce's
//!   `m` and `n`) that minimize the time per element under a budget, for
//!   any semantics (plain operators, queueing, simulation), at one size or
//!   over a range of sizes (with the sizes where the best allocation
//!   changes and a robust choice), and how far the greedy rules of
//!   RPL-shell are from it.
//! - [`crossover`]: the intervals of a variable over which each of several
//!   designs is best, with the crossover points.
//! - [`sensitivity`]: derivatives of a model with respect to each atom's
//!   coefficients and each count (one-sided at a tie), the change with one
//!   worker fewer or more, the building block to speed up first and the
//!   bottleneck stage per range of a variable.
//! - [`ranking`]: the best designs reachable from a design by the laws'
//!   rewrites and by choosing counts, under a thread budget.
//! - [`sweep`] and [`plot`]: models over grids of variables as CSV and
//!   JSON, and plots of them as SVG and PNG (feature `plots`).

pub mod allocation;
pub mod crossover;
#[cfg(feature = "plots")]
pub mod plot;
pub mod ranking;
pub mod sensitivity;
pub mod sweep;
