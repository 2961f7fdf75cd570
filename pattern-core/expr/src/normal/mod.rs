//! The normal form: Extra-P's Performance Model Normal Form (PMNF), generalized
//! to several variables.
//!
//! A normal form is a sum of terms `c · Π b^a`, where each base `b` is a
//! variable `v`, a logarithm `log2(v)`, or an *opaque* factor that PMNF cannot
//! express (`max`, `min`, `ceil`, `floor`, a sum under a fractional power, ...),
//! itself in normal form. Exponents are exact rationals, so `x^(1/3)·x^(1/3)`
//! is `x^(2/3)` and not a float that merely prints like it.
//!
//! Invariants of [`Expr::simplify`]'s output:
//! - like terms are collected, zero terms dropped, constants folded;
//! - it is a fixed point: `simplify` normalizes its result again until it
//!   no longer changes (at most 4 linear passes);
//! - terms are ordered by growth (total degree, then log degree), the constant
//!   last; factors with positive exponents come before the divisors;
//! - coefficients keep every digit (like terms merge exactly); only
//!   [`Expr::canonical`] rounds them to 12 significant digits, so that equal
//!   functions computed along different roundings meet there;
//! - a sum of more than 64 terms is not distributed over a factor that is
//!   not a number, and a power whose exponent leaves the `i64` fractions
//!   stays a power: both keep the work linear in deep inputs;
//! - `ceil`/`floor` keep their argument as written (a rewriting could move
//!   it across an integer);
//! - `max`/`min` arguments are flattened, deduplicated and sorted, and
//!   constant arguments are folded into one. They are only resolved by
//!   [`Expr::dominant`]; [`Expr::canonical`] also factors them
//!   (`max(a/n, b/n) = max(a, b)/n`) to decide equality.
//!
//! Variables are sizes and counts, so simplification treats them (and the
//! values of opaque factors) as positive when it combines powers and expands
//! logarithms: `(x^2)^(1/2) = x`, `log2(x^2) = 2·log2(x)`. What may be
//! negative even so (`-p`, `x - y`) keeps its roots whole (`sqrt(-p)^2` is
//! not `-p`), and zero times a factor that may have no value is kept
//! (`0·ln(x - y)`, `0·(-m)^x`): see `domain.rs`.

mod budget;
mod domain;
mod extrema;
mod poly;
mod power;
mod rational;
mod simplify;
mod strength;

use crate::Expr;

pub(crate) use rational::{Q, to_rational};
pub(crate) use simplify::to_poly;

/// The factors of a product without a leading number within `rel` of 1:
/// the residue that factoring a rounded constant back out can leave
/// (`58 · 0.0172413793103 = 0.999999999997`).
fn without_unit(factors: &[Expr], rel: f64) -> &[Expr] {
    match factors.split_first() {
        Some((Expr::Num(c), rest)) if (c - 1.0).abs() <= rel => rest,
        _ => factors,
    }
}

/// Structural equality with numbers equal within a relative tolerance (a
/// product's leading number within it of 1 counts as absent).
pub(crate) fn approx_eq(a: &Expr, b: &Expr, rel: f64) -> bool {
    crate::deep(|| match (a, b) {
        (Expr::Num(x), Expr::Num(y)) => x == y || (x - y).abs() <= rel * x.abs().max(y.abs()),
        (Expr::Var(x), Expr::Var(y)) => x == y,
        (Expr::Add(xs), Expr::Add(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| approx_eq(x, y, rel))
        }
        (Expr::Mul(xs), Expr::Mul(ys)) => {
            let (xs, ys) = (without_unit(xs, rel), without_unit(ys, rel));
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| approx_eq(x, y, rel))
        }
        (Expr::Mul(xs), other) | (other, Expr::Mul(xs)) => {
            matches!(without_unit(xs, rel), [only] if approx_eq(only, other, rel))
        }
        (Expr::Pow(xb, xe), Expr::Pow(yb, ye)) => approx_eq(xb, yb, rel) && approx_eq(xe, ye, rel),
        (Expr::Call(f, xs), Expr::Call(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| approx_eq(x, y, rel))
        }
        _ => false,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn s(text: &str) -> String {
        Expr::parse(text).unwrap().simplify().to_string()
    }

    pub(crate) fn same(a: &str, b: &str) {
        let (ea, eb) = (
            Expr::parse(a).unwrap().simplify(),
            Expr::parse(b).unwrap().simplify(),
        );
        assert_eq!(ea, eb, "{a} → {ea}  vs  {b} → {eb}");
    }

    pub(crate) fn strong(text: &str) -> Expr {
        Expr::parse(text).unwrap().canonical()
    }

    /// Found by `pipe_is_idempotent`: in `tpool[58](…)` the constant 1/58 is
    /// rounded to 12 digits, and factored back out of a `max` leaves
    /// `0.999999999997·…`, which must still equal the product without it.
    #[test]
    fn a_unit_residue_factor_is_approximately_absent() {
        let one = Expr::parse("0.999999999997*x^0.25*max(x, 2)").unwrap();
        let none = Expr::parse("x^0.25*max(x, 2)").unwrap();
        assert!(approx_eq(&one, &none, 1e-9) && approx_eq(&none, &one, 1e-9));
        assert!(!approx_eq(&one, &none, 1e-15));
        let single = Expr::Mul(vec![Expr::Num(1.0 + 1e-13), Expr::Var("x".into())]);
        assert!(approx_eq(&single, &Expr::Var("x".into()), 1e-9));
        let two = Expr::parse("2*x^0.25*max(x, 2)").unwrap();
        assert!(!approx_eq(&two, &none, 1e-9));
    }
}
