//! # pattern-core
//!
//! Design-time performance modeling of parallel programs. Annotate the
//! sequential building blocks of a program with *cost models*, write the
//! parallel design as a term of patterns, and get the performance model of the
//! whole program as a symbolic [`Expr`] — before the parallel program exists.
//!
//! This crate is the one users depend on. It holds the cost-expression engine
//! ([`Expr`]: parsing, printing, the PMNF normal form, growth classes,
//! evaluation and a compiled form for sweeps) and the [`accuracy`] helpers.
//! The [`laws`] relate designs (seed 001 §5): each law is a function, and
//! [`laws::compare`] checks a refactoring of your own. The module
//! `strategies` (feature `proptest`, on by default) generates models and
//! designs for property tests.
//!
//! ## Quick start
//!
//! ```
#![doc = include_str!("../../examples/quickstart.rs")]
//! ```
#![warn(missing_docs)]

pub mod accuracy;
pub mod collective;
pub mod comm;
pub mod const_expr;
pub mod design;
pub mod exec;
pub mod fit;
pub mod laws;
pub mod lower;
pub mod paper;
pub mod pattern;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod summary;
pub mod term;

pub use const_expr::ConstExpr;
pub use design::{Design, DesignError, DesignErrorKind};
pub use lower::{Mode, Resources};
pub use pattern::{
    CostAnnotation, CostModel, CountName, CountParam, DesignValue, Fixed, MapReduce, MapReduceOver,
    Pattern, Pipe, Seq, ShuffleFree, Tpool, TpoolOver,
};
/// The cost-expression engine (the `pattern-expr` crate, which the macros
/// also use at compile time).
pub use pattern_expr as expr;
pub use pattern_expr::{CompiledExpr, EvalError, Expr, Func, Growth, Latex, ParseError};
pub use term::{Atom, Count, MapReduceParams, Term, TermError};

#[cfg(feature = "macros")]
pub use pattern_macros::{cost, cost_budget, cost_of, cost_summary, design};

/// What the macros' expansions use; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::pattern::{CostAnnotation, DesignValue, cost_with};
    pub use crate::summary::ConstText;
    pub use crate::{ConstExpr, CostModel, CountName, Pattern, ShuffleFree};

    /// Stands for a design that `design!` rejected, so that its uses add no
    /// errors of their own.
    pub enum InvalidDesign {}

    impl Pattern for InvalidDesign {
        const MODEL: ConstExpr = ConstExpr::Num(0.0);
        fn term() -> crate::Term {
            crate::Term::atom("invalid_design", crate::Expr::num(0.0))
        }
    }

    impl ShuffleFree for InvalidDesign {}
}
