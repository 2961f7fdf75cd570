//! The machine a command prices a design on: `--machine FILE`, or the
//! shorthands `--cores C` and `--nodes N`, or by default the operators'
//! assumption (a core for every thread, on the nodes the design asks for);
//! printed in every report and its JSON. And `pattern machine`: a machine
//! file checked and shown, or this computer probed into one.

use super::error::CliError;
use super::output::{Report, Text};
use pattern_core::Design;
use pattern_core::exec::probe;
use pattern_core::machine::{Machine, Runtime};
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;

/// The options that say which machine a design runs on.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct MachineArgs {
    /// The machine file the design runs on (docs/machine.md):
    /// heterogeneous nodes, a network, waiting costs.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["cores", "nodes"])]
    pub machine: Option<PathBuf>,
    /// Shorthand for a machine of nodes of C cores each (one node unless
    /// --nodes says more).
    #[arg(long, value_name = "C")]
    pub cores: Option<usize>,
    /// Shorthand for a machine of N nodes (of --cores cores each, or of a
    /// core for every thread the design may put on a node).
    #[arg(long, value_name = "N")]
    pub nodes: Option<usize>,
    /// The runtime that will run the design (executor, rayon, threads):
    /// the machine file's waiting part for it is priced (by default the
    /// file's `runtime`).
    #[arg(long, value_name = "NAME")]
    pub runtime: Option<Runtime>,
}

/// Where a command's machine came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// A machine file.
    File(String),
    /// `--cores` and `--nodes`.
    Options,
    /// No option: a core for every thread, the operators' assumption.
    Assumed,
}

/// The machine a command runs a design on, and where it came from.
#[derive(Clone, Debug)]
pub struct OnMachine {
    /// The machine.
    pub machine: Machine,
    /// Where it came from.
    pub origin: Origin,
}

impl MachineArgs {
    /// Whether the user named a machine.
    pub fn given(&self) -> bool {
        self.machine.is_some() || self.cores.is_some() || self.nodes.is_some()
    }

    /// The machine of the options; `assumed` gives the nodes and cores of
    /// the default (or of the part the shorthands leave out): `(nodes,
    /// cores per node)`.
    pub fn resolve(&self, assumed: (usize, usize)) -> Result<OnMachine, CliError> {
        if let Some(path) = &self.machine {
            let mut machine = read_machine(path)?;
            if let Some(runtime) = self.runtime {
                if machine.waiting_of(runtime).is_none() {
                    let has: Vec<String> = machine.runtimes().map(|r| r.to_string()).collect();
                    return Err(CliError::Invalid(format!(
                        "--runtime {runtime}: {} has no waiting part for {runtime} ({}); \
                         probe it with `pattern machine --probe --runtime {runtime}`",
                        path.display(),
                        if has.is_empty() {
                            "it has none".to_string()
                        } else {
                            format!("it has {}", has.join(", "))
                        }
                    )));
                }
                machine = machine.runtime(runtime);
            }
            return Ok(OnMachine {
                machine,
                origin: Origin::File(path.display().to_string()),
            });
        }
        if let Some(runtime) = self.runtime {
            return Err(CliError::Invalid(format!(
                "--runtime {runtime} needs --machine FILE: a runtime's waiting is measured into a machine file \
                 (`pattern machine --probe --runtime {runtime}`)"
            )));
        }
        // `--cores C` alone is one node of C cores.
        let default_nodes = if self.cores.is_some() { 1 } else { assumed.0 };
        let nodes = self.nodes.unwrap_or(default_nodes.max(1));
        let cores = self.cores.unwrap_or(assumed.1.max(1));
        for (option, value) in [("--nodes", self.nodes), ("--cores", self.cores)] {
            if value == Some(0) {
                return Err(CliError::Invalid(format!(
                    "{option} 0: a machine has at least one node of at least one core"
                )));
            }
        }
        let machine = Machine::new(nodes, cores);
        machine.check().map_err(CliError::Machine)?;
        Ok(OnMachine {
            machine,
            origin: if self.given() {
                Origin::Options
            } else {
                Origin::Assumed
            },
        })
    }

    /// The machine for `design` at the point `at`: by default a core for
    /// every thread on the nodes the design asks for there (one node of one
    /// core where its counts are not bound).
    pub fn for_design(&self, design: &Design, at: &[(&str, f64)]) -> Result<OnMachine, CliError> {
        let assumed = match design.resource_counts(at) {
            Ok(r) => (whole(r.nodes), whole(r.threads_per_node)),
            Err(_) => (1, 1),
        };
        self.resolve(assumed)
    }
}

impl MachineArgs {
    /// For commands that price designs by the plain operators alone: the
    /// machine's row in `text` (labels `width` wide) and `json`
    /// (`machine`), and where the operators' assumption fails on it for
    /// each design at `at` (a `warning` row each, and
    /// `operators_assumption` in the JSON, by design). Without a machine
    /// the assumption holds by definition, and the report says so.
    pub fn report_designs(
        &self,
        designs: &[(&str, &Design)],
        at: &[(&str, f64)],
        text: &mut Text,
        width: usize,
        json: &mut Value,
    ) -> Result<(), CliError> {
        if !self.given() {
            text.row(0, width, "machine", ASSUMED);
            json["machine"] = json!({"summary": ASSUMED, "origin": "assumed"});
            return Ok(());
        }
        let on = match designs.first() {
            Some((_, first)) => self.for_design(first, at)?,
            None => self.resolve((1, 1))?,
        };
        text.row(0, width, "machine", on.describe());
        json["machine"] = on.json();
        let mut fails = serde_json::Map::new();
        for (name, design) in designs {
            let broken = design.assumptions(&on.machine, at).unwrap_or_default();
            for line in &broken {
                let label = if designs.len() > 1 {
                    format!("warning ({name})")
                } else {
                    "warning".to_string()
                };
                text.row(0, width, &label, line);
            }
            fails.insert(
                name.to_string(),
                json!({"holds": broken.is_empty(), "fails": broken}),
            );
        }
        json["operators_assumption"] = Value::Object(fails);
        Ok(())
    }

    /// The machine of a search under a budget of `budget` threads: the one
    /// given, or one with a core for every thread the budget allows on
    /// each node the design may ask for (its nodes where they do not depend
    /// on a count, else as many as the budget).
    pub fn for_budget(&self, design: &Design, budget: u64) -> Result<OnMachine, CliError> {
        let budget = whole(budget);
        let nodes = match design.resources().nodes.eval(&[]) {
            Ok(n) if n.is_finite() && n >= 1.0 && n <= budget as f64 => n as usize,
            _ => budget,
        };
        self.resolve((nodes, budget))
    }
}

/// What a report says of the machine when none is given to a command that
/// prices by the plain operators.
const ASSUMED: &str =
    "a core for every thread, the operators' assumption (give --machine, --cores or --nodes)";

/// A count as a `usize` (saturating).
pub fn whole(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

impl OnMachine {
    /// The machine for reports: its summary and where it came from.
    pub fn describe(&self) -> String {
        let summary = self.machine.summary();
        match &self.origin {
            Origin::File(path) => format!("{summary} ({path})"),
            Origin::Options => summary,
            Origin::Assumed => format!(
                "{summary}: a core for every thread, the operators' assumption (give --machine, --cores or --nodes)"
            ),
        }
    }

    /// The machine in a report's JSON: the machine file's form, its
    /// summary and its origin.
    pub fn json(&self) -> Value {
        let (origin, file) = match &self.origin {
            Origin::File(path) => ("file", Some(path.clone())),
            Origin::Options => ("options", None),
            Origin::Assumed => ("assumed", None),
        };
        json!({
            "summary": self.machine.summary(),
            "origin": origin,
            "file": file,
            "runtime": self.machine.runs_on().name(),
            "description": serde_json::to_value(&self.machine).unwrap_or(Value::Null),
        })
    }
}

/// The options of `pattern machine`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    pattern machine examples/data/cluster.machine.json\n  \
    pattern machine --probe > this.machine.json\n  \
    pattern machine --probe --quick\n  \
    pattern machine --probe --runtime rayon > rayon.machine.json\n  \
    pattern machine --probe --quick --runtime threads")]
pub struct MachineCommandArgs {
    /// A machine file to check and describe (`-` reads standard input).
    #[arg(required_unless_present = "probe", conflicts_with = "probe")]
    pub file: Option<PathBuf>,
    /// Measure this computer (its cores, and what its threads cost to wait
    /// and hand over) and print it as a machine file.
    #[arg(long)]
    pub probe: bool,
    /// With --probe: fewer samples (seconds instead of tens of seconds).
    #[arg(long, requires = "probe")]
    pub quick: bool,
    /// With --probe: the runtime whose threads are measured (executor,
    /// rayon, threads; by default the executor); the file runs on it.
    #[arg(long, value_name = "NAME", requires = "probe")]
    pub runtime: Option<Runtime>,
    /// With --probe: MiB of array per thread the memory's bandwidth is
    /// measured over (64, 4 with --quick; 0 does not measure it).
    #[arg(long, value_name = "MIB", requires = "probe")]
    pub memory_mib: Option<usize>,
}

/// Runs `pattern machine`.
pub fn run(args: &MachineCommandArgs) -> Result<Report, CliError> {
    match &args.file {
        Some(path) => describe(path),
        None => probe(args),
    }
}

/// The machine in the file `path` (`-`: standard input), its format
/// errors naming the file.
pub fn read_machine(path: &std::path::Path) -> Result<Machine, CliError> {
    let text = super::files::read_text(path)?;
    Machine::from_json(&text).map_err(|e| CliError::Machine(e.in_file(path)))
}

fn describe(path: &std::path::Path) -> Result<Report, CliError> {
    let machine = read_machine(path)?;
    let mut out = Text::default();
    const W: usize = 9;
    out.row(0, W, "machine", machine.summary());
    out.row(0, W, "nodes", machine.nodes());
    out.row(0, W, "cores", machine.cores());
    let json = json!({
        "summary": machine.summary(),
        "nodes": machine.nodes(),
        "cores": machine.cores(),
        "description": serde_json::to_value(&machine).unwrap_or(Value::Null),
    });
    Ok(Report { text: out.0, json })
}

fn probe(args: &MachineCommandArgs) -> Result<Report, CliError> {
    let runtime = args.runtime.unwrap_or_default();
    let mut options = if args.quick {
        probe::Options::quick()
    } else {
        probe::Options::new()
    }
    .runtime(runtime);
    if let Some(mib) = args.memory_mib {
        options = options.memory_mib(mib);
    }
    let spinner = super::progress::spinner(&format!("measuring this computer ({runtime})"));
    let measured = probe::measure(&options);
    super::progress::finish(spinner);
    let measured = measured.map_err(|e| CliError::Invalid(format!("the probe: {e}")))?;
    // Standard output is the machine file; what was measured, and how, goes
    // to standard error (in the JSON, beside the machine).
    let mut err = std::io::stderr().lock();
    for note in measured
        .quantities
        .iter()
        .map(ToString::to_string)
        .chain(measured.notes.iter().cloned())
    {
        let _ = writeln!(err, "{note}");
    }
    let _ = writeln!(err, "took {:.1} s", measured.took.as_secs_f64());
    let mut text = measured.machine.to_json();
    text.push('\n');
    let json = json!({
        "machine": serde_json::to_value(&measured.machine).unwrap_or(Value::Null),
        "quantities": measured.quantities.iter().map(|q| json!({
            "key": q.part.key(),
            "median_ns": q.median_ns(),
            "note": q.to_string(),
        })).collect::<Vec<_>>(),
        "runtime": runtime.name(),
        "notes": measured.notes,
        "took_s": measured.took.as_secs_f64(),
    });
    Ok(Report { text, json })
}
