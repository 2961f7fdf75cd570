//! The bottleneck stage of a pipeline per range of a variable: the stage
//! whose time attains the pipeline's `max`, found as the lowest of the
//! negated stage models by the crossover search.

use super::SensitivityError;
use crate::explore::crossover::{Crossovers, Span, crossovers};
use crate::grammar::Term;
use crate::semantics::Throughput;
use crate::{Design, Expr};
use serde::{Deserialize, Serialize};

/// Which stage of a pipeline is the bottleneck where: [`bottleneck_stages`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bottlenecks {
    /// The stages, as terms in the design syntax, in pipeline order.
    pub stages: Vec<String>,
    /// The stages' models (time per element of each stage alone).
    pub models: Vec<Expr>,
    /// The pieces of the span, each with its bottleneck stage as `best`
    /// (the slowest; stages tied with it in `tied`), the points where the
    /// bottleneck moves and the stages equal everywhere.
    pub ranges: Crossovers,
}

/// The stages of the outermost pipeline (the first in pre-order), its
/// nested `pipe`s flattened: `pipe(a, pipe(b, c))` has stages `a, b, c`.
fn pipeline_stages(term: &Term) -> Option<Vec<&Term>> {
    let root = term.preorder().find(|t| matches!(t, Term::Pipe(..)))?;
    Some(root.chain())
}

/// The bottleneck stage of the design's outermost pipeline for each range
/// of `span.variable` (the other variables bound by `bound`).
///
/// The stages are compared as they stand in the pipeline: patterns around
/// it scale every stage alike (a task pool divides all by its count), so
/// the order does not change, except where a `groups` or `par` around the
/// pipeline rebinds `p`: bind `p` to the processors the pipeline sees.
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::explore::crossover::Span;
/// use pattern_core::explore::sensitivity::bottleneck_stages;
///
/// // 100 + x, 3x and x^2/100: the constant stage is slowest up to x = 50
/// // (100 + x = 3x), 3x up to x = 300 (3x = x^2/100), then the square.
/// let d = Design::parse("a = 100 + x; b = 3*x; c = x^2/100; pipe(a, b, c)").unwrap();
/// let found = bottleneck_stages(&d, Span::new("x", 1.0, 1e4), &[]).unwrap();
/// assert_eq!(found.stages, ["a", "b", "c"]);
/// let slowest: Vec<usize> = found.ranges.intervals.iter().map(|i| i.best).collect();
/// assert_eq!(slowest, [0, 1, 2]);
/// let at: Vec<f64> = found.ranges.points.iter().map(|p| p.at).collect();
/// assert!((at[0] - 50.0).abs() < 1e-9 && (at[1] - 300.0).abs() < 1e-9);
/// ```
pub fn bottleneck_stages(
    design: &Design,
    span: Span,
    bound: &[(&str, f64)],
) -> Result<Bottlenecks, SensitivityError> {
    let stages = pipeline_stages(design.term()).ok_or(SensitivityError::NotAPipeline {
        design: design.term().to_string(),
    })?;
    let throughput = Throughput::new();
    let models: Vec<Expr> = stages.iter().map(|s| throughput.expr(s)).collect();
    // The slowest stage is the lowest of the negated times.
    let negated: Vec<Expr> = models.iter().map(|m| -m.clone()).collect();
    let ranges = crossovers(&negated, span, bound)?;
    Ok(Bottlenecks {
        stages: stages.iter().map(|s| s.to_string()).collect(),
        models,
        ranges,
    })
}
