//! Roots in closed form, where the difference of two models is a sum of
//! PMNF terms `c·x^i·log2(x)^j` that reduces (after dividing by the common
//! `x^i·log2(x)^j`, whose `log2(x)^j` vanishes at `x = 1`) to
//! - two or three terms in powers `x^0, x^e, x^2e` of one `x^e` (a
//!   monomial ratio `a·x^p = b·x^q`, a line, a quadratic), or
//! - two or three terms in `log2(x)^0, log2(x), log2(x)^2` (`a·x·log2(x)`
//!   against `c·x`, and the like).
//!
//! Anything else (a max, `x·log2(x)` against a constant: Lambert's W) is
//! left to the numeric search.

use super::{PointKind, Root};
use crate::expr::{Expr, Func};

/// A PMNF term `coefficient · x^power · log2(x)^log_power`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Term {
    pub coefficient: f64,
    pub power: f64,
    pub log_power: u32,
}

/// Expressions nested deeper than this are left to the numeric search
/// (the expansion below recurses).
const MAX_DEPTH: usize = 64;
/// Expansions with more terms than this are left to the numeric search.
const MAX_TERMS: usize = 16;

/// The terms of `e` in `var`, expanded exactly as written (like terms
/// combined, zero coefficients dropped), or `None` when `e` is not a sum of
/// PMNF terms, or too deep or too large to expand. The coefficients are the
/// model's own, not the normal form's (which rounds them to 12 digits).
pub(crate) fn terms(e: &Expr, var: &str) -> Option<Vec<Term>> {
    if depth(e) > MAX_DEPTH {
        return None;
    }
    let mut out = expand(e, var)?;
    out.retain(|t| t.coefficient != 0.0);
    Some(out)
}

/// The depth of a tree, without recursion.
fn depth(e: &Expr) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(e, 1usize)];
    while let Some((node, d)) = pending.pop() {
        deepest = deepest.max(d);
        if d > MAX_DEPTH {
            break;
        }
        pending.extend(node.children().into_iter().map(|c| (c, d + 1)));
    }
    deepest
}

fn constant(c: f64) -> Vec<Term> {
    vec![Term {
        coefficient: c,
        power: 0.0,
        log_power: 0,
    }]
}

/// The value of a constant expansion.
fn as_constant(p: &[Term]) -> Option<f64> {
    match p {
        [] => Some(0.0),
        [t] if t.power == 0.0 && t.log_power == 0 => Some(t.coefficient),
        _ => None,
    }
}

fn add_into(out: &mut Vec<Term>, t: Term) {
    match out
        .iter_mut()
        .find(|o| o.power == t.power && o.log_power == t.log_power)
    {
        Some(o) => o.coefficient += t.coefficient,
        None => out.push(t),
    }
}

fn multiply(a: &[Term], b: &[Term]) -> Option<Vec<Term>> {
    let mut out = Vec::new();
    for s in a {
        for t in b {
            add_into(
                &mut out,
                Term {
                    coefficient: s.coefficient * t.coefficient,
                    power: s.power + t.power,
                    log_power: s.log_power.checked_add(t.log_power)?,
                },
            );
        }
    }
    (out.len() <= MAX_TERMS).then_some(out)
}

fn power(base: &[Term], k: f64) -> Option<Vec<Term>> {
    if let [t] = base {
        // One term: (c·x^i·L^j)^k, while L's power stays a whole number
        // and c^k is real.
        let log_power = f64::from(t.log_power) * k;
        if log_power < 0.0 || log_power.fract() != 0.0 || log_power > 64.0 {
            return None;
        }
        let coefficient = t.coefficient.powf(k);
        return coefficient.is_finite().then_some(vec![Term {
            coefficient,
            power: t.power * k,
            log_power: log_power as u32,
        }]);
    }
    if k.fract() != 0.0 || !(0.0..=4.0).contains(&k) {
        return None;
    }
    let mut out = constant(1.0);
    for _ in 0..k as u32 {
        out = multiply(&out, base)?;
    }
    Some(out)
}

/// The expansion; depth bounded by [`MAX_DEPTH`] through [`terms`].
fn expand(e: &Expr, var: &str) -> Option<Vec<Term>> {
    Some(match e {
        Expr::Num(c) => constant(*c),
        Expr::Var(v) if v == var => vec![Term {
            coefficient: 1.0,
            power: 1.0,
            log_power: 0,
        }],
        Expr::Var(_) | Expr::Apply(..) => return None,
        Expr::Add(items) => {
            let mut out = Vec::new();
            for item in items {
                for t in expand(item, var)? {
                    add_into(&mut out, t);
                }
            }
            if out.len() > MAX_TERMS {
                return None;
            }
            out
        }
        Expr::Mul(items) => {
            let mut out = constant(1.0);
            for item in items {
                out = multiply(&out, &expand(item, var)?)?;
            }
            out
        }
        Expr::Pow(base, exponent) => {
            let k = as_constant(&expand(exponent, var)?)?;
            power(&expand(base, var)?, k)?
        }
        Expr::Call(func, args) => {
            if !func.accepts(args.len()) {
                return None;
            }
            let expanded = args
                .iter()
                .map(|a| expand(a, var))
                .collect::<Option<Vec<_>>>()?;
            let constants: Option<Vec<f64>> = expanded.iter().map(|p| as_constant(p)).collect();
            if let Some(values) = constants {
                let v = match func {
                    Func::Log2 => values[0].log2(),
                    Func::Ln => values[0].ln(),
                    Func::Log => values[1].log2() / values[0].log2(),
                    Func::Sqrt => values[0].sqrt(),
                    Func::Ceil => values[0].ceil(),
                    Func::Floor => values[0].floor(),
                    Func::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    Func::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
                };
                return v.is_finite().then(|| constant(v));
            }
            let is_x = |p: &[Term]| matches!(p, [t] if t.coefficient == 1.0 && t.power == 1.0 && t.log_power == 0);
            let log_x = |c: f64| {
                vec![Term {
                    coefficient: c,
                    power: 0.0,
                    log_power: 1,
                }]
            };
            match func {
                Func::Log2 if is_x(&expanded[0]) => log_x(1.0),
                Func::Ln if is_x(&expanded[0]) => log_x(std::f64::consts::LN_2),
                Func::Log if is_x(&expanded[1]) => {
                    let base = as_constant(&expanded[0])?.log2();
                    log_x(base.recip())
                }
                Func::Sqrt => power(&expanded[0], 0.5)?,
                _ => return None,
            }
        }
    })
}

/// The sum of `terms` as an expression in `var` (0 for none).
pub(crate) fn sum_of_terms(terms: &[Term], var: &str) -> Expr {
    let x = || Expr::var(var);
    let items: Vec<Expr> = terms
        .iter()
        .map(|t| {
            let mut factors = vec![Expr::num(t.coefficient)];
            if t.power != 0.0 {
                factors.push(Expr::Pow(Box::new(x()), Box::new(Expr::num(t.power))));
            }
            if t.log_power != 0 {
                let log = Expr::Call(Func::Log2, vec![x()]);
                factors.push(Expr::Pow(
                    Box::new(log),
                    Box::new(Expr::num(f64::from(t.log_power))),
                ));
            }
            Expr::Mul(factors)
        })
        .collect();
    match items.len() {
        0 => Expr::num(0.0),
        _ => Expr::Add(items),
    }
}

/// The terms of `a - b`, a coefficient that cancels to within `1e-12` of
/// the two it comes from counted as 0 (rounding, not a difference).
pub(crate) fn difference(a: &[Term], b: &[Term]) -> Vec<Term> {
    let mut out: Vec<Term> = a.to_vec();
    for t in b {
        match out
            .iter_mut()
            .find(|o| o.power == t.power && o.log_power == t.log_power)
        {
            Some(o) => {
                let scale = o.coefficient.abs().max(t.coefficient.abs());
                o.coefficient -= t.coefficient;
                if o.coefficient.abs() <= 1e-12 * scale {
                    o.coefficient = 0.0;
                }
            }
            None => out.push(Term {
                coefficient: -t.coefficient,
                ..*t
            }),
        }
    }
    out.retain(|t| t.coefficient != 0.0);
    out
}

/// The roots in `[lo, hi]` (with `lo > 0`) of the sum of `terms`, or `None`
/// when the sum has no closed form here. An empty sum is zero everywhere:
/// no root (the caller reports a tie).
pub(crate) fn roots(terms: &[Term], lo: f64, hi: f64) -> Option<Vec<Root>> {
    if lo <= 0.0 || lo.is_nan() {
        return None;
    }
    if terms.is_empty() {
        return Some(Vec::new());
    }
    let min_power = terms.iter().map(|t| t.power).fold(f64::INFINITY, f64::min);
    let min_log = terms.iter().map(|t| t.log_power).min().unwrap_or(0);
    let reduced: Vec<Term> = terms
        .iter()
        .map(|t| Term {
            power: t.power - min_power,
            log_power: t.log_power - min_log,
            ..*t
        })
        .collect();
    // (x, multiplicity)
    let mut found: Vec<(f64, u32)> = Vec::new();
    if min_log > 0 {
        found.push((1.0, min_log));
    }
    if reduced.len() > 1 {
        let solved = if reduced.iter().all(|t| t.log_power == 0) {
            in_powers(&reduced)?
        } else if reduced.iter().all(|t| t.power == 0.0) {
            in_logs(&reduced)?
        } else {
            return None;
        };
        for (x, k) in solved {
            match found
                .iter_mut()
                .find(|(y, _)| (x - y).abs() <= 1e-14 * y.abs())
            {
                Some((_, m)) => *m += k,
                None => found.push((x, k)),
            }
        }
    }
    let mut out: Vec<Root> = found
        .into_iter()
        .filter(|&(x, _)| x.is_finite() && x >= lo && x <= hi)
        .map(|(x, k)| Root {
            at: x,
            kind: if k % 2 == 1 {
                PointKind::Crossing
            } else {
                PointKind::Tangency
            },
            closed_form: true,
        })
        .collect();
    out.sort_by(|p, q| p.at.total_cmp(&q.at));
    Some(out)
}

/// Roots `y > 0` (with multiplicities) of `c0 + c1·y + c2·y²`, `c2` possibly 0.
fn positive_quadratic_roots(c0: f64, c1: f64, c2: f64) -> Vec<(f64, u32)> {
    quadratic_roots(c0, c1, c2)
        .into_iter()
        .filter(|&(y, _)| y > 0.0)
        .collect()
}

/// Real roots (with multiplicities) of `c0 + c1·y + c2·y²`.
fn quadratic_roots(c0: f64, c1: f64, c2: f64) -> Vec<(f64, u32)> {
    if c2 == 0.0 {
        return if c1 == 0.0 {
            Vec::new()
        } else {
            vec![(-c0 / c1, 1)]
        };
    }
    let discriminant = c1 * c1 - 4.0 * c2 * c0;
    let scale = c1 * c1 + (4.0 * c2 * c0).abs();
    if discriminant.abs() <= 1e-12 * scale {
        return vec![(-c1 / (2.0 * c2), 2)];
    }
    if discriminant < 0.0 {
        return Vec::new();
    }
    // The stable pair: no cancellation in either root.
    let q = -0.5 * (c1 + c1.signum() * discriminant.sqrt());
    let q = if q == 0.0 {
        -0.5 * discriminant.sqrt()
    } else {
        q
    };
    let mut out = vec![(q / c2, 1), (c0 / q, 1)];
    out.sort_by(|p, q| p.0.total_cmp(&q.0));
    out
}

/// `Σ c·x^p` with powers `0, e` or `0, e, 2e`: a quadratic in `x^e`.
fn in_powers(terms: &[Term]) -> Option<Vec<(f64, u32)>> {
    let e = terms
        .iter()
        .map(|t| t.power)
        .filter(|&p| p > 0.0)
        .fold(f64::INFINITY, f64::min);
    let mut c = [0.0; 3];
    for t in terms {
        let k = t.power / e;
        let slot = [0.0, 1.0, 2.0].iter().position(|&s| s == k)?;
        c[slot] += t.coefficient;
    }
    Some(
        positive_quadratic_roots(c[0], c[1], c[2])
            .into_iter()
            .map(|(y, m)| (y.powf(e.recip()), m))
            .collect(),
    )
}

/// `Σ c·log2(x)^j` with `j` in `0, 1, 2`: a quadratic in `log2(x)`.
fn in_logs(terms: &[Term]) -> Option<Vec<(f64, u32)>> {
    let mut c = [0.0; 3];
    for t in terms {
        *c.get_mut(t.log_power as usize)? += t.coefficient;
    }
    Some(
        quadratic_roots(c[0], c[1], c[2])
            .into_iter()
            .map(|(l, m)| (l.exp2(), m))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(text: &str) -> Option<Vec<(f64, PointKind)>> {
        let e = Expr::parse(text).unwrap();
        let t = terms(&e, "x")?;
        roots(&t, 1e-3, 1e12).map(|r| r.iter().map(|r| (r.at, r.kind)).collect())
    }

    #[test]
    fn lines_monomials_and_quadratics() {
        assert_eq!(solve("2*x - 8"), Some(vec![(4.0, PointKind::Crossing)]));
        // 3·x^2 = 12·x^0.5: x^1.5 = 4
        let r = solve("3*x^2 - 12*x^0.5").unwrap();
        assert!((r[0].0 - 4f64.powf(1.0 / 1.5)).abs() < 1e-14);
        assert_eq!(
            solve("x^2 - 2*x + 1"),
            Some(vec![(1.0, PointKind::Tangency)])
        );
        assert_eq!(
            solve("x^2 - 5*x + 6"),
            Some(vec![(2.0, PointKind::Crossing), (3.0, PointKind::Crossing)])
        );
        assert_eq!(solve("x^2 + 1"), Some(vec![]));
    }

    #[test]
    fn logarithmic_terms() {
        // 258.5425·x·log2(x) = 536.185·x
        let r = solve("258.5425*x*log2(x) - 536.185*x").unwrap();
        assert_eq!(r.len(), 1);
        assert!((r[0].0 - (536.185f64 / 258.5425).exp2()).abs() < 1e-12);
        // x·log2(x)^2: a double root at 1
        assert_eq!(solve("x*log2(x)^2"), Some(vec![(1.0, PointKind::Tangency)]));
        // x·log2(x) against a constant: Lambert's W, not here
        assert_eq!(solve("x*log2(x) - 5"), None);
        assert_eq!(solve("max(x, 3) - 2"), None);
    }

    #[test]
    fn expansion_keeps_the_coefficients_as_written() {
        let e = Expr::parse("(2*x + 1)*(x - 1)/4 + ln(x)*3 + 2^3 + log(4, x)").unwrap();
        let mut t = terms(&e, "x").unwrap();
        t.sort_by(|p, q| {
            (p.power, p.log_power)
                .partial_cmp(&(q.power, q.log_power))
                .unwrap()
        });
        let ln2 = std::f64::consts::LN_2;
        let want = [
            (0.0, 0, 8.0 - 0.25),
            (0.0, 1, 3.0 * ln2 + 0.5),
            (1.0, 0, -0.25),
            (2.0, 0, 0.5),
        ];
        assert_eq!(t.len(), want.len());
        for (got, (power, log_power, c)) in t.iter().zip(want) {
            assert_eq!((got.power, got.log_power), (power, log_power));
            assert!((got.coefficient - c).abs() < 1e-15, "{got:?}");
        }
        // 1162.1393732203726 is kept to the last digit (the normal form
        // would round it to 12).
        let t = terms(&Expr::parse("1162.1393732203726 - x").unwrap(), "x").unwrap();
        assert!(t.iter().any(|t| t.coefficient == 1162.1393732203726));
        assert_eq!(terms(&Expr::parse("x + n").unwrap(), "x"), None);
    }
}
