//! Designs as terms of parallel patterns (seed 001 §3):
//!
//! ```text
//! T ::= f | seq(T, T) | pipe(T, T) | tpool_n(T) | mapReduce_{m,n}^{d,k}(T, shuffle_{m,n}^o, T)
//! ```
//!
//! A [`Term`] is the tree of a design: what the parser builds, what the
//! checker ([`crate::check`]) checks and what every semantics folds over
//! ([`crate::fold`]). Its `Display` is the design syntax, which parses back.

use pattern_expr::Expr;
use std::fmt;

/// The names of the patterns, which cannot name atoms.
pub const PATTERNS: [&str; 8] = [
    "seq",
    "pipe",
    "tpool",
    "mapreduce",
    "mapReduce",
    "on",
    "par",
    "groups",
];

/// The patterns, as the errors list them.
pub(crate) const PATTERN_LIST: &str = "seq, pipe, tpool, mapreduce, on, par and groups";

/// A count of a pattern: threads of a task pool, nodes or threads of a
/// mapReduce. A positive integer, or a symbol left free in the model.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Count {
    /// A fixed count (must be positive; see [`crate::check`]).
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

impl TryFrom<i32> for Count {
    type Error = NegativeCount;
    /// A negative count is an error (0 is a count the checker rejects).
    fn try_from(k: i32) -> Result<Count, NegativeCount> {
        u64::try_from(k)
            .map(Count::Fixed)
            .map_err(|_| NegativeCount(k))
    }
}

/// A negative number given as a count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a count cannot be negative, found {0}")]
pub struct NegativeCount(pub i32);

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
/// function of `x` (and of any other variable the model names), and, if
/// known, the bytes a call moves between the cores and the memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Atom {
    /// The block's name, as used in designs.
    pub name: String,
    /// Its cost model.
    pub model: Expr,
    /// The bytes a call reads from and writes to the memory (not its
    /// caches), a function of the same variables: on a machine that
    /// describes its memory, that part of a call shares the memory's
    /// bandwidth with the other cores. `None`: the call runs in the caches.
    pub bytes: Option<Expr>,
}

impl Atom {
    /// An atom named `name` with the cost model `model`.
    ///
    /// ```
    /// use pattern_core::{Atom, Expr};
    ///
    /// let qsort = Atom::new("qsort", Expr::parse("1034.17*x*log2(x)").unwrap());
    /// assert_eq!(qsort.name, "qsort");
    /// ```
    pub fn new(name: impl Into<String>, model: Expr) -> Atom {
        Atom {
            name: name.into(),
            model,
            bytes: None,
        }
    }

    /// The same atom moving `bytes` bytes of memory a call
    /// ([`Atom::bytes`](Atom#structfield.bytes)).
    ///
    /// ```
    /// use pattern_core::{Atom, Expr};
    ///
    /// let inc = Atom::new("inc", Expr::parse("536.185*x").unwrap())
    ///     .moving(Expr::parse("8*x").unwrap());
    /// assert_eq!(inc.bytes.unwrap().to_string(), "8·x");
    /// ```
    pub fn moving(mut self, bytes: Expr) -> Atom {
        self.bytes = Some(bytes);
        self
    }
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

impl MapReduceParams {
    /// `m` nodes of `n` threads, `d(x)` elements per key and `k(x)` keys.
    ///
    /// ```
    /// use pattern_core::{Count, Expr, MapReduceParams};
    ///
    /// let p = MapReduceParams::new(4, "n", Expr::var("x"), Expr::num(768.0));
    /// assert_eq!(p.m, Count::Fixed(4));
    /// ```
    pub fn new(m: impl Into<Count>, n: impl Into<Count>, d: Expr, k: Expr) -> MapReduceParams {
        MapReduceParams {
            m: m.into(),
            n: n.into(),
            d,
            k,
        }
    }
}

/// A design: a term of parallel patterns over atoms.
///
/// ```
/// use pattern_core::{Design, Expr, Term};
///
/// let qsort = Term::atom("qsort", Expr::parse("1034.17*x*log2(x)").unwrap());
/// let inc = Term::atom("inc", Expr::parse("536.185*x").unwrap());
/// let term = Term::pipe(Term::tpool(4, qsort), inc);
/// assert_eq!(term.to_string(), "pipe(tpool[4](qsort), inc)");
/// let design = Design::from_term(term).unwrap();
/// assert_eq!(design.model().to_string(), "max(258.5425·x·log₂(x), 536.185·x)");
/// ```
///
/// A term may be built any number of levels deep in code: cloning,
/// comparing, printing, dropping, checking and folding it never recurse
/// (only the text syntax limits nesting, to [`crate::MAX_DEPTH`]).
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

impl Term {
    /// An atom: a sequential block with its cost model.
    pub fn atom(name: &str, model: Expr) -> Term {
        Term::Atom(Atom::new(name, model))
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
    pub fn map_children(&self, f: impl FnMut(&Term) -> Term) -> Term {
        self.with_parts(self.children().into_iter().map(f).collect())
    }

    /// The sub-terms in pre-order (this term first, then each child's
    /// sub-terms in the order of [`Term::children`]), without recursion.
    pub fn preorder(&self) -> Preorder<'_> {
        Preorder { stack: vec![self] }
    }

    /// The number of pattern and atom nodes (a shuffle counts as one).
    pub fn size(&self) -> usize {
        self.preorder()
            .map(|t| 1 + usize::from(matches!(t, Term::MapReduce { .. })))
            .sum()
    }

    /// Every atom, in order of appearance (shuffles included, between the
    /// map and the reduce phase).
    pub fn atoms(&self) -> Vec<&Atom> {
        enum Item<'t> {
            Term(&'t Term),
            Shuffle(&'t Atom),
        }
        let mut out = Vec::new();
        let mut stack = vec![Item::Term(self)];
        while let Some(item) = stack.pop() {
            match item {
                Item::Shuffle(a) | Item::Term(Term::Atom(a)) => out.push(a),
                Item::Term(Term::MapReduce {
                    map,
                    shuffle,
                    reduce,
                    ..
                }) => {
                    stack.push(Item::Term(reduce));
                    stack.push(Item::Shuffle(shuffle));
                    stack.push(Item::Term(map));
                }
                Item::Term(t) => stack.extend(t.children().into_iter().rev().map(Item::Term)),
            }
        }
        out
    }

    /// The counts of this node alone, in the order the syntax writes them:
    /// a pool's, a processor group's or `groups`' count, a mapReduce's `m`
    /// then `n`, a `par`'s sizes; none for the other patterns.
    ///
    /// ```
    /// use pattern_core::{Count, Expr, Term};
    ///
    /// let t = Term::tpool("n", Term::atom("a", Expr::var("x")));
    /// assert_eq!(t.counts(), [&Count::from("n")]);
    /// ```
    pub fn counts(&self) -> Vec<&Count> {
        match self {
            Term::Tpool(c, _) | Term::On(c, _) | Term::Groups(c, _) => vec![c],
            Term::MapReduce { params, .. } => vec![&params.m, &params.n],
            Term::Par(sizes, _) => sizes.iter().collect(),
            Term::Atom(_) | Term::Seq(..) | Term::Pipe(..) | Term::Redist(..) => Vec::new(),
        }
    }

    /// The names of the symbolic counts of the whole term, each once, in
    /// order of first appearance (pre-order, a node's counts in the order
    /// of [`Term::counts`]).
    ///
    /// ```
    /// use pattern_core::Design;
    ///
    /// let d = Design::parse("a = x; pipe(tpool[n](a), tpool[m](a), tpool[n](a))").unwrap();
    /// assert_eq!(d.term().symbolic_counts(), ["n", "m"]);
    /// ```
    pub fn symbolic_counts(&self) -> Vec<&str> {
        // The set keeps it linear in a term of many names.
        let mut seen = std::collections::HashSet::new();
        let mut names: Vec<&str> = Vec::new();
        for node in self.preorder() {
            for count in node.counts() {
                if let Count::Symbol(name) = count
                    && seen.insert(name.as_str())
                {
                    names.push(name);
                }
            }
        }
        names
    }

    /// The stages of a chain: for a `seq` or a `pipe`, its nested `seq`s
    /// (or `pipe`s) flattened, left to right, so that `pipe(a, pipe(b, c))`
    /// and `pipe(pipe(a, b), c)` both have the stages `a, b, c`; any other
    /// term is a chain of itself. The one place chains are flattened: the
    /// syntax and the fold are n-ary where the term is binary.
    ///
    /// ```
    /// use pattern_core::Design;
    ///
    /// let d = Design::parse("a = x; b = 1; pipe(a, seq(a, b), b)").unwrap();
    /// let stages: Vec<String> = d.term().chain().iter().map(|t| t.to_string()).collect();
    /// assert_eq!(stages, ["a", "seq(a, b)", "b"]);
    /// ```
    pub fn chain(&self) -> Vec<&Term> {
        let same = |t: &Term| std::mem::discriminant(t) == std::mem::discriminant(self);
        if !matches!(self, Term::Seq(..) | Term::Pipe(..)) {
            return vec![self];
        }
        let mut out = Vec::new();
        let mut todo = vec![self];
        while let Some(t) = todo.pop() {
            match t {
                Term::Seq(a, b) | Term::Pipe(a, b) if same(t) => {
                    todo.push(b);
                    todo.push(a);
                }
                other => out.push(other),
            }
        }
        out
    }

    /// Whether the term contains a shuffle phase (a mapReduce).
    pub fn has_shuffle(&self) -> bool {
        self.preorder().any(|t| matches!(t, Term::MapReduce { .. }))
    }
}

/// The sub-terms of a term in pre-order: [`Term::preorder`].
#[derive(Clone, Debug)]
pub struct Preorder<'t> {
    stack: Vec<&'t Term>,
}

impl<'t> Iterator for Preorder<'t> {
    type Item = &'t Term;
    fn next(&mut self) -> Option<&'t Term> {
        let t = self.stack.pop()?;
        self.stack.extend(t.children().into_iter().rev());
        Some(t)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An atom of model `x`.
    pub(crate) fn atom(name: &str) -> Term {
        Term::atom(name, Expr::var("x"))
    }

    /// The histogram mapReduce of the paper, on one node.
    pub(crate) fn hist() -> Term {
        Term::map_reduce(
            MapReduceParams {
                m: Count::Fixed(1),
                n: "n".into(),
                d: Expr::num(768.0),
                k: Expr::var("x"),
            },
            atom("map"),
            Atom::new("shuffle", Expr::num(0.0)),
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
        let t = Term::pipe(Term::tpool(4u64, atom("q")), hist());
        assert_eq!(t.size(), 7);
        let names: Vec<&str> = t.atoms().iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["q", "map", "shuffle", "reduce"]);
        let kids: Vec<String> = t.children().iter().map(|c| c.to_string()).collect();
        assert_eq!(kids[0], "tpool[4](q)");
        assert!(kids[1].starts_with("mapreduce["), "{}", kids[1]);
        assert!(t.has_shuffle());
        assert!(!t.children()[0].has_shuffle());
        let order: Vec<String> = t.preorder().map(|c| c.to_string()).collect();
        assert_eq!(order[1], "tpool[4](q)");
        assert_eq!(order[2], "q");
        assert_eq!(order.len(), 6);
        // map_children really rebuilds with what `f` returns.
        let renamed = t.map_children(|c| match c {
            Term::Tpool(..) => atom("pool"),
            other => other.clone(),
        });
        assert_eq!(renamed.children()[0], &atom("pool"));
        assert_eq!(renamed.children()[1], t.children()[1]);
        assert_eq!(renamed.size(), 6);
    }

    #[test]
    fn counts_from_integers() {
        assert_eq!(Count::try_from(3), Ok(Count::Fixed(3)));
        assert_eq!(Count::try_from(-3), Err(NegativeCount(-3)));
        assert_eq!(
            NegativeCount(-3).to_string(),
            "a count cannot be negative, found -3"
        );
        assert_eq!(Count::from("n").to_expr(), Expr::var("n"));
    }
}
