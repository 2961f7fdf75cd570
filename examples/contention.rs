//! When do more threads stop paying? `tpool[n](qsort)` and a pipeline of
//! `n` stages on this machine, for n = 1..8: the plain operators, the
//! queueing semantics (the design as a closed network on the machine's
//! cores, solved by MVA), the simulation (threads pinned to the cores as the
//! executor pins them, the measured atoms and costs as durations), the
//! simulation with direct execution (seed 003: the simulator runs the
//! kernels itself, one at a time, each on the core of its thread) and the
//! executor's measured time per element, its threads pinned.
//!
//! The atoms and the machine's costs are measured first, on this machine:
//! qsort and inc on arrays of `x` ints, the hand-over between two pipeline
//! stages (`pipe(pass, pass)`), between stages that share a core (a
//! pipeline of two `pass` stages per core) and a task pool's take
//! (`tpool[1](pass)`). Every figure is the median of the rounds; each round
//! runs a direct-execution simulation beside the executor's run it predicts
//! (alternating which goes first), and the direct column's error is the
//! median over the rounds of their ratio, since this machine's speed
//! changes by tens of percent from one second to the next.
//!
//! Run with `cargo run --release --example contention` (under a minute);
//! `-- --quick` is a smoke run of a few seconds; `-- --together` runs the
//! kernels of steps that start at the same simulated time at the same time
//! (`Direct::together`).

use pattern_core::Design;
use pattern_core::exec::{Executor, Kernels};
use pattern_core::machine::Machine;
use pattern_core::sim::{Direct, Simulation};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Array length: large enough that the threads' costs are small beside
/// the kernels (seed 001's validation holds from 16,384 on).
const X: usize = 16_384;

fn random_array(x: usize, seed: u64) -> Vec<i32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..x)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s as i32
        })
        .collect()
}

fn qsort(v: &mut [i32]) {
    v.sort_unstable();
}

/// Ten passes of +1 (Table 1's inc).
fn inc(v: &mut [i32]) {
    for _ in 0..10 {
        for e in v.iter_mut() {
            *e = e.wrapping_add(1);
        }
        black_box(&mut *v);
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Mean time of `kernel` over a stream of fresh arrays, ns.
fn time_kernel(kernel: fn(&mut [i32]), elements: usize, seed: u64) -> f64 {
    let mut inputs: Vec<Vec<i32>> = (0..elements)
        .map(|i| random_array(X, seed + i as u64))
        .collect();
    let start = Instant::now();
    for v in &mut inputs {
        kernel(v);
    }
    black_box(&inputs);
    start.elapsed().as_nanos() as f64 / elements as f64
}

/// The executor's steady-state time per element of `d`, ns, its threads
/// pinned to the cores (thread `i` on core `i mod cores`). With more
/// threads than cores, a stage waiting for its neighbour blocks at once
/// instead of spinning (the executor's default spin assumes the waiting
/// stage owns its core).
fn run(kernels: &Kernels<Vec<i32>>, d: &Design, inputs: Vec<Vec<i32>>, cores: usize) -> f64 {
    let mut executor = Executor::new(kernels).pin_threads(true);
    if executor.threads(d.term()).expect("a runnable design") > cores {
        executor = executor.spin(Duration::ZERO);
    }
    let run = executor.run(d.term(), inputs).expect("the run");
    run.metrics
        .inter_departure_ns
        .unwrap_or(run.metrics.makespan_ns / run.metrics.elements as f64)
}

/// The first `n` from which one more thread gains less than 5 %.
fn stops_paying(times: &[f64]) -> usize {
    (1..times.len())
        .find(|&i| times[i] > 0.95 * times[i - 1])
        .unwrap_or(times.len())
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    // Kernels of steps that start together run together (each on its core).
    let together = std::env::args().any(|a| a == "--together");
    let (rounds, target_ms, max_threads) = if quick { (1, 20.0, 4) } else { (15, 40.0, 8) };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let kernels = Kernels::<Vec<i32>>::new()
        .add("qsort", |v: &mut Vec<i32>| qsort(v))
        .add("inc", |v: &mut Vec<i32>| inc(v))
        .add("pass", |_| {});

    // ---- The atoms and the machine, measured ----
    // Streams of 16 MB, as cold in the cache as a run's inputs.
    let per_atom = if quick { 8 } else { 256 };
    let t_qsort = median(
        (0..rounds)
            .map(|r| time_kernel(qsort, per_atom, 100 * r as u64))
            .collect(),
    );
    let t_inc = median(
        (0..rounds)
            .map(|r| time_kernel(inc, per_atom, 7 + 100 * r as u64))
            .collect(),
    );
    let tiny = || {
        (0..if quick { 2_000 } else { 50_000 })
            .map(|_| vec![0])
            .collect::<Vec<_>>()
    };
    let handoff_design = Design::parse("pass = 0; pipe(pass, pass)").expect("a design");
    let take_design = Design::parse("pass = 0; tpool[1](pass)").expect("a design");
    let handoff = median(
        (0..rounds)
            .map(|_| run(&kernels, &handoff_design, tiny(), cores))
            .collect(),
    );
    let take = median(
        (0..rounds)
            .map(|_| run(&kernels, &take_design, tiny(), cores))
            .collect(),
    );

    // Stages sharing a core block while they wait, and every hand-over
    // then switches the core to the other stage: a pipeline of two stages
    // per core, of nothing, costs a core two such hand-overs per element.
    let shared_design = Design::parse(&format!(
        "pass = 0; pipe({})",
        vec!["pass"; 2 * cores].join(", ")
    ))
    .expect("a design");
    let handoff_shared = median(
        (0..rounds)
            .map(|_| run(&kernels, &shared_design, tiny(), cores) / 2.0)
            .collect(),
    );
    let machine = Machine::new(1, cores).with_waiting(|w| w.handoff_ns(handoff).take_ns(take));
    println!("This machine: {cores} cores; x = {X} ints per array");
    println!(
        "Measured: qsort {:.0} ns, inc {:.0} ns per array; hand-over {handoff:.0} ns ({handoff_shared:.0} ns between stages sharing a core), pool take {take:.0} ns\n",
        t_qsort, t_inc
    );

    // ---- The designs, predicted and run ----
    let elements_for =
        |time_per_element: f64| ((target_ms * 1e6 / time_per_element) as usize).clamp(16, 20_000);
    let direct_elements = if quick { 40 } else { 120 };
    // This machine, its threads pinned as the executor pins them.
    let pinned = Machine::new(1, cores).with_waiting(|w| w.pinned(true));
    let mut table = Vec::new();
    for n in 1..=max_threads {
        let pool = format!("qsort = {t_qsort}; tpool[{n}](qsort)");
        let stages = vec!["inc"; n].join(", ");
        let pipe = if n == 1 {
            format!("inc = {t_inc}; inc")
        } else {
            format!("inc = {t_inc}; pipe({stages})")
        };
        let mut row = Vec::new();
        for design in [&pool, &pipe] {
            let d = Design::parse(design).expect("a valid design");
            let plain = d.model().eval(&[]).expect("a number");
            let queued = d
                .queueing(&machine, &[])
                .expect("a prediction")
                .time_per_element;
            let structure = design.split("; ").last().unwrap_or_default().to_string();
            let runnable =
                Design::parse(&format!("qsort = 1; inc = 1; {structure}")).expect("a design");
            let threads = Executor::new(&kernels)
                .threads(runnable.term())
                .expect("threads");
            let handoff = if threads > cores {
                handoff_shared
            } else {
                handoff
            };
            // A stage hands over to a stage on its own core more cheaply.
            let pinned = pinned
                .clone()
                .with_waiting(|w| w.take_ns(take).handoff_ns(handoff));
            let simulated = Simulation::new(&d, &pinned)
                .elements(4000)
                .run()
                .expect("a simulation")
                .time_per_element();
            // Rounds in pairs, the simulation beside the run it predicts:
            // this machine's speed drifts by tens of percent within
            // seconds, and the pair sees the same drift.
            let (mut direct, mut measured) = (Vec::new(), Vec::new());
            for r in 0..rounds {
                // Direct execution: the simulator runs each element's
                // kernels itself, one at a time, each on the core where the
                // pinned executor runs its thread, on inputs made before
                // the run (as cold as the executor's), and simulates the
                // threads sharing the cores with the durations it measured.
                let simulate = || {
                    let mut inputs: Vec<Vec<i32>> = (0..direct_elements)
                        .map(|i| random_array(X, 5000 * r as u64 + i as u64))
                        .collect();
                    Simulation::new(&runnable, &pinned)
                        .elements(direct_elements)
                        .direct(
                            &kernels,
                            |i| std::mem::take(&mut inputs[i]),
                            Direct::new().on_cores(true).together(together),
                        )
                        .run()
                        .expect("a simulation")
                        .time_per_element()
                };
                let execute = || {
                    let inputs = (0..elements_for(queued))
                        .map(|i| random_array(X, 1000 * r as u64 + i as u64))
                        .collect();
                    run(&kernels, &runnable, inputs, cores)
                };
                // Alternate which goes first, so that a steady drift does
                // not favour one.
                let (d, m) = if r % 2 == 0 {
                    let d = simulate();
                    (d, execute())
                } else {
                    let m = execute();
                    (simulate(), m)
                };
                direct.push(d);
                measured.push(m);
            }
            let paired = median(direct.iter().zip(&measured).map(|(d, m)| d / m).collect());
            let (direct, measured) = (median(direct), median(measured));
            row.push((plain, queued, simulated, direct, measured, paired));
        }
        table.push(row);
    }

    for (k, title) in [(0, "tpool[n](qsort)"), (1, "pipe of n inc stages")] {
        println!("{title}: time per element, µs (error against the measured run)");
        println!(
            "| n | plain operators | queueing (MVA) | simulated | simulated, direct execution | measured |"
        );
        println!("|---|---|---|---|---|---|");
        for (i, row) in table.iter().enumerate() {
            let (plain, queued, simulated, direct, measured, paired) = row[k];
            let err = |v: f64| 100.0 * (v / measured - 1.0);
            println!(
                "| {} | {:.1} ({:+.0} %) | {:.1} ({:+.0} %) | {:.1} ({:+.0} %) | {:.1} ({:+.0} %) | {:.1} |",
                i + 1,
                plain / 1e3,
                err(plain),
                queued / 1e3,
                err(queued),
                simulated / 1e3,
                err(simulated),
                direct / 1e3,
                100.0 * (paired - 1.0),
                measured / 1e3
            );
        }
        let direct: Vec<f64> = table.iter().map(|r| r[k].3).collect();
        let worst = (table.iter())
            .map(|r| (r[k].5 - 1.0).abs())
            .fold(0.0, f64::max);
        println!(
            "Direct execution against the run beside it (median over the rounds of their ratio): worst error {:.1} % (n = 1..{}).",
            100.0 * worst,
            table.len()
        );
        let measured: Vec<f64> = table.iter().map(|r| r[k].4).collect();
        let simulated: Vec<f64> = table.iter().map(|r| r[k].2).collect();
        let queued: Vec<f64> = table.iter().map(|r| r[k].1).collect();
        let plain: Vec<f64> = table.iter().map(|r| r[k].0).collect();
        println!(
            "Adding threads stops paying (< 5 % gain) at n = {} measured, {} by the queueing model, {} simulated ({} with direct execution), {} by the plain operators.\n",
            stops_paying(&measured),
            stops_paying(&queued),
            stops_paying(&simulated),
            stops_paying(&direct),
            stops_paying(&plain)
        );
    }
}
