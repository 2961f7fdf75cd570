//! Code generation. Every entry point returns the user's item unchanged on
//! error (plus a harmless placeholder where later code names what the macro
//! would have made), so a mistake shows as one error, not a cascade.

mod annotation;
mod budget;
mod cost;
mod design;
mod errors;
mod summary;

pub use budget::cost_budget_inner;
pub use cost::{cost_inner, cost_of_inner};
pub use design::design_inner;
pub use summary::cost_summary_inner;

/// The expansion of `input` by `f`, as text: what the tests read.
#[cfg(test)]
pub(crate) fn expand(
    f: fn(proc_macro2::TokenStream) -> proc_macro2::TokenStream,
    input: &str,
) -> String {
    f(input.parse().unwrap()).to_string()
}
