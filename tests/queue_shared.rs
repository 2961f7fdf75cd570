//! Designs sharing one machine in the queueing semantics
//! (`Queueing::together`): each design a class of its own elements, the
//! nodes' cores and memories shared by processor sharing. Small cases
//! worked by hand, one design as it is alone, and the fixed point's
//! conditions on random designs.

mod common;

use pattern_core::machine::{Machine, Memory};
use pattern_core::semantics::{Queueing, QueueingError, SharedPrediction};
use pattern_core::{Design, Term, strategies};
use proptest::prelude::*;

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(b.abs())
}

fn together(texts: &[&str], machine: &Machine) -> SharedPrediction {
    let designs: Vec<Design> = texts.iter().map(|t| Design::parse(t).unwrap()).collect();
    let terms: Vec<&Term> = designs.iter().map(Design::term).collect();
    Queueing::new(machine)
        .at(&[("x", 1.0)])
        .together(&terms)
        .unwrap()
}

#[test]
fn pools_beyond_the_cores_share_them_thread_by_thread() {
    // Three threads of 900 ns and one of 100 ns, always busy (free takes),
    // on two cores: every thread at half a core.
    let p = together(
        &["a = 900; tpool[3](a)", "b = 100; tpool[1](b)"],
        &Machine::new(1, 2),
    );
    assert!(close(p.nodes[0].load.slowdown, 2.0, 1e-9), "{:?}", p.nodes);
    assert!(close(p.designs[0].time_per_element, 600.0, 1e-9));
    assert!(close(p.designs[1].time_per_element, 200.0, 1e-9));
    // Alone, each had the cores to itself: 900/2 (three threads on two
    // cores) and 100.
    assert!(close(p.designs[0].alone.time_per_element, 450.0, 1e-9));
    assert!(close(p.designs[1].alone.time_per_element, 100.0, 1e-9));
    // Shares by the work each keeps busy: 3 threads' and 1 thread's.
    let shares = &p.nodes[0].core_shares;
    assert!(close(shares[0], 0.75, 1e-9) && close(shares[1], 0.25, 1e-9));
    assert!(close(p.nodes[0].load.utilization, 1.0, 1e-9));
    assert!(p.interfere());
}

#[test]
fn designs_that_fit_do_not_interfere() {
    let texts = ["a = 900; tpool[2](a)", "b = 100; pipe(b, b)"];
    let p = together(&texts, &Machine::new(1, 5));
    assert!(!p.interfere());
    let mut alone = 0.0;
    for d in &p.designs {
        assert_eq!(d.time_per_element, d.alone.time_per_element);
        alone += d.alone.nodes[0].utilization;
    }
    assert!(close(p.nodes[0].load.utilization, alone, 1e-12));
    assert!(p.nodes[0].load.utilization < 1.0);
}

#[test]
fn calls_on_memory_share_its_bandwidth_across_designs() {
    // Each call is all memory wait (2000 bytes at a core's 20 bytes/ns is
    // its 100 ns, 300 for the other); the node's memory serves one call at
    // a time: the two threads' calls alternate, each twice as long.
    let m = Machine::new(1, 2).memory(Memory::new(20.0, 20.0));
    let p = together(
        &["a = 100 [bytes = 2000]; a", "b = 300 [bytes = 6000]; b"],
        &m,
    );
    let node = &p.nodes[0].load;
    assert!(close(node.memory_slowdown, 2.0, 1e-9), "{node:?}");
    assert_eq!(node.slowdown, 1.0);
    assert!(close(p.designs[0].time_per_element, 200.0, 1e-9));
    assert!(close(p.designs[1].time_per_element, 600.0, 1e-9));
    assert!(close(p.nodes[0].memory_shares[0], 0.5, 1e-9));
}

#[test]
fn no_design_is_an_error() {
    let m = Machine::new(1, 2);
    assert_eq!(
        Queueing::new(&m).together(&[]).unwrap_err(),
        QueueingError::NoDesign
    );
    // A design's own error comes through.
    let d = Design::parse("a = 10; tpool[n](a)").unwrap();
    assert!(matches!(
        Queueing::new(&m).together(&[d.term()]),
        Err(QueueingError::Count { .. })
    ));
}

fn at() -> Vec<(&'static str, f64)> {
    vec![("x", 64.0), ("n", 3.0), ("p", 2.0)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(150)))]

    /// One design together with nothing is the design alone.
    #[test]
    fn one_design_is_itself_alone(t in strategies::shuffle_free_term(3), cores in 1usize..6) {
        let m = Machine::new(1, cores);
        let q = Queueing::new(&m).at(&at());
        let alone = q.of(&t).unwrap();
        let p = q.together(&[&t]).unwrap();
        let d = &p.designs[0];
        prop_assert!(close(d.time_per_element, alone.time_per_element, 1e-8),
            "{t}: {} vs {}", d.time_per_element, alone.time_per_element);
        prop_assert_eq!(d.alone.time_per_element, alone.time_per_element);
        prop_assert!(close(p.nodes[0].load.utilization, alone.nodes[0].utilization, 1e-8));
    }

    /// Two or three designs on one node of 1–4 cores: every core unslowed
    /// or the cores exactly full, no design faster than alone, and the
    /// order of the designs changes nothing.
    #[test]
    fn the_slowdowns_reach_their_fixed_point(
        terms in prop::collection::vec(strategies::shuffle_free_term(2), 2..=3),
        cores in 1usize..=4,
    ) {
        let m = Machine::new(1, cores);
        let refs: Vec<&Term> = terms.iter().collect();
        check_fixed_point(&Queueing::new(&m).at(&at()), &refs)?;
    }

    /// Pools and pipelines whose calls move bytes, on a memory of one or
    /// two cores' bandwidth: the cores and the memory each unslowed or
    /// exactly full.
    #[test]
    fn the_memory_reaches_its_fixed_point(
        designs in prop::collection::vec(moving_design(), 2..=3),
        cores in 1usize..=4,
        lanes in 1usize..=2,
    ) {
        let m = Machine::new(1, cores).memory(Memory::new(20.0 * lanes as f64, 20.0));
        let designs: Vec<Design> = designs.iter().map(|t| Design::parse(t).unwrap()).collect();
        let refs: Vec<&Term> = designs.iter().map(Design::term).collect();
        check_fixed_point(&Queueing::new(&m), &refs)?;
    }
}

/// A pool or a two-stage pipeline of calls of 10–1000 ns, each moving
/// bytes for up to all of its time at a core's 20 bytes per ns.
fn moving_design() -> impl Strategy<Value = String> {
    let call = (10u32..=1000, 0u32..=100).prop_map(|(ns, share)| (ns, 20 * ns * share / 100));
    (call.clone(), call, 1usize..=4, any::<bool>()).prop_map(|((a, ab), (b, bb), n, pool)| {
        let atoms = format!("a = {a} [bytes = {ab}]; b = {b} [bytes = {bb}];");
        if pool {
            format!("{atoms} tpool[{n}](seq(a, b))")
        } else {
            format!("{atoms} pipe(a, tpool[{n}](b))")
        }
    })
}

/// The fixed point's conditions for `terms` together, and the same
/// answer whatever their order.
fn check_fixed_point(q: &Queueing, terms: &[&Term]) -> Result<(), TestCaseError> {
    let p = q.together(terms).unwrap();
    for n in &p.nodes {
        let l = &n.load;
        for (u, s) in [
            (l.utilization, l.slowdown),
            (l.memory_utilization, l.memory_slowdown),
        ] {
            prop_assert!(s >= 1.0 && u <= 1.0 + 1e-8, "{terms:?}: {l:?}");
            prop_assert!(s == 1.0 || (u - 1.0).abs() <= 1e-8, "{terms:?}: {l:?}");
        }
        let sum: f64 = n.core_shares.iter().sum();
        prop_assert!(close(sum, l.utilization, 1e-12));
    }
    for d in &p.designs {
        prop_assert!(
            d.time_per_element >= d.alone.time_per_element * (1.0 - 1e-8),
            "{terms:?}: {} < {}",
            d.time_per_element,
            d.alone.time_per_element
        );
    }
    let reversed: Vec<&Term> = terms.iter().rev().copied().collect();
    let r = q.together(&reversed).unwrap();
    for (a, b) in p.designs.iter().zip(r.designs.iter().rev()) {
        prop_assert!(
            close(a.time_per_element, b.time_per_element, 1e-7),
            "{terms:?}: {} vs {}",
            a.time_per_element,
            b.time_per_element
        );
    }
    Ok(())
}
