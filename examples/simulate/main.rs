//! The discrete-event simulator (seed 003) on this project's designs and on
//! a flow graph: a pipeline's fill and drain, task pools beyond the cores
//! against the operators, a scatter and gather over shared links with its
//! dynamic efficiency, and a Chrome trace of it written to
//! `target/simulate-trace.json` (open it in Perfetto or chrome://tracing).
//! Run with `cargo run --release --example simulate`;
//! `-- --pipeline N` times a 16-stage pipeline of N elements (for
//! `scripts/simpy_pipeline.py`) and prints the seconds and the makespan.
mod lu;

use pattern_core::Design;
use pattern_core::machine::Machine;
use pattern_core::sim::{Simulation, TaskGraph};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--pipeline") {
        let n: usize = args.get(i + 1).ok_or("--pipeline N")?.parse()?;
        return time_pipeline(n);
    }

    println!("The paper's pipeline of qsort, inc and nop at x = 16384 on 3 cores:");
    let pipe = Design::parse(
        "qsort = 1034.17*x*log2(x); inc = 536.185*x; nop = 5422.97; pipe(qsort, inc, nop)",
    )?;
    let at = [("x", 16384.0)];
    let three = Machine::new(1, 3);
    println!(
        "  operators: {:.2} ms per element, latency {:.2} ms",
        pipe.model().eval(&at)? / 1e6,
        pipe.latency().eval(&at)? / 1e6
    );
    for elements in [1, 10, 100, 10_000] {
        let r = Simulation::new(&pipe, &three)
            .at(&at)
            .elements(elements)
            .run()?;
        // Too short a run has no steady state: its figure is the makespan's.
        let steady = match r.steady_state() {
            Some(s) if s.steady => "steady".to_string(),
            Some(s) => format!("not steady, {} elements needed", s.elements_needed),
            None => String::new(),
        };
        println!(
            "  {elements:>6} elements: makespan {:>9.2} ms, {:.3} ms per element ({steady}; fill and drain included: {:.3})",
            r.makespan() / 1e6,
            r.time_per_element() / 1e6,
            r.makespan() / elements as f64 / 1e6
        );
    }

    println!("\ntpool[n](qsort) at x = 16384 on 2 cores, 2,000 elements:");
    let pool = Design::parse("qsort = 1034.17*x*log2(x); tpool[n](qsort)")?;
    let two = Machine::new(1, 2);
    for n in [1.0, 2.0, 4.0, 8.0] {
        let at = [("x", 16384.0), ("n", n)];
        let r = Simulation::new(&pool, &two).at(&at).elements(2000).run()?;
        println!(
            "  n = {n}: operators {:>6.2} ms, simulated {:>6.2} ms per element; median latency {:>6.2} ms",
            pool.model().eval(&at)? / 1e6,
            r.time_per_element() / 1e6,
            r.latency_percentile(50.0).unwrap_or(f64::NAN) / 1e6
        );
    }

    println!("\nA scatter and gather on 4 nodes of 2 cores over 12.5 B/ns links:");
    let mut g = TaskGraph::new();
    let prepare = g.compute(0, 1e6, &[]);
    let mut back = Vec::new();
    for node in 1..4 {
        let block = g.transfer(0, node, 8e6, &[prepare]);
        let work: Vec<_> = (0..2).map(|_| g.compute(node, 2e6, &[block])).collect();
        back.push(g.transfer(node, 0, 8e6, &work));
    }
    g.compute(0, 1e6, &back);
    let cluster = Machine::new(4, 2).latency(50_000.0).bandwidth(12.5);
    let r = Simulation::graph(&g, &cluster).run()?;
    println!(
        "  makespan {:.2} ms; cores busy per node: {:?}",
        r.makespan() / 1e6,
        percents(&r.core_utilization())
    );
    for (t, e) in r.dynamic_efficiency(1e6) {
        println!(
            "  {:>4.1} ms {:>5.1} % {}",
            t / 1e6,
            100.0 * e,
            "#".repeat((40.0 * e).round() as usize)
        );
    }
    std::fs::create_dir_all("target")?;
    std::fs::write("target/simulate-trace.json", r.trace_json())?;
    println!("  trace: target/simulate-trace.json");

    map_reduce()?;
    lu_figures()
}

/// Seed 001's Hadoop histogram as a design on 4 nodes of 2 cores: its
/// shuffle as the model's time, then as transfers over 1 Gb/s Ethernet;
/// and a task pool that loses workers during the run.
fn map_reduce() -> Result<(), Box<dyn std::error::Error>> {
    use pattern_core::sim::{Change, Shuffle, When};
    let hadoop = Design::parse(
        "map = 3.529e7; shuffle = 0.125*(m*n - 1)/(m*n)*12288*x; reduce = 9376*x; \
         mapreduce[m = 4, n = 2, d = x, k = 768](map, shuffle, reduce)",
    )?;
    let at = [("x", 1024.0)];
    let cluster = Machine::new(4, 2).latency(50_000.0).bandwidth(0.125);
    println!("\nSeed 001's Hadoop histogram on 4 nodes of 2 cores, jobs of x = 1024 images:");
    println!(
        "  operators (eq. 5): {:.2} s per job",
        hadoop.model().eval(&at)? / 1e9
    );
    let r = Simulation::new(&hadoop, &cluster)
        .at(&at)
        .elements(20)
        .run()?;
    println!(
        "  simulated, shuffle as its model: {:.2} s per job",
        r.time_per_element() / 1e9
    );
    // 12288 bytes per image over 768 keys: 16·x bytes per key.
    let r = Simulation::new(&hadoop, &cluster)
        .at(&at)
        .elements(20)
        .shuffle(Shuffle::BytesPerKey(16.0 * 1024.0))
        .trace(true)
        .run()?;
    println!(
        "  simulated, shuffle as all-to-all transfers: {:.2} s per job (each link busy {:.2} % of the run)",
        r.time_per_element() / 1e9,
        100.0 * r.link_utilization()[0].0
    );
    std::fs::write("target/simulate-mapreduce-trace.json", r.trace_json())?;
    println!("  trace: target/simulate-mapreduce-trace.json");

    let pool = Design::parse("qsort = 1034.17*x*log2(x); tpool[4](qsort)")?;
    let four = Machine::new(1, 4);
    let at = [("x", 16384.0)];
    let full = Simulation::new(&pool, &four).at(&at).elements(2000).run()?;
    let shrunk = Simulation::new(&pool, &four)
        .at(&at)
        .elements(2000)
        .change(
            When::Left(1000),
            Change::Workers {
                pool: 0,
                workers: 2,
            },
        )
        .run()?;
    println!(
        "tpool[4](qsort) on 4 cores, 2,000 elements: {:.1} s; 2 workers removed after 1,000: {:.1} s",
        full.makespan() / 1e9,
        shrunk.makespan() / 1e9
    );
    Ok(())
}

/// Seed 003's LU factorization of a 2592 × 2592 matrix on UltraSparc II
/// nodes over Fast Ethernet.
fn lu_figures() -> Result<(), Box<dyn std::error::Error>> {
    let n = 2592;
    // One rate for every operation, fitted from the serial run (185.1 s).
    let rate = lu::flops(n, 216) / 185.1e9;
    let ethernet = |nodes| Machine::new(nodes, 1).latency(100_000.0).bandwidth(0.0125);
    println!(
        "\nSeed 003's LU of 2592 x 2592 (serial 185.1 s: {:.1} Mflop/s), Fast Ethernet:",
        rate * 1e3
    );
    for (nodes, r, pipelined, seed) in [
        (8, 216, false, "measured 62.3 s, seed's simulator 60.3 s"),
        (8, 216, true, ""),
        (4, 162, false, ""),
        (
            4,
            162,
            true,
            "best measured 72.5 s, seed's simulator 75.5 s",
        ),
    ] {
        let (g, _) = lu::graph(n, r, nodes, rate, pipelined, None);
        let r_run = Simulation::graph(&g, &ethernet(nodes)).run()?;
        println!(
            "  {nodes} nodes, r = {r}, {}: {:.1} s  {seed}",
            if pipelined { "pipelined" } else { "basic" },
            r_run.makespan() / 1e9
        );
    }
    let (g, _) = lu::graph(n, 216, 8, rate, false, None);
    let run = Simulation::graph(&g, &ethernet(8)).run()?;
    std::fs::write(
        "target/simulate-lu-efficiency.svg",
        run.efficiency_svg(1e9)?,
    )?;
    std::fs::write("target/simulate-lu-gantt.svg", run.gantt_svg()?)?;
    println!(
        "  plots of the 8-node basic run: target/simulate-lu-efficiency.svg, target/simulate-lu-gantt.svg"
    );
    println!(
        "  dynamic efficiency per iteration, r = 324, basic (seed: first iteration 60.2 % on 4 nodes, 37.6 % on 8):"
    );
    for (name, nodes, shrink) in [
        ("4 nodes", 4, None),
        ("8 nodes", 8, None),
        ("8 nodes, 4 removed after iteration 1", 8, Some((1, 4))),
    ] {
        let (g, iterations) = lu::graph(n, 324, nodes, rate, false, shrink);
        let run = Simulation::graph(&g, &ethernet(nodes)).run()?;
        let mut start = 0.0;
        let mut line = Vec::new();
        for (k, ends) in iterations.iter().enumerate() {
            let end = ends.iter().map(|&t| run.finish(t)).fold(0.0, f64::max);
            let allocated = match shrink {
                Some((from, keep)) if k >= from => keep,
                _ => nodes,
            };
            let work = lu::iteration_flops(n, 324, k) / rate;
            line.push(format!(
                "{:.0} %",
                100.0 * work / (allocated as f64 * (end - start))
            ));
            start = end;
        }
        println!(
            "    {name}: {:.1} s; {}",
            run.makespan() / 1e9,
            line.join(", ")
        );
    }
    Ok(())
}

/// The 16-stage pipeline of `scripts/simpy_pipeline.py`, timed.
fn time_pipeline(n: usize) -> Result<(), Box<dyn std::error::Error>> {
    let stages: Vec<String> = (0..16).map(|s| format!("s{s}")).collect();
    let defs: String = stages
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{s} = {};", 100 + i))
        .collect();
    let design = Design::parse(&format!("{defs} pipe({})", stages.join(", ")))?;
    let platform = Machine::new(1, 16);
    let start = Instant::now();
    let r = Simulation::new(&design, &platform).elements(n).run()?;
    println!("{} {}", start.elapsed().as_secs_f64(), r.makespan());
    Ok(())
}

fn percents(values: &[f64]) -> Vec<String> {
    values
        .iter()
        .map(|v| format!("{:.0} %", 100.0 * v))
        .collect()
}
