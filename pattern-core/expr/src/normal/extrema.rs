//! `max`/`min` over arguments in normal form. The plain form of
//! [`Expr::simplify`]: constants folded into one, duplicates removed,
//! arguments sorted. The strong form of [`Expr::canonical`] also factors
//! out the terms, the variable powers and the positive constant that all
//! arguments share, so that equal functions built along different routes
//! meet. Both work on the arguments' polynomials, so that a nest of
//! extrema is normalized in one pass, each level once.

use super::poly::{Base, CANCELLATION, Degree, Monomial, Poly, Q, round_significant};
use super::strength::is_strong;
use crate::{Expr, Func};
use num_traits::{One, Signed, Zero};
use std::collections::BTreeMap;

/// `func` over arguments in normal form, in the plain or the strong form.
/// `renormalize` normalizes the one argument left after deduplication.
pub(super) fn combine(func: Func, polys: Vec<Poly>, renormalize: fn(&Expr) -> Poly) -> Poly {
    if polys
        .iter()
        .any(|p| p.terms.values().any(|c| !c.value.is_finite()))
    {
        // An argument without a value: so is the extremum (`max(-inf, 1)`
        // would otherwise fold to 1). Kept as a call of the arguments.
        let degree = polys.iter().map(Poly::degree).max().unwrap_or_default();
        let args = polys.into_iter().map(Poly::into_expr).collect();
        return Poly::opaque_with(Expr::Call(func, args), degree);
    }
    let polys = same_monomials_merged(func, polys);
    if is_strong() {
        factored(func, polys, renormalize)
    } else {
        plain(func, polys, renormalize)
    }
}

/// Arguments that are multiples of one product of variables
/// (`max(x, 2·x)`) merged into the largest (`max`) or smallest (`min`)
/// multiple. Variables are positive (sizes and counts), so the product is
/// positive, and multiplying by a positive number keeps the order of the
/// multiples also in floating point: the result is exact.
fn same_monomials_merged(func: Func, polys: Vec<Poly>) -> Vec<Poly> {
    let mut best: BTreeMap<Monomial, (f64, usize)> = BTreeMap::new();
    let mut out: Vec<Option<Poly>> = Vec::with_capacity(polys.len());
    for p in polys {
        let key = p.single_term().and_then(|(c, m)| {
            let positive = !m.0.is_empty() && m.0.keys().all(|b| matches!(b, Base::Var(_)));
            (positive && c.is_finite()).then(|| (c, m.clone()))
        });
        let Some((c, m)) = key else {
            out.push(Some(p));
            continue;
        };
        match best.get_mut(&m) {
            Some((kept, at)) => {
                let better = if func == Func::Max {
                    c > *kept
                } else {
                    c < *kept
                };
                if better {
                    *kept = c;
                    out[*at] = Some(p);
                }
            }
            None => {
                best.insert(m, (c, out.len()));
                out.push(Some(p));
            }
        }
    }
    out.into_iter().flatten().collect()
}

/// The plain form: constants folded into one, duplicates removed, sorted
/// like the terms of a sum (fastest-growing first).
fn plain(func: Func, polys: Vec<Poly>, renormalize: fn(&Expr) -> Poly) -> Poly {
    let zero = (Q::zero(), Q::zero());
    let mut constant: Option<f64> = None;
    let mut args: Vec<(Degree, Expr)> = Vec::with_capacity(polys.len());
    for p in polys {
        match p.as_constant() {
            Some(c) => {
                constant = Some(match (constant, func) {
                    (None, _) => c,
                    (Some(a), Func::Max) => a.max(c),
                    (Some(a), _) => a.min(c),
                });
            }
            None => args.push((p.degree(), p.into_expr())),
        }
    }
    if let Some(c) = constant {
        args.push((zero, Expr::Num(round_significant(c))));
    }
    args.sort_by(|(ka, a), (kb, b)| kb.cmp(ka).then_with(|| a.cmp(b)));
    args.dedup_by(|(_, a), (_, b)| a == b);
    if args.len() == 1 {
        let (_, single) = args.pop().expect("one argument");
        return renormalize(&single);
    }
    let degrees = args.iter().map(|(d, _)| *d);
    let degree = if func == Func::Max {
        degrees.max()
    } else {
        degrees.min()
    }
    .unwrap_or(zero);
    let call = Expr::Call(func, args.into_iter().map(|(_, e)| e).collect());
    Poly::opaque_with(call, degree)
}

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

/// The strong form: the terms every argument shares come out
/// (`max(a + c, b + c) = max(a, b) + c`), then the common variable powers
/// and a positive constant (`max(c·a/n, c·b/n) = c·max(a, b)/n`).
fn factored(func: Func, polys: Vec<Poly>, renormalize: fn(&Expr) -> Poly) -> Poly {
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
    // In place: copying the arguments at every level of a nest would be
    // quadratic.
    let mut scaled: Vec<Poly> = if common.0.is_empty() {
        polys
    } else {
        let divisor = common.pow(-Q::one()).unwrap_or_default();
        polys
            .into_iter()
            .map(|p| p.times_term(1.0, &divisor))
            .collect()
    };
    // The content: the size of the leading coefficient of the argument
    // that comes first once every argument is made monic; among arguments
    // equal once monic (`0.01/n`, `6386/n`), the largest, so that the order
    // they came in does not matter and a second pass picks the same one.
    let keys: Vec<Vec<(&Monomial, f64)>> = scaled.iter().map(monic_key).collect();
    let first = (0..scaled.len()).min_by(|&i, &j| {
        compare_keys(&keys[i], &keys[j]).then_with(|| {
            let size = |k: usize| scaled[k].leading_coefficient().abs();
            size(j).total_cmp(&size(i))
        })
    });
    let content = first.map_or(1.0, |i| scaled[i].leading_coefficient().abs());
    drop(keys);
    // A content far from 1 stays inside: taken out, it could overflow or
    // underflow once the product around the extremum multiplies it.
    let content = if (1e-100..=1e100).contains(&content) {
        content
    } else {
        1.0
    };
    scaled = scaled.into_iter().map(|p| p.scale(1.0 / content)).collect();
    let inner = plain(func, extreme_multiples(func, scaled), renormalize);
    inner.times_term(content, &common).add(shared)
}

/// The arguments without the positive multiples `c·m` of a power product
/// `m` of variables (positive wherever the variables are) that another
/// argument `c'·m` bounds: of `max(10·x, x, 1)` only `max(10·x, 1)` can be
/// the maximum. Nesting decides otherwise whether such copies meet in one
/// `max` (and stay) or in an inner one (and fold).
fn extreme_multiples(func: Func, polys: Vec<Poly>) -> Vec<Poly> {
    fn multiple(p: &Poly) -> Option<(f64, &Monomial)> {
        p.single_term().filter(|&(c, m)| {
            let powers = !m.0.is_empty() && m.0.keys().all(|b| matches!(b, Base::Var(_)));
            powers && c > 0.0 && c.is_finite()
        })
    }
    let mut best: BTreeMap<&Monomial, (f64, usize)> = BTreeMap::new();
    for (i, (c, m)) in polys
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, multiple(p)?)))
    {
        let better = |old: f64| if func == Func::Max { c > old } else { c < old };
        if best.get(m).is_none_or(|&(old, _)| better(old)) {
            best.insert(m, (c, i));
        }
    }
    let keep: Vec<bool> = polys
        .iter()
        .enumerate()
        .map(|(i, p)| multiple(p).is_none_or(|(_, m)| best.get(m).is_none_or(|&(_, j)| j == i)))
        .collect();
    polys
        .into_iter()
        .zip(keep)
        .filter_map(|(p, keep)| keep.then_some(p))
        .collect()
}

/// An argument made monic, as a sort key: its terms with their
/// coefficients over the leading one, rounded as the normal form prints
/// them (so that rounding noise does not reorder).
fn monic_key(p: &Poly) -> Vec<(&Monomial, f64)> {
    let lead = p.leading_coefficient();
    let lead = if lead == 0.0 { 1.0 } else { lead };
    p.terms
        .iter()
        .map(|(m, c)| (m, round_significant(c.value / lead)))
        .collect()
}

fn compare_keys(a: &[(&Monomial, f64)], b: &[(&Monomial, f64)]) -> std::cmp::Ordering {
    for ((ma, ca), (mb, cb)) in a.iter().zip(b) {
        let order = ma.cmp(mb).then_with(|| ca.total_cmp(cb));
        if order.is_ne() {
            return order;
        }
    }
    a.len().cmp(&b.len())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normal::tests::strong;

    /// Found by the layering law: `tpool[2](pipe(a, b))` flattens
    /// `max(max(x^(8/3), 10·x^(8/3)), x)` into one `max` that kept the
    /// bounded copy, `pipe(tpool[2](a), tpool[2](b))` folds it in an inner one.
    #[test]
    fn bounded_multiples_of_a_power_leave_the_extremum() {
        assert_eq!(
            strong("max(max(x^(8/3), 10*x^(8/3)), x)/2"),
            strong("max(max(x^(8/3), 10*x^(8/3))/2, x/2)")
        );
        assert_eq!(strong("max(10*x, x, 1)"), strong("max(10*x, 1)"));
        assert_eq!(strong("min(10*x*y, 3*x*y, 1)"), strong("min(3*x*y, 1)"));
        // Variables are positive: the smaller multiple of `x` is the
        // negative one, exactly.
        assert_eq!(strong("min(x, -3*x, 1)").to_string(), "min(-3·x, 1)");
        // A logarithm may be negative (below 1): both stay.
        assert_eq!(
            strong("max(log2(x), 2*log2(x))").to_string(),
            "2·max(0.5·log₂(x), log₂(x))"
        );
    }

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
            // Found by the random property run: two arguments equal once monic.
            "max(x, 0.01/n, 6386.781328607961/n)",
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
