//! Designs as terms of parallel patterns (seed 001 §3):
//!
//! ```text
//! T ::= f | seq(T, T) | pipe(T, T) | tpool_n(T) | mapReduce_{m,n}^{d,k}(T, shuffle_{m,n}^o, T)
//! ```
//!
//! A [`Term`] is the runtime form of a design. Its models (throughput, latency,
//! resources) come from the composition operators in [`crate::lower`]; its
//! textual form is the design syntax of [`crate::Design`].

use crate::Expr;
use std::fmt;

/// A count of a pattern: threads of a task pool, nodes or threads of a
/// mapReduce. A positive integer, or a symbol left free in the model.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Count {
    /// A fixed count (must be positive; see [`Term::check`]).
    Fixed(u64),
    /// A named count, a variable of the model (`n`, `m`, `threads`).
    Symbol(String),
}

impl Count {
    /// The count as a cost expression: a number or a variable.
    pub fn to_expr(&self) -> Expr {
        match self {
            Count::Fixed(k) => Expr::num(*k as f64),
            Count::Symbol(name) => Expr::var(name),
        }
    }
}

impl From<u64> for Count {
    fn from(k: u64) -> Count {
        Count::Fixed(k)
    }
}

impl From<u32> for Count {
    fn from(k: u32) -> Count {
        Count::Fixed(k.into())
    }
}

impl From<i32> for Count {
    /// Negative values become 0, which [`Term::check`] rejects.
    fn from(k: i32) -> Count {
        Count::Fixed(u64::try_from(k).unwrap_or(0))
    }
}

impl From<&str> for Count {
    fn from(name: &str) -> Count {
        Count::Symbol(name.to_string())
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Count::Fixed(k) => write!(f, "{k}"),
            Count::Symbol(name) => f.write_str(name),
        }
    }
}

/// A sequential block with its cost model, in nanoseconds per call as a
/// function of `x` (and of any other variable the model names).
#[derive(Clone, Debug, PartialEq)]
pub struct Atom {
    /// The block's name, as used in designs.
    pub name: String,
    /// Its cost model.
    pub model: Expr,
}

/// The parameters of a mapReduce: `m` nodes, `n` threads per node, `d(x)`
/// elements per key and `k(x)` keys.
#[derive(Clone, Debug, PartialEq)]
pub struct MapReduceParams {
    /// Compute nodes.
    pub m: Count,
    /// Threads per node.
    pub n: Count,
    /// Elements per key, a function of `x`.
    pub d: Expr,
    /// Number of keys, a function of `x`.
    pub k: Expr,
}

/// A design: a term of parallel patterns over atoms.
///
/// ```
/// use pattern_core::{Expr, Term};
///
/// let qsort = Term::atom("qsort", Expr::parse("1034.17*x*log2(x)").unwrap());
/// let inc = Term::atom("inc", Expr::parse("536.185*x").unwrap());
/// let design = Term::pipe(Term::tpool(4, qsort), inc);
/// assert_eq!(design.to_string(), "pipe(tpool[4](qsort), inc)");
/// assert_eq!(design.model().simplify().to_string(), "max(258.5425·x·log₂(x), 536.185·x)");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// A sequential block.
    Atom(Atom),
    /// `seq(a, b)`: `a` then `b` on the same thread.
    Seq(Box<Term>, Box<Term>),
    /// `pipe(a, b)`: two stages on their own threads, connected by a queue.
    Pipe(Box<Term>, Box<Term>),
    /// `tpool[n](t)`: `n` workers, each running `t` on the next element.
    Tpool(Count, Box<Term>),
    /// `mapreduce[m, n, d, k](map, shuffle, reduce)`.
    MapReduce {
        /// Its counts and functions.
        params: MapReduceParams,
        /// The map phase, applied to each input element.
        map: Box<Term>,
        /// The shuffle phase: a model in `x` (elements per key), `o` (keys),
        /// `m` and `n`.
        shuffle: Atom,
        /// The reduce phase, applied to the `d(x)` elements of each key.
        reduce: Box<Term>,
    },
    /// `on[p](t)`: `t` as a multi-processor task on a group of `p`
    /// processors (its model's `p` is bound to the count), the whole program
    /// when outermost (seed 004).
    On(Count, Box<Term>),
    /// `par[p1, p2, ..](t1, t2, ..)`: the tasks at once on disjoint groups
    /// of the given sizes; `max` of their times, communications under
    /// contention.
    Par(Vec<Count>, Vec<Term>),
    /// `groups[s](t)`: `s` equal groups of `floor(p/s)` processors, each
    /// running `t` at once; the smallest group decides.
    Groups(Count, Box<Term>),
    /// `seq[redist = e](a, b)`: `a` then `b` on the same group, with the
    /// cost `e` of redistributing the data between them.
    Redist(Expr, Box<Term>, Box<Term>),
}

/// Why a term is not a well-formed design.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TermError {
    /// A shuffle phase (so a mapReduce) inside a task pool (seed 001 §3.2).
    #[error(
        "`{pool}` wraps a mapReduce (`{inner}`): a shuffle phase must never be inside a task pool; put the task pool around the map or reduce phase instead"
    )]
    ShuffleInTpool {
        /// The task pool, as text.
        pool: String,
        /// The mapReduce inside it, as text.
        inner: String,
    },
    /// Groups that need more processors than there are.
    #[error(
        "`{pattern}` needs {needed} processors but runs on {available}: group sizes must add up to at most the processors of the enclosing group"
    )]
    OverSubscribed {
        /// The pattern, as text.
        pattern: String,
        /// The processors its groups need.
        needed: u64,
        /// The processors there are.
        available: u64,
    },
    /// A count of zero.
    #[error("`{pattern}` has a count of 0: counts are positive integers or symbols")]
    ZeroCount {
        /// The pattern with the zero count, as text.
        pattern: String,
    },
    /// Two different atoms with the same name.
    #[error("two atoms are named `{name}` but have different models")]
    ConflictingAtom {
        /// The name.
        name: String,
    },
}

impl Term {
    /// An atom: a sequential block with its cost model.
    pub fn atom(name: &str, model: Expr) -> Term {
        Term::Atom(Atom {
            name: name.to_string(),
            model,
        })
    }

    /// `seq(a, b)`.
    pub fn seq(a: Term, b: Term) -> Term {
        Term::Seq(Box::new(a), Box::new(b))
    }

    /// `pipe(a, b)`.
    pub fn pipe(a: Term, b: Term) -> Term {
        Term::Pipe(Box::new(a), Box::new(b))
    }

    /// `seq(t1, seq(t2, ...))`: n-ary sequence as nested binary ones. `None`
    /// for no stage.
    pub fn seq_all(stages: impl IntoIterator<Item = Term>) -> Option<Term> {
        Self::nest(stages, Term::seq)
    }

    /// `pipe(t1, pipe(t2, ...))`: an n-stage pipeline as nested binary ones
    /// (seed 001 §3.1.2). `None` for no stage.
    pub fn pipe_all(stages: impl IntoIterator<Item = Term>) -> Option<Term> {
        Self::nest(stages, Term::pipe)
    }

    fn nest(stages: impl IntoIterator<Item = Term>, join: fn(Term, Term) -> Term) -> Option<Term> {
        let mut stages: Vec<Term> = stages.into_iter().collect();
        let mut acc = stages.pop()?;
        while let Some(stage) = stages.pop() {
            acc = join(stage, acc);
        }
        Some(acc)
    }

    /// `tpool[n](t)`.
    pub fn tpool(n: impl Into<Count>, t: Term) -> Term {
        Term::Tpool(n.into(), Box::new(t))
    }

    /// `mapreduce[m, n, d, k](map, shuffle, reduce)`.
    pub fn map_reduce(params: MapReduceParams, map: Term, shuffle: Atom, reduce: Term) -> Term {
        Term::MapReduce {
            params,
            map: Box::new(map),
            shuffle,
            reduce: Box::new(reduce),
        }
    }

    /// The direct sub-terms (the shuffle is an atom of the mapReduce, not a
    /// sub-term).
    pub fn children(&self) -> Vec<&Term> {
        match self {
            Term::Atom(_) => Vec::new(),
            Term::Seq(a, b) | Term::Pipe(a, b) => vec![a, b],
            Term::Tpool(_, t) => vec![t],
            Term::MapReduce { map, reduce, .. } => vec![map, reduce],
            Term::On(_, t) | Term::Groups(_, t) => vec![t],
            Term::Par(_, parts) => parts.iter().collect(),
            Term::Redist(_, a, b) => vec![a, b],
        }
    }

    /// Rebuilds this node with `f` applied to each direct sub-term.
    pub fn map_children(&self, mut f: impl FnMut(&Term) -> Term) -> Term {
        match self {
            Term::Atom(_) => self.clone(),
            Term::Seq(a, b) => Term::seq(f(a), f(b)),
            Term::Pipe(a, b) => Term::pipe(f(a), f(b)),
            Term::Tpool(n, t) => Term::Tpool(n.clone(), Box::new(f(t))),
            Term::MapReduce {
                params,
                map,
                shuffle,
                reduce,
            } => Term::map_reduce(params.clone(), f(map), shuffle.clone(), f(reduce)),
            Term::On(p, t) => Term::On(p.clone(), Box::new(f(t))),
            Term::Groups(s, t) => Term::Groups(s.clone(), Box::new(f(t))),
            Term::Par(sizes, parts) => Term::Par(sizes.clone(), parts.iter().map(f).collect()),
            Term::Redist(cost, a, b) => Term::Redist(cost.clone(), Box::new(f(a)), Box::new(f(b))),
        }
    }

    /// The number of pattern and atom nodes.
    pub fn size(&self) -> usize {
        1 + self.children().iter().map(|c| c.size()).sum::<usize>()
            + usize::from(matches!(self, Term::MapReduce { .. }))
    }

    /// Every atom, in order of appearance (shuffles included).
    pub fn atoms(&self) -> Vec<&Atom> {
        let mut out = Vec::new();
        self.collect_atoms(&mut out);
        out
    }

    fn collect_atoms<'a>(&'a self, out: &mut Vec<&'a Atom>) {
        match self {
            Term::Atom(a) => out.push(a),
            Term::MapReduce {
                map,
                shuffle,
                reduce,
                ..
            } => {
                map.collect_atoms(out);
                out.push(shuffle);
                reduce.collect_atoms(out);
            }
            _ => self.children().iter().for_each(|c| c.collect_atoms(out)),
        }
    }

    /// Whether the term contains a shuffle phase (a mapReduce).
    pub fn has_shuffle(&self) -> bool {
        matches!(self, Term::MapReduce { .. }) || self.children().iter().any(|c| c.has_shuffle())
    }

    /// Checks the well-formedness rules: no shuffle inside a task pool, no
    /// zero count, groups that fit in the processors they split.
    ///
    /// ```
    /// use pattern_core::{Design, TermError};
    ///
    /// let d = Design::parse("m = 1; s = 0; r = 2; pipe(m, r)").unwrap();
    /// assert!(d.term().check().is_ok());
    /// ```
    pub fn check(&self) -> Result<(), TermError> {
        self.check_within(None)
    }

    /// The checks, with the processors of the enclosing group where known.
    fn check_within(&self, processors: Option<u64>) -> Result<(), TermError> {
        let fixed = |c: &Count| match c {
            Count::Fixed(k) => Some(*k),
            Count::Symbol(_) => None,
        };
        let zero = || TermError::ZeroCount {
            pattern: self.to_string(),
        };
        let over = |needed: u64, available: u64| TermError::OverSubscribed {
            pattern: self.to_string(),
            needed,
            available,
        };
        match self {
            Term::On(p, t) => {
                if fixed(p) == Some(0) {
                    return Err(zero());
                }
                if let (Some(needed), Some(available)) = (fixed(p), processors) {
                    if needed > available {
                        return Err(over(needed, available));
                    }
                }
                return t.check_within(fixed(p).or(processors));
            }
            Term::Par(sizes, parts) => {
                if sizes.iter().any(|c| fixed(c) == Some(0)) {
                    return Err(zero());
                }
                let known: Option<u64> = sizes.iter().map(fixed).sum();
                if let (Some(needed), Some(available)) = (known, processors) {
                    if needed > available {
                        return Err(over(needed, available));
                    }
                }
                return sizes
                    .iter()
                    .zip(parts)
                    .try_for_each(|(size, part)| part.check_within(fixed(size)));
            }
            Term::Groups(s, t) => {
                if fixed(s) == Some(0) {
                    return Err(zero());
                }
                if let (Some(groups), Some(available)) = (fixed(s), processors) {
                    if groups > available {
                        return Err(over(groups, available));
                    }
                }
                let per_group = match (fixed(s), processors) {
                    (Some(groups), Some(available)) => Some(available / groups),
                    _ => None,
                };
                return t.check_within(per_group);
            }
            _ => {}
        }
        match self {
            Term::Tpool(n, t) => {
                if *n == Count::Fixed(0) {
                    return Err(TermError::ZeroCount {
                        pattern: self.to_string(),
                    });
                }
                if let Some(inner) = t.first_map_reduce() {
                    return Err(TermError::ShuffleInTpool {
                        pool: self.to_string(),
                        inner: inner.to_string(),
                    });
                }
            }
            Term::MapReduce { params, .. }
                if params.m == Count::Fixed(0) || params.n == Count::Fixed(0) =>
            {
                return Err(TermError::ZeroCount {
                    pattern: self.to_string(),
                });
            }
            _ => {}
        }
        self.children()
            .into_iter()
            .try_for_each(|c| c.check_within(processors))
    }

    fn first_map_reduce(&self) -> Option<&Term> {
        if matches!(self, Term::MapReduce { .. }) {
            return Some(self);
        }
        self.children().into_iter().find_map(Term::first_map_reduce)
    }
}

impl fmt::Display for Term {
    /// The design syntax: `pipe(tpool[4](qsort), inc, nop)`. Right-nested
    /// chains of `pipe` and `seq` print as one n-ary call, which is how the
    /// parser reads them back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Atom(a) => f.write_str(&a.name),
            Term::Seq(..) | Term::Pipe(..) => {
                let name = if matches!(self, Term::Seq(..)) {
                    "seq"
                } else {
                    "pipe"
                };
                write!(f, "{name}(")?;
                let mut node = self;
                while let (Term::Seq(..), Term::Seq(a, b)) | (Term::Pipe(..), Term::Pipe(a, b)) =
                    (self, node)
                {
                    write!(f, "{a}, ")?;
                    node = b;
                }
                write!(f, "{node})")
            }
            Term::Tpool(n, t) => write!(f, "tpool[{n}]({t})"),
            Term::On(p, t) => write!(f, "on[{p}]({t})"),
            Term::Groups(s, t) => write!(f, "groups[{s}]({t})"),
            Term::Par(sizes, parts) => {
                let sizes: Vec<String> = sizes.iter().map(Count::to_string).collect();
                let parts: Vec<String> = parts.iter().map(Term::to_string).collect();
                write!(f, "par[{}]({})", sizes.join(", "), parts.join(", "))
            }
            Term::Redist(cost, a, b) => write!(f, "seq[redist = {cost:#}]({a}, {b})"),
            Term::MapReduce {
                params,
                map,
                shuffle,
                reduce,
            } => write!(
                f,
                "mapreduce[m = {}, n = {}, d = {:#}, k = {:#}]({map}, {}, {reduce})",
                params.m, params.n, params.d, params.k, shuffle.name
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atom(name: &str) -> Term {
        Term::atom(name, Expr::var("x"))
    }

    fn hist() -> Term {
        Term::map_reduce(
            MapReduceParams {
                m: Count::Fixed(1),
                n: "n".into(),
                d: Expr::num(768.0),
                k: Expr::var("x"),
            },
            atom("map"),
            Atom {
                name: "shuffle".into(),
                model: Expr::num(0.0),
            },
            atom("reduce"),
        )
    }

    #[test]
    fn n_ary_sugar_nests_to_the_right_and_prints_back() {
        let p = Term::pipe_all([atom("a"), atom("b"), atom("c")]).unwrap();
        assert_eq!(p, Term::pipe(atom("a"), Term::pipe(atom("b"), atom("c"))));
        assert_eq!(p.to_string(), "pipe(a, b, c)");
        let left = Term::pipe(Term::pipe(atom("a"), atom("b")), atom("c"));
        assert_eq!(left.to_string(), "pipe(pipe(a, b), c)");
        assert_eq!(Term::seq_all([atom("a")]).unwrap(), atom("a"));
        assert!(Term::pipe_all([]).is_none());
        let mixed = Term::seq(atom("a"), Term::pipe(atom("b"), atom("c")));
        assert_eq!(mixed.to_string(), "seq(a, pipe(b, c))");
    }

    #[test]
    fn size_atoms_and_children() {
        let t = Term::pipe(Term::tpool(4, atom("q")), hist());
        assert_eq!(t.size(), 7);
        let names: Vec<&str> = t.atoms().iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["q", "map", "shuffle", "reduce"]);
        assert_eq!(t.children().len(), 2);
        assert!(t.has_shuffle());
        let renamed = t.map_children(|c| c.clone());
        assert_eq!(renamed, t);
    }

    #[test]
    fn well_formedness() {
        assert_eq!(
            Term::pipe(Term::tpool(4, atom("q")), hist()).check(),
            Ok(())
        );
        let bad = Term::tpool(2, Term::seq(atom("a"), hist()));
        let err = bad.check().unwrap_err();
        assert!(matches!(err, TermError::ShuffleInTpool { .. }));
        assert!(err.to_string().starts_with("`tpool[2](seq(a, mapreduce[m = 1, n = n, d = 768, k = x](map, shuffle, reduce)))` wraps a mapReduce"), "{err}");
        let zero = Term::seq(atom("a"), Term::tpool(0, atom("b")));
        assert_eq!(
            zero.check().unwrap_err().to_string(),
            "`tpool[0](b)` has a count of 0: counts are positive integers or symbols"
        );
        assert_eq!(Count::from(-3), Count::Fixed(0));
    }
}
