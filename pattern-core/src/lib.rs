//! # pattern-core
//!
//! Design-time performance modeling of parallel programs. Annotate the
//! sequential building blocks of a program with *cost models*, write the
//! parallel design as a term of patterns, and get the performance model of the
//! whole program as a symbolic [`Expr`] — before the parallel program exists.
//!
//! This crate is the one users depend on (`use pattern_core::prelude::*`).
//! Its layers, from text to numbers (docs/architecture.md draws them):
//!
//! | module | what it holds | feature |
//! | --- | --- | --- |
//! | [`expr`] | cost expressions: parsing, printing, the PMNF normal form, growth classes, evaluation, compiled sweeps | default |
//! | [`grammar`] | the term of a design, its one parser, checker and fold | default |
//! | [`Design`] | the one type of a design a user holds, and its models | default |
//! | [`semantics`] | the meanings of a design, each one fold: throughput, latency, footprint (and queueing) | default |
//! | [`dsl`] | designs as types, checked and priced at compile time, what the macros expand to | default |
//! | [`laws`] | the laws that relate designs, rewriting by them (seed 001 §5) | default |
//! | [`compare`] | whether a refactored design is equivalent, never worse, or worse somewhere | default |
//! | [`machine`] | the one description of a machine every semantics prices a design on | default |
//! | [`comm`] | communication costs: machine profiles of MPI-style operations, Hockney collectives | default |
//! | `queue` | closed queueing networks solved by Mean Value Analysis (seed 002) | `queueing` (`calibrate`) |
//! | `sim` | a discrete-event simulator of flow graphs (seed 003) | `sim` |
//! | `contract` | annotations as contracts: a `#[cost]` model checked against the function's timings | `measure` (`plots` for SVG) |
//! | `fit` | fitting cost models to measurements, Extra-P's formats (`fit::measure` with `measure`) | `fit` |
//! | `exec` | an executor that runs a design on threads for real, and the machine probe | `exec` |
//! | `exec::Rayon` | a second runner of the executor's plan on rayon's thread pools, as a rayon program is written | `rayon` |
//! | `explore` | decisions: thread counts, crossovers, sensitivities, rankings, sweeps, plots | `explore` (`plots`) |
//! | [`prelude`] | what most users need, in one import | default |
//! | `strategies` | `proptest` strategies for models and designs | `proptest` |
//! | `paper` | the papers' reference data, for tests and examples | `paper` |
//!
//! The default features give models and the macros; `full` turns on every
//! engine. Each feature pulls only its own dependencies.
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
#[cfg(feature = "measure")]
pub mod contract;
mod design;
pub mod dsl;
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
pub mod prelude;
#[cfg(feature = "queueing")]
pub mod queue;
pub mod semantics;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(feature = "proptest")]
pub mod strategies;

pub use design::Design;
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
    pub use crate::dsl::{
        ConstExpr, ConstText, CostAnnotation, CostModel, CountName, Groups, InvalidDesign, On, Par,
        Part, Pattern, Redist, ShuffleFree, cost_with, design_of,
    };
}
