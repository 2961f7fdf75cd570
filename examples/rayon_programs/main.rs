//! How fast will my program be? The sort suite's designs written as plain
//! programs, the way a user writes them (rayon pools, std threads joined by
//! bounded crossbeam channels), run for real and set against what the
//! queueing semantics and the simulator predict from the kernels' times.
//!
//! Every point (program, size) runs in [`Args::rounds`] independent
//! processes: the example re-executes itself with a hidden `--child PROGRAM
//! X`; a child times the kernels alone on cold fresh arrays, then runs the
//! program on a stream of fresh random arrays made before the clock starts,
//! and prints one JSON line ([`child::Run`]). Round `r` runs every point
//! once, so the machine's slow phases spread over all points. The parent
//! probes the machine once, predicts each run from that run's own kernel
//! times ([`predict`]) and reports medians over the processes
//! ([`report`]) to `target/rayon_programs.json` and as a markdown table.
//!
//! Run with `cargo run --release --example rayon_programs` (about 2–3 min on
//! 2 cores); `-- --help` lists the options.

mod args;
mod child;
mod predict;
mod programs;
mod report;
mod stats;
#[cfg(test)]
mod tests;

use args::{Args, Mode};
use child::Run;
use pattern_core::exec::probe;
use pattern_core::machine::{Machine, Runtime};
use programs::Program;
use std::collections::BTreeMap;
use std::error::Error;
use std::process::Command;
use std::time::Instant;

/// The sizes of the full run, integers per array.
const SIZES: [usize; 4] = [16_384, 65_536, 131_072, 262_144];

/// The size of a `--quick` run.
const QUICK_SIZE: usize = 16_384;

/// Where the report goes.
const OUT: &str = "target/rayon_programs.json";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args::parse(&args) {
        Ok(Mode::Help) => {
            println!("{}", args::USAGE);
            Ok(())
        }
        Ok(Mode::Child { program, x, quick }) => child::main(&program, x, quick),
        Ok(Mode::Parent(args)) => parent(&args),
        Err(e) => Err(format!("{e}\n\n{}", args::USAGE).into()),
    };
    if let Err(e) = result {
        eprintln!("rayon_programs: {e}");
        std::process::exit(2);
    }
}

/// Probes the machine, runs every point in every round in a child process,
/// predicts each run and reports.
fn parent(args: &Args) -> Result<(), Box<dyn Error>> {
    let started = Instant::now();
    let load_before = load_average();
    let programs = args.programs()?;
    let sizes: Vec<usize> = if args.quick {
        vec![QUICK_SIZE]
    } else {
        SIZES.to_vec()
    };
    let options = if args.quick {
        probe::Options::quick()
    } else {
        probe::Options::new()
    };
    let mut machines: BTreeMap<Runtime, Machine> = BTreeMap::new();
    for program in &programs {
        let runtime = predict::runtime_of(program);
        if let std::collections::btree_map::Entry::Vacant(e) = machines.entry(runtime) {
            e.insert(predict::machine(runtime, &options)?);
        }
    }
    let points: Vec<(Program, usize)> = sizes
        .iter()
        .flat_map(|&x| programs.iter().map(move |p| (p.clone(), x)))
        .collect();
    let mut runs: Vec<Run> = Vec::new();
    for round in 0..args.rounds {
        for (i, (program, x)) in points.iter().enumerate() {
            eprint!(
                "\rround {}/{}, point {}/{}: {} at {x}        ",
                round + 1,
                args.rounds,
                i + 1,
                points.len(),
                program.name()
            );
            let mut run = spawn_child(program, *x, args.quick)?;
            let machine = &machines[&predict::runtime_of(program)];
            (run.queueing, run.simulated) = predict::predict(program, &run.kernels(), *x, machine)?;
            runs.push(run);
        }
    }
    eprintln!();
    let took = started.elapsed();
    let report = report::Report::new(&points, &runs, &machines, args, took);
    println!("{}", report.markdown());
    // Other work on the machine takes cores from the programs' threads:
    // the figures only mean something where the load stayed under the cores.
    let load = [load_before, load_average()];
    println!(
        "Load average (1 min) before and after the run: {}.",
        load.map(|l| l.map_or("-".to_string(), |l| format!("{l:.2}")))
            .join(", ")
    );
    let mut json = report.json();
    json["load_average"] = serde_json::json!(load);
    std::fs::create_dir_all("target")?;
    std::fs::write(OUT, serde_json::to_string_pretty(&json)?)?;
    println!(
        "Written to {OUT}; the run took {:.0} s.",
        took.as_secs_f64()
    );
    Ok(())
}

/// The 1-minute load average, where the system tells it (Linux).
fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Runs `program` at size `x` in a child process and reads its line.
fn spawn_child(program: &Program, x: usize, quick: bool) -> Result<Run, Box<dyn Error>> {
    let mut command = Command::new(std::env::current_exe()?);
    command.args(["--child", &program.name(), &x.to_string()]);
    if quick {
        command.arg("--quick");
    }
    let output = command.output()?;
    if !output.status.success() {
        return Err(format!(
            "the child for {} at {x} failed: {}",
            program.name(),
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let stdout = String::from_utf8(output.stdout)?;
    let line = stdout.lines().last().ok_or("a child printed nothing")?;
    Ok(serde_json::from_str(line)?)
}
