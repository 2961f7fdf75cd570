//! `pattern sensitivity FILE --at ..`: how the time per element depends on
//! each atom's coefficients and on each variable and count at a point
//! (derivatives and elasticities), which atom to speed up first, and with
//! `--span` the bottleneck stage of the pipeline over a range of a variable.

use super::args::{self, Point};
use super::crossovers::describe;
use super::error::CliError;
use super::output::{Report, Text, json_num, num, point_json, shown};
use super::read_design;
use pattern_core::explore::crossover::Span;
use pattern_core::explore::sensitivity::{bottleneck_stages, design_sensitivity, speed_up_ranking};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The options of `pattern sensitivity`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The elasticity of T to v is (dT/dv)·(v/T): the relative change \
    of the time per element for a relative change of v. An atom's coefficients are \
    named `atom.c0`, `atom.c1`, ... in the order its model prints.\n\nExample:\n  \
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

/// Runs `pattern sensitivity`.
pub fn run(args: &SensitivityArgs) -> Result<Report, CliError> {
    let design = read_design(&args.file)?;
    let at = args.at.bindings();
    let s = design_sensitivity(&design, &at)?;
    let ranking = speed_up_ranking(&design, &at)?;
    let mut text = Text::default();
    const W: usize = 16;
    text.row(0, W, "design", shown(design.term()));
    text.row(0, W, "at", &args.at);
    text.row(0, W, "time per element", num(s.time));
    text.line("");
    text.line("derivatives of the time per element T");
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
    for v in &s.variables {
        let kind = if v.count { "  (count)" } else { "" };
        let row = columns(v.value, v.derivative, v.elasticity);
        text.row(2, width, &v.name, format!("{row}{kind}"));
    }
    text.line("");
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
    for r in &ranking {
        let row = format!(
            "{:>10}  {:>18}  {:>12}",
            elasticity(r.elasticity),
            num(r.time_if_twice_as_fast),
            num(r.gain)
        );
        text.row(2, width, &r.atom, row);
    }
    let mut json = json!({
        "design": design.term().to_string(),
        "at": point_json(&at),
        "time_per_element": json_num(s.time),
        "coefficients": s.coefficients.iter().map(|c| json!({
            "name": c.name,
            "atom": c.atom,
            "index": c.index,
            "value": json_num(c.value),
            "derivative": json_num(c.derivative),
            "elasticity": elasticity_json(c.elasticity),
        })).collect::<Vec<_>>(),
        "variables": s.variables.iter().map(|v| json!({
            "name": v.name,
            "value": json_num(v.value),
            "derivative": json_num(v.derivative),
            "elasticity": elasticity_json(v.elasticity),
            "count": v.count,
        })).collect::<Vec<_>>(),
        "speed_up": ranking.iter().map(|r| json!({
            "atom": r.atom,
            "elasticity": elasticity_json(r.elasticity),
            "time_if_twice_as_fast": json_num(r.time_if_twice_as_fast),
            "gain": json_num(r.gain),
        })).collect::<Vec<_>>(),
    });
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
