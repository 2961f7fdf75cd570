//! `pattern simulate FILE`: a stream of elements through a design on a
//! machine, by the discrete-event simulator. Prints the
//! makespan, the time per element (and whether the run reached a steady
//! state, with the capacity bound no run beats), latency percentiles and
//! the cores' (and links') utilization; writes a Chrome trace, the dynamic
//! efficiency and a Gantt chart on request.

use super::args::{self, Point};
use super::error::CliError;
use super::machine::{MachineArgs, OnMachine};
use super::output::{Report, Text, json_num, num, shown};
use super::{progress, read_design, write_file};
use pattern_core::sim::{SimResult, Simulation};
use serde_json::json;
use std::path::PathBuf;

/// Runs of at least this many elements show a spinner while they run (on
/// a terminal): the simulator reports no progress of its own.
const LONG_RUN: usize = 200_000;

/// The latency percentiles reported.
const PERCENTILES: [f64; 4] = [50.0, 90.0, 99.0, 100.0];

/// The options of `pattern simulate`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Times are in the unit of the atoms' models (ns in the examples).\n\n\
    Example:\n  \
    pattern simulate examples/data/pipeline.design --cores 2 --elements 10000 --at x=1024,a=2,b=1\n  \
    pattern simulate examples/data/map_reduce.design --machine examples/data/star.machine.json --at x=1e6,m=8,n=8"
)]
pub struct SimulateArgs {
    /// The design file (`-` reads standard input).
    pub file: PathBuf,
    /// The machine the design runs on.
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Elements of the stream.
    #[arg(long, default_value_t = 1000)]
    pub elements: usize,
    /// Values of the models' variables and the symbolic counts, `x=1024,n=4`.
    #[arg(long, value_name = "POINT", value_parser = args::point)]
    pub at: Option<Point>,
    /// Places of each buffer between two stages of a pipeline (0: a
    /// rendezvous, the sender waits until the next stage takes the element).
    #[arg(long, default_value_t = 4)]
    pub buffer: usize,
    /// Coefficient of variation of every step's duration (Gamma
    /// distributed; 0: none, 1: exponential).
    #[arg(
        long,
        default_value_t = 0.0,
        value_name = "CV",
        allow_negative_numbers = true
    )]
    pub variation: f64,
    /// Seed of the random durations.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Pins thread `i` of the design to core `i mod cores` (the machine's
    /// waiting part says so otherwise).
    #[arg(long)]
    pub pinned: bool,
    /// Writes the run as a Chrome trace (JSON; open it in Perfetto).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Writes the dynamic efficiency over time as an SVG plot.
    #[arg(long, value_name = "FILE")]
    pub efficiency: Option<PathBuf>,
    /// The window of the dynamic efficiency (default: a hundredth of the
    /// makespan).
    #[arg(long, value_name = "TIME", allow_negative_numbers = true)]
    pub window: Option<f64>,
    /// Writes a Gantt chart of the steps on the cores as an SVG plot.
    #[arg(long, value_name = "FILE")]
    pub gantt: Option<PathBuf>,
    /// No spinner, even for long runs on a terminal.
    #[arg(long)]
    pub quiet: bool,
}

/// Runs `pattern simulate`.
pub fn run(args: &SimulateArgs) -> Result<Report, CliError> {
    let design = read_design(&args.file)?;
    let at = super::names::checked_at(args.at.as_ref(), &[&design])?;
    super::names::require_bound(&[&design], &at, true, &[])?;
    super::times::at_point(&[&design], &at.bindings())?;
    CliError::refuse_unused(
        args.window.is_some() && args.efficiency.is_none(),
        "--window",
        "--efficiency FILE",
    )?;
    CliError::refuse_unused(
        args.seed != 0 && args.variation == 0.0,
        "--seed",
        "random durations (--variation above 0)",
    )?;
    let mut on = args.machine.for_design(&design, &at.bindings())?;
    if args.pinned {
        on.machine = on.machine.with_waiting(|w| w.pinned(true));
    }
    let keep_trace = args.trace.is_some() || args.gantt.is_some();
    let simulation = Simulation::new(&design, &on.machine)
        .at(&at.bindings())
        .elements(args.elements)
        .buffer(args.buffer)
        .variation(args.variation, args.seed)
        .trace(keep_trace);
    let spinner = if args.elements >= LONG_RUN && !args.quiet {
        progress::spinner(&format!("simulating {} elements", args.elements))
    } else {
        None
    };
    let result = simulation.run();
    progress::finish(spinner);
    let result = result?;
    if let Some(path) = &args.trace {
        write_file(path, &result.trace_json())?;
    }
    if let Some(path) = &args.efficiency {
        let window = match args.window {
            Some(w) if w.is_finite() && w > 0.0 => w,
            Some(w) => {
                return Err(CliError::Invalid(format!(
                    "--window {w}: a window is a finite time > 0"
                )));
            }
            None => result.makespan() / 100.0,
        };
        write_file(path, &result.efficiency_svg(window)?)?;
    }
    if let Some(path) = &args.gantt {
        write_file(path, &result.gantt_svg()?)?;
    }
    Ok(report(args, &on, &design.term().to_string(), &at, &result))
}

fn report(args: &SimulateArgs, on: &OnMachine, design: &str, at: &Point, r: &SimResult) -> Report {
    let mut text = Text::default();
    const W: usize = 17;
    text.row(0, W, "design", shown(design));
    text.row(0, W, "machine", on.describe());
    if !at.is_empty() {
        text.row(0, W, "at", at);
    }
    text.row(0, W, "elements", args.elements);
    text.row(0, W, "makespan", num(r.makespan()));
    text.row(0, W, "time per element", num(r.time_per_element()));
    let steady = r.steady_state();
    if let Some(s) = steady {
        let verdict = if s.steady {
            "reached".to_string()
        } else if args.elements < s.elements_needed {
            format!(
                "not reached: the time per element is the makespan's; {} elements needed ({} in flight at most)",
                s.elements_needed, s.in_flight
            )
        } else {
            format!(
                "not reached: the slope {} is below the bound; the time per element is the makespan's",
                num(s.slope)
            )
        };
        text.row(0, W, "steady state", verdict);
        text.row(0, W, "capacity bound", num(s.bound));
    }
    let mut percentiles = serde_json::Map::new();
    for p in PERCENTILES {
        if let Some(l) = r.latency_percentile(p) {
            text.row(0, W, &format!("latency p{p}"), num(l));
            percentiles.insert(format!("p{p}"), json_num(l));
        }
    }
    let cores = r.core_utilization();
    for (node, u) in cores.iter().enumerate() {
        text.row(
            0,
            W,
            &format!("cores of node {node}"),
            format!("{} % busy", num(100.0 * u)),
        );
    }
    let links = r.link_utilization();
    if on.machine.nodes() > 1 {
        for (node, (out, inc)) in links.iter().enumerate() {
            text.row(
                0,
                W,
                &format!("links of node {node}"),
                format!("{} % out, {} % in", num(100.0 * out), num(100.0 * inc)),
            );
        }
    }
    text.row(0, W, "events", r.events());
    let json = json!({
        "design": design,
        "machine": on.json(),
        "elements": args.elements,
        "makespan": json_num(r.makespan()),
        "time_per_element": json_num(r.time_per_element()),
        "steady_state": steady.map(|s| json!({
            "steady": s.steady,
            "in_flight": s.in_flight,
            "elements_needed": s.elements_needed,
            "slope": json_num(s.slope),
            "bound": json_num(s.bound),
        })),
        "latency": percentiles,
        "core_utilization": cores.iter().map(|u| json_num(*u)).collect::<Vec<_>>(),
        "link_utilization": links.iter().map(|(o, i)| json!({"out": json_num(*o), "in": json_num(*i)})).collect::<Vec<_>>(),
        "events": r.events(),
    });
    Report { text: text.0, json }
}
