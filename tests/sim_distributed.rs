//! The design simulator on several nodes: mapReduce with its shuffle, task
//! groups and redistributions, seq of parallel parts; transfers' CPU cost,
//! allocations that change during a run, direct execution and traces.

mod common;

use pattern_core::exec::Kernels;
use pattern_core::machine::Machine;
use pattern_core::sim::{
    Change, Direct, Shuffle, SimError, SimResult, Simulation, TaskGraph, When,
};
use pattern_core::strategies::{atom, map_reduce};
use pattern_core::{Count, Design, Expr, Term};
use proptest::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-9)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With a core for every thread and the shuffle as its model, a
    /// mapReduce's time per element is eq. 5 within 1 %, and one element's
    /// makespan is its latency (the same sum).
    #[test]
    fn map_reduce_is_eq5(m in 1usize..5, n in 1usize..5, x in 1.0f64..1000.0,
                         k in 1.0f64..64.0, cm in 1.0f64..100.0, cr in 1.0f64..100.0,
                         cs in 0.0f64..1000.0) {
        let src = format!(
            "map = {cm}*x; shuffle = {cs} + o; reduce = {cr}*x; \
             mapreduce[m = {m}, n = {n}, d = x/8, k = {k}](map, shuffle, reduce)"
        );
        let d = Design::parse(&src).unwrap();
        let p = Machine::new(m, n);
        let at = [("x", x)];
        let model = d.model().eval(&at).unwrap();
        let r = Simulation::new(&d, &p).at(&at).elements(200).run().unwrap();
        prop_assert!(close(r.time_per_element(), model, 0.01), "{} vs {model}", r.time_per_element());
        let one = Simulation::new(&d, &p).at(&at).run().unwrap();
        prop_assert!(close(one.makespan(), model, 1e-9), "{} vs {model}", one.makespan());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(200)))]

    /// A mapReduce's latency is its whole job: one element through atoms
    /// around a mapReduce (in a pipe or a seq), with a core per thread,
    /// takes the atoms' models plus the mapReduce's throughput model
    /// (eq. 5), to 1e-9.
    #[test]
    fn one_element_through_a_map_reduce_takes_its_eq5(
        mr in map_reduce(0), before in atom(), after in atom(), pipe in any::<bool>(),
    ) {
        let at = [("x", 64.0), ("m", 3.0), ("n", 2.0)];
        let eval = |t: &Term| Design::from_term(t.clone()).unwrap().model().eval(&at).unwrap();
        let want = eval(&before) + eval(&mr) + eval(&after);
        let t = if pipe {
            Term::pipe(Term::pipe(before, mr), after)
        } else {
            Term::seq(Term::seq(before, mr), after)
        };
        let d = Design::from_term(t).unwrap();
        let r = Simulation::new(&d, &Machine::new(8, 24)).at(&at).run().unwrap();
        prop_assert!((r.makespan() / want - 1.0).abs() < 1e-9, "{d}: {} vs {want}", r.makespan());
    }
}

#[test]
fn the_shuffle_moves_each_nodes_share_of_every_key_at_once() {
    // k = 9 keys of 100 bytes: each ordered pair of nodes carries
    // 9·100/m² bytes, all pairs at once.
    let d = Design::parse(
        "map = 0; shuffle = 1e9; reduce = 0; mapreduce[m = 2, n = 1, d = x, k = 9](map, shuffle, reduce)",
    )
    .unwrap();
    let p = Machine::new(2, 1).bandwidth(1.0);
    let run = |d: &Design, p: &Machine| {
        Simulation::new(d, p)
            .at(&[("x", 1.0)])
            .shuffle(Shuffle::BytesPerKey(100.0))
            .run()
            .unwrap()
    };
    // Two nodes: one transfer each way, each alone on its links: 225 ns.
    assert_eq!(run(&d, &p).makespan(), 225.0);
    // Three nodes: 100 bytes per pair, two transfers on every link at half
    // the bandwidth: 200 ns; with a latency of 50 ns, 250.
    let d3 = Design::parse(
        "map = 0; shuffle = 1e9; reduce = 0; mapreduce[m = 3, n = 1, d = x, k = 9](map, shuffle, reduce)",
    )
    .unwrap();
    let r = run(&d3, &Machine::new(3, 1).bandwidth(1.0));
    assert_eq!(r.makespan(), 200.0);
    assert!(
        r.link_utilization()
            .iter()
            .all(|&(o, i)| o == 1.0 && i == 1.0)
    );
    assert_eq!(
        run(&d3, &Machine::new(3, 1).bandwidth(1.0).latency(50.0)).makespan(),
        250.0
    );
    // The model's shuffle (1e9 ns) is not used when bytes are given; it is
    // the delay otherwise.
    let r = Simulation::new(&d, &p).at(&[("x", 1.0)]).run().unwrap();
    assert_eq!(r.makespan(), 1e9);
}

#[test]
fn task_groups_run_on_their_processors() {
    let p = Machine::new(4, 1);
    let run = |src: &str, elements: usize| {
        let d = Design::parse(src).unwrap();
        Simulation::new(&d, &p).elements(elements).run().unwrap()
    };
    // An M-task of 4 processors keeps all four nodes busy.
    let r = run("a = 100/p; on[4](a)", 1);
    assert_eq!(r.makespan(), 25.0);
    assert_eq!(r.core_utilization(), vec![1.0; 4]);
    // Disjoint groups at once: the slower decides.
    let r = run("a = 100/p; b = 60/p; on[4](par[2, 2](a, b))", 1);
    assert_eq!(r.makespan(), 50.0);
    assert_eq!(r.core_utilization(), vec![1.0, 1.0, 0.6, 0.6]);
    // Two groups of floor(4/2) = 2, each running `a` on its own nodes.
    let r = run("a = 100/p; on[4](groups[2](a))", 1);
    assert_eq!(r.makespan(), 50.0);
    assert_eq!(r.core_utilization(), vec![1.0; 4]);
    // One after the other with a redistribution of 7 ns between.
    let r = run("a = 100/p; b = 60/p; on[4](seq[redist = 7](a, b))", 1);
    assert_eq!(r.makespan(), 25.0 + 7.0 + 15.0);
    // Every case is the throughput model with one element, and a stream of
    // them (one group program at a time) takes as long per element.
    for src in [
        "a = 100/p; on[4](a)",
        "a = 100/p; b = 60/p; on[4](par[2, 2](a, b))",
        "a = 100/p; b = 60/p; on[4](par[1, 3](seq(a, b), groups[3](b)))",
        "a = 100/p; b = 60/p; on[4](seq[redist = 2*p](groups[2](a), b))",
    ] {
        let d = Design::parse(src).unwrap();
        let model = d.model().eval(&[]).unwrap();
        assert!(close(run(src, 1).makespan(), model, 1e-12), "{src}");
        assert!(
            close(run(src, 100).time_per_element(), model, 1e-9),
            "{src}"
        );
    }
    // Groups wider than the platform.
    let d = Design::parse("a = 1; on[8](a)").unwrap();
    assert_eq!(
        Simulation::new(&d, &p).run().unwrap_err(),
        SimError::NotEnoughNodes {
            needed: 8,
            nodes: 4
        }
    );
}

#[test]
fn a_seq_of_parallel_parts_runs_the_stream_through_each_in_turn() {
    // The whole stream through the pool, then through b: a/4 + b each.
    let d = Design::parse("a = 400; b = 30; seq(tpool[4](a), b)").unwrap();
    let p = Machine::new(1, 4);
    let r = Simulation::new(&d, &p).elements(1000).run().unwrap();
    assert!(
        close(r.time_per_element(), 130.0, 0.01),
        "{}",
        r.time_per_element()
    );
    assert_eq!(r.makespan(), 1000.0 * 100.0 + 1000.0 * 30.0);
    assert!(close(
        r.time_per_element(),
        d.model().eval(&[]).unwrap(),
        0.01
    ));
}

#[test]
fn transfers_take_cpu_from_compute_steps_when_asked() {
    // A 10 ns step on node 0 and a 10-byte transfer from node 0 at 1 byte/ns
    // with 2 ns per byte: the step and the 20 ns of sending share one core
    // (the step ends at 20, the sending at 30); the bytes are long through.
    let mut g = TaskGraph::new();
    let step = g.compute(0, 10.0, &[]);
    let send = g.transfer(0, 1, 10.0, &[]);
    let p = Machine::new(2, 1).bandwidth(1.0);
    let r = Simulation::graph(&g, &p).transfer_cpu(2.0).run().unwrap();
    assert_eq!((r.finish(step), r.finish(send)), (20.0, 30.0));
    let r = Simulation::graph(&g, &p).run().unwrap();
    assert_eq!((r.finish(step), r.finish(send)), (10.0, 10.0));
    assert_eq!(
        Simulation::graph(&g, &p)
            .transfer_cpu(-1.0)
            .run()
            .unwrap_err(),
        SimError::InvalidCpuCost { value: -1.0 }
    );
}

#[test]
fn allocations_change_during_a_run() {
    // Four steps of 10 ns on two cores; one core taken away at 5 ns: each
    // has 7.5 ns left at a quarter of a core, 30 ns more.
    let mut g = TaskGraph::new();
    let steps: Vec<_> = (0..4).map(|_| g.compute(0, 10.0, &[])).collect();
    let p = Machine::new(1, 2);
    let r = Simulation::graph(&g, &p)
        .change(When::At(5.0), Change::Cores { node: 0, cores: 1 })
        .run()
        .unwrap();
    assert!(steps.iter().all(|&s| r.finish(s) == 35.0));
    // When a task ends: a chain of two 10 ns steps, the node's second core
    // given after the first of them, helps a third step that started at 0.
    let mut g = TaskGraph::new();
    let first = g.compute(0, 10.0, &[]);
    g.compute(0, 10.0, &[first]);
    let other = g.compute(0, 10.0, &[]);
    let r = Simulation::graph(&g, &Machine::new(1, 1))
        .change(When::Finished(first), Change::Cores { node: 0, cores: 2 })
        .run()
        .unwrap();
    assert_eq!(r.finish(first), 20.0);
    assert_eq!(r.finish(other), 20.0);
    assert_eq!(r.makespan(), 30.0);
    // A node whose cores go and never come back: an error, not a hang.
    let err = Simulation::graph(&g, &Machine::new(1, 1))
        .change(When::At(0.0), Change::Cores { node: 0, cores: 0 })
        .run()
        .unwrap_err();
    assert_eq!(err, SimError::Stalled { left: 3 });
    // Workers added at a time: 1 worker, 3 more at 1000 ns.
    let d = Design::parse("a = 100; tpool[1](a)").unwrap();
    let r = Simulation::new(&d, &Machine::new(1, 4))
        .elements(50)
        .change(
            When::At(1000.0),
            Change::Workers {
                pool: 0,
                workers: 4,
            },
        )
        .run()
        .unwrap();
    assert_eq!(r.makespan(), 1000.0 + 40.0 / 4.0 * 100.0);
    // Bad changes.
    for (when, change) in [
        (When::At(-1.0), Change::Cores { node: 0, cores: 1 }),
        (When::At(0.0), Change::Cores { node: 9, cores: 1 }),
        (
            When::At(0.0),
            Change::Workers {
                pool: 1,
                workers: 1,
            },
        ),
        (
            When::At(0.0),
            Change::Workers {
                pool: 0,
                workers: 0,
            },
        ),
        (When::Finished(first), Change::Cores { node: 0, cores: 1 }),
    ] {
        let err = Simulation::new(&d, &Machine::new(1, 4))
            .change(when, change)
            .run()
            .unwrap_err();
        assert!(matches!(err, SimError::InvalidChange { .. }), "{err}");
    }
}

#[test]
fn direct_execution_runs_the_kernels_and_mixed_mode_only_the_first_calls() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let kernels = Kernels::<Vec<u64>>::new().add("sort", move |v| {
        counted.fetch_add(1, Ordering::Relaxed);
        v.sort_unstable();
    });
    // `cheap` has no kernel: its model's 5 ns.
    let d = Design::parse("sort = 1e9; cheap = 5; pipe(sort, cheap)").unwrap();
    let p = Machine::new(1, 2);
    let input = |i: usize| (0..2000u64).map(|k| (k * 7919 + i as u64) % 2000).collect();
    // The steps' work on the node's two cores, ns.
    let work = |r: &SimResult| r.core_utilization()[0] * 2.0 * r.makespan();
    let cheap = 40.0 * 5.0;
    let started = Instant::now();
    let r = Simulation::new(&d, &p)
        .elements(40)
        .direct(&kernels, input, Direct::new())
        .run()
        .unwrap();
    let wall = started.elapsed().as_nanos() as f64;
    assert_eq!(calls.load(Ordering::Relaxed), 40);
    // Each sort step took what its kernel took, timed within this run: the
    // work is at most the run's own time and cheap's model (with the
    // model's second it would be 40 s), and more than cheap's alone.
    assert!(work(&r) > cheap, "{}", work(&r));
    assert!(
        work(&r) <= (wall + cheap) * (1.0 + 1e-12),
        "{} vs {wall}",
        work(&r)
    );
    let t = r.time_per_element();
    assert!(t > 5.0 && t <= r.makespan(), "{t}");
    calls.store(0, Ordering::Relaxed);
    let started = Instant::now();
    let r = Simulation::new(&d, &p)
        .elements(40)
        .direct(&kernels, input, Direct::new().measure_first(3))
        .run()
        .unwrap();
    let wall = started.elapsed().as_nanos() as f64;
    assert_eq!(calls.load(Ordering::Relaxed), 3);
    // The 37 later sort steps take the mean of the first 3, each timed
    // within this run: 40 of them take at most 40/3 of its time.
    assert!(work(&r) > cheap, "{}", work(&r));
    assert!(
        work(&r) <= (40.0 / 3.0 * wall + cheap) * (1.0 + 1e-12),
        "{} vs {wall}",
        work(&r)
    );
}

#[test]
fn a_design_run_keeps_a_trace_when_asked() {
    let d = Design::parse("a = 10; b = 20; pipe(a, b)").unwrap();
    let p = Machine::new(1, 2);
    let r = Simulation::new(&d, &p)
        .elements(5)
        .trace(true)
        .run()
        .unwrap();
    let trace: serde_json::Value = serde_json::from_str(&r.trace_json()).unwrap();
    let steps: Vec<_> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .collect();
    assert_eq!(steps.len(), 10);
    assert_eq!(steps.iter().filter(|e| e["name"] == "b").count(), 5);
    assert!(r.gantt_svg().unwrap().contains("<svg"));
    // No trace unless asked.
    let r = Simulation::new(&d, &p).elements(5).run().unwrap();
    assert!(!r.trace_json().contains("\"X\""));
}

/// A design 10^5 levels deep of `on`, `groups` and `seq` plans and runs on
/// a 2 MiB thread: each level adds an environment (the group size, the
/// shift) instead of rewriting every step below it. One element: the
/// 33,334 atoms one after the other, 10 ns each, on groups of one
/// processor.
#[test]
fn a_design_100k_levels_deep_of_distributed_patterns_runs_on_a_small_stack() {
    let result = common::on_small_stack(|| {
        let a = || Term::atom("a", Expr::num(10.0));
        let mut t = a();
        for i in 0..100_000 {
            t = match i % 3 {
                0 => Term::On(Count::Fixed(1), Box::new(t)),
                1 => Term::Groups(Count::Fixed(1), Box::new(t)),
                _ => Term::seq(t, a()),
            };
        }
        let d = Design::from_term(t).unwrap();
        let r = Simulation::new(&d, &Machine::new(2, 1))
            .at(&[("p", 2.0)])
            .run()
            .unwrap();
        (r.makespan(), r.core_utilization()[1])
    });
    let (makespan, second_node) = result;
    assert_eq!(makespan, 33_334.0 * 10.0);
    assert_eq!(second_node, 0.0);
}

/// Random nests of on/par/groups/seq/redist inside `on[8]`, every group
/// within its processors: one element takes the throughput model (the
/// placements composed by environments give each step its group size `p`
/// and its processors).
fn placed(depth: u32) -> BoxedStrategy<Term> {
    let atom = (1u32..200, prop::bool::ANY).prop_map(|(w, over_p)| {
        let model = if over_p {
            format!("{w}/p")
        } else {
            format!("{w}")
        };
        let name = if over_p {
            format!("q{w}")
        } else {
            format!("a{w}")
        };
        Term::atom(&name, model.parse::<Expr>().unwrap())
    });
    atom.prop_recursive(depth, 24, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Term::seq(a, b)),
            inner
                .clone()
                .prop_map(|t| Term::On(Count::Fixed(1), Box::new(t))),
            inner
                .clone()
                .prop_map(|t| Term::Groups(Count::Fixed(1), Box::new(t))),
            (inner.clone(), inner.clone(), 0u32..20).prop_map(|(a, b, c)| Term::Redist(
                Expr::num(c as f64),
                Box::new(a),
                Box::new(b)
            )),
        ]
    })
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    #[test]
    fn one_element_through_placed_patterns_takes_the_model(
        a in placed(4), b in placed(4), c in placed(3), split in 1u64..4,
    ) {
        // on[8](par[split, 8 - split](a, groups[2](b))) then c on all 8.
        let t = Term::On(
            Count::Fixed(8),
            Box::new(Term::seq(
                Term::Par(
                    vec![Count::Fixed(split), Count::Fixed(8 - split)],
                    vec![a, Term::Groups(Count::Fixed(2), Box::new(b))],
                ),
                c,
            )),
        );
        let d = Design::from_term(t).unwrap();
        let model = d.model().eval(&[]).unwrap();
        let r = Simulation::new(&d, &Machine::new(8, 1)).run().unwrap();
        prop_assert!((r.makespan() / model - 1.0).abs() < 1e-9, "{d}: {} vs {model}", r.makespan());
    }
}
