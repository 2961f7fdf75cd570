//! Powers in the normal form: a rational power of a polynomial (folded
//! constants, merged exponents, sums expanded within budget, roots of what
//! may be negative kept whole, divisors that may be zero kept apart), a
//! real power, and the power 0.

use super::domain::{is_nonnegative, may_be_zero, may_lack_value};
use super::poly::{
    Base, Coef, MAX_EXPANDED_POWER, MAX_EXPANDED_TERMS, Monomial, Poly, Q, exponent_expr,
    leaves_range,
};
use super::rational::{q_to_f64, to_rational};
use crate::Expr;
use num_traits::{One, Signed};

pub(super) fn power(b: Poly, k: f64) -> Poly {
    match to_rational(k) {
        Some(q) => power_rational(b, q),
        None => power_real(b, k),
    }
}

pub(super) fn power_rational(b: Poly, q: Q) -> Poly {
    let out = power_unguarded(b, q);
    if q.is_negative() {
        guard_divisors(out)
    } else {
        out
    }
}

/// Every factor `B^e` with `e < 0` of a base `B` that may be 0
/// (`floor(3/m)`, `min(x, 0)`, `x - 1`) made one opaque factor: merged
/// with other powers of `B` the exponent could cancel (`(a/B)^-1 = B/a`,
/// `B·B^-1 = 1`) and give the function a value where `B = 0` and it has
/// none. Such a factor is never 0, so wrapping it again is not needed.
fn guard_divisors(mut p: Poly) -> Poly {
    let exposed = |m: &Monomial| {
        m.0.iter().any(|(b, e)| match b {
            Base::Opaque(x, _) | Base::Kept(x, _) => e.is_negative() && may_be_zero(x),
            _ => false,
        })
    };
    if !p.terms.keys().any(exposed) {
        return p;
    }
    let terms = std::mem::take(&mut p.terms);
    for (m, c) in terms {
        let mut out = Monomial::one();
        for (b, e) in m.0 {
            match b {
                Base::Opaque(x, (d, l)) | Base::Kept(x, (d, l))
                    if e.is_negative() && may_be_zero(&x) =>
                {
                    let power = Expr::Pow(Box::new(x), Box::new(exponent_expr(&e)));
                    *out.0
                        .entry(Base::Opaque(power, (d * e, l * e)))
                        .or_default() += Q::one();
                }
                b => *out.0.entry(b).or_default() += e,
            }
        }
        p.insert(out, c);
    }
    p
}

fn power_unguarded(b: Poly, q: Q) -> Poly {
    let k = q_to_f64(&q);
    if k == 0.0 {
        return power_zero(b);
    }
    if k == 1.0 {
        return b;
    }
    if let Some(c) = b.as_constant() {
        let v = c.powf(k);
        // A base without a value (`inf` from the API) has none raised
        // either, though `inf^-2` is 0 in floating point.
        return if v.is_finite() && c.is_finite() {
            Poly {
                lost: leaves_range(c, k, v),
                ..Poly::constant(v)
            }
        } else {
            Poly::opaque(Expr::Pow(Box::new(Expr::Num(c)), Box::new(Expr::Num(k))))
        };
    }
    if let Some((c, base, inner)) = constant_power(&b) {
        // (c·base^k)^q = c^q · base^(k·q): a power beyond `f64` folds once
        // the exponent brings it back (`(1e200^2)^0.5 = 1e200`).
        return power_rational(Poly::constant(c), q)
            .mul_moved(power(Poly::constant(base), inner * k));
    }
    if matches!(b.single_term(), Some((c, _)) if !c.is_finite()) || b.has_non_finite() {
        // A coefficient or a factor without a value has none raised either
        // (`inf^-1` is 0 in floating point, and `(x/0)^-1` must not
        // become `0^1/x`).
        return Poly::opaque(Expr::Pow(Box::new(b.into_expr()), Box::new(Expr::Num(k))));
    }
    if let Some((c, m)) = b.single_term() {
        // (b^2)^(1/2) is |b|: fractional powers combine only over bases that
        // cannot be negative.
        let combinable = q.is_integer()
            || (c > 0.0
                && m.0.keys().all(|base| match base {
                    Base::Opaque(e, _) | Base::Kept(e, _) => is_nonnegative(e),
                    _ => true,
                }));
        if combinable {
            if !m.pow_fits(&q) {
                // An exponent beyond the `i64` fractions (`(x^2)^2` nested
                // 64 deep is `x^(2^64)`): the power is kept as one factor,
                // never multiplied out (which would copy its base).
                return Poly::opaque(Expr::Pow(Box::new(b.into_expr()), Box::new(Expr::Num(k))));
            }
            let value = c.powf(k);
            let mut out = Poly {
                lost: leaves_range(c, k, value),
                ..Poly::default()
            };
            // The one term's bases moved into the power.
            for m in b.terms.into_keys().filter_map(|m| m.into_pow(q)) {
                out.insert(
                    m,
                    Coef {
                        value,
                        magnitude: value.abs(),
                    },
                );
            }
            // `sqrt(s)^2 = s`: a sum brought back to an integer power
            // is expanded, as in a product.
            return out.expand_integer_powers_of_sums();
        }
    }
    if q.is_integer() && q.is_positive() && *q.numer() <= MAX_EXPANDED_POWER {
        let n = *q.numer();
        if (b.terms.len() as f64).powi(n as i32) <= MAX_EXPANDED_TERMS as f64 {
            let mut out = b.clone();
            for _ in 1..n {
                out = out.mul(&b);
            }
            return out;
        }
    }
    let (content, monic) = b.split_content();
    let positive = content > 0.0 && is_nonnegative(&monic.to_expr());
    if !(q.is_integer() || positive) {
        return root_kept_whole(b, q);
    }
    if content > 0.0 || q.is_integer() {
        let scale = content.powf(k);
        let (d, l) = monic.degree();
        let lost = monic.lost;
        let base = Base::Opaque(monic.into_expr(), (d * q, l * q));
        let mut out = Poly::base(base, q).scale(scale);
        out.lost |= lost || leaves_range(content, k, scale);
        return out;
    }
    let (d, l) = b.degree();
    Poly::base(Base::Opaque(b.into_expr(), (d * q, l * q)), q)
}

/// `b^0`: 1 where `b` has a value. `inf^0` is 1 in floating point, but the
/// base has no value; a machine call has one only under a profile, and a
/// factor that may have none (`ln(x - y)`) keeps the power.
fn power_zero(b: Poly) -> Poly {
    if b.has_application() || may_lack_value(&b.to_expr()) {
        Poly::opaque(Expr::Pow(Box::new(b.into_expr()), Box::new(Expr::Num(0.0))))
    } else if b.has_non_finite() {
        Poly::constant(f64::NAN)
    } else {
        Poly::constant(1.0)
    }
}

/// A root of what may be negative (`sqrt(-p)`, `(x - y)^0.5`) as one
/// factor: its exponent must not combine with an integer power into one
/// that gives it a value (`sqrt(-p)^2` is not `-p`).
fn root_kept_whole(b: Poly, q: Q) -> Poly {
    let (d, l) = b.degree();
    let lost = b.lost;
    let power = Expr::Pow(Box::new(b.into_expr()), Box::new(exponent_expr(&q)));
    let mut out = Poly::base(Base::Opaque(power, (d * q, l * q)), Q::one());
    out.lost |= lost;
    out
}

/// `c·base^k` where `base^k` is a constant power kept unfolded because it
/// overflows or underflows `f64`: `(c, base, k)`. One that has no value
/// (`0^-1`, `(-2)^0.5`) is not: `(0^-1)^-1` has none either.
fn constant_power(b: &Poly) -> Option<(f64, f64, f64)> {
    let (c, m) = b.single_term()?;
    let mut factors = m.0.iter();
    let (Base::Opaque(Expr::Pow(base, k), _), e) = factors.next()? else {
        return None;
    };
    match (&**base, &**k, e.is_one(), factors.next()) {
        (Expr::Num(base), Expr::Num(k), true, None)
            if base.is_finite() && (*base > 0.0 || (*base < 0.0 && k.fract() == 0.0)) =>
        {
            Some((c, *base, *k))
        }
        _ => None,
    }
}

/// A power with an exponent that is no fraction (`x^π`): folded for a
/// constant base, otherwise an opaque factor.
fn power_real(b: Poly, k: f64) -> Poly {
    match b.as_constant() {
        Some(c) if c.is_finite() && c.powf(k).is_finite() => Poly {
            lost: leaves_range(c, k, c.powf(k)),
            ..Poly::constant(c.powf(k))
        },
        _ => Poly::opaque(Expr::Pow(Box::new(b.to_expr()), Box::new(Expr::Num(k)))),
    }
}
