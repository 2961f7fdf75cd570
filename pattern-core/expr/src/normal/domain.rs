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
