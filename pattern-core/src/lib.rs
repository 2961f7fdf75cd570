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
pub mod const_expr;
pub mod design;
pub mod expr;
pub mod fit;
pub mod laws;
pub mod lower;
pub mod paper;
pub mod pattern;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod term;

pub use const_expr::ConstExpr;
pub use design::{Design, DesignError, DesignErrorKind};
pub use expr::{CompiledExpr, EvalError, Expr, Func, Growth, Latex, ParseError};
pub use lower::{Mode, Resources};
pub use pattern::{CostModel, MapReduce, Pattern, Pipe, Seq, ShuffleFree, Tpool};
pub use term::{Atom, Count, MapReduceParams, Term, TermError};

// Empty until the macros land; the re-export keeps the user-facing path fixed.
#[cfg(feature = "macros")]
#[allow(unused_imports)]
pub use pattern_macros::*;
