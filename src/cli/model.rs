//! `pattern model`: a design's throughput model (time per element) in
//! normal form, its latency, the threads and nodes it occupies, its growth
//! class, and their values at points; or a bare cost expression.

use super::args::{self, Point};
use super::error::CliError;
use super::files::read_design;
use super::machine::MachineArgs;
use super::names::Known;
use super::output::{Report, Text, json_num, num, shown};
use pattern_core::semantics::{Latency, Throughput};
use pattern_core::{Design, Expr};
use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// The options of `pattern model`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    pattern model examples/data/pipeline.design --at x=1024,a=2,b=4\n  \
    pattern model examples/data/pipeline.design --asymptotic\n  \
    pattern model examples/data/map_reduce.design --at x=1e6,m=1,n=64 --machine examples/data/star.machine.json\n  \
    pattern model --expr '1034.17*x*log2(x) + 5422.97' --at x=1e6")]
pub struct ModelArgs {
    /// The design file (`-` reads standard input).
    #[arg(required_unless_present = "expr", conflicts_with = "expr")]
    pub file: Option<PathBuf>,
    /// A cost expression to read instead of a design, e.g. `2*x*log2(x) + 5`.
    #[arg(long, value_name = "EXPRESSION")]
    pub expr: Option<String>,
    /// A point to evaluate at, `x=1024,n=4`; repeat for several points.
    #[arg(long, value_name = "POINT", value_parser = args::point)]
    pub at: Vec<Point>,
    /// The paper's asymptotic model: a pipeline costs its fastest-growing
    /// stage instead of the pointwise maximum of its stages.
    #[arg(long)]
    pub asymptotic: bool,
    /// The variable of the growth class.
    #[arg(long, default_value = "x", value_name = "NAME")]
    pub var: String,
    /// The machine the design runs on: the report says where the model's
    /// assumption of a core per thread fails on it.
    #[command(flatten)]
    pub machine: MachineArgs,
}

/// Runs `pattern model`.
pub fn run(args: &ModelArgs) -> Result<Report, CliError> {
    match (&args.expr, &args.file) {
        (Some(text), _) => expression(args, &Expr::parse(text)?.simplify()),
        (None, Some(file)) => design(args, &read_design(file)?),
        // clap requires one of the two.
        (None, None) => Err(CliError::Invalid("give a design file or --expr".into())),
    }
}

fn growth(model: &Expr, var: &str) -> String {
    model
        .growth(var)
        .map_or_else(|| "unknown".to_string(), |g| g.to_string())
}

/// `model` at `point`, or the error naming it.
fn value(what: &str, model: &Expr, point: &Point) -> Result<f64, CliError> {
    model
        .eval(&point.bindings())
        .map_err(|source| CliError::Eval {
            what: what.to_string(),
            at: point.to_string(),
            source,
        })
}

fn point_json(point: &Point) -> Value {
    let map: Map<String, Value> = point
        .0
        .iter()
        .map(|(n, v)| (n.clone(), json_num(*v)))
        .collect();
    Value::Object(map)
}

fn expression(args: &ModelArgs, model: &Expr) -> Result<Report, CliError> {
    if args.machine.given() {
        return Err(CliError::Invalid(
            "--machine, --cores and --nodes are for a design: a bare expression runs on no machine"
                .into(),
        ));
    }
    CliError::refuse_unused(args.asymptotic, "--asymptotic", "a design's model")?;
    let known = Known::of_expr(model);
    known.check_var(&args.var)?;
    for point in &args.at {
        known.check_point("--at", point)?;
    }
    let mut text = Text::default();
    let growth = growth(model, &args.var);
    text.row(0, 10, "expression", shown(model));
    text.row(0, 10, "growth", format!("{growth} in {}", args.var));
    let mut points = Vec::new();
    for point in &args.at {
        let v = value("the expression", model, point)?;
        text.line("");
        text.line(format!("at {point}"));
        text.row(2, 8, "value", num(v));
        points.push(json!({"at": point_json(point), "value": json_num(v)}));
    }
    let json = json!({
        "expression": format!("{model:#}"),
        "growth": growth,
        "var": args.var,
        "points": points,
    });
    Ok(Report { text: text.0, json })
}

fn design(args: &ModelArgs, design: &Design) -> Result<Report, CliError> {
    let known = Known::of(&[design]);
    known.check_var(&args.var)?;
    for point in &args.at {
        known.check_point("--at", point)?;
    }
    let mut model = if args.asymptotic {
        design.model_asymptotic()
    } else {
        design.model()
    };
    let mut latency = design.latency();
    let resources = design.resources();
    let growth = growth(&model, &args.var);
    let mut text = Text::default();
    let label = if args.asymptotic {
        "model (asymptotic)"
    } else {
        "model"
    };
    const W: usize = 18;
    text.row(0, W, "design", shown(design.term()));
    // The machine at the first point (the default fits the design there).
    let first = args.at.first().map(Point::bindings).unwrap_or_default();
    let machine = args.machine.for_design(design, &first)?;
    let mut json = json!({});
    text.row(0, W, "machine", machine.describe());
    json["machine"] = machine.json();
    // Communication functions (seed 004) priced on the machine given.
    if args.machine.given() && !args.asymptotic {
        let profile = machine.machine.communication();
        match design.model_by(&Throughput::new().machine(&profile)) {
            Ok(resolved) if resolved != model => {
                text.row(0, W, "communication", format!("on {}", profile.name));
                json["communication"] = Value::from(profile.name.clone());
                model = resolved;
                // Resolved as the model was, so this cannot fail.
                if let Ok(l) = Latency::new().machine(&profile).latency_of(design.term()) {
                    latency = l.simplify();
                }
            }
            Ok(_) => {}
            Err(e) => text.row(0, W, "communication", format!("left symbolic: {e}")),
        }
    }
    text.row(0, W, label, shown(&model));
    text.row(0, W, "latency", shown(&latency));
    // Counts that need no point print as the integers they are.
    let fixed = design.resource_counts(&[]).ok();
    let (threads_text, nodes_text) = match fixed {
        Some(r) => (r.threads.to_string(), r.nodes.to_string()),
        None => (shown(&resources.threads), resources.nodes.to_string()),
    };
    text.row(0, W, "threads", &threads_text);
    text.row(0, W, "nodes", &nodes_text);
    text.row(0, W, "growth", format!("{growth} in {}", args.var));
    let mut points = Vec::new();
    for point in &args.at {
        super::times::at_point(&[design], &point.bindings())?;
        let t = value("the model", &model, point)?;
        let l = value("the latency", &latency, point)?;
        let counted = design
            .resource_counts(&point.bindings())
            .map_err(|e| CliError::Invalid(format!("the threads at {point}: {e}")))?;
        text.line("");
        text.line(format!("at {point}"));
        text.row(2, 16, "time per element", num(t));
        text.row(2, 16, "latency", num(l));
        text.row(2, 16, "threads", counted.threads);
        text.row(2, 16, "nodes", counted.nodes);
        let broken = design
            .assumptions(&machine.machine, &point.bindings())
            .unwrap_or_default();
        for line in &broken {
            text.row(2, 16, "warning", line);
        }
        points.push(json!({
            "at": point_json(point),
            "time_per_element": json_num(t),
            "latency": json_num(l),
            "threads": counted.threads,
            "nodes": counted.nodes,
            "operators_assumption": {"holds": broken.is_empty(), "fails": broken},
        }));
    }
    let rest = json!({
        "design": design.term().to_string(),
        "model": format!("{model:#}"),
        "asymptotic": args.asymptotic,
        "latency": format!("{latency:#}"),
        "threads": fixed.map_or_else(|| format!("{:#}", resources.threads), |r| r.threads.to_string()),
        "nodes": fixed.map_or_else(|| format!("{:#}", resources.nodes), |r| r.nodes.to_string()),
        "growth": growth,
        "var": args.var,
        "points": points,
    });
    if let (Value::Object(all), Value::Object(rest)) = (&mut json, rest) {
        all.extend(rest);
    }
    Ok(Report { text: text.0, json })
}
