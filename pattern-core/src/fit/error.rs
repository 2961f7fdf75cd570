//! Why a model could not be fitted.

/// Why [`super::Fitter`] could not fit a model. Bad input always gives one of
/// these, never a panic.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FitError {
    /// No points were given.
    #[error("no data points to fit")]
    NoData,
    /// Too few distinct values of a parameter: a hypothesis `c0 + c1·t(x)`
    /// has two coefficients, and leave-one-out cross-validation needs one
    /// point more.
    #[error(
        "too few distinct values of `{param}`: {got}, at least {needed} are needed (5 or more are recommended)"
    )]
    TooFewPoints {
        /// The parameter.
        param: String,
        /// How many distinct values are needed.
        needed: usize,
        /// How many there are.
        got: usize,
    },
    /// A point has the wrong number of coordinates.
    #[error("point {index} has {got} coordinates, but {expected} parameters were named")]
    Dimension {
        /// Index of the point in the input.
        index: usize,
        /// Number of parameters.
        expected: usize,
        /// Number of coordinates of the point.
        got: usize,
    },
    /// A coordinate or a value is NaN or infinite.
    #[error("point {index} is not finite: {what}")]
    NonFinite {
        /// Index of the point in the input.
        index: usize,
        /// The offending coordinate or value, as text.
        what: String,
    },
    /// A parameter value is zero or negative: `x^(1/3)` and `log2(x)` need
    /// positive sizes.
    #[error(
        "point {index}: {param} = {value} is not positive (parameter values are sizes or counts, and x^i·log2(x)^j needs x > 0)"
    )]
    NonPositiveParameter {
        /// Index of the point in the input.
        index: usize,
        /// The parameter.
        param: String,
        /// Its value.
        value: f64,
    },
    /// A measured value is negative (see
    /// [`super::Fitter::allow_negative_values`], which allows them).
    #[error("point {index}: negative value {value} (times and counts cannot be negative)")]
    NegativeValue {
        /// Index of the point in the input.
        index: usize,
        /// The value.
        value: f64,
    },
    /// Too few points along every line of a parameter: the points vary it
    /// only together with others (a diagonal design), so no
    /// single-parameter model of it can be fitted.
    #[error(
        "the points vary all parameters at once: `{param}` takes {distinct} values, but at most {along} of them with the other parameters fixed (each parameter needs 3 points, 5 recommended, where only it changes)"
    )]
    NotAlongLines {
        /// The parameter.
        param: String,
        /// Its distinct values over all points.
        distinct: usize,
        /// The most points on one line along it (the others fixed).
        along: usize,
    },
    /// Values so large that the fit's arithmetic overflows: a coefficient
    /// or the residual sum of squares is not finite.
    #[error(
        "the values overflow the fit (the largest is {largest:e}; its residual sum of squares is {rss}): rescale them, e.g. to a larger unit"
    )]
    Overflow {
        /// The largest value in magnitude.
        largest: f64,
        /// The residual sum of squares of the model chosen.
        rss: f64,
    },
    /// The parameter names are empty or repeated.
    #[error("invalid parameter names: {0}")]
    Parameters(String),
    /// An option of the fitter is out of range.
    #[error("invalid fitter option: {0}")]
    InvalidOption(String),
}
