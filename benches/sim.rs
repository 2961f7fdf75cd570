//! Benchmarks of the flow-graph simulator: a 16-stage pipeline written as
//! a flow graph (stage s of element i after stage s of element i − 1 and
//! stage s − 1 of element i), on one node of 16 cores and of 2 cores
//! (processor sharing), and with a transfer between every two stages over
//! 4 nodes. Events per second are the tasks simulated over the median time.
//! And one element through designs 10^3 to 10^5 levels deep, for the
//! planner's growth with depth.
//! Run with `cargo bench --bench sim`.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pattern_core::machine::Machine;
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
    let platform = Machine::new(4, 4).latency(1000.0).bandwidth(10.0);
    group.bench_function(
        "16-stage pipeline over 4 nodes with transfers, 10^5 elements",
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
