//! Polynomials: the sum-of-products normal form. A [`Poly`] is a sum of
//! terms `c · Π b^a` keyed by [`Monomial`]; this module has their
//! arithmetic (sums, scaling, products), their order by growth, the exact
//! rationals of exponents, and the way back to an [`Expr`].

use crate::{Expr, Func, divide, product_of, sum_of};
use num_rational::Ratio;
use num_traits::{CheckedAdd, CheckedMul, One, Signed, ToPrimitive, Zero};
use std::collections::BTreeMap;

pub(crate) type Q = Ratio<i64>;

/// A base of a PMNF factor.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Base {
    Var(String),
    Log2(String),
    Opaque(Expr),
}

/// A product of bases with non-zero rational exponents.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Monomial(pub(crate) BTreeMap<Base, Q>);

/// A coefficient with the size of what was added up to make it, so that
/// cancellation down to rounding noise is recognized as zero.
#[derive(Clone, Copy, Debug)]
pub(super) struct Coef {
    pub(super) value: f64,
    pub(super) magnitude: f64,
}

/// A sum of terms, keyed by monomial.
#[derive(Clone, Debug, Default)]
pub(crate) struct Poly {
    pub(super) terms: BTreeMap<Monomial, Coef>,
}

/// Products with more terms than this keep their factors unexpanded.
pub(super) const MAX_EXPANDED_TERMS: usize = 4096;
/// Integer powers of sums up to this exponent are expanded.
pub(super) const MAX_EXPANDED_POWER: i64 = 8;
/// A sum whose value is below this fraction of its parts' size is zero.
/// Above the relative error of the 12-digit rounding of coefficients (5e-12),
/// so that rounding residues of equal parts cancel.
pub(super) const CANCELLATION: f64 = 2e-11;

impl Monomial {
    pub(super) fn one() -> Monomial {
        Monomial(BTreeMap::new())
    }

    pub(super) fn single(base: Base, exponent: Q) -> Monomial {
        let mut m = BTreeMap::new();
        if !exponent.is_zero() {
            m.insert(base, exponent);
        }
        Monomial(m)
    }

    pub(super) fn mul(&self, other: &Monomial) -> Option<Monomial> {
        let mut out = self.0.clone();
        for (base, e) in &other.0 {
            let sum = match out.get(base) {
                Some(a) => a.checked_add(e)?,
                None => *e,
            };
            if sum.is_zero() {
                out.remove(base);
            } else {
                out.insert(base.clone(), sum);
            }
        }
        Some(Monomial(out))
    }

    pub(super) fn pow(&self, k: Q) -> Option<Monomial> {
        let mut out = BTreeMap::new();
        for (base, e) in &self.0 {
            out.insert(base.clone(), e.checked_mul(&k)?);
        }
        Some(Monomial(out))
    }

    /// Sum of the exponents of variables and of logarithms: the growth key.
    fn degrees(&self) -> (Q, Q, bool) {
        let mut degree = Q::zero();
        let mut log = Q::zero();
        let mut opaque = false;
        for (base, e) in &self.0 {
            match base {
                Base::Var(_) => degree += e,
                Base::Log2(_) => log += e,
                Base::Opaque(inner) => {
                    opaque = true;
                    let (d, l) = total_degree(inner);
                    degree += d * e;
                    log += l * e;
                }
            }
        }
        (degree, log, opaque)
    }
}

impl Poly {
    pub(crate) fn constant(value: f64) -> Poly {
        let mut p = Poly::default();
        if value != 0.0 {
            p.terms.insert(
                Monomial::one(),
                Coef {
                    value,
                    magnitude: value.abs(),
                },
            );
        }
        p
    }

    pub(super) fn base(base: Base, exponent: Q) -> Poly {
        let mut p = Poly::default();
        p.terms.insert(
            Monomial::single(base, exponent),
            Coef {
                value: 1.0,
                magnitude: 1.0,
            },
        );
        p
    }

    pub(super) fn opaque(e: Expr) -> Poly {
        match e {
            Expr::Num(v) => Poly::constant(v),
            e => Poly::base(Base::Opaque(e), Q::one()),
        }
    }

    pub(super) fn insert(&mut self, monomial: Monomial, coef: Coef) {
        let entry = self.terms.entry(monomial).or_insert(Coef {
            value: 0.0,
            magnitude: 0.0,
        });
        entry.value += coef.value;
        entry.magnitude += coef.magnitude;
    }

    /// Drops the terms that cancelled: zero, or rounding noise of parts
    /// that were added up. A non-finite coefficient (an overflow, `inf -
    /// inf`) is never taken as cancelled: its value is not known.
    fn drop_cancelled(&mut self) {
        self.terms.retain(|_, c| {
            !(c.value == 0.0
                || (c.magnitude.is_finite() && c.value.abs() <= CANCELLATION * c.magnitude))
        });
    }

    /// Whether the polynomial holds a value that is not finite wherever it
    /// is evaluated: a non-finite coefficient, or a constant factor that
    /// does not evaluate (`1/0`, `log2(0)`). Such a value poisons what it
    /// is multiplied by, so a product with zero stays non-finite.
    pub(super) fn has_non_finite(&self) -> bool {
        self.terms.iter().any(|(m, c)| {
            !c.value.is_finite()
                || m.0.keys().any(|b| match b {
                    Base::Opaque(e) => {
                        e.is_constant() && e.applied_functions().is_empty() && e.eval(&[]).is_err()
                    }
                    _ => false,
                })
        })
    }

    /// Zero times `self`: zero, or NaN when `self` is not finite (as
    /// `0 · inf` is in floating point).
    pub(super) fn times_zero(&self) -> Poly {
        if self.has_non_finite() {
            Poly::constant(f64::NAN)
        } else {
            Poly::default()
        }
    }

    pub(super) fn add(mut self, other: Poly) -> Poly {
        for (m, c) in other.terms {
            self.insert(m, c);
        }
        self.drop_cancelled();
        self
    }

    pub(super) fn scale(mut self, k: f64) -> Poly {
        if k == 0.0 {
            return self.times_zero();
        }
        for c in self.terms.values_mut() {
            c.value *= k;
            c.magnitude *= k.abs();
        }
        self
    }

    /// The product of two polynomials, expanded up to
    /// [`MAX_EXPANDED_TERMS`] terms (beyond, the two factors are kept whole);
    /// sums brought to an integer power stay factors (see `Poly::mul`).
    pub(super) fn product(&self, other: &Poly) -> Poly {
        if self.terms.is_empty() {
            return other.times_zero();
        }
        if other.terms.is_empty() {
            return self.times_zero();
        }
        if self.terms.len() * other.terms.len() > MAX_EXPANDED_TERMS {
            // Contents outside, as `power_rational` keeps a power of a sum,
            // so that the result is a fixed point of the normal form.
            let (ca, a) = self.split_content();
            let (cb, b) = other.split_content();
            return Poly::opaque(a.to_expr())
                .product(&Poly::opaque(b.to_expr()))
                .scale(ca * cb);
        }
        let mut out = Poly::default();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &other.terms {
                let coef = Coef {
                    value: ca.value * cb.value,
                    magnitude: ca.magnitude * cb.magnitude,
                };
                match ma.mul(mb) {
                    Some(m) => out.insert(m, coef),
                    // Exponents beyond i64 fractions: keep the product opaque.
                    None => out.insert(
                        Monomial::single(
                            Base::Opaque(product_of(vec![monomial_expr(ma), monomial_expr(mb)])),
                            Q::one(),
                        ),
                        coef,
                    ),
                }
            }
        }
        out.drop_cancelled();
        out
    }

    pub(crate) fn as_constant(&self) -> Option<f64> {
        match self.terms.len() {
            0 => Some(0.0),
            1 => {
                let (m, c) = self.terms.iter().next()?;
                m.0.is_empty().then_some(c.value)
            }
            _ => None,
        }
    }

    pub(super) fn single_term(&self) -> Option<(f64, &Monomial)> {
        if self.terms.len() != 1 {
            return None;
        }
        self.terms.iter().next().map(|(m, c)| (c.value, m))
    }

    /// Splits a sum into its first coefficient and the sum divided by it, so
    /// that `(2a + 2b)^k` and `2^k (a + b)^k` meet in one normal form.
    pub(super) fn split_content(&self) -> (f64, Poly) {
        let Some(first) = self.sorted_terms().first().map(|(_, c)| c.value) else {
            return (1.0, self.clone());
        };
        // Dividing by a subnormal or huge content would overflow or
        // underflow the others: such a sum keeps its content.
        if !(1e-300..=1e300).contains(&first.abs()) {
            return (1.0, self.clone());
        }
        (first, self.clone().scale(1.0 / first))
    }

    /// Terms in display order: by growth, descending; the constant last.
    fn sorted_terms(&self) -> Vec<(&Monomial, Coef)> {
        // The growth keys are computed once per term: for opaque factors
        // they walk the whole factor.
        let mut keyed: Vec<((Q, Q, bool), &Monomial, Coef)> = self
            .terms
            .iter()
            .map(|(m, c)| (m.degrees(), m, *c))
            .collect();
        keyed.sort_by(|(ka, a, _), (kb, b, _)| {
            kb.0.cmp(&ka.0)
                .then(kb.1.cmp(&ka.1))
                .then(kb.2.cmp(&ka.2))
                // The constant goes last among terms of equal degree.
                .then(a.0.is_empty().cmp(&b.0.is_empty()))
                .then_with(|| a.cmp(b))
        });
        keyed.into_iter().map(|(_, m, c)| (m, c)).collect()
    }

    /// The canonical expression of this normal form.
    pub(crate) fn to_expr(&self) -> Expr {
        let terms: Vec<Expr> = self
            .sorted_terms()
            .into_iter()
            .map(|(m, c)| term_expr(round_significant(c.value), m))
            .collect();
        sum_of(terms)
    }
}

/// The growth of an opaque factor in all variables together, for ordering
/// terms: (degree, log degree).
pub(super) fn total_degree(e: &Expr) -> (Q, Q) {
    crate::deep(|| {
        let zero = (Q::zero(), Q::zero());
        match e {
            Expr::Apply(..) => zero,
            Expr::Num(_) => zero,
            Expr::Var(_) => (Q::one(), Q::zero()),
            Expr::Add(items) | Expr::Call(Func::Max, items) => {
                items.iter().map(total_degree).max().unwrap_or(zero)
            }
            Expr::Call(Func::Min, items) => items.iter().map(total_degree).min().unwrap_or(zero),
            Expr::Mul(items) => items
                .iter()
                .map(total_degree)
                .fold(zero, |(d, l), (a, b)| (d + a, l + b)),
            Expr::Pow(base, exponent) => match (**exponent).clone() {
                Expr::Num(k) => {
                    let (d, l) = total_degree(base);
                    let k = to_rational(k).unwrap_or_else(Q::zero);
                    (d * k, l * k)
                }
                _ => zero,
            },
            Expr::Call(Func::Log2 | Func::Ln | Func::Log, _) => (Q::zero(), Q::one()),
            Expr::Call(Func::Sqrt, args) => {
                let (d, l) = total_degree(&args[0]);
                (d / Q::from_integer(2), l / Q::from_integer(2))
            }
            Expr::Call(Func::Ceil | Func::Floor, args) => total_degree(&args[0]),
        }
    })
}

/// Rounds to 12 significant digits (see the module invariants).
pub(super) fn round_significant(v: f64) -> f64 {
    if !v.is_finite() || v == 0.0 {
        return if v == 0.0 { 0.0 } else { v };
    }
    format!("{v:.11e}").parse().unwrap_or(v)
}

/// The simplest fraction for this `f64`: the first continued-fraction
/// convergent within 1e-12 of it (`0.2` is `1/5`, `5 * (1/3.0)` is `5/3`).
pub(crate) fn to_rational(v: f64) -> Option<Q> {
    if !v.is_finite() {
        return None;
    }
    if v == v.trunc() {
        return (v.abs() < 9.0e15).then(|| Q::from_integer(v as i64));
    }
    let (mut h0, mut h1) = (0i64, 1i64);
    let (mut k0, mut k1) = (1i64, 0i64);
    let mut rest = v;
    for _ in 0..64 {
        let a = rest.floor();
        if a.abs() > 9.0e15 {
            return None;
        }
        let a = a as i64;
        let h = a.checked_mul(h1)?.checked_add(h0)?;
        let k = a.checked_mul(k1)?.checked_add(k0)?;
        if ((h as f64) / (k as f64) - v).abs() <= 1e-12 * v.abs().max(1.0) {
            return Some(Q::new(h, k));
        }
        (h0, h1, k0, k1) = (h1, h, k1, k);
        let frac = rest - rest.floor();
        if frac == 0.0 || k > 1_000_000_000 {
            return None;
        }
        rest = 1.0 / frac;
    }
    None
}

pub(super) fn q_to_f64(q: &Q) -> f64 {
    q.to_f64().unwrap_or(f64::NAN)
}

/// The exponent as an expression: integers and terminating decimals as a
/// number (`2`, `0.5`), other fractions as `p/q` (`2/3`).
fn exponent_expr(q: &Q) -> Expr {
    if q.is_integer() || 1000 % q.denom() == 0 {
        Expr::Num(q_to_f64(q))
    } else {
        divide(Expr::Num(*q.numer() as f64), Expr::Num(*q.denom() as f64))
    }
}

pub(super) fn base_expr(base: &Base) -> Expr {
    match base {
        Base::Var(v) => Expr::Var(v.clone()),
        Base::Log2(v) => Expr::Call(Func::Log2, vec![Expr::Var(v.clone())]),
        Base::Opaque(e) => e.clone(),
    }
}

fn factor_expr(base: &Base, e: &Q) -> Expr {
    let b = base_expr(base);
    if e.is_one() {
        return b;
    }
    // A power that could not be folded (a negative base under a fractional
    // exponent) takes the exponent in: `1/c^k` reads back as `c^(-k)`.
    if let (Expr::Pow(inner, k), true) = (&b, e.is_integer()) {
        if let Expr::Num(k) = **k {
            return Expr::Pow(inner.clone(), Box::new(Expr::Num(k * q_to_f64(e))));
        }
    }
    if e.is_negative() && !e.is_integer() && 1000 % e.denom() != 0 {
        // `/x^(1/3)`: the printer writes divisors as positive powers.
        return b.pow(exponent_expr(&-*e)).recip();
    }
    b.pow(exponent_expr(e))
}

fn monomial_factors(m: &Monomial) -> Vec<Expr> {
    let (up, down): (Vec<_>, Vec<_>) = m.0.iter().partition(|(_, e)| e.is_positive());
    up.into_iter()
        .chain(down)
        .map(|(b, e)| factor_expr(b, e))
        .collect()
}

fn monomial_expr(m: &Monomial) -> Expr {
    product_of(monomial_factors(m))
}

fn term_expr(c: f64, m: &Monomial) -> Expr {
    let mut factors = monomial_factors(m);
    if factors.is_empty() {
        return Expr::Num(c);
    }
    if c != 1.0 {
        factors.insert(0, Expr::Num(c));
    }
    product_of(factors)
}

impl Poly {
    pub(super) fn divide_monomial(&self, m: &Monomial) -> Poly {
        let divisor = m.pow(-Q::one()).unwrap_or_default();
        let mut out = Poly::default();
        for (t, c) in &self.terms {
            out.insert(t.mul(&divisor).unwrap_or_else(|| t.clone()), *c);
        }
        out
    }

    pub(super) fn leading_coefficient(&self) -> f64 {
        self.sorted_terms().first().map_or(0.0, |(_, c)| c.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normal::tests::{s, same};

    #[test]
    fn rationals_from_floats() {
        assert_eq!(to_rational(0.5), Some(Q::new(1, 2)));
        assert_eq!(to_rational(0.2), Some(Q::new(1, 5)));
        assert_eq!(to_rational(2.0 / 3.0), Some(Q::new(2, 3)));
        assert_eq!(to_rational(-0.75), Some(Q::new(-3, 4)));
        assert_eq!(to_rational(4.0 / 5.0), Some(Q::new(4, 5)));
        assert_eq!(to_rational(7.0), Some(Q::from_integer(7)));
        assert_eq!(to_rational(f64::NAN), None);
    }

    #[test]
    fn like_terms_and_order() {
        assert_eq!(
            s("x*log2(x)*1034.17 + 5422.97"),
            "1034.17·x·log₂(x) + 5422.97"
        );
        assert_eq!(
            s("5422.97 + 1034.17*log2(x)*x"),
            "1034.17·x·log₂(x) + 5422.97"
        );
        assert_eq!(s("x^(1)*log2(x)^(1)"), "x·log₂(x)");
        assert_eq!(s("536.185*x + 536.185*x"), "1072.37·x");
        assert_eq!(s("3 + x - 3"), "x");
        assert_eq!(s("x - x"), "0");
        assert_eq!(s("2*3 + 4"), "10");
        assert_eq!(
            s("5 + x^2 + x*log2(x) + x + log2(x)^2 + sqrt(x)"),
            "x^2 + x·log₂(x) + x + x^0.5 + log₂(x)^2 + 5"
        );
    }

    #[test]
    fn rounding_makes_equal_functions_equal() {
        same("0.1*x + 0.2*x", "0.3*x");
        same("x/3 + x/3 + x/3", "x");
        assert!(
            Expr::parse("1e-20*x + 1").unwrap().simplify() != Expr::parse("1").unwrap().simplify()
        );
    }
}
