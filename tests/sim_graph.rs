//! The flow-graph simulator (`pattern_core::sim`): exact small cases of the
//! resource model (processor sharing, link shares, latency), every error,
//! and properties of random graphs against what holds on any schedule.
mod common;

use pattern_core::machine::{Link, Machine, Racks, Sharing};
use pattern_core::sim::{SimError, Simulation, TaskGraph, TaskId};
use proptest::prelude::*;

fn run(g: &TaskGraph, p: &Machine) -> pattern_core::sim::SimResult {
    Simulation::graph(g, p).run().expect("a valid graph")
}

#[test]
fn under_equal_shares_a_transfer_moves_at_the_smaller_of_its_link_shares() {
    // Node 0 sends to nodes 1 and 2, node 3 to node 1; 1 byte/ns links.
    let mut g = TaskGraph::new();
    let a = g.transfer(0, 1, 10.0, &[]); // out 0: 2 flows, in 1: 2 flows -> 0.5
    let b = g.transfer(0, 2, 10.0, &[]); // out 0: 2 flows, in 2: 1 flow -> 0.5
    let c = g.transfer(3, 1, 4.0, &[]); // out 3: 1 flow, in 1: 2 flows -> 0.5
    let r = run(&g, &Machine::new(4, 1).sharing(Sharing::EqualShare));
    // c ends at 8 (4 bytes at 0.5); then a has in-link 1 to itself but
    // still shares out-link 0 with b: both stay at 0.5 and end at 20.
    assert_eq!(r.finish(c), 8.0);
    assert_eq!((r.finish(a), r.finish(b)), (20.0, 20.0));
}

#[test]
fn max_min_hands_on_what_a_transfer_cannot_use_and_equal_shares_do_not() {
    // Four 6-byte transfers at 1 byte/ns: A 0→1, B 0→2, C 3→2, D 4→2.
    // Node 2's link in carries B, C and D: a third each, until all three
    // end at 18. Max-min gives A the rest of node 0's link out, 1 − 1/3:
    // A ends at 6 / (2/3) = 9 (8.999999999999998 in doubles, where
    // 1 − 1/3 rounds up). Equal shares keep A at half: 12.
    let mut g = TaskGraph::new();
    let ids: Vec<TaskId> = [(0, 1), (0, 2), (3, 2), (4, 2)]
        .iter()
        .map(|&(from, to)| g.transfer(from, to, 6.0, &[]))
        .collect();
    let max_min = run(&g, &Machine::new(5, 1));
    assert!((max_min.finish(ids[0]) - 9.0).abs() <= 1e-15 * 9.0);
    let equal = run(&g, &Machine::new(5, 1).sharing(Sharing::EqualShare));
    assert_eq!(equal.finish(ids[0]), 12.0);
    for r in [&max_min, &equal] {
        for &t in &ids[1..] {
            assert_eq!(r.finish(t), 18.0);
        }
    }
    // With a latency of 1 ns, every transfer starts moving at 1: 10 and 19.
    let late = run(&g, &Machine::new(5, 1).latency(1.0));
    assert!((late.finish(ids[0]) - 10.0).abs() <= 1e-15 * 10.0);
    assert_eq!(late.finish(ids[1]), 19.0);
}

#[test]
fn between_racks_a_transfer_pays_the_uplinks_and_the_backbone() {
    // Racks of 2: {0, 1} and {2, 3}. Node links: 1 ns, 4 bytes/ns;
    // uplinks 3 ns, 2 bytes/ns; backbone 5 ns, 3 bytes/ns.
    let racks = Racks::new(2, Link::new(3.0, 2.0), Link::new(5.0, 3.0));
    let m = Machine::new(4, 1).latency(1.0).bandwidth(4.0).racks(racks);
    let mut g = TaskGraph::new();
    let near = g.transfer(0, 1, 8.0, &[]); // 1 + 8/4
    let far = g.transfer(2, 0, 8.0, &[]); // 1 + 2·3 + 5 = 12, then 8/2
    let empty = g.transfer(1, 3, 0.0, &[]); // the latency alone
    let r = run(&g, &m);
    assert_eq!(r.finish(near), 3.0);
    assert_eq!(r.finish(far), 16.0);
    assert_eq!(r.finish(empty), 12.0);
    // Two transfers between the racks, one each way, share the backbone
    // (one link for both directions): 1.5 bytes/ns each, 12 + 6/1.5.
    let mut g = TaskGraph::new();
    let there = g.transfer(0, 2, 6.0, &[]);
    let back = g.transfer(3, 1, 6.0, &[]);
    let r = run(&g, &m);
    assert_eq!((r.finish(there), r.finish(back)), (16.0, 16.0));
}

#[test]
fn latency_comes_first_and_occupies_no_link() {
    let mut g = TaskGraph::new();
    let a = g.transfer(0, 1, 100.0, &[]);
    let first = g.compute(0, 30.0, &[]);
    let b = g.transfer(0, 1, 100.0, &[first]);
    let p = Machine::new(2, 1).latency(50.0).bandwidth(2.0);
    let r = run(&g, &p);
    // a moves alone from 50 to 80 (60 bytes at 2/ns), b's bytes join at
    // 30 + 50 = 80: both at 1/ns, a's last 40 bytes end at 120, then b's
    // remaining 60 bytes alone at 2/ns: 150.
    assert_eq!(r.finish(a), 120.0);
    assert_eq!(r.start(b), 30.0);
    assert_eq!(r.finish(b), 150.0);
}

#[test]
fn steps_beyond_the_cores_share_them_and_cores_left_idle_are_not_lent() {
    // Four steps of 4 ns on 2 cores: each at 1/2, all end at 8.
    let mut g = TaskGraph::new();
    let ids: Vec<TaskId> = (0..4).map(|_| g.compute(0, 4.0, &[])).collect();
    let other = g.compute(1, 4.0, &[]);
    let r = run(&g, &Machine::new(2, 2));
    assert!(ids.iter().all(|&t| r.finish(t) == 8.0));
    // Node 1's idle core does not help node 0.
    assert_eq!(r.finish(other), 4.0);
    assert_eq!(r.core_utilization(), vec![1.0, 0.25]);
}

#[test]
fn zero_work_and_local_transfers_take_no_time() {
    let mut g = TaskGraph::new();
    let a = g.compute(0, 0.0, &[]);
    let b = g.transfer(0, 0, 1e9, &[a]);
    let c = g.transfer(0, 1, 0.0, &[b]);
    let d = g.compute(1, 5.0, &[c]);
    let r = run(&g, &Machine::new(2, 1).latency(7.0));
    assert_eq!((r.finish(a), r.finish(b)), (0.0, 0.0));
    // A transfer of no bytes still pays the latency.
    assert_eq!(r.finish(c), 7.0);
    assert_eq!(r.finish(d), 12.0);
    assert_eq!(r.makespan(), 12.0);
    assert_eq!(r.link_utilization(), vec![(0.0, 0.0), (0.0, 0.0)]);
}

#[test]
fn bad_input_is_an_error() {
    let mut g = TaskGraph::new();
    g.compute(2, 1.0, &[]);
    assert_eq!(
        Simulation::graph(&g, &Machine::new(2, 1))
            .run()
            .unwrap_err(),
        SimError::UnknownNode {
            task: 0,
            node: 2,
            nodes: 2
        }
    );
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let mut g = TaskGraph::new();
        g.compute(0, bad, &[]);
        let err = Simulation::graph(&g, &Machine::new(1, 1))
            .run()
            .unwrap_err();
        assert!(
            matches!(
                err,
                SimError::InvalidAmount {
                    task: 0,
                    what: "a duration",
                    ..
                }
            ),
            "{err}"
        );
        let mut g = TaskGraph::new();
        g.transfer(0, 1, bad, &[]);
        let err = Simulation::graph(&g, &Machine::new(2, 1))
            .run()
            .unwrap_err();
        assert!(
            matches!(
                err,
                SimError::InvalidAmount {
                    what: "a size in bytes",
                    ..
                }
            ),
            "{err}"
        );
    }
    // A dependency on a task of another, larger graph.
    let mut big = TaskGraph::new();
    let late = (0..5).map(|_| big.compute(0, 1.0, &[])).last().unwrap();
    let mut g = TaskGraph::new();
    g.compute(0, 1.0, &[late]);
    let err = Simulation::graph(&g, &Machine::new(1, 1))
        .run()
        .unwrap_err();
    assert_eq!(
        err,
        SimError::UnknownTask {
            task: 0,
            dependency: 4,
            tasks: 1
        }
    );
    assert_eq!(
        err.to_string(),
        "task 0 depends on task 4, which this graph does not have (1 tasks)"
    );
    let g = TaskGraph::new();
    for (p, what) in [
        (Machine::new(0, 4), "node"),
        (Machine::new(4, 0), "core"),
        (Machine::new(1, 1).latency(-1.0), "latency"),
        (Machine::new(1, 1).bandwidth(0.0), "bandwidth"),
        (Machine::new(1, 1).bandwidth(f64::NAN), "bandwidth"),
    ] {
        let err = Simulation::graph(&g, &p).run().unwrap_err();
        assert!(err.to_string().contains(what), "{err}");
    }
}

#[test]
fn a_chain_of_a_million_tasks_runs_on_a_small_stack() {
    let result = common::on_small_stack(|| {
        let mut g = TaskGraph::new();
        let mut last = g.compute(0, 1.0, &[]);
        for i in 1..1_000_000 {
            last = if i % 2 == 0 {
                g.compute(0, 1.0, &[last])
            } else {
                g.transfer(0, 1, 2.0, &[last])
            };
        }
        let r = run(&g, &Machine::new(2, 1).bandwidth(2.0));
        r.finish(last)
    });
    assert_eq!(result, 1_000_000.0);
}

#[test]
fn the_trace_opens_as_chrome_trace_events_with_lanes_that_never_overlap() {
    let mut g = TaskGraph::new();
    let a = g.compute(0, 10.0, &[]);
    g.compute(0, 10.0, &[]);
    g.compute(0, 5.0, &[a]);
    g.transfer(0, 1, 100.0, &[a]);
    let r = run(&g, &Machine::new(2, 2));
    let trace: serde_json::Value = serde_json::from_str(&r.trace_json()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let spans: Vec<&serde_json::Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(spans.len(), 4);
    for x in &spans {
        for y in &spans {
            if std::ptr::eq(*x, *y) || x["pid"] != y["pid"] || x["tid"] != y["tid"] {
                continue;
            }
            let (xs, xe) = (
                x["ts"].as_f64().unwrap(),
                x["ts"].as_f64().unwrap() + x["dur"].as_f64().unwrap(),
            );
            let ys = y["ts"].as_f64().unwrap();
            assert!(!(xs < ys && ys < xe), "{x} and {y} overlap");
        }
    }
    // Times in µs: the third step ends at 15 ns.
    assert!(
        spans
            .iter()
            .any(|e| e["ts"].as_f64() == Some(0.01) && e["dur"].as_f64() == Some(0.005))
    );
}

/// A random flow graph: `n` tasks on `nodes` nodes, each depending on up to
/// three earlier ones.
fn graph(nodes: usize) -> impl Strategy<Value = TaskGraph> {
    let task = (
        any::<bool>(),
        0..nodes,
        0..nodes,
        0.0f64..100.0,
        prop::collection::vec(any::<prop::sample::Index>(), 0..3),
    );
    prop::collection::vec(task, 1..60).prop_map(|tasks| {
        let mut g = TaskGraph::new();
        let mut ids: Vec<TaskId> = Vec::new();
        for (compute, a, b, amount, deps) in tasks {
            let deps: Vec<TaskId> = if ids.is_empty() {
                Vec::new()
            } else {
                deps.iter().map(|i| ids[i.index(ids.len())]).collect()
            };
            let id = if compute {
                g.compute(a, amount, &deps)
            } else {
                g.transfer(a, b, amount, &deps)
            };
            ids.push(id);
        }
        g
    })
}

/// The longest path of work through the graph, counting a transfer as
/// alone on its links.
fn critical_path(g: &TaskGraph, p: &Machine) -> f64 {
    let mut end = vec![0.0f64; g.len()];
    for (i, t) in g.tasks().iter().enumerate() {
        let ready = t
            .dependencies
            .iter()
            .map(|d| end[d.index()])
            .fold(0.0, f64::max);
        let own = match t.work {
            pattern_core::sim::Work::Compute { duration, .. } => duration,
            pattern_core::sim::Work::Transfer { from, to, .. } if from == to => 0.0,
            pattern_core::sim::Work::Transfer { from, to, bytes } => {
                p.transfer_time(from, to, bytes)
            }
        };
        end[i] = ready + own;
    }
    end.iter().copied().fold(0.0, f64::max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(500)))]

    /// On any schedule: a task starts once its dependencies ended and ends
    /// no sooner than its work alone; the makespan is at least the critical
    /// path and the work over the cores; dynamic efficiency stays in
    /// [0, 1] and averages to the cores' utilization.
    #[test]
    fn every_schedule_respects_dependencies_and_capacity(
        g in graph(3), cores in 1usize..4, latency in 0.0f64..20.0, bandwidth in 0.5f64..4.0,
    ) {
        let p = Machine::new(3, cores).latency(latency).bandwidth(bandwidth);
        let r = run(&g, &p);
        let ids: Vec<TaskId> = g.ids().collect();
        for (i, t) in g.tasks().iter().enumerate() {
            let me = t.dependencies.iter().map(|d| r.finish(*d)).fold(0.0, f64::max);
            let task = ids[i];
            prop_assert!(r.start(task) >= me, "task {i} starts at {} before {me}", r.start(task));
            prop_assert!(r.finish(task) >= r.start(task));
        }
        let path = critical_path(&g, &p);
        prop_assert!(r.makespan() >= path * (1.0 - 1e-12), "{} < {path}", r.makespan());
        let work: f64 = r.core_utilization().iter().sum::<f64>() * cores as f64 * r.makespan();
        prop_assert!(r.makespan() * (3 * cores) as f64 >= work * (1.0 - 1e-12));
        let window = r.makespan() / 7.0;
        let eff = r.dynamic_efficiency(window);
        if r.makespan() > 0.0 {
            prop_assert!(eff.iter().all(|&(_, e)| (0.0..=1.0).contains(&e)));
            let lengths: Vec<f64> = eff.iter().map(|&(t, _)| (t + window).min(r.makespan()) - t).collect();
            let mean: f64 = eff.iter().zip(&lengths).map(|(&(_, e), l)| e * l).sum::<f64>() / r.makespan();
            let util: f64 = r.core_utilization().iter().sum::<f64>() / 3.0;
            prop_assert!((mean - util).abs() <= 1e-9, "{mean} vs {util}");
        }
    }

    /// With a core for every step and no transfers, nothing waits for a
    /// resource: every task ends at its critical path.
    #[test]
    fn with_enough_cores_the_makespan_is_the_critical_path(g in graph(1)) {
        let p = Machine::new(1, 64);
        let r = run(&g, &p);
        let mut end = vec![0.0f64; g.len()];
        let ids: Vec<TaskId> = g.ids().collect();
        for (i, t) in g.tasks().iter().enumerate() {
            let ready = t.dependencies.iter().map(|d| end[d.index()]).fold(0.0, f64::max);
            end[i] = ready + match t.work {
                pattern_core::sim::Work::Compute { duration, .. } => duration,
                _ => 0.0,
            };
            let got = r.finish(ids[i]);
            prop_assert!((got - end[i]).abs() <= 1e-9 * end[i].max(1.0), "task {i}: {got} vs {}", end[i]);
        }
    }

    /// Independent steps on one core run back to back whatever the sharing:
    /// the makespan is their total work.
    #[test]
    fn processor_sharing_wastes_no_time(durations in prop::collection::vec(0.0f64..100.0, 1..50), cores in 1usize..4) {
        let mut g = TaskGraph::new();
        for d in &durations {
            g.compute(0, *d, &[]);
        }
        let r = run(&g, &Machine::new(1, cores));
        let total: f64 = durations.iter().sum();
        let longest = durations.iter().copied().fold(0.0, f64::max);
        let want = (total / cores as f64).max(longest);
        // Processor sharing ends the last step exactly at max(work/c, longest)
        // only for c = 1; for more cores it lies between the two bounds.
        if cores == 1 {
            prop_assert!((r.makespan() - total).abs() <= 1e-9 * total.max(1.0));
        }
        prop_assert!(r.makespan() >= want * (1.0 - 1e-12));
        prop_assert!(r.makespan() <= total * (1.0 + 1e-12) + 1e-9);
    }
}

#[test]
fn plots_are_svg_documents_with_a_bar_per_task() {
    let mut g = TaskGraph::new();
    let a = g.compute(0, 1e6, &[]);
    let t = g.transfer(0, 1, 1e6, &[a]);
    g.compute(1, 2e6, &[t]);
    g.compute(1, 2e6, &[t]);
    let r = run(&g, &Machine::new(2, 2).bandwidth(1.0));
    let gantt = r.gantt_svg().unwrap();
    assert!(gantt.starts_with("<svg") && gantt.trim_end().ends_with("</svg>"));
    // The background, then one bar per task.
    assert_eq!(gantt.matches("<rect").count(), 1 + 4, "{gantt}");
    let eff = r.efficiency_svg(5e5).unwrap();
    assert!(eff.contains("dynamic efficiency") && eff.contains("<polyline"));
}
