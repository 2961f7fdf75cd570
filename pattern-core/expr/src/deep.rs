//! Trees of any depth on a small stack. [`Expr`]'s public variants can build
//! a tree deeper than any parse, so every recursion over one runs its steps
//! through [`deep`], which moves to a new stack segment on the heap when the
//! thread's stack runs low; dropping is iterative. Clone and Debug are written
//! out for the same reason: derived, they recurse on the thread's stack.

use crate::Expr;

/// Runs a step of a recursion over an expression with room on the stack:
/// when less than [`RED_ZONE`] is left, the step continues on a new
/// segment on the heap. Expressions built through the public variants can
/// be any depth; with this, depth costs heap, not the thread's stack.
pub(crate) fn deep<R>(step: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, step)
}

/// The stack a recursive step may use before [`deep`] moves to a new segment.
const RED_ZONE: usize = 64 * 1024;
/// The size of each new stack segment.
const STACK_SEGMENT: usize = 1024 * 1024;

impl Clone for Expr {
    fn clone(&self) -> Expr {
        deep(|| match self {
            Expr::Num(v) => Expr::Num(*v),
            Expr::Var(name) => Expr::Var(name.clone()),
            Expr::Add(items) => Expr::Add(items.clone()),
            Expr::Mul(items) => Expr::Mul(items.clone()),
            Expr::Pow(base, exponent) => Expr::Pow(base.clone(), exponent.clone()),
            Expr::Call(func, args) => Expr::Call(*func, args.clone()),
            Expr::Apply(name, args) => Expr::Apply(name.clone(), args.clone()),
        })
    }
}

/// As derived: `Mul([Num(2.0), Var("x")])`.
impl std::fmt::Debug for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        deep(|| match self {
            Expr::Num(v) => f.debug_tuple("Num").field(v).finish(),
            Expr::Var(name) => f.debug_tuple("Var").field(name).finish(),
            Expr::Add(items) => f.debug_tuple("Add").field(items).finish(),
            Expr::Mul(items) => f.debug_tuple("Mul").field(items).finish(),
            Expr::Pow(base, exponent) => f.debug_tuple("Pow").field(base).field(exponent).finish(),
            Expr::Call(func, args) => f.debug_tuple("Call").field(func).field(args).finish(),
            Expr::Apply(name, args) => f.debug_tuple("Apply").field(name).field(args).finish(),
        })
    }
}

/// Frees a tree without recursion: children are moved onto a stack on the
/// heap, so dropping an expression of any depth needs no thread stack.
impl Drop for Expr {
    fn drop(&mut self) {
        let mut pending = Vec::new();
        self.take_children(&mut pending);
        while let Some(mut e) = pending.pop() {
            e.take_children(&mut pending);
        }
    }
}

impl Expr {
    /// Moves the children out (leaving numbers in their place).
    fn take_children(&mut self, out: &mut Vec<Expr>) {
        match self {
            Expr::Num(_) | Expr::Var(_) => {}
            Expr::Add(items) | Expr::Mul(items) | Expr::Call(_, items) | Expr::Apply(_, items) => {
                out.append(items)
            }
            Expr::Pow(base, exponent) => {
                out.push(std::mem::replace(base, Expr::Num(0.0)));
                out.push(std::mem::replace(exponent, Expr::Num(0.0)));
            }
        }
    }
}
