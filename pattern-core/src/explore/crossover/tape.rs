//! A model in one variable compiled to straight-line code (the expression
//! crate's [`Program`]), evaluated on second-order jets: the
//! value, the first and the second derivative, either at a point (`f64`)
//! or as enclosures over an interval ([`Interval`]).

use super::interval::Interval;
use crate::expr::{EvalError, Expr, Func, Number, Op, Program};

/// Why an expression cannot be compiled in one variable.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CompileIssue {
    /// A variable other than the one of the tape.
    OtherVariable(String),
    /// A call of a function the engine does not define.
    Unresolved(String),
    /// A call with a number of arguments its function does not take (a
    /// tree built through the public variants).
    Arity(String),
}

/// A compiled model of one variable: the expression's [`Program`], run
/// as written (a rewrite would change the enclosures).
#[derive(Clone, Debug)]
pub(crate) struct Tape {
    program: Program,
}

/// The value and the first two derivatives of a function of one variable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Jet<S> {
    pub v: S,
    pub d: S,
    pub dd: S,
}

/// What the tape's arithmetic needs from a number type.
pub(crate) trait Scalar: Copy {
    fn constant(v: f64) -> Self;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn square(self) -> Self;
    fn recip(self) -> Self;
    fn powi(self, n: i32) -> Self;
    fn powf(self, k: f64) -> Self;
    fn ln(self) -> Self;
    fn log2(self) -> Self;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn is_zero(self) -> bool;
    /// `ceil` (or `floor`) of a jet: piecewise constant.
    fn step(u: Jet<Self>, ceil: bool) -> Jet<Self>;
    /// `max` (or `min`) of jets.
    fn extremum(args: &[Jet<Self>], max: bool) -> Jet<Self>;
}

impl Scalar for f64 {
    fn constant(v: f64) -> f64 {
        v
    }
    fn add(self, o: f64) -> f64 {
        self + o
    }
    fn mul(self, o: f64) -> f64 {
        self * o
    }
    fn neg(self) -> f64 {
        -self
    }
    fn square(self) -> f64 {
        self * self
    }
    fn recip(self) -> f64 {
        1.0 / self
    }
    fn powi(self, n: i32) -> f64 {
        f64::powi(self, n)
    }
    fn powf(self, k: f64) -> f64 {
        f64::powf(self, k)
    }
    fn ln(self) -> f64 {
        f64::ln(self)
    }
    fn log2(self) -> f64 {
        f64::log2(self)
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn exp(self) -> f64 {
        f64::exp(self)
    }
    fn is_zero(self) -> bool {
        self == 0.0
    }
    fn step(u: Jet<f64>, ceil: bool) -> Jet<f64> {
        let v = if ceil { u.v.ceil() } else { u.v.floor() };
        Jet { v, d: 0.0, dd: 0.0 }
    }
    /// At a tie, the argument that stays the extremum when the variable
    /// grows: the right derivative.
    fn extremum(args: &[Jet<f64>], max: bool) -> Jet<f64> {
        let better = |a: &Jet<f64>, b: &Jet<f64>| {
            let key = |j: &Jet<f64>| (j.v, j.d, j.dd);
            let (ka, kb) = (key(a), key(b));
            if max { ka > kb } else { ka < kb }
        };
        let mut best = args[0];
        for a in &args[1..] {
            if a.v.is_nan() || better(a, &best) {
                best = *a;
            }
        }
        best
    }
}

impl Scalar for Interval {
    fn constant(v: f64) -> Interval {
        Interval::point(v)
    }
    fn add(self, o: Interval) -> Interval {
        Interval::add(self, o)
    }
    fn mul(self, o: Interval) -> Interval {
        Interval::mul(self, o)
    }
    fn neg(self) -> Interval {
        Interval::neg(self)
    }
    fn square(self) -> Interval {
        Interval::square(self)
    }
    fn recip(self) -> Interval {
        Interval::recip(self)
    }
    fn powi(self, n: i32) -> Interval {
        Interval::powi(self, n)
    }
    fn powf(self, k: f64) -> Interval {
        Interval::powf(self, k)
    }
    fn ln(self) -> Interval {
        Interval::ln(self)
    }
    fn log2(self) -> Interval {
        Interval::log2(self)
    }
    fn sqrt(self) -> Interval {
        Interval::sqrt(self)
    }
    fn exp(self) -> Interval {
        Interval::exp(self)
    }
    fn is_zero(self) -> bool {
        self == Interval::ZERO
    }
    /// Constant where the argument stays between two jumps; where it may
    /// jump, nothing is known of the derivatives.
    fn step(u: Jet<Interval>, ceil: bool) -> Jet<Interval> {
        let v = if ceil { u.v.ceil() } else { u.v.floor() };
        if !v.is_nan() && v.lo == v.hi {
            Jet {
                v,
                d: Interval::ZERO,
                dd: Interval::ZERO,
            }
        } else {
            Jet {
                v,
                d: Interval::ENTIRE,
                dd: Interval::ENTIRE,
            }
        }
    }
    /// The derivative of a `max` lies between those of the arguments that
    /// may attain it (the function is Lipschitz: its slopes are theirs);
    /// where two may, it has a kink and its second derivative is unbounded.
    fn extremum(args: &[Jet<Interval>], max: bool) -> Jet<Interval> {
        let fold = |f: fn(Interval, Interval) -> Interval| {
            args[1..].iter().fold(args[0].v, |acc, a| f(acc, a.v))
        };
        let v = if max {
            fold(Interval::max)
        } else {
            fold(Interval::min)
        };
        if v.is_nan() || args.iter().any(|a| a.v.is_nan()) {
            let nan = Interval::point(f64::NAN);
            return Jet {
                v: nan,
                d: Interval::ENTIRE,
                dd: Interval::ENTIRE,
            };
        }
        let candidates: Vec<&Jet<Interval>> = args
            .iter()
            .filter(|a| if max { a.v.hi >= v.lo } else { a.v.lo <= v.hi })
            .collect();
        match candidates.as_slice() {
            // No argument reaches the extremum's bounds (infinite ends, as
            // log2(0) gives): its slope is unknown, so anything.
            [] => Jet {
                v,
                d: Interval::ENTIRE,
                dd: Interval::ENTIRE,
            },
            [only] => Jet { v, ..**only },
            _ => Jet {
                v,
                d: candidates[1..]
                    .iter()
                    .fold(candidates[0].d, |acc, a| acc.hull(a.d)),
                dd: Interval::ENTIRE,
            },
        }
    }
}

impl<S: Scalar> Jet<S> {
    fn constant(v: f64) -> Jet<S> {
        Jet {
            v: S::constant(v),
            d: S::constant(0.0),
            dd: S::constant(0.0),
        }
    }

    fn is_constant(&self) -> bool {
        self.d.is_zero() && self.dd.is_zero()
    }

    fn add(self, o: Jet<S>) -> Jet<S> {
        Jet {
            v: self.v.add(o.v),
            d: self.d.add(o.d),
            dd: self.dd.add(o.dd),
        }
    }

    fn mul(self, o: Jet<S>) -> Jet<S> {
        if o.is_constant() {
            return self.scale(o.v);
        }
        if self.is_constant() {
            return o.scale(self.v);
        }
        let two = S::constant(2.0);
        Jet {
            v: self.v.mul(o.v),
            d: self.d.mul(o.v).add(self.v.mul(o.d)),
            dd: self
                .dd
                .mul(o.v)
                .add(two.mul(self.d).mul(o.d))
                .add(self.v.mul(o.dd)),
        }
    }

    fn scale(self, k: S) -> Jet<S> {
        Jet {
            v: self.v.mul(k),
            d: self.d.mul(k),
            dd: self.dd.mul(k),
        }
    }

    /// `φ(self)` from `φ`, `φ'` and `φ''` at the value.
    fn chain(self, phi: S, dphi: S, ddphi: S) -> Jet<S> {
        if self.is_constant() {
            return Jet {
                v: phi,
                d: S::constant(0.0),
                dd: S::constant(0.0),
            };
        }
        Jet {
            v: phi,
            d: dphi.mul(self.d),
            dd: ddphi.mul(self.d.square()).add(dphi.mul(self.dd)),
        }
    }

    fn powi(self, n: i32) -> Jet<S> {
        match n {
            0 => Jet::constant(1.0),
            1 => self,
            2 => {
                let v = self.v;
                self.chain(v.square(), S::constant(2.0).mul(v), S::constant(2.0))
            }
            _ => {
                let k = f64::from(n);
                let v = self.v;
                self.chain(
                    v.powi(n),
                    S::constant(k).mul(v.powi(n - 1)),
                    S::constant(k * (k - 1.0)).mul(v.powi(n - 2)),
                )
            }
        }
    }

    fn powf(self, k: f64) -> Jet<S> {
        let v = self.v;
        self.chain(
            v.powf(k),
            S::constant(k).mul(v.powf(k - 1.0)),
            S::constant(k * (k - 1.0)).mul(v.powf(k - 2.0)),
        )
    }

    fn ln(self) -> Jet<S> {
        let v = self.v;
        let r = v.recip();
        self.chain(v.ln(), r, r.square().neg())
    }

    fn log2(self) -> Jet<S> {
        let v = self.v;
        let k = S::constant(std::f64::consts::LN_2.recip());
        let r = v.recip();
        self.chain(v.log2(), k.mul(r), k.mul(r.square()).neg())
    }

    fn sqrt(self) -> Jet<S> {
        let v = self.v;
        let s = v.sqrt();
        let half_over = S::constant(0.5).mul(s.recip());
        self.chain(s, half_over, S::constant(-0.25).mul(v.powf(-1.5)))
    }

    fn exp(self) -> Jet<S> {
        let e = self.v.exp();
        self.chain(e, e, e)
    }

    fn recip(self) -> Jet<S> {
        self.powi(-1)
    }
}

/// The program's arithmetic on jets.
impl<S: Scalar> Number for Jet<S> {
    fn num(v: f64) -> Jet<S> {
        Jet::constant(v)
    }
    fn add(self, o: Jet<S>) -> Jet<S> {
        Jet::add(self, o)
    }
    fn mul(self, o: Jet<S>) -> Jet<S> {
        Jet::mul(self, o)
    }
    fn powi(self, k: i32) -> Jet<S> {
        Jet::powi(self, k)
    }
    fn powf(self, k: f64) -> Jet<S> {
        Jet::powf(self, k)
    }
    /// `exp(e·ln b)`.
    fn pow(self, e: Jet<S>) -> Jet<S> {
        e.mul(self.ln()).exp()
    }
    fn call(func: Func, a: &[Jet<S>]) -> Jet<S> {
        match func {
            Func::Log2 => a[0].log2(),
            Func::Ln => a[0].ln(),
            // `log(base, arg)`: `log2(arg)/log2(base)`.
            Func::Log => a[1].log2().mul(a[0].log2().recip()),
            Func::Sqrt => a[0].sqrt(),
            Func::Ceil => S::step(a[0], true),
            Func::Floor => S::step(a[0], false),
            Func::Max => S::extremum(a, true),
            Func::Min => S::extremum(a, false),
        }
    }
}

impl Tape {
    /// Compiles `expr`, whose only variable must be `var`.
    pub fn compile(expr: &Expr, var: &str) -> Result<Tape, CompileIssue> {
        let program = Program::lower(expr, &[var]).map_err(|e| match e {
            EvalError::Unbound { name, .. } => CompileIssue::OtherVariable(name),
            EvalError::Arity {
                function,
                arguments,
                ..
            } => CompileIssue::Arity(format!("{function} with {arguments} arguments")),
            EvalError::Unresolved { name } => CompileIssue::Unresolved(name),
            // Lowering raises no other error.
            other => CompileIssue::Unresolved(other.to_string()),
        })?;
        Ok(Tape { program })
    }

    /// The jet of the function at `x`.
    fn run<S: Scalar>(&self, x: S) -> Jet<S> {
        self.program.eval(&[Self::variable(x)])
    }

    /// The jets of every slot at `x`.
    fn run_all<S: Scalar>(&self, x: S) -> Vec<Jet<S>> {
        self.program.eval_all(&[Self::variable(x)])
    }

    /// The jet of the variable itself at `x`.
    fn variable<S: Scalar>(x: S) -> Jet<S> {
        Jet {
            v: x,
            d: S::constant(1.0),
            dd: S::constant(0.0),
        }
    }

    /// The arguments of each `max` (true) and `min` (false), in the order
    /// of the program.
    fn extrema(&self) -> impl Iterator<Item = (&[usize], bool)> {
        self.program.ops().iter().filter_map(|op| match op {
            Op::Call(Func::Max, items) => Some((items.as_slice(), true)),
            Op::Call(Func::Min, items) => Some((items.as_slice(), false)),
            _ => None,
        })
    }

    /// Whether the tape has a `max` or a `min`.
    pub fn has_extrema(&self) -> bool {
        self.extrema().next().is_some()
    }

    /// For each `max` and `min`, in the order of the program's slots (that of
    /// a post-order walk of the expression, children left to right), the
    /// index of the argument that is the extremum everywhere on
    /// `[lo, hi]` (its enclosure's lower bound at least every other's
    /// upper bound, for a `max`), if one is.
    pub fn dominant(&self, lo: f64, hi: f64) -> Vec<Option<usize>> {
        let regs = self.run_all(Interval { lo, hi });
        // Linear in the arguments: the candidate is the one with the
        // highest lower bound (for a max), checked against the others.
        let pick = |items: &[usize], max: bool| {
            // A min is a max of the negated values.
            let value = |i: usize| {
                let v = regs[i].v;
                if max { v } else { v.neg() }
            };
            if items.iter().any(|&i| value(i).is_nan()) {
                return None;
            }
            let best = (0..items.len())
                .max_by(|&p, &q| value(items[p]).lo.total_cmp(&value(items[q]).lo))?;
            let floor = value(items[best]).lo;
            items
                .iter()
                .enumerate()
                .all(|(k, &i)| k == best || floor >= value(i).hi)
                .then_some(best)
        };
        self.extrema()
            .map(|(items, max)| pick(items, max))
            .collect()
    }

    /// The value and derivatives at the point `x`.
    pub fn at(&self, x: f64) -> Jet<f64> {
        self.run(x)
    }

    /// Enclosures of the value and the derivatives over `[lo, hi]`.
    pub fn over(&self, lo: f64, hi: f64) -> Jet<Interval> {
        self.run(Interval { lo, hi })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tape(text: &str) -> Tape {
        Tape::compile(&Expr::parse(text).unwrap(), "x").unwrap()
    }

    #[test]
    fn point_jets_are_the_derivatives() {
        // f = x^3 - 2x: f' = 3x^2 - 2, f'' = 6x
        let j = tape("x^3 - 2*x").at(2.0);
        assert_eq!((j.v, j.d, j.dd), (4.0, 10.0, 12.0));
        // f = x·log2(x): f' = log2(x) + 1/ln 2, f'' = 1/(x ln 2)
        let j = tape("x*log2(x)").at(4.0);
        let ln2 = std::f64::consts::LN_2;
        assert!((j.v - 8.0).abs() < 1e-12);
        assert!((j.d - (2.0 + 1.0 / ln2)).abs() < 1e-12);
        assert!((j.dd - 1.0 / (4.0 * ln2)).abs() < 1e-12);
        // f = sqrt(x) + 1/x
        let j = tape("sqrt(x) + 1/x").at(4.0);
        assert!((j.d - (0.25 - 1.0 / 16.0)).abs() < 1e-12);
        assert!((j.dd - (-0.25 / 8.0 + 2.0 / 64.0)).abs() < 1e-12);
        // f = 2^x (a varying exponent)
        let j = tape("2^x").at(3.0);
        assert!((j.v - 8.0).abs() < 1e-12 && (j.d - 8.0 * ln2).abs() < 1e-12);
    }

    #[test]
    fn interval_jets_enclose_the_point_jets() {
        let t = tape("max(3*x, x^2) - 5*log2(x) + ceil(x/4)");
        let over = t.over(1.5, 2.5);
        for i in 0..=100 {
            let x = 1.5 + f64::from(i) / 100.0;
            let p = t.at(x);
            assert!(over.v.lo <= p.v && p.v <= over.v.hi, "{x}");
            assert!(over.d.lo <= p.d && p.d <= over.d.hi, "{x}");
        }
        // The max has a kink at 3: no bound on the second derivative there.
        assert_eq!(t.over(2.5, 3.5).dd, Interval::ENTIRE);
    }

    #[test]
    fn malformed_trees_are_refused_or_read_as_written() {
        let log = Expr::Call(Func::Log, vec![Expr::var("x")]);
        assert!(matches!(
            Tape::compile(&log, "x"),
            Err(CompileIssue::Arity(_))
        ));
        let max = Expr::Call(Func::Max, vec![]);
        assert!(matches!(
            Tape::compile(&max, "x"),
            Err(CompileIssue::Arity(_))
        ));
        let empty = Expr::Add(vec![Expr::Mul(vec![]), Expr::Add(vec![])]);
        assert_eq!(Tape::compile(&empty, "x").unwrap().at(1.0).v, 1.0);
    }

    #[test]
    fn other_variables_and_unresolved_calls_are_refused() {
        let e = Expr::parse("x + n").unwrap();
        assert_eq!(
            Tape::compile(&e, "x").unwrap_err(),
            CompileIssue::OtherVariable("n".into())
        );
        let e = Expr::parse("x").unwrap() + Expr::apply("send", [Expr::var("x")]);
        assert_eq!(
            Tape::compile(&e, "x").unwrap_err(),
            CompileIssue::Unresolved("send".into())
        );
    }
}
