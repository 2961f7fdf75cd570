//! Relational laws between designs (seed 001 §5, SPEC §3), as functions.
//!
//! Each law is a method of [`Laws`], `...(parts) -> bool`, that builds the
//! two designs the law relates, lowers both and compares their models; the doc comment states
//! the equation. A law that holds for every input is a refactoring that
//! needs no new measurement: `pipe(tpool_n(a), tpool_n(b))` may become
//! `tpool_n(pipe(a, b))` without measuring it.
//!
//! | law | equation | method |
//! | --- | --- | --- |
//! | (i) | `pipe(a, pipe(b, c)) = pipe(pipe(a, b), c)` | [`Laws::pipe_associative`] |
//! | (ii) | `pipe(a, b) = pipe(b, a)` | [`Laws::pipe_commutative`] |
//! | (iii) | `pipe(tpool_n(a), tpool_n(b)) = tpool_n(pipe(a, b))` | [`Laws::layering`] |
//! | (iv) | `pipe(a, b) ≥ tpool_2(seq(a, b))` | [`Laws::pipe_at_least_tpool2_seq`] |
//! | | `pipe(a, a) = a` | [`Laws::pipe_idempotent`] |
//! | | `pipe(a, b) ≤ seq(a, b)`, saving `min(a, b)` | [`Laws::pipe_at_most_seq`] |
//! | | `seq(a, seq(b, c)) = seq(seq(a, b), c)` | [`Laws::seq_associative`] |
//! | | `seq(a, b) = seq(b, a)` | [`Laws::seq_commutative`] |
//! | | `tpool_1(t) = t` | [`Laws::tpool_identity`] |
//! | | `tpool_n(tpool_k(t)) = tpool_{nk}(t)` | [`Laws::tpool_fusion`] |
//! | | `tpool_n(seq(a, b)) = seq(tpool_n(a), tpool_n(b))` | [`Laws::tpool_distributes_over_seq`] |
//! | | `n ≤ k ⇒ tpool_k(t) ≤ tpool_n(t)` | [`Laws::tpool_monotone`] |
//! | | `mapReduce_{1,1}(map, s, reduce) = seq(map^{×x}, s, reduce^{×k})` | [`Laws::map_reduce_single_worker`] |
//! | | `mapReduce_{1,n}^{d,x}(map, 0, reduce) = tpool_n(seq(map^{×x}, reduce^{×x}))` | [`Laws::map_reduce_grppi`] |
//! | | `mapReduce_{m,n} = mapReduce_{1,m·n}` | [`Laws::map_reduce_workers`] |
//!
//! **How a law is checked.** An equality holds when the two models have the
//! same strong normal form ([`Expr::approx_eq`], coefficients within 1e-9)
//! *and* the same values (within 1e-9, relative) at sampled points: `x` in
//! {2, 3, 5, 8, 13, 32, 100, 1000, 4096, 10007, 65536, 2^20} and every other
//! variable (a symbolic count, `m`, `n`) in {1, 2, 3, 5, 8, 64}; at most 240
//! points of that grid, corners included. An inequality holds when it holds
//! at every sampled point and is not refuted symbolically (the smaller side
//! growing faster in `x`). [`dominance`] proves an inequality symbolically
//! where its bounds reach (`max(a, b) ≤ a + b`, `max(a, b) ≥ (a + b)/2`,
//! then every term of the difference non-negative): the test suites show it
//! proves law (iv) and `pipe ≤ seq` for any two atoms and monotonicity for
//! any task. A side that cannot be evaluated at a point (a count of 0) makes
//! the law false there.
//!
//! **Your own refactorings.** [`compare`](crate::compare) tells whether design B is
//! equivalent to design A, never worse over a [`Domain`] of `x` and the other
//! variables (with the margin), or worse somewhere (with the smallest failing
//! point, shrunk by bisection, and by how much). [`rewrite`] applies the laws
//! as oriented [`Rule`]s and lists the equivalent or better designs it finds.
//! `paper` (feature `paper`) sets seed 001's measured Tables 4, 6 and 7 next to what the laws
//! predict.
//!
//! Laws are statements about models: they do not check that a term is
//! well-formed ([`Term::check`]); a term the checker rejects still has a
//! model.
//!
//! **Under other operators.** [`Laws`] holds a lowering: [`Laws::POINTWISE`]
//! is that of [`Throughput::new`] (pointwise `max`). [`Laws::by`] checks the laws with
//! changed [`Operators`]: the doc of each law says which assumptions break
//! it (a per-hop transfer cost between pipeline stages, a task pool's
//! emitter/collector overhead, the paper's asymptotic `max`), and the tests
//! of this workspace (`tests/laws_assumptions.rs`) show each counterexample.
//!
//! ```
//! use pattern_core::Design;
//! use pattern_core::laws::Laws;
//!
//! let d = Design::parse("qsort = 1034.17*x*log2(x); inc = 536.185*x; pipe(qsort, inc)").unwrap();
//! let [qsort, inc] = d.term().chain()[..] else { unreachable!() };
//! assert!(Laws::POINTWISE.pipe_commutative(qsort, inc));
//! assert!(Laws::POINTWISE.layering(4, qsort, inc));
//! assert!(Laws::POINTWISE.pipe_at_least_tpool2_seq(qsort, inc));
//! ```

pub(crate) mod check;
#[cfg(feature = "paper")]
pub mod paper;
mod rewrite;

pub use check::Dominance;
pub use rewrite::{Found, Relation, RewriteError, Rewriter, Rule, rewrite};
pub use sample::{Domain, DomainError, Point, VarRange};

mod sample;

use crate::semantics::{Operators, Throughput};
use crate::{Atom, Count, MapReduceParams, Term};
use crate::{Expr, Mode};

/// The laws under one lowering of terms to models.
///
/// [`Laws::POINTWISE`] is the lowering of [`Throughput::new`]; [`Laws::ASYMPTOTIC`] that of [`Throughput::asymptotic`]
/// (the paper's choice of the faster-growing stage); [`Laws::by`] any set of
/// [`Operators`].
///
/// ```
/// use pattern_core::laws::Laws;
/// use pattern_core::semantics::Operators;
/// use pattern_core::{Expr, Term};
///
/// // A task pool whose emitter and collector cost 50 ns per element.
/// let overhead = Laws::by(Operators { tpool: |t, n| t / n + 50.0, ..Operators::POINTWISE });
/// let t = Term::atom("a", Expr::parse("3*x").unwrap());
/// assert!(Laws::POINTWISE.tpool_identity(&t));
/// assert!(!overhead.tpool_identity(&t)); // tpool_1(t) = t + 50
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Laws {
    lowering: Lowering,
}

#[derive(Clone, Copy, Debug)]
enum Lowering {
    Mode(Mode),
    By(Operators),
}

impl Laws {
    /// The laws of [`Throughput::new`]: the paper's operators, `pipe` as a
    /// pointwise `max`. Every law of this module holds.
    pub const POINTWISE: Laws = Laws {
        lowering: Lowering::Mode(Mode::Pointwise),
    };

    /// The laws of [`Throughput::asymptotic`]: `pipe` is the stage that
    /// grows faster in `x`. Law (iv) fails for small `x`.
    pub const ASYMPTOTIC: Laws = Laws {
        lowering: Lowering::Mode(Mode::Asymptotic),
    };

    /// The laws with the given operators ([`Throughput::operators`]).
    pub const fn by(ops: Operators) -> Laws {
        Laws {
            lowering: Lowering::By(ops),
        }
    }

    /// The expression of `t` under these operators, as built.
    pub fn expr(&self, t: &Term) -> Expr {
        match &self.lowering {
            Lowering::Mode(mode) => Throughput::new().mode(*mode).expr(t),
            Lowering::By(ops) => Throughput::new().operators(*ops).expr(t),
        }
    }

    fn equal(&self, l: &Term, r: &Term) -> bool {
        check::equal(&self.expr(l), &self.expr(r))
    }

    fn at_most(&self, l: &Term, r: &Term) -> bool {
        check::at_most_everywhere(&self.expr(l), &self.expr(r))
    }

    /// **Law (i), pipeline associativity** (seed 001 §5.1):
    ///
    /// ```text
    /// M[pipe(a, pipe(b, c))] = M[pipe(pipe(a, b), c)]
    /// ```
    ///
    /// A pipeline of three stages is as fast however it is nested: `max` is
    /// associative.
    ///
    /// *False* when a handover between stages costs `h` on the slower stage
    /// (`pipe(a, b) = max(a, b) + h`): the nesting decides which stage pays the
    /// hop twice, e.g. `a = 10, b = c = 1, h = 1` gives 12 against 11. It
    /// survives a queue that passes at most one element per `h`
    /// (`max(a, b, h)`, the queue as a stage of its own).
    ///
    /// ```
    /// use pattern_core::laws::Laws;
    /// use pattern_core::{Expr, Term};
    ///
    /// let atom = |name, m: &str| Term::atom(name, Expr::parse(m).unwrap());
    /// let (a, b, c) = (atom("a", "3*x*log2(x)"), atom("b", "40*x"), atom("c", "900"));
    /// assert!(Laws::POINTWISE.pipe_associative(&a, &b, &c));
    /// ```
    pub fn pipe_associative(&self, a: &Term, b: &Term, c: &Term) -> bool {
        self.equal(
            &Term::pipe(a.clone(), Term::pipe(b.clone(), c.clone())),
            &Term::pipe(Term::pipe(a.clone(), b.clone()), c.clone()),
        )
    }

    /// **Law (ii), pipeline commutativity** (seed 001 §5.1):
    ///
    /// ```text
    /// M[pipe(a, b)] = M[pipe(b, a)]
    /// ```
    ///
    /// The order of the stages does not change the throughput (it may change
    /// what the program computes). Holds with a per-hop cost and with the
    /// asymptotic `max` too.
    pub fn pipe_commutative(&self, a: &Term, b: &Term) -> bool {
        self.equal(
            &Term::pipe(a.clone(), b.clone()),
            &Term::pipe(b.clone(), a.clone()),
        )
    }

    /// **Law (iii), layering** (seed 001 §5.1):
    ///
    /// ```text
    /// M[pipe(tpool_n(a), tpool_n(b))] = M[tpool_n(pipe(a, b))]
    /// ```
    ///
    /// A pipeline of task pools is as fast as a task pool of pipelines with the
    /// same threads. `n` may be a number or a symbol.
    ///
    /// Holds with a constant emitter/collector overhead `e` in the task pool
    /// (`M/n + e` on both sides). *False* with a per-hop cost `h` in the
    /// pipeline: `max(a/n, b/n) + h` against `(max(a, b) + h)/n` — the pool of
    /// pipelines divides the hop too.
    ///
    /// ```
    /// use pattern_core::laws::Laws;
    /// use pattern_core::{Expr, Term};
    ///
    /// let qsort = Term::atom("qsort", Expr::parse("1034.17*x*log2(x)").unwrap());
    /// let inc = Term::atom("inc", Expr::parse("536.185*x").unwrap());
    /// assert!(Laws::POINTWISE.layering(8, &qsort, &inc));
    /// assert!(Laws::POINTWISE.layering("n", &qsort, &inc));
    /// ```
    pub fn layering(&self, n: impl Into<Count>, a: &Term, b: &Term) -> bool {
        let n = n.into();
        self.equal(
            &Term::pipe(
                Term::tpool(n.clone(), a.clone()),
                Term::tpool(n.clone(), b.clone()),
            ),
            &Term::tpool(n, Term::pipe(a.clone(), b.clone())),
        )
    }

    /// **Law (iv), a task pool over the sequence never loses to the pipeline**
    /// (seed 001 §5.1):
    ///
    /// ```text
    /// M[pipe(a, b)] ≥ M[tpool_2(seq(a, b))]
    /// ```
    ///
    /// `max(a, b) ≥ (a + b)/2`: with the same two threads, the pool keeps both
    /// busy while the pipeline's faster stage waits; equality when the stages
    /// are equally fast. [`dominance`] proves it (`max ≥ mean`) for stages
    /// without a `max` of their own.
    ///
    /// *False* with the paper's asymptotic `max` ([`Laws::ASYMPTOTIC`]) for small
    /// `x`: `pipe(qsort, nop)` is taken as qsort's 2068 ns at `x = 2`, the pool
    /// needs 3745 ns. *False* with an emitter/collector overhead `e` in the
    /// task pool when the stages are equally fast (`a` against `a + e`).
    ///
    /// ```
    /// use pattern_core::laws::Laws;
    /// use pattern_core::{Expr, Term};
    ///
    /// let qsort = Term::atom("qsort", Expr::parse("1034.17*x*log2(x)").unwrap());
    /// let inc = Term::atom("inc", Expr::parse("536.185*x").unwrap());
    /// assert!(Laws::POINTWISE.pipe_at_least_tpool2_seq(&qsort, &inc));
    /// ```
    pub fn pipe_at_least_tpool2_seq(&self, a: &Term, b: &Term) -> bool {
        self.at_most(
            &Term::tpool(2u64, Term::seq(a.clone(), b.clone())),
            &Term::pipe(a.clone(), b.clone()),
        )
    }

    /// **Pipeline idempotence**:
    ///
    /// ```text
    /// M[pipe(a, a)] = M[a]
    /// ```
    ///
    /// Two equal stages in a row are as fast as one (at twice the threads).
    /// This law, with [`Laws::pipe_at_most_seq`], is what tells a pipeline lowered as
    /// a sum from the real one: a sum satisfies laws (i)–(iv).
    ///
    /// *False* with a per-hop cost (`a + h`), and with a queue of limited rate
    /// `h` wherever `a < h`.
    pub fn pipe_idempotent(&self, a: &Term) -> bool {
        self.equal(&Term::pipe(a.clone(), a.clone()), a)
    }

    /// **A pipeline never loses to the sequence**, and saves the faster stage:
    ///
    /// ```text
    /// M[pipe(a, b)] ≤ M[seq(a, b)],   M[seq(a, b)] − M[pipe(a, b)] = min(M[a], M[b])
    /// ```
    ///
    /// Strictly faster whenever both stages take time. The law checks the
    /// inequality and the saving at the sampled points (the normal form does
    /// not decide `min`); [`dominance`] proves the inequality (`max ≤ sum` for
    /// non-negative stages) for stages without a `max` of their own.
    ///
    /// *False* with a per-hop cost `h` wherever the faster stage takes less
    /// than `h`.
    pub fn pipe_at_most_seq(&self, a: &Term, b: &Term) -> bool {
        let pipe = self.expr(&Term::pipe(a.clone(), b.clone()));
        let seq = self.expr(&Term::seq(a.clone(), b.clone()));
        let saving = Expr::min([self.expr(a), self.expr(b)]);
        check::at_most_everywhere(&pipe, &seq) && check::equal_numerically(&seq, &(pipe + saving))
    }

    /// **Sequence associativity**:
    ///
    /// ```text
    /// M[seq(a, seq(b, c))] = M[seq(seq(a, b), c)]
    /// ```
    pub fn seq_associative(&self, a: &Term, b: &Term, c: &Term) -> bool {
        self.equal(
            &Term::seq(a.clone(), Term::seq(b.clone(), c.clone())),
            &Term::seq(Term::seq(a.clone(), b.clone()), c.clone()),
        )
    }

    /// **Sequence commutativity**:
    ///
    /// ```text
    /// M[seq(a, b)] = M[seq(b, a)]
    /// ```
    ///
    /// For the time only; the result of the program usually depends on the order.
    pub fn seq_commutative(&self, a: &Term, b: &Term) -> bool {
        self.equal(
            &Term::seq(a.clone(), b.clone()),
            &Term::seq(b.clone(), a.clone()),
        )
    }

    /// **A task pool of one thread is its task**:
    ///
    /// ```text
    /// M[tpool_1(t)] = M[t]
    /// ```
    ///
    /// *False* with an emitter/collector overhead `e` (`t + e`); Table 2 of seed
    /// 001 measures `tpool_1(qsort)` 3.7 % above `qsort` (1072.01 against
    /// 1034.17 ns·x·log₂x).
    ///
    /// ```
    /// use pattern_core::laws::Laws;
    /// use pattern_core::{Expr, Term};
    ///
    /// let qsort = Term::atom("qsort", Expr::parse("1034.17*x*log2(x)").unwrap());
    /// assert!(Laws::POINTWISE.tpool_identity(&qsort));
    /// ```
    pub fn tpool_identity(&self, t: &Term) -> bool {
        self.equal(&Term::tpool(1u64, t.clone()), t)
    }

    /// **Task pools fuse**:
    ///
    /// ```text
    /// M[tpool_n(tpool_k(t))] = M[tpool_{n·k}(t)]
    /// ```
    ///
    /// `false` if `n·k` overflows. *False* with an emitter/collector overhead
    /// `e`: `(t/k + e)/n + e` against `t/(n·k) + e`.
    pub fn tpool_fusion(&self, n: u64, k: u64, t: &Term) -> bool {
        let Some(nk) = n.checked_mul(k) else {
            return false;
        };
        self.equal(
            &Term::tpool(n, Term::tpool(k, t.clone())),
            &Term::tpool(nk, t.clone()),
        )
    }

    /// **A task pool distributes over a sequence**:
    ///
    /// ```text
    /// M[tpool_n(seq(a, b))] = M[seq(tpool_n(a), tpool_n(b))]
    /// ```
    ///
    /// *False* with an emitter/collector overhead `e`: the right side pays it
    /// twice.
    pub fn tpool_distributes_over_seq(&self, n: impl Into<Count>, a: &Term, b: &Term) -> bool {
        let n = n.into();
        self.equal(
            &Term::tpool(n.clone(), Term::seq(a.clone(), b.clone())),
            &Term::seq(Term::tpool(n.clone(), a.clone()), Term::tpool(n, b.clone())),
        )
    }

    /// **More threads never hurt**:
    ///
    /// ```text
    /// n ≤ k  ⇒  M[tpool_k(t)] ≤ M[tpool_n(t)]
    /// ```
    ///
    /// The arguments may come in either order. [`dominance`] proves it (the
    /// difference is `(1/n − 1/k)·M[t]`). Holds with a constant overhead;
    /// *false* when the overhead grows with the threads (`t/n + e·n`: beyond
    /// `n = sqrt(t/e)` more threads are slower). Table 2's error growing with
    /// the threads (63 % at 24) hints at such an overhead, though the measured
    /// pools still get faster up to 24 threads.
    pub fn tpool_monotone(&self, n: u64, k: u64, t: &Term) -> bool {
        let (few, many) = (n.min(k), n.max(k));
        self.at_most(&Term::tpool(many, t.clone()), &Term::tpool(few, t.clone()))
    }

    /// **A mapReduce on one worker is the sequence of its phases** (`m·n = 1`):
    ///
    /// ```text
    /// M[mapReduce_{1,1}^{d,k}(map, shuffle, reduce)] = M[seq(map^{×x}, shuffle_{1,1}^{k(x)}(d(x)), reduce^{×k})]
    /// ```
    ///
    /// where `map^{×x}` runs the map phase on each of the `x` inputs
    /// (`x·M[map](1)`) and `reduce^{×k}` the reduce phase on each of the `k(x)`
    /// keys with their `d(x)` elements (`k(x)·M[reduce](d(x))`). This is the law
    /// that notices a mapReduce lowered without its shuffle.
    pub fn map_reduce_single_worker(
        &self,
        map: &Term,
        shuffle: &Atom,
        reduce: &Term,
        d: &Expr,
        k: &Expr,
    ) -> bool {
        let params = MapReduceParams {
            m: Count::Fixed(1),
            n: Count::Fixed(1),
            d: d.clone(),
            k: k.clone(),
        };
        let lhs = Term::map_reduce(params, map.clone(), shuffle.clone(), reduce.clone());
        let at_one_node = [
            ("x", d.clone()),
            ("o", k.clone()),
            ("m", Expr::num(1.0)),
            ("n", Expr::num(1.0)),
        ];
        let shuffle_phase = Term::Atom(Atom {
            name: shuffle.name.clone(),
            model: shuffle.model.subs_all(&at_one_node),
            bytes: (shuffle.bytes.as_ref()).map(|b| b.subs_all(&at_one_node)),
        });
        let rhs = Term::seq(
            Term::seq(self.map_all(map), shuffle_phase),
            self.reduce_all(reduce, d, k),
        );
        self.equal(&lhs, &rhs)
    }

    /// **GrPPi's form** (seed 001 eq. 6): one node, no shuffle, one reduce per
    /// input (`k(x) = x`):
    ///
    /// ```text
    /// M[mapReduce_{1,n}^{d,x}(map, 0, reduce)] = M[tpool_n(seq(map^{×x}, reduce^{×x}))]
    ///                                          = x·(M[map](1) + M[reduce](d(x)))/n
    /// ```
    ///
    /// ```
    /// use pattern_core::laws::Laws;
    /// use pattern_core::{Expr, Term};
    ///
    /// let map = Term::atom("map_grppi", Expr::num(1.241e7));
    /// let reduce = Term::atom("reduce_grppi", Expr::num(9.449e6));
    /// assert!(Laws::POINTWISE.map_reduce_grppi("n", &map, &reduce, &Expr::num(768.0)));
    /// ```
    pub fn map_reduce_grppi(
        &self,
        n: impl Into<Count>,
        map: &Term,
        reduce: &Term,
        d: &Expr,
    ) -> bool {
        let n = n.into();
        let x = Expr::var("x");
        let params = MapReduceParams {
            m: Count::Fixed(1),
            n: n.clone(),
            d: d.clone(),
            k: x.clone(),
        };
        let none = Atom::new("no_shuffle", Expr::num(0.0));
        let lhs = Term::map_reduce(params, map.clone(), none, reduce.clone());
        let rhs = Term::tpool(
            n,
            Term::seq(self.map_all(map), self.reduce_all(reduce, d, &x)),
        );
        self.equal(&lhs, &rhs)
    }

    /// **Only the number of workers counts**:
    ///
    /// ```text
    /// M[mapReduce_{m,n}^{d,k}(map, shuffle, reduce)] = M[mapReduce_{1,m·n}^{d,k}(map, shuffle, reduce)]
    /// ```
    ///
    /// Holds when the shuffle depends on `m` and `n` only through `m·n`, as
    /// Hadoop's does (eq. 7: "to Hadoop, it does not make a difference whether
    /// the worker threads are on the same or a different compute node").
    /// *False* for a shuffle that pays only between nodes, such as the
    /// `(m − 1)/m` share of seed 001's own framework (§4.2.5). `false` if
    /// `m·n` overflows.
    #[allow(clippy::too_many_arguments)]
    pub fn map_reduce_workers(
        &self,
        m: u64,
        n: u64,
        map: &Term,
        shuffle: &Atom,
        reduce: &Term,
        d: &Expr,
        k: &Expr,
    ) -> bool {
        let Some(mn) = m.checked_mul(n) else {
            return false;
        };
        let build = |m: u64, n: u64| {
            Term::map_reduce(
                MapReduceParams {
                    m: Count::Fixed(m),
                    n: Count::Fixed(n),
                    d: d.clone(),
                    k: k.clone(),
                },
                map.clone(),
                shuffle.clone(),
                reduce.clone(),
            )
        };
        self.equal(&build(m, n), &build(1, mn))
    }

    /// `map^{×x}`: the map phase on each of the `x` inputs, one after
    /// another, as an atom.
    fn map_all(&self, map: &Term) -> Term {
        Term::atom(
            "map_all",
            Expr::var("x") * self.expr(map).subs("x", &Expr::num(1.0)),
        )
    }

    /// `reduce^{×k}`: the reduce phase on each of the `k(x)` keys with its
    /// `d(x)` elements, one after another, as an atom.
    fn reduce_all(&self, reduce: &Term, d: &Expr, k: &Expr) -> Term {
        Term::atom("reduce_all", k.clone() * self.expr(reduce).subs("x", d))
    }
}

/// What the forms of two models tell about `l ≤ r`, for positive values of
/// the variables (sizes and counts, `x ≥ 1`):
///
/// - [`Dominance::Refuted`] when `l` is non-negative and grows faster in `x`
///   than `r` (it overtakes `r` for large enough `x`);
/// - [`Dominance::Proved`] when every term of the normal form of `r − l` is
///   non-negative, either directly or after bounding the extrema — `l` from
///   above (`max(a, b) ≤ a + b` for non-negative arguments, `min ≤ mean`),
///   `r` from below (`max(a, b) ≥ (a + b)/2`, `min ≥ 0`);
/// - [`Dominance::Unknown`] otherwise (the values decide).
///
/// This is the symbolic side of the inequality laws: it proves law (iv) and
/// `pipe ≤ seq` for stages without a `max` of their own.
///
/// ```
/// use pattern_core::laws::{dominance, Dominance};
/// use pattern_core::Expr;
///
/// let e = |t: &str| Expr::parse(t).unwrap();
/// // Law (iv) on Table 1's qsort and inc: tpool_2(seq) ≤ pipe.
/// let pool = e("(1034.17*x*log2(x) + 536.185*x)/2");
/// let pipe = e("max(1034.17*x*log2(x), 536.185*x)");
/// assert_eq!(dominance(&pool, &pipe), Dominance::Proved);
/// assert_eq!(dominance(&e("x^2"), &e("1e9*x")), Dominance::Refuted);
/// assert_eq!(dominance(&e("3*x"), &e("2*x")), Dominance::Unknown);
/// ```
pub fn dominance(l: &Expr, r: &Expr) -> Dominance {
    check::le(l, r)
}
