//! The queueing semantics on a machine of several nodes: a design's
//! threads placed as the simulator places them, every demand at its
//! node's speed, each node's cores shared with its own slowdown, a
//! mapReduce's phases on `m` nodes, task groups priced with the machine's
//! communication profile. Small cases computed by hand.

mod common;

use pattern_core::comm::MachineProfile;
use pattern_core::machine::{Machine, Node};
use pattern_core::semantics::{Queueing, QueueingError, QueueingPrediction, Throughput};
use pattern_core::sim::Simulation;
use pattern_core::{Design, Expr, Term};
use proptest::prelude::*;

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(b.abs())
}

fn queued(d: &Design, m: &Machine, at: &[(&str, f64)]) -> QueueingPrediction {
    Queueing::new(m).buffer(1000).at(at).of(d.term()).unwrap()
}

/// `nodes` nodes: `(cores, speed)` each, in order.
fn machine(nodes: &[(usize, f64)]) -> Machine {
    let mut m = Machine::new(1, nodes[0].0);
    if nodes[0].1 != 1.0 {
        let json = format!(
            r#"{{"nodes": [{{"cores": {}, "speed": {}}}]}}"#,
            nodes[0].0, nodes[0].1
        );
        m = Machine::from_json(&json).unwrap();
    }
    for &(cores, speed) in &nodes[1..] {
        m = m.node(Node::new(cores).speed(speed));
    }
    m
}

#[test]
fn every_demand_at_its_nodes_speed() {
    // 1000 ns of work at speed 2 is 500 ns; 8 workers on 2 such cores do
    // an element every 250 ns, each running 4 times slower.
    let d = Design::parse("a = 1000; tpool[n](a)").unwrap();
    let fast = machine(&[(2, 2.0)]);
    let p = d.queueing(&fast, &[("n", 1.0)]).unwrap();
    assert!(close(p.time_per_element, 500.0, 1e-12));
    let p = d.queueing(&fast, &[("n", 8.0)]).unwrap();
    assert!(
        close(p.time_per_element, 250.0, 1e-9),
        "{}",
        p.time_per_element
    );
    assert!(close(p.nodes[0].slowdown, 4.0, 1e-9));
    assert!(close(p.nodes[0].utilization, 1.0, 1e-9));
    assert_eq!((p.nodes[0].cores, p.nodes[0].speed), (2, 2.0));
    assert!(close(p.nodes[0].work, 500.0, 1e-12));
}

#[test]
fn each_node_has_its_own_slowdown() {
    // pipe(par[1, 1](a, b), c) on 2 nodes of 1 core: a (100) on node 0 at
    // once with b (300) on node 1, then c (250) on node 0. Node 0 does 350
    // ns per element, node 1 300: node 0 is the bottleneck, 350 ns per
    // element; its threads slow down until the second stage, 250·s, takes
    // 350 (s = 1.4, up to the finite channels' gap of MVA); node 1 keeps
    // a core spare 1 − 300/350 of the time, unslowed.
    let d = Design::parse("a = 100; b = 300; c = 250; pipe(par[1, 1](a, b), c)").unwrap();
    let p = queued(&d, &Machine::new(2, 1), &[]);
    assert!(
        close(p.time_per_element, 350.0, 1e-12),
        "{}",
        p.time_per_element
    );
    assert!(close(p.nodes[0].slowdown, 1.4, 1e-6), "{:?}", p.nodes);
    assert_eq!(p.nodes[1].slowdown, 1.0);
    assert!(close(p.nodes[0].utilization, 1.0, 1e-12));
    assert!(close(p.nodes[1].utilization, 300.0 / 350.0, 1e-12));
    assert!(close(p.slowdown, 1.4, 1e-6));
    // The simulator runs it at the same rate.
    let r = Simulation::new(&d, &Machine::new(2, 1))
        .elements(400)
        .run()
        .unwrap();
    assert!(
        close(r.time_per_element(), 350.0, 1e-6),
        "{}",
        r.time_per_element()
    );

    // pipe(on[2](a), b) on 2 nodes of 1 core: the group's step (300) on
    // both nodes, b (100) on node 0: node 0's 400 ns decide, and every
    // demand scales with its slowdown (node 1's share of the step is
    // never the slower): the closed form, s = X(1)·400 = 4/3.
    let d = Design::parse("a = 300; b = 100; pipe(on[2](a), b)").unwrap();
    let p = queued(&d, &Machine::new(2, 1), &[]);
    assert!(close(p.time_per_element, 400.0, 1e-12));
    assert!(close(p.nodes[0].slowdown, 4.0 / 3.0, 1e-6), "{:?}", p.nodes);
    assert!(close(p.nodes[1].utilization, 0.75, 1e-12));
    let r = Simulation::new(&d, &Machine::new(2, 1))
        .elements(400)
        .run()
        .unwrap();
    assert!(
        close(r.time_per_element(), 400.0, 1e-6),
        "{}",
        r.time_per_element()
    );
}

/// `examples/data/map_reduce.design`.
fn map_reduce() -> Design {
    Design::parse(
        "map = 3*x + 40; reduce = 2*x + 500; shuffle = 0.5*x + 7*o + 900;
         mapreduce[m = m, n = n, d = x/8, k = 64](map, shuffle, reduce)",
    )
    .unwrap()
}

#[test]
fn a_map_reduce_on_m_nodes() {
    // At x = 10^6: the map is 3 + 40 = 43 ns per element, 4.3e7 in all;
    // the reduce 64 keys of d = 125,000 elements, 2·125,000 + 500 =
    // 250,500 ns each, 16,032,000 in all; the shuffle 0.5·125,000 + 7·64
    // + 900 = 63,848 ns.
    let d = map_reduce();
    let m = Machine::new(8, 8);
    let at = |mm: f64, n: f64| [("x", 1e6), ("m", mm), ("n", n)];
    // 64 workers on one node of 8 cores: each phase on 8 cores.
    let one = d.queueing(&m, &at(1.0, 64.0)).unwrap().time_per_element;
    assert!(
        close(one, 4.3e7 / 8.0 + 63_848.0 + 16_032_000.0 / 8.0, 1e-12),
        "{one}"
    );
    assert!(close(one, 7_442_848.0, 1e-12));
    // 8 workers on each of 8 nodes: 64 cores.
    let eight = d.queueing(&m, &at(8.0, 8.0)).unwrap().time_per_element;
    assert!(close(eight, 986_223.0, 1e-12), "{eight}");
    // About 8 times faster (7.55: the shuffle does not shrink).
    assert!(close(one / eight, 7.546_9, 1e-4), "{}", one / eight);
    // The simulator says the same, to the ns.
    for (mm, n, want) in [(1.0, 64.0, one), (8.0, 8.0, eight)] {
        let r = Simulation::new(&d, &m)
            .at(&at(mm, n))
            .elements(3)
            .run()
            .unwrap();
        assert!(
            close(r.time_per_element(), want, 1e-12),
            "m = {mm}: {}",
            r.time_per_element()
        );
    }
    // A mapReduce of 9 nodes on 8 is an error naming both.
    let err = d.queueing(&m, &at(9.0, 1.0)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the design asks for 9 nodes (`mapReduce[9, 1]`), the machine has 8"
    );
    assert!(matches!(
        err,
        QueueingError::Nodes {
            asked: 9,
            available: 8,
            ..
        }
    ));
}

#[test]
fn a_map_reduce_waits_for_its_slowest_node() {
    // Node 0: 4 cores at speed 1; node 1: 2 cores at speed 1.5. Two maps of
    // 4 workers each, a split of x = 1200 elements of 1000 ns: node 0 does
    // 600 elements on 4 cores, 150,000 ns; node 1 on 2 cores 1.5 times as
    // fast, 200,000 ns. The reduce of 64 keys of 10 ns likewise: 80 and
    // 106.67 ns. With the shuffle's 5000 ns: 205,106.67 ns.
    let d = Design::parse(
        "map = 1000; reduce = 10; shuffle = 5000; mapreduce[m = 2, n = 4, d = x/8, k = 64](map, shuffle, reduce)",
    )
    .unwrap();
    let m = machine(&[(4, 1.0), (2, 1.5)]);
    let at = [("x", 1200.0)];
    let want = 200_000.0 + 5000.0 + 640.0 / 6.0;
    let p = d.queueing(&m, &at).unwrap();
    assert!(
        close(p.time_per_element, want, 1e-12),
        "{}",
        p.time_per_element
    );
    // Node 1 keeps its 2 cores busy for 1.2e6/2/1.5 + 640/2/1.5 core·ns.
    assert!(close(p.nodes[1].work, (600_000.0 + 320.0) / 1.5, 1e-12));
    let r = Simulation::new(&d, &m).at(&at).elements(3).run().unwrap();
    assert!(
        close(r.time_per_element(), want, 1e-12),
        "{}",
        r.time_per_element()
    );
}

#[test]
fn task_groups_on_their_nodes() {
    let m = Machine::new(4, 2).latency(100.0).bandwidth(2.0);
    // allgather(p, b) on the network's profile: 100·p + p·b/2 ns. On 4
    // nodes: 4000/4 + 400 + 1600 = 3000 ns per element, one core of each
    // node busy, as the throughput semantics prices it.
    let d = Design::parse("a = 4000 / p + allgather(p, 800); on[4](a)").unwrap();
    let p = d.queueing(&m, &[]).unwrap();
    assert!(
        close(p.time_per_element, 3000.0, 1e-12),
        "{}",
        p.time_per_element
    );
    assert_eq!(p.nodes.len(), 4);
    assert!(p.nodes.iter().all(|n| close(n.utilization, 0.5, 1e-12)));
    let profile = m.communication();
    let throughput = d.model_by(&Throughput::new().machine(&profile)).unwrap();
    assert!(close(throughput.eval(&[]).unwrap(), 3000.0, 1e-12));

    // par[2, 2](a, b): a on nodes 0-1, b on nodes 2-3, at once; node 1
    // at half speed holds a back.
    let d = Design::parse("a = 1000 / p; b = 600 / p; par[2, 2](a, b)").unwrap();
    assert!(close(
        d.queueing(&Machine::new(4, 1), &[])
            .unwrap()
            .time_per_element,
        500.0,
        1e-12
    ));
    let slow = machine(&[(1, 1.0), (1, 0.5), (1, 1.0), (1, 1.0)]);
    assert!(close(
        d.queueing(&slow, &[]).unwrap().time_per_element,
        1000.0,
        1e-12
    ));
    // groups of 2 on 4 processors, then a redistribution of 200 ns.
    let d =
        Design::parse("a = 1000 / p; b = 50; on[4](seq[redist = 200](groups[2](a), b))").unwrap();
    let p = d.queueing(&Machine::new(4, 1), &[]).unwrap();
    assert!(
        close(p.time_per_element, 500.0 + 200.0 + 50.0, 1e-12),
        "{}",
        p.time_per_element
    );
    // The simulator agrees where no communication function is called.
    let r = Simulation::new(&d, &Machine::new(4, 1))
        .elements(5)
        .run()
        .unwrap();
    assert!(
        close(r.time_per_element(), 750.0, 1e-12),
        "{}",
        r.time_per_element()
    );
    // More processors than nodes: an error naming both.
    let d = Design::parse("a = 1000 / p; on[8](a)").unwrap();
    assert_eq!(
        d.queueing(&Machine::new(4, 1), &[])
            .unwrap_err()
            .to_string(),
        "the design asks for 8 nodes (`on[8](a)`), the machine has 4"
    );
}

#[test]
fn concurrent_groups_pay_the_profiles_contention() {
    let d =
        Design::parse("a = 1000 / p + allgather(p, 8000 / p); on[64](par[16, 48](a, a))").unwrap();
    // The network's own profile has no contention factor: a clear error.
    let err = d.queueing(&Machine::new(64, 1), &[]).unwrap_err();
    assert!(matches!(err, QueueingError::Comm { .. }), "{err}");
    assert!(err.to_string().contains("contention"), "{err}");
    // The T3E's has one: the queueing time is the throughput semantics'
    // with that profile (one thread, one element at a time).
    let t3e = MachineProfile::t3e();
    let m = Machine::new(64, 1).comm_profile(t3e.clone());
    let want = d
        .model_by(&Throughput::new().machine(&t3e))
        .unwrap()
        .eval(&[])
        .unwrap();
    let got = d.queueing(&m, &[]).unwrap().time_per_element;
    assert!(close(got, want, 1e-12), "{got} vs {want}");
}

#[test]
fn a_pipe_inside_a_group_is_refused_as_the_simulator_refuses_it() {
    let d = Design::parse("a = 1; on[2](pipe(a, a))").unwrap();
    assert!(matches!(
        d.queueing(&Machine::new(2, 1), &[]),
        Err(QueueingError::Unsupported { .. })
    ));
}

/// A machine of 1–4 nodes of 1–8 cores at speeds 0.5–2.
fn machines() -> impl Strategy<Value = Machine> {
    prop::collection::vec((1usize..=8, 1u32..=4), 1..=4).prop_map(|nodes| {
        let speeds = [0.5, 1.0, 1.5, 2.0];
        let nodes: Vec<(usize, f64)> = nodes
            .iter()
            .map(|&(c, s)| (c, speeds[s as usize - 1]))
            .collect();
        machine(&nodes)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(200)))]

    /// A mapReduce alone: the queueing time is the simulator's, to
    /// rounding, on homogeneous and heterogeneous machines.
    #[test]
    fn a_map_reduce_agrees_with_the_simulator(
        m in machines(),
        mm in 1usize..=4,
        n in 1usize..=12,
        map in pattern_core::strategies::atom_model(),
        reduce in pattern_core::strategies::atom_model(),
        shuffle in pattern_core::strategies::shuffle(),
        x in prop::sample::select(vec![16.0, 1000.0, 65536.0]),
    ) {
        prop_assume!(mm <= m.nodes());
        let t = Term::map_reduce(
            pattern_core::MapReduceParams::new(mm as u64, n as u64, Expr::var("x"), Expr::num(768.0)),
            Term::atom("map", map),
            shuffle,
            Term::atom("reduce", reduce),
        );
        let d = Design::from_term(t).unwrap();
        let at = [("x", x)];
        let q = d.queueing(&m, &at).unwrap().time_per_element;
        let r = Simulation::new(&d, &m).at(&at).elements(3).run().unwrap().time_per_element();
        prop_assert!(close(q, r, 1e-9), "{d}: queueing {q}, simulated {r}");
    }
}

/// A stage of constant atoms (100–1000 ns), at once on nodes `0..k` one
/// each (`par[1, ..]`) or alone on node 0, in a pool of 1–3 workers or
/// not.
fn placed_stage() -> impl Strategy<Value = Term> {
    (prop::collection::vec(100u32..=1000, 1..=3), 1u64..=3).prop_map(|(ns, n)| {
        let atoms: Vec<Term> = (ns.iter())
            .map(|&t| Term::atom(&format!("a{t}"), Expr::num(t as f64)))
            .collect();
        let stage = match atoms.len() {
            1 => atoms[0].clone(),
            k => Term::Par(vec![1u64.into(); k], atoms),
        };
        if n > 1 { Term::tpool(n, stage) } else { stage }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(200)))]

    /// Pipelines of stages spread on up to 3 nodes, on 3 or 4 nodes of
    /// 1–3 cores at speeds 0.5–2: the slowdowns reach their fixed point
    /// (every node unslowed or exactly saturated, the network's throughput
    /// the reported one), however unequal the nodes' shares of a stage.
    #[test]
    fn the_slowdowns_reach_their_fixed_point(
        stages in prop::collection::vec(placed_stage(), 1..=4),
        nodes in prop::collection::vec((1usize..=3, 0usize..4), 3..=4),
        buffer in 1usize..=8,
    ) {
        let speeds = [0.5, 1.0, 1.5, 2.0];
        let m = machine(&nodes.iter().map(|&(c, s)| (c, speeds[s])).collect::<Vec<_>>());
        let t = if stages.len() == 1 { stages[0].clone() } else { Term::pipe_all(stages).unwrap() };
        let Ok(d) = Design::from_term(t) else { return Ok(()) }; // (one name, two costs)
        let q = Queueing::new(&m).buffer(buffer).of(d.term()).unwrap();
        let x = q.solution.throughput();
        // (to the search's tolerance, 1e-9 in the throughput)
        prop_assert!((x * q.time_per_element - 1.0).abs() <= 1e-8, "{d}: {} vs {}", 1.0 / x, q.time_per_element);
        let mut saturated = false;
        for n in &q.nodes {
            prop_assert!(n.slowdown >= 1.0);
            prop_assert!(n.slowdown == 1.0 || (n.utilization - 1.0).abs() <= 1e-8, "{d}: {n:?}");
            saturated |= (n.utilization - 1.0).abs() <= 1e-8;
            prop_assert!(q.time_per_element >= n.work / n.cores as f64 * (1.0 - 1e-12));
        }
        // Slowed only where the busiest node is full.
        prop_assert!(q.slowdown == 1.0 || saturated, "{d}");
    }
}
