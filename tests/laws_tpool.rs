//! The task-pool laws: layering (seed 001 §5.1 (iii)), identity, fusion,
//! distribution over a sequence and monotonicity in the threads, over
//! random designs and atom models: 1,000 cases each.
mod common;

use pattern_core::laws::{Dominance, Laws, dominance};
use pattern_core::semantics::Throughput;
use pattern_core::strategies::{count, shuffle_free_term, thread_count};
use pattern_core::{Count, Expr, Term};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig::with_cases(common::cases(1000))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn iii_layering(n in count(), a in shuffle_free_term(2), b in shuffle_free_term(2)) {
        prop_assert!(Laws::POINTWISE.layering(n.clone(), &a, &b), "n = {n}: {a} | {b}");
    }

    #[test]
    fn a_pool_of_one_is_its_task(t in shuffle_free_term(3)) {
        prop_assert!(Laws::POINTWISE.tpool_identity(&t), "{t}");
    }

    #[test]
    fn pools_fuse(n in thread_count(), k in thread_count(), t in shuffle_free_term(3)) {
        prop_assert!(Laws::POINTWISE.tpool_fusion(n, k, &t), "{n}, {k}: {t}");
    }

    #[test]
    fn a_pool_distributes_over_a_sequence(
        n in count(),
        a in shuffle_free_term(2),
        b in shuffle_free_term(2),
    ) {
        prop_assert!(Laws::POINTWISE.tpool_distributes_over_seq(n.clone(), &a, &b), "n = {n}: {a} | {b}");
    }

    #[test]
    fn more_threads_never_hurt(n in thread_count(), k in thread_count(), t in shuffle_free_term(3)) {
        prop_assert!(Laws::POINTWISE.tpool_monotone(n, k, &t), "{n}, {k}: {t}");
        prop_assert!(Laws::POINTWISE.tpool_monotone(k, n, &t), "{k}, {n}: {t}");
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(300)))]

    /// The symbolic side of monotonicity: `M/k ≤ M/n` is proved by dominance.
    #[test]
    fn dominance_proves_monotonicity(n in thread_count(), k in thread_count(), t in shuffle_free_term(3)) {
        let (few, many) = (n.min(k), n.max(k));
        let slow = Throughput::new().expr(&Term::tpool(few, t.clone()));
        let fast = Throughput::new().expr(&Term::tpool(many, t.clone()));
        prop_assert_eq!(dominance(&fast, &slow), Dominance::Proved, "{}", t);
    }
}

fn qsort() -> Term {
    Term::atom("qsort", Expr::parse("1034.17*x*log2(x)").unwrap())
}

fn inc() -> Term {
    Term::atom("inc", Expr::parse("536.185*x").unwrap())
}

#[test]
fn the_pool_laws_on_table_1_atoms() {
    for n in [1u64, 2, 4, 8, 12, 24] {
        assert!(Laws::POINTWISE.layering(n, &qsort(), &inc()), "{n}");
    }
    assert!(Laws::POINTWISE.layering("n", &qsort(), &inc()));
    assert!(Laws::POINTWISE.tpool_identity(&qsort()));
    assert!(Laws::POINTWISE.tpool_fusion(3, 8, &Term::pipe(qsort(), inc())));
    assert!(Laws::POINTWISE.tpool_distributes_over_seq("p", &qsort(), &inc()));
    assert!(Laws::POINTWISE.tpool_monotone(24, 1, &qsort()));
}

#[test]
fn a_law_is_false_where_a_model_is_undefined() {
    let q = qsort();
    assert!(
        !Laws::POINTWISE.layering(0u64, &q, &inc()),
        "a count of 0 has no model"
    );
    assert!(
        !Laws::POINTWISE.tpool_fusion(u64::MAX, 2, &q),
        "n·k overflows"
    );
    assert!(!Laws::POINTWISE.tpool_distributes_over_seq(Count::Fixed(0), &q, &inc()));
}
