//! `pattern simulate FILE`: a stream of elements through a design on a
//! machine, by the discrete-event simulator. Prints the
//! makespan, the time per element (and whether the run reached a steady
//! state, with the capacity bound no run beats), latency percentiles and
//! the cores' (and links') utilization; writes a Chrome trace, the dynamic
//! efficiency and a Gantt chart on request.

use super::args::{self, Point};
use super::error::CliError;
use super::files::{read_design, write_file};
use super::machine::{MachineArgs, OnMachine};
use super::output::{Report, Text, json_num, num, shown};
use super::progress;
use pattern_core::sim::{SimResult, Simulation};
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// Runs of at least this many elements show a progress bar while they run
/// (on a terminal).
pub(super) const LONG_RUN: usize = 200_000;

/// The most events a run may take unless --max-events says otherwise:
/// seconds of simulation (docs/simulation.md measures an event's cost).
pub(super) const MAX_EVENTS: u64 = 20_000_000;

/// The elements of the short run that estimates a long one's events.
const PILOT: usize = 100;

/// Machines of more nodes than this get a summary of their nodes'
/// utilization, not a line each, unless --per-node.
const NODES_LISTED: usize = 16;

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
    /// No progress bar, even for long runs on a terminal.
    #[arg(long)]
    pub quiet: bool,
    /// The most events the run may take: a longer run (estimated from a
    /// run of 100 elements) is refused before it starts [default: 2e7,
    /// about 12 s].
    #[arg(long, value_name = "EVENTS", value_parser = event_limit)]
    pub max_events: Option<u64>,
    /// A line (and JSON entry) per node's utilization, also on machines of
    /// more than 16 nodes (which get a summary otherwise).
    #[arg(long)]
    pub per_node: bool,
}

/// An event limit: a whole number of at least 1, `2e7` or `20000000`.
pub(super) fn event_limit(text: &str) -> Result<u64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.fract() == 0.0 && (1.0..=9_007_199_254_740_992.0).contains(&v) => Ok(v as u64),
        _ => Err(format!(
            "`{text}` is not an event limit: a whole number from 1 to 2^53, as 2e7"
        )),
    }
}

/// Refuses a run of `elements` elements whose events, estimated from a
/// run of [`PILOT`] elements by `pilot` (or of one, if a hundred would
/// already exceed the limit), exceed `limit`: with the estimate,
/// the limit and the option that lifts it. The estimate, if one was made.
pub(super) fn check_events(
    elements: usize,
    limit: u64,
    mut pilot: impl FnMut(usize) -> Result<SimResult, CliError>,
) -> Result<Option<f64>, CliError> {
    if elements <= PILOT {
        return Ok(None);
    }
    // One element first: a design of millions of steps an element is
    // judged without running 100 of them.
    let one = pilot(1)?.events() as f64;
    let estimate = if one * PILOT as f64 > limit as f64 {
        one * elements as f64
    } else {
        pilot(PILOT)?.events() as f64 / PILOT as f64 * elements as f64
    };
    if estimate > limit as f64 {
        return Err(CliError::Invalid(format!(
            "--elements {elements}: the run would take about {estimate:.1e} events (about {} at 0.6 µs an event), more than the limit of {limit} (--max-events): give fewer --elements or raise --max-events",
            duration(estimate * 0.6e-6)
        )));
    }
    Ok(Some(estimate))
}

/// `seconds` in the largest unit that keeps it at least 1.
fn duration(seconds: f64) -> String {
    let units = [(86_400.0, "days"), (3_600.0, "hours"), (60.0, "minutes")];
    units.iter().find(|(size, _)| seconds >= *size).map_or_else(
        || format!("{} s", num(seconds)),
        |(size, unit)| format!("{} {unit}", num((seconds / size).round())),
    )
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
    let simulation = |elements: usize| {
        Simulation::new(&design, &on.machine)
            .at(&at.bindings())
            .elements(elements)
            .buffer(args.buffer)
            .variation(args.variation, args.seed)
    };
    let limit = args.max_events.unwrap_or(MAX_EVENTS);
    check_events(args.elements, limit, |pilot| Ok(simulation(pilot).run()?))?;
    let counter = Arc::new(AtomicU64::new(0));
    let bar = if args.elements >= LONG_RUN && !args.quiet {
        progress::polled(args.elements as u64, "simulating", "elements", &counter)
    } else {
        None
    };
    let result = simulation(args.elements)
        .trace(keep_trace)
        .count_elements(counter)
        .run();
    drop(bar);
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
        note_gantt(&result);
    }
    Ok(report(args, &on, &design.term().to_string(), &at, &result))
}

/// Says on standard error when a Gantt chart shows only the run's first
/// tasks.
pub(super) fn note_gantt(run: &SimResult) {
    let (drawn, total) = run.gantt_drawn();
    if drawn < total {
        eprintln!(
            "note: the Gantt chart draws the first {drawn} of the run's {total} tasks (by start time); simulate fewer elements to see a whole run"
        );
    }
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
    let nodes = nodes_report(args.per_node, on, r, &mut text);
    text.row(0, W, "events", r.events());
    let mut json = json!({
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
        "events": r.events(),
    });
    if let (Some(json), serde_json::Value::Object(nodes)) = (json.as_object_mut(), nodes) {
        json.extend(nodes);
    }
    Report { text: text.0, json }
}

/// The nodes' utilization: a line and a JSON entry per node
/// (`core_utilization`, `link_utilization`) on machines of at most
/// [`NODES_LISTED`] nodes or with `per_node`; otherwise each as its
/// smallest, mean and largest value and the busiest node
/// (`core_utilization_summary`, `link_utilization_summary`), so that the
/// report of a million nodes stays a few lines.
fn nodes_report(
    per_node: bool,
    on: &OnMachine,
    r: &SimResult,
    text: &mut Text,
) -> serde_json::Value {
    const W: usize = 17;
    let cores = r.core_utilization();
    let links = r.link_utilization();
    let networked = on.machine.nodes() > 1;
    if per_node || cores.len() <= NODES_LISTED {
        for (node, u) in cores.iter().enumerate() {
            text.row(
                0,
                W,
                &format!("cores of node {node}"),
                format!("{} % busy", num(100.0 * u)),
            );
        }
        if networked {
            for (node, (out, inc)) in links.iter().enumerate() {
                text.row(
                    0,
                    W,
                    &format!("links of node {node}"),
                    format!("{} % out, {} % in", num(100.0 * out), num(100.0 * inc)),
                );
            }
        }
        return json!({
            "core_utilization": cores.iter().map(|u| json_num(*u)).collect::<Vec<_>>(),
            "link_utilization": links.iter().map(|(o, i)| json!({"out": json_num(*o), "in": json_num(*i)})).collect::<Vec<_>>(),
        });
    }
    let core = Spread::of(cores.iter().copied());
    text.row(0, W, "cores of nodes", core.text(cores.len(), "busy"));
    let out = Spread::of(links.iter().map(|l| l.0));
    let inc = Spread::of(links.iter().map(|l| l.1));
    if networked {
        text.row(0, W, "links out", out.text(links.len(), "out"));
        text.row(0, W, "links in", inc.text(links.len(), "in"));
    }
    text.row(0, W, "", "(a line per node: --per-node)");
    json!({
        "core_utilization_summary": core.json(),
        "link_utilization_summary": {"out": out.json(), "in": inc.json()},
    })
}

/// The smallest, mean and largest of some nodes' utilizations, and the
/// first node at the largest.
struct Spread {
    min: f64,
    mean: f64,
    max: f64,
    busiest: usize,
}

impl Spread {
    fn of(values: impl Iterator<Item = f64>) -> Spread {
        let mut s = Spread {
            min: f64::INFINITY,
            mean: 0.0,
            max: f64::NEG_INFINITY,
            busiest: 0,
        };
        let mut count = 0usize;
        for (node, v) in values.enumerate() {
            s.min = s.min.min(v);
            if v > s.max {
                s.max = v;
                s.busiest = node;
            }
            s.mean += v;
            count += 1;
        }
        s.mean /= count.max(1) as f64;
        if count == 0 {
            (s.min, s.max) = (0.0, 0.0);
        }
        s
    }

    fn text(&self, nodes: usize, what: &str) -> String {
        format!(
            "{} to {} % {what} over {nodes} nodes, {} % on average; node {} the busiest",
            num(100.0 * self.min),
            num(100.0 * self.max),
            num(100.0 * self.mean),
            self.busiest
        )
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "min": json_num(self.min),
            "mean": json_num(self.mean),
            "max": json_num(self.max),
            "busiest_node": self.busiest,
        })
    }
}
