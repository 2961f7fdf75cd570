//! `pattern mva MODEL.jmva`: the models of JMT's JMVA (Java Modelling
//! Tools' MVA solver), read, solved and written back with their solution.
//!
//! A JMVA file is XML (JMT's `JMTmodel.xsd`): a `<model>` whose
//! `<parameters>` hold the `<classes>` (`<closedclass name population>`,
//! `<openclass name rate>`) and the `<stations>` (`<listation name
//! servers>`, `<delaystation name>`, `<ldstation name>`), each station with
//! a `<servicetime customerclass>` per class (an `<ldstation>` a
//! `<servicetimes customerclass>` list, `S(1);S(2);…`, one time per
//! population) and a `<visit customerclass>` per class; the demand is
//! their product. [`read`] reads it, [`solve`] solves it with the
//! library's solvers, [`report`] prints it and [`mod@write`] writes the model
//! back with a `<solutions>` section laid out as JMVA lays out its own.

pub mod read;
pub mod report;
pub mod solve;
pub mod write;

use super::error::CliError;
use super::files::write_file;
use super::mva::MvaArgs;
use super::output::Report;
use std::path::Path;

/// A JMVA model, as its file gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct JmvaModel {
    /// The `<description>`, if any.
    pub description: Option<String>,
    /// The classes, in the file's order.
    pub classes: Vec<JmvaClass>,
    /// The stations, in the file's order.
    pub stations: Vec<JmvaStation>,
}

/// A class of jobs.
#[derive(Clone, Debug, PartialEq)]
pub struct JmvaClass {
    /// Its name.
    pub name: String,
    /// Closed (a population) or open (an arrival rate).
    pub kind: ClassKind,
    /// Its `priority` attribute, if given (kept for JMT; no station here
    /// serves by priority).
    pub priority: Option<i64>,
    /// Its reference station (JMT's `<ReferenceStation>`): a station, or
    /// `Arrival Process` for an open class.
    pub reference: String,
}

/// What makes a class closed or open.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClassKind {
    /// A closed class of this many jobs.
    Closed(usize),
    /// An open class arriving at this rate.
    Open(f64),
}

/// A station with each class's service times and visits.
#[derive(Clone, Debug, PartialEq)]
pub struct JmvaStation {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: StationType,
    /// Per class (in the classes' order): the service time, or for a
    /// load-dependent station the service times with 1, 2, … jobs there.
    pub service: Vec<Vec<f64>>,
    /// Per class: the visits per cycle (1 where the file gives none).
    pub visits: Vec<f64>,
}

/// A station's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StationType {
    /// Load independent (`<listation>`): one server, or `servers`.
    Queue {
        /// Its servers.
        servers: usize,
    },
    /// Infinite servers (`<delaystation>`).
    Delay,
    /// Load dependent (`<ldstation>`): its service times per population
    /// say its speed; `servers` is kept as the file gives it.
    LoadDependent {
        /// The file's `servers` attribute (1 if none).
        servers: usize,
    },
}

/// `--buffer`'s default (mva.rs's): any other value was given, for a
/// design.
const DEFAULT_BUFFER: usize = 4;

/// What `reference` says for an open class: JMT's name for the arrivals.
pub const ARRIVALS: &str = "Arrival Process";

impl JmvaStation {
    /// Class `c`'s demand: visits × the service time (with one job there,
    /// for a load-dependent station).
    pub fn demand(&self, c: usize) -> f64 {
        self.visits[c] * self.service[c].first().copied().unwrap_or(0.0)
    }
}

/// Whether `text` from `path` is a JMVA model: a `.jmva` file, or any
/// input that starts with `<?xml` and whose root element is `<model>`.
pub fn is_jmva(path: &Path, text: &str) -> bool {
    let jmva = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jmva"));
    let body = text.trim_start_matches('\u{feff}').trim_start();
    jmva || (body.starts_with("<?xml") && read::root_is_model(body))
}

/// Reads, solves and reports a JMVA model (and writes it back with its
/// solution for `--write-jmva`).
pub fn run(args: &MvaArgs, text: &str) -> Result<Report, CliError> {
    refuse_options(args)?;
    let shown = args.file.display().to_string();
    let model = read::parse(&shown, text)?;
    let solved = solve::solve(&model, args.approx, args.max_steps)?;
    let report = report::report(&shown, &model, &solved);
    if let Some(out) = &args.write_jmva {
        write_file(out, &write::write(&model, Some(&solved)))?;
    }
    Ok(report)
}

/// The options a JMVA model has no use for.
fn refuse_options(args: &MvaArgs) -> Result<(), CliError> {
    let design = args.machine.given()
        || args.at.is_some()
        || args.handoff.is_some()
        || args.take.is_some()
        || args.rate.is_some()
        || args.buffer != DEFAULT_BUFFER;
    if design {
        return Err(CliError::Invalid(
            "--machine, --cores, --nodes, --handoff, --take, --buffer, --rate and --at are for a design; a JMVA model's stations and classes are in its file".into(),
        ));
    }
    for (option, given) in [
        ("--population", args.population.is_some()),
        ("--sweep", args.sweep),
    ] {
        if given {
            return Err(CliError::Invalid(format!(
                "{option} is for a JSON network: a JMVA model gives each class its population in its file"
            )));
        }
    }
    Ok(())
}
