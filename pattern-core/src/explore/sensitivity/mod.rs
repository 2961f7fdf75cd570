//! Sensitivity: how a design's time per element responds to its building
//! blocks and its counts, at a point.
//!
//! - [`design_sensitivity`]: the derivative of the throughput model with
//!   respect to each coefficient of each atom and to each variable
//!   (symbolic counts relaxed to real numbers), exact to rounding: dual
//!   numbers ([`Dual`]) through [`Expr::eval_as`], one pass per direction.
//! - [`speed_up_ranking`]: which building block to speed up first, by the
//!   elasticity of the time to each atom's time, with the gain of making
//!   the atom twice as fast.
//! - [`bottleneck_stages`]: the slowest stage of a pipeline per range of a
//!   variable.
//!
//! **Coefficients.** An atom's coefficients are the numbers of its model in
//! normal form ([`Expr::simplify`]) outside exponents, in pre-order (the
//! order they print in, left to right): `5422.97 + 1034.17·x·log₂(x)` has
//! `qsort.c0 = 5422.97` and `qsort.c1 = 1034.17` (if the atom is named
//! `qsort`). A term printed without a number has the coefficient 1, in its
//! place: `x + 20` has `c0 = 1` and `c1 = 20`. For a plain model
//! ([`sensitivity`]) the numbers of the model as given, named `model.c0`,
//! `model.c1`, ..., with the same rule.
//!
//! **One-sided derivatives.** Where the model has no derivative (at a tie
//! of `max`: two stages of a pipeline equally slow), the derivative given
//! is the one of *increasing* the coefficient, the atom's time or the
//! variable: the direction in which a building block that grows slower
//! slows the design. At a tie of `max` that is the larger slope, of `min`
//! the smaller; `ceil` and `floor` have slope 0, their derivative wherever
//! they have one. So at a tie every tied atom has the elasticity it has
//! alone (1 for each of two tied bottleneck stages), and the elasticities
//! of the atoms sum to more than 1.
//!
//! **Counts.** A count is an integer, and it is removing a worker that
//! slows a design: for each symbolic count the change of the time per
//! element with one fewer and with one more
//! ([`VariableSensitivity::one_fewer`], [`VariableSensitivity::one_more`]),
//! the model evaluated at `count − 1` and `count + 1`. The derivative of the
//! model relaxed to real counts is kept beside them, one-sided as above.
//!
//! ```
//! use pattern_core::Design;
//! use pattern_core::explore::sensitivity::design_sensitivity;
//!
//! let d = Design::parse("qsort = 1034.17*x*log2(x); tpool[n](qsort)").unwrap();
//! let s = design_sensitivity(&d, &[("x", 1024.0), ("n", 4.0)]).unwrap();
//! // T = c·x·log2(x)/n: dT/dc = x·log2(x)/n, dT/dn = -T/n.
//! assert_eq!(s.coefficients[0].name, "qsort.c0");
//! assert!((s.coefficients[0].derivative - 1024.0 * 10.0 / 4.0).abs() < 1e-9);
//! let n = s.variables.iter().find(|v| v.name == "n").unwrap();
//! assert!(n.count);
//! assert!((n.derivative + s.time / 4.0).abs() < 1e-9 * s.time);
//! assert!((n.elasticity.unwrap() + 1.0).abs() < 1e-12);
//! ```

mod bottleneck;
mod dual;
mod parametrize;

pub use bottleneck::{Bottlenecks, bottleneck_stages};
pub use dual::Dual;

use crate::explore::crossover::CrossoverError;
use crate::{Design, EvalError, Expr};
use parametrize::{Parameter, parametrize, parametrized_model, scale_variable, symbolic_counts};
use serde::{Deserialize, Serialize};

/// The derivative of the time per element with respect to one coefficient.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoefficientSensitivity {
    /// The atom the coefficient belongs to (`model` for a plain model).
    pub atom: String,
    /// Its position among the atom's coefficients.
    pub index: usize,
    /// Its name as a variable: `{atom}.c{index}`.
    pub name: String,
    /// Its value.
    pub value: f64,
    /// `∂T/∂c`.
    pub derivative: f64,
    /// `(∂T/∂c)·(c/T)`: the relative change of the time per relative change
    /// of the coefficient; `None` where `T = 0`.
    pub elasticity: Option<f64>,
}

/// The derivative of the time per element with respect to one variable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariableSensitivity {
    /// The variable.
    pub name: String,
    /// Its value at the point.
    pub value: f64,
    /// `∂T/∂v`, the variable increasing (for a count, of the model relaxed
    /// to real counts: see [`VariableSensitivity::one_fewer`] for what an
    /// integer count does).
    pub derivative: f64,
    /// `(∂T/∂v)·(v/T)`; `None` where `T = 0`.
    pub elasticity: Option<f64>,
    /// Whether the variable is a symbolic count of the design (a thread
    /// or node count).
    pub count: bool,
    /// For a count: `T(v − 1) − T`, the change of the time per element with
    /// one fewer (worker, node, processor or group), the model evaluated
    /// there; `+∞` where `v − 1 < 1`: with none left the design does not
    /// run. `None` for a variable that is no count.
    #[serde(default)]
    pub one_fewer: Option<f64>,
    /// For a count: `T(v + 1) − T`, the change with one more. `None` for a
    /// variable that is no count.
    #[serde(default)]
    pub one_more: Option<f64>,
}

/// The derivatives of a model at a point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sensitivity {
    /// The time per element `T` at the point.
    pub time: f64,
    /// One entry per coefficient: atoms in the order of [`Design::atoms`],
    /// each atom's coefficients in order.
    pub coefficients: Vec<CoefficientSensitivity>,
    /// One entry per variable of the model, in alphabetical order.
    pub variables: Vec<VariableSensitivity>,
}

/// What speeding up one atom does to the time per element.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpeedUp {
    /// The atom.
    pub atom: String,
    /// `(∂T/∂s)·(s/T)` at `s = 1`, where the atom's time is scaled by `s`
    /// (all its coefficients of a PMNF model scaled alike), `s` increasing:
    /// the share of the time the atom is responsible for at the margin (1
    /// for the sole bottleneck of a pipeline, 0 for a stage that is not;
    /// 1 for each of two tied bottleneck stages, each of which alone
    /// slows the pipeline when it grows). `None` where `T = 0`.
    pub elasticity: Option<f64>,
    /// `T` with the atom twice as fast (its time halved), re-evaluated.
    pub time_if_twice_as_fast: f64,
    /// `T` minus that: the time per element saved (0 for one of two tied
    /// bottleneck stages: the other still takes as long).
    pub gain: f64,
}

/// Why a sensitivity could not be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SensitivityError {
    /// The model could not be evaluated at the point (an unbound variable,
    /// a value that is not finite).
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The derivative along a direction is not finite (a `sqrt` at 0, a
    /// jump).
    #[error("the derivative with respect to `{parameter}` is not finite ({value}) at this point")]
    NonFiniteDerivative {
        /// The coefficient or variable.
        parameter: String,
        /// The derivative computed.
        value: f64,
    },
    /// The design has no pipeline to find a bottleneck stage of.
    #[error("`{design}` has no pipeline: a bottleneck stage needs a pipe")]
    NotAPipeline {
        /// The design's term.
        design: String,
    },
    /// The crossover search between the stages failed.
    #[error(transparent)]
    Crossover(#[from] CrossoverError),
}

/// The value of `model` at `point` and its derivative along each of the
/// `directions` (names bound in `point`).
fn derivatives(
    model: &Expr,
    point: &[(&str, f64)],
    directions: &[&str],
) -> Result<(f64, Vec<f64>), SensitivityError> {
    let time = model.eval(point)?;
    let mut out = Vec::with_capacity(directions.len());
    let mut bindings: Vec<(&str, Dual)> =
        point.iter().map(|&(n, v)| (n, Dual::constant(v))).collect();
    for &direction in directions {
        for (name, value) in &mut bindings {
            value.eps = if *name == direction { 1.0 } else { 0.0 };
        }
        let d = model.eval_as(&bindings)?.eps;
        if !d.is_finite() {
            return Err(SensitivityError::NonFiniteDerivative {
                parameter: direction.to_string(),
                value: d,
            });
        }
        out.push(d);
    }
    Ok((time, out))
}

fn elasticity(derivative: f64, value: f64, time: f64) -> Option<f64> {
    (time != 0.0).then(|| derivative * value / time)
}

/// `T` with the count `name` (at `value`) moved by `step`, less `time`: the
/// model evaluated at `point` with the count moved. A count below 1 leaves
/// the design without a worker: an infinite time per element.
fn count_step(
    model: &Expr,
    point: &[(&str, f64)],
    (name, value): (&str, f64),
    step: f64,
    time: f64,
) -> Result<f64, SensitivityError> {
    let moved = value + step;
    if moved < 1.0 {
        return Ok(f64::INFINITY);
    }
    let point: Vec<(&str, f64)> = point
        .iter()
        .map(|&(n, v)| (n, if n == name { moved } else { v }))
        .collect();
    Ok(model.eval(&point)? - time)
}

/// Derivatives of a model whose coefficients are the `parameters`, at the
/// point `at` (which binds the model's own variables).
fn sensitivity_of(
    model: &Expr,
    parameters: &[Parameter],
    fixed: &[(String, f64)],
    counts: &[String],
    at: &[(&str, f64)],
) -> Result<Sensitivity, SensitivityError> {
    let is_parameter = |name: &str| {
        parameters.iter().any(|p| p.name == name) || fixed.iter().any(|(n, _)| n == name)
    };
    let variables: Vec<String> = model
        .vars()
        .into_iter()
        .filter(|v| !is_parameter(v))
        .collect();
    // The coefficients first: they win over a point that names them too.
    let mut point: Vec<(&str, f64)> = parameters
        .iter()
        .map(|p| (p.name.as_str(), p.value))
        .collect();
    point.extend(fixed.iter().map(|(n, v)| (n.as_str(), *v)));
    point.extend_from_slice(at);
    let mut directions: Vec<&str> = parameters.iter().map(|p| p.name.as_str()).collect();
    directions.extend(variables.iter().map(String::as_str));
    let (time, slopes) = derivatives(model, &point, &directions)?;
    let (coefficient_slopes, variable_slopes) = slopes.split_at(parameters.len());
    let coefficients = parameters
        .iter()
        .zip(coefficient_slopes)
        .map(|(p, &derivative)| CoefficientSensitivity {
            atom: p.atom.clone(),
            index: p.index,
            name: p.name.clone(),
            value: p.value,
            derivative,
            elasticity: elasticity(derivative, p.value, time),
        })
        .collect();
    let variables = variables
        .iter()
        .zip(variable_slopes)
        .map(|(name, &derivative)| {
            // Bound, or the evaluation above would have failed.
            let value = at
                .iter()
                .find(|(n, _)| n == name)
                .map_or(f64::NAN, |(_, v)| *v);
            let count = counts.contains(name);
            let step = |by: f64| count_step(model, &point, (name, value), by, time);
            let (one_fewer, one_more) = if count {
                (Some(step(-1.0)?), Some(step(1.0)?))
            } else {
                (None, None)
            };
            Ok(VariableSensitivity {
                name: name.clone(),
                value,
                derivative,
                elasticity: elasticity(derivative, value, time),
                count,
                one_fewer,
                one_more,
            })
        })
        .collect::<Result<_, SensitivityError>>()?;
    Ok(Sensitivity {
        time,
        coefficients,
        variables,
    })
}

/// The derivatives of a plain model at `at` (which binds every variable of
/// the model): with respect to each of its numbers outside exponents
/// (`model.c0`, `model.c1`, ... in pre-order) and to each variable.
///
/// ```
/// use pattern_core::Expr;
/// use pattern_core::explore::sensitivity::sensitivity;
///
/// let model = Expr::parse("3*x^2 + 5").unwrap();
/// let s = sensitivity(&model, &[("x", 2.0)]).unwrap();
/// assert_eq!(s.time, 17.0);
/// assert_eq!(s.coefficients[0].derivative, 4.0); // ∂/∂3 = x^2
/// assert_eq!(s.coefficients[1].derivative, 1.0); // ∂/∂5
/// assert_eq!(s.variables[0].derivative, 12.0); // ∂/∂x = 6x
/// ```
pub fn sensitivity(model: &Expr, at: &[(&str, f64)]) -> Result<Sensitivity, SensitivityError> {
    let (with_variables, parameters) = parametrize(model, "model");
    sensitivity_of(&with_variables, &parameters, &[], &[], at)
}

/// The derivatives of the design's throughput model at `at` (which binds
/// `x`, the symbolic counts and any other variable of the atoms): with
/// respect to each coefficient of each atom and to each variable, each
/// increasing (one-sided where the model has a kink), and for each count
/// the change of the time per element with one fewer and one more.
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::explore::sensitivity::design_sensitivity;
///
/// // The two stages tie at 1024 ns: 2·1024/2 = 1024/1.
/// let d = Design::parse("s1 = 2*x; s2 = x; pipe(tpool[a](s1), tpool[b](s2))").unwrap();
/// let s = design_sensitivity(&d, &[("x", 1024.0), ("a", 2.0), ("b", 1.0)]).unwrap();
/// // Either stage growing slows the pipeline: s2 = x has the coefficient 1.
/// let names: Vec<&str> = s.coefficients.iter().map(|c| c.name.as_str()).collect();
/// assert_eq!(names, ["s1.c0", "s2.c0"]);
/// assert_eq!(s.coefficients[0].elasticity, Some(1.0));
/// assert_eq!(s.coefficients[1].elasticity, Some(1.0));
/// // One worker fewer in a: 2048 ns; none left in b: the pipeline stops.
/// let a = s.variables.iter().find(|v| v.name == "a").unwrap();
/// assert_eq!((a.one_fewer, a.one_more), (Some(1024.0), Some(0.0)));
/// let b = s.variables.iter().find(|v| v.name == "b").unwrap();
/// assert_eq!(b.one_fewer, Some(f64::INFINITY));
/// ```
pub fn design_sensitivity(
    design: &Design,
    at: &[(&str, f64)],
) -> Result<Sensitivity, SensitivityError> {
    let (model, parameters, atoms) = parametrized_model(design);
    let scales: Vec<(String, f64)> = atoms.iter().map(|a| (scale_variable(a), 1.0)).collect();
    sensitivity_of(&model, &parameters, &scales, &symbolic_counts(design), at)
}

/// Which atom to speed up first at `at`: every atom with its elasticity
/// and the gain of making it twice as fast, highest elasticity first (then
/// the larger gain, then the name).
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::explore::sensitivity::speed_up_ranking;
///
/// // At x = 1000 the sort (1034.17·x·log2(x)/4) is the bottleneck of the
/// // pipeline: all of the time is its; the increments' stage has none.
/// let d = Design::parse(
///     "qsort = 1034.17*x*log2(x); inc = 536.185*x; pipe(tpool[4](qsort), inc)",
/// )
/// .unwrap();
/// let ranking = speed_up_ranking(&d, &[("x", 1000.0)]).unwrap();
/// assert_eq!(ranking[0].atom, "qsort");
/// assert!((ranking[0].elasticity.unwrap() - 1.0).abs() < 1e-12);
/// assert_eq!(ranking[1].atom, "inc");
/// assert_eq!(ranking[1].elasticity, Some(0.0));
/// assert_eq!(ranking[1].gain, 0.0);
/// ```
pub fn speed_up_ranking(
    design: &Design,
    at: &[(&str, f64)],
) -> Result<Vec<SpeedUp>, SensitivityError> {
    let (model, parameters, atoms) = parametrized_model(design);
    let scales: Vec<String> = atoms.iter().map(|a| scale_variable(a)).collect();
    let mut point: Vec<(&str, f64)> = parameters
        .iter()
        .map(|p| (p.name.as_str(), p.value))
        .collect();
    let first_scale = point.len();
    point.extend(scales.iter().map(|s| (s.as_str(), 1.0)));
    point.extend_from_slice(at);
    let directions: Vec<&str> = scales.iter().map(String::as_str).collect();
    let (time, slopes) = derivatives(&model, &point, &directions)?;
    let mut out = Vec::with_capacity(atoms.len());
    for (k, atom) in atoms.iter().enumerate() {
        point[first_scale + k].1 = 0.5;
        let halved = model.eval(&point)?;
        point[first_scale + k].1 = 1.0;
        out.push(SpeedUp {
            atom: atom.clone(),
            elasticity: elasticity(slopes[k], 1.0, time),
            time_if_twice_as_fast: halved,
            gain: time - halved,
        });
    }
    out.sort_by(|a, b| {
        let e = |s: &SpeedUp| s.elasticity.unwrap_or(f64::NEG_INFINITY);
        e(b).total_cmp(&e(a))
            .then(b.gain.total_cmp(&a.gain))
            .then(a.atom.cmp(&b.atom))
    });
    Ok(out)
}
