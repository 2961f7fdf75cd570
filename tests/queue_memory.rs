//! A node's memory in the queueing semantics: calls that move bytes share
//! its bandwidth (docs/machine.md, "Memory"). Exact small cases worked by
//! hand, the memory never the bottleneck where it serves every core at
//! full speed, elements handed between stages from the caches, and clear
//! errors.

use pattern_core::machine::{Handed, Machine, Memory};
use pattern_core::semantics::QueueingError;
use pattern_core::{Design, Expr, Term};
use proptest::prelude::*;

fn time(text: &str, machine: &Machine) -> f64 {
    Design::parse(text)
        .unwrap()
        .queueing(machine, &[("x", 1.0)])
        .unwrap()
        .time_per_element
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Two cores; the node moves `node` bytes per ns, a core alone 20.
fn two_cores(node: f64) -> Machine {
    Machine::new(1, 2).memory(Memory::new(node, 20.0))
}

#[test]
fn calls_that_only_wait_on_memory_share_its_bandwidth() {
    // Each call: 2000 bytes at 20 bytes/ns is its whole 100 ns.
    let pool = "inc = 100 [bytes = 2000]; tpool[2](inc)";
    // One core's bandwidth for the node: two calls at once take 200 ns.
    assert!(close(time(pool, &two_cores(20.0)), 100.0));
    // 1.5 cores' worth: 2 calls per 133.3 ns.
    assert!(close(time(pool, &two_cores(30.0)), 200.0 / 3.0));
    // Two cores' worth: the memory holds both, as if it were not there.
    assert!(close(time(pool, &two_cores(40.0)), 50.0));
    assert!(close(time(pool, &Machine::new(1, 2)), 50.0));
}

#[test]
fn the_busier_of_cores_and_memory_sets_the_pace() {
    // 100 ns a call, 80 of them on memory (1600 bytes at 20/ns): four
    // threads on two cores keep the cores 100/2 = 50 ns busy per element,
    // the memory (one call at a time) 80 ns.
    let pool = "a = 100 [bytes = 1600]; tpool[4](a)";
    assert!(close(time(pool, &two_cores(20.0)), 80.0));
    // With the memory of two cores, the cores' 50 ns, as without memory.
    assert!(close(time(pool, &two_cores(40.0)), 50.0));
    assert!(close(time(pool, &Machine::new(1, 2)), 50.0));
    // Without bytes the memory is not used at all.
    assert!(close(time("a = 100; tpool[4](a)", &two_cores(20.0)), 50.0));
}

#[test]
fn stages_of_a_pipeline_share_the_memory_of_their_node() {
    // Two stages of 100 ns each, all on memory, on one core's bandwidth:
    // 200 ns of the memory per element.
    let pipe = "a = 100 [bytes = 2000]; b = 100 [bytes = 2000]; pipe(a, b)";
    let t = time(pipe, &two_cores(20.0));
    assert!(close(t, 200.0), "{t}");
    // On the memory of two cores each stage runs at full speed, as
    // without memory (116.7 ns: MVA's stages of exponential times with
    // six elements in flight).
    let wide = time(pipe, &two_cores(40.0));
    assert!(close(wide, time(pipe, &Machine::new(1, 2))), "{wide}");
    assert!(close(wide, 700.0 / 6.0), "{wide}");
}

#[test]
fn the_prediction_reports_each_nodes_memory() {
    let d = Design::parse("inc = 100 [bytes = 2000]; tpool[2](inc)").unwrap();
    let p = d.queueing(&two_cores(20.0), &[]).unwrap();
    let node = &p.nodes[0];
    assert!(close(node.traffic, 100.0));
    assert!(close(node.memory_utilization, 1.0));
    assert!(node.memory_slowdown > 1.0);
    // The cores wait on memory: half busy.
    assert!(close(node.utilization, 0.5));
}

#[test]
fn bytes_out_of_range_are_an_error_naming_the_atom() {
    let d = Design::parse("a = 10 [bytes = 8 - 2*x]; a").unwrap();
    let err = d.queueing(&two_cores(20.0), &[("x", 5.0)]).unwrap_err();
    assert!(
        matches!(&err, QueueingError::Bytes { atom, value, .. } if atom == "a" && *value == -2.0)
    );
    assert_eq!(
        err.to_string(),
        "`a` moves -2 bytes at x = 5: bytes are a finite number >= 0"
    );
}

/// `tpool[n](a)`, `pipe(a, b)` or `seq(a, b)` with bytes.
fn designs() -> impl Strategy<Value = String> {
    (
        1u32..6,
        1.0f64..1e4,
        0.0f64..4e5,
        1.0f64..1e4,
        0.0f64..4e5,
        0usize..3,
    )
        .prop_map(|(n, a, a_bytes, b, b_bytes, shape)| {
            let defs = format!("a = {a} [bytes = {a_bytes}]; b = {b} [bytes = {b_bytes}]; ");
            let term = match shape {
                0 => format!("tpool[{n}](a)"),
                1 => format!("pipe(tpool[{n}](a), b)"),
                _ => format!("tpool[{n}](seq(a, b))"),
            };
            defs + &term
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A memory that serves every core at full speed changes nothing.
    #[test]
    fn a_memory_as_wide_as_the_cores_is_never_the_bottleneck(
        text in designs(),
        cores in 1usize..5,
        spare in 1.0f64..3.0,
    ) {
        let plain = Machine::new(1, cores);
        let wide = plain.clone().memory(Memory::new(20.0 * cores as f64 * spare, 20.0));
        let (a, b) = (time(&text, &plain), time(&text, &wide));
        prop_assert!(close(a, b), "{text} on {cores} cores: {a} without memory, {b} with");
    }

    /// A narrower memory never makes a design faster, and the bytes'
    /// time alone is a floor: the memory busy one call at a time.
    #[test]
    fn a_narrower_memory_only_slows(text in designs(), cores in 1usize..5, lanes in 1.0f64..4.0) {
        let plain = Machine::new(1, cores);
        let narrow = plain.clone().memory(Memory::new(20.0 * lanes, 20.0));
        let (a, b) = (time(&text, &plain), time(&text, &narrow));
        prop_assert!(b >= a * (1.0 - 1e-9), "{text}: {a} without memory, {b} with");
        let d = Design::parse(&text).unwrap();
        let bytes: f64 = d.term().atoms().iter().map(|atom| {
            let model = atom.model.eval(&[]).unwrap();
            let moved = atom.bytes.as_ref().map_or(0.0, |e: &Expr| e.eval(&[]).unwrap());
            (moved / 20.0).min(model)
        }).sum();
        let floor = bytes / lanes.min(cores as f64);
        prop_assert!(b >= floor * (1.0 - 1e-9), "{text}: {b} under the memory's {floor}");
    }
}

#[test]
fn a_term_built_in_code_carries_its_bytes() {
    let inc = pattern_core::Atom::new("inc", Expr::num(100.0)).moving(Expr::num(2000.0));
    let d = Design::from_term(Term::tpool(2u64, Term::Atom(inc))).unwrap();
    let p = d.queueing(&two_cores(20.0), &[]).unwrap();
    assert!(close(p.time_per_element, 100.0));
}

/// Where their assumptions meet (each thread on a core of its own, calls
/// all on memory), the simulator and the queueing semantics agree.
#[test]
fn the_simulator_agrees_on_memory_bound_pools() {
    for (threads, lanes) in [(2, 1.0), (2, 1.5), (2, 2.0), (4, 1.0), (4, 2.5), (4, 4.0)] {
        let text = format!("inc = 100 [bytes = 2000]; tpool[{threads}](inc)");
        let m = Machine::new(1, 4).memory(Memory::new(20.0 * lanes, 20.0));
        let queueing = time(&text, &m);
        let d = Design::parse(&text).unwrap();
        let simulated = pattern_core::sim::Simulation::new(&d, &m)
            .elements(1000)
            .run()
            .unwrap()
            .time_per_element();
        // Both: `threads` calls share `min(threads, lanes)` lanes.
        let want = 100.0 / (threads as f64).min(lanes);
        assert!(close(queueing, want), "{text} on {lanes} lanes: {queueing}");
        assert!(
            (simulated - want).abs() <= 1e-6 * want,
            "{text} on {lanes} lanes: {simulated}"
        );
    }
}

/// Two cores on one core's bandwidth, elements of up to 2000 bytes handed
/// over at 100 bytes per ns.
fn handing(node: f64) -> Machine {
    let curve = Handed::new(&[(2000.0, 100.0)]).unwrap();
    Machine::new(1, 2).memory(Memory::new(node, 20.0).with_handed(curve))
}

#[test]
fn a_pipes_later_stages_take_their_elements_from_the_caches() {
    // b's 2000 bytes come from a's caches in 20 ns, on its core: the pipe
    // is a pipe of a and a stage of 20 ns that moves nothing.
    let pipe = "a = 100 [bytes = 2000]; b = 100 [bytes = 2000]; pipe(a, b)";
    let same = "a = 100 [bytes = 2000]; b = 20; pipe(a, b)";
    let t = time(pipe, &handing(20.0));
    assert!(close(t, time(same, &handing(20.0))), "{t}");
    assert!(t < time(pipe, &two_cores(20.0)), "{t}");
    // At any depth of a later stage; never the first stage, or a pool.
    let deep = "a = 100 [bytes = 2000]; b = 100 [bytes = 2000]; pipe(a, tpool[2](seq(b, b)))";
    let deep_same = "a = 100 [bytes = 2000]; b = 20; pipe(a, tpool[2](seq(b, b)))";
    assert!(close(
        time(deep, &handing(20.0)),
        time(deep_same, &handing(20.0))
    ));
    let pool = "a = 100 [bytes = 2000]; tpool[2](a)";
    assert!(close(
        time(pool, &handing(20.0)),
        time(pool, &two_cores(20.0))
    ));
    // Elements larger than the curve come from memory.
    let large = "a = 200 [bytes = 4000]; b = 200 [bytes = 4000]; pipe(a, b)";
    assert!(close(
        time(large, &handing(20.0)),
        time(large, &two_cores(20.0))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Handing elements over from the caches never slows a design, and
    /// changes nothing where no later stage of a pipe moves bytes the
    /// curve covers.
    #[test]
    fn handing_over_only_speeds(text in designs(), cores in 1usize..5, lanes in 1.0f64..4.0) {
        let plain = Machine::new(1, cores).memory(Memory::new(20.0 * lanes, 20.0));
        let curve = |bytes: f64| Handed::new(&[(bytes, 200.0)]).unwrap();
        let covering = Machine::new(1, cores)
            .memory(Memory::new(20.0 * lanes, 20.0).with_handed(curve(4e5)));
        let short = Machine::new(1, cores)
            .memory(Memory::new(20.0 * lanes, 20.0).with_handed(curve(1e-3)));
        let (a, b, c) = (time(&text, &plain), time(&text, &covering), time(&text, &short));
        prop_assert!(b <= a * (1.0 + 1e-9), "{text}: {a} from memory, {b} handed");
        prop_assert!(close(a, c), "{text}: {a} from memory, {c} with a curve of no size");
        if !text.contains("pipe") {
            prop_assert!(close(a, b), "{text}: {a} from memory, {b} handed");
        }
    }
}
