//! `pattern sensitivity FILE --at ..`: how the time per element depends on
//! each atom's coefficients and on each variable at a point (one-sided
//! derivatives and elasticities, the parameter increasing), what one
//! worker fewer or more of each count changes, which atom to speed up
//! first, and with `--span` the bottleneck stage of the pipeline over a
//! range of a variable.

use super::args::{self, Point};
use super::crossovers::describe;
use super::error::CliError;
use super::files::read_design;
use super::machine::MachineArgs;
use super::output::{Report, Text, json_num, num, point_json, shown};
use pattern_core::explore::crossover::Span;
use pattern_core::explore::sensitivity::{
    Sensitivity, SpeedUp, bottleneck_stages, design_sensitivity, speed_up_ranking,
};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The options of `pattern sensitivity`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The elasticity of T to v is (dT/dv)·(v/T): the relative change \
    of the time per element for a relative change of v. Where the model has a kink \
    (stages that tie), the derivative is the one of increasing v. An atom's \
    coefficients are named `atom.c0`, `atom.c1`, ... in the order its model prints \
    (1 for a term printed without a number). Counts are integers: for each, the \
    change of T with one fewer and one more (inf: none left, the design does not \
    run).\n\nExample:\n  \
    pattern sensitivity examples/data/stages.design --at x=1000,a=4,b=2,c=1 --span 1..1e6"
)]
pub struct SensitivityArgs {
    /// The design file.
    pub file: PathBuf,
    /// The point: every variable of the models and every symbolic count.
    #[arg(long, value_name = "POINT", value_parser = args::point)]
    pub at: Point,
    /// Also the bottleneck stage of the pipeline over this range of --var.
    #[arg(long, value_name = "LO..HI", value_parser = args::span)]
    pub span: Option<(f64, f64)>,
    /// The variable of --span.
    #[arg(long, default_value = "x", value_name = "NAME")]
    pub var: String,
    /// The machine the design runs on: the report says where the model's
    /// assumption of a core per thread fails on it.
    #[command(flatten)]
    pub machine: MachineArgs,
}

fn elasticity(e: Option<f64>) -> String {
    e.map_or_else(|| "undefined".into(), num)
}

/// A row of the derivatives' table.
fn columns(value: f64, derivative: f64, e: Option<f64>) -> String {
    format!(
        "{:>12}  {:>12}  {:>10}",
        num(value),
        num(derivative),
        elasticity(e)
    )
}

fn elasticity_json(e: Option<f64>) -> Value {
    e.map_or(Value::Null, json_num)
}

/// The derivatives' table, then the counts' (the change of T with one
/// worker fewer and one more).
fn derivatives_text(s: &Sensitivity, text: &mut Text) {
    text.line("derivatives of the time per element T (one-sided: v increasing)");
    let width = s
        .coefficients
        .iter()
        .map(|c| c.name.chars().count())
        .chain(s.variables.iter().map(|v| v.name.chars().count()))
        .max()
        .unwrap_or(0)
        .max(8);
    let header = format!("{:>12}  {:>12}  {:>10}", "value", "dT/dv", "elasticity");
    text.row(2, width, "", header);
    for c in &s.coefficients {
        let row = columns(c.value, c.derivative, c.elasticity);
        text.row(2, width, &c.name, row);
    }
    for v in s.variables.iter().filter(|v| !v.count) {
        let row = columns(v.value, v.derivative, v.elasticity);
        text.row(2, width, &v.name, row);
    }
    if !s.variables.iter().any(|v| v.count) {
        return;
    }
    text.line("");
    text.line("counts: the change of T with one fewer and one more");
    let header = format!("{:>12}  {:>12}  {:>12}", "value", "one fewer", "one more");
    text.row(2, width, "", header);
    // Signed: `+` slower, `-` faster.
    let change = |c: Option<f64>| match c {
        Some(c) if c > 0.0 => format!("+{}", num(c)),
        Some(c) => num(c),
        None => "undefined".into(),
    };
    for v in s.variables.iter().filter(|v| v.count) {
        let row = format!(
            "{:>12}  {:>12}  {:>12}",
            num(v.value),
            change(v.one_fewer),
            change(v.one_more)
        );
        text.row(2, width, &v.name, row);
    }
}

/// The atoms in the order to speed them up.
fn ranking_text(ranking: &[SpeedUp], text: &mut Text) {
    text.line("speed up first");
    let width = ranking
        .iter()
        .map(|r| r.atom.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let header = format!(
        "{:>10}  {:>18}  {:>12}",
        "elasticity", "T if twice as fast", "gain"
    );
    text.row(2, width, "atom", header);
    for r in ranking {
        let row = format!(
            "{:>10}  {:>18}  {:>12}",
            elasticity(r.elasticity),
            num(r.time_if_twice_as_fast),
            num(r.gain)
        );
        text.row(2, width, &r.atom, row);
    }
}

/// The report as JSON: the variables apart from the counts, which carry
/// their changes by one worker instead of a derivative.
fn sensitivity_json(s: &Sensitivity, ranking: &[SpeedUp]) -> Value {
    let (counts, variables): (Vec<_>, Vec<_>) = s.variables.iter().partition(|v| v.count);
    json!({
        "time_per_element": json_num(s.time),
        "coefficients": s.coefficients.iter().map(|c| json!({
            "name": c.name,
            "atom": c.atom,
            "index": c.index,
            "value": json_num(c.value),
            "derivative": json_num(c.derivative),
            "elasticity": elasticity_json(c.elasticity),
        })).collect::<Vec<_>>(),
        "variables": variables.iter().map(|v| json!({
            "name": v.name,
            "value": json_num(v.value),
            "derivative": json_num(v.derivative),
            "elasticity": elasticity_json(v.elasticity),
        })).collect::<Vec<_>>(),
        // An infinite change (none left) is `null`, as JSON has no infinity.
        "counts": counts.iter().map(|v| json!({
            "name": v.name,
            "value": json_num(v.value),
            "one_fewer": v.one_fewer.map_or(Value::Null, json_num),
            "one_more": v.one_more.map_or(Value::Null, json_num),
        })).collect::<Vec<_>>(),
        "speed_up": ranking.iter().map(|r| json!({
            "atom": r.atom,
            "elasticity": elasticity_json(r.elasticity),
            "time_if_twice_as_fast": json_num(r.time_if_twice_as_fast),
            "gain": json_num(r.gain),
        })).collect::<Vec<_>>(),
    })
}

/// Runs `pattern sensitivity`.
pub fn run(args: &SensitivityArgs) -> Result<Report, CliError> {
    let design = read_design(&args.file)?;
    let known = super::names::Known::of(&[&design]);
    known.check_var(&args.var)?;
    CliError::refuse_unused(
        args.span.is_none() && args.var != super::names::DEFAULT_VAR,
        "--var",
        "--span (the variable of the bottleneck's ranges)",
    )?;
    known.check_point("--at", &args.at)?;
    super::names::require_bound(&[&design], &args.at, true, &[])?;
    let at = args.at.bindings();
    super::times::at_point(&[&design], &at)?;
    if let Some((lo, hi)) = args.span {
        super::times::over_span(&[&design], &at, &args.var, lo, hi)?;
    }
    let s = design_sensitivity(&design, &at)?;
    let ranking = speed_up_ranking(&design, &at)?;
    let mut text = Text::default();
    const W: usize = 16;
    let mut json = sensitivity_json(&s, &ranking);
    text.row(0, W, "design", shown(design.term()));
    (args.machine).report_designs(&[("design", &design)], &at, &mut text, W, &mut json)?;
    text.row(0, W, "at", &args.at);
    text.row(0, W, "time per element", num(s.time));
    text.line("");
    derivatives_text(&s, &mut text);
    text.line("");
    ranking_text(&ranking, &mut text);
    json["design"] = Value::String(design.term().to_string());
    json["at"] = point_json(&at);
    if let Some((lo, hi)) = args.span {
        // The span's variable varies: the rest of the point binds the others.
        let bound: Vec<(&str, f64)> = at.iter().copied().filter(|(n, _)| *n != args.var).collect();
        let found = bottleneck_stages(&design, Span::new(&args.var, lo, hi), &bound)?;
        text.line("");
        let mut part = json!({"stages": found.stages});
        describe(
            &found.ranges,
            &found.stages,
            "bottleneck stage",
            &mut text,
            &mut part,
        );
        json["bottleneck"] = part;
    }
    Ok(Report { text: text.0, json })
}
