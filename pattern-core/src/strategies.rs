//! `proptest` strategies for cost models and designs (feature `proptest`, off
//! by default): arbitrary atomic models, well-formed terms of bounded depth,
//! thread counts, and ill-formed terms for the error paths.
//!
//! They are what the law suites of this workspace run on, exported so that
//! users can property-test their own refactorings and tools:
//!
//! ```
//! use pattern_core::laws::Laws;
//! use pattern_core::strategies;
//! use proptest::prelude::*;
//! use proptest::test_runner::TestRunner;
//!
//! let mut runner = TestRunner::deterministic();
//! let parts = (strategies::shuffle_free_term(2), strategies::shuffle_free_term(2));
//! runner
//!     .run(&parts, |(a, b)| {
//!         prop_assert!(Laws::POINTWISE.pipe_commutative(&a, &b));
//!         Ok(())
//!     })
//!     .unwrap();
//! ```
//!
//! Atom names are derived from their models (`f` and 12 hex digits of a hash
//! of the model's text), so two atoms with one name always have one model and
//! every generated term can become a [`Design`](crate::Design).

use crate::Expr;
use crate::fit::{Rational64, TermClass};
use crate::{Atom, Count, MapReduceParams, Term};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

/// The exponents of `x` in PMNF terms (SPEC §6, Extra-P's default set, with 0).
pub const POLY_EXPONENTS: [(i64, i64); 20] = [
    (0, 1),
    (1, 4),
    (1, 3),
    (1, 2),
    (2, 3),
    (3, 4),
    (4, 5),
    (1, 1),
    (5, 4),
    (4, 3),
    (3, 2),
    (5, 3),
    (7, 4),
    (2, 1),
    (9, 4),
    (7, 3),
    (5, 2),
    (8, 3),
    (11, 4),
    (3, 1),
];

/// The exponents of `log2(x)` in PMNF terms (SPEC §6).
pub const LOG_EXPONENTS: [i64; 3] = [0, 1, 2];

/// A positive coefficient with four significant digits, from `1.000e-2` to
/// `9.999e6` (log-uniform in its decade).
pub fn coefficient() -> impl Strategy<Value = f64> + Clone {
    (1000u32..10000, -2i32..=6).prop_map(|(mantissa, decade)| {
        // Exact decimal text, so the value is the double nearest to it.
        format!("{mantissa}e{}", decade - 3)
            .parse::<f64>()
            .expect("a decimal number")
    })
}

/// The term class `x^i·log2(x)^j` of a PMNF term, never the constant class.
pub fn term_class() -> impl Strategy<Value = TermClass> + Clone {
    (
        prop::sample::select(POLY_EXPONENTS.to_vec()),
        prop::sample::select(LOG_EXPONENTS.to_vec()),
    )
        .prop_map(|((a, b), j)| {
            let (a, b, j) = if a == 0 && j == 0 {
                (1, 1, 0)
            } else {
                (a, b, j)
            };
            TermClass::new(Rational64::new(a, b), Rational64::from_integer(j))
        })
}

/// An atomic cost model in `x`: one or two PMNF terms `c·x^i·log2(x)^j` with
/// positive coefficients, plus a non-negative constant (half the time), in
/// normal form. Like Extra-P's models, but always positive for `x ≥ 1`.
///
/// ```
/// use pattern_core::strategies::atom_model;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let model = atom_model().new_tree(&mut TestRunner::deterministic()).unwrap().current();
/// assert!(model.vars().iter().all(|v| v == "x"));
/// assert!(model.eval(&[("x", 2.0)]).unwrap() > 0.0);
/// ```
pub fn atom_model() -> impl Strategy<Value = Expr> + Clone {
    (
        prop::collection::vec((coefficient(), term_class()), 1..=2),
        prop::option::of(coefficient()),
    )
        .prop_map(|(terms, constant)| {
            let mut sum: Vec<Expr> = terms
                .into_iter()
                .map(|(c, class)| c * class.expr("x"))
                .collect();
            sum.extend(constant.map(Expr::num));
            sum.into_iter().sum::<Expr>().simplify()
        })
}

/// The name of a generated atom with this model: `f` and 12 hex digits of a
/// (stable, FNV-1a) hash of the model's text.
pub fn atom_name(model: &Expr) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in format!("{model:#}").bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("f{:012x}", hash >> 16)
}

/// An atom: a sequential block with an [`atom_model`], named by
/// [`atom_name`].
pub fn atom() -> impl Strategy<Value = Term> + Clone {
    atom_model().prop_map(|model| Term::atom(&atom_name(&model), model))
}

/// A thread count, 1 to 64 (the paper's machine has 24 cores; 64 leaves
/// room), shrinking towards 1.
pub fn thread_count() -> impl Strategy<Value = u64> + Clone {
    1u64..=64
}

/// A count: a [`thread_count`] most of the time, else one of the symbols
/// `n` and `p`, left free in the model.
pub fn count() -> impl Strategy<Value = Count> + Clone {
    prop_oneof![
        4 => thread_count().prop_map(Count::Fixed),
        1 => prop::sample::select(vec!["n", "p"]).prop_map(Count::from),
    ]
}

/// A well-formed term without a mapReduce: atoms under `seq`, `pipe` and
/// `tpool` (with a [`count`]), at most `depth` patterns deep, about
/// `2^depth` atoms at most. Any such term may go inside a task pool.
pub fn shuffle_free_term(depth: u32) -> BoxedStrategy<Term> {
    atom()
        .prop_recursive(depth, 1 << depth.min(16), 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Term::seq(a, b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Term::pipe(a, b)),
                (count(), inner).prop_map(|(n, t)| Term::tpool(n, t)),
            ]
        })
        .boxed()
}

/// A shuffle phase: none (0), Hadoop's (eq. 7: the `(m·n−1)/(m·n)` share of
/// `c·x` bytes moves), one that grows with the keys `o`, or one that only
/// pays between nodes (`(m−1)/m`, as seed 001's own framework, §4.2.5).
pub fn shuffle() -> impl Strategy<Value = Atom> + Clone {
    (0usize..4, coefficient()).prop_map(|(kind, c)| {
        let v = Expr::var;
        let (name, model) = match kind {
            0 => ("no_shuffle", Expr::num(0.0)),
            1 => {
                let mn = v("m") * v("n");
                ("shuffle_all", (mn.clone() - 1.0) / mn * c * v("x"))
            }
            2 => ("shuffle_keys", c * v("o") * v("x")),
            _ => ("shuffle_nodes", (v("m") - 1.0) / v("m") * c * v("x")),
        };
        Atom::new(format!("{name}_{}", &atom_name(&model)[1..7]), model)
    })
}

/// The parameters of a mapReduce: `m` nodes (1–8 or the symbol `m`), `n`
/// threads per node (1–24 or `n`), `d(x)` elements per key (`x`, `768` or
/// `16·x`) and `k(x)` keys (`768`, `x` or `1`). `d(x) ≥ 1` wherever `x ≥ 1`,
/// so the reduce model stays positive.
pub fn map_reduce_params() -> impl Strategy<Value = MapReduceParams> + Clone {
    (
        prop_oneof![3 => (1u64..=8).prop_map(Count::Fixed), 1 => Just(Count::from("m"))],
        prop_oneof![3 => (1u64..=24).prop_map(Count::Fixed), 1 => Just(Count::from("n"))],
        prop::sample::select(vec![
            Expr::var("x"),
            Expr::num(768.0),
            16.0 * Expr::var("x"),
        ]),
        prop::sample::select(vec![Expr::num(768.0), Expr::var("x"), Expr::num(1.0)]),
    )
        .prop_map(|(m, n, d, k)| MapReduceParams { m, n, d, k })
}

/// A well-formed mapReduce: [`map_reduce_params`], map and reduce phases
/// from [`shuffle_free_term`] of depth `depth`, and a [`shuffle`].
pub fn map_reduce(depth: u32) -> BoxedStrategy<Term> {
    (
        map_reduce_params(),
        shuffle_free_term(depth),
        shuffle(),
        shuffle_free_term(depth),
    )
        .prop_map(|(params, map, shuffle, reduce)| Term::map_reduce(params, map, shuffle, reduce))
        .boxed()
}

/// A well-formed term of every pattern: atoms and mapReduces over atoms at
/// the bottom, `seq`, `pipe` and `tpool` above, at most `depth` patterns
/// deep above the bottom (so `depth + 1` with a mapReduce there).
/// A task pool never wraps a mapReduce: where one would, the mapReduce is
/// demoted to `seq(map, reduce)` (seed 001 §3.2).
///
/// ```
/// use pattern_core::strategies::term;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::deterministic();
/// for _ in 0..100 {
///     let t = term(3).new_tree(&mut runner).unwrap().current();
///     assert!(t.check().is_ok(), "{t}");
/// }
/// ```
pub fn term(depth: u32) -> BoxedStrategy<Term> {
    let leaf = prop_oneof![5 => atom(), 1 => map_reduce(0)];
    leaf.prop_recursive(depth, 1 << depth.min(16), 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Term::seq(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Term::pipe(a, b)),
            (count(), inner).prop_map(|(n, t)| Term::tpool(n, demote_shuffles(&t))),
        ]
    })
    .boxed()
}

/// `t` with every mapReduce replaced by `seq(map, reduce)`.
fn demote_shuffles(t: &Term) -> Term {
    // Recursive, over the few levels a strategy generates.
    match (t, &t.children()[..]) {
        (Term::MapReduce { .. }, [map, reduce]) => {
            Term::seq(demote_shuffles(map), demote_shuffles(reduce))
        }
        _ => t.map_children(demote_shuffles),
    }
}

/// An ill-formed term, for the error paths: a task pool wrapping a
/// mapReduce, a task pool or mapReduce with a count of 0, or two different
/// atoms under one name. [`Design::from_term`](crate::Design::from_term)
/// rejects every one; [`Term::check`] all but the last kind (it does not
/// look at names).
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::strategies::ill_formed_term;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::deterministic();
/// for _ in 0..100 {
///     let t = ill_formed_term().new_tree(&mut runner).unwrap().current();
///     assert!(Design::from_term(t).is_err());
/// }
/// ```
pub fn ill_formed_term() -> BoxedStrategy<Term> {
    prop_oneof![
        // A shuffle phase inside a task pool, maybe a level down.
        (count(), map_reduce(0), shuffle_free_term(1), any::<bool>()).prop_map(
            |(n, mr, other, deep)| {
                let body = if deep { Term::pipe(other, mr) } else { mr };
                Term::tpool(n, body)
            }
        ),
        // A task pool of 0 threads somewhere in a pipeline.
        (shuffle_free_term(1), shuffle_free_term(1))
            .prop_map(|(a, b)| Term::pipe(a, Term::tpool(0u64, b))),
        // A mapReduce on 0 nodes or with 0 threads per node.
        (map_reduce(0), any::<bool>()).prop_map(|(mut mr, nodes)| {
            if let Term::MapReduce { params, .. } = &mut mr {
                if nodes {
                    params.m = Count::Fixed(0);
                } else {
                    params.n = Count::Fixed(0);
                }
            }
            mr
        }),
        // Two atoms named alike with different models.
        (atom_model(), atom_model(), coefficient()).prop_map(|(a, b, c)| {
            let b = if a == b { b + c } else { b };
            Term::pipe(Term::atom("twice", a), Term::atom("twice", b))
        }),
    ]
    .boxed()
}
