//! The simulator on machines whose nodes differ: each node's cores and
//! speed in flow graphs and designs (exact cases by hand), pinned threads
//! on nodes of different core counts, and a design or graph naming a node
//! the machine lacks.

use pattern_core::Design;
use pattern_core::machine::{Machine, Node};
use pattern_core::sim::{SimError, Simulation, TaskGraph};

/// A machine of the nodes `groups` (count, cores, speed), from its file
/// format (the builder starts with a group at speed 1).
fn machine(groups: &[(usize, usize, f64)]) -> Machine {
    let nodes: Vec<String> = (groups.iter())
        .map(|(count, cores, speed)| {
            format!("{{\"count\": {count}, \"cores\": {cores}, \"speed\": {speed}}}")
        })
        .collect();
    Machine::from_json(&format!("{{\"nodes\": [{}]}}", nodes.join(", "))).unwrap()
}

#[test]
fn a_node_twice_as_fast_halves_a_step_in_a_graph() {
    // Node 0: one core at speed 1; node 1: one core at speed 2.
    let m = Machine::new(1, 1).node(Node::new(1).speed(2.0));
    let mut g = TaskGraph::new();
    let slow = g.compute(0, 10.0, &[]);
    let fast = g.compute(1, 10.0, &[]);
    // After `fast`, two steps of 10 ns share the fast core: each at half of
    // speed 2, one ns of work per ns, 10 ns more.
    let shared: Vec<_> = (0..2).map(|_| g.compute(1, 10.0, &[fast])).collect();
    let r = Simulation::graph(&g, &m).run().unwrap();
    assert_eq!(r.finish(slow), 10.0);
    assert_eq!(r.finish(fast), 5.0);
    for s in shared {
        assert_eq!(r.finish(s), 15.0);
    }
    // Busy time is work over speed: node 1 was busy 15 of 15 ns.
    assert_eq!(r.core_utilization(), vec![10.0 / 15.0, 1.0]);
}

#[test]
fn a_node_twice_as_fast_halves_a_designs_steps() {
    // pipe(a, b), a = 10, b = 30, on one node of 2 cores at speed 2: the
    // first element through in (10 + 30)/2, then one every 30/2.
    let d = Design::parse("a = 10; b = 30; pipe(a, b)").unwrap();
    let r = Simulation::new(&d, &machine(&[(1, 2, 2.0)]))
        .elements(100)
        .run()
        .unwrap();
    assert_eq!(r.makespan(), 20.0 + 99.0 * 15.0);
    assert_eq!(r.time_per_element(), 15.0);
    // A mapReduce over a slow and a fast node: the map and the reduce end
    // when the slow node's share does. m = 2, n = 1: each node's share of
    // the map is x·map(1)/2 = 40 ns at speed 1 (20 at speed 2), of the
    // reduce k·reduce(d)/2 = 6 ns (3); the shuffle is a delay of 5.
    let mr = Design::parse(
        "map = 80; shuffle = 5; reduce = 12*x; mapreduce[m = 2, n = 1, d = x, k = 1](map, shuffle, reduce)",
    )
    .unwrap();
    let at = [("x", 1.0)];
    let one = |m: &Machine| Simulation::new(&mr, m).at(&at).run().unwrap().makespan();
    assert_eq!(one(&machine(&[(1, 1, 1.0), (1, 1, 2.0)])), 40.0 + 5.0 + 6.0);
    assert_eq!(one(&machine(&[(1, 1, 2.0), (1, 1, 2.0)])), 20.0 + 5.0 + 3.0);
    // Eq. 5 holds at speed 1, the operators' speed.
    assert_eq!(one(&Machine::new(2, 1)), mr.model().eval(&at).unwrap());
}

#[test]
fn pinned_workers_share_the_cores_they_are_pinned_to() {
    // mapreduce[m = 2, n = 12] on a node of 8 cores next to one of 16,
    // x = 1: each worker's share of the map is 24/24 = 1 ns, of the reduce
    // 24/24 = 1 ns. Node 1 runs its 12 workers on 12 of its 16 cores: 1 ns
    // each phase. On node 0, pinned, workers 8..11 go to cores 0..3 with
    // workers 0..3: those take 2 ns; unpinned, 12 workers share 8 cores,
    // 1.5 ns each.
    let d = Design::parse(
        "map = 24; shuffle = 0; reduce = 24*x; mapreduce[m = 2, n = 12, d = x, k = 1](map, shuffle, reduce)",
    )
    .unwrap();
    let at = [("x", 1.0)];
    let m = Machine::new(1, 8).node(Node::new(16));
    let one = |m: &Machine| Simulation::new(&d, m).at(&at).run().unwrap().makespan();
    assert_eq!(one(&m.clone().with_waiting(|w| w.pinned(true))), 4.0);
    assert_eq!(one(&m), 3.0);
    // The 16 cores first: node 1, of 8, is the slow one now.
    let wide = Machine::new(1, 16).node(Node::new(8));
    assert_eq!(one(&wide.clone().with_waiting(|w| w.pinned(true))), 4.0);
    assert_eq!(one(&wide), 3.0);
    // With 8 workers per node, every worker has a core of its own: 3 + 3.
    let d8 = Design::parse(
        "map = 24; shuffle = 0; reduce = 24*x; mapreduce[m = 2, n = 8, d = x, k = 1](map, shuffle, reduce)",
    )
    .unwrap();
    let r = Simulation::new(&d8, &m.with_waiting(|w| w.pinned(true)))
        .at(&at)
        .run()
        .unwrap();
    assert_eq!(r.makespan(), 1.5 + 1.5);
}

#[test]
fn a_node_the_machine_lacks_is_an_error() {
    let two = Machine::new(1, 4).node(Node::new(8).speed(2.0));
    let mut g = TaskGraph::new();
    g.transfer(0, 2, 1.0, &[]);
    assert_eq!(
        Simulation::graph(&g, &two).run().unwrap_err(),
        SimError::UnknownNode {
            task: 0,
            node: 2,
            nodes: 2
        }
    );
    for src in [
        "map = 1; shuffle = 0; reduce = 1; mapreduce[m = 3, n = 1, d = 1, k = 1](map, shuffle, reduce)",
        "a = 1/p; on[3](a)",
        "a = 1/p; b = 1/p; on[4](par[2, 1](a, b))",
    ] {
        let d = Design::parse(src).unwrap();
        let err = Simulation::new(&d, &two)
            .at(&[("x", 1.0)])
            .run()
            .unwrap_err();
        assert!(
            matches!(err, SimError::NotEnoughNodes { nodes: 2, needed } if needed > 2),
            "{src}: {err}"
        );
    }
}
