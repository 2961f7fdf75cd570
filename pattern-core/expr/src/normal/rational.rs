//! Exact rationals for exponents and constants: the fraction an `f64`
//! stands for, the value of a constant expression as a fraction, and back.

use crate::Expr;
use num_rational::Ratio;
use num_traits::{CheckedAdd, CheckedMul, One, Signed, ToPrimitive, Zero};

/// An exact rational: exponents and constant fractions.
pub(crate) type Q = Ratio<i64>;

/// The value of a constant expression as an exact fraction, if it is built
/// from rational numbers by `+ - * /` and integer powers: `5/3` stays `5/3`
/// where `5 * (1/3.0)` in floating point would not.
pub(super) fn exact_rational(e: &Expr) -> Option<Q> {
    crate::deep(|| match e {
        Expr::Apply(..) => None,
        Expr::Num(v) => to_rational(*v),
        Expr::Add(items) => items
            .iter()
            .try_fold(Q::zero(), |acc, i| acc.checked_add(&exact_rational(i)?)),
        Expr::Mul(items) => items
            .iter()
            .try_fold(Q::one(), |acc, i| acc.checked_mul(&exact_rational(i)?)),
        Expr::Pow(base, exponent) => {
            let b = exact_rational(base)?;
            let k = exact_rational(exponent)?;
            if !k.is_integer() || k.numer().abs() > 16 || b.is_zero() {
                return None;
            }
            let k = *k.numer() as i32;
            let mut out = Q::one();
            for _ in 0..k.unsigned_abs() {
                out = out.checked_mul(&b)?;
            }
            Some(if k < 0 { out.recip() } else { out })
        }
        Expr::Var(_) | Expr::Call(_, _) => None,
    })
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
            // A tiny exponent is no 0: `b^6e-307` has no value where `b`
            // is negative, `b^0` has one.
            return (h != 0).then(|| Q::new(h, k));
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

/// The fraction as an `f64` (NaN where it has none).
pub(super) fn q_to_f64(q: &Q) -> f64 {
    q.to_f64().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
