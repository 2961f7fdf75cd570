//! `pattern plot FILE... -o out.svg`: SVG or PNG plots (the format from the
//! extension). `--kind curves` (the default): the designs' cost curves over
//! x on log axes, crossovers marked; `threads`: one design's time per
//! element against a count, operators, queueing and simulation; and a
//! simulation's dynamic `efficiency` or `gantt` chart.

use super::args::{self, Point};
use super::error::{CliError, DEFAULT_ELEMENTS};
use super::files::read_designs;
use super::machine::{MachineArgs, OnMachine};
use super::output::{Report, json_num, num};
use super::sweep::{axis, bound, count_name, count_values, thread_curve, threads_machine};
use super::{progress, simulate};
use pattern_core::Design;
use pattern_core::explore::crossover::{Span, design_crossovers};
use pattern_core::explore::plot::{CostCurves, Efficiency, Gantt, Plot, ThreadsPlot};
use pattern_core::sim::Simulation;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// What to plot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// The designs' time per element over x (log axes), crossovers marked.
    Curves,
    /// One design's time per element against a symbolic count: operators,
    /// queueing and simulation.
    Threads,
    /// One design's simulated dynamic efficiency over time.
    Efficiency,
    /// One design's simulated steps on the cores over time.
    Gantt,
}

/// The options of `pattern plot`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    pattern plot examples/data/pool4_qsort.design examples/data/pool2_seq.design --x 2..1e7 -o curves.svg\n  \
    pattern plot examples/data/threads.design --kind threads --threads 1..12 --cores 8 --at x=1e4 -o threads.png\n  \
    pattern plot examples/data/pipeline.design --kind gantt --cores 2 --elements 50 --at x=1024,a=2,b=1 -o gantt.svg")]
pub struct PlotArgs {
    /// The design files (one for every kind but curves).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The file to write, `.svg` or `.png`.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// What to plot.
    #[arg(long, value_enum, default_value_t = Kind::Curves)]
    pub kind: Kind,
    /// The axis of x (curves), e.g. `1e3..1e7` or `1..1e7:200`.
    #[arg(long, value_name = "AXIS", default_value = DEFAULT_X)]
    pub x: String,
    /// Values of the models' other variables and counts, `n=4`.
    #[arg(long, value_name = "POINT", value_parser = args::point)]
    pub at: Option<Point>,
    /// The values of the count (threads), e.g. `1..16`.
    #[arg(long, value_name = "AXIS", default_value = DEFAULT_THREADS)]
    pub threads: String,
    /// The count varied (threads; default: the design's only one).
    #[arg(long, value_name = "NAME")]
    pub count: Option<String>,
    /// The machine the design runs on (threads, efficiency, gantt; with
    /// curves, the report says where the operators' assumption fails).
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Elements of each simulated stream.
    #[arg(long, default_value_t = DEFAULT_ELEMENTS)]
    pub elements: usize,
    /// The window of the dynamic efficiency (default: a hundredth of the
    /// makespan).
    #[arg(long, value_name = "TIME", allow_negative_numbers = true)]
    pub window: Option<f64>,
    /// The most events the simulation of an efficiency or gantt plot may
    /// take: a longer run (estimated from a run of 100 elements) is
    /// refused before it starts [default: 2e7, about 12 s].
    #[arg(long, value_name = "EVENTS", value_parser = simulate::event_limit)]
    pub max_events: Option<u64>,
}

/// The axis of x unless `--x` says otherwise.
const DEFAULT_X: &str = "2..1e7:200";

/// The values of the count unless `--threads` says otherwise.
const DEFAULT_THREADS: &str = "1..16";

/// An error for an option the kind of plot would ignore (an option left
/// at its default counts as not given).
fn check_kind_options(args: &PlotArgs, at: &Point) -> Result<(), CliError> {
    let curves = args.kind == Kind::Curves;
    let threads = args.kind == Kind::Threads;
    let simulated = !curves;
    CliError::refuse_unused(args.x != DEFAULT_X && !curves, "--x", "--kind curves")?;
    CliError::refuse_unused(
        args.threads != DEFAULT_THREADS && !threads,
        "--threads",
        "--kind threads",
    )?;
    CliError::refuse_unused(
        args.count.is_some() && !threads,
        "--count",
        "--kind threads",
    )?;
    CliError::refuse_unused(
        args.elements != DEFAULT_ELEMENTS && !simulated,
        "--elements",
        "the simulated kinds (threads, efficiency, gantt)",
    )?;
    CliError::refuse_unused(
        args.window.is_some() && args.kind != Kind::Efficiency,
        "--window",
        "--kind efficiency",
    )?;
    if curves && at.0.iter().any(|(n, _)| n == "x") {
        return Err(CliError::Invalid(
            "--at x=..: the curves' axis is x (--x), drop it from --at".into(),
        ));
    }
    Ok(())
}

/// Runs `pattern plot`.
pub fn run(args: &PlotArgs) -> Result<Report, CliError> {
    let format = match args.output.extension().and_then(|e| e.to_str()) {
        Some("svg") => "svg",
        Some("png") => "png",
        _ => {
            return Err(CliError::Invalid(format!(
                "-o {}: the file must end in .svg or .png",
                args.output.display()
            )));
        }
    };
    let designs = read_designs(&args.files)?;
    let all: Vec<&Design> = designs.iter().map(|(_, d)| d).collect();
    let at = super::names::checked_at(args.at.as_ref(), &all)?;
    check_kind_options(args, &at)?;
    if args.kind != Kind::Curves {
        super::times::at_point(&all, &at.bindings())?;
    }
    let mut marks = Vec::new();
    let mut machines: Vec<(String, OnMachine)> = Vec::new();
    match args.kind {
        Kind::Curves => {
            let axis = axis("--x", "x", &args.x)?;
            super::times::over_grid(&all, &at.bindings(), &[("x", axis.values().to_vec())])?;
            let models: Vec<(String, _)> = designs
                .iter()
                .map(|(name, d)| (name.clone(), bound(&d.model(), &at)))
                .collect();
            let named: Vec<(&str, &_)> = models.iter().map(|(n, m)| (n.as_str(), m)).collect();
            let values = axis.values();
            let (lo, hi) = (values[0], values[values.len() - 1]);
            if designs.len() >= 2 && lo < hi {
                let only: Vec<Design> = designs.iter().map(|(_, d)| d.clone()).collect();
                let names: Vec<String> = designs.iter().map(|(n, _)| n.clone()).collect();
                let found = design_crossovers(&only, Span::new("x", lo, hi), &at.bindings())
                    .map_err(|e| super::crossovers::named_error(e, &names))?;
                marks = found.points.iter().map(|p| p.at).collect();
            }
            let plot = CostCurves::of_models(&named, &axis, &[])?.crossovers(&marks);
            save(&plot, &args.output)?;
            for (name, d) in &designs {
                machines.push((name.clone(), args.machine.for_design(d, &at.bindings())?));
            }
        }
        Kind::Threads => {
            let design = one(&designs, args.kind)?;
            let count = count_name(design, args.count.as_deref(), &at)?;
            super::names::require_bound(&[design], &at, true, &[&count])?;
            let values = count_values("--threads", &count, &args.threads)?;
            let on = threads_machine(&args.machine, design, &count, &values, &at)?;
            let curve = thread_curve(
                design,
                &count,
                &values,
                &on.machine,
                &at,
                Some(args.elements),
            )?;
            save(&ThreadsPlot::new(curve), &args.output)?;
            machines.push((String::new(), on));
        }
        Kind::Efficiency | Kind::Gantt => {
            let design = one(&designs, args.kind)?;
            super::names::require_bound(&[design], &at, true, &[])?;
            let on = args.machine.for_design(design, &at.bindings())?;
            let simulation = |elements: usize| {
                Simulation::new(design, &on.machine)
                    .at(&at.bindings())
                    .elements(elements)
            };
            let limit = args.max_events.unwrap_or(simulate::MAX_EVENTS);
            simulate::check_events(args.elements, limit, |pilot| Ok(simulation(pilot).run()?))?;
            let counter = Arc::new(AtomicU64::new(0));
            let bar = (args.elements >= simulate::LONG_RUN)
                .then(|| progress::polled(args.elements as u64, "simulating", "elements", &counter))
                .flatten();
            let run = simulation(args.elements)
                .trace(args.kind == Kind::Gantt)
                .count_elements(counter)
                .run();
            drop(bar);
            let run = run?;
            if args.kind == Kind::Gantt {
                save(&Gantt { run: &run }, &args.output)?;
                simulate::note_gantt(&run);
            } else {
                let window = args.window.unwrap_or(run.makespan() / 100.0);
                save(&Efficiency { run: &run, window }, &args.output)?;
            }
            machines.push((String::new(), on));
        }
    }
    let bytes = std::fs::metadata(&args.output).map_or(0, |m| m.len());
    let kind = format!("{:?}", args.kind).to_lowercase();
    let mut text = format!(
        "wrote {} ({kind}, {format}, {bytes} bytes)\n",
        args.output.display()
    );
    if !marks.is_empty() {
        let shown: Vec<String> = marks.iter().map(|&m| num(m)).collect();
        text.push_str(&format!("crossovers marked at x = {}\n", shown.join(", ")));
    }
    let mut machine_json = Vec::new();
    for (name, on) in &machines {
        let of = if name.is_empty() {
            String::new()
        } else {
            format!(" ({name})")
        };
        text.push_str(&format!("machine{of}: {}\n", on.describe()));
        let mut one = on.json();
        if let Some((_, d)) = designs.iter().find(|(n, _)| n == name) {
            let broken = d
                .assumptions(&on.machine, &at.bindings())
                .unwrap_or_default();
            for line in &broken {
                text.push_str(&format!("warning{of}: {line}\n"));
            }
            one["operators_assumption"] = json!({"holds": broken.is_empty(), "fails": broken});
        }
        if !name.is_empty() {
            one["design"] = json!(name);
        }
        machine_json.push(one);
    }
    let json = json!({
        "machines": machine_json,
        "written": args.output.display().to_string(),
        "kind": kind,
        "format": format,
        "bytes": bytes,
        "crossovers": marks.iter().map(|&m| json_num(m)).collect::<Vec<_>>(),
    });
    Ok(Report { text, json })
}

/// The one design of a plot of one design.
fn one(designs: &[(String, Design)], kind: Kind) -> Result<&Design, CliError> {
    match designs {
        [(_, design)] => Ok(design),
        _ => Err(CliError::Invalid(format!(
            "a {} plot shows one design, {} given",
            format!("{kind:?}").to_lowercase(),
            designs.len()
        ))),
    }
}

fn save(plot: &impl Plot, path: &Path) -> Result<(), CliError> {
    Ok(plot.save(path)?)
}
