//! Laws that are false under some assumption, each with its counterexample:
//! a per-hop transfer cost between pipeline stages, a queue of limited rate,
//! an emitter/collector overhead in a task pool (constant, or growing with
//! the threads), the paper's asymptotic `max`, and a shuffle that pays only
//! between nodes. The law's documentation says so; here are the numbers.
use pattern_core::laws::Laws;
use pattern_core::semantics::Operators;
use pattern_core::semantics::Throughput;
use pattern_core::{Atom, Count, Expr, MapReduceParams, Term};

fn atom(name: &str, model: &str) -> Term {
    Term::atom(name, Expr::parse(model).unwrap())
}

fn qsort() -> Term {
    atom("qsort", "1034.17*x*log2(x)")
}

fn inc() -> Term {
    atom("inc", "536.185*x")
}

fn nop() -> Term {
    atom("nop", "5422.97")
}

fn at(laws: &Laws, t: &Term, x: f64) -> f64 {
    laws.expr(t).eval(&[("x", x)]).unwrap()
}

/// Each handover costs 10 µs on the slower stage.
const HOP: Laws = Laws::by(Operators {
    pipe: |stages| Expr::max(stages) + 10_000.0,
    ..Operators::POINTWISE
});

/// The queue between two stages passes at most one element per 10 µs: a
/// stage of its own.
const QUEUE: Laws = Laws::by(Operators {
    pipe: |mut stages| {
        stages.push(Expr::num(10_000.0));
        Expr::max(stages)
    },
    ..Operators::POINTWISE
});

/// The emitter and collector of a task pool cost 50 ns per element.
const OVERHEAD: Laws = Laws::by(Operators {
    tpool: |t, n| t / n + 50.0,
    ..Operators::POINTWISE
});

/// The overhead grows with the threads: 2 µs per thread.
const CONTENTION: Laws = Laws::by(Operators {
    tpool: |t, n| t / n.clone() + 2000.0 * n,
    ..Operators::POINTWISE
});

#[test]
fn a_hop_cost_breaks_idempotence_layering_and_pipe_below_seq() {
    let (a, b, c) = (atom("a", "100000"), atom("b", "1"), atom("c", "1"));
    // Every semantics sees a chain whole (`pipe(a, b, c)`, however nested):
    // both nestings are one pipeline, which pays the hop once, so no
    // operator can break associativity.
    let left = Term::pipe(Term::pipe(a.clone(), b.clone()), c.clone());
    let right = Term::pipe(a.clone(), Term::pipe(b.clone(), c.clone()));
    assert_eq!(at(&HOP, &left, 2.0), 110_000.0);
    assert_eq!(at(&HOP, &right, 2.0), 110_000.0);
    assert!(HOP.pipe_associative(&a, &b, &c));
    assert!(Laws::POINTWISE.pipe_associative(&a, &b, &c));
    // Commutativity and law (iv) survive.
    assert!(HOP.pipe_commutative(&qsort(), &inc()));
    assert!(HOP.pipe_at_least_tpool2_seq(&qsort(), &inc()));
    // Two equal stages pay the hop: a + h.
    assert!((at(&HOP, &Term::pipe(nop(), nop()), 2.0) - 15_422.97).abs() < 1e-9);
    assert!(!HOP.pipe_idempotent(&nop()));
    // A pool of pipelines divides the hop, a pipeline of pools does not.
    let pools = Term::pipe(Term::tpool(4u64, qsort()), Term::tpool(4u64, inc()));
    let pool = Term::tpool(4u64, Term::pipe(qsort(), inc()));
    assert!((at(&HOP, &pools, 1024.0) - (2_647_475.2 + 10_000.0)).abs() < 1e-6);
    assert!((at(&HOP, &pool, 1024.0) - (2_647_475.2 + 2_500.0)).abs() < 1e-6);
    assert!(!HOP.layering(4, &qsort(), &inc()));
    // Where the faster stage takes less than the hop, the sequence wins.
    let (p, s) = (Term::pipe(inc(), nop()), Term::seq(inc(), nop()));
    assert!((at(&HOP, &p, 2.0) - 15_422.97).abs() < 1e-9);
    assert!((at(&HOP, &s, 2.0) - 6_495.34).abs() < 1e-9);
    assert!(!HOP.pipe_at_most_seq(&inc(), &nop()));
}

#[test]
fn a_queue_of_limited_rate_keeps_associativity_but_not_idempotence() {
    let (a, b, c) = (atom("a", "100000"), atom("b", "1"), atom("c", "1"));
    assert!(QUEUE.pipe_associative(&a, &b, &c));
    assert!(QUEUE.pipe_associative(&qsort(), &inc(), &nop()));
    assert!(QUEUE.pipe_commutative(&qsort(), &nop()));
    // Two stages of 1 ns run at the queue's rate.
    assert_eq!(at(&QUEUE, &Term::pipe(b.clone(), c.clone()), 2.0), 10_000.0);
    assert!(!QUEUE.pipe_idempotent(&b));
    assert!(!QUEUE.pipe_at_most_seq(&b, &c));
    assert!(!QUEUE.layering(4, &qsort(), &inc()));
    assert!(QUEUE.pipe_at_least_tpool2_seq(&qsort(), &inc()));
}

#[test]
fn a_constant_pool_overhead_breaks_identity_fusion_distribution_and_iv() {
    let q = qsort();
    // tpool_1(qsort) = qsort + 50 (Table 2 measures it 3.7 % above qsort).
    assert!(
        (at(&OVERHEAD, &Term::tpool(1u64, q.clone()), 1024.0) - (10_589_900.8 + 50.0)).abs() < 1e-6
    );
    assert!(!OVERHEAD.tpool_identity(&q));
    // Two pools pay twice: (t/2 + e)/4 + e against t/8 + e.
    let nested = Term::tpool(4u64, Term::tpool(2u64, q.clone()));
    let fused = Term::tpool(8u64, q.clone());
    let t = 10_589_900.8;
    assert!((at(&OVERHEAD, &nested, 1024.0) - ((t / 2.0 + 50.0) / 4.0 + 50.0)).abs() < 1e-6);
    assert!((at(&OVERHEAD, &fused, 1024.0) - (t / 8.0 + 50.0)).abs() < 1e-6);
    assert!(!OVERHEAD.tpool_fusion(4, 2, &q));
    assert!(!OVERHEAD.tpool_distributes_over_seq(4, &q, &inc()));
    // Two equal stages: the pipeline takes inc, the pool inc + 50.
    let (p, pool) = (
        Term::pipe(inc(), inc()),
        Term::tpool(2u64, Term::seq(inc(), inc())),
    );
    assert!((at(&OVERHEAD, &p, 100.0) - 53_618.5).abs() < 1e-6);
    assert!((at(&OVERHEAD, &pool, 100.0) - 53_668.5).abs() < 1e-6);
    assert!(!OVERHEAD.pipe_at_least_tpool2_seq(&inc(), &inc()));
    // Layering and monotonicity survive a constant overhead.
    assert!(OVERHEAD.layering(8, &q, &inc()));
    assert!(OVERHEAD.layering("n", &q, &inc()));
    assert!(OVERHEAD.tpool_monotone(1, 64, &q));
}

#[test]
fn an_overhead_growing_with_the_threads_breaks_monotonicity() {
    // t/n + 2000·n: for qsort at x = 64 (397,121 ns) the best pool has about
    // sqrt(t/2000) = 14 threads; 64 are slower than 8.
    let q = qsort();
    let at64 = |n: u64| at(&CONTENTION, &Term::tpool(n, q.clone()), 64.0);
    assert!(at64(64) > at64(8), "{} vs {}", at64(64), at64(8));
    assert!((at64(64) - (397_121.28 / 64.0 + 128_000.0)).abs() < 1e-6);
    assert!(!CONTENTION.tpool_monotone(8, 64, &q));
    assert!(Laws::POINTWISE.tpool_monotone(8, 64, &q));
}

#[test]
fn the_asymptotic_max_breaks_iv_for_small_inputs() {
    // pipe(qsort, nop) taken as qsort: 2068.34 ns at x = 2, where nop's
    // 5422.97 ns is the real bottleneck; the pool of two needs 3745.655.
    let p = Term::pipe(qsort(), nop());
    let pool = Term::tpool(2u64, Term::seq(qsort(), nop()));
    assert!((at(&Laws::ASYMPTOTIC, &p, 2.0) - 2068.34).abs() < 1e-9);
    assert!((at(&Laws::ASYMPTOTIC, &pool, 2.0) - 3745.655).abs() < 1e-9);
    assert!(!Laws::ASYMPTOTIC.pipe_at_least_tpool2_seq(&qsort(), &nop()));
    assert!(Laws::POINTWISE.pipe_at_least_tpool2_seq(&qsort(), &nop()));
    // Laws (i)–(iii) survive the asymptotic choice on Table 1's atoms.
    assert!(Laws::ASYMPTOTIC.pipe_associative(&qsort(), &inc(), &nop()));
    assert!(Laws::ASYMPTOTIC.pipe_commutative(&qsort(), &nop()));
    assert!(Laws::ASYMPTOTIC.layering(4, &qsort(), &inc()));
}

#[test]
fn a_shuffle_between_nodes_only_tells_nodes_from_threads() {
    // Seed 001's own framework (§4.2.5) sends the (m−1)/m share between
    // nodes; threads of one node share memory.
    let shuffle = Atom {
        name: "shuffle_nodes".into(),
        model: Expr::parse("(m - 1)/m * 12288 * x / 0.125").unwrap(),
        bytes: None,
    };
    let (map, reduce) = (atom("map", "3.529e7"), atom("reduce", "9376*x"));
    let (d, k) = (Expr::var("x"), Expr::num(768.0));
    assert!(!Laws::POINTWISE.map_reduce_workers(4, 6, &map, &shuffle, &reduce, &d, &k));
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
    // 4 nodes of 6 threads shuffle 3/4 of the bytes, one node of 24 none.
    let model = |t: Term| Throughput::new().expr(&t);
    let (nodes, threads) = (model(build(4, 6)), model(build(1, 24)));
    let x = [("x", 10.0)];
    let gap = nodes.eval(&x).unwrap() - threads.eval(&x).unwrap();
    assert!((gap - 0.75 * 98_304.0 * 10.0).abs() < 1e-6, "{gap}");
}
