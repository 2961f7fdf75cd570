//! The mutation check: the law suite can fail. Each deliberately wrong
//! operator — pipe lowered as a sum, tpool without the division, seq lowered
//! as a max, mapReduce without the shuffle — makes at least one law false on
//! random designs, and the real operators pass them all. The catch sets are
//! asserted exactly: a pipeline lowered as a sum satisfies laws (i)–(iv);
//! only idempotence and the saving of `pipe ≤ seq` tell it apart.
//!
//! 120 seeded random cases, shared by the mutants; the law suites run the
//! real operators on 1,000 cases per law.
use pattern_core::laws::Laws;
use pattern_core::semantics::{MapReducePhases, Operators};
use pattern_core::strategies::{
    count, map_reduce_params, shuffle, shuffle_free_term, term, thread_count,
};
use pattern_core::{Atom, Count, Expr, MapReduceParams, Term};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use std::sync::OnceLock;

/// Everything one case of every law needs.
#[derive(Clone, Debug)]
struct Case {
    a: Term,
    b: Term,
    c: Term,
    pool_a: Term,
    pool_b: Term,
    n: Count,
    k: (u64, u64),
    map: Term,
    reduce: Term,
    shuffle: Atom,
    params: MapReduceParams,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (term(2), term(2), term(2)),
        (shuffle_free_term(2), shuffle_free_term(2), count()),
        (thread_count(), thread_count()),
        (
            shuffle_free_term(1),
            shuffle_free_term(1),
            shuffle(),
            map_reduce_params(),
        ),
    )
        .prop_map(
            |((a, b, c), (pool_a, pool_b, n), k, (map, reduce, shuffle, params))| Case {
                a,
                b,
                c,
                pool_a,
                pool_b,
                n,
                k,
                map,
                reduce,
                shuffle,
                params,
            },
        )
}

type Law = fn(&Laws, &Case) -> bool;

/// Every law of `pattern_core::laws`, by name.
const LAWS: [(&str, Law); 15] = [
    ("(i) pipe associativity", |l, c| {
        l.pipe_associative(&c.a, &c.b, &c.c)
    }),
    ("(ii) pipe commutativity", |l, c| {
        l.pipe_commutative(&c.a, &c.b)
    }),
    ("(iii) layering", |l, c| {
        l.layering(c.n.clone(), &c.pool_a, &c.pool_b)
    }),
    ("(iv) pipe ≥ tpool_2(seq)", |l, c| {
        l.pipe_at_least_tpool2_seq(&c.pool_a, &c.pool_b)
    }),
    ("pipe idempotence", |l, c| l.pipe_idempotent(&c.a)),
    ("pipe ≤ seq", |l, c| l.pipe_at_most_seq(&c.a, &c.b)),
    ("seq associativity", |l, c| {
        l.seq_associative(&c.a, &c.b, &c.c)
    }),
    ("seq commutativity", |l, c| l.seq_commutative(&c.a, &c.b)),
    ("tpool identity", |l, c| l.tpool_identity(&c.pool_a)),
    ("tpool fusion", |l, c| {
        l.tpool_fusion(c.k.0, c.k.1, &c.pool_a)
    }),
    ("tpool over seq", |l, c| {
        l.tpool_distributes_over_seq(c.n.clone(), &c.pool_a, &c.pool_b)
    }),
    ("tpool monotone", |l, c| {
        l.tpool_monotone(c.k.0, c.k.1, &c.pool_a)
    }),
    ("mapReduce one worker", |l, c| {
        l.map_reduce_single_worker(&c.map, &c.shuffle, &c.reduce, &c.params.d, &c.params.k)
    }),
    ("mapReduce GrPPi", |l, c| {
        l.map_reduce_grppi(c.n.clone(), &c.map, &c.reduce, &c.params.d)
    }),
    ("mapReduce workers", |l, c| {
        // The law needs a shuffle of m·n: skip the one that pays between nodes.
        c.shuffle.name.starts_with("shuffle_nodes")
            || l.map_reduce_workers(
                c.k.0 % 8 + 1,
                c.k.1 % 8 + 1,
                &c.map,
                &c.shuffle,
                &c.reduce,
                &c.params.d,
                &c.params.k,
            )
    }),
];

/// The random cases, generated once (seeded) and shared by every mutant.
fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let mut runner = TestRunner::deterministic();
        let strategy = case();
        (0..120)
            .map(|_| strategy.new_tree(&mut runner).expect("a case").current())
            .collect()
    })
}

/// The laws that some case makes false under `laws`.
fn caught_by(laws: Laws) -> Vec<&'static str> {
    LAWS.iter()
        .filter(|(_, law)| cases().iter().any(|c| !law(&laws, c)))
        .map(|(name, _)| *name)
        .collect()
}

#[test]
fn the_real_operators_pass_every_law() {
    assert_eq!(
        caught_by(Laws::by(Operators::POINTWISE)),
        Vec::<&str>::new()
    );
}

#[test]
fn pipe_as_a_sum_passes_i_to_iv_and_fails_idempotence_and_the_saving() {
    let sum = Operators {
        pipe: |stages| stages.into_iter().sum(),
        ..Operators::POINTWISE
    };
    assert_eq!(caught_by(Laws::by(sum)), ["pipe idempotence", "pipe ≤ seq"]);
}

#[test]
fn tpool_without_the_division_fails_iv_and_grppi() {
    let undivided = Operators {
        tpool: |t, _| t,
        ..Operators::POINTWISE
    };
    assert_eq!(
        caught_by(Laws::by(undivided)),
        ["(iv) pipe ≥ tpool_2(seq)", "mapReduce GrPPi"]
    );
}

#[test]
fn seq_as_a_max_fails_the_saving_and_the_map_reduce_forms() {
    let max = Operators {
        seq: Expr::max,
        ..Operators::POINTWISE
    };
    assert_eq!(
        caught_by(Laws::by(max)),
        ["pipe ≤ seq", "mapReduce one worker", "mapReduce GrPPi"]
    );
}

#[test]
fn map_reduce_without_the_shuffle_fails_the_single_worker_form() {
    let no_shuffle = Operators {
        map_reduce: |p: MapReducePhases| {
            Expr::var("x") * p.map_one / p.workers.clone() + p.keys * p.reduce_d / p.workers
        },
        ..Operators::POINTWISE
    };
    assert_eq!(caught_by(Laws::by(no_shuffle)), ["mapReduce one worker"]);
}
