//! Symbolic cost expressions: the engine of `pattern`.
//!
//! An [`Expr`] is a function of named variables (`x` elements by default, `n`
//! threads, `m` nodes, `p` processors, ...). It is what every model is in the
//! end: atomic models, the models of whole designs, fitted models and
//! communication formulas. Users reach it as `pattern_core::expr` (and
//! `pattern_core::Expr`); it is a crate of its own so that the procedural
//! macros can parse and simplify models at compile time.
//!
//! The tree is small on purpose (egg style): numbers, variables, n-ary sums and
//! products, powers and a few functions. Subtraction and division are sums and
//! products with a `-1` factor or a `-1` power; the printer turns them back into
//! `a - b` and `a/b`. All constructors ([`Expr::num`], the operators, the parser)
//! keep sums and products flat, so printing and parsing are inverse on every tree
//! they build.

#![warn(missing_docs)]

mod compile;
mod deep;
mod display;
mod eval;
mod flat;
mod functions;
mod growth;
mod normal;
mod parse;
mod parse_error;
mod program;
mod serde_impl;
mod sweep;

pub(crate) use deep::deep;

pub use compile::CompiledExpr;
pub use display::Latex;
pub use eval::EvalError;
pub(crate) use functions::is_mistaken_function;
pub use functions::{FUNCTIONS, MACHINE_FUNCTIONS};
pub use growth::Growth;
pub use parse_error::ParseError;
pub use program::{Exponent, Number, Op, Program};
pub use sweep::{Grid, MAX_GRID_POINTS, SweepError};

use flat::{divide, negate, product_of, sum_of};
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A symbolic cost expression over named variables.
///
/// Build one by parsing ([`Expr::parse`], or `str::parse`) or with the builders
/// and the arithmetic operators:
///
/// ```
/// use pattern_core::Expr;
///
/// let x = Expr::var("x");
/// let qsort = 1034.17 * x.clone() * x.log2();
/// assert_eq!(qsort, Expr::parse("1034.17 * x * log2(x)").unwrap());
/// assert_eq!(qsort.to_string(), "1034.17·x·log₂(x)");
/// let ns = qsort.eval(&[("x", 1024.0)]).unwrap();
/// assert!((ns - 1034.17 * 1024.0 * 10.0).abs() < 1e-6);
/// ```
///
/// Equality (`==`) is structural, with numbers compared bit for bit. Compare the
/// normal forms of [`Expr::simplify`] to ask whether two expressions are the same
/// function, or use [`Expr::approx_eq`] to allow for floating-point rounding.
pub enum Expr {
    /// A number.
    Num(f64),
    /// A named variable, such as `x`, `n` or `p`.
    Var(String),
    /// A sum of two or more terms.
    Add(Vec<Expr>),
    /// A product of two or more factors.
    Mul(Vec<Expr>),
    /// `base ^ exponent`.
    Pow(Box<Expr>, Box<Expr>),
    /// A function applied to its arguments.
    Call(Func, Vec<Expr>),
    /// A call of a function the engine does not define, such as a machine's
    /// communication function `allgather(p, b)`: it stays symbolic until it
    /// is resolved (for example against a machine profile); evaluating it is
    /// an error.
    Apply(String, Vec<Expr>),
}

/// The functions a cost expression may call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func {
    /// `log2(e)`, the logarithm in base 2 (PMNF's logarithm).
    Log2,
    /// `ln(e)`, the natural logarithm.
    Ln,
    /// `log(base, e)`, the logarithm of `e` in base `base`.
    Log,
    /// `sqrt(e)`.
    Sqrt,
    /// `ceil(e)`, the smallest integer not below `e`.
    Ceil,
    /// `floor(e)`, the largest integer not above `e`.
    Floor,
    /// `max(a, b, ...)`.
    Max,
    /// `min(a, b, ...)`.
    Min,
}

impl Func {
    /// The name used in the textual syntax.
    pub fn name(self) -> &'static str {
        match self {
            Func::Log2 => "log2",
            Func::Ln => "ln",
            Func::Log => "log",
            Func::Sqrt => "sqrt",
            Func::Ceil => "ceil",
            Func::Floor => "floor",
            Func::Max => "max",
            Func::Min => "min",
        }
    }

    /// Looks a function up by its name in the textual syntax.
    pub fn from_name(name: &str) -> Option<Func> {
        Some(match name {
            "log2" | "log₂" => Func::Log2,
            "ln" => Func::Ln,
            "log" => Func::Log,
            "sqrt" => Func::Sqrt,
            "ceil" => Func::Ceil,
            "floor" => Func::Floor,
            "max" => Func::Max,
            "min" => Func::Min,
            _ => return None,
        })
    }

    /// How many arguments the function takes: `(min, max)`, `None` for no bound.
    pub fn arity(self) -> (usize, Option<usize>) {
        match self {
            Func::Log => (2, Some(2)),
            Func::Max | Func::Min => (1, None),
            _ => (1, Some(1)),
        }
    }

    /// Whether a call with `n` arguments is well formed. The parser only
    /// builds such calls; a hand-built [`Expr::Call`] may not be one, and
    /// then evaluates to [`EvalError::Arity`] and simplifies to itself.
    ///
    /// ```
    /// use pattern_core::expr::Func;
    ///
    /// assert!(Func::Log.accepts(2) && !Func::Log.accepts(1));
    /// assert!(Func::Max.accepts(5) && !Func::Max.accepts(0));
    /// ```
    pub fn accepts(self, n: usize) -> bool {
        let (lo, hi) = self.arity();
        n >= lo && hi.is_none_or(|hi| n <= hi)
    }
}

impl Expr {
    /// A number.
    pub fn num(value: f64) -> Expr {
        Expr::Num(value)
    }

    /// A named variable.
    pub fn var(name: &str) -> Expr {
        Expr::Var(name.to_string())
    }

    /// Parses the textual syntax; see [`ParseError`] for the errors.
    ///
    /// Accepts decimal and scientific numbers, identifiers, `+ - * / ^` (also
    /// `**`, `·` and `×`), parentheses, `log2`, `ln`, `log(base, e)`, `sqrt`,
    /// `max`, `min`, `ceil`, `floor`, and therefore every model Extra-P prints:
    ///
    /// ```
    /// use pattern_core::Expr;
    ///
    /// let fitted = Expr::parse("-1487600.12 + 1039.05 * x^(1) * log2(x)^(1)").unwrap();
    /// assert_eq!(fitted.simplify().to_string(), "1039.05·x·log₂(x) - 1487600.12");
    /// ```
    pub fn parse(text: &str) -> Result<Expr, ParseError> {
        parse::parse(text)
    }

    /// `log2(self)`.
    pub fn log2(self) -> Expr {
        Expr::Call(Func::Log2, vec![self])
    }

    /// `ln(self)`.
    pub fn ln(self) -> Expr {
        Expr::Call(Func::Ln, vec![self])
    }

    /// `log(base, self)`: the logarithm of `self` in base `base`.
    pub fn log(self, base: impl Into<Expr>) -> Expr {
        Expr::Call(Func::Log, vec![base.into(), self])
    }

    /// `sqrt(self)`.
    pub fn sqrt(self) -> Expr {
        Expr::Call(Func::Sqrt, vec![self])
    }

    /// `ceil(self)`.
    pub fn ceil(self) -> Expr {
        Expr::Call(Func::Ceil, vec![self])
    }

    /// `floor(self)`.
    pub fn floor(self) -> Expr {
        Expr::Call(Func::Floor, vec![self])
    }

    /// `self ^ exponent`.
    pub fn pow(self, exponent: impl Into<Expr>) -> Expr {
        let exponent = exponent.into();
        // Dividing builds `b ^ -k` directly so that `a/b^2` prints and re-parses
        // to the same tree.
        Expr::Pow(Box::new(self), Box::new(exponent))
    }

    /// `1 / self`.
    pub fn recip(mut self) -> Expr {
        if let Expr::Pow(base, exponent) = &mut self
            && let Expr::Num(k) = **exponent
        {
            // `1/(1/b)` is `b` (also for `b = 0`: `1/inf = 0`), never
            // the `b^1` that simplification would have to fold again.
            if k == -1.0 {
                return std::mem::replace(&mut **base, Expr::Num(0.0));
            }
            **exponent = Expr::Num(-k);
            return self;
        }
        Expr::Pow(Box::new(self), Box::new(Expr::Num(-1.0)))
    }

    /// `name(args...)`: a call of a function the engine does not define (a
    /// machine's communication function), kept symbolic until resolved.
    pub fn apply(name: &str, args: impl IntoIterator<Item = Expr>) -> Expr {
        Expr::Apply(name.to_string(), args.into_iter().collect())
    }

    /// The names of the undefined functions the expression calls
    /// ([`Expr::Apply`]), in alphabetical order.
    pub fn applied_functions(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.visit(&mut |e| {
            if let Expr::Apply(name, _) = e {
                out.insert(name.clone());
            }
        });
        out
    }

    /// Replaces every call `name(args)` of an undefined function with what
    /// `resolve` gives for it (arguments resolved first); `Ok(None)` keeps
    /// the call. Used to resolve machine functions against a profile.
    pub fn resolve_applications<E>(
        &self,
        resolve: &mut impl FnMut(&str, &[Expr]) -> Result<Option<Expr>, E>,
    ) -> Result<Expr, E> {
        crate::deep(|| match self {
            Expr::Num(_) | Expr::Var(_) => Ok(self.clone()),
            Expr::Apply(name, args) => {
                let args = args
                    .iter()
                    .map(|a| a.resolve_applications(resolve))
                    .collect::<Result<Vec<_>, E>>()?;
                Ok(resolve(name, &args)?.unwrap_or_else(|| Expr::Apply(name.clone(), args)))
            }
            _ => {
                let mut err = None;
                let out = self.map_children(|c| match c.resolve_applications(resolve) {
                    Ok(e) => e,
                    Err(e) => {
                        err.get_or_insert(e);
                        c.clone()
                    }
                });
                match err {
                    Some(e) => Err(e),
                    None => Ok(out.reflatten()),
                }
            }
        })
    }

    /// `max(a, b, ...)`, pointwise. One argument gives that argument back.
    pub fn max(args: impl IntoIterator<Item = Expr>) -> Expr {
        Self::extremum(Func::Max, args)
    }

    /// `min(a, b, ...)`, pointwise. One argument gives that argument back.
    pub fn min(args: impl IntoIterator<Item = Expr>) -> Expr {
        Self::extremum(Func::Min, args)
    }

    fn extremum(func: Func, args: impl IntoIterator<Item = Expr>) -> Expr {
        let mut args: Vec<Expr> = args.into_iter().collect();
        if args.len() == 1 {
            return args.pop().expect("one argument");
        }
        Expr::Call(func, args)
    }

    /// The variables the expression mentions, in alphabetical order.
    pub fn vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.visit(&mut |e| {
            if let Expr::Var(v) = e {
                out.insert(v.clone());
            }
        });
        out
    }

    /// Whether the expression mentions the variable `name`.
    pub fn depends_on(&self, name: &str) -> bool {
        let mut found = false;
        self.visit(&mut |e| found |= matches!(e, Expr::Var(v) if v == name));
        found
    }

    /// Whether the expression mentions no variable at all.
    pub fn is_constant(&self) -> bool {
        self.vars().is_empty()
    }

    /// The direct children of this node.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Num(_) | Expr::Var(_) => Vec::new(),
            Expr::Add(items) | Expr::Mul(items) | Expr::Call(_, items) | Expr::Apply(_, items) => {
                items.iter().collect()
            }
            Expr::Pow(base, exponent) => vec![base, exponent],
        }
    }

    /// Rebuilds this node with `f` applied to each direct child.
    pub fn map_children(&self, mut f: impl FnMut(&Expr) -> Expr) -> Expr {
        match self {
            Expr::Num(_) | Expr::Var(_) => self.clone(),
            Expr::Add(items) => Expr::Add(items.iter().map(&mut f).collect()),
            Expr::Mul(items) => Expr::Mul(items.iter().map(&mut f).collect()),
            Expr::Call(func, items) => Expr::Call(*func, items.iter().map(&mut f).collect()),
            Expr::Apply(name, items) => {
                Expr::Apply(name.clone(), items.iter().map(&mut f).collect())
            }
            Expr::Pow(base, exponent) => Expr::Pow(Box::new(f(base)), Box::new(f(exponent))),
        }
    }

    /// Calls `f` on every node, parents before children.
    pub fn visit(&self, f: &mut impl FnMut(&Expr)) {
        // An explicit stack: any depth, no recursion.
        let mut pending = vec![self];
        while let Some(e) = pending.pop() {
            f(e);
            match e {
                Expr::Num(_) | Expr::Var(_) => {}
                Expr::Add(items)
                | Expr::Mul(items)
                | Expr::Call(_, items)
                | Expr::Apply(_, items) => pending.extend(items.iter().rev()),
                Expr::Pow(base, exponent) => {
                    pending.push(exponent);
                    pending.push(base);
                }
            }
        }
    }

    /// The number of nodes in the tree.
    pub fn size(&self) -> usize {
        let mut n = 0;
        self.visit(&mut |_| n += 1);
        n
    }

    /// Replaces every occurrence of the variable `var` with `with`.
    ///
    /// ```
    /// use pattern_core::Expr;
    ///
    /// // M[reduce](d(x)) with d(x) = x / 768
    /// let reduce = Expr::parse("9376 * x").unwrap();
    /// let d = Expr::parse("x / 768").unwrap();
    /// assert_eq!(reduce.subs("x", &d).simplify().to_string(), "12.208333333333332·x");
    /// ```
    pub fn subs(&self, var: &str, with: &Expr) -> Expr {
        crate::deep(|| match self {
            Expr::Var(v) if v == var => with.clone(),
            Expr::Num(_) | Expr::Var(_) => self.clone(),
            _ => {
                let replaced = self.map_children(|child| child.subs(var, with));
                replaced.reflatten()
            }
        })
    }

    /// Substitutes several variables at once (simultaneously: a replacement is
    /// not substituted into again).
    pub fn subs_all(&self, map: &[(&str, Expr)]) -> Expr {
        crate::deep(|| match self {
            Expr::Var(v) => match map.iter().find(|(name, _)| name == v) {
                Some((_, with)) => with.clone(),
                None => self.clone(),
            },
            Expr::Num(_) => self.clone(),
            _ => self.map_children(|child| child.subs_all(map)).reflatten(),
        })
    }

    /// Restores flat sums and products after a child was replaced by a sum or a
    /// product.
    fn reflatten(mut self) -> Expr {
        match &mut self {
            Expr::Add(items) => sum_of(std::mem::take(items)),
            Expr::Mul(items) => product_of(std::mem::take(items)),
            _ => self,
        }
    }

    /// Whether two expressions are the same function up to floating-point
    /// rounding: their normal forms agree term for term, with coefficients equal
    /// within the relative tolerance `rel`.
    ///
    /// ```
    /// use pattern_core::Expr;
    ///
    /// let a = Expr::parse("0.1*x + 0.2*x").unwrap();
    /// let b = Expr::parse("0.3*x").unwrap();
    /// assert!(a.approx_eq(&b, 1e-12));
    /// ```
    pub fn approx_eq(&self, other: &Expr, rel: f64) -> bool {
        normal::approx_eq(&self.canonical(), &other.canonical(), rel)
    }

    fn variant_rank(&self) -> u8 {
        match self {
            Expr::Num(_) => 0,
            Expr::Var(_) => 1,
            Expr::Add(_) => 2,
            Expr::Mul(_) => 3,
            Expr::Pow(_, _) => 4,
            Expr::Call(_, _) => 5,
            Expr::Apply(_, _) => 6,
        }
    }
}

impl PartialEq for Expr {
    fn eq(&self, other: &Expr) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Expr {}

impl PartialOrd for Expr {
    fn partial_cmp(&self, other: &Expr) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A total order (numbers by `f64::total_cmp`), so expressions can key maps.
impl Ord for Expr {
    fn cmp(&self, other: &Expr) -> Ordering {
        crate::deep(|| match (self, other) {
            (Expr::Num(a), Expr::Num(b)) => a.total_cmp(b),
            (Expr::Var(a), Expr::Var(b)) => a.cmp(b),
            (Expr::Add(a), Expr::Add(b)) | (Expr::Mul(a), Expr::Mul(b)) => a.cmp(b),
            (Expr::Pow(a, x), Expr::Pow(b, y)) => a.cmp(b).then_with(|| x.cmp(y)),
            (Expr::Call(f, a), Expr::Call(g, b)) => f.cmp(g).then_with(|| a.cmp(b)),
            (Expr::Apply(f, a), Expr::Apply(g, b)) => f.cmp(g).then_with(|| a.cmp(b)),
            _ => self.variant_rank().cmp(&other.variant_rank()),
        })
    }
}

impl Hash for Expr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        crate::deep(|| {
            self.variant_rank().hash(state);
            match self {
                Expr::Num(v) => v.to_bits().hash(state),
                Expr::Var(v) => v.hash(state),
                Expr::Add(items) | Expr::Mul(items) => items.hash(state),
                Expr::Pow(a, b) => {
                    a.hash(state);
                    b.hash(state);
                }
                Expr::Call(f, items) => {
                    f.hash(state);
                    items.hash(state);
                }
                Expr::Apply(f, items) => {
                    f.hash(state);
                    items.hash(state);
                }
            }
        })
    }
}

impl From<f64> for Expr {
    fn from(value: f64) -> Expr {
        Expr::Num(value)
    }
}

impl From<i32> for Expr {
    fn from(value: i32) -> Expr {
        Expr::Num(f64::from(value))
    }
}

impl From<u32> for Expr {
    fn from(value: u32) -> Expr {
        Expr::Num(f64::from(value))
    }
}

impl From<&Expr> for Expr {
    fn from(value: &Expr) -> Expr {
        value.clone()
    }
}

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        negate(self)
    }
}

impl Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        negate(self.clone())
    }
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $build:expr) => {
        impl<R: Into<Expr>> $trait<R> for Expr {
            type Output = Expr;
            fn $method(self, rhs: R) -> Expr {
                $build(self, rhs.into())
            }
        }
        impl<R: Into<Expr>> $trait<R> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: R) -> Expr {
                $build(self.clone(), rhs.into())
            }
        }
        impl $trait<Expr> for f64 {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                $build(Expr::Num(self), rhs)
            }
        }
        impl $trait<&Expr> for f64 {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr {
                $build(Expr::Num(self), rhs.clone())
            }
        }
    };
}

binary_operator!(Add, add, |a, b| sum_of(vec![a, b]));
binary_operator!(Sub, sub, |a, b| sum_of(vec![a, negate(b)]));
binary_operator!(Mul, mul, |a, b| product_of(vec![a, b]));
binary_operator!(Div, div, divide);

impl std::iter::Sum for Expr {
    fn sum<I: Iterator<Item = Expr>>(iter: I) -> Expr {
        sum_of(iter.collect())
    }
}

impl std::iter::Product for Expr {
    fn product<I: Iterator<Item = Expr>>(iter: I) -> Expr {
        product_of(iter.collect())
    }
}

impl std::str::FromStr for Expr {
    type Err = ParseError;
    fn from_str(text: &str) -> Result<Expr, ParseError> {
        Expr::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_keep_sums_and_products_flat() {
        let x = Expr::var("x");
        let e = x.clone() + 1.0 + x.clone() * 2.0 * x.clone();
        assert_eq!(
            e,
            Expr::Add(vec![
                Expr::var("x"),
                Expr::Num(1.0),
                Expr::Mul(vec![Expr::var("x"), Expr::Num(2.0), Expr::var("x")])
            ])
        );
    }

    #[test]
    fn subtraction_and_division_are_sums_and_products() {
        let x = Expr::var("x");
        let n = Expr::var("n");
        assert_eq!(&x - 3.0, Expr::Add(vec![Expr::var("x"), Expr::Num(-3.0)]));
        assert_eq!(
            &x / &n,
            Expr::Mul(vec![
                Expr::var("x"),
                Expr::Pow(Box::new(Expr::var("n")), Box::new(Expr::Num(-1.0)))
            ])
        );
        assert_eq!(
            1.0 / n.clone().pow(2.0),
            Expr::Pow(Box::new(Expr::var("n")), Box::new(Expr::Num(-2.0)))
        );
    }

    #[test]
    fn subs_replaces_and_reflattens() {
        let e = Expr::parse("2*x + y").unwrap();
        let r = e.subs("x", &Expr::parse("a*b").unwrap());
        assert_eq!(r, Expr::parse("2*a*b + y").unwrap());
        let s = e.subs("y", &Expr::parse("u + v").unwrap());
        assert_eq!(s, Expr::parse("2*x + u + v").unwrap());
    }

    #[test]
    fn vars_and_size() {
        let e = Expr::parse("max(n, x) * log2(p) + 3").unwrap();
        let vars: Vec<String> = e.vars().into_iter().collect();
        assert_eq!(vars, ["n", "p", "x"]);
        assert!(e.depends_on("p"));
        assert!(!e.depends_on("q"));
        assert_eq!(e.size(), 8);
        assert!(Expr::parse("2^10 + log2(8)").unwrap().is_constant());
    }
}
