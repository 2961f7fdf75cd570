//! The design grammar of `pattern`: the [`Term`] of a design, its one
//! parser ([`parse`]), its one well-formedness checker ([`check`]) and the
//! one [`fold()`] through which every meaning of a design is given.
//!
//! Users reach it as `pattern_core::design` (and `pattern_core::Term`, ...);
//! it is a crate of its own so that the `design!` macro reads and checks a
//! design at compile time with the same code as `Design::parse` at run time.

#![warn(missing_docs)]

pub mod check;
mod display;
mod error;
pub mod fold;
pub mod model_size;
pub mod parse;
mod position;
mod replace;
mod structure;
mod syntax;
mod term;
pub mod threads;

pub use error::{DesignError, DesignErrorKind, Problem, Site, TermError};
pub use fold::{Scope, Semantics, fold};
pub use syntax::MAX_DEPTH;
pub use term::{Atom, Count, MapReduceParams, NegativeCount, Preorder, Term};
pub use threads::{MAX_COUNT, ThreadCount};
