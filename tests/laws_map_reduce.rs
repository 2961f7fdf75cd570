//! The mapReduce degenerations: one worker (m·n = 1) is the sequence of the
//! phases, GrPPi's form (eq. 6) is a task pool over map-then-reduce, and
//! with a shuffle that depends on m·n only the number of workers counts.
//! 1,000 cases each.
mod common;

use pattern_core::laws::Laws;
use pattern_core::paper;
use pattern_core::strategies::{count, map_reduce_params, shuffle, shuffle_free_term};
use pattern_core::{Design, Expr, Term};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(1000)))]

    #[test]
    fn one_worker_runs_the_phases_in_sequence(
        map in shuffle_free_term(2),
        s in shuffle(),
        reduce in shuffle_free_term(2),
        p in map_reduce_params(),
    ) {
        prop_assert!(
            Laws::POINTWISE.map_reduce_single_worker(&map, &s, &reduce, &p.d, &p.k),
            "{map} | {} | {reduce} | d = {}, k = {}", s.model, p.d, p.k
        );
    }

    #[test]
    fn grppi_is_a_pool_over_map_then_reduce(
        n in count(),
        map in shuffle_free_term(2),
        reduce in shuffle_free_term(2),
        p in map_reduce_params(),
    ) {
        prop_assert!(Laws::POINTWISE.map_reduce_grppi(n.clone(), &map, &reduce, &p.d), "{n}: {map} | {reduce}");
    }

    #[test]
    fn only_the_number_of_workers_counts(
        m in 1u64..=24,
        n in 1u64..=24,
        map in shuffle_free_term(1),
        s in shuffle().prop_filter("a shuffle of m·n", |s| !s.name.starts_with("shuffle_nodes")),
        reduce in shuffle_free_term(1),
        p in map_reduce_params(),
    ) {
        prop_assert!(Laws::POINTWISE.map_reduce_workers(m, n, &map, &s, &reduce, &p.d, &p.k));
    }
}

fn atom(name: &str, model: &str) -> Term {
    Term::atom(name, Expr::parse(model).unwrap())
}

/// Eq. (6) from the law: GrPPi's design equals the pool of Table 1's atoms,
/// 2.186e7·x/n.
#[test]
fn grppi_on_table_1() {
    let map = atom("map_grppi", "1.241e7");
    let reduce = atom("reduce_grppi", "9.449e6");
    let d = Expr::num(768.0);
    for n in ["1", "24", "n"] {
        assert!(Laws::POINTWISE.map_reduce_grppi(n, &map, &reduce, &d));
        let design = Design::parse(&paper::grppi_design(n)).unwrap();
        let per_thread = design.model().eval(&[("x", 1.0), ("n", 1.0)]).unwrap();
        let threads = n.parse::<f64>().unwrap_or(1.0);
        assert!(
            (per_thread * threads - 2.1859e7).abs() < 1.0,
            "{n}: {per_thread}"
        );
    }
}

/// Hadoop's shuffle (eq. 7) depends on m·n only: 4 nodes of 6 threads are
/// 24 threads on one node.
#[test]
fn hadoop_only_counts_workers() {
    let hadoop = Design::parse(&paper::hadoop_design("m", "n")).unwrap();
    let Term::MapReduce {
        params,
        map,
        shuffle,
        reduce,
    } = hadoop.term()
    else {
        panic!("a mapReduce");
    };
    assert!(Laws::POINTWISE.map_reduce_workers(4, 6, map, shuffle, reduce, &params.d, &params.k));
    assert!(Laws::POINTWISE.map_reduce_single_worker(map, shuffle, reduce, &params.d, &params.k));
}
