//! The pipeline laws (seed 001 §5.1 (i), (ii), (iv), and idempotence and
//! `pipe ≤ seq`) over random designs and atom models: 1,000 cases each.
mod common;

use pattern_core::laws::{Dominance, Laws, dominance};
use pattern_core::semantics::Throughput;
use pattern_core::strategies::{atom, shuffle_free_term, term};
use pattern_core::{Expr, Term};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig::with_cases(common::cases(1000))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn i_pipe_is_associative(a in term(2), b in term(2), c in term(2)) {
        prop_assert!(Laws::POINTWISE.pipe_associative(&a, &b, &c), "{a} | {b} | {c}");
    }

    #[test]
    fn ii_pipe_is_commutative(a in term(2), b in term(2)) {
        prop_assert!(Laws::POINTWISE.pipe_commutative(&a, &b), "{a} | {b}");
    }

    #[test]
    fn iv_pipe_never_beats_a_pool_of_two_over_the_sequence(
        a in shuffle_free_term(2),
        b in shuffle_free_term(2),
    ) {
        prop_assert!(Laws::POINTWISE.pipe_at_least_tpool2_seq(&a, &b), "{a} | {b}");
    }

    #[test]
    fn pipe_is_idempotent(a in term(3)) {
        prop_assert!(Laws::POINTWISE.pipe_idempotent(&a), "{a}");
    }

    #[test]
    fn pipe_never_loses_to_seq_and_saves_the_faster_stage(a in term(2), b in term(2)) {
        prop_assert!(Laws::POINTWISE.pipe_at_most_seq(&a, &b), "{a} | {b}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(300)))]

    /// The symbolic side of the inequalities: proved by dominance for atoms,
    /// never refuted for any stages.
    #[test]
    fn dominance_proves_iv_and_pipe_below_seq_for_atoms(
        a in atom(),
        b in atom(),
        s in shuffle_free_term(2),
        t in shuffle_free_term(2),
    ) {
        let m = |t: Term| Throughput::new().expr(&t);
        let (pipe, seq) = (m(Term::pipe(a.clone(), b.clone())), m(Term::seq(a.clone(), b.clone())));
        let pool = m(Term::tpool(2u64, Term::seq(a.clone(), b.clone())));
        prop_assert_eq!(dominance(&pool, &pipe), Dominance::Proved, "{} | {}", a, b);
        prop_assert_eq!(dominance(&pipe, &seq), Dominance::Proved, "{} | {}", a, b);
        let (pipe, seq) = (m(Term::pipe(s.clone(), t.clone())), m(Term::seq(s.clone(), t.clone())));
        let pool = m(Term::tpool(2u64, Term::seq(s.clone(), t.clone())));
        prop_assert_ne!(dominance(&pool, &pipe), Dominance::Refuted, "{} | {}", s, t);
        prop_assert_ne!(dominance(&pipe, &seq), Dominance::Refuted, "{} | {}", s, t);
        // The other way round, the sequence is refuted where it grows faster.
        if seq.cmp_growth(&pipe, "x") == Some(std::cmp::Ordering::Greater) {
            prop_assert_eq!(dominance(&seq, &pipe), Dominance::Refuted);
        }
    }
}

fn named(name: &str, model: &str) -> Term {
    Term::atom(name, Expr::parse(model).unwrap())
}

/// The laws on the paper's atoms.
#[test]
fn the_pipe_laws_on_table_1_atoms_and_their_negations() {
    let qsort = named("qsort", "1034.17*x*log2(x)");
    let inc = named("inc", "536.185*x");
    let nop = named("nop", "5422.97");
    assert!(Laws::POINTWISE.pipe_associative(&qsort, &inc, &nop));
    assert!(Laws::POINTWISE.pipe_commutative(&inc, &nop));
    assert!(Laws::POINTWISE.pipe_at_least_tpool2_seq(&qsort, &nop));
    // Equal stages: law (iv) holds with equality.
    assert!(Laws::POINTWISE.pipe_at_least_tpool2_seq(&inc, &inc));
    assert!(Laws::POINTWISE.pipe_idempotent(&qsort));
    assert!(Laws::POINTWISE.pipe_at_most_seq(&inc, &nop));

    // Their negations are false, at real points.
    let at = |t: Term, x: f64| Throughput::new().expr(&t).eval(&[("x", x)]).unwrap();
    // A pipeline is not a sequence: seq(inc, nop) is slower than
    // pipe(inc, nop) (59,041.47 against 53,618.5 ns at x = 100).
    let (pipe, seq) = (
        at(Term::pipe(inc.clone(), nop.clone()), 100.0),
        at(Term::seq(inc.clone(), nop.clone()), 100.0),
    );
    assert!((pipe - 53_618.5).abs() < 1e-9 && (seq - 59_041.47).abs() < 1e-9);
    assert!(seq > pipe);
    // Law (iv) is strict here: tpool_2(seq(qsort, nop)) is faster than
    // pipe(qsort, nop), so "tpool_2(seq) ≥ pipe" is false at x = 1024.
    let pool = at(
        Term::tpool(2u64, Term::seq(qsort.clone(), nop.clone())),
        1024.0,
    );
    let pipe = at(Term::pipe(qsort.clone(), nop.clone()), 1024.0);
    assert!((pipe - 1034.17 * 1024.0 * 10.0).abs() < 1e-6);
    assert!((pool - (1034.17 * 1024.0 * 10.0 + 5422.97) / 2.0).abs() < 1e-6);
    assert!(pool < pipe);
    // seq is not idempotent: seq(qsort, qsort) is twice qsort.
    let twice = at(Term::seq(qsort.clone(), qsort.clone()), 1024.0);
    assert!((twice - 2.0 * pipe).abs() < 1e-6);
    // pipe is not a sum: pipe(inc, inc) is inc, not 2·inc.
    assert!((at(Term::pipe(inc.clone(), inc.clone()), 10.0) - 5361.85).abs() < 1e-9);
}
