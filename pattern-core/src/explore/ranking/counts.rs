//! Choosing the symbolic counts of a candidate design: the trait the
//! ranking calls, and the built-in chooser that takes them from the point.

use crate::Design;
use crate::grammar::Term;
use std::fmt;

/// Chooses the symbolic counts of a design (`tpool[n]`, a mapReduce's `m`
/// and `n`, ...) before the ranking evaluates it: one `(name, count)` per
/// symbol. A closure `Fn(&Design) -> Result<Vec<(String, u64)>, E>` is a
/// chooser (it ignores the point); [`PointCounts`] is the built-in one.
pub trait CountChooser {
    /// Why no counts could be chosen for a design (the design is then left
    /// out of the ranking, with this reason).
    type Error: fmt::Display;

    /// The counts of `design`'s symbolic counts at the point `at`.
    fn choose(
        &self,
        design: &Design,
        at: &[(&str, f64)],
    ) -> Result<Vec<(String, u64)>, Self::Error>;
}

impl<F, E> CountChooser for F
where
    F: Fn(&Design) -> Result<Vec<(String, u64)>, E>,
    E: fmt::Display,
{
    type Error = E;
    fn choose(&self, design: &Design, _at: &[(&str, f64)]) -> Result<Vec<(String, u64)>, E> {
        self(design)
    }
}

/// The built-in chooser: a design's counts are its fixed ones, or the
/// values the point binds for its symbols (positive integers); a symbol
/// the point leaves free is an error.
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::explore::ranking::{CountChooser, PointCounts};
///
/// let d = Design::parse("a = x; pipe(tpool[n](a), tpool[4](a))")?;
/// assert_eq!(PointCounts.choose(&d, &[("x", 8.0), ("n", 3.0)]).unwrap(), [("n".to_string(), 3)]);
/// let err = PointCounts.choose(&d, &[("x", 8.0)]).unwrap_err();
/// assert_eq!(err.to_string(), "the count `n` is not bound in the point");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PointCounts;

/// Why [`PointCounts`] could not give a design's counts.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PointCountError {
    /// A symbolic count the point does not bind.
    #[error("the count `{name}` is not bound in the point")]
    Unbound {
        /// The symbol.
        name: String,
    },
    /// A symbolic count bound to something other than a positive integer.
    #[error("the count `{name}` is bound to {value}, not a positive integer")]
    NotACount {
        /// The symbol.
        name: String,
        /// Its value in the point.
        value: f64,
    },
}

impl CountChooser for PointCounts {
    type Error = PointCountError;
    fn choose(
        &self,
        design: &Design,
        at: &[(&str, f64)],
    ) -> Result<Vec<(String, u64)>, PointCountError> {
        symbolic_counts(design.term())
            .into_iter()
            .map(|name| {
                let Some(&(_, value)) = at.iter().find(|(n, _)| *n == name) else {
                    return Err(PointCountError::Unbound { name });
                };
                // Exact integers up to 2^53 only: beyond, a float is no count.
                if value.fract() != 0.0 || !(1.0..=9.007_199_254_740_992e15).contains(&value) {
                    return Err(PointCountError::NotACount { name, value });
                }
                Ok((name, value as u64))
            })
            .collect()
    }
}

/// The names of the symbolic counts of `term`, sorted, each once (sorted,
/// not in [`Term::symbolic_counts`]' order of appearance, because the
/// command line prints and binds them in this order).
pub fn symbolic_counts(term: &Term) -> Vec<String> {
    let mut names: Vec<String> = term
        .symbolic_counts()
        .into_iter()
        .map(String::from)
        .collect();
    names.sort();
    names
}
