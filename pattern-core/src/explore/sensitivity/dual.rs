//! A dual number `re + eps·ε` (`ε² = 0`) implementing `num_traits::Float`,
//! so that `Expr::eval_as` carries one derivative through a model. (The
//! `num-dual` crate's current releases need a newer Rust than this
//! workspace supports.)
//!
//! Comparisons look at the real part only. Where a function has a kink,
//! the derivative is the right one (the variable growing): `max` of two
//! equal values takes the larger slope, `min` the smaller, `abs` at 0 the
//! slope `|eps|`; `ceil`, `floor`, `round` and `trunc` have slope 0 (their
//! derivative wherever it exists).

use num_traits::{Float, Num, NumCast, One, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::num::FpCategory;
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

/// `re + eps·ε`: a value and its derivative along one direction.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dual {
    /// The value.
    pub re: f64,
    /// The derivative.
    pub eps: f64,
}

impl Dual {
    /// `re + eps·ε`.
    pub fn new(re: f64, eps: f64) -> Dual {
        Dual { re, eps }
    }

    /// A constant: slope 0.
    pub fn constant(re: f64) -> Dual {
        Dual { re, eps: 0.0 }
    }

    /// `φ(self)` from `φ(re)` and `φ'(re)`.
    fn chain(self, value: f64, slope: f64) -> Dual {
        // A constant stays a constant even where φ' is infinite (sqrt(0)).
        let eps = if self.eps == 0.0 {
            0.0
        } else {
            slope * self.eps
        };
        Dual { re: value, eps }
    }
}

impl PartialEq for Dual {
    fn eq(&self, other: &Dual) -> bool {
        self.re == other.re
    }
}

impl PartialOrd for Dual {
    fn partial_cmp(&self, other: &Dual) -> Option<Ordering> {
        self.re.partial_cmp(&other.re)
    }
}

impl Add for Dual {
    type Output = Dual;
    fn add(self, o: Dual) -> Dual {
        Dual::new(self.re + o.re, self.eps + o.eps)
    }
}

impl Sub for Dual {
    type Output = Dual;
    fn sub(self, o: Dual) -> Dual {
        Dual::new(self.re - o.re, self.eps - o.eps)
    }
}

impl Mul for Dual {
    type Output = Dual;
    fn mul(self, o: Dual) -> Dual {
        Dual::new(self.re * o.re, self.eps * o.re + self.re * o.eps)
    }
}

impl Div for Dual {
    type Output = Dual;
    fn div(self, o: Dual) -> Dual {
        Dual::new(
            self.re / o.re,
            (self.eps * o.re - self.re * o.eps) / (o.re * o.re),
        )
    }
}

impl Rem for Dual {
    type Output = Dual;
    /// `a - trunc(a/b)·b`, with `trunc` of slope 0.
    fn rem(self, o: Dual) -> Dual {
        let q = (self.re / o.re).trunc();
        Dual::new(self.re % o.re, self.eps - q * o.eps)
    }
}

impl Neg for Dual {
    type Output = Dual;
    fn neg(self) -> Dual {
        Dual::new(-self.re, -self.eps)
    }
}

impl Zero for Dual {
    fn zero() -> Dual {
        Dual::constant(0.0)
    }
    fn is_zero(&self) -> bool {
        self.re == 0.0
    }
}

impl One for Dual {
    fn one() -> Dual {
        Dual::constant(1.0)
    }
}

impl Num for Dual {
    type FromStrRadixErr = <f64 as Num>::FromStrRadixErr;
    fn from_str_radix(text: &str, radix: u32) -> Result<Dual, Self::FromStrRadixErr> {
        f64::from_str_radix(text, radix).map(Dual::constant)
    }
}

impl ToPrimitive for Dual {
    fn to_i64(&self) -> Option<i64> {
        self.re.to_i64()
    }
    fn to_u64(&self) -> Option<u64> {
        self.re.to_u64()
    }
    fn to_f64(&self) -> Option<f64> {
        Some(self.re)
    }
}

impl NumCast for Dual {
    fn from<T: ToPrimitive>(n: T) -> Option<Dual> {
        n.to_f64().map(Dual::constant)
    }
}

impl Float for Dual {
    fn nan() -> Dual {
        Dual::constant(f64::NAN)
    }
    fn infinity() -> Dual {
        Dual::constant(f64::INFINITY)
    }
    fn neg_infinity() -> Dual {
        Dual::constant(f64::NEG_INFINITY)
    }
    fn neg_zero() -> Dual {
        Dual::constant(-0.0)
    }
    fn min_value() -> Dual {
        Dual::constant(f64::MIN)
    }
    fn min_positive_value() -> Dual {
        Dual::constant(f64::MIN_POSITIVE)
    }
    fn max_value() -> Dual {
        Dual::constant(f64::MAX)
    }
    fn epsilon() -> Dual {
        Dual::constant(f64::EPSILON)
    }
    fn is_nan(self) -> bool {
        self.re.is_nan()
    }
    fn is_infinite(self) -> bool {
        self.re.is_infinite()
    }
    /// The value's finiteness (a model with an infinite slope but a finite
    /// value still has a value).
    fn is_finite(self) -> bool {
        self.re.is_finite()
    }
    fn is_normal(self) -> bool {
        self.re.is_normal()
    }
    fn classify(self) -> FpCategory {
        self.re.classify()
    }
    fn floor(self) -> Dual {
        Dual::constant(self.re.floor())
    }
    fn ceil(self) -> Dual {
        Dual::constant(self.re.ceil())
    }
    fn round(self) -> Dual {
        Dual::constant(self.re.round())
    }
    fn trunc(self) -> Dual {
        Dual::constant(self.re.trunc())
    }
    fn fract(self) -> Dual {
        Dual::new(self.re.fract(), self.eps)
    }
    /// At 0 the right derivative: `|eps|` (the value grows either way).
    fn abs(self) -> Dual {
        if self.re < 0.0 || (self.re == 0.0 && self.eps < 0.0) {
            -self
        } else {
            self
        }
    }
    fn signum(self) -> Dual {
        Dual::constant(self.re.signum())
    }
    fn is_sign_positive(self) -> bool {
        self.re.is_sign_positive()
    }
    fn is_sign_negative(self) -> bool {
        self.re.is_sign_negative()
    }
    fn mul_add(self, a: Dual, b: Dual) -> Dual {
        self * a + b
    }
    fn recip(self) -> Dual {
        self.chain(self.re.recip(), -1.0 / (self.re * self.re))
    }
    fn powi(self, n: i32) -> Dual {
        if n == 0 {
            return Dual::constant(1.0);
        }
        let k: f64 = n.into();
        self.chain(self.re.powi(n), k * self.re.powi(n - 1))
    }
    /// `self^k`: with a constant exponent the power rule (defined for
    /// negative bases and integer `k`), else `exp(k·ln self)`'s rule.
    fn powf(self, k: Dual) -> Dual {
        let value = self.re.powf(k.re);
        let base_slope = if k.re == 0.0 {
            0.0
        } else {
            k.re * self.re.powf(k.re - 1.0)
        };
        let mut out = self.chain(value, base_slope);
        if k.eps != 0.0 {
            out.eps += value * self.re.ln() * k.eps;
        }
        out
    }
    fn sqrt(self) -> Dual {
        let s = self.re.sqrt();
        self.chain(s, 0.5 / s)
    }
    fn exp(self) -> Dual {
        let e = self.re.exp();
        self.chain(e, e)
    }
    fn exp2(self) -> Dual {
        let e = self.re.exp2();
        self.chain(e, e * std::f64::consts::LN_2)
    }
    fn ln(self) -> Dual {
        self.chain(self.re.ln(), self.re.recip())
    }
    fn log(self, base: Dual) -> Dual {
        self.ln() / base.ln()
    }
    fn log2(self) -> Dual {
        self.chain(self.re.log2(), (self.re * std::f64::consts::LN_2).recip())
    }
    fn log10(self) -> Dual {
        self.chain(self.re.log10(), (self.re * std::f64::consts::LN_10).recip())
    }
    /// The larger value; at a tie, the larger slope (the right derivative).
    fn max(self, o: Dual) -> Dual {
        if o.re > self.re || (o.re == self.re && o.eps > self.eps) || self.re.is_nan() {
            o
        } else {
            self
        }
    }
    /// The smaller value; at a tie, the smaller slope (the right derivative).
    fn min(self, o: Dual) -> Dual {
        if o.re < self.re || (o.re == self.re && o.eps < self.eps) || self.re.is_nan() {
            o
        } else {
            self
        }
    }
    fn abs_sub(self, o: Dual) -> Dual {
        if self.re <= o.re {
            Dual::constant(0.0)
        } else {
            self - o
        }
    }
    fn cbrt(self) -> Dual {
        let c = self.re.cbrt();
        self.chain(c, (3.0 * c * c).recip())
    }
    fn hypot(self, o: Dual) -> Dual {
        (self * self + o * o).sqrt()
    }
    fn sin(self) -> Dual {
        self.chain(self.re.sin(), self.re.cos())
    }
    fn cos(self) -> Dual {
        self.chain(self.re.cos(), -self.re.sin())
    }
    fn tan(self) -> Dual {
        let t = self.re.tan();
        self.chain(t, 1.0 + t * t)
    }
    fn asin(self) -> Dual {
        self.chain(self.re.asin(), (1.0 - self.re * self.re).sqrt().recip())
    }
    fn acos(self) -> Dual {
        self.chain(self.re.acos(), -(1.0 - self.re * self.re).sqrt().recip())
    }
    fn atan(self) -> Dual {
        self.chain(self.re.atan(), (1.0 + self.re * self.re).recip())
    }
    fn atan2(self, o: Dual) -> Dual {
        let r2 = self.re * self.re + o.re * o.re;
        Dual::new(
            self.re.atan2(o.re),
            (o.re * self.eps - self.re * o.eps) / r2,
        )
    }
    fn sin_cos(self) -> (Dual, Dual) {
        (self.sin(), self.cos())
    }
    fn exp_m1(self) -> Dual {
        self.chain(self.re.exp_m1(), self.re.exp())
    }
    fn ln_1p(self) -> Dual {
        self.chain(self.re.ln_1p(), (1.0 + self.re).recip())
    }
    fn sinh(self) -> Dual {
        self.chain(self.re.sinh(), self.re.cosh())
    }
    fn cosh(self) -> Dual {
        self.chain(self.re.cosh(), self.re.sinh())
    }
    fn tanh(self) -> Dual {
        let t = self.re.tanh();
        self.chain(t, 1.0 - t * t)
    }
    fn asinh(self) -> Dual {
        self.chain(self.re.asinh(), (self.re * self.re + 1.0).sqrt().recip())
    }
    fn acosh(self) -> Dual {
        self.chain(self.re.acosh(), (self.re * self.re - 1.0).sqrt().recip())
    }
    fn atanh(self) -> Dual {
        self.chain(self.re.atanh(), (1.0 - self.re * self.re).recip())
    }
    fn integer_decode(self) -> (u64, i16, i8) {
        self.re.integer_decode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Expr;

    fn derivative(text: &str, x: f64) -> f64 {
        let e = Expr::parse(text).unwrap();
        e.eval_as(&[("x", Dual::new(x, 1.0))]).unwrap().eps
    }

    #[test]
    fn derivatives_through_eval_as() {
        let ln2 = std::f64::consts::LN_2;
        assert_eq!(derivative("3*x^2 + 2*x + 1", 2.0), 14.0);
        assert!((derivative("x*log2(x)", 8.0) - (3.0 + 1.0 / ln2)).abs() < 1e-12);
        assert!((derivative("1/x", 4.0) + 1.0 / 16.0).abs() < 1e-15);
        assert!((derivative("sqrt(x)", 4.0) - 0.25).abs() < 1e-15);
        assert!((derivative("2^x", 3.0) - 8.0 * ln2).abs() < 1e-12);
        assert!((derivative("x^x", 2.0) - 4.0 * (2f64.ln() + 1.0)).abs() < 1e-12);
        assert!((derivative("log(3, x)", 9.0) - 1.0 / (9.0 * 3f64.ln())).abs() < 1e-15);
        assert_eq!(derivative("ceil(x/4)*x", 5.0), 2.0);
    }

    #[test]
    fn kinks_take_the_right_derivative() {
        // max(x, 6 - x) at x = 3: slopes 1 and -1; to the right, x wins.
        assert_eq!(derivative("max(x, 6 - x)", 3.0), 1.0);
        assert_eq!(derivative("max(6 - x, x)", 3.0), 1.0);
        assert_eq!(derivative("min(x, 6 - x)", 3.0), -1.0);
        assert_eq!(derivative("max(x, 6 - x)", 4.0), 1.0);
        assert_eq!(derivative("max(x, 6 - x)", 2.0), -1.0);
        // |3 - x| grows on both sides of 3: to the right with slope 1.
        let at_three = |slope: f64| Float::abs(Dual::new(0.0, slope)).eps;
        assert_eq!(at_three(-1.0), 1.0);
        assert_eq!(at_three(1.0), 1.0);
        assert_eq!(Float::abs(Dual::new(-1.0, -1.0)).eps, 1.0);
    }
}
