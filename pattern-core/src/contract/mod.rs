//! Annotations as contracts (issue 38): a `#[cost]` model checked against
//! the function it annotates. [`Contract`] measures the function at a
//! range of sizes with the harness, fits its model with the fitter, and
//! compares: the growth class (same, lower, higher), the ratio measured /
//! annotated over the range, the fitted model as an annotation to paste,
//! and a verdict against a tolerance. [`check_cost!`](crate::check_cost)
//! is the same in one line for a test or a bench. A design's contract
//! (`Contract::of_design`, feature `queueing`) puts its time per element
//! predicted on a machine against runs of it by the executor
//! (`DesignRuns`, feature `exec`), with the same verdict and report.
//!
//! Timings belong in a benchmark or an opt-in test (`#[ignore]`), never in
//! the default `cargo test`: docs/contract.md shows both. The checker
//! itself is tested on timings recorded before ([`Recorded`], any
//! [`Source`]), so its verdicts are exact.
//!
//! ```
//! use pattern_core::{check_cost, cost};
//!
//! #[cost("0.75 * x * log2(x)")]
//! fn qsort(mut v: Vec<i32>) -> Vec<i32> {
//!     v.sort_unstable();
//!     v
//! }
//!
//! // 0..x scrambled: a multiplicative permutation modulo the prime 2^31 - 1.
//! let scrambled = |x: usize| {
//!     (0..x as u64).map(|i| (i * 1_103_515_245 % 2_147_483_647) as i32).collect::<Vec<_>>()
//! };
//! let report = check_cost!(qsort, scrambled, sizes = (10..=14).map(|k| 1 << k), tolerance = 0.25)?;
//! println!("{report}"); // the text; report.to_json(), report.svg()
//! assert_eq!(report.points.len(), 5);
//! assert!(report.suggestion.starts_with("#[cost(\""));
//! // The verdict is this machine's: assert it in a bench or an #[ignore]
//! // test, `assert!(report.holds(), "{report}")`.
//! # Ok::<(), pattern_core::contract::ContractError>(())
//! ```

mod check;
#[cfg(feature = "queueing")]
mod design;
mod error;
#[cfg(feature = "queueing")]
mod predicted;
mod report;
mod source;
#[cfg(feature = "plots")]
mod svg;
mod verdict;

pub use check::{Contract, DEFAULT_ATTEMPTS, DEFAULT_TOLERANCE};
#[cfg(all(feature = "queueing", feature = "exec"))]
pub use design::DesignRuns;
pub use error::ContractError;
pub use report::{Point, Report};
pub use source::{Recorded, Source, Timed, default_harness};
pub use verdict::{Breach, ClassOrder, Ratios, Verdict};

/// Checks an annotated function's `#[cost]` model against its timings, in
/// one line: `check_cost!(f, input, sizes = S, tolerance = T)` times
/// `f(input(x))` at the sizes `S` (any `IntoIterator<Item = usize>`) and
/// returns `Result<Report, ContractError>`; the tolerance and
/// `attempts = N` are optional
/// ([`DEFAULT_TOLERANCE`](crate::contract::DEFAULT_TOLERANCE),
/// [`DEFAULT_ATTEMPTS`](crate::contract::DEFAULT_ATTEMPTS)). When the
/// function does not take the input by value, give the call:
/// `check_cost!(f, input, |mut v| { f(&mut v); v }, sizes = S)`; the
/// annotation is still `f`'s. It is [`Contract`](crate::contract::Contract)
/// built from `cost_of!(f)`; see the module's example.
#[cfg(feature = "macros")]
#[macro_export]
macro_rules! check_cost {
    ($($f:ident)::+, $input:expr, sizes = $sizes:expr $(, tolerance = $tol:expr)? $(, attempts = $n:expr)? $(,)?) => {
        $crate::contract::Contract::new($crate::cost_of!($($f)::+))
            .sizes($sizes)
            $(.tolerance($tol))?
            $(.attempts($n))?
            .measure($input, $($f)::+)
    };
    ($($f:ident)::+, $input:expr, $call:expr, sizes = $sizes:expr $(, tolerance = $tol:expr)? $(, attempts = $n:expr)? $(,)?) => {
        $crate::contract::Contract::new($crate::cost_of!($($f)::+))
            .sizes($sizes)
            $(.tolerance($tol))?
            $(.attempts($n))?
            .measure($input, $call)
    };
}
