//! The latency semantics against the throughput model: with one worker
//! everywhere, an element cannot pass through a design faster than the
//! design emits elements, so the latency is at least the time per element,
//! for designs of every pattern. And a mapReduce's element is a whole job:
//! its latency is the job's time, eq. (5).
mod common;

use pattern_core::strategies::{atom, coefficient, map_reduce_params, shuffle};
use pattern_core::{Count, Design, Expr, Term};
use proptest::prelude::*;

/// The count of every pattern here: one worker, one node, one processor.
fn one() -> Count {
    Count::Fixed(1)
}

/// `tpool[1](t)`, with a mapReduce inside demoted to `seq(map, reduce)`
/// (a task pool cannot hold a shuffle, seed 001 §3.2).
fn pool_of_one(t: Term) -> Term {
    fn demote(t: &Term) -> Term {
        match t {
            Term::MapReduce { map, reduce, .. } => Term::seq(demote(map), demote(reduce)),
            other => other.map_children(demote),
        }
    }
    Term::tpool(1u64, demote(&t))
}

/// A mapReduce on one node of one worker over atoms.
fn map_reduce_of_one() -> impl Strategy<Value = Term> {
    (map_reduce_params(), atom(), shuffle(), atom()).prop_map(|(mut params, map, s, reduce)| {
        params.m = one();
        params.n = one();
        Term::map_reduce(params, map, s, reduce)
    })
}

/// Designs of every pattern with every count 1, at most `depth` patterns
/// above the atoms and mapReduces: seq, pipe, tpool, on, par (of one or
/// two parts), groups and seq with a redistribution. Terms with more
/// processors than a group has (a `par` of two parts inside a group of
/// one) are left out.
fn design_of_one(depth: u32) -> impl Strategy<Value = Design> {
    let leaf = prop_oneof![4 => atom(), 1 => map_reduce_of_one()];
    leaf.prop_recursive(depth, 1 << depth, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Term::seq(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Term::pipe(a, b)),
            inner.clone().prop_map(pool_of_one),
            inner.clone().prop_map(|t| Term::On(one(), Box::new(t))),
            prop::collection::vec(inner.clone(), 1..=2)
                .prop_map(|parts| Term::Par(vec![one(); parts.len()], parts)),
            inner.clone().prop_map(|t| Term::Groups(one(), Box::new(t))),
            (coefficient(), inner.clone(), inner).prop_map(|(c, a, b)| {
                Term::Redist(c * Expr::var("x"), Box::new(a), Box::new(b))
            }),
        ]
    })
    .prop_filter_map("more processors than the group has", |t| {
        Design::from_term(t).ok()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(400)))]

    /// Both models in normal form, evaluated at the point (x and the
    /// processors `p`, 1): the latency is at least the time per element,
    /// to the rounding of the normal form.
    #[test]
    fn with_one_worker_the_latency_is_at_least_the_time_per_element(
        design in design_of_one(3),
        log_x in 0.0f64..24.0,
    ) {
        let at = [("x", log_x.exp2()), ("p", 1.0)];
        let time = design.model().eval(&at).unwrap();
        let latency = design.latency().eval(&at).unwrap();
        prop_assert!(time.is_finite() && time >= 0.0, "{design}: {time}");
        prop_assert!(
            latency >= time * (1.0 - 1e-9),
            "{design} at {at:?}: latency {latency} < time per element {time}"
        );
    }
}

#[test]
fn a_map_reduce_job_takes_its_time_per_element_as_its_latency() {
    // examples/data/map_reduce.design on one worker, x = 10^6: 43·x maps,
    // the shuffle 0.0625·x + 1348, 64 reduces of 2·x/8 + 500.
    let d = Design::parse(
        "map = 3*x + 40; reduce = 2*x + 500; shuffle = 0.5*x + 7*o + 900;
         mapreduce[m = m, n = n, d = x/8, k = 64](map, shuffle, reduce)",
    )
    .unwrap();
    let at = [("x", 1e6), ("m", 1.0), ("n", 1.0)];
    let job = 43e6 + (0.0625e6 + 1348.0) + 64.0 * (2e6 / 8.0 + 500.0);
    assert_eq!(job, 59_095_848.0);
    assert_eq!(d.model().eval(&at).unwrap(), job);
    assert_eq!(d.latency().eval(&at).unwrap(), job);
    // On m·n = 8 workers the maps and reduces are shared, the shuffle not.
    let at = [("x", 1e6), ("m", 2.0), ("n", 4.0)];
    let shared = (43e6 + 64.0 * (2e6 / 8.0 + 500.0)) / 8.0 + 0.0625e6 + 1348.0;
    assert!((d.latency().eval(&at).unwrap() - shared).abs() <= 1e-9 * shared);
    // In a pipeline, the job and then the next stage.
    let piped = Design::parse(
        "map = 3*x + 40; reduce = 2*x + 500; shuffle = 0.5*x + 7*o + 900; clear = 1000;
         pipe(mapreduce[m = 1, n = 1, d = x/8, k = 64](map, shuffle, reduce), clear)",
    )
    .unwrap();
    let at = [("x", 1e6)];
    assert_eq!(piped.latency().eval(&at).unwrap(), job + 1000.0);
    assert_eq!(piped.model().eval(&at).unwrap(), job);
}
