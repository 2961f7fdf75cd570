//! `pattern sweep FILE... --x 1e3..1e7`: every design's model over a grid
//! of variables, as CSV (the default) or JSON; or with `--threads` one
//! design's time per element against a symbolic count, the operators, the
//! queueing prediction and the simulation side by side.

use super::args::{self, Point};
use super::error::{CliError, DEFAULT_ELEMENTS};
use super::files::{read_designs, write_file};
use super::machine::{MachineArgs, OnMachine};
use super::names::Known;
use super::output::Report;
use super::progress;
use pattern_core::explore::ranking::symbolic_counts;
use pattern_core::explore::sweep::{Axis, Sweep, Table, ThreadCurve, ThreadSweep};
use pattern_core::machine::Machine;
use pattern_core::{Design, Expr};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Sweeps of at least this many points show a spinner (on a terminal).
const LONG_SWEEP: usize = 100_000;

/// The options of `pattern sweep`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "An axis is `lo..hi` (log-spaced over two decades or more, else \
    every integer or 11 values), `lo..hi:count`, `lo..hi:count:log|lin`, a list `1,2,4` \
    or one value. Each design's column is named after its file. A --threads sweep \
    runs on the machine (--machine, --cores, --nodes; by default one node with a core \
    for every thread at the largest count), named in a first line `# machine: ..` of \
    its CSV and in its JSON.\n\nExamples:\n  \
    pattern sweep examples/data/pool4_qsort.design examples/data/pool2_seq.design --x 1..1e3:4\n  \
    pattern sweep examples/data/stages.design --x 1e3..1e6:4 --axis a=1..4 --at b=2,c=1 -o out.csv\n  \
    pattern sweep examples/data/threads.design --threads 1..8 --cores 4 --at x=1e4 --simulate"
)]
pub struct SweepArgs {
    /// The design files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The axis of `x`, e.g. `1e3..1e7:50:log`.
    #[arg(long, value_name = "AXIS")]
    pub x: Option<String>,
    /// Another axis, `n=1..16:16`; may be repeated.
    #[arg(long, value_name = "NAME=AXIS", value_parser = args::named_axis)]
    pub axis: Vec<(String, String)>,
    /// Values of the variables no axis varies, `n=4`.
    #[arg(long, value_name = "POINT", value_parser = args::point)]
    pub at: Option<Point>,
    /// Writes the table to this file instead: `.csv` or `.json`.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The values of a symbolic count instead of a grid, `1..16`: the
    /// time per element against it (one design).
    #[arg(long, value_name = "AXIS", conflicts_with_all = ["x", "axis"])]
    pub threads: Option<String>,
    /// The count --threads varies (default: the design's only one).
    #[arg(long, value_name = "NAME", requires = "threads")]
    pub count: Option<String>,
    /// The machine of the queueing model and the simulation (with
    /// --threads).
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Also simulate a stream at each count (with --threads).
    #[arg(long, requires = "threads")]
    pub simulate: bool,
    /// Elements of each simulated stream.
    #[arg(long, default_value_t = DEFAULT_ELEMENTS)]
    pub elements: usize,
}

/// Runs `pattern sweep`.
pub fn run(args: &SweepArgs) -> Result<Report, CliError> {
    let designs = read_designs(&args.files)?;
    let all: Vec<&Design> = designs.iter().map(|(_, d)| d).collect();
    let at = super::names::checked_at(args.at.as_ref(), &all)?;
    CliError::refuse_unused(
        args.elements != DEFAULT_ELEMENTS && !args.simulate,
        "--elements",
        "--threads with --simulate",
    )?;
    match &args.threads {
        Some(values) => {
            let (table, on) = thread_table(args, &designs, values, &at)?;
            emit(&table, Some(&on), args.output.as_deref())
        }
        None => {
            if args.machine.given() {
                return Err(CliError::Invalid(
                    "--machine, --cores and --nodes are for --threads: a grid's columns are the operators' models, which assume a core for every thread"
                        .into(),
                ));
            }
            emit(
                &grid_table(args, &designs, &at)?,
                None,
                args.output.as_deref(),
            )
        }
    }
}

/// Reads the axis `text` of `name`, for the option `option`.
pub fn axis(option: &str, name: &str, text: &str) -> Result<Axis, CliError> {
    Axis::parse(name, text).map_err(|source| CliError::Axis {
        option: option.to_string(),
        source,
    })
}

/// `model` with the point's variables replaced by their values.
pub fn bound(model: &Expr, at: &Point) -> Expr {
    let values: Vec<(&str, Expr)> =
        at.0.iter()
            .map(|(n, v)| (n.as_str(), Expr::num(*v)))
            .collect();
    model.subs_all(&values)
}

fn grid_table(
    args: &SweepArgs,
    designs: &[(String, Design)],
    at: &Point,
) -> Result<Table, CliError> {
    let all: Vec<&Design> = designs.iter().map(|(_, d)| d).collect();
    let known = Known::of(&all);
    let mut axes = Vec::new();
    let named = args.x.iter().map(|x| ("x", x.as_str(), "--x".to_string()));
    let named = named.chain(
        args.axis
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str(), format!("--axis {n}"))),
    );
    for (name, text, option) in named {
        known.check_name(&option, name)?;
        if at.0.iter().any(|(n, _)| n == name) {
            return Err(CliError::Invalid(format!(
                "{option} and --at {name}=..: `{name}` is either swept or fixed, give one"
            )));
        }
        axes.push(axis(&option, name, text)?);
    }
    if axes.is_empty() {
        return Err(CliError::Invalid(
            "give the axes of the sweep: --x and/or --axis NAME=AXIS (or --threads)".into(),
        ));
    }
    let grid: Vec<(&str, Vec<f64>)> = axes
        .iter()
        .map(|a| (a.name(), a.values().to_vec()))
        .collect();
    super::times::over_grid(&all, &at.bindings(), &grid)?;
    let points = axes
        .iter()
        .try_fold(1usize, |n, a| n.checked_mul(a.values().len()))
        .ok_or_else(|| CliError::Invalid("the grid has more points than can be counted".into()))?;
    let sweep = designs.iter().fold(Sweep::new(axes), |s, (name, d)| {
        s.model(name, bound(&d.model(), at))
    });
    let bar = (points >= LONG_SWEEP)
        .then(|| progress::spinner(&format!("sweeping {points} points")))
        .flatten();
    let table = sweep.run();
    progress::finish(bar);
    Ok(table?)
}

/// The values of a count's axis, as counts.
pub fn count_values(option: &str, name: &str, text: &str) -> Result<Vec<u64>, CliError> {
    let axis = axis(option, name, text)?;
    axis.values()
        .iter()
        .map(|&v| {
            if v.fract() == 0.0 && (1.0..=9.007_199_254_740_992e15).contains(&v) {
                // A whole number in range: exact.
                Ok(v as u64)
            } else {
                Err(CliError::Invalid(format!(
                    "{option}: {v} is not a count (a whole number from 1)"
                )))
            }
        })
        .collect()
}

/// The count a threads sweep varies: the one named, or the only one; not
/// one the point `at` fixes.
pub fn count_name(design: &Design, named: Option<&str>, at: &Point) -> Result<String, CliError> {
    let count = varied_count(design, named)?;
    if at.0.iter().any(|(n, _)| *n == count) {
        return Err(CliError::Invalid(format!(
            "--at {count}=..: `{count}` is the count the threads vary, drop it from --at"
        )));
    }
    Ok(count)
}

fn varied_count(design: &Design, named: Option<&str>) -> Result<String, CliError> {
    if let Some(name) = named {
        Known::of(&[design]).check_count("--count", name)?;
        return Ok(name.to_string());
    }
    match symbolic_counts(design.term()).as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(CliError::Invalid(
            "the design has no symbolic count to vary: name one, as in `tpool[n](..)`".into(),
        )),
        many => Err(CliError::Invalid(format!(
            "the design has several symbolic counts ({}): choose one with --count",
            many.join(", ")
        ))),
    }
}

/// The threads curve of `design` over `values` of `count`, one value at a
/// time so that a bar can show the progress.
pub fn thread_curve(
    design: &Design,
    count: &str,
    values: &[u64],
    machine: &Machine,
    at: &Point,
    simulation: Option<usize>,
) -> Result<ThreadCurve, CliError> {
    let bar = if simulation.is_some() {
        progress::bar(values.len() as u64, "simulating")
    } else {
        None
    };
    let mut curve = ThreadCurve {
        count: count.to_string(),
        points: Vec::with_capacity(values.len()),
    };
    for &value in values {
        let mut sweep =
            ThreadSweep::new(design, count, &[value], machine.clone()).at(&at.bindings());
        if let Some(elements) = simulation {
            sweep = sweep.simulate(elements);
        }
        let one = sweep.run();
        if let Some(bar) = &bar {
            bar.inc(1);
        }
        match one {
            Ok(one) => curve.points.extend(one.points),
            Err(e) => {
                progress::finish(bar);
                return Err(e.into());
            }
        }
    }
    progress::finish(bar);
    Ok(curve)
}

fn thread_table(
    args: &SweepArgs,
    designs: &[(String, Design)],
    values: &str,
    at: &Point,
) -> Result<(Table, OnMachine), CliError> {
    let [(_, design)] = designs else {
        return Err(CliError::Invalid(format!(
            "--threads sweeps one design, {} given",
            designs.len()
        )));
    };
    let count = count_name(design, args.count.as_deref(), at)?;
    super::names::require_bound(&[design], at, true, &[&count])?;
    super::times::at_point(&[design], &at.bindings())?;
    let values = count_values("--threads", &count, values)?;
    let on = threads_machine(&args.machine, design, &count, &values, at)?;
    let simulation = args.simulate.then_some(args.elements);
    let table = thread_curve(design, &count, &values, &on.machine, at, simulation)?.to_table();
    Ok((table, on))
}

/// The machine of a threads sweep: the one given, or by default one with a
/// core for every thread at the count's largest value.
pub fn threads_machine(
    machine: &MachineArgs,
    design: &Design,
    count: &str,
    values: &[u64],
    at: &Point,
) -> Result<OnMachine, CliError> {
    let most = values.iter().copied().max().unwrap_or(1);
    let mut point = at.bindings();
    point.retain(|(n, _)| *n != count);
    point.push((count, most as f64));
    machine.for_design(design, &point)
}

/// The table on standard output (CSV, or JSON with `--json`), or written
/// to `output` (its format from its extension) with a line saying so; the
/// machine, if the table ran on one, in a first line `# machine: ..` of
/// the CSV and under `machine` in the JSON.
fn emit(table: &Table, on: Option<&OnMachine>, output: Option<&Path>) -> Result<Report, CliError> {
    let json = || {
        let mut v = serde_json::from_str::<Value>(&table.to_json()).unwrap_or(Value::Null);
        if let (Some(on), Value::Object(map)) = (on, &mut v) {
            map.insert("machine".into(), on.json());
        }
        v
    };
    let csv = || match on {
        Some(on) => format!("# machine: {}\n{}", on.describe(), table.to_csv()),
        None => table.to_csv(),
    };
    let Some(path) = output else {
        return Ok(Report {
            text: csv(),
            json: json(),
        });
    };
    let contents = match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => csv(),
        Some("json") => json().to_string(),
        _ => {
            return Err(CliError::Invalid(format!(
                "-o {}: the file must end in .csv or .json",
                path.display()
            )));
        }
    };
    write_file(path, &contents)?;
    Ok(Report {
        text: format!(
            "wrote {} rows of {} columns to {}\n",
            table.rows.len(),
            table.columns.len(),
            path.display()
        ),
        json: json!({
            "written": path.display().to_string(),
            "rows": table.rows.len(),
            "columns": table.columns,
        }),
    })
}
