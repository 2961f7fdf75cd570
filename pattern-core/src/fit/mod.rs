//! Calibration: measure building blocks and fit their atomic models (seed 001
//! §2, §4.1; SPEC §6) — an Extra-P-class modeler in Rust.
//!
//! - [`measure`]: a harness that times a function at a list of sizes (inputs
//!   built outside the timed region, warm-up, repetitions, optional early stop,
//!   progress bar) and reports the spread like seed 001 Table 1; for kernels
//!   as short as reading the clock, batched timing and the clock's overhead;
//!   for loaded machines, the time waited for a CPU left out and the sizes
//!   visited in random order.
//! - [`Fitter`]: Extra-P's hypothesis search — `c0 + c1·x^i·log2(x)^j` over
//!   the 42 classes of [`HypothesisSpace::extrap`], least squares,
//!   leave-one-out cross-validation, SMAPE (or RSS) — plus user-defined
//!   exponent sets, a multi-term mode and multi-parameter models. The result
//!   is a [`Fit`]: an [`Expr`](crate::Expr) in PMNF with exact exponents and
//!   its [`FitStats`].
//! - [`extrap_io`]: Extra-P's text and JSON formats, to read its inputs and
//!   to cross-check a model in Extra-P.
//! - [`stats`]: median, quartiles, coefficient of variation, SMAPE.
//!
//! ```
//! use pattern_core::fit::Fitter;
//!
//! // inc ×10 of seed 001 Table 1: 536.185·x ns, measured at 6 sizes × 5 runs.
//! let mut points = Vec::new();
//! for k in 0..6 {
//!     let x = 1024.0 * f64::from(1 << k);
//!     for r in [0.98, 0.99, 1.0, 1.01, 1.02] {
//!         points.push((x, 536.185 * x * r));
//!     }
//! }
//! let fit = Fitter::default().fit(&points)?;
//! assert_eq!(fit.model().growth("x").unwrap().to_string(), "O(x)");
//! assert_eq!(fit.model().to_string(), "536.185·x");
//! # Ok::<(), pattern_core::fit::FitError>(())
//! ```
//!
//! Differences from Extra-P, all deliberate: repetitions are combined by the
//! median by default (the paper's setting; Extra-P's default is the mean);
//! sizes `x ≤ 0` and negative values are errors instead of warnings; fewer
//! than 3 distinct sizes is an error (Extra-P warns below 5 and fits anyway);
//! multi-parameter structures are chosen by cross-validation (Extra-P uses
//! in-sample SMAPE there); the adjusted R² is computed from the in-sample RSS;
//! a constant coefficient below 0.05 % of the smallest value is set to zero
//! in the final model too (Extra-P does so only inside cross-validation);
//! with 3 or more repetitions per point, a term is kept only if it is
//! significant given their spread ([`Fitter::significance`]).
//! [`Fitter::extrap_compatible`] goes back to Extra-P's choices where they
//! change results: absolute least squares, the mean, numpy's rank decision,
//! no noise test.

mod error;
pub mod extrap_io;
mod fitter;
mod hypothesis;
mod lsq;
pub mod measure;
mod search;
mod significance;
pub mod stats;

pub use error::FitError;
pub use fitter::{
    Aggregate, Alternative, Extrapolation, Fit, FitStats, FittedTerm, Fitter, MAX_SEGMENTED_POINTS,
    Outlier, Resolution, Segmentation, Segmented, SetAside, within_noise,
};
pub use hypothesis::{HypothesisSpace, TermClass};
pub use num_rational::Rational64;
pub use search::{Selection, Weighting};
pub use significance::Significance;
