//! Why a check could not be made.

use crate::fit::FitError;

/// Why a [`Contract`](super::Contract) could not judge an annotation: bad
/// sizes or tolerance, an annotation that cannot be evaluated at the sizes,
/// timings that are missing or not numbers, or a fit that failed. A
/// verdict that the annotation does not hold is not an error: it is in the
/// [`Report`](super::Report).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ContractError {
    /// Fewer than 3 distinct sizes: the fitter needs 3 to tell a class.
    #[error("{0} distinct sizes: a check needs at least 3 to fit a model")]
    TooFewSizes(usize),
    /// A size of 0 (the models are in `log2(x)`, undefined there).
    #[error("a size of 0: sizes are positive")]
    ZeroSize,
    /// A tolerance that is not a positive finite number.
    #[error("a tolerance of {0}: give a positive number, e.g. 0.25 for 25 %")]
    Tolerance(f64),
    /// The annotation has variables besides the size `x`.
    #[error(
        "the annotation of `{function}` depends on `{var}` besides x: a check measures one size; annotate the function in x alone"
    )]
    OtherVariable {
        /// The function.
        function: String,
        /// The variable.
        var: String,
    },
    /// The annotation's growth class in `x` cannot be told (an exponent
    /// that depends on `x`).
    #[error("the growth class in x of the model of `{0}` cannot be told")]
    NoClass(String),
    /// The annotation is not a positive number at a size.
    #[error("the annotation of `{function}` is {value} ns at x = {x}: it must be positive")]
    AnnotationValue {
        /// The function.
        function: String,
        /// The size.
        x: usize,
        /// Its value there.
        value: f64,
    },
    /// A recorded measurement without this size.
    #[error("no timings at x = {0} in the recorded measurement")]
    MissingSize(usize),
    /// A size without timings.
    #[error("no timing at x = {0}")]
    NoTimings(usize),
    /// A timing that is negative or not a number.
    #[error("a timing of {ns} ns at x = {x}: timings are finite and non-negative")]
    BadTiming {
        /// The size.
        x: usize,
        /// The timing.
        ns: f64,
    },
    /// A design's prediction on its machine failed.
    #[error("the prediction of `{function}` failed: {message}")]
    Prediction {
        /// The design's name.
        function: String,
        /// The queueing semantics' message.
        message: String,
    },
    /// A run of a design by the executor failed.
    #[error("the run of the design failed: {0}")]
    Run(String),
    /// Drawing the report failed (plotters' message).
    #[error("drawing the report failed: {0}")]
    Plot(String),
    /// The fitter failed.
    #[error("the measured model could not be fitted: {0}")]
    Fit(#[from] FitError),
}
