//! # pattern-core
//!
//! Design-time performance modeling of parallel programs. Annotate the
//! sequential building blocks of a program with *cost models*, write the
//! parallel design as a term of patterns, and get the performance model of the
//! whole program as a symbolic [`Expr`] — before the parallel program exists.
//!
//! This crate is the one users depend on (`use pattern_core::prelude::*`).
//! It holds the cost-expression engine ([`Expr`]: parsing, printing, the
//! PMNF normal form, growth classes, evaluation and a compiled form for
//! sweeps), the design grammar ([`grammar`]: one term, one parser, one
//! checker, one fold), the one type of a design ([`Design`]) and its
//! meanings ([`semantics`]: throughput, latency, resources, machine
//! profiles), designs as types checked at compile time ([`pattern`]), the
//! [`laws`] that relate designs (seed 001 §5), the fitting of models to
//! measurements ([`fit`]), closed queueing networks solved by Mean Value
//! Analysis for machines with fewer cores than threads ([`queue`], seed
//! 002), a discrete-event simulator of flow graphs ([`sim`], seed 003), the
//! one description of a machine that every semantics prices a design on
//! ([`machine`]: nodes of cores at speeds, a network, what its threads
//! cost to wait) and an executor that runs a design for real ([`exec`]).
//!
//! ## Quick start
//!
//! ```
#![doc = include_str!("../../examples/quickstart.rs")]
//! ```
#![warn(missing_docs)]

/// The paper's relative errors, for its tables (feature `paper`).
#[cfg(feature = "paper")]
pub mod accuracy;
pub mod comm;
pub mod compare;
pub mod const_expr;
pub mod design;
#[cfg(feature = "exec")]
pub mod exec;
#[cfg(feature = "explore")]
pub mod explore;
#[cfg(feature = "fit")]
pub mod fit;
pub mod laws;
pub mod machine;
#[cfg(feature = "paper")]
pub mod paper;
pub mod pattern;
pub mod prelude;
#[cfg(feature = "queueing")]
pub mod queue;
pub mod semantics;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod summary;

pub use const_expr::ConstExpr;
pub use design::Design;
pub use pattern::{
    CostAnnotation, CostModel, CountName, CountParam, Fixed, Groups, MapReduce, MapReduceOver, On,
    Par, Part, PartList, Pattern, Pipe, Redist, Seq, ShuffleFree, ShuffleFreeParts, Tpool,
    TpoolOver, TwoOrMoreParts,
};
/// The design grammar (the `pattern-design` crate, which the macros also
/// use at compile time): the term, its parser, its checker and its fold.
pub use pattern_design as grammar;
pub use pattern_design::{
    Atom, Count, DesignError, DesignErrorKind, MapReduceParams, NegativeCount, Term, TermError,
};
/// The cost-expression engine (the `pattern-expr` crate, which the macros
/// also use at compile time).
pub use pattern_expr as expr;
pub use pattern_expr::{CompiledExpr, EvalError, Expr, Func, Growth, Latex, ParseError};
pub use semantics::{Mode, Resources};

#[cfg(feature = "macros")]
pub use pattern_macros::{cost, cost_budget, cost_of, cost_summary, design};

/// What the macros' expansions use; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::pattern::{
        CostAnnotation, Groups, InvalidDesign, On, Par, Part, Redist, cost_with, design_of,
    };
    pub use crate::summary::ConstText;
    pub use crate::{ConstExpr, CostModel, CountName, Pattern, ShuffleFree};
}
