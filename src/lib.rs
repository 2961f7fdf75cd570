//! `pattern`: design-time performance modeling from the command line.
//!
//! The command line is this library's [`run`], called by the binary with
//! the process' arguments and streams (and by the fuzz driver with its own).
//!
//! Each subcommand reads designs (the text of
//! `pattern_core::grammar::parse`), measurements (Extra-P's formats) or
//! queueing networks from files and prints a report, or the same figures as
//! JSON with `--json`. Besides describing a design (`model`, `compare`,
//! `fit`, `simulate`, `mva`) it helps choose one (`best`, `rank`,
//! `crossovers`, `sensitivity`, `sweep`, `plot`, on
//! `pattern_core::explore`); long work shows progress on standard error
//! when it is a terminal. Input errors print the library's message (with a
//! caret under the position in a design or an expression) and exit with
//! code 1; usage errors exit with code 2. See `docs/cli.md`.

pub mod cli;

use clap::{Parser, Subcommand};
use cli::error::CliError;
use cli::output::{self, Report};
use std::io::Write;

/// Design-time performance models of parallel programs: models, comparisons,
/// fits, simulations and queueing, and the choices made from them.
#[derive(Debug, Parser)]
#[command(name = "pattern", version, propagate_version = true)]
#[command(
    after_help = "A design file holds the atoms' cost models and the design term:\n  \
    s1 = 2*x; s2 = x;\n  \
    pipe(tpool[a](s1), tpool[b](s2))\n\n\
    Describe a design: model, compare, fit, simulate, mva; a machine: machine.\n\
    Every command that predicts runs the design on one machine: --machine FILE, or the \
    shorthands --cores C and --nodes N; by default a core for every thread (the \
    operators' assumption), said so in the report.\n\
    Choose one: best (counts under a budget), rank (designs reachable by the laws), \
    crossovers (which design wins where), sensitivity (what to speed up), \
    sweep (models over a grid, CSV or JSON), plot (SVG or PNG).\n\n\
    Run `pattern help COMMAND` for a command's options and examples."
)]
struct Cli {
    /// Print the results as JSON (exact numbers) instead of a report.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// A design's model (time per element), latency, threads, nodes and
    /// growth class, and their values at points.
    Model(cli::model::ModelArgs),
    /// Whether design B is equivalent to design A, never worse over a
    /// domain, or where it first loses and by how much.
    Compare(cli::compare::CompareArgs),
    /// Models fitted to measurements in Extra-P's formats, with their growth
    /// classes and fit statistics.
    Fit(cli::fit::FitArgs),
    /// A stream of elements through a design on a machine, simulated.
    Simulate(cli::simulate::SimulateArgs),
    /// Mean Value Analysis of a design on a machine, or of a closed
    /// queueing network.
    Mva(cli::mva::MvaArgs),
    /// A machine file checked and described, or this computer measured
    /// into one (--probe).
    Machine(cli::machine::MachineCommandArgs),
    /// The symbolic counts that minimize the time per element under a
    /// thread budget (exact), beside RPL-shell's greedy rules; or over sizes.
    Best(cli::best::BestArgs),
    /// Which design is best over which interval of a variable, and where
    /// the best one changes.
    Crossovers(cli::crossovers::CrossoversArgs),
    /// Designs' models over a grid of variables as CSV or JSON, or a
    /// design's time against its thread count.
    Sweep(cli::sweep::SweepArgs),
    /// Cost curves, time against threads, a simulation's efficiency or
    /// Gantt chart, as SVG or PNG.
    Plot(cli::plot::PlotArgs),
    /// The best designs reachable by the laws' rewrites and more threads,
    /// each at its best counts under a budget.
    Rank(cli::rank::RankArgs),
    /// Derivatives of the time per element with respect to each atom's
    /// coefficients, the change with one worker fewer or more of each
    /// count, the atom to speed up first and the bottleneck stage per range
    /// of x.
    Sensitivity(cli::sensitivity::SensitivityArgs),
}

/// The command line's definition (every subcommand and option), as clap
/// builds it: for tools that enumerate the options, such as the fuzz
/// driver's `cli` target.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Runs the command chosen.
fn dispatch(cli: &Cli) -> Result<Report, CliError> {
    match &cli.command {
        Command::Model(args) => cli::model::run(args),
        Command::Compare(args) => cli::compare::run(args),
        Command::Fit(args) => cli::fit::run(args),
        Command::Simulate(args) => cli::simulate::run(args),
        Command::Mva(args) => cli::mva::run(args),
        Command::Machine(args) => cli::machine::run(args),
        Command::Best(args) => cli::best::run(args),
        Command::Crossovers(args) => cli::crossovers::run(args),
        Command::Sweep(args) => cli::sweep::run(args),
        Command::Plot(args) => cli::plot::run(args),
        Command::Rank(args) => cli::rank::run(args),
        Command::Sensitivity(args) => cli::sensitivity::run(args),
    }
}

/// The report in the form asked for.
fn render(report: &Report, json: bool) -> String {
    if json {
        // A `Value` always serializes.
        let mut text = serde_json::to_string_pretty(&report.json).unwrap_or_default();
        text.push('\n');
        text
    } else {
        report.text.clone()
    }
}

/// Runs the command line on `args` (the program's name first, as
/// `std::env::args_os` gives them), writing the report to `stdout` and
/// errors to `stderr`; returns the exit code: 0, 1 for an input error, 2 for
/// a usage error (0 for `--help` and `--version`).
pub fn run<'a, I, T>(args: I, stdout: &'a mut dyn Write, stderr: &'a mut dyn Write) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to standard output, usage errors to
            // standard error; both as clap renders them, without colors.
            let text = e.render();
            let to = if e.use_stderr() { stderr } else { stdout };
            let _ = write!(to, "{text}");
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    // JSON output is for programs: no progress bars beside it.
    cli::progress::hide(cli.json);
    let (report, error) = match dispatch(&cli) {
        Ok(report) => (Some(report), None),
        Err(e) => (None, Some(e)),
    };
    let shown = report
        .as_ref()
        .or_else(|| error.as_ref().and_then(CliError::partial_report));
    if let Some(report) = shown
        && let Err(e) = output::print_to(stdout, &render(report, cli.json))
    {
        let _ = writeln!(stderr, "error: cannot write the output: {e}");
        return 1;
    }
    match error {
        None => 0,
        Some(e) => {
            // Nothing more can be done if standard error is gone too.
            let _ = writeln!(stderr, "error: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the command line in process: the exit code and both streams.
    fn run_args(args: &[&str]) -> (u8, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(
            std::iter::once("pattern").chain(args.iter().copied()),
            &mut out,
            &mut err,
        );
        let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8");
        (code, text(out), text(err))
    }

    #[test]
    fn reports_go_to_stdout_and_errors_to_stderr_with_their_codes() {
        let (code, out, err) = run_args(&["model", "--expr", "2*x", "--at", "x=3", "--json"]);
        assert_eq!((code, err.as_str()), (0, ""));
        let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(json["points"][0]["value"], 6.0, "{out}");
        let (code, out, err) = run_args(&["model", "--bogus"]);
        assert_eq!((code, out.as_str()), (2, ""));
        assert!(
            err.starts_with("error: unexpected argument '--bogus'"),
            "{err}"
        );
        let (code, out, err) = run_args(&["model", "no/such/file.design"]);
        assert_eq!((code, out.as_str()), (1, ""));
        assert!(
            err.starts_with("error: cannot read `no/such/file.design`"),
            "{err}"
        );
        let (code, out, err) = run_args(&["--version"]);
        assert_eq!((code, out.trim(), err.as_str()), (0, "pattern 0.1.0", ""));
    }

    #[test]
    fn the_definition_lists_every_subcommand() {
        let names: Vec<String> = command()
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        for name in ["model", "simulate", "mva", "best", "machine", "plot"] {
            assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
        }
    }
}
