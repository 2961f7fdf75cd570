//! Cost models that evaluate in `const` context, so that a budget can be a
//! compile-time assertion:
//!
//! ```
//! use pattern_core::dsl::ConstExpr;
//!
//! // 1034.17·x·log2(x), built by hand (the `#[cost]` macro writes these).
//! const QSORT: ConstExpr = ConstExpr::Mul(
//!     &ConstExpr::Mul(&ConstExpr::Num(1034.17), &ConstExpr::Var("x")),
//!     &ConstExpr::Log2(&ConstExpr::Var("x")),
//! );
//! const AT_1024: f64 = QSORT.eval(&[("x", 1024.0)]);
//! const _: () = assert!(AT_1024 < 1.1e7);
//! assert_eq!(QSORT.to_expr().eval(&[("x", 1024.0)]).unwrap(), AT_1024);
//! ```
//!
//! `f64::log2`, `powf` and `sqrt` are not `const fn`, so this module has its
//! own (`const_log2`, `const_exp2`, `const_pow`, `const_sqrt`), accurate to a
//! few units in the last place: a const value agrees with the runtime value
//! of [`ConstExpr::to_expr`] to about 1e-15, relatively.

use crate::Expr;

/// A cost expression as a tree of `'static` references, evaluable in `const`
/// context. The runtime counterpart is [`Expr`] ([`ConstExpr::to_expr`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstExpr {
    /// A number.
    Num(f64),
    /// A variable.
    Var(&'static str),
    /// `a + b`.
    Add(&'static ConstExpr, &'static ConstExpr),
    /// `a - b`.
    Sub(&'static ConstExpr, &'static ConstExpr),
    /// `a · b`.
    Mul(&'static ConstExpr, &'static ConstExpr),
    /// `a / b`.
    Div(&'static ConstExpr, &'static ConstExpr),
    /// `a ^ b`.
    Pow(&'static ConstExpr, &'static ConstExpr),
    /// `log2(a)`.
    Log2(&'static ConstExpr),
    /// `ln(a)`.
    Ln(&'static ConstExpr),
    /// `log(base, a)`.
    Log(&'static ConstExpr, &'static ConstExpr),
    /// `sqrt(a)`.
    Sqrt(&'static ConstExpr),
    /// `ceil(a)`.
    Ceil(&'static ConstExpr),
    /// `floor(a)`.
    Floor(&'static ConstExpr),
    /// `max(a, b)`.
    Max(&'static ConstExpr, &'static ConstExpr),
    /// `min(a, b)`.
    Min(&'static ConstExpr, &'static ConstExpr),
    /// `body` with the variable bound to `value` (evaluated outside it):
    /// what `M[reduce](d(x))` needs.
    Let(&'static str, &'static ConstExpr, &'static ConstExpr),
}

/// Variables bound by `Let`, innermost first.
struct Frame<'a> {
    name: &'static str,
    value: f64,
    parent: Option<&'a Frame<'a>>,
}

pub(crate) const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn lookup(name: &str, bindings: &[(&str, f64)], frame: Option<&Frame<'_>>) -> Option<f64> {
    let mut f = frame;
    while let Some(fr) = f {
        if str_eq(fr.name, name) {
            return Some(fr.value);
        }
        f = fr.parent;
    }
    let mut i = 0;
    while i < bindings.len() {
        if str_eq(bindings[i].0, name) {
            return Some(bindings[i].1);
        }
        i += 1;
    }
    None
}

impl ConstExpr {
    /// Evaluates with the given bindings. An unbound variable evaluates to
    /// NaN, so a budget assertion on it fails to compile rather than pass;
    /// use [`ConstExpr::try_eval`] to be told which variable.
    pub const fn eval(&self, bindings: &[(&str, f64)]) -> f64 {
        match self.eval_in(bindings, None) {
            Ok(v) => v,
            Err(_) => f64::NAN,
        }
    }

    /// Evaluates with the given bindings; `Err` names an unbound variable.
    pub const fn try_eval(&self, bindings: &[(&str, f64)]) -> Result<f64, &'static str> {
        self.eval_in(bindings, None)
    }

    const fn eval_in(
        &self,
        b: &[(&str, f64)],
        frame: Option<&Frame<'_>>,
    ) -> Result<f64, &'static str> {
        macro_rules! ev {
            ($e:expr) => {
                match $e.eval_in(b, frame) {
                    Ok(v) => v,
                    Err(name) => return Err(name),
                }
            };
        }
        Ok(match *self {
            ConstExpr::Num(v) => v,
            ConstExpr::Var(name) => match lookup(name, b, frame) {
                Some(v) => v,
                None => return Err(name),
            },
            ConstExpr::Add(x, y) => ev!(x) + ev!(y),
            ConstExpr::Sub(x, y) => ev!(x) - ev!(y),
            ConstExpr::Mul(x, y) => ev!(x) * ev!(y),
            ConstExpr::Div(x, y) => ev!(x) / ev!(y),
            ConstExpr::Pow(x, y) => const_pow(ev!(x), ev!(y)),
            ConstExpr::Log2(x) => const_log2(ev!(x)),
            ConstExpr::Ln(x) => const_log2(ev!(x)) * std::f64::consts::LN_2,
            ConstExpr::Log(base, x) => const_log2(ev!(x)) / const_log2(ev!(base)),
            ConstExpr::Sqrt(x) => const_sqrt(ev!(x)),
            ConstExpr::Ceil(x) => const_ceil(ev!(x)),
            ConstExpr::Floor(x) => const_floor(ev!(x)),
            ConstExpr::Max(x, y) => {
                let (p, q) = (ev!(x), ev!(y));
                if p.is_nan() || q.is_nan() {
                    f64::NAN
                } else if p >= q {
                    p
                } else {
                    q
                }
            }
            ConstExpr::Min(x, y) => {
                let (p, q) = (ev!(x), ev!(y));
                if p.is_nan() || q.is_nan() {
                    f64::NAN
                } else if p <= q {
                    p
                } else {
                    q
                }
            }
            ConstExpr::Let(name, value, body) => {
                let inner = Frame {
                    name,
                    value: ev!(value),
                    parent: frame,
                };
                match body.eval_in(b, Some(&inner)) {
                    Ok(v) => v,
                    Err(name) => return Err(name),
                }
            }
        })
    }

    /// The runtime expression of this tree.
    pub fn to_expr(&self) -> Expr {
        match *self {
            ConstExpr::Num(v) => Expr::num(v),
            ConstExpr::Var(name) => Expr::var(name),
            ConstExpr::Add(a, b) => a.to_expr() + b.to_expr(),
            ConstExpr::Sub(a, b) => a.to_expr() - b.to_expr(),
            ConstExpr::Mul(a, b) => a.to_expr() * b.to_expr(),
            ConstExpr::Div(a, b) => a.to_expr() / b.to_expr(),
            ConstExpr::Pow(a, b) => a.to_expr().pow(b.to_expr()),
            ConstExpr::Log2(a) => a.to_expr().log2(),
            ConstExpr::Ln(a) => a.to_expr().ln(),
            ConstExpr::Log(base, a) => a.to_expr().log(base.to_expr()),
            ConstExpr::Sqrt(a) => a.to_expr().sqrt(),
            ConstExpr::Ceil(a) => a.to_expr().ceil(),
            ConstExpr::Floor(a) => a.to_expr().floor(),
            ConstExpr::Max(a, b) => Expr::max([a.to_expr(), b.to_expr()]),
            ConstExpr::Min(a, b) => Expr::min([a.to_expr(), b.to_expr()]),
            ConstExpr::Let(name, value, body) => body.to_expr().subs(name, &value.to_expr()),
        }
    }
}

const SQRT_2: f64 = std::f64::consts::SQRT_2;
/// 2^54, to bring subnormal numbers into the normal range.
const TWO_54: f64 = 18014398509481984.0;

/// `log2(x)` in const context: exponent from the bits, the mantissa's
/// logarithm from the series `ln m = 2·atanh((m-1)/(m+1))`.
pub const fn const_log2(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    let (x, shift) = if x < f64::MIN_POSITIVE {
        (x * TWO_54, -54)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023 + shift;
    let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if m > SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    if m == 1.0 {
        return e as f64;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    // |s| < 0.172: 2·Σ s^(2k+1)/(2k+1), k < 14, is exact to double precision.
    let mut term = s;
    let mut sum = 0.0;
    let mut k = 0;
    while k < 14 {
        sum += term / (2 * k + 1) as f64;
        term *= s2;
        k += 1;
    }
    e as f64 + 2.0 * sum * std::f64::consts::LOG2_E
}

/// `2^y` in const context: an integer power of two from the bits times
/// `e^(f·ln 2)` for the fraction `f` in [-0.5, 0.5], by its Taylor series.
pub const fn const_exp2(y: f64) -> f64 {
    if y.is_nan() {
        return f64::NAN;
    }
    if y > 1024.0 {
        return f64::INFINITY;
    }
    if y < -1075.0 {
        return 0.0;
    }
    let i = const_floor(y + 0.5);
    let f = (y - i) * std::f64::consts::LN_2;
    let mut term = 1.0;
    let mut sum = 1.0;
    let mut k = 1;
    while k < 20 {
        term *= f / k as f64;
        sum += term;
        k += 1;
    }
    // Scale by 2^i in two steps so that neither factor overflows.
    let i = i as i64;
    let half = i / 2;
    sum * pow2(half) * pow2(i - half)
}

/// `2^k` for an integer `k` in the exponent range.
const fn pow2(k: i64) -> f64 {
    if k > 1023 {
        f64::INFINITY
    } else if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else if k >= -1074 {
        // Subnormal: 2^-1074 is the lowest bit.
        f64::from_bits(1u64 << (k + 1074))
    } else {
        0.0
    }
}

/// `x^y` in const context: repeated squaring for integer exponents (as
/// `powi`), `2^(y·log2 x)` otherwise.
pub const fn const_pow(x: f64, y: f64) -> f64 {
    if y == 0.0 {
        return 1.0;
    }
    if y == const_floor(y) && y.abs() <= 1024.0 {
        let mut n = y.abs() as u64;
        let mut base = x;
        let mut acc = 1.0;
        while n > 0 {
            if n & 1 == 1 {
                acc *= base;
            }
            base *= base;
            n >>= 1;
        }
        return if y < 0.0 { 1.0 / acc } else { acc };
    }
    if x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return if y > 0.0 { 0.0 } else { f64::INFINITY };
    }
    if y == 0.5 {
        return const_sqrt(x);
    }
    const_exp2(y * const_log2(x))
}

/// `sqrt(x)` in const context: Newton's iteration from `2^(log2(x)/2)`.
pub const fn const_sqrt(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 || x.is_infinite() {
        return x;
    }
    let mut r = const_exp2(0.5 * const_log2(x));
    let mut i = 0;
    while i < 3 {
        r = 0.5 * (r + x / r);
        i += 1;
    }
    r
}

/// `floor(x)` in const context.
pub const fn const_floor(x: f64) -> f64 {
    // Beyond 2^52 every f64 is an integer.
    if x.is_nan() || x.abs() >= 4503599627370496.0 {
        return x;
    }
    let t = x as i64 as f64;
    if t > x { t - 1.0 } else { t }
}

/// `ceil(x)` in const context.
pub const fn const_ceil(x: f64) -> f64 {
    -const_floor(-x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        a == b || (a - b).abs() <= rel * a.abs().max(b.abs())
    }

    #[test]
    fn log2_agrees_with_std() {
        let mut x = 1e-310;
        while x < 1e300 {
            for y in [x, x * 1.37, x * 1.41, x * 1.9999] {
                assert!(
                    close(const_log2(y), y.log2(), 4e-16) || (y.log2()).abs() < 1e-12,
                    "{y}"
                );
            }
            x *= 7.3;
        }
        assert_eq!(const_log2(1024.0), 10.0);
        assert_eq!(const_log2(262144.0), 18.0);
        assert_eq!(const_log2(0.0), f64::NEG_INFINITY);
        assert!(const_log2(-1.0).is_nan());
        assert!(close(const_log2(1.0000001), 1.0000001f64.log2(), 1e-9));
    }

    #[test]
    fn exp2_pow_sqrt_agree_with_std() {
        for y in [
            -1074.5, -300.25, -1.5, -0.5, 0.0, 0.3, 1.0, 10.7, 52.5, 1023.9,
        ] {
            assert!(
                close(const_exp2(y), y.exp2(), 2e-15),
                "exp2 {y}: {} vs {}",
                const_exp2(y),
                y.exp2()
            );
        }
        for (x, y) in [
            (8.0, 1.0 / 3.0),
            (1e6, 1.5),
            (262144.0, 2.0 / 3.0),
            (3.0, -2.0),
            (2.0, 10.0),
            (0.5, 0.25),
        ] {
            assert!(close(const_pow(x, y), x.powf(y), 4e-15), "pow {x} {y}");
        }
        for x in [2.0, 1e-300, 1e300, 12345.678, 0.01] {
            assert!(close(const_sqrt(x), x.sqrt(), 2e-16), "sqrt {x}");
        }
        assert_eq!(const_floor(-2.5), -3.0);
        assert_eq!(const_ceil(2.1), 3.0);
        assert_eq!(const_floor(1e300), 1e300);
    }

    #[test]
    fn eval_matches_the_runtime_expression() {
        const E: ConstExpr = ConstExpr::Add(
            &ConstExpr::Div(
                &ConstExpr::Mul(
                    &ConstExpr::Num(1034.17),
                    &ConstExpr::Mul(&ConstExpr::Var("x"), &ConstExpr::Log2(&ConstExpr::Var("x"))),
                ),
                &ConstExpr::Var("n"),
            ),
            &ConstExpr::Max(
                &ConstExpr::Pow(&ConstExpr::Var("x"), &ConstExpr::Num(2.0 / 3.0)),
                &ConstExpr::Let(
                    "x",
                    &ConstExpr::Num(768.0),
                    &ConstExpr::Sqrt(&ConstExpr::Var("x")),
                ),
            ),
        );
        const V: f64 = E.eval(&[("x", 1e6), ("n", 4.0)]);
        let runtime = E.to_expr().eval(&[("x", 1e6), ("n", 4.0)]).unwrap();
        assert!(close(V, runtime, 1e-15), "{V} vs {runtime}");
        assert_eq!(E.try_eval(&[("x", 1.0)]), Err("n"));
        assert!(E.eval(&[("x", 1.0)]).is_nan());
    }
}
