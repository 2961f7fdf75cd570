//! Evaluation at a point, generic over `num_traits::Float`.

use super::{Expr, Func};
use num_traits::Float;
use std::collections::HashMap;

/// Why an expression could not be evaluated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EvalError {
    /// A variable had no value.
    #[error("unbound variable `{name}`: give it a value (bound: {bound})")]
    Unbound {
        /// The variable's name.
        name: String,
        /// The variables that were bound, for the message.
        bound: String,
    },
    /// A call of a function the engine does not define (a machine's
    /// communication function) that was not resolved.
    #[error(
        "`{name}` is not a built-in function: resolve it before evaluating (a communication function against a machine profile)"
    )]
    Unresolved {
        /// The function's name.
        name: String,
    },
    /// A variable was bound to NaN, which no model can give a value from
    /// (`max(x, 1)` would hide it).
    #[error("variable `{name}` is bound to NaN: give it a number")]
    NotANumber {
        /// The variable's name.
        name: String,
    },
    /// A sub-expression produced infinity or NaN from finite operands.
    #[error("`{expr}` is not finite ({value}) at {point}")]
    NonFinite {
        /// The innermost sub-expression whose value is not finite.
        expr: String,
        /// Its value (`inf`, `-inf` or `NaN`).
        value: f64,
        /// The point, as `x = 0, n = 4`.
        point: String,
    },
    /// A hand-built call with a number of arguments its function does not
    /// take (`log` with one).
    #[error("`{function}` cannot take {arguments} argument(s) (in `{expr}`)")]
    Arity {
        /// The function's name.
        function: &'static str,
        /// How many arguments the call has.
        arguments: usize,
        /// The call.
        expr: String,
    },
}

impl EvalError {
    /// The error of a call whose arguments `func` does not take, if so.
    pub(crate) fn check_arity(call: &Expr) -> Result<(), EvalError> {
        match call {
            Expr::Call(func, args) if !func.accepts(args.len()) => Err(EvalError::Arity {
                function: func.name(),
                arguments: args.len(),
                expr: call.to_string(),
            }),
            _ => Ok(()),
        }
    }
}

pub(crate) fn describe_point<F: Float>(bindings: &[(&str, F)]) -> String {
    if bindings.is_empty() {
        return "no bound variables".to_string();
    }
    bindings
        .iter()
        .map(|(name, v)| format!("{name} = {}", v.to_f64().unwrap_or(f64::NAN)))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Expr {
    /// Evaluates the expression with every variable bound.
    ///
    /// ```
    /// use pattern_core::{Expr, EvalError};
    ///
    /// let e = Expr::parse("1034.17 * x * log2(x) / n").unwrap();
    /// assert_eq!(e.eval(&[("x", 2.0), ("n", 2.0)]).unwrap(), 1034.17);
    ///
    /// let unbound = e.eval(&[("x", 2.0)]).unwrap_err();
    /// assert!(matches!(unbound, EvalError::Unbound { ref name, .. } if name == "n"));
    ///
    /// let log0 = e.eval(&[("x", 0.0), ("n", 1.0)]).unwrap_err();
    /// assert_eq!(log0.to_string(), "`log₂(x)` is not finite (-inf) at x = 0, n = 1");
    /// ```
    pub fn eval(&self, bindings: &[(&str, f64)]) -> Result<f64, EvalError> {
        self.eval_as(bindings)
    }

    /// Evaluates in any `Float` type: `f32`, or a dual number to carry
    /// derivatives through the model.
    pub fn eval_as<F: Float>(&self, bindings: &[(&str, F)]) -> Result<F, EvalError> {
        // Many bindings are looked up through an index, so that evaluating
        // a sum over many variables stays linear.
        let index = (bindings.len() > 16).then(|| {
            bindings
                .iter()
                .rev()
                .map(|(n, v)| (*n, *v))
                .collect::<HashMap<&str, F>>()
        });
        let value = self.eval_node(bindings, index.as_ref())?;
        Ok(value)
    }

    fn eval_node<F: Float>(
        &self,
        bindings: &[(&str, F)],
        index: Option<&HashMap<&str, F>>,
    ) -> Result<F, EvalError> {
        crate::deep(|| {
            let value = match self {
                Expr::Num(v) => F::from(*v).unwrap_or_else(F::nan),
                Expr::Var(name) => {
                    let bound = match index {
                        Some(index) => index.get(name.as_str()).copied(),
                        None => bindings.iter().find(|(n, _)| n == name).map(|(_, v)| *v),
                    };
                    return match bound {
                        Some(v) if v.is_nan() => Err(EvalError::NotANumber { name: name.clone() }),
                        Some(v) => Ok(v),
                        None => Err(EvalError::Unbound {
                            name: name.clone(),
                            bound: if bindings.is_empty() {
                                "none".to_string()
                            } else {
                                bindings
                                    .iter()
                                    .map(|(n, _)| *n)
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            },
                        }),
                    };
                }
                Expr::Add(items) => {
                    let mut acc = F::zero();
                    for item in items {
                        acc = acc + item.eval_node(bindings, index)?;
                    }
                    acc
                }
                Expr::Mul(items) => {
                    let mut acc = F::one();
                    for item in items {
                        acc = acc * item.eval_node(bindings, index)?;
                    }
                    acc
                }
                Expr::Pow(base, exponent) => {
                    let b = base.eval_node(bindings, index)?;
                    // A literal exponent is a small integer or not once and
                    // for all, as in the compiled form.
                    let (k, literal) = match **exponent {
                        Expr::Num(k) => (F::from(k).unwrap_or_else(F::nan), true),
                        _ => (exponent.eval_node(bindings, index)?, false),
                    };
                    // `b^-k` is `1/b^k`, and prints so: where `b^k`
                    // overflows it has no value, as `1/(b^k)` has none.
                    if k < F::zero() {
                        let denominator = power(b, -k, literal);
                        if !denominator.is_finite() {
                            return Err(EvalError::NonFinite {
                                expr: self.to_string(),
                                value: denominator.to_f64().unwrap_or(f64::NAN),
                                point: describe_point(bindings),
                            });
                        }
                    }
                    power(b, k, literal)
                }
                Expr::Apply(name, _) => {
                    return Err(EvalError::Unresolved { name: name.clone() });
                }
                Expr::Call(func, args) => {
                    EvalError::check_arity(self)?;
                    let mut values = Vec::with_capacity(args.len());
                    for arg in args {
                        values.push(arg.eval_node(bindings, index)?);
                    }
                    apply(*func, &values)
                }
            };
            if value.is_finite() {
                Ok(value)
            } else {
                Err(EvalError::NonFinite {
                    expr: self.to_string(),
                    value: value.to_f64().unwrap_or(f64::NAN),
                    point: describe_point(bindings),
                })
            }
        })
    }
}

/// `b^k`: repeated multiplication for a literal small integer exponent
/// (exact where `powf` may round), `powf` otherwise.
fn power<F: Float>(b: F, k: F, literal: bool) -> F {
    match k.to_i32() {
        Some(n) if literal && F::from(n) == Some(k) && n.abs() <= 64 => b.powi(n),
        _ => b.powf(k),
    }
}

/// `log(base, e)`: no value (NaN) for a base whose logarithm is not a
/// finite non-zero number (`0`, `1`, a negative base), where the quotient
/// would give `-0` (`log(0, m)`) or an infinity.
#[inline(always)]
pub(crate) fn log_in_base<F: Float>(base: F, e: F) -> F {
    let b = base.log2();
    if b.is_finite() && b != F::zero() {
        e.log2() / b
    } else {
        F::nan()
    }
}

/// Applies a function to evaluated arguments (their number checked by the caller).
pub(crate) fn apply<F: Float>(func: Func, args: &[F]) -> F {
    match func {
        Func::Log2 => args[0].log2(),
        Func::Ln => args[0].ln(),
        Func::Log => log_in_base(args[0], args[1]),
        Func::Sqrt => args[0].sqrt(),
        Func::Ceil => args[0].ceil(),
        Func::Floor => args[0].floor(),
        Func::Max => args.iter().copied().fold(F::neg_infinity(), F::max),
        Func::Min => args.iter().copied().fold(F::infinity(), F::min),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, bindings: &[(&str, f64)]) -> Result<f64, EvalError> {
        Expr::parse(text).unwrap().eval(bindings)
    }

    #[test]
    fn every_form_evaluates() {
        let at = [("x", 8.0), ("n", 2.0)];
        assert_eq!(eval("x + n", &at), Ok(10.0));
        assert_eq!(eval("x - n", &at), Ok(6.0));
        assert_eq!(eval("x * n", &at), Ok(16.0));
        assert_eq!(eval("x / n", &at), Ok(4.0));
        assert_eq!(eval("x ^ n", &at), Ok(64.0));
        assert_eq!(eval("x ^ (1/3)", &at), Ok(2.0));
        assert_eq!(eval("log2(x)", &at), Ok(3.0));
        assert!((eval("ln(x)", &at).unwrap() - 8f64.ln()).abs() < 1e-15);
        assert_eq!(eval("log(n, x)", &at), Ok(3.0));
        assert!((eval("sqrt(x)", &at).unwrap() - 8f64.sqrt()).abs() < 1e-15);
        assert_eq!(eval("ceil(x / 3)", &at), Ok(3.0));
        assert_eq!(eval("floor(x / 3)", &at), Ok(2.0));
        assert_eq!(eval("max(x, n, 5)", &at), Ok(8.0));
        assert_eq!(eval("min(x, n, 5)", &at), Ok(2.0));
        assert_eq!(eval("-x^2", &at), Ok(-64.0));
    }

    #[test]
    fn unbound_variable_is_named() {
        let err = eval("x * n + m", &[("x", 1.0), ("n", 2.0)]).unwrap_err();
        assert_eq!(
            err,
            EvalError::Unbound {
                name: "m".into(),
                bound: "x, n".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "unbound variable `m`: give it a value (bound: x, n)"
        );
        let err = eval("x", &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unbound variable `x`: give it a value (bound: none)"
        );
    }

    #[test]
    fn non_finite_names_the_innermost_culprit() {
        let err = eval("5422.97 + 1034.17 * x * log2(x)", &[("x", 0.0)]).unwrap_err();
        let EvalError::NonFinite { expr, value, point } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(expr, "log₂(x)");
        assert_eq!(*value, f64::NEG_INFINITY);
        assert_eq!(point, "x = 0");

        let err = eval("1 / (x - 1)", &[("x", 1.0)]).unwrap_err();
        assert!(
            matches!(&err, EvalError::NonFinite { expr, .. } if expr == "1/(x - 1)"),
            "{err}"
        );

        let err = eval("sqrt(x)", &[("x", -1.0)]).unwrap_err();
        assert!(matches!(&err, EvalError::NonFinite { value, .. } if value.is_nan()));
    }

    #[test]
    fn generic_over_float() {
        let e = Expr::parse("536.185 * x").unwrap();
        let v: f32 = e.eval_as(&[("x", 2.0f32)]).unwrap();
        assert_eq!(v, 1072.37f32);
        // f32 overflows where f64 does not: reported, not silently infinite.
        let big = Expr::parse("x * 1e30").unwrap();
        assert!(big.eval_as(&[("x", 1e10f32)]).is_err());
        assert!(big.eval(&[("x", 1e10)]).is_ok());
    }
}
