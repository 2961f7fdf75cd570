//! Benchmarks of the flow-graph simulator: a 16-stage pipeline written as
//! a flow graph (stage s of element i after stage s of element i − 1 and
//! stage s − 1 of element i), on one node of 16 cores and of 2 cores
//! (processor sharing), and with a transfer between every two stages over
//! 4 nodes, its links shared max-min and in equal shares; an all-to-all
//! exchange among 16 nodes, where every transfer shares links with all
//! the others (max-min recomputes them all at each start and end), under
//! both rules. Events per second are the tasks simulated over the median
//! time. And one element through designs 10^3 to 10^5 levels deep, for the
//! planner's growth with depth.
//! Run with `cargo bench --bench sim`.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pattern_core::machine::{Machine, Sharing};
use pattern_core::sim::{Simulation, TaskGraph, TaskId};
use pattern_core::{Count, Design, Expr, Term};
use std::hint::black_box;

const STAGES: usize = 16;

/// The pipeline of `elements` elements; with `nodes` > 1 the stages are
/// spread over the nodes and each hand-over between nodes is a transfer.
fn pipeline(elements: usize, nodes: usize) -> TaskGraph {
    let mut g = TaskGraph::new();
    let mut previous: Vec<Option<TaskId>> = vec![None; STAGES];
    for _ in 0..elements {
        let mut before: Option<TaskId> = None;
        for (s, prev) in previous.iter_mut().enumerate() {
            let node = s * nodes / STAGES;
            let mut deps: Vec<TaskId> = prev.iter().copied().collect();
            if let Some(b) = before {
                let from = (s - 1) * nodes / STAGES;
                let arrived = if from == node {
                    b
                } else {
                    g.transfer(from, node, 1024.0, &[b])
                };
                deps.push(arrived);
            }
            let step = g.compute(node, 100.0 + s as f64, &deps);
            *prev = Some(step);
            before = Some(step);
        }
    }
    g
}

/// `rounds` rounds of an all-to-all exchange among `nodes` nodes: each node
/// computes, then sends every other node a message (sizes differ, so that
/// transfers end one by one and the rest are recomputed), and the next
/// round's step on a node waits for every message it received.
fn all_to_all(nodes: usize, rounds: usize) -> TaskGraph {
    let mut g = TaskGraph::new();
    let mut received: Vec<Vec<TaskId>> = vec![Vec::new(); nodes];
    for _ in 0..rounds {
        let steps: Vec<TaskId> = (0..nodes)
            .map(|n| g.compute(n, 100.0, &received[n]))
            .collect();
        received = vec![Vec::new(); nodes];
        for (from, &step) in steps.iter().enumerate() {
            for (to, inbox) in received.iter_mut().enumerate() {
                if to != from {
                    let bytes = 1000.0 + 37.0 * ((from * nodes + to) % 29) as f64;
                    inbox.push(g.transfer(from, to, bytes, &[step]));
                }
            }
        }
    }
    g
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim");
    group.sample_size(10);
    let elements = 100_000;
    let one = pipeline(elements, 1);
    group.throughput(Throughput::Elements(one.len() as u64));
    for (name, platform) in [
        (
            "16-stage pipeline, 10^5 elements, 16 cores",
            Machine::new(1, 16),
        ),
        (
            "16-stage pipeline, 10^5 elements, 2 cores (sharing)",
            Machine::new(1, 2),
        ),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| black_box(Simulation::graph(&one, &platform).run().unwrap().makespan()))
        });
    }
    let spread = pipeline(elements, 4);
    group.throughput(Throughput::Elements(spread.len() as u64));
    for (rule, sharing) in [
        ("max-min", Sharing::MaxMin),
        ("equal shares", Sharing::EqualShare),
    ] {
        let platform = Machine::new(4, 4)
            .latency(1000.0)
            .bandwidth(10.0)
            .sharing(sharing);
        group.bench_function(
            format!("16-stage pipeline over 4 nodes with transfers, 10^5 elements, {rule}"),
            |b| {
                b.iter(|| {
                    black_box(
                        Simulation::graph(&spread, &platform)
                            .run()
                            .unwrap()
                            .makespan(),
                    )
                })
            },
        );
    }
    let exchange = all_to_all(16, 50);
    group.throughput(Throughput::Elements(exchange.len() as u64));
    for (rule, sharing) in [
        ("max-min", Sharing::MaxMin),
        ("equal shares", Sharing::EqualShare),
    ] {
        let platform = Machine::new(16, 1)
            .latency(100.0)
            .bandwidth(1.0)
            .sharing(sharing);
        group.bench_function(
            format!("all-to-all of 16 nodes, 50 rounds of 240 transfers, {rule}"),
            |b| {
                b.iter(|| {
                    black_box(
                        Simulation::graph(&exchange, &platform)
                            .run()
                            .unwrap()
                            .makespan(),
                    )
                })
            },
        );
    }
    // The case: a 16-stage pipeline design, 10^6 elements, as a
    // stream (no graph held): one event per step, 1.6 × 10^7 in all.
    let stages: Vec<String> = (0..STAGES).map(|s| format!("s{s}")).collect();
    let text = format!(
        "{} pipe({})",
        stages
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{s} = {};", 100 + i))
            .collect::<String>(),
        stages.join(", ")
    );
    let design = Design::parse(&text).unwrap();
    for (name, platform) in [
        (
            "16-stage pipeline design, 10^6 elements, 16 cores",
            Machine::new(1, 16),
        ),
        (
            "16-stage pipeline design, 10^6 elements, 2 cores (sharing)",
            Machine::new(1, 2),
        ),
    ] {
        group.throughput(Throughput::Elements((STAGES * 1_000_000) as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let r = Simulation::new(&design, &platform)
                    .elements(1_000_000)
                    .run()
                    .unwrap();
                black_box(r.time_per_element())
            })
        });
    }
    group.finish();
}

/// A design `depth` levels deep of `on`, `groups` and `seq` around one
/// atom (on two processors), the way a fold nests them.
fn deep(depth: usize) -> Design {
    let a = || Term::atom("a", Expr::num(10.0));
    let mut t = a();
    for i in 0..depth {
        t = match i % 3 {
            0 => Term::On(Count::Fixed(1), Box::new(t)),
            1 => Term::Groups(Count::Fixed(1), Box::new(t)),
            _ => Term::seq(t, a()),
        };
    }
    Design::from_term(t).unwrap()
}

/// Planning deep designs: the placements of `on`/`groups` are environments
/// evaluated once, so the time grows with the depth, not its square.
fn bench_deep(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim deep");
    group.sample_size(10);
    let platform = Machine::new(2, 1);
    for depth in [1_000, 10_000, 100_000] {
        let d = deep(depth);
        group.throughput(Throughput::Elements(depth as u64));
        group.bench_function(format!("one element through a design {depth} deep"), |b| {
            b.iter(|| {
                black_box(
                    Simulation::new(&d, &platform)
                        .at(&[("p", 2.0)])
                        .run()
                        .unwrap()
                        .makespan(),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_deep);
criterion_main!(benches);
