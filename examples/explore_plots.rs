//! Each plot of `pattern_core::explore::plot` once, from the paper's atoms
//! (Table 1), into `target/plots/` as SVG and PNG:
//! - the cost curves of `tpool[4](qsort)` and `tpool[2](seq(inc, inc))`
//!   over x, their crossover marked (`explore::crossover`);
//! - the time per element of `pipe(tpool[n](qsort), inc)` against `n`, with
//!   the queueing prediction on 8 cores and a simulation beside the
//!   operators;
//! - a simulation's dynamic efficiency and Gantt chart.
//!
//! Run with `cargo run --release --example explore_plots`.

use pattern_core::explore::crossover::{Span, design_crossovers};
use pattern_core::explore::plot::{CostCurves, Efficiency, Gantt, Plot, ThreadsPlot};
use pattern_core::explore::sweep::{Axis, ThreadSweep};
use pattern_core::machine::Machine;
use pattern_core::sim::Simulation;
use pattern_core::{Design, Expr};
use std::error::Error;
use std::path::Path;

const ATOMS: &str = "qsort = 1034.17 * x * log2(x); inc = 536.185 * x;";

fn save(plot: &impl Plot, dir: &Path, name: &str) -> Result<(), Box<dyn Error>> {
    for ext in ["svg", "png"] {
        let path = dir.join(format!("{name}.{ext}"));
        plot.save(&path)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let dir = Path::new("target/plots");
    std::fs::create_dir_all(dir)?;

    // Cost curves and their crossover.
    let pool_design = Design::parse(&format!("{ATOMS} tpool[4](qsort)"))?;
    let pair_design = Design::parse(&format!("{ATOMS} tpool[2](seq(inc, inc))"))?;
    let (pool, pair) = (pool_design.model(), pair_design.model());
    let (lo, hi) = (2.0, 1e7);
    let found = design_crossovers(&[pool_design, pair_design], Span::new("x", lo, hi), &[])?;
    let cross: Vec<f64> = found.points.iter().map(|p| p.at).collect();
    // Closed form: 1034.17·x·log2(x)/4 = 536.185·x at log2(x) = 4·536.185/1034.17.
    let exact = 2f64.powf(4.0 * 536.185 / 1034.17);
    println!("crossover at x = {cross:?} (closed form {exact})");
    let x = Axis::parse("x", &format!("{lo}..{hi}:60:log"))?;
    let curves = CostCurves::of_models(
        &[
            ("tpool[4](qsort)", &pool),
            ("tpool[2](seq(inc, inc))", &pair),
            ("qsort", &Expr::parse("1034.17 * x * log2(x)")?),
        ],
        &x,
        &[],
    )?
    .crossovers(&cross)
    .title("tpool[4](qsort) against tpool[2](seq(inc, inc))");
    save(&curves, dir, "cost_curves")?;

    // Time per element against the pool's threads.
    let design = Design::parse(&format!("{ATOMS} pipe(tpool[n](qsort), inc)"))?;
    let counts: Vec<u64> = (1..=12).collect();
    let curve = ThreadSweep::new(&design, "n", &counts, Machine::new(1, 8))
        .at(&[("x", 1e4)])
        .simulate(2000)
        .run()?;
    for p in &curve.points {
        println!(
            "n = {:2}: operators {:>12.0}  queueing {:>12.0}  simulation {:>12.0}",
            p.count,
            p.operators,
            p.queueing,
            p.simulation.unwrap_or(f64::NAN)
        );
    }
    let mut threads = ThreadsPlot::new(curve);
    threads.title = "pipe(tpool[n](qsort), inc) at x = 1e4 on 8 cores".into();
    save(&threads, dir, "threads")?;

    // A simulation's efficiency and Gantt chart: four pool workers and a
    // stage on two cores.
    let run_design = Design::parse(&format!("{ATOMS} pipe(tpool[4](qsort), inc)"))?;
    let two_cores = Machine::new(1, 2);
    let run = Simulation::new(&run_design, &two_cores)
        .at(&[("x", 1e3)])
        .elements(60)
        .trace(true)
        .run()?;
    save(
        &Efficiency {
            run: &run,
            window: run.makespan() / 40.0,
        },
        dir,
        "efficiency",
    )?;
    save(&Gantt { run: &run }, dir, "gantt")?;
    Ok(())
}
