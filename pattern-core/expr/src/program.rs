//! The one compiler from an expression to straight-line code: a [`Program`]
//! of numbered slots, each an [`Op`] over earlier slots, children before
//! parents in the order of a post-order walk (children left to right).
//!
//! The program keeps the tree's shape (no folding, no sharing), so that each
//! evaluator decides what to rewrite: [`CompiledExpr`](crate::CompiledExpr)
//! folds and shares it into register code for `f64` sweeps, while
//! [`Program::eval_all`] runs it as written over any [`Number`] (the
//! crossover's interval jets), where a rewrite would change an enclosure.

use super::eval::EvalError;
use super::{Expr, Func};
use std::collections::HashMap;

/// One slot of a [`Program`]; operands are indices of earlier slots.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A number written in the expression.
    Num(f64),
    /// The variable at this index of the program's variables.
    Var(usize),
    /// A sum (empty: 0).
    Add(Vec<usize>),
    /// A product (empty: 1).
    Mul(Vec<usize>),
    /// `base ^ exponent`.
    Pow(usize, usize),
    /// A built-in function, with as many arguments as it takes.
    Call(Func, Vec<usize>),
}

/// An expression as straight-line code; its value is that of its last slot.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    ops: Vec<Op>,
}

/// What [`Program::eval_all`] needs from a number type.
pub trait Number: Copy {
    /// A constant.
    fn num(v: f64) -> Self;
    /// `self + o`.
    fn add(self, o: Self) -> Self;
    /// `self · o`.
    fn mul(self, o: Self) -> Self;
    /// `self ^ k` for a literal integer exponent (at most 64 in magnitude,
    /// as [`Expr::eval`] takes by repeated products).
    fn powi(self, k: i32) -> Self;
    /// `self ^ k` for any other literal exponent.
    fn powf(self, k: f64) -> Self;
    /// `self ^ e` for an exponent that is not a literal.
    fn pow(self, e: Self) -> Self;
    /// `func(args)`; `args` has a length `func` accepts.
    fn call(func: Func, args: &[Self]) -> Self;
}

impl Program {
    /// Compiles `expr` over `vars` (a name given twice is its first slot),
    /// without recursion. Errors are found in a pre-order walk: a variable
    /// not in `vars`, a call of an undefined function, or a call with a
    /// number of arguments its function does not take.
    pub fn lower(expr: &Expr, vars: &[&str]) -> Result<Program, EvalError> {
        let mut slots = HashMap::with_capacity(vars.len());
        for (i, v) in vars.iter().enumerate() {
            slots.entry(*v).or_insert(i);
        }
        let mut ops: Vec<Op> = Vec::new();
        // (node, whether its children are lowered); `results` holds the
        // slot of each lowered child, in order.
        let mut pending: Vec<(&Expr, bool)> = vec![(expr, false)];
        let mut results: Vec<usize> = Vec::new();
        while let Some((node, ready)) = pending.pop() {
            if !ready {
                match node {
                    Expr::Apply(name, _) => {
                        return Err(EvalError::Unresolved { name: name.clone() });
                    }
                    Expr::Var(name) if !slots.contains_key(name.as_str()) => {
                        return Err(EvalError::Unbound {
                            name: name.clone(),
                            bound: vars.join(", "),
                        });
                    }
                    _ => EvalError::check_arity(node)?,
                }
                pending.push((node, true));
                for child in node.children().into_iter().rev() {
                    pending.push((child, false));
                }
                continue;
            }
            let mut take = |n: usize| results.split_off(results.len() - n);
            let op = match node {
                Expr::Num(v) => Op::Num(*v),
                Expr::Var(name) => Op::Var(slots[name.as_str()]),
                Expr::Add(items) => Op::Add(take(items.len())),
                Expr::Mul(items) => Op::Mul(take(items.len())),
                Expr::Pow(..) => {
                    let both = take(2);
                    Op::Pow(both[0], both[1])
                }
                Expr::Call(func, args) => Op::Call(*func, take(args.len())),
                // Refused on the way down.
                Expr::Apply(name, _) => {
                    return Err(EvalError::Unresolved { name: name.clone() });
                }
            };
            results.push(ops.len());
            ops.push(op);
        }
        Ok(Program { ops })
    }

    /// The slots, children before parents; the last is the root.
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// The slot of the root.
    pub fn root(&self) -> usize {
        self.ops.len() - 1
    }

    /// The literal exponent of a `Pow` whose exponent slot is `e`, if it is
    /// one: the integer form where [`Expr::eval`] takes repeated products.
    pub fn literal_exponent(&self, e: usize) -> Option<Exponent> {
        match self.ops[e] {
            Op::Num(k) if k.fract() == 0.0 && k.abs() <= 64.0 => Some(Exponent::Int(k as i32)),
            Op::Num(k) => Some(Exponent::Real(k)),
            _ => None,
        }
    }

    /// The value of every slot, with `vars[i]` the value of variable `i`.
    ///
    /// # Panics
    /// If `vars` is shorter than the variables the program reads.
    pub fn eval_all<N: Number>(&self, vars: &[N]) -> Vec<N> {
        let mut regs: Vec<N> = Vec::with_capacity(self.ops.len());
        for op in &self.ops {
            let r = |i: &usize| regs[*i];
            let value = match op {
                Op::Num(v) => N::num(*v),
                Op::Var(i) => vars[*i],
                Op::Add(items) if items.is_empty() => N::num(0.0),
                Op::Mul(items) if items.is_empty() => N::num(1.0),
                Op::Add(items) => items[1..].iter().fold(r(&items[0]), |acc, i| acc.add(r(i))),
                Op::Mul(items) => items[1..].iter().fold(r(&items[0]), |acc, i| acc.mul(r(i))),
                Op::Pow(b, e) => match self.literal_exponent(*e) {
                    Some(Exponent::Int(k)) => r(b).powi(k),
                    Some(Exponent::Real(k)) => r(b).powf(k),
                    None => r(b).pow(r(e)),
                },
                Op::Call(func, args) => {
                    let args: Vec<N> = args.iter().map(r).collect();
                    N::call(*func, &args)
                }
            };
            regs.push(value);
        }
        regs
    }

    /// The value of the program, with `vars[i]` the value of variable `i`.
    ///
    /// # Panics
    /// As [`Program::eval_all`].
    pub fn eval<N: Number>(&self, vars: &[N]) -> N {
        self.eval_all(vars)[self.root()]
    }
}

/// A literal exponent, as [`Program::literal_exponent`] reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Exponent {
    /// An integer of at most 64 in magnitude.
    Int(i32),
    /// Any other number.
    Real(f64),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_come_first_and_errors_are_named() {
        let e = Expr::parse("max(x, 2)^2 + n").unwrap();
        let p = Program::lower(&e, &["x", "n"]).unwrap();
        assert!(matches!(p.ops()[p.root()], Op::Add(_)));
        for (i, op) in p.ops().iter().enumerate() {
            let operands = match op {
                Op::Add(a) | Op::Mul(a) | Op::Call(_, a) => a.clone(),
                Op::Pow(b, e) => vec![*b, *e],
                Op::Num(_) | Op::Var(_) => vec![],
            };
            assert!(operands.iter().all(|&o| o < i));
        }
        let err = Program::lower(&e, &["x"]).unwrap_err();
        assert!(matches!(err, EvalError::Unbound { ref name, .. } if name == "n"));
        let log = Expr::Call(Func::Log, vec![Expr::var("x")]);
        assert!(matches!(
            Program::lower(&log, &["x"]),
            Err(EvalError::Arity { .. })
        ));
        let send = Expr::apply("send", [Expr::var("x")]);
        assert!(matches!(
            Program::lower(&send, &["x"]),
            Err(EvalError::Unresolved { .. })
        ));
    }

    #[test]
    fn deep_trees_lower_without_recursion() {
        let mut e = Expr::var("x");
        for _ in 0..100_000 {
            e = Expr::Add(vec![e, Expr::Num(1.0)]);
        }
        let p = Program::lower(&e, &["x"]).unwrap();
        assert_eq!(p.ops().len(), 200_001);
        std::mem::forget(e);
    }
}
