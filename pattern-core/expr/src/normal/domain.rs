//! Where a factor has a value, given the normal form's domain: variables
//! are positive sizes and counts, at least 1 under a logarithm.

use crate::{Expr, Func};

/// Whether an expression cannot be negative, given positive variables and
/// logarithms of sizes (at least 1).
pub(super) fn is_nonnegative(e: &Expr) -> bool {
    crate::deep(|| match e {
        Expr::Apply(..) => false,
        Expr::Num(v) => *v >= 0.0,
        Expr::Var(_) => true,
        Expr::Add(items) | Expr::Mul(items) => items.iter().all(is_nonnegative),
        Expr::Pow(base, exponent) => {
            is_nonnegative(base)
                || matches!(**exponent, Expr::Num(k) if k == k.trunc() && k % 2.0 == 0.0)
        }
        Expr::Call(Func::Log2 | Func::Ln, args) => matches!(args.as_slice(), [Expr::Var(_)]),
        Expr::Call(Func::Max, args) => args.iter().any(is_nonnegative),
        Expr::Call(Func::Min | Func::Ceil | Func::Floor, args) => args.iter().all(is_nonnegative),
        Expr::Call(Func::Sqrt, _) => true,
        Expr::Call(Func::Log, _) => false,
    })
}

/// Whether an expression is above 0 wherever it has a value, given
/// positive variables and logarithms of sizes (a variable's is taken as
/// positive, as the normal form's `log2(x)/log2(x) = 1` does). What is not
/// may be 0 (`floor(3/m)`, `min(x, 0)`, `x - 1`): a divisor that must not
/// cancel out of the function (see `guard_divisors`).
pub(super) fn is_positive(e: &Expr) -> bool {
    crate::deep(|| match e {
        Expr::Num(v) => *v > 0.0,
        Expr::Var(_) => true,
        Expr::Add(items) => items.iter().all(is_nonnegative) && items.iter().any(is_positive),
        Expr::Mul(items) | Expr::Call(Func::Min, items) => items.iter().all(is_positive),
        Expr::Call(Func::Max, items) => items.iter().any(is_positive),
        Expr::Pow(base, _) => is_positive(base),
        Expr::Call(Func::Sqrt | Func::Ceil, args) => args.first().is_some_and(is_positive),
        Expr::Call(Func::Log2 | Func::Ln, args) => matches!(args.as_slice(), [Expr::Var(_)]),
        Expr::Call(Func::Floor | Func::Log, _) | Expr::Apply(..) => false,
    })
}

/// Whether an expression may be 0 where it has a value: not positive
/// ([`is_positive`]), not a nonzero number, not a power to a negative
/// exponent (which has no value where its base is 0).
pub(super) fn may_be_zero(e: &Expr) -> bool {
    match e {
        Expr::Num(v) => *v == 0.0,
        Expr::Pow(_, k) if matches!(**k, Expr::Num(k) if k < 0.0) => false,
        e => !is_positive(e),
    }
}

/// Whether a factor may have no value somewhere in the domain: a machine
/// call (a value only under a profile), or a logarithm, a root or a
/// power to a non-integer exponent of something that may be negative
/// (`ln(x - y)`, `(-m)^x`). Zero times such a factor, or its power 0, is
/// not 0 or 1 there: it is kept.
pub(super) fn may_lack_value(e: &Expr) -> bool {
    crate::deep(|| match e {
        Expr::Apply(..) => true,
        Expr::Num(_) | Expr::Var(_) => false,
        Expr::Add(items) | Expr::Mul(items) => items.iter().any(may_lack_value),
        Expr::Pow(base, exponent) => {
            let integer = matches!(**exponent, Expr::Num(k) if k == k.trunc());
            may_lack_value(base) || may_lack_value(exponent) || (!integer && !is_nonnegative(base))
        }
        Expr::Call(Func::Log2 | Func::Ln | Func::Sqrt | Func::Log, args) => {
            args.iter().any(|a| may_lack_value(a) || !is_nonnegative(a))
        }
        Expr::Call(_, args) => args.iter().any(may_lack_value),
    })
}

/// Whether a factor has no value anywhere: a logarithm in a base without
/// one, a constant that does not evaluate (`1/0`), or a power, sum or
/// product of one (kept whole, `(x/log(0, x))^-1`, `(log(o, 0) + p)^8`).
pub(super) fn has_no_value(e: &Expr) -> bool {
    no_value(e).0
}

/// [`has_no_value`], and whether `e` is a constant without applied
/// functions: one pass down the powers' bases and the sums' and products'
/// items, each node's constancy from its children's, so that a chain of
/// kept powers thousands deep is read once, not once per level.
fn no_value(e: &Expr) -> (bool, bool) {
    let fails = |constant: bool| constant && e.eval(&[]).is_err();
    crate::deep(|| match e {
        Expr::Call(Func::Log, args) if !has_logarithm(&args[0]) => (true, false),
        Expr::Pow(..) => {
            // Down a chain of powers in a loop: a power without a value
            // makes every power of it one without (evaluation fails
            // outward), so only the chain's top is evaluated.
            let mut node = e;
            while let Expr::Pow(base, k) = node {
                if is_zero_product(base) && matches!(**k, Expr::Num(k) if k < 0.0) {
                    return (true, false);
                }
                node = base;
            }
            let (none, constant) = no_value(node);
            if none {
                return (true, constant);
            }
            let constant = constant && exponents_constant(e);
            (fails(constant), constant)
        }
        Expr::Add(items) | Expr::Mul(items) => {
            let mut all = true;
            for item in items {
                let (none, constant) = no_value(item);
                if none {
                    return (true, false);
                }
                all &= constant;
            }
            (fails(all), all)
        }
        e => {
            let constant = plain_constant(e);
            (fails(constant), constant)
        }
    })
}

/// Whether every exponent of the chain of powers `e` is a plain constant.
fn exponents_constant(mut e: &Expr) -> bool {
    while let Expr::Pow(base, exponent) = e {
        if !plain_constant(exponent) {
            return false;
        }
        e = base;
    }
    true
}

/// A constant without applied functions (machine calls have a value only
/// under a profile).
fn plain_constant(e: &Expr) -> bool {
    e.is_constant() && e.applied_functions().is_empty()
}

/// Whether a product has a literal zero factor: zero wherever it has a
/// value (kept as written when its other factors pass `f64`), so that a
/// division by it has none.
pub(super) fn is_zero_product(e: &Expr) -> bool {
    crate::deep(|| match e {
        Expr::Num(v) => *v == 0.0,
        Expr::Mul(items) => items.iter().any(is_zero_product),
        _ => false,
    })
}

/// Whether a base of `log(base, e)` has a finite non-zero logarithm: a
/// constant that is not 1, 0 or negative, or anything not constant.
fn has_logarithm(base: &Expr) -> bool {
    match base {
        Expr::Num(b) => {
            let l = b.log2();
            l.is_finite() && l != 0.0
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use crate::Expr;
    use crate::normal::tests::s;

    /// Found by the `expr` fuzz target: factors without a value at a point
    /// of the domain (positive variables) that the normal form gave one,
    /// through zero, a zero divisor kept as written, or an integer power
    /// of a root of a negative value.
    #[test]
    fn factors_without_a_value_at_a_point_keep_none() {
        let at = [("m", 303.3), ("n", 445.4), ("o", 402.4), ("p", 89.4)];
        let at = [at.as_slice(), &[("x", 48.4), ("y", 882.5), ("z", 957.5)]].concat();
        for text in [
            "(33 + 0*(-m/x^2)^x + 1)^2",
            "-0*(-1.3075635328857277e-292)^x - 768*5.927837614800551e162",
            "-0*x/(65*y*1e-320*o*-0*1.7976931348623157e308*1e308)",
            "x*0/(y*1e-320*0*1e308*1e308)",
            "z/(51/(y*1e308*-0*1e-308*z))",
            "ln(1e-320*z - 64*x)*0*0.01/(z + n + 1)^6",
            "log(o + 1 - z, 3^1/3) - p",
            "n/sqrt(m*z/(o - n))^8",
            "sqrt(sqrt(-p))^8",
            "((-p)^0.5)^8",
            "(-0/(4.552269072733249e274 - y))^1024*(log(o, 0) + p + o + 1)^8",
            "(min(n, y, 2) - 1e199 + 0.01 + n/2*n + 1)^61e-308*n",
        ] {
            keeps_no_value(text, &at);
        }
        // Where the base cannot be negative, the powers still combine.
        assert_eq!(s("sqrt(x + y)^2"), "x + y");
        assert_eq!(s("0*ln(x)"), "0");
    }

    /// `text` has no value at `at`, nor has its normal form, a fixed point.
    fn keeps_no_value(text: &str, at: &[(&str, f64)]) {
        let e = Expr::parse(text).unwrap();
        assert!(e.eval(at).is_err(), "{text}");
        let once = e.simplify();
        assert!(once.eval(at).is_err(), "{text} → {once}");
        assert_eq!(once.simplify(), once, "{text}");
    }

    /// Found by the `expr` fuzz target: a divisor that is 0 at a point of
    /// the domain (`floor(3/m)` for m > 3) moved to the numerator by a
    /// power to a negative exponent, or cancelled by a power of itself,
    /// gave the function a value where it has none.
    #[test]
    fn divisors_that_may_be_zero_do_not_cancel() {
        let at = [("a", 2.5), ("m", 303.3), ("x", 48.4), ("y", 48.4)];
        for text in [
            "1/(a/floor(3/m))",
            "(floor(3/m)^-1)^-1",
            "floor(3/m)/floor(3/m)",
            "floor(3/m)^2*floor(3/m)^-1",
            "x/min(3, x, 0)*min(0, x)",
            "1/(a/min(3, x, 0))",
            "(x - y)*(x - y)^-1",
            "1/(1/(x - y))^2",
            "(a/(max(x, 2) - y))^-1",
            "sqrt(floor(3/m))^2/floor(3/m)",
            "log(floor(3/m) + 1, x)*floor(3/m)/floor(3/m)",
        ] {
            keeps_no_value(text, &at);
        }
        assert_eq!(s("1/(a/floor(3/m))"), "1/a·((1/floor(3/m))^(-1))");
        // Divisors that cannot be 0 still cancel.
        assert_eq!(s("1/(a/ceil(3/m))"), "ceil(3/m)/a");
        assert_eq!(s("max(x, 2)/max(x, 2)"), "1");
        assert_eq!(s("(1/(x + 1))^-1"), "x + 1");
        assert_eq!(s("sqrt(x + y)^2"), "x + y");
        assert_eq!(s("0*ln(x)"), "0");
    }
}
