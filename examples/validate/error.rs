//! Why a validation could not be completed.

use pattern_core::exec::ExecError;
use pattern_core::fit::FitError;

/// Why a validation could not be completed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ValidationError {
    /// A configuration could not be run.
    #[error("running `{design}` at x = {x}: {source}")]
    Exec {
        /// The configuration.
        design: String,
        /// The size.
        x: usize,
        /// Why.
        source: ExecError,
    },
    /// A configuration's design (with the fitted atoms) did not parse.
    #[error("the design `{design}` is not valid: {message}")]
    Design {
        /// The configuration.
        design: String,
        /// The parser's message.
        message: String,
    },
    /// A model could not be fitted.
    #[error("fitting {what}: {source}")]
    Fit {
        /// What was fitted.
        what: String,
        /// Why it failed.
        source: FitError,
    },
    /// An atom to measure has no element kernel.
    #[error("the atom `{0}` has no element kernel to measure")]
    NoKernel(String),
    /// A suite without sizes, atoms or configurations.
    #[error("the suite `{0}` is empty: it needs sizes, atoms and configurations")]
    Empty(String),
}
