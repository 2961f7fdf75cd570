//! Canonical `max`/`min`: the strong form of [`Expr::canonical`], with the
//! terms, the variable powers and the positive constant that all arguments
//! share factored out, so that equal functions built along different
//! routes meet.

use super::poly::{Base, CANCELLATION, Coef, Monomial, Poly, Q};
use super::simplify::{extremum_expr, to_poly};
use crate::{Expr, Func};
use num_traits::{Signed, Zero};
use std::collections::BTreeMap;

/// The power of each variable that every term of every polynomial has with
/// the same sign (the smallest in size): what `max` can factor out.
fn common_variable_powers(polys: &[Poly]) -> Monomial {
    let mut common = Monomial::one();
    // A constant argument (zero included) has every exponent 0: nothing common.
    if polys.iter().any(|p| p.as_constant().is_some()) {
        return common;
    }
    let mut candidates: BTreeMap<&str, Option<Q>> = BTreeMap::new();
    for p in polys {
        for m in p.terms.keys() {
            for base in m.0.keys() {
                if let Base::Var(v) = base {
                    candidates.entry(v).or_insert(None);
                }
            }
        }
    }
    for (v, slot) in candidates.iter_mut() {
        let mut best: Option<Q> = None;
        let mut agree = true;
        for m in polys.iter().flat_map(|p| p.terms.keys()) {
            let e =
                m.0.get(&Base::Var(v.to_string()))
                    .copied()
                    .unwrap_or_else(Q::zero);
            best = match best {
                None if !e.is_zero() => Some(e),
                Some(b) if e.is_positive() && b.is_positive() => Some(b.min(e)),
                Some(b) if e.is_negative() && b.is_negative() => Some(b.max(e)),
                _ => {
                    agree = false;
                    break;
                }
            };
        }
        *slot = if agree { best } else { None };
    }
    for (v, e) in candidates {
        if let Some(e) = e {
            common.0.insert(Base::Var(v.to_string()), e);
        }
    }
    common
}

/// The strong form of a `max`/`min` call whose arguments are in normal form:
/// common variable powers and a positive constant factored out, so that
/// `max(c·a, c·b)` and `c·max(a, b)` meet.
fn factor_extremum(func: Func, args: &[Expr]) -> Expr {
    let polys: Vec<Poly> = args.iter().map(to_poly).collect();
    // Translation: a term that every argument has with the same coefficient
    // comes out, `max(a + c, b + c) = max(a, b) + c`.
    let shared = common_terms(&polys);
    let polys: Vec<Poly> = if shared.terms.is_empty() {
        polys
    } else {
        polys
            .into_iter()
            .map(|p| p.add(shared.clone().scale(-1.0)))
            .collect()
    };
    let common = common_variable_powers(&polys);
    let mut scaled: Vec<Poly> = polys.iter().map(|p| p.divide_monomial(&common)).collect();
    // The content: the size of the leading coefficient of the argument
    // that comes first once every argument is made monic.
    let monic = |p: &Poly| {
        let c = p.leading_coefficient();
        if c == 0.0 {
            p.to_expr()
        } else {
            p.clone().scale(1.0 / c).to_expr()
        }
    };
    scaled.sort_by_cached_key(monic);
    let content = scaled
        .first()
        .map_or(1.0, |p| p.leading_coefficient().abs());
    // A content far from 1 stays inside: taken out, it could overflow or
    // underflow once the product around the extremum multiplies it.
    let content = if (1e-100..=1e100).contains(&content) {
        content
    } else {
        1.0
    };
    let scaled: Vec<Poly> = scaled.into_iter().map(|p| p.scale(1.0 / content)).collect();
    // Factoring must not overflow or underflow a coefficient: then the
    // extremum stays as written (its arguments in normal form).
    let exact = scaled.iter().all(|p| {
        p.terms
            .values()
            .all(|c| c.value.is_finite() && c.value != 0.0)
    });
    if !exact {
        let polys: Vec<Poly> = args.iter().map(to_poly).collect();
        return to_poly(&extremum_expr(func, polys)).to_expr();
    }
    let inner = extremum_expr(func, scaled);
    let mut factor = Poly::default();
    factor.insert(
        common,
        Coef {
            value: content,
            magnitude: content,
        },
    );
    to_poly(&inner).mul(&factor).add(shared).to_expr()
}

/// The terms every polynomial has with the same coefficient (within
/// rounding).
fn common_terms(polys: &[Poly]) -> Poly {
    let mut out = Poly::default();
    let Some((first, rest)) = polys.split_first() else {
        return out;
    };
    for (m, c) in &first.terms {
        let everywhere = rest.iter().all(|p| {
            p.terms.get(m).is_some_and(|d| {
                (c.value - d.value).abs() <= CANCELLATION * c.value.abs().max(d.value.abs())
            })
        });
        if everywhere {
            out.insert(m.clone(), *c);
        }
    }
    out
}

/// Rewrites every `max`/`min` (innermost first) into its strong form.
fn factor_extrema(e: &Expr) -> Expr {
    crate::deep(|| match e {
        Expr::Num(_) | Expr::Var(_) => e.clone(),
        Expr::Call(func @ (Func::Max | Func::Min), args) => {
            let args: Vec<Expr> = args.iter().map(factor_extrema).collect();
            factor_extremum(*func, &args)
        }
        _ => e.map_children(factor_extrema),
    })
}

impl Expr {
    /// The strong normal form used to decide equality: [`Expr::simplify`]
    /// plus, in every `max` and `min`, the common powers of variables and a
    /// positive constant factored out (`max(a/n, b/n) = max(a, b)/n`,
    /// `max(2a, 2b) = 2·max(a, b)`). Less readable than `simplify`, which
    /// leaves the arguments as written; equal functions built by the
    /// composition operators along different routes meet here.
    ///
    /// ```
    /// use pattern_core::Expr;
    ///
    /// let pipe_of_pools = Expr::parse("max(1034.17*x*log2(x)/n, 536.185*x/n)").unwrap();
    /// let pool_of_pipe = Expr::parse("max(1034.17*x*log2(x), 536.185*x)/n").unwrap();
    /// assert_ne!(pipe_of_pools.simplify(), pool_of_pipe.simplify());
    /// assert_eq!(pipe_of_pools.canonical(), pool_of_pipe.canonical());
    /// ```
    pub fn canonical(&self) -> Expr {
        let mut e = self.simplify();
        // Factoring can expose like terms; a few rounds reach the fixpoint.
        for _ in 0..4 {
            let next = factor_extrema(&e).simplify();
            if next == e {
                break;
            }
            e = next;
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normal::tests::strong;

    #[test]
    fn canonical_factors_extrema() {
        // ...canonical factors out common variable powers and a positive constant.
        assert_eq!(strong("max(a/n, b/n)"), strong("max(a, b)/n"));
        assert_eq!(strong("max(x^2, x)"), strong("x * max(x, 1)"));
        assert_eq!(strong("max(2*a, 2*b)"), strong("2*max(a, b)"));
        assert_eq!(strong("min(6*x, 4*x*y)"), strong("2*x*min(3, 2*y)"));
        assert_eq!(strong("max(a/n, b/n) + c/n"), strong("(max(a, b) + c)/n"));
        // A common term comes out: a task pool with a constant overhead.
        assert_eq!(
            strong("max(a/8 + 50, b/8 + 50)"),
            strong("max(a, b)/8 + 50")
        );
        assert_eq!(strong("max(a + c, c)"), strong("max(a, 0) + c"));
        assert_ne!(strong("max(a + c, b + 2*c)"), strong("max(a, b + c) + c/2"));
        assert_eq!(
            strong("max(1034.17*x*log2(x)/4, 536.185*x/4)"),
            strong("max(1034.17*x*log2(x), 536.185*x)/4")
        );
        // Mixed signs of an exponent: that variable is not factored out.
        assert_eq!(strong("max(a/n, b)").to_string(), "max(b, a/n)");
        assert_ne!(strong("max(a, b)"), strong("max(a, 2*b)"));
        for text in [
            "max(a/n, b/n)",
            "max(3*x, 2*x*log2(x)) + min(x, y)/2",
            "max(2, x)",
        ] {
            let c = strong(text);
            assert_eq!(c.canonical(), c, "{text}");
            for (x, y, n) in [(2.0, 3.0, 4.0), (100.0, 0.5, 3.0)] {
                let at = [("x", x), ("y", y), ("n", n), ("a", 1.5), ("b", 7.0)];
                let (u, v) = (
                    Expr::parse(text).unwrap().eval(&at).unwrap(),
                    c.eval(&at).unwrap(),
                );
                assert!((u - v).abs() <= 1e-12 * u.abs(), "{text}");
            }
        }
    }
}
