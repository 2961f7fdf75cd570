//! Crossovers: over which values of one variable each of several designs
//! is best (lowest time per element), and the points where the best one
//! changes, to `1e-9` relative or better.
//!
//! The points are roots of the pairwise differences of the models, found
//! without sampling: where the difference of two models is a sum of PMNF
//! terms of a solvable shape (a monomial ratio, a line, a quadratic in
//! `x^e` or in `log2(x)`), in closed form; otherwise by interval arithmetic
//! over the expression tree, which proves that a box has no root, or one
//! (the difference is monotone there: bisection), or one extremum
//! (bisection on the derivative; a tangency if the difference touches 0
//! there), and splits every other box, down to a width and a number of
//! boxes past which the search stops with [`CrossoverError::Undecided`]
//! rather than guess. `max`, `min`, `ceil` and `floor` are handled by their
//! enclosures: the slopes of a `max` are those of its arguments, a `ceil`
//! that may jump has no bound on its slope, so boxes around kinks and
//! jumps are split until decided. On a box where one argument of a `max`
//! (or `min`) dominates the others, the `max` is replaced by it
//! symbolically: two pipelines that share their slowest stage cancel
//! exactly where it dominates (a tie no enclosure could prove), and the
//! rest is searched without the kink.
//!
//! Two models whose difference stays within 1e-12 of their
//! magnitudes on a piece *tie* there; equal everywhere, they are reported
//! in [`Crossovers::ties`].
//!
//! ```
//! use pattern_core::Design;
//! use pattern_core::explore::crossover::{design_crossovers, PointKind, Span};
//!
//! let defs = "qsort = 1034.17*x*log2(x); inc = 536.185*x;";
//! let sort = Design::parse(&format!("{defs} tpool[4](qsort)")).unwrap();
//! let incs = Design::parse(&format!("{defs} tpool[2](seq(inc, inc))")).unwrap();
//! let found = design_crossovers(&[sort, incs], Span::new("x", 1.0, 1e12), &[]).unwrap();
//! // 258.5425·x·log2(x) = 536.185·x where log2(x) = 536.185/258.5425.
//! let at = (536.185f64 / 258.5425).exp2();
//! assert_eq!(found.points.len(), 1);
//! let point = &found.points[0];
//! assert!((point.at - at).abs() < 1e-12 * at);
//! assert_eq!((point.before, point.after, point.kind), (0, 1, PointKind::Crossing));
//! assert!(point.closed_form);
//! assert_eq!(found.intervals[0].best, 0); // the sort is faster below
//! assert_eq!(found.intervals[1].best, 1);
//! ```

mod closed_form;
mod envelope;
mod interval;
mod resolve;
mod roots;
mod tape;

use crate::{Design, Expr};
use roots::{Failure, Problem};
use serde::{Deserialize, Serialize};
use tape::{CompileIssue, Tape};

/// The variable to vary and its range `[lo, hi]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span<'a> {
    /// The variable's name (`x`, `n`, `p`, ...).
    pub variable: &'a str,
    /// The lower end (may be tiny; positive for models with logarithms).
    pub lo: f64,
    /// The upper end.
    pub hi: f64,
}

impl<'a> Span<'a> {
    /// `variable` over `[lo, hi]`.
    pub fn new(variable: &'a str, lo: f64, hi: f64) -> Span<'a> {
        Span { variable, lo, hi }
    }
}

/// What kind of point a root or a crossover is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PointKind {
    /// The difference changes sign: the designs swap.
    Crossing,
    /// The difference touches 0 without changing sign (a double root):
    /// the designs are equal at the point, the better one stays better.
    Tangency,
    /// The difference jumps over 0 (a `ceil` or `floor`): the designs swap
    /// without being equal anywhere.
    Jump,
    /// Two designs start or stop tying (equal on a whole interval).
    TieBoundary,
}

/// A root of a model or of the difference of two.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// Where.
    pub at: f64,
    /// A crossing, a tangency or a jump.
    pub kind: PointKind,
    /// Whether it was computed in closed form (else by the numeric search).
    pub closed_form: bool,
}

impl Root {
    fn numeric(at: f64, kind: PointKind) -> Root {
        Root {
            at,
            kind,
            closed_form: false,
        }
    }
}

/// The roots of one model over a span: [`roots`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Roots {
    /// The isolated roots, in increasing order.
    pub roots: Vec<Root>,
    /// The pieces `[a, b]` on which the model is zero (to 1e-12 of its scale),
    /// in increasing order.
    pub zero_pieces: Vec<(f64, f64)>,
}

/// A piece of the span with the design that is best on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestInterval {
    /// Where the piece starts.
    pub lo: f64,
    /// Where it ends.
    pub hi: f64,
    /// The index of the best design (the first of those tied for best).
    pub best: usize,
    /// The other designs equal to the best one on the whole piece.
    pub tied: Vec<usize>,
}

/// A point where the best design changes, or where another design touches
/// the best one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CrossoverPoint {
    /// Where.
    pub at: f64,
    /// The best design just below the point.
    pub before: usize,
    /// The best design just above it (the same as `before` at a tangency).
    pub after: usize,
    /// The two designs whose models meet here (`(best, other)` at a
    /// tangency).
    pub designs: (usize, usize),
    /// A crossing, a tangency, a jump or the start or end of a tie.
    pub kind: PointKind,
    /// Whether the point was computed in closed form.
    pub closed_form: bool,
}

/// Which design is best where: [`crossovers`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Crossovers {
    /// The variable varied.
    pub variable: String,
    /// The pieces of the span in increasing order, covering it, each with
    /// its best design; neighbours differ in their best or tied designs.
    pub intervals: Vec<BestInterval>,
    /// The points between the pieces, and the tangencies of other designs
    /// with the best one, in increasing order.
    pub points: Vec<CrossoverPoint>,
    /// The pairs of designs (by index, smaller first) equal on the whole
    /// span.
    pub ties: Vec<(usize, usize)>,
}

/// Why crossovers could not be found.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CrossoverError {
    /// Fewer than two designs to compare.
    #[error("at least two designs are needed to find crossovers, got {given}")]
    TooFewDesigns {
        /// How many were given.
        given: usize,
    },
    /// The range is empty, reversed or not finite.
    #[error("invalid range [{lo}, {hi}] for `{variable}`: give finite ends with lo < hi")]
    InvalidRange {
        /// The variable.
        variable: String,
        /// The lower end given.
        lo: f64,
        /// The upper end given.
        hi: f64,
    },
    /// A bound variable's value is NaN or infinite.
    #[error("`{name}` is bound to {value}: give it a finite number")]
    InvalidBinding {
        /// The variable.
        name: String,
        /// Its value.
        value: f64,
    },
    /// A model depends on a variable that is neither varied nor bound.
    #[error(
        "model {model} depends on `{name}`, which is neither the variable `{variable}` nor bound: give it a value"
    )]
    Unbound {
        /// The index of the model.
        model: usize,
        /// The unbound variable.
        name: String,
        /// The variable varied.
        variable: String,
    },
    /// A model calls a function the engine does not define.
    #[error(
        "model {model} calls `{name}`, which is not a built-in function: resolve it first (a communication function against a machine profile)"
    )]
    Unresolved {
        /// The index of the model.
        model: usize,
        /// The function.
        name: String,
    },
    /// A model calls a function with a number of arguments it does not
    /// take (a tree built through `Expr`'s public variants).
    #[error("model {model} calls {call}: not a well-formed expression")]
    Malformed {
        /// The index of the model.
        model: usize,
        /// The call, as `log with 1 arguments`.
        call: String,
    },
    /// A model has no finite value at a point of the span.
    #[error("model {model} is not finite at {variable} = {at}: choose a span where it is defined")]
    NonFinite {
        /// The index of the model.
        model: usize,
        /// The variable varied.
        variable: String,
        /// The point.
        at: f64,
    },
    /// The search could not decide whether two models meet in a piece
    /// within its limits (200,000 boxes, boxes no narrower than 1e-12
    /// relative).
    #[error("could not decide whether models {} and {} meet in [{lo}, {hi}] ({boxes} boxes examined): a model with too many jumps or kinks there", designs.0, designs.1)]
    Undecided {
        /// The two models (one for [`roots`]: both the same).
        designs: (usize, usize),
        /// The undecided piece.
        lo: f64,
        /// Its upper end.
        hi: f64,
        /// The boxes examined.
        boxes: usize,
    },
}

/// A model with the bound variables substituted, and compiled.
struct Bound {
    model: Expr,
    tape: Tape,
}

fn check_span(span: &Span) -> Result<(), CrossoverError> {
    if span.lo.is_finite() && span.hi.is_finite() && span.lo < span.hi {
        Ok(())
    } else {
        Err(CrossoverError::InvalidRange {
            variable: span.variable.to_string(),
            lo: span.lo,
            hi: span.hi,
        })
    }
}

/// Substitutes the bound values (the varied variable keeps its name). Not
/// simplified: the normal form rounds coefficients to 12 digits, which a
/// difference of nearly equal terms would turn into errors far above 1e-9.
fn bind(model: &Expr, span: &Span, bound: &[(&str, f64)]) -> Result<Expr, CrossoverError> {
    let mut values = Vec::with_capacity(bound.len());
    for &(name, value) in bound {
        if name == span.variable {
            continue;
        }
        if !value.is_finite() {
            return Err(CrossoverError::InvalidBinding {
                name: name.to_string(),
                value,
            });
        }
        values.push((name, Expr::num(value)));
    }
    Ok(model.subs_all(&values))
}

fn compile(model: &Expr, index: usize, span: &Span) -> Result<Tape, CrossoverError> {
    Tape::compile(model, span.variable).map_err(|issue| match issue {
        CompileIssue::OtherVariable(name) => CrossoverError::Unbound {
            model: index,
            name,
            variable: span.variable.to_string(),
        },
        CompileIssue::Unresolved(name) => CrossoverError::Unresolved { model: index, name },
        CompileIssue::Arity(call) => CrossoverError::Malformed { model: index, call },
    })
}

fn prepare(
    models: &[Expr],
    span: &Span,
    bound: &[(&str, f64)],
) -> Result<Vec<Bound>, CrossoverError> {
    check_span(span)?;
    let mut out = Vec::with_capacity(models.len());
    for (index, model) in models.iter().enumerate() {
        let model = bind(model, span, bound)?;
        let tape = compile(&model, index, span)?;
        for at in [span.lo, span.hi] {
            if !tape.at(at).v.is_finite() {
                return Err(CrossoverError::NonFinite {
                    model: index,
                    variable: span.variable.to_string(),
                    at,
                });
            }
        }
        out.push(Bound { model, tape });
    }
    Ok(out)
}

/// The roots of `model` as a function of `span.variable` over the span,
/// the other variables bound by `bound`.
///
/// ```
/// use pattern_core::Expr;
/// use pattern_core::explore::crossover::{roots, PointKind, Span};
///
/// // (x - 1)(x - 10)(x - 100): three crossings, found numerically.
/// let f = Expr::parse("(x - 1)*(x - 10)*(x - 100) * k").unwrap();
/// let found = roots(&f, Span::new("x", 0.5, 1e3), &[("k", 2.0)]).unwrap();
/// let at: Vec<f64> = found.roots.iter().map(|r| r.at).collect();
/// assert_eq!(at.len(), 3);
/// for (got, want) in at.iter().zip([1.0, 10.0, 100.0]) {
///     assert!((got - want).abs() < 1e-12 * want);
/// }
/// assert!(found.roots.iter().all(|r| r.kind == PointKind::Crossing));
/// ```
pub fn roots(model: &Expr, span: Span, bound: &[(&str, f64)]) -> Result<Roots, CrossoverError> {
    let prepared = prepare(std::slice::from_ref(model), &span, bound)?;
    let f = &prepared[0];
    if let Some(found) =
        closed_form::terms(&f.model, span.variable).and_then(|t| closed_form_roots(&t, &span))
    {
        return Ok(found);
    }
    let parts: Vec<Expr> = match &f.model {
        Expr::Add(items) => items.clone(),
        other => vec![other.clone()],
    };
    let scale_parts = parts
        .iter()
        .map(|p| compile(p, 0, &span))
        .collect::<Result<Vec<_>, _>>()?;
    let problem = Problem {
        f: &f.tape,
        scale_parts: &scale_parts,
        source: Some((&f.model, span.variable)),
    };
    let found = roots::isolate(&problem, span.lo, span.hi)
        .map_err(|failure| failed(failure, (0, 0), &prepared, &span))?;
    Ok(Roots {
        roots: found.roots,
        zero_pieces: found.ties,
    })
}

/// The closed-form roots of a sum of terms, if it has them.
fn closed_form_roots(terms: &[closed_form::Term], span: &Span) -> Option<Roots> {
    let roots = closed_form::roots(terms, span.lo, span.hi)?;
    let zero_pieces = if terms.is_empty() {
        vec![(span.lo, span.hi)]
    } else {
        Vec::new()
    };
    Some(Roots { roots, zero_pieces })
}

fn failed(
    failure: Failure,
    designs: (usize, usize),
    models: &[Bound],
    span: &Span,
) -> CrossoverError {
    match failure {
        Failure::NonFinite { at } => {
            let model = [designs.0, designs.1]
                .into_iter()
                .find(|&i| !models[i].tape.at(at).v.is_finite())
                .unwrap_or(designs.0);
            CrossoverError::NonFinite {
                model,
                variable: span.variable.to_string(),
                at,
            }
        }
        Failure::Undecided { lo, hi, boxes } => CrossoverError::Undecided {
            designs,
            lo,
            hi,
            boxes,
        },
    }
}

/// The roots of `models[i] - models[j]`.
fn pair_roots(
    models: &[Bound],
    (i, j): (usize, usize),
    span: &Span,
) -> Result<Roots, CrossoverError> {
    let (a, b) = (&models[i], &models[j]);
    let var = span.variable;
    if let (Some(ta), Some(tb)) = (
        closed_form::terms(&a.model, var),
        closed_form::terms(&b.model, var),
    ) && let Some(found) = closed_form_roots(&closed_form::difference(&ta, &tb), span)
    {
        return Ok(found);
    }
    let difference = a.model.clone() - b.model.clone();
    let tape = compile(&difference, i, span)?;
    let scale_parts = [a.tape.clone(), b.tape.clone()];
    let problem = Problem {
        f: &tape,
        scale_parts: &scale_parts,
        source: Some((&difference, span.variable)),
    };
    let found = roots::isolate(&problem, span.lo, span.hi)
        .map_err(|failure| failed(failure, (i, j), models, span))?;
    Ok(Roots {
        roots: found.roots,
        zero_pieces: found.ties,
    })
}

/// Which of `models` is lowest where over the span, the other variables
/// bound by `bound`: the pieces, the crossover points and the ties.
///
/// ```
/// use pattern_core::Expr;
/// use pattern_core::explore::crossover::{crossovers, PointKind, Span};
///
/// // (x - 1)^2 + 5 touches 5 at x = 1 without crossing it.
/// let models = [Expr::parse("5").unwrap(), Expr::parse("(x - 1)^2 + 5").unwrap()];
/// let found = crossovers(&models, Span::new("x", 0.0, 3.0), &[]).unwrap();
/// assert_eq!(found.intervals.len(), 1);
/// assert_eq!(found.intervals[0].best, 0);
/// assert_eq!(found.points.len(), 1);
/// assert_eq!(found.points[0].kind, PointKind::Tangency);
/// assert!((found.points[0].at - 1.0).abs() < 1e-9);
/// ```
pub fn crossovers(
    models: &[Expr],
    span: Span,
    bound: &[(&str, f64)],
) -> Result<Crossovers, CrossoverError> {
    if models.len() < 2 {
        return Err(CrossoverError::TooFewDesigns {
            given: models.len(),
        });
    }
    let prepared = prepare(models, &span, bound)?;
    let n = prepared.len();
    let mut pairs: Vec<((usize, usize), Roots)> = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            pairs.push(((i, j), pair_roots(&prepared, (i, j), &span)?));
        }
    }
    Ok(envelope::envelope(&prepared, &pairs, &span))
}

/// [`crossovers`] of the designs' throughput models ([`Design::model`]).
pub fn design_crossovers(
    designs: &[Design],
    span: Span,
    bound: &[(&str, f64)],
) -> Result<Crossovers, CrossoverError> {
    let models: Vec<Expr> = designs.iter().map(Design::model).collect();
    crossovers(&models, span, bound)
}
