//! A bounded random-input fuzzer for every reader and what follows it:
//! `Expr::parse`, `Design::parse`, the Extra-P readers,
//! `MachineProfile::from_json`, machine and network files, serde of `Expr`,
//! and the command line itself (docs/reliability.md, "Fuzzing").
//!
//! ```text
//! cargo run --release --example fuzz -- --target all --inputs 1000000
//! ```
//!
//! The parent runs the inputs in a worker process (this program again, on
//! a 2 MiB thread), which reports each input as it starts and ends: a
//! panic is caught and reported by the worker, an abort (a stack overflow,
//! a huge allocation) ends the worker and a hang stops its reports; either
//! way the parent records the input, starts a new worker after it, and goes
//! on. Input `i` of a target is generated from the seed and `i` alone, so
//! every finding replays with `--replay i`.

mod cli;
/// The CUBE profiles of the tests, written for the `extrap-cube` target.
#[path = "../../tests/common/cube.rs"]
mod cube_profiles;
mod exact_sum;
mod extrap;
mod generate;
mod invariants;
mod jmva;
mod targets;

use clap::Parser;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use targets::{SELF_TEST, TARGETS, Target};

/// The targets, then the driver's self-test (selected by name only).
fn target(i: usize) -> &'static Target {
    TARGETS.get(i).unwrap_or(&SELF_TEST)
}

#[derive(Parser, Debug)]
#[command(about = "Random inputs through every reader of pattern and what follows it")]
struct Args {
    /// A target name, or `all`.
    #[arg(long, default_value = "all")]
    target: String,
    /// Inputs per target.
    #[arg(long, default_value_t = 10_000)]
    inputs: u64,
    /// The seed of the inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// An input running longer than this is a hang (milliseconds): four
    /// times the few seconds within which the command line's own limits
    /// (`--max-steps`, `--max-events`) end any work on the 2-core machine,
    /// so that a loaded machine does not count a refusal as a hang.
    #[arg(long, default_value_t = 20_000)]
    timeout_ms: u64,
    /// Stop a target after this many seconds (the inputs run so far are
    /// counted and reported); progress goes to standard error each minute.
    #[arg(long)]
    seconds: Option<u64>,
    /// Where the findings are written.
    #[arg(long, default_value = "target/fuzz")]
    out: PathBuf,
    /// List the targets and what each runs.
    #[arg(long)]
    list: bool,
    /// Run and print one input of the target (to reproduce a finding).
    #[arg(long)]
    replay: Option<u64>,
    /// Internal: run inputs `from..to` and report each on stdout.
    #[arg(long, hide = true, num_args = 2)]
    worker: Option<Vec<u64>>,
}

/// The random source of input `index` of a target.
fn rng_of(seed: u64, target: usize, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(((target as u64) << 48) ^ index);
    rng
}

/// What happened to one input.
#[derive(Debug, Clone, PartialEq)]
enum Finding {
    Panic(String),
    Abort(String),
    Hang,
    Invariant(String),
}

impl Finding {
    fn kind(&self) -> &'static str {
        match self {
            Finding::Panic(_) => "panic",
            Finding::Abort(_) => "abort",
            Finding::Hang => "hang",
            Finding::Invariant(_) => "invariant",
        }
    }
}

/// Runs input `index` in this process; a panic comes back as a finding.
fn run_one(which: usize, seed: u64, index: u64) -> Option<Finding> {
    let t = target(which);
    let mut rng = rng_of(seed, which, index);
    let input = (t.input)(&mut rng);
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (t.run)(&input, &mut rng))) {
        Ok(Ok(())) => None,
        Ok(Err(broken)) => Some(Finding::Invariant(broken)),
        Err(panic) => Some(Finding::Panic(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        )),
    }
}

/// The worker: runs `from..to` on a 2 MiB thread, one line per event.
fn worker(target: usize, seed: u64, from: u64, to: u64) -> ExitCode {
    std::panic::set_hook(Box::new(|_| {}));
    // Whatever the command line writes goes to the worker's own directory.
    let scratch = cli::scratch(std::process::id());
    if std::fs::create_dir_all(&scratch)
        .and_then(|()| std::env::set_current_dir(&scratch))
        .is_err()
    {
        return ExitCode::FAILURE;
    }
    let thread = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let stdout = std::io::stdout();
            for index in from..to {
                let mut out = stdout.lock();
                let _ = writeln!(out, "start {index}");
                let _ = out.flush();
                drop(out);
                let finding = run_one(target, seed, index);
                let mut out = stdout.lock();
                match finding {
                    None => {}
                    Some(f) => {
                        let detail = match &f {
                            Finding::Panic(m) | Finding::Invariant(m) => m.replace('\n', " "),
                            _ => String::new(),
                        };
                        let _ = writeln!(out, "{} {index} {detail}", f.kind());
                    }
                }
                let _ = writeln!(out, "end {index}");
                let _ = out.flush();
            }
        });
    match thread.map(|t| t.join()) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

/// The counts of one target's run.
#[derive(Default, Debug)]
struct Summary {
    inputs: u64,
    findings: Vec<(u64, Finding)>,
    seconds: f64,
}

/// Runs `0..inputs` of a target through workers, restarting after aborts and
/// hangs.
fn fuzz(which: usize, args: &Args) -> std::io::Result<Summary> {
    let exe = std::env::current_exe()?;
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut next = 0;
    let budget = args.seconds.map(Duration::from_secs);
    let mut reported = Instant::now();
    while next < args.inputs {
        if budget.is_some_and(|b| started.elapsed() >= b) {
            break;
        }
        let mut child = Command::new(&exe)
            .args([
                "--target",
                target(which).name,
                "--seed",
                &args.seed.to_string(),
            ])
            .args(["--worker", &next.to_string(), &args.inputs.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let scratch = cli::scratch(child.id());
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut running: Option<u64> = None;
        let timeout = Duration::from_millis(args.timeout_ms);
        loop {
            if reported.elapsed() >= Duration::from_secs(60) {
                reported = Instant::now();
                eprintln!(
                    "{}: {} inputs, {} findings, {:.0} s",
                    target(which).name,
                    summary.inputs,
                    summary.findings.len(),
                    started.elapsed().as_secs_f64()
                );
            }
            if running.is_none() && budget.is_some_and(|b| started.elapsed() >= b) {
                let _ = child.kill();
                let _ = child.wait();
                let _ = std::fs::remove_dir_all(&scratch);
                break;
            }
            match rx.recv_timeout(timeout) {
                Ok(Ok(line)) => {
                    let mut words = line.splitn(3, ' ');
                    let (kind, index) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
                    let index: u64 = index.parse().unwrap_or(0);
                    let detail = words.next().unwrap_or("").to_string();
                    match kind {
                        "start" => running = Some(index),
                        "end" => {
                            running = None;
                            next = index + 1;
                            summary.inputs += 1;
                        }
                        "panic" => summary.findings.push((index, Finding::Panic(detail))),
                        "invariant" => summary.findings.push((index, Finding::Invariant(detail))),
                        _ => {}
                    }
                }
                Ok(Err(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                    // The worker ended: done, or aborted on `running`.
                    let status = child.wait()?;
                    let _ = std::fs::remove_dir_all(&scratch);
                    if let Some(index) = running {
                        summary
                            .findings
                            .push((index, Finding::Abort(status.to_string())));
                        summary.inputs += 1;
                        next = index + 1;
                    }
                    break;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(index) = running {
                        let _ = child.kill();
                        let _ = child.wait();
                        let _ = std::fs::remove_dir_all(&scratch);
                        summary.findings.push((index, Finding::Hang));
                        summary.inputs += 1;
                        next = index + 1;
                        break;
                    }
                }
            }
        }
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Writes each finding's input to `out/<target>/<kind>-<index>.txt`.
fn save(which: usize, args: &Args, summary: &Summary) -> std::io::Result<()> {
    let dir = args.out.join(target(which).name);
    std::fs::create_dir_all(&dir)?;
    for (index, finding) in &summary.findings {
        let input = (target(which).input)(&mut rng_of(args.seed, which, *index));
        let text = format!(
            "{finding:?}\n--- input {index} (seed {}):\n{input}\n",
            args.seed
        );
        std::fs::write(dir.join(format!("{}-{index}.txt", finding.kind())), text)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    let selected: Vec<usize> = if args.target == SELF_TEST.name {
        vec![TARGETS.len()]
    } else {
        TARGETS
            .iter()
            .enumerate()
            .filter(|(_, t)| args.target == "all" || args.target == t.name)
            .map(|(i, _)| i)
            .collect()
    };
    if selected.is_empty() {
        let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        eprintln!(
            "unknown target `{}`: the targets are all, {}",
            args.target,
            names.join(", ")
        );
        return ExitCode::FAILURE;
    }
    if args.list {
        for t in TARGETS {
            println!("{:<12} {}", t.name, t.about);
        }
        return ExitCode::SUCCESS;
    }
    if let Some([from, to]) = args.worker.as_deref() {
        return worker(selected[0], args.seed, *from, *to);
    }
    if let Some(index) = args.replay {
        for &t in &selected {
            let input = (target(t).input)(&mut rng_of(args.seed, t, index));
            println!("{} input {index}:\n{input}", target(t).name);
            println!("=> {:?}", run_one(t, args.seed, index));
        }
        return ExitCode::SUCCESS;
    }
    let mut found = 0;
    println!(
        "{:<12} {:>9} {:>7} {:>7} {:>6} {:>10} {:>8}",
        "target", "inputs", "panics", "aborts", "hangs", "invariant", "seconds"
    );
    for &t in &selected {
        let summary = match fuzz(t, &args) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{}: cannot run a worker: {e}", target(t).name);
                return ExitCode::FAILURE;
            }
        };
        let count = |kind: &str| {
            summary
                .findings
                .iter()
                .filter(|(_, f)| f.kind() == kind)
                .count()
        };
        println!(
            "{:<12} {:>9} {:>7} {:>7} {:>6} {:>10} {:>8.1}",
            target(t).name,
            summary.inputs,
            count("panic"),
            count("abort"),
            count("hang"),
            count("invariant"),
            summary.seconds
        );
        for (index, finding) in summary.findings.iter().take(5) {
            println!("    input {index}: {finding:?}");
        }
        if let Err(e) = save(t, &args, &summary) {
            eprintln!("cannot save the findings: {e}");
        }
        found += summary.findings.len();
    }
    if found == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every target runs inputs in-process without a finding (the long runs
    /// are the CLI's).
    #[test]
    fn every_target_runs_clean_in_process() {
        for (t, target) in TARGETS.iter().enumerate() {
            for index in 0..60 {
                let finding = run_one(t, 7, index);
                assert_eq!(finding, None, "{} input {index}", target.name);
            }
        }
    }

    /// Inputs are reproducible from the seed and the index alone.
    #[test]
    fn inputs_replay() {
        for (t, target) in TARGETS.iter().enumerate() {
            let a = (target.input)(&mut rng_of(3, t, 42));
            let b = (target.input)(&mut rng_of(3, t, 42));
            let c = (target.input)(&mut rng_of(3, t, 43));
            assert_eq!(a, b);
            assert_ne!(a, c, "{}", target.name);
        }
    }
}
