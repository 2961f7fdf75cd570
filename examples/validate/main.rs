//! Validation against reality (seed 001 §4 on this machine): measures the
//! atoms qsort, inc, nop and the histogram's map, reduce and gathering as
//! the executor runs them ([`histogram`]), fits
//! their models, composes the models of the paper's configurations (seq,
//! `tpool[n]`, pipe of qsort/inc/nop; the histogram mapReduce of §4.1.2 on a
//! generated image), runs every configuration for real with the executor at
//! every size, fits the whole runs and prints the paper's Table 2 for this
//! machine: monolithic model, modular model, relative error — plain and with
//! the hand-over between threads as an atom. Writes every measurement to a
//! JSON file.
//!
//! Run with `cargo run --release --example validate` (12–17 min on 2
//! cores); `-- --help` lists the options (rounds, run length, one suite,
//! unpinned threads, no speed probe, `--quick` for a smoke test).
//!
//! The end-to-end validation (seed 001 §4, on this machine): measure the
//! atoms → fit their models → compose the design's model → run the whole
//! design at every size → fit the whole run → compare.
//!
//! A [`Suite`] holds a kernel registry, a generator of elements of size `x`,
//! the atoms to measure ([`Suite::measure`] for element kernels,
//! [`Suite::probe`] for anything else) and the configurations to run
//! ([`Suite::case`], design structures over the atoms). [`Suite::run`]
//! measures in [`Settings::rounds`] rounds, size by size:
//!
//! 1. the hand-over between two threads as an atom of its own, `handoff`:
//!    the steady-state time per element of `pipe(pass, pass)` with
//!    do-nothing stages, run by the [`Executor`];
//! 2. for every configuration: the element atoms it uses, each timed the
//!    way a run calls it — on a stream of elements built one after the
//!    other and followed by [`Settings::cold_bytes`] of other writes, as
//!    cold as a run's, the timing being the stream's mean
//!    ([`Settings::atom_stream`]); warm, with [`Suite::with_cache_reuse`];
//!    co-run with every other core running it too, for atoms in task pools,
//!    with [`Suite::with_contention`]); the configuration run by the
//!    [`Executor`] on enough elements for
//!    about [`Settings::run_target`]; the atoms timed again. A run
//!    disturbed by other load (threads waiting for a core, or cores taken
//!    by the hypervisor, [`Settings::max_wait_share`],
//!    [`Settings::max_steal_share`]) or by a change of the machine's speed
//!    ([`Settings::max_speed_change`]) is repeated.
//!
//! On this shared 2-core virtual machine the speed of memory-bound code
//! changes all the time, and each core on its own: a reference kernel runs
//! at two levels about 1.45x apart (sometimes far slower), staying on one
//! for milliseconds to seconds, and one core is slow while the other is
//! fast in about a third of the readings. So atoms and runs are interleaved
//! finely, compared by medians over many rounds, and stated at one
//! reference speed: the runs' threads are pinned to known cores
//! ([`Settings::pin_threads`]), the atoms are timed on the first core, a
//! [`SpeedProbe`] is read on every core before and after every atom timing
//! and every run, and each timing is multiplied by the factor that states
//! it at the reference ([`SpeedProbe::factor`] for an atom; for a run the
//! design's time at the reference over its time at the cores' speeds,
//! [`time_at_core_speeds`]). The figures as measured are kept beside
//! ([`SizeResult::error_raw`]). The hypervisor also takes cores away for
//! milliseconds at a time; the executor measures how much of each thread's
//! time it took ([`Metrics::steal_share`]) and runs that lost more than
//! [`Settings::max_steal_share`] are repeated.
//!
//! Then, per configuration and size:
//!
//! - the *composed prediction* ([`SizeResult::error`], the headline): the
//!   operators ([`Design::model`](pattern_core::Design::model)) applied to
//!   the atoms' median times at that size, against the median of the runs;
//! - the *modular model*: the operators applied to the atoms' fitted models
//!   ([`Fitter`]), against the *monolithic model* fitted from the whole
//!   runs, by the relative error of their leading coefficients as in the
//!   paper (refitted within the modular model's class where the fitter
//!   chose another, as the paper forced Extra-P to), and pointwise
//!   ([`SizeResult::model_error`]);
//! - the same with a *refined* model: the hand-over added at every pipeline
//!   boundary ([`with_handoff`]), where an atom follows another on the
//!   same thread its warm variant ([`with_cache_reuse`]), and in a task
//!   pool the memory contention between its workers ([`with_contention`]).
//!
//! The harness lives in this example's modules: [`suite`] (a suite: its
//! atoms and configurations), [`cases`] (a configuration and what its
//! design runs), [`rounds`] (the protocol: rounds, sizes, runs),
//! [`atoms`] (atom timing), [`handoffs`] (the hand-overs timed as
//! atoms), [`variants`] (an atom's variants),
//! [`waking`] and [`wake`] (what waking a thread costs, for a design and
//! for the machine), [`refinements`] (hand-over, cache reuse,
//! contention), [`machine_aware`] (the queueing and simulated
//! predictions), [`core_speeds`] (the operators at the cores' speeds),
//! [`probe`] (the speed probe), [`compare`] (a configuration's runs
//! against its models), [`report`] (the report and its tables),
//! [`settings`], [`error`], and the suites: [`sort`] and [`histogram`]
//! (the mapReduce's job and atoms).

mod atoms;
mod cases;
mod compare;
mod core_speeds;
mod error;
mod handoffs;
mod histogram;
mod machine_aware;
mod probe;
mod refinements;
mod report;
mod rounds;
mod settings;
mod sort;
mod suite;
#[cfg(test)]
mod tests;
mod variants;
mod wake;
mod waking;

use error::ValidationError;
use histogram::histogram_suite;
use pattern_core::exec::Cores;
use report::{Acceptance, ErrorSummary, Machine, Report, SuiteReport};
use settings::Settings;
use sort::sort_suite;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
#[cfg(doc)]
use {
    core_speeds::time_at_core_speeds,
    pattern_core::{Term, exec::Executor, exec::Metrics, fit::Fitter},
    probe::SpeedProbe,
    refinements::{with_cache_reuse, with_contention, with_handoff},
    report::SizeResult,
    suite::Suite,
};

/// Validation against reality: measure the atoms, compose, run, compare.
#[derive(clap::Parser)]
struct Args {
    /// Where to write every measurement as JSON.
    #[arg(long, default_value = "target/validation.json")]
    out: String,
    /// Interleaved rounds (default 11; the mapReduce takes at most 3).
    #[arg(long)]
    rounds: Option<usize>,
    /// Time per run of a configuration, ms (default 15).
    #[arg(long)]
    run_ms: Option<u64>,
    /// Timings of an atom before and after each run (default 2).
    #[arg(long)]
    reps: Option<usize>,
    /// How long a pipeline stage spins before it blocks, µs (default 100;
    /// 0 blocks at once).
    #[arg(long)]
    spin_us: Option<u64>,
    /// MiB of other writes between an atom's inputs and its timing, to make
    /// them as cold as a run's elements (default 192).
    #[arg(long)]
    cold_mib: Option<usize>,
    /// How long one timing of an element atom runs, ms: the mean over a
    /// stream of cold elements (default 4; 0 times single calls)
    #[arg(long)]
    atom_ms: Option<u64>,
    /// Run one suite only.
    #[arg(long, value_enum)]
    suite: Option<SuiteName>,
    /// Run only the configurations whose design contains this text (e.g.
    /// `pipe(`).
    #[arg(long)]
    only: Option<String>,
    /// Let the scheduler place the threads (default: pinned to cores).
    #[arg(long)]
    no_pin: bool,
    /// Compare timings as measured, without the speed probe.
    #[arg(long)]
    no_probe: bool,
    /// State the runs as if the hypervisor had not taken time from their
    /// threads.
    #[arg(long)]
    discount_steal: bool,
    /// One round, tiny runs: a smoke test whose numbers mean little.
    #[arg(long)]
    quick: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SuiteName {
    Sort,
    Histogram,
}

/// The settings `args` ask for; pinned, with this machine's waiting
/// measured once, before any suite (the simulations' machine).
fn settings_of(args: &Args) -> Settings {
    let mut settings = if args.quick {
        Settings::quick()
    } else {
        Settings::default()
    };
    if let Some(r) = args.rounds {
        settings.rounds = r.max(1);
    }
    if let Some(ms) = args.run_ms {
        settings.run_target = Duration::from_millis(ms);
    }
    if let Some(r) = args.reps {
        settings.atom_repetitions = r.max(1);
    }
    if let Some(us) = args.spin_us {
        settings.spin = Duration::from_micros(us);
    }
    if let Some(mib) = args.cold_mib {
        settings.cold_bytes = mib << 20;
    }
    if let Some(ms) = args.atom_ms {
        settings.atom_stream = Duration::from_millis(ms);
    }
    settings.pin_threads = !args.no_pin;
    settings.normalize_speed = !args.no_probe;
    settings.discount_steal = args.discount_steal;
    if settings.pin_threads {
        let samples = if args.quick { 20 } else { 400 };
        if let Some(w) = wake::measure(&Cores::of_current_thread(), samples) {
            settings.waiting = w.waiting();
            let us = |ns: Option<f64>| {
                ns.map_or("(unknown)".to_string(), |v| format!("{:.1} µs", v / 1e3))
            };
            eprintln!(
                "validate: a thread woken on a busy core runs after {:.1} µs, a waiting one \
                 polls {} before it sleeps, a wake-up in vain costs its core {}, waking a \
                 thread asleep on a free core costs the waker {:.1} µs (medians of {samples})",
                w.latency / 1e3,
                us(w.spin),
                us(w.cost),
                w.waker / 1e3
            );
        }
    }
    settings
}

/// The histogram suite's settings beside `settings`: a job of the
/// mapReduce runs alone (no fill, no drain), so fewer rounds and elements
/// suffice.
fn histogram_settings(settings: &Settings, quick: bool) -> Settings {
    Settings {
        rounds: settings.rounds.min(3),
        acceptance_from: 2048,
        min_elements: if quick { 2 } else { 8 },
        run_target: if quick {
            Duration::from_millis(1)
        } else {
            Duration::from_millis(300)
        },
        ..settings.clone()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = <Args as clap::Parser>::parse();
    let started = Instant::now();
    let before = Machine::now();
    let settings = settings_of(&args);
    let histogram_settings = histogram_settings(&settings, args.quick);
    eprintln!(
        "validate: {} cores, load average {}; {} rounds (about 15 min)",
        before.cores,
        before.load_average.map_or("unknown".into(), |l| format!(
            "{:.2} {:.2} {:.2}",
            l[0], l[1], l[2]
        )),
        settings.rounds
    );
    let mut log = |line: &str| eprintln!("  {line} ({:.0} s)", started.elapsed().as_secs_f64());
    let mut suites: Vec<SuiteReport> = Vec::new();
    let mut records = BTreeMap::new();
    let run = |r: Result<SuiteReport, ValidationError>| r.map_err(|e| e.to_string());
    let wanted = |name: SuiteName| args.suite.is_none_or(|s| s == name);
    let only = args.only.as_deref();
    let sort = sort_suite().only(only);
    if wanted(SuiteName::Sort) && !sort.cases.is_empty() {
        let report = run(sort.run(&settings, &mut log))?;
        records.insert(report.name.clone(), settings.record());
        suites.push(report);
    }
    let histogram = histogram_suite().only(only);
    if wanted(SuiteName::Histogram) && !histogram.cases.is_empty() {
        let report = run(histogram.run(&histogram_settings, &mut log))?;
        records.insert(report.name.clone(), histogram_settings.record());
        suites.push(report);
    }

    let acceptance = Acceptance::of(&suites, settings.acceptance_from, settings.acceptance_limit);
    let report = Report {
        machine_before: before,
        machine_after: Machine::now(),
        settings: records,
        suites,
        acceptance,
        seconds: started.elapsed().as_secs_f64(),
    };
    print(&report);
    if let Some(dir) = std::path::Path::new(&args.out).parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&args.out, serde_json::to_string_pretty(&report)?)?;
    println!("\nEvery measurement: {}", args.out);
    Ok(())
}

fn print(report: &Report) {
    let load = |m: &Machine| {
        m.load_average
            .map_or("unknown".into(), |l| format!("{:.2}", l[0]))
    };
    println!(
        "# Validation on this machine: {} cores, load average {} before and {} after, {:.0} s\n",
        report.machine_before.cores,
        load(&report.machine_before),
        load(&report.machine_after),
        report.seconds
    );
    let from = report.acceptance.from;
    for s in &report.suites {
        println!(
            "## {} (x from {} to {})\n",
            s.name,
            s.sizes[0],
            s.sizes[s.sizes.len() - 1]
        );
        println!(
            "Atoms, measured with the harness and fitted:\n\n{}",
            s.atoms_table()
        );
        println!(
            "Configurations (cf. seed 001 Table 2): monolithic = fitted from the whole \
             runs, modular = composed from the atoms by the plain operators, refined = \
             with the hand-over at pipeline boundaries and in task pools, warm atoms \
             after another atom on a thread and co-run atoms in task pools; atoms are \
             timed as the mean over a stream of cold elements; errors are relative, pointwise against the measured median per \
             size. Threads are pinned to cores and every timing is stated at the \
             machine's speed at the start: a speed probe (a memory-bound reference \
             kernel) is read on every core before and after each atom timing and each \
             run, and the timing multiplied by reference / reading, combined over the \
             cores a run used by the design's structure. CPU wait / stolen: the share \
             of the threads' runnable time spent waiting for a core / taken by the \
             hypervisor (median over the runs).\n\n{}",
            s.table()
        );
        println!(
            "Pointwise error % of the modular model per size:\n\n{}",
            s.errors_table()
        );
        for r in s.rows.iter().filter(|r| !r.warnings.is_empty()) {
            println!("⚠ {}: {}", r.design, r.warnings.join("; "));
        }
        println!();
    }
    let a = &report.acceptance;
    let summary = |s: Option<ErrorSummary>, worst: &Option<(String, usize)>| match (s, worst) {
        (Some(s), Some((d, x))) => format!(
            "median {:.1} %, worst {:.1} % ({d} at x = {x}), over {} points",
            s.median * 100.0,
            s.max * 100.0,
            s.count
        ),
        _ => "no points".to_string(),
    };
    println!(
        "Acceptance (every configuration, x ≥ {from} for the sort suite, {} configurations):",
        a.configurations
    );
    println!("  plain operators: {}", summary(a.plain, &a.plain_worst));
    println!(
        "  refined (hand-over, cache reuse, contention): {}",
        summary(a.refined, &a.refined_worst)
    );
    println!(
        "  as measured, without the speed probe: {}",
        summary(a.raw, &a.raw_worst)
    );
    println!(
        "  queueing model of the cores: {}",
        summary(a.queueing, &a.queueing_worst)
    );
    println!(
        "  simulated on the pinned cores (the machine-aware prediction chosen: {}): {}",
        machine_aware::CHOSEN,
        summary(a.simulated, &a.simulated_worst)
    );
    println!(
        "  simulated with direct execution: {}",
        summary(a.direct, &a.direct_worst)
    );
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    println!(
        "  limit {:.0} % (median {:.0} % for the machine-aware one): plain {}, refined {}, simulated {}",
        a.limit * 100.0,
        a.limit * 50.0,
        verdict(a.passed()),
        verdict(a.passed_refined()),
        verdict(a.passed_machine_aware())
    );
}
