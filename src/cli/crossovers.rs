//! `pattern crossovers FILE...`: which design is best (lowest time per
//! element) over which interval of a variable, with the points where the
//! best design changes (exact in the JSON) and their kind.

use super::args::{self, Point};
use super::error::CliError;
use super::files::read_designs;
use super::machine::MachineArgs;
use super::output::{Report, Text, json_num, num, point_json, shown};
use pattern_core::Design;
use pattern_core::explore::crossover::{
    CrossoverError, Crossovers, PointKind, Span, design_crossovers,
};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The options of `pattern crossovers`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Crossings are found by root finding on the differences of the \
    models (in closed form where their shape allows), never by sampling.\n\nExample:\n  \
    pattern crossovers examples/data/pool4_qsort.design examples/data/pool2_seq.design --span 1..1e7"
)]
pub struct CrossoversArgs {
    /// Two or more design files.
    #[arg(required = true, num_args = 2..)]
    pub files: Vec<PathBuf>,
    /// The variable varied.
    #[arg(long, default_value = "x", value_name = "NAME")]
    pub var: String,
    /// Its range, `lo..hi`.
    #[arg(long, value_name = "LO..HI", value_parser = args::span)]
    pub span: (f64, f64),
    /// Values of every other variable (and symbolic count), `n=4`.
    #[arg(long, value_name = "POINT", value_parser = args::point)]
    pub at: Option<Point>,
    /// The machine the designs run on: the report says where the models'
    /// assumption of a core per thread fails on it.
    #[command(flatten)]
    pub machine: MachineArgs,
}

/// Runs `pattern crossovers`.
pub fn run(args: &CrossoversArgs) -> Result<Report, CliError> {
    let named = read_designs(&args.files)?;
    let (names, designs): (Vec<String>, Vec<Design>) = named.into_iter().unzip();
    let all: Vec<&Design> = designs.iter().collect();
    let known = super::names::Known::of(&all);
    known.check_var(&args.var)?;
    let at = args.at.clone().unwrap_or_default();
    known.check_point("--at", &at)?;
    super::times::over_span(&all, &at.bindings(), &args.var, args.span.0, args.span.1)?;
    let span = Span::new(&args.var, args.span.0, args.span.1);
    let found =
        design_crossovers(&designs, span, &at.bindings()).map_err(|e| named_error(e, &names))?;
    let mut text = Text::default();
    text.line("designs");
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut listed = Vec::new();
    for (name, d) in names.iter().zip(&designs) {
        let model = d.model();
        text.row(
            2,
            width,
            name,
            format!("{}  model {}", shown(d.term()), shown(&model)),
        );
        listed.push(json!({
            "name": name,
            "design": d.term().to_string(),
            "model": format!("{model:#}"),
        }));
    }
    if !at.is_empty() {
        text.row(0, 2, "at", &at);
    }
    text.line("");
    let mut json = json!({
        "designs": listed,
        "at": point_json(&at.bindings()),
    });
    let named: Vec<(&str, &Design)> = names.iter().map(String::as_str).zip(&designs).collect();
    (args.machine).report_designs(&named, &at.bindings(), &mut text, 8, &mut json)?;
    text.line("");
    describe(&found, &names, "best", &mut text, &mut json);
    Ok(Report { text: text.0, json })
}

/// A crossover error with the designs named as the command line named
/// them (`pool2_seq`), not by their index in the library's list.
pub fn named_error(e: CrossoverError, names: &[String]) -> CliError {
    let name = |i: usize| {
        names
            .get(i)
            .map_or_else(|| format!("{i}"), |n| format!("`{n}`"))
    };
    let message = match &e {
        CrossoverError::Unbound {
            model,
            name: var,
            variable,
        } => format!(
            "the model of {} depends on `{var}`, which is neither the variable `{variable}` (--var) nor bound: give it a value with --at",
            name(*model)
        ),
        CrossoverError::Unresolved { model, name: f } => format!(
            "the model of {} calls `{f}`, which is not a built-in function",
            name(*model)
        ),
        CrossoverError::Malformed { model, call } => {
            format!(
                "the model of {} calls {call}: not a well-formed expression",
                name(*model)
            )
        }
        CrossoverError::NonFinite {
            model,
            variable,
            at,
        } => format!(
            "the model of {} is not finite at {variable} = {at}: choose a --span where it is defined",
            name(*model)
        ),
        CrossoverError::Undecided {
            designs: (a, b),
            lo,
            hi,
            boxes,
        } => format!(
            "could not decide whether the models of {} and {} meet in [{lo}, {hi}] ({boxes} boxes examined): a model with too many jumps or kinks there",
            name(*a),
            name(*b)
        ),
        _ => return CliError::Crossover(e),
    };
    CliError::Invalid(format!("the crossovers: {message}"))
}

/// The kind of a point, in words.
pub fn kind_name(kind: PointKind) -> &'static str {
    match kind {
        PointKind::Crossing => "crossing",
        PointKind::Tangency => "tangency",
        PointKind::Jump => "jump",
        PointKind::TieBoundary => "tie boundary",
    }
}

/// Writes the pieces (each with its `best` item, `what` in the text),
/// the points and the ties of `found` into the report; `names` names the
/// items by index.
pub fn describe(
    found: &Crossovers,
    names: &[String],
    what: &str,
    text: &mut Text,
    json: &mut Value,
) {
    let v = &found.variable;
    let name = |i: usize| names.get(i).map_or("?", String::as_str);
    let pieces: Vec<(String, String)> = found
        .intervals
        .iter()
        .map(|i| {
            let mut who = name(i.best).to_string();
            if !i.tied.is_empty() {
                let tied: Vec<&str> = i.tied.iter().map(|&t| name(t)).collect();
                who = format!("{who} (tied with {})", tied.join(", "));
            }
            (format!("{v} from {} to {}", num(i.lo), num(i.hi)), who)
        })
        .collect();
    let width = pieces
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    text.line(format!("{what} over {v}"));
    for (label, who) in &pieces {
        text.row(2, width, label, who);
    }
    if !found.points.is_empty() {
        text.line("");
        text.line("points");
    }
    for p in &found.points {
        let how = if p.closed_form {
            "closed form"
        } else {
            "numeric"
        };
        let change = match p.kind {
            PointKind::Tangency => format!(
                "{} touches {} ({how})",
                name(p.designs.1),
                name(p.designs.0)
            ),
            _ => format!("{} -> {} ({how})", name(p.before), name(p.after)),
        };
        text.row(
            2,
            width,
            &format!("{v} = {}", num(p.at)),
            format!("{}: {change}", kind_name(p.kind)),
        );
    }
    for (a, b) in &found.ties {
        text.line(format!(
            "{} and {} are equal over the whole span",
            name(*a),
            name(*b)
        ));
    }
    let key = what.replace(' ', "_");
    json["variable"] = Value::from(v.as_str());
    json["intervals"] = found
        .intervals
        .iter()
        .map(|i| {
            json!({
                "lo": json_num(i.lo),
                "hi": json_num(i.hi),
                key.as_str(): name(i.best),
                "index": i.best,
                "tied": i.tied.iter().map(|&t| name(t)).collect::<Vec<_>>(),
            })
        })
        .collect();
    json["points"] = found
        .points
        .iter()
        .map(|p| {
            json!({
                "at": json_num(p.at),
                "kind": kind_name(p.kind),
                "before": name(p.before),
                "after": name(p.after),
                "between": [name(p.designs.0), name(p.designs.1)],
                "closed_form": p.closed_form,
            })
        })
        .collect();
    json["ties"] = found
        .ties
        .iter()
        .map(|(a, b)| json!([name(*a), name(*b)]))
        .collect();
}
