//! `pattern mva FILE`: Mean Value Analysis. A design on a machine (the
//! queueing semantics: time per element, each station's
//! utilization), or a closed queueing network from a JSON file
//! (throughput, response time, queue lengths, utilizations, asymptotic
//! bounds and PDQ's optimal population `N*`), at one population or swept
//! over `1..=N`.

use super::args::{self, Point};
use super::error::CliError;
use super::files::read_text;
use super::machine::{MachineArgs, OnMachine};
use super::network;
use super::output::{Report, Text, json_num, num, shown};
use pattern_core::Design;
use pattern_core::machine::Waiting;
use pattern_core::queue::{
    Approximation, MAX_EXACT_STEPS, Method, Network, QueueError, Solution, StationKind,
};
use pattern_core::semantics::Queueing;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The places of a channel unless `--buffer` says otherwise.
const DEFAULT_BUFFER: usize = 4;

/// At most this many populations in a sweep: a row each.
const MAX_SWEEP: usize = 1_000_000;

/// The options of `pattern mva`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "A FILE ending in .json (or standard input, `-`, that starts with `{`) is a queueing network:\n  \
    {\"population\": 10, \"stations\": [\n    \
    {\"name\": \"cpu\", \"kind\": \"queue\", \"demand\": 0.2},\n    \
    {\"name\": \"disks\", \"kind\": \"multi_server\", \"demand\": 0.5, \"servers\": 2},\n    \
    {\"name\": \"net\", \"kind\": \"load_dependent\", \"demand\": 0.1, \"rates\": [1, 1.8]},\n    \
    {\"name\": \"think\", \"kind\": \"delay\", \"demand\": 3.0}]}\n\
    Several classes: \"classes\": [{\"name\": \"batch\", \"population\": 4}, {\"name\": \"web\", \"rate\": 2.5}],\n  \
    each station with \"demands\": {\"batch\": 0.5, \"web\": 0.05} (closed, open or both: a mixed network).\n\
    A FILE ending in .jmva (or XML whose root is <model>) is a model of JMT's JMVA.\n\
    Any other FILE is a design, run on the machine (--machine FILE, --cores C, --nodes N);\n\
    several designs run at once on it.\n\nExamples:\n  \
    pattern mva examples/data/pipeline.design --cores 2 --at x=1024,a=2,b=1\n  \
    pattern mva examples/data/map_reduce.design --machine examples/data/star.machine.json --at x=1e6,m=8,n=8\n  \
    pattern mva examples/data/interactive.json --population 10 --sweep\n  \
    pattern mva examples/data/two_classes.json --approx\n  \
    pattern mva examples/data/pool4_qsort.design examples/data/pool2_inc_nop.design --cores 2 --at x=1024"
)]
pub struct MvaArgs {
    /// A design, or a queueing network (`.json`); `-` reads standard input.
    pub file: PathBuf,
    /// More designs, run at once on the same machine: each one's time per
    /// element beside its time alone, and where they interfere.
    #[arg(value_name = "MORE")]
    pub also: Vec<PathBuf>,
    /// The machine the design runs on.
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Values of the design's variables and symbolic counts, `x=1024,n=4`.
    #[arg(long, value_name = "POINT", value_parser = args::point)]
    pub at: Option<Point>,
    /// Time to hand an element from one pipeline stage to the next, in
    /// place of the machine's (0 unless its waiting part says otherwise).
    #[arg(long, value_name = "TIME", allow_negative_numbers = true)]
    pub handoff: Option<f64>,
    /// Time a task pool's worker holds the shared queue to take an element,
    /// in place of the machine's.
    #[arg(long, value_name = "TIME", allow_negative_numbers = true)]
    pub take: Option<f64>,
    /// Elements a channel between threads holds.
    #[arg(long, default_value_t = DEFAULT_BUFFER)]
    pub buffer: usize,
    /// A design fed at this rate (`2000/s`, `3.5/ms`, `1/us`), elements
    /// arriving at random (Poisson): the latency at that rate, the highest
    /// rate it sustains and what limits it, as an open network.
    #[arg(long, value_name = "RATE", value_parser = super::rate::rate)]
    pub rate: Option<f64>,
    /// Jobs in the network (default: the file's `population`).
    #[arg(long, value_name = "N")]
    pub population: Option<usize>,
    /// Every population from 1 to N (at most 10^6), with the asymptotic
    /// bounds.
    #[arg(long)]
    pub sweep: bool,
    /// Approximate MVA instead of the exact one: the Linearizer, or
    /// `--approx=schweitzer-bard` (the cheapest, the published figures').
    #[arg(
        long,
        value_enum,
        value_name = "METHOD",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "linearizer",
        conflicts_with = "sweep"
    )]
    pub approx: Option<ApproxMethod>,
    /// The most steps (station-populations) exact MVA may take before it
    /// is refused, up front [default: 1e8, about a second].
    #[arg(long, value_name = "STEPS", value_parser = step_limit)]
    pub max_steps: Option<f64>,
    /// A JMVA model (`.jmva`) written back to OUT with its solution, as
    /// JMT's JMVA saves a solved model.
    #[arg(long, value_name = "OUT")]
    pub write_jmva: Option<PathBuf>,
}

/// The approximation `--approx` solves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ApproxMethod {
    /// Chandy and Neuse's Linearizer: the most accurate.
    Linearizer,
    /// Schweitzer-Bard's fixed point: the cheapest.
    SchweitzerBard,
}

impl ApproxMethod {
    /// The option's value, as JSON reports it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Linearizer => "linearizer",
            Self::SchweitzerBard => "schweitzer-bard",
        }
    }
}

impl From<ApproxMethod> for Method {
    fn from(method: ApproxMethod) -> Self {
        match method {
            ApproxMethod::Linearizer => Method::Linearizer,
            ApproxMethod::SchweitzerBard => Method::SchweitzerBard,
        }
    }
}

/// Runs `pattern mva`: a network for a `.json` file (in any case) or a
/// standard input that starts with `{`, a design otherwise.
pub fn run(args: &MvaArgs) -> Result<Report, CliError> {
    if !args.also.is_empty() {
        return several(args);
    }
    let path: &Path = &args.file;
    let text = read_text(path)?;
    if super::jmva::is_jmva(path, &text) {
        return super::jmva::run(args, &text);
    }
    CliError::refuse_unused(
        args.write_jmva.is_some(),
        "--write-jmva",
        "a JMVA model (.jmva)",
    )?;
    if is_network(path, &text) {
        closed_network(args, &text)
    } else {
        let design = Design::parse(&text).map_err(|source| CliError::Design {
            path: path.display().to_string(),
            source,
        })?;
        on_design(args, &design)
    }
}

/// Whether `path` (read as `text`) is a queueing network: a `.json` file
/// (in any case), or standard input that starts with `{`.
fn is_network(path: &Path, text: &str) -> bool {
    if path.as_os_str() == "-" {
        text.trim_start().starts_with('{')
    } else {
        path.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    }
}

/// `pattern mva A B ...`: designs sharing one machine.
fn several(args: &MvaArgs) -> Result<Report, CliError> {
    network_options_refused(args)?;
    CliError::refuse_unused(args.rate.is_some(), "--rate", "one design")?;
    CliError::refuse_unused(
        args.write_jmva.is_some(),
        "--write-jmva",
        "a JMVA model (.jmva)",
    )?;
    if !args.machine.given() {
        return Err(CliError::Invalid(
            "designs that share a machine need one: give --machine FILE, --cores C or --nodes N"
                .into(),
        ));
    }
    let paths: Vec<&PathBuf> = std::iter::once(&args.file).chain(&args.also).collect();
    if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(CliError::Invalid(
            "standard input (`-`) is read once: give it for one design at most".into(),
        ));
    }
    let mut designs = Vec::with_capacity(paths.len());
    for path in paths {
        let text = read_text(path)?;
        if is_network(path, &text) || super::jmva::is_jmva(path, &text) {
            return Err(CliError::Invalid(format!(
                "{} is a queueing network: several files are designs that share a machine",
                path.display()
            )));
        }
        let design = Design::parse(&text).map_err(|source| CliError::Design {
            path: path.display().to_string(),
            source,
        })?;
        designs.push((path.display().to_string(), design));
    }
    let all: Vec<&Design> = designs.iter().map(|(_, d)| d).collect();
    let at = super::names::checked_at(args.at.as_ref(), &all)?;
    super::names::require_bound(&all, &at, true, &[])?;
    super::times::at_point(&all, &at.bindings())?;
    let on = with_waits(args, args.machine.resolve((1, 1))?);
    super::shared::report(&designs, &on, &at, args.buffer)
}

/// An error for the options of a queueing network file, given with designs.
fn network_options_refused(args: &MvaArgs) -> Result<(), CliError> {
    for flag in [
        ("--population", args.population.is_some()),
        ("--sweep", args.sweep),
        ("--approx", args.approx.is_some()),
        ("--max-steps", args.max_steps.is_some()),
    ] {
        if flag.1 {
            return Err(CliError::Invalid(format!(
                "{} is for a queueing network (.json): a design's population is its elements in flight",
                flag.0
            )));
        }
    }
    Ok(())
}

/// The machine with the hand-over and take times of the options.
fn with_waits(args: &MvaArgs, mut on: OnMachine) -> OnMachine {
    if args.handoff.is_some() || args.take.is_some() {
        let (handoff, take) = (args.handoff, args.take);
        on.machine = on.machine.with_waiting(|w| Waiting {
            handoff_ns: handoff.unwrap_or(w.handoff_ns),
            take_ns: take.unwrap_or(w.take_ns),
            ..w
        });
    }
    on
}

/// One design on its machine: its network solved, or fed at `--rate`.
fn on_design(args: &MvaArgs, design: &Design) -> Result<Report, CliError> {
    network_options_refused(args)?;
    let at = super::names::checked_at(args.at.as_ref(), &[design])?;
    super::names::require_bound(&[design], &at, true, &[])?;
    super::times::at_point(&[design], &at.bindings())?;
    let on = with_waits(args, args.machine.for_design(design, &at.bindings())?);
    let machine = &on.machine;
    let semantics = Queueing::new(machine)
        .buffer(args.buffer)
        .at(&at.bindings());
    if let Some(rate) = args.rate {
        let p = (semantics.at_rate(design.term(), rate)).map_err(super::rate::saturated)?;
        let mut text = Text::default();
        text.row(0, 19, "design", shown(design.term()));
        text.row(0, 19, "machine", on.describe());
        if !at.is_empty() {
            text.row(0, 19, "at", &at);
        }
        let mut json = super::rate::report(&mut text, &p);
        json["design"] = json!(design.term().to_string());
        json["machine"] = on.json();
        return Ok(Report { text: text.0, json });
    }
    let p = semantics.of(design.term())?;
    // The operators' prediction beside it, where it has a value.
    let plain = design.model().eval(&at.bindings()).ok();
    let mut text = Text::default();
    const W: usize = 19;
    text.row(0, W, "design", shown(design.term()));
    text.row(0, W, "machine", on.describe());
    let waits = machine.waiting_costs();
    text.row(
        0,
        W,
        "waiting",
        format!(
            "{}: hand-over {}, take {}, channels of {}",
            machine.runs_on(),
            num(waits.handoff_ns),
            num(waits.take_ns),
            args.buffer
        ),
    );
    if !at.is_empty() {
        text.row(0, W, "at", &at);
    }
    text.row(0, W, "time per element", num(p.time_per_element));
    if let Some(v) = plain {
        text.row(0, W, "operators' model", num(v));
    }
    text.row(0, W, "throughput", num(p.throughput));
    text.row(0, W, "slowdown", num(p.slowdown));
    text.row(0, W, "elements in flight", p.population);
    text.line("");
    stations(&mut text, &p.network, &p.solution);
    let json = json!({
        "design": design.term().to_string(),
        "machine": on.json(),
        "buffer": args.buffer,
        "time_per_element": json_num(p.time_per_element),
        "operators_model": plain.map(json_num),
        "throughput": json_num(p.throughput),
        "slowdown": json_num(p.slowdown),
        "in_flight": p.population,
        "stations": stations_json(&p.network, &p.solution),
    });
    Ok(Report { text: text.0, json })
}

fn kind(k: &StationKind) -> String {
    match k {
        StationKind::Queue => "queue".into(),
        StationKind::MultiServer { servers } => format!("{servers} servers"),
        StationKind::LoadDependent => "load-dependent".into(),
        StationKind::Delay => "delay".into(),
    }
}

/// The stations' table: kind, demand, utilization, queue length,
/// residence time.
fn stations(text: &mut Text, network: &Network, s: &Solution) {
    let name_width = network
        .stations()
        .iter()
        .map(|st| st.name().chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    text.line(format!(
        "{:<name_width$}  {:<14}  {:>10}  {:>11}  {:>12}  {:>14}",
        "station", "kind", "demand", "utilization", "queue length", "residence time"
    ));
    for (station, (_, r)) in network.stations().iter().zip(s.stations()) {
        text.line(format!(
            "{:<name_width$}  {:<14}  {:>10}  {:>11}  {:>12}  {:>14}",
            station.name(),
            kind(&station.kind()),
            num(station.demand()),
            num(r.utilization),
            num(r.queue_length),
            num(r.residence_time)
        ));
    }
}

fn stations_json(network: &Network, s: &Solution) -> Vec<Value> {
    network
        .stations()
        .iter()
        .zip(s.stations())
        .map(|(station, (_, r))| {
            json!({
                "name": station.name(),
                "kind": kind(&station.kind()),
                "demand": json_num(station.demand()),
                "utilization": json_num(r.utilization),
                "queue_length": json_num(r.queue_length),
                "residence_time": json_num(r.residence_time),
            })
        })
        .collect()
}

fn closed_network(args: &MvaArgs, text: &str) -> Result<Report, CliError> {
    if args.machine.given()
        || args.at.is_some()
        || args.handoff.is_some()
        || args.take.is_some()
        || args.rate.is_some()
        || args.buffer != DEFAULT_BUFFER
    {
        return Err(CliError::Invalid(
            "--machine, --cores, --nodes, --handoff, --take, --buffer, --rate and --at are for a design; a network's stations are in its file".into(),
        ));
    }
    let shown = args.file.display().to_string();
    let spec = network::parse(&shown, text)?;
    if let Some(classes) = &spec.classes {
        return network::classes::report(args, &shown, spec.name.as_deref(), classes);
    }
    let Some(population) = args.population.or(spec.population) else {
        return Err(CliError::Invalid(format!(
            "{shown} gives no population: give --population"
        )));
    };
    if population == 0 {
        return Err(CliError::Invalid(
            "a population of 0 jobs: give at least 1".into(),
        ));
    }
    if args.sweep && population > MAX_SWEEP {
        return Err(CliError::Invalid(format!(
            "--sweep prints a row per population: at most {MAX_SWEEP}, not {population}"
        )));
    }
    let net = &spec.network;
    let solution = if let Some(method) = args.approx {
        let settings = Approximation {
            method: method.into(),
            ..Approximation::default()
        };
        net.mva_approx_with(population, &settings)?
    } else {
        let limit = args.max_steps.unwrap_or(MAX_EXACT_STEPS);
        net.mva_within(population, limit).map_err(exact_limit)?
    };
    let bounds = net.bounds(population)?;
    let mut text = Text::default();
    const W: usize = 15;
    if let Some(name) = &spec.name {
        text.row(0, W, "network", name);
    }
    text.row(
        0,
        W,
        "population",
        format!(
            "{population} ({})",
            match args.approx {
                None => "exact MVA",
                Some(ApproxMethod::Linearizer) => "approximate MVA: the Linearizer",
                Some(ApproxMethod::SchweitzerBard) => "approximate MVA: Schweitzer-Bard",
            }
        ),
    );
    text.row(0, W, "throughput", num(solution.throughput()));
    text.row(0, W, "response time", num(solution.response_time()));
    text.row(0, W, "cycle time", num(solution.cycle_time()));
    text.row(0, W, "bottleneck", solution.bottleneck());
    text.row(
        0,
        W,
        "N*",
        format!(
            "{}: beyond it, more jobs only queue (PDQ's optimal population)",
            num(bounds.saturation)
        ),
    );
    text.row(
        0,
        W,
        "bounds",
        format!(
            "throughput {} to {}, response time {} to {}",
            num(bounds.throughput_lower),
            num(bounds.throughput_upper),
            num(bounds.response_lower),
            num(bounds.response_upper)
        ),
    );
    text.line("");
    stations(&mut text, net, &solution);
    let mut json = json!({
        "name": spec.name,
        "population": population,
        "exact": args.approx.is_none(),
        "approximation": args.approx.map(ApproxMethod::name),
        "throughput": json_num(solution.throughput()),
        "response_time": json_num(solution.response_time()),
        "cycle_time": json_num(solution.cycle_time()),
        "bottleneck": solution.bottleneck(),
        "optimal_population": json_num(bounds.saturation),
        "bounds": {
            "throughput_lower": json_num(bounds.throughput_lower),
            "throughput_upper": json_num(bounds.throughput_upper),
            "response_lower": json_num(bounds.response_lower),
            "response_upper": json_num(bounds.response_upper),
        },
        "stations": stations_json(net, &solution),
    });
    if args.sweep {
        let sweep = sweep(&mut text, net, population)?;
        json["sweep"] = Value::Array(sweep);
    }
    Ok(Report { text: text.0, json })
}

/// A step limit: a number of at least 1, `1e9` or `1000000000`.
fn step_limit(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 1.0 => Ok(v),
        _ => Err(format!(
            "`{text}` is not a step limit: a number of at least 1, as 1e9"
        )),
    }
}

/// The exact solution's refusal in the command's words: the options that
/// lift it.
fn exact_limit(e: QueueError) -> CliError {
    match e {
        QueueError::BeyondExact {
            population,
            steps,
            limit,
        } => CliError::Invalid(format!(
            "exact MVA at N = {population} would take about {steps:.1e} steps, more than the limit of {limit:.1e} (--max-steps; 1e8 steps take about a second): give --approx for the Linearizer's approximation, or raise --max-steps"
        )),
        other => other.into(),
    }
}

/// Throughput and response time at every population `1..=n`, beside the
/// asymptotic bounds.
fn sweep(text: &mut Text, net: &Network, n: usize) -> Result<Vec<Value>, CliError> {
    let sweep = net.sweep(n).map_err(exact_limit)?;
    text.line("");
    text.line(format!(
        "{:>6}  {:>12}  {:>12}  {:>14}  {:>14}",
        "N", "throughput", "≤ bound", "response time", "≥ bound"
    ));
    let mut out = Vec::with_capacity(n);
    for s in sweep.iter() {
        let b = net.bounds(s.population())?;
        text.line(format!(
            "{:>6}  {:>12}  {:>12}  {:>14}  {:>14}",
            s.population(),
            num(s.throughput()),
            num(b.throughput_upper),
            num(s.response_time()),
            num(b.response_lower)
        ));
        out.push(json!({
            "population": s.population(),
            "throughput": json_num(s.throughput()),
            "response_time": json_num(s.response_time()),
            "throughput_upper": json_num(b.throughput_upper),
            "response_lower": json_num(b.response_lower),
        }));
    }
    Ok(out)
}
