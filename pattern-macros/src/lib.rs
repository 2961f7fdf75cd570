//! Procedural macros of `pattern`, re-exported by `pattern-core` (default
//! feature `macros`); depend on `pattern-core`, not on this crate.
//!
//! - `#[cost("1034.17 * x * log2(x)")]` on a function: the model is parsed and
//!   simplified at compile time, shown in the function's docs, and the
//!   function becomes an atom of designs.
//! - `design!(pipe(tpool[4](qsort), inc))`: a design as a value, or with
//!   `design!(pub type Sorter = ...)` as a type.
//! - `cost_budget!(Sorter, x = 1e6, max = 6e9)`: the build fails if the
//!   design costs more.
//! - `cost_summary!`: a table of designs (model, class, cost at chosen
//!   points) as a `&'static str` built at compile time.
//! - `cost_of!(qsort)`: what `#[cost]` recorded about a function.
//!
//! Each entry point is a thin wrapper over a `*_inner` function on
//! `proc_macro2` tokens, which the unit tests call directly.

mod ast;
mod attr;

mod expand;
mod model;
mod tokens;

use proc_macro::TokenStream;

/// Annotates a function with its cost model, in nanoseconds per call as a
/// function of `x` (the number of input elements).
///
/// Options: `var = "n"` (the model's size variable, renamed to `x`),
/// `unit = "ns" | "us" | "ms" | "s"` (converted to ns), `name = "..."` (the
/// atom's name in designs; default: the function's), `bytes = "8*x"` (the
/// bytes a call moves to and from memory, in the model's variables: renamed
/// by `var`, not converted by `unit`; the atom's `[bytes = ..]` in designs).
#[proc_macro_attribute]
pub fn cost(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::cost_inner(args.into(), item.into()).into()
}

/// A design in the design syntax, over annotated functions, `CostModel`
/// types and atoms defined inside it. In expression position it gives a
/// `DesignValue`; `design!(pub type Name = ...)` declares a design type.
#[proc_macro]
pub fn design(input: TokenStream) -> TokenStream {
    expand::design_inner(input.into()).into()
}

/// `cost_budget!(Design, x = 1e6, max = 6e9);` fails the build when the
/// design's predicted cost at the point exceeds the budget (ns per element).
#[proc_macro]
pub fn cost_budget(input: TokenStream) -> TokenStream {
    expand::cost_budget_inner(input.into()).into()
}

/// `cost_summary! { pub const SUMMARY = [A, B] at x = [1024, 1e6]; }`: a
/// Markdown table of the designs' models, growth classes and costs, built at
/// compile time into a `&'static str`.
#[proc_macro]
pub fn cost_summary(input: TokenStream) -> TokenStream {
    expand::cost_summary_inner(input.into()).into()
}

/// `cost_of!(qsort)` (or `cost_of!(Type::method)`): the `CostAnnotation` that
/// `#[cost]` recorded for a function.
#[proc_macro]
pub fn cost_of(input: TokenStream) -> TokenStream {
    expand::cost_of_inner(input.into()).into()
}
