//! A compiled form for sweeps: the expression's [`Program`] rewritten into
//! register code, with constants folded and common sub-expressions
//! shared. Evaluating it walks a flat array instead of a tree of boxed nodes;
//! [`CompiledExpr::eval_batch`] runs each instruction over a block of points,
//! which lets the compiler vectorize the arithmetic.

use super::eval::{EvalError, apply, log_in_base};
use super::program::{Op, Program};
use super::{Expr, Func};
use std::collections::HashMap;

/// One instruction; operands are the indices of earlier instructions.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Instr {
    Const(f64),
    Var(u32),
    Add(u32, u32),
    Sub(u32, u32),
    Mul(u32, u32),
    Div(u32, u32),
    PowI(u32, i32),
    PowF(u32, u32),
    Sqrt(u32),
    Call1(Func, u32),
    Log(u32, u32),
    Max(u32, u32),
    Min(u32, u32),
}

/// A hashable identity of an instruction, for sharing common sub-expressions.
fn key(instr: &Instr) -> (u8, u64, u64) {
    match *instr {
        Instr::Const(v) => (0, v.to_bits(), 0),
        Instr::Var(i) => (1, i.into(), 0),
        Instr::Add(a, b) => (2, a.into(), b.into()),
        Instr::Sub(a, b) => (3, a.into(), b.into()),
        Instr::Mul(a, b) => (4, a.into(), b.into()),
        Instr::Div(a, b) => (5, a.into(), b.into()),
        Instr::PowI(a, k) => (6, a.into(), k as u64),
        Instr::PowF(a, b) => (7, a.into(), b.into()),
        Instr::Sqrt(a) => (8, a.into(), 0),
        Instr::Call1(f, a) => (9, a.into(), f as u64),
        Instr::Log(a, b) => (10, a.into(), b.into()),
        Instr::Max(a, b) => (11, a.into(), b.into()),
        Instr::Min(a, b) => (12, a.into(), b.into()),
    }
}

/// An expression compiled for fast repeated evaluation.
///
/// ```
/// use pattern_core::Expr;
///
/// let model = Expr::parse("1034.17*x*log2(x) + 536.185*x + 5422.97").unwrap();
/// let compiled = model.compile(&["x"]).unwrap();
/// assert_eq!(compiled.eval(&[1024.0]), model.eval(&[("x", 1024.0)]).unwrap());
///
/// let xs: Vec<f64> = (1..=1000).map(|i| 1024.0 * i as f64).collect();
/// let mut out = vec![0.0; xs.len()];
/// compiled.eval_batch(&[&xs], &mut out);
/// assert_eq!(out[0], compiled.eval(&[1024.0]));
/// ```
#[derive(Clone, Debug)]
pub struct CompiledExpr {
    vars: Vec<String>,
    code: Vec<Instr>,
    source: Expr,
}

/// Registers kept on the stack by [`CompiledExpr::eval`]; longer programs use
/// the heap.
const INLINE_REGISTERS: usize = 32;
/// Points per block in [`CompiledExpr::eval_batch`].
const BLOCK: usize = 256;

/// Folds and shares a [`Program`] into register code.
struct Compiler<'a> {
    program: &'a Program,
    code: Vec<Instr>,
    seen: HashMap<(u8, u64, u64), u32>,
}

impl Compiler<'_> {
    fn emit(&mut self, instr: Instr) -> u32 {
        let instr = match self.fold(instr).map_or(instr, Instr::Const) {
            Instr::Const(v) => Instr::Const(no_value(v)),
            instr => instr,
        };
        let k = key(&instr);
        if let Some(&at) = self.seen.get(&k) {
            return at;
        }
        let at = self.code.len() as u32;
        self.code.push(instr);
        self.seen.insert(k, at);
        at
    }

    fn constant(&self, i: u32) -> Option<f64> {
        match self.code[i as usize] {
            Instr::Const(v) => Some(v),
            _ => None,
        }
    }

    /// The value of an instruction whose operands are all constants.
    fn fold(&self, instr: Instr) -> Option<f64> {
        let c = |r: u32| self.constant(r);
        // The same instruction over two local registers, 0 and 1.
        let (local, a, b) = match instr {
            Instr::Const(_) | Instr::Var(_) => return None,
            Instr::Add(a, b) => (Instr::Add(0, 1), c(a)?, c(b)?),
            Instr::Sub(a, b) => (Instr::Sub(0, 1), c(a)?, c(b)?),
            Instr::Mul(a, b) => (Instr::Mul(0, 1), c(a)?, c(b)?),
            Instr::Div(a, b) => (Instr::Div(0, 1), c(a)?, c(b)?),
            Instr::PowF(a, b) => (Instr::PowF(0, 1), c(a)?, c(b)?),
            Instr::Log(a, b) => (Instr::Log(0, 1), c(a)?, c(b)?),
            Instr::Max(a, b) => (Instr::Max(0, 1), c(a)?, c(b)?),
            Instr::Min(a, b) => (Instr::Min(0, 1), c(a)?, c(b)?),
            Instr::PowI(a, k) => (Instr::PowI(0, k), c(a)?, 0.0),
            Instr::Sqrt(a) => (Instr::Sqrt(0), c(a)?, 0.0),
            Instr::Call1(f, a) => (Instr::Call1(f, 0), c(a)?, 0.0),
        };
        Some(step(local, &[a, b], &[]))
    }

    /// Compiles slot `i` of the program; constants fold as their
    /// instructions are emitted, so every slot is visited once.
    fn compile(&mut self, i: usize) -> Result<u32, EvalError> {
        crate::deep(|| self.compile_node(i))
    }

    fn is_num(&self, i: usize) -> bool {
        matches!(self.program.ops()[i], Op::Num(_))
    }

    fn compile_node(&mut self, i: usize) -> Result<u32, EvalError> {
        let program = self.program;
        Ok(match &program.ops()[i] {
            Op::Num(v) => self.emit(Instr::Const(*v)),
            Op::Var(slot) => self.emit(Instr::Var(*slot as u32)),
            Op::Add(items) => {
                // Numbers last, added up first: `x + 1 + 2` is `x + 3`.
                let (numbers, others): (Vec<usize>, Vec<usize>) =
                    items.iter().partition(|&&i| self.is_num(i));
                let constant =
                    numbers
                        .iter()
                        .fold(None, |acc: Option<f64>, &n| match program.ops()[n] {
                            Op::Num(v) => Some(acc.map_or(v, |a| a + v)),
                            _ => acc,
                        });
                let mut acc: Option<u32> = None;
                for item in others {
                    acc = Some(match (acc, &program.ops()[item]) {
                        // `a + (-c)·b` becomes `a - c·b`.
                        (Some(a), Op::Mul(fs)) if matches!(fs.first().map(|&f| &program.ops()[f]), Some(Op::Num(c)) if *c < 0.0) =>
                        {
                            let b = self.product(fs, true)?;
                            self.emit(Instr::Sub(a, b))
                        }
                        (Some(a), _) => {
                            let b = self.compile(item)?;
                            self.emit(Instr::Add(a, b))
                        }
                        (None, _) => self.compile(item)?,
                    });
                }
                match (acc, constant) {
                    (Some(a), Some(c)) => {
                        let c = self.emit(Instr::Const(c));
                        self.emit(Instr::Add(a, c))
                    }
                    (Some(a), None) => a,
                    (None, Some(c)) => self.emit(Instr::Const(c)),
                    (None, None) => self.emit(Instr::Const(0.0)),
                }
            }
            Op::Mul(items) => self.product(items, false)?,
            Op::Pow(base, exponent) => {
                let b = self.compile(*base)?;
                let k = self.compile(*exponent)?;
                match self.constant(k) {
                    Some(0.5) => self.emit(Instr::Sqrt(b)),
                    Some(-1.0) => {
                        let one = self.emit(Instr::Const(1.0));
                        self.emit(Instr::Div(one, b))
                    }
                    Some(k) if k == k.trunc() && k.abs() <= 64.0 => {
                        self.emit(Instr::PowI(b, k as i32))
                    }
                    _ => self.emit(Instr::PowF(b, k)),
                }
            }
            Op::Call(func, args) => {
                let regs = args
                    .iter()
                    .map(|&a| self.compile(a))
                    .collect::<Result<Vec<_>, _>>()?;
                match func {
                    Func::Sqrt => self.emit(Instr::Sqrt(regs[0])),
                    Func::Log => self.emit(Instr::Log(regs[0], regs[1])),
                    Func::Max | Func::Min => {
                        let mut acc = regs[0];
                        for &r in &regs[1..] {
                            acc = self.emit(if *func == Func::Max {
                                Instr::Max(acc, r)
                            } else {
                                Instr::Min(acc, r)
                            });
                        }
                        acc
                    }
                    f => self.emit(Instr::Call1(*f, regs[0])),
                }
            }
        })
    }

    /// A product; `negated` flips the sign of its leading number (for
    /// `a - c·b`). Numbers are multiplied first: `2·3·x` is `6·x`.
    fn product(&mut self, items: &[usize], negated: bool) -> Result<u32, EvalError> {
        let program = self.program;
        let (numbers, others): (Vec<usize>, Vec<usize>) =
            items.iter().partition(|&&i| self.is_num(i));
        let mut constant: Option<f64> = None;
        for (i, &n) in numbers.iter().enumerate() {
            if let Op::Num(v) = program.ops()[n] {
                let v = if negated && i == 0 { -v } else { v };
                constant = Some(constant.map_or(v, |c| c * v));
            }
        }
        let mut acc: Option<u32> = match constant {
            Some(1.0) if !others.is_empty() => None,
            Some(c) => Some(self.emit(Instr::Const(c))),
            None => None,
        };
        for item in others {
            acc = Some(match (acc, &program.ops()[item]) {
                (Some(a), Op::Pow(base, exponent)) if matches!(program.ops()[*exponent], Op::Num(k) if k == -1.0) =>
                {
                    let b = self.compile(*base)?;
                    self.emit(Instr::Div(a, b))
                }
                (Some(a), _) => {
                    let b = self.compile(item)?;
                    self.emit(Instr::Mul(a, b))
                }
                (None, _) => self.compile(item)?,
            });
        }
        Ok(acc.unwrap_or_else(|| self.emit(Instr::Const(1.0))))
    }
}

/// `max` that keeps a NaN, as the tree has no value there either
/// (`f64::max` would drop it).
#[inline(always)]
fn max_nan(a: f64, b: f64) -> f64 {
    if a >= b || a.is_nan() { a } else { b }
}

/// `min` that keeps a NaN.
#[inline(always)]
fn min_nan(a: f64, b: f64) -> f64 {
    if a <= b || a.is_nan() { a } else { b }
}

#[inline(always)]
fn step(instr: Instr, regs: &[f64], inputs: &[f64]) -> f64 {
    let r = |i: u32| regs[i as usize];
    no_value(match instr {
        Instr::Const(v) => v,
        Instr::Var(i) => inputs[i as usize],
        Instr::Add(a, b) => r(a) + r(b),
        Instr::Sub(a, b) => r(a) - r(b),
        Instr::Mul(a, b) => r(a) * r(b),
        Instr::Div(a, b) => r(a) / r(b),
        Instr::PowI(a, k) => powi_nan(r(a), k),
        Instr::PowF(a, b) => powf_nan(r(a), r(b)),
        Instr::Sqrt(a) => r(a).sqrt(),
        Instr::Call1(f, a) => apply(f, &[r(a)]),
        Instr::Log(a, b) => log_in_base(r(a), r(b)),
        Instr::Max(a, b) => max_nan(r(a), r(b)),
        Instr::Min(a, b) => min_nan(r(a), r(b)),
    })
}

/// Every step's value, with infinities made NaN: the tree has no value
/// where any part of it has none (`1/(1/0)` is an error there, not the
/// `0` of floating point), and NaN carries that to the result.
#[inline(always)]
fn no_value(v: f64) -> f64 {
    if v.is_finite() { v } else { f64::NAN }
}

/// `powf` that keeps a NaN (`NaN^0` and `1^NaN` are 1 in floating point).
#[inline(always)]
fn powf_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.powf(b)
    }
}

/// `powi` that keeps a NaN (`NaN^0` is 1 in floating point).
#[inline(always)]
fn powi_nan(a: f64, k: i32) -> f64 {
    if a.is_nan() { f64::NAN } else { a.powi(k) }
}

impl Expr {
    /// Compiles the expression for repeated evaluation; `vars` fixes the order
    /// in which values are passed. Fails if the expression mentions a
    /// variable not in `vars`.
    pub fn compile(&self, vars: &[&str]) -> Result<CompiledExpr, EvalError> {
        // An unresolved call fails the whole compilation, whichever comes
        // first in the walk.
        if let Some(name) = self.applied_functions().into_iter().next() {
            return Err(EvalError::Unresolved { name });
        }
        let program = Program::lower(self, vars)?;
        let mut compiler = Compiler {
            program: &program,
            code: Vec::new(),
            seen: HashMap::new(),
        };
        let root = compiler.compile(program.root())?;
        // The program's value is its last register: a root that folded or
        // was shared with an earlier instruction is repeated at the end
        // (`max(r, r)` is `r` for every value, NaN included).
        if root as usize + 1 != compiler.code.len() {
            let last = match compiler.code[root as usize] {
                Instr::Const(v) => Instr::Const(v),
                _ => Instr::Max(root, root),
            };
            compiler.code.push(last);
        }
        Ok(CompiledExpr {
            vars: vars.iter().map(|v| v.to_string()).collect(),
            // A fresh buffer of exact size: measured, the one the compiler
            // grew could sit where `eval` ran a quarter slower.
            code: compiler.code.to_vec(),
            source: self.clone(),
        })
    }
}

impl CompiledExpr {
    /// The variables, in the order their values are passed.
    pub fn vars(&self) -> &[String] {
        &self.vars
    }

    /// The number of instructions after folding and sharing.
    pub fn len(&self) -> usize {
        self.code.len()
    }

    /// Whether there are no instructions (never true for a compiled expression).
    pub fn is_empty(&self) -> bool {
        self.code.is_empty()
    }

    /// Evaluates at one point; `values[i]` is the value of `vars()[i]`.
    /// Where the tree has no value (a step of it is infinite or NaN, which
    /// [`Expr::eval`] reports as an error), the result is NaN; see
    /// [`CompiledExpr::eval_checked`] for the error itself.
    ///
    /// # Panics
    /// If `values` is shorter than `vars()`.
    #[inline]
    pub fn eval(&self, values: &[f64]) -> f64 {
        assert!(values.len() >= self.vars.len(), "one value per variable");
        if self.code.len() <= INLINE_REGISTERS {
            let mut regs = [0.0; INLINE_REGISTERS];
            for (i, instr) in self.code.iter().enumerate() {
                regs[i] = step(*instr, &regs, values);
            }
            regs[self.code.len() - 1]
        } else {
            let mut regs = vec![0.0; self.code.len()];
            for (i, instr) in self.code.iter().enumerate() {
                regs[i] = step(*instr, &regs, values);
            }
            regs[self.code.len() - 1]
        }
    }

    /// Evaluates at one point, with the errors of [`Expr::eval`]: a wrong
    /// number of values, or a non-finite result (the tree is then walked to
    /// name the sub-expression at fault).
    pub fn eval_checked(&self, values: &[f64]) -> Result<f64, EvalError> {
        if values.len() != self.vars.len() {
            let bound: Vec<&str> = self.vars[..values.len().min(self.vars.len())]
                .iter()
                .map(String::as_str)
                .collect();
            return Err(EvalError::Unbound {
                name: self
                    .vars
                    .get(values.len())
                    .cloned()
                    .unwrap_or_else(|| "(extra value)".into()),
                bound: bound.join(", "),
            });
        }
        let v = self.eval(values);
        if v.is_finite() {
            return Ok(v);
        }
        let bindings: Vec<(&str, f64)> = self
            .vars
            .iter()
            .map(String::as_str)
            .zip(values.iter().copied())
            .collect();
        self.source.eval(&bindings)
    }

    /// Evaluates at many points: `columns[i][j]` is the value of `vars()[i]`
    /// at point `j`, and `out[j]` receives the result. Every instruction runs
    /// over a block of points at a time.
    ///
    /// # Panics
    /// If there are fewer columns than variables, or a column is shorter than
    /// `out`.
    pub fn eval_batch(&self, columns: &[&[f64]], out: &mut [f64]) {
        assert!(columns.len() >= self.vars.len(), "one column per variable");
        assert!(
            columns.iter().all(|c| c.len() >= out.len()),
            "columns as long as the output"
        );
        let n = self.code.len();
        let mut regs = vec![0.0; n * BLOCK];
        let mut start = 0;
        while start < out.len() {
            let len = BLOCK.min(out.len() - start);
            for (i, instr) in self.code.iter().enumerate() {
                let (done, rest) = regs.split_at_mut(i * BLOCK);
                let dst = &mut rest[..len];
                let src = |r: u32| &done[r as usize * BLOCK..r as usize * BLOCK + len];
                match *instr {
                    Instr::Const(v) => dst.fill(v),
                    Instr::Var(k) => map1(dst, &columns[k as usize][start..start + len], |p| p),
                    Instr::Add(a, b) => zip2(dst, src(a), src(b), |p, q| p + q),
                    Instr::Sub(a, b) => zip2(dst, src(a), src(b), |p, q| p - q),
                    Instr::Mul(a, b) => zip2(dst, src(a), src(b), |p, q| p * q),
                    Instr::Div(a, b) => zip2(dst, src(a), src(b), |p, q| p / q),
                    Instr::PowF(a, b) => zip2(dst, src(a), src(b), powf_nan),
                    Instr::Log(a, b) => zip2(dst, src(a), src(b), log_in_base),
                    Instr::Max(a, b) => zip2(dst, src(a), src(b), max_nan),
                    Instr::Min(a, b) => zip2(dst, src(a), src(b), min_nan),
                    Instr::PowI(a, k) => map1(dst, src(a), |p| powi_nan(p, k)),
                    Instr::Sqrt(a) => map1(dst, src(a), f64::sqrt),
                    Instr::Call1(Func::Log2, a) => map1(dst, src(a), f64::log2),
                    Instr::Call1(Func::Ln, a) => map1(dst, src(a), f64::ln),
                    Instr::Call1(Func::Ceil, a) => map1(dst, src(a), f64::ceil),
                    Instr::Call1(Func::Floor, a) => map1(dst, src(a), f64::floor),
                    Instr::Call1(f, a) => map1(dst, src(a), |p| apply(f, &[p])),
                }
            }
            let last = (n - 1) * BLOCK;
            out[start..start + len].copy_from_slice(&regs[last..last + len]);
            start += len;
        }
    }
}

#[inline(always)]
fn zip2(dst: &mut [f64], a: &[f64], b: &[f64], f: impl Fn(f64, f64) -> f64) {
    for ((d, &p), &q) in dst.iter_mut().zip(a).zip(b) {
        *d = no_value(f(p, q));
    }
}

#[inline(always)]
fn map1(dst: &mut [f64], a: &[f64], f: impl Fn(f64) -> f64) {
    for (d, &p) in dst.iter_mut().zip(a) {
        *d = no_value(f(p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_tree_on_every_form() {
        let text = "max(x, n)^2 - min(x, 3)/n + log2(x)*ln(n) + log(n, x) + sqrt(x) + ceil(x/3) + floor(x/3) + x^(2/3) + x^n - 5/x^2";
        let e = Expr::parse(text).unwrap();
        let c = e.compile(&["x", "n"]).unwrap();
        for (x, n) in [(1.0, 2.0), (7.5, 3.0), (1024.0, 12.0)] {
            let want = e.eval(&[("x", x), ("n", n)]).unwrap();
            let got = c.eval(&[x, n]);
            assert!(
                (got - want).abs() <= 1e-12 * want.abs(),
                "{x} {n}: {got} vs {want}"
            );
            let mut out = [0.0];
            c.eval_batch(&[&[x], &[n]], &mut out);
            assert!((out[0] - want).abs() <= 1e-12 * want.abs());
        }
    }

    #[test]
    fn folds_constants_and_shares_subexpressions() {
        let e = Expr::parse("x*log2(x) + 2*3*x + log2(x)").unwrap();
        let c = e.compile(&["x"]).unwrap();
        // x, log2(x), x·log2(x), 6, 6·x, sum, sum + log2(x)
        assert_eq!(c.len(), 7);
    }

    #[test]
    fn long_programs_and_blocks() {
        let e: Expr = (0..100).map(|i| Expr::var("x") * f64::from(i)).sum();
        let c = e.compile(&["x"]).unwrap();
        assert!(c.len() > INLINE_REGISTERS);
        assert_eq!(c.eval(&[2.0]), 9900.0);
        let xs: Vec<f64> = (0..1000).map(f64::from).collect();
        let ys = c.sweep(&xs).unwrap();
        assert_eq!(ys[999], 999.0 * 4950.0);
        assert_eq!(ys.len(), 1000);
    }

    #[test]
    fn unknown_variable_and_checked_errors() {
        let e = Expr::parse("x * y").unwrap();
        let err = e.compile(&["x"]).unwrap_err();
        assert!(matches!(err, EvalError::Unbound { ref name, .. } if name == "y"));
        let c = Expr::parse("log2(x)").unwrap().compile(&["x"]).unwrap();
        let err = c.eval_checked(&[0.0]).unwrap_err();
        assert!(matches!(err, EvalError::NonFinite { ref expr, .. } if expr == "log₂(x)"));
        assert_eq!(c.eval_checked(&[8.0]), Ok(3.0));
        assert!(c.eval_checked(&[]).is_err());
    }
}
