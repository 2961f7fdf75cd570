//! How a law's two sides are compared: symbolically (normal forms, and
//! dominance for inequalities) and numerically at sampled points.

use crate::expr::CompiledExpr;
use crate::{Expr, Func};
use std::cmp::Ordering;

/// Relative tolerance of every comparison: models are sums and maxima of
/// floating-point coefficients, so equal functions built along different
/// routes differ in the last digits.
pub(crate) const REL: f64 = 1e-9;

/// Sampled values of `x`: from 2 to 2^20, spread over the decades.
pub(crate) const X_SAMPLES: [f64; 12] = [
    2.0, 3.0, 5.0, 8.0, 13.0, 32.0, 100.0, 1000.0, 4096.0, 10007.0, 65536.0, 1048576.0,
];

/// Sampled values of every other variable (counts, symbolic parameters).
pub(crate) const COUNT_SAMPLES: [f64; 6] = [1.0, 2.0, 3.0, 5.0, 8.0, 64.0];

/// At most this many points per check; beyond, a fixed pseudo-random subset
/// of the grid (corners included).
const MAX_POINTS: usize = 240;

/// What [`dominance`](super::dominance) can tell about `l ≤ r` from the
/// forms of the two models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dominance {
    /// `l ≤ r` for all positive values of the variables (with `x ≥ 1`).
    Proved,
    /// `l > r` for large enough `x`: `l` is non-negative and grows faster.
    Refuted,
    /// Neither could be shown.
    Unknown,
}

/// The variables of both sides, sorted.
pub(crate) fn vars_of(l: &Expr, r: &Expr) -> Vec<String> {
    let mut vars = l.vars();
    vars.extend(r.vars());
    vars.into_iter().collect()
}

/// The sample grid for `vars`: `x` from [`X_SAMPLES`], the others from
/// [`COUNT_SAMPLES`].
pub(crate) fn sample_points(vars: &[String]) -> Vec<Vec<f64>> {
    let axes: Vec<&[f64]> = vars
        .iter()
        .map(|v| {
            if v == "x" {
                &X_SAMPLES[..]
            } else {
                &COUNT_SAMPLES[..]
            }
        })
        .collect();
    grid(&axes, MAX_POINTS)
}

/// The product of the axes, or at most `max` points of it: both corners and
/// a fixed pseudo-random selection.
pub(crate) fn grid(axes: &[&[f64]], max: usize) -> Vec<Vec<f64>> {
    let total = axes
        .iter()
        .try_fold(1usize, |acc, a| acc.checked_mul(a.len()))
        .unwrap_or(usize::MAX);
    if total <= max {
        let mut points = vec![Vec::with_capacity(axes.len())];
        for axis in axes {
            points = points
                .into_iter()
                .flat_map(|p| {
                    axis.iter().map(move |&v| {
                        let mut q = p.clone();
                        q.push(v);
                        q
                    })
                })
                .collect();
        }
        return points;
    }
    let mut points = vec![
        axes.iter().map(|a| a[0]).collect(),
        axes.iter().map(|a| a[a.len() - 1]).collect(),
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    while points.len() < max {
        points.push(
            axes.iter()
                .map(|a| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    a[((state >> 33) % a.len() as u64) as usize]
                })
                .collect(),
        );
    }
    points
}

/// Both sides compiled over the same variables.
pub(crate) struct Pair {
    pub(crate) vars: Vec<String>,
    l: CompiledExpr,
    r: CompiledExpr,
}

impl Pair {
    pub(crate) fn new(l: &Expr, r: &Expr) -> Option<Pair> {
        let vars = vars_of(l, r);
        let names: Vec<&str> = vars.iter().map(String::as_str).collect();
        Some(Pair {
            l: l.compile(&names).ok()?,
            r: r.compile(&names).ok()?,
            vars,
        })
    }

    /// Both values at a point, `None` where either is not finite.
    pub(crate) fn at(&self, point: &[f64]) -> Option<(f64, f64)> {
        let l = self.l.eval(point);
        let r = self.r.eval(point);
        (l.is_finite() && r.is_finite()).then_some((l, r))
    }

    /// Whether `pred(l, r)` holds at every sampled point (and both sides are
    /// finite there).
    pub(crate) fn all(&self, pred: impl Fn(f64, f64) -> bool) -> bool {
        sample_points(&self.vars)
            .iter()
            .all(|p| self.at(p).is_some_and(|(l, r)| pred(l, r)))
    }
}

/// `l ≈ r` within [`REL`].
pub(crate) fn close(l: f64, r: f64) -> bool {
    l == r || (l - r).abs() <= REL * l.abs().max(r.abs())
}

/// `l ≤ r` within [`REL`].
pub(crate) fn at_most(l: f64, r: f64) -> bool {
    l <= r || close(l, r)
}

/// Equal normal forms and equal values at every sampled point.
pub(crate) fn equal(l: &Expr, r: &Expr) -> bool {
    same_form(l, r) && Pair::new(l, r).is_some_and(|p| p.all(close))
}

/// Equal normal forms: identical readable forms ([`Expr::simplify`], which
/// rounds coefficients to 12 digits, so most equal models built along
/// different routes already meet there), else strong forms equal within
/// [`REL`] ([`Expr::approx_eq`], several times slower).
pub(crate) fn same_form(l: &Expr, r: &Expr) -> bool {
    l.simplify() == r.simplify() || l.approx_eq(r, REL)
}

/// Equal values at every sampled point (for identities the normal form
/// cannot decide, such as one involving `min`).
pub(crate) fn equal_numerically(l: &Expr, r: &Expr) -> bool {
    Pair::new(l, r).is_some_and(|p| p.all(close))
}

/// `l ≤ r` at every sampled point, and not refuted symbolically.
pub(crate) fn at_most_everywhere(l: &Expr, r: &Expr) -> bool {
    Pair::new(l, r).is_some_and(|p| p.all(at_most)) && !refuted(&l.simplify(), &r.simplify())
}

/// `l` is non-negative and grows faster in `x` than `r`.
fn refuted(l: &Expr, r: &Expr) -> bool {
    nonneg(l) && l.cmp_growth(r, "x") == Some(Ordering::Greater)
}

/// Symbolic check of `l ≤ r` for positive variables (`x ≥ 1`):
///
/// - refuted when `l` is non-negative and grows faster in `x` than `r`;
/// - proved when `r − l` has a normal form whose every term is
///   non-negative, either directly or after bounding the extrema: `l` from
///   above (`max(a, b) ≤ a + b` for non-negative arguments, `min ≤ mean`),
///   `r` from below (`max(a, b) ≥ mean`, `min ≥ 0`).
pub(crate) fn le(l: &Expr, r: &Expr) -> Dominance {
    let l = l.simplify();
    let r = r.simplify();
    if refuted(&l, &r) {
        return Dominance::Refuted;
    }
    if nonneg(&(r.clone() - l.clone()).canonical()) {
        return Dominance::Proved;
    }
    match (bound(&l, true), bound(&r, false)) {
        (Some(lu), Some(rl)) if nonneg(&(&rl - &lu).canonical()) => Dominance::Proved,
        _ => Dominance::Unknown,
    }
}

fn has_extremum(e: &Expr) -> bool {
    let mut found = false;
    e.visit(&mut |n| found |= matches!(n, Expr::Call(Func::Max | Func::Min, _)));
    found
}

/// Whether `e` is non-negative for every positive value of its variables
/// with `x ≥ 1` (so that `log2` of a variable is non-negative), judged from
/// its form: non-negative coefficients, variables, powers of non-negative
/// bases, `log2` of a variable, extrema and sums of non-negative parts.
pub(crate) fn nonneg(e: &Expr) -> bool {
    match e {
        Expr::Num(v) => *v >= 0.0,
        Expr::Var(_) => true,
        Expr::Add(items) | Expr::Mul(items) => items.iter().all(nonneg),
        Expr::Pow(base, _) => nonneg(base),
        Expr::Call(Func::Log2, args) => matches!(args.as_slice(), [Expr::Var(_)]),
        Expr::Call(Func::Max | Func::Min | Func::Sqrt | Func::Ceil | Func::Floor, args) => {
            args.iter().all(nonneg)
        }
        Expr::Call(..) | Expr::Apply(..) => false,
    }
}

/// An upper (`upper`) or lower bound of `e` without extrema, where one
/// follows from monotonicity; `None` where it does not.
fn bound(e: &Expr, upper: bool) -> Option<Expr> {
    if !has_extremum(e) {
        return Some(e.clone());
    }
    match e {
        Expr::Add(items) => items.iter().map(|i| bound(i, upper)).sum(),
        Expr::Mul(items) => {
            // Monotone in each factor when the others are non-negative; a
            // negative number flips the direction.
            let mut up = upper;
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Expr::Num(v) if *v < 0.0 => {
                        up = !up;
                        out.push(item.clone());
                    }
                    _ if nonneg(item) => out.push(item.clone()),
                    _ => return None,
                }
            }
            out.into_iter()
                .map(|f| {
                    if has_extremum(&f) {
                        bound(&f, up)
                    } else {
                        Some(f)
                    }
                })
                .product()
        }
        Expr::Pow(base, exponent) => match **exponent {
            Expr::Num(k) if k > 0.0 && nonneg(base) => Some(bound(base, upper)?.pow(k)),
            Expr::Num(k) if k < 0.0 && nonneg(base) => Some(bound(base, !upper)?.pow(k)),
            _ => None,
        },
        Expr::Call(Func::Max, args) => {
            let bounds: Option<Vec<Expr>> = args.iter().map(|a| bound(a, upper)).collect();
            let bounds = bounds?;
            if upper {
                // max ≤ sum, for non-negative arguments.
                args.iter().all(nonneg).then(|| bounds.into_iter().sum())
            } else {
                // max ≥ mean.
                let k = bounds.len() as f64;
                Some(bounds.into_iter().sum::<Expr>() / k)
            }
        }
        Expr::Call(Func::Min, args) => {
            if upper {
                // min ≤ mean.
                let bounds: Option<Vec<Expr>> = args.iter().map(|a| bound(a, true)).collect();
                let bounds = bounds?;
                let k = bounds.len() as f64;
                Some(bounds.into_iter().sum::<Expr>() / k)
            } else {
                // min ≥ 0, for non-negative arguments.
                args.iter().all(nonneg).then(|| Expr::num(0.0))
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(text: &str) -> Expr {
        Expr::parse(text).unwrap()
    }

    #[test]
    fn dominance_proves_what_the_bounds_reach() {
        // pipe(a, b) ≤ seq(a, b)
        assert_eq!(
            le(&e("max(3*x*log2(x), 5*x)"), &e("3*x*log2(x) + 5*x")),
            Dominance::Proved
        );
        // law (iv): tpool_2(seq(a, b)) ≤ pipe(a, b)
        assert_eq!(
            le(&e("(3*x*log2(x) + 5*x)/2"), &e("max(3*x*log2(x), 5*x)")),
            Dominance::Proved
        );
        // monotone in the count, a max inside
        assert_eq!(
            le(&e("max(3*x, 7)/8"), &e("max(3*x, 7)/2")),
            Dominance::Proved
        );
        // faster growth on the left: refuted
        assert_eq!(le(&e("x^2"), &e("1e9*x")), Dominance::Refuted);
        // a difference with non-negative terms, no bound needed
        assert_eq!(le(&e("x - 5"), &e("x")), Dominance::Proved);
        // true, but the bounds do not reach it (sum against mean)
        assert_eq!(
            le(&e("max(x, 2)"), &e("max(x, 2, x*log2(x))")),
            Dominance::Unknown
        );
        // false, but of one class: left to the numbers
        assert_eq!(le(&e("3*x"), &e("2*x")), Dominance::Unknown);
    }

    #[test]
    fn nonneg_judges_forms() {
        assert!(nonneg(&e("3*x*log2(x) + 5/n")));
        assert!(!nonneg(&e("log2(x/768)")));
        assert!(!nonneg(&e("x - 1")));
        assert!(nonneg(&e("max(x, 2)^2")));
    }

    #[test]
    fn grids_are_full_or_capped() {
        assert_eq!(grid(&[&[1.0, 2.0], &[3.0, 4.0, 5.0]], 100).len(), 6);
        let big = grid(
            &[&X_SAMPLES, &COUNT_SAMPLES, &COUNT_SAMPLES, &COUNT_SAMPLES],
            50,
        );
        assert_eq!(big.len(), 50);
        assert_eq!(big[0], [2.0, 1.0, 1.0, 1.0]);
        assert_eq!(big[1], [1048576.0, 64.0, 64.0, 64.0]);
    }

    #[test]
    fn equality_needs_both_forms_and_values() {
        assert!(equal(&e("max(a/4, b/4)"), &e("max(a, b)/4")));
        assert!(!equal(&e("max(a, b)"), &e("a + b")));
        // min is not resolved by the normal form, only numerically
        assert!(!equal(&e("a + b - max(a, b)"), &e("min(a, b)")));
        assert!(equal_numerically(&e("a + b - max(a, b)"), &e("min(a, b)")));
        assert!(at_most_everywhere(&e("max(a, b)"), &e("a + b")));
        assert!(!at_most_everywhere(&e("a + b"), &e("max(a, b)")));
    }
}
