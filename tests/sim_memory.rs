//! A node's memory in the simulator (`Machine::memory`, an atom's
//! `[bytes = ...]`): a step's memory part runs after its cores' part on the
//! node's memory, `k` parts at once each at `min(1, lanes/k)` (lanes at
//! most the cores), holding its core meanwhile; without a memory or
//! without bytes, runs are as before, bit for bit.
mod common;

use pattern_core::Design;
use pattern_core::machine::{Machine, Memory, Node};
use pattern_core::sim::{SimError, SimResult, Simulation};
use proptest::prelude::*;

fn run(src: &str, m: &Machine, elements: usize) -> SimResult {
    let d = Design::parse(src).unwrap();
    Simulation::new(&d, m)
        .at(&[("x", 1.0)])
        .elements(elements)
        .run()
        .expect("a design the simulator runs")
}

/// The time per element of a steady run of `src` on `m`.
fn per_element(src: &str, m: &Machine) -> f64 {
    let r = run(src, m, 1000);
    assert!(r.steady_state().unwrap().steady, "{src}: not steady");
    r.time_per_element()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs()
}

#[test]
fn two_calls_on_one_lane_share_it() {
    // Each call alone is 100 ns, all of it memory (2000 bytes at 20 per
    // ns): two at once on one lane each go at half speed, 200 ns for two.
    let src = "inc = 100 [bytes = 2000]; tpool[2](inc)";
    let one_lane = Machine::new(1, 2).memory(Memory::new(20.0, 20.0));
    let t = per_element(src, &one_lane);
    assert!(close(t, 100.0), "{t}");
    assert!(close(per_element(src, &Machine::new(1, 2)), 50.0));
    // A call waiting on memory holds its core, counted as its wait alone
    // (100 ns per element on two cores per 100 ns), as the queueing
    // semantics counts it.
    let r = run(src, &one_lane, 1000);
    assert_eq!(r.core_utilization(), vec![0.5]);
    // Makespan: 500 rounds of 200 ns.
    assert!(close(r.makespan(), 500.0 * 200.0), "{}", r.makespan());
}

#[test]
fn two_lanes_serve_two_calls_at_full_speed() {
    let src = "inc = 100 [bytes = 2000]; tpool[2](inc)";
    let two_lanes = Machine::new(1, 2).memory(Memory::new(40.0, 20.0));
    let t = per_element(src, &two_lanes);
    assert!(close(t, 50.0), "{t}");
}

#[test]
fn a_call_of_cores_then_memory() {
    // 1000 bytes at 20 per ns: 50 ns of memory, 50 on the cores. Both
    // workers' cores' parts run at once (two cores) to 50 ns, then both
    // memory parts share one lane: 100 ns more. Two elements per 150 ns.
    let src = "a = 100 [bytes = 1000]; tpool[2](a)";
    let m = Machine::new(1, 2).memory(Memory::new(20.0, 20.0));
    let t = per_element(src, &m);
    assert!(close(t, 75.0), "{t}");
    // Each call's 100 ns alone (50 worked, 50 held) per 75 on two cores.
    let r = run(src, &m, 1000);
    let u = r.core_utilization()[0];
    assert!((u - 100.0 / 150.0).abs() < 1e-3, "{u}");
}

#[test]
fn the_memory_part_does_not_run_faster_on_faster_cores() {
    // At speed 2 the cores' 50 ns take 25; the memory's 50 stay 50.
    let src = "a = 100 [bytes = 1000]; a";
    let m = Machine::of(Node::new(1).speed(2.0).memory(Memory::new(20.0, 20.0)));
    let t = per_element(src, &m);
    assert!(close(t, 75.0), "{t}");
    // No memory: 50.
    let t = per_element(src, &Machine::of(Node::new(1).speed(2.0)));
    assert!(close(t, 50.0), "{t}");
}

#[test]
fn a_multi_node_step_waits_on_each_nodes_own_memory() {
    // `on[2](a)` runs a on nodes 0 and 1 at once. Node 0 has no memory:
    // 50 ns at speed 2. Node 1 has one: 25 + 50. The step ends with the
    // later, 75.
    let src = "a = 100 [bytes = 1000]; on[2](a)";
    let fast = Node::new(1).speed(2.0);
    let m = Machine::of(fast).node(fast.memory(Memory::new(20.0, 20.0)));
    assert_eq!(m.nodes(), 2);
    let t = per_element(src, &m);
    assert!(close(t, 75.0), "{t}");
    // Both nodes with the memory: 75 as well; neither: 50.
    let both = Machine::of(fast.count(2)).memory(Memory::new(20.0, 20.0));
    assert!(close(per_element(src, &both), 75.0));
    assert!(close(per_element(src, &Machine::of(fast.count(2))), 50.0));
}

#[test]
fn calls_waiting_on_memory_hold_their_cores() {
    // Four workers on two cores, all of each call on four lanes' worth of
    // memory: a call waiting on memory holds its core, so two run at once
    // and the memory serves at most two: 50 ns per element, as without
    // the memory. The capacity bound counts the held cores as work.
    let src = "a = 100 [bytes = 2000]; tpool[4](a)";
    let m = Machine::new(1, 2).memory(Memory::new(80.0, 20.0));
    let r = run(src, &m, 1000);
    let s = r.steady_state().unwrap();
    assert!(s.steady, "{s:?}");
    assert!(close(s.bound, 50.0), "{}", s.bound);
    assert!(
        close(r.time_per_element(), 50.0),
        "{}",
        r.time_per_element()
    );
    // One lane: the memory decides, 100 ns per element.
    let one_lane = Machine::new(1, 2).memory(Memory::new(20.0, 20.0));
    let s = run(src, &one_lane, 1000).steady_state().unwrap();
    assert!(close(s.bound, 100.0) && close(s.slope, 100.0), "{s:?}");
}

/// Everything a run reports that a memory could change.
fn summary(r: &SimResult) -> (f64, f64, Vec<f64>, Option<f64>, u64) {
    (
        r.makespan(),
        r.time_per_element(),
        r.core_utilization(),
        r.latency_percentile(50.0),
        r.events(),
    )
}

#[test]
fn no_bytes_or_no_memory_change_nothing() {
    let memory = Memory::new(30.0, 20.0);
    let designs = [
        (
            "a = 100; b = 40; pipe(tpool[3](a), b)",
            "a = 100 [bytes = 1000]; b = 40 [bytes = 5000]; pipe(tpool[3](a), b)",
        ),
        (
            "a = 100*x; b = 7; tpool[5](seq(a, b))",
            "a = 100*x [bytes = 300*x]; b = 7 [bytes = 70]; tpool[5](seq(a, b))",
        ),
        (
            "a = 10; b = 30; seq(tpool[4](a), b)",
            "a = 10 [bytes = 1e9]; b = 30 [bytes = 0]; seq(tpool[4](a), b)",
        ),
    ];
    for (plain, moving) in designs {
        for cores in [1, 2, 4] {
            let bare = Machine::new(1, cores);
            let before = summary(&run(plain, &bare, 200));
            // No bytes on a machine with a memory.
            let with_memory = bare.clone().memory(memory);
            assert_eq!(summary(&run(plain, &with_memory, 200)), before, "{plain}");
            // Bytes on a machine without one.
            assert_eq!(summary(&run(moving, &bare, 200)), before, "{moving}");
        }
    }
}

#[test]
fn bytes_with_no_value_are_an_error_naming_the_atom() {
    let m = Machine::new(1, 1).memory(Memory::new(20.0, 20.0));
    for bytes in ["8*x - 100", "1/(x - 1)"] {
        let src = format!("inc = 100 [bytes = {bytes}]; tpool[2](inc)");
        let d = Design::parse(&src).unwrap();
        let err = Simulation::new(&d, &m)
            .at(&[("x", 1.0)])
            .elements(10)
            .run()
            .unwrap_err();
        match &err {
            SimError::Model { atom, .. } => assert_eq!(atom, "inc"),
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().contains("`inc`"), "{err}");
        assert!(err.to_string().contains("bytes"), "{err}");
        // On a machine without a memory too: the design is wrong.
        let err = Simulation::new(&d, &Machine::new(1, 1))
            .at(&[("x", 1.0)])
            .elements(10)
            .run();
        assert!(matches!(err, Err(SimError::Model { .. })), "{err:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// With no more threads than cores and at least a lane per core, no
    /// call ever waits for a core or for the memory: the memory changes
    /// nothing (but rounding).
    #[test]
    fn enough_lanes_change_nothing(
        a in 1.0f64..1000.0,
        b in 1.0f64..1000.0,
        bytes_a in 0.0f64..1e5,
        bytes_b in 0.0f64..1e5,
        core_bw in 1.0f64..100.0,
        cores in 1usize..=8,
        spare in 0.0f64..3.0,
        threads in 1usize..=8,
        pipe in any::<bool>(),
    ) {
        let (plain, moving) = if pipe {
            prop_assume!(cores >= 2);
            (
                format!("a = {a}; b = {b}; pipe(a, b)"),
                format!("a = {a} [bytes = {bytes_a}]; b = {b} [bytes = {bytes_b}]; pipe(a, b)"),
            )
        } else {
            let n = threads.min(cores);
            (
                format!("a = {a}; tpool[{n}](a)"),
                format!("a = {a} [bytes = {bytes_a}]; tpool[{n}](a)"),
            )
        };
        let bare = Machine::new(1, cores);
        let lanes = cores as f64 + spare;
        let with_memory = bare.clone().memory(Memory::new(core_bw * lanes, core_bw));
        let before = run(&plain, &bare, 200).time_per_element();
        let after = run(&moving, &with_memory, 200).time_per_element();
        prop_assert!(close(after, before), "{} vs {}", after, before);
    }
}

/// Elements of up to 2000 bytes handed over at 100 bytes per ns.
fn handing(lanes: f64) -> Machine {
    let curve = pattern_core::machine::Handed::new(&[(2000.0, 100.0)]).unwrap();
    Machine::new(1, 2).memory(Memory::new(20.0 * lanes, 20.0).with_handed(curve))
}

#[test]
fn a_pipes_later_stages_take_their_elements_from_the_caches() {
    // As in the queueing semantics: b's bytes from a's caches in 20 ns on
    // its core, the run the same as with a stage of 20 ns moving nothing,
    // bit for bit, and faster than from memory.
    let pipe = "a = 100 [bytes = 2000]; b = 100 [bytes = 2000]; pipe(a, b)";
    let same = "a = 100 [bytes = 2000]; b = 20; pipe(a, b)";
    assert_eq!(
        summary(&run(pipe, &handing(1.0), 500)),
        summary(&run(same, &handing(1.0), 500))
    );
    let from_memory = Machine::new(1, 2).memory(Memory::new(20.0, 20.0));
    let (handed, cold) = (
        per_element(pipe, &handing(1.0)),
        per_element(pipe, &from_memory),
    );
    // The memory alone sets the pace: 100 ns a call for a, both a and b.
    assert!(close(handed, 100.0), "{handed}");
    assert!(close(cold, 200.0), "{cold}");
}
