//! `pattern compare A B`: is design B (a refactoring of A) equivalent to A,
//! never worse over a domain, or where does it first lose and by how much.

use super::args::{self, Range};
use super::error::CliError;
use super::files::read_design;
use super::machine::MachineArgs;
use super::output::{Report, Text, json_num, shown};
use pattern_core::compare::{self, Comparison, Domain, Evidence, Point, Verdict};
use pattern_core::explore::ranking::symbolic_counts;
use serde_json::{Map, Value, json};
use std::cmp::Ordering;
use std::path::PathBuf;

/// The options of `pattern compare`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The domain of `x` is 2..2^20 and of any other variable 1..64 unless \
    given.\n\nExample:\n  \
    pattern compare examples/data/paper_pipe.design examples/data/paper_farm.design --domain x=2..1e6"
)]
pub struct CompareArgs {
    /// Design A, the reference (`-` reads standard input).
    pub a: PathBuf,
    /// Design B, the candidate.
    pub b: PathBuf,
    /// Ranges of whole numbers to compare over, `x=1..1e6` or
    /// `x=2..1e6,n=1..16`; may be repeated.
    #[arg(long, value_name = "RANGES", value_parser = args::ranges)]
    pub domain: Vec<Vec<Range>>,
    /// The machine the designs run on: the report says where the models'
    /// assumption of a core per thread fails on it, at the domain's
    /// largest counts.
    #[command(flatten)]
    pub machine: MachineArgs,
}

/// Runs `pattern compare`.
pub fn run(args: &CompareArgs) -> Result<Report, CliError> {
    let a = read_design(&args.a)?;
    let b = read_design(&args.b)?;
    let known = super::names::Known::of(&[&a, &b]);
    let mut domain = Domain::new();
    for r in args.domain.iter().flatten() {
        known.check_name("--domain", &r.var)?;
        domain = domain
            .with(&r.var, r.lo, r.hi)
            .map_err(compare::CompareError::from)?;
    }
    let ranges: Vec<(&str, Vec<f64>)> = args
        .domain
        .iter()
        .flatten()
        .map(|r| {
            (
                r.var.as_str(),
                super::times::samples(r.lo as f64, r.hi as f64, 17),
            )
        })
        .collect();
    if !ranges.is_empty() {
        super::times::over_grid(&[&a, &b], &[], &ranges)?;
    }
    let c = compare::compare(&a, &b, &domain)?;
    let mut text = Text::default();
    text.row(0, 4, "A", shown(a.term()));
    text.row(0, 4, "M[A]", shown(&c.a));
    text.row(0, 4, "B", shown(b.term()));
    text.row(0, 4, "M[B]", shown(&c.b));
    text.line("");
    text.line(&c);
    let mut json = json!({
        "a": {"design": a.term().to_string(), "model": format!("{:#}", c.a)},
        "b": {"design": b.term().to_string(), "model": format!("{:#}", c.b)},
        "never_worse": c.never_worse(),
        "growth_of_b": match c.growth {
            Some(Ordering::Less) => "slower",
            Some(Ordering::Equal) => "same",
            Some(Ordering::Greater) => "faster",
            None => "unknown",
        },
        "verdict": verdict_json(&c),
        "summary": c.to_string(),
    });
    // The most threads: every count at the top of its range.
    let mut names = symbolic_counts(a.term());
    names.extend(symbolic_counts(b.term()));
    let corner: Vec<(String, f64)> = (names.into_iter())
        .map(|n| {
            let hi = domain.range(&n).hi as f64;
            (n, hi)
        })
        .collect();
    let corner: Vec<(&str, f64)> = corner.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    text.line("");
    let named = [("A", &a), ("B", &b)];
    (args.machine).report_designs(&named, &corner, &mut text, 8, &mut json)?;
    Ok(Report { text: text.0, json })
}

fn point_json(point: &Point) -> Value {
    let map: Map<String, Value> = point
        .0
        .iter()
        .map(|(n, v)| (n.clone(), Value::from(*v)))
        .collect();
    Value::Object(map)
}

fn verdict_json(c: &Comparison) -> Value {
    match &c.verdict {
        Verdict::Equivalent(Evidence::Symbolic) => {
            json!({"kind": "equivalent", "evidence": "symbolic"})
        }
        Verdict::Equivalent(Evidence::Sampled { points }) => {
            json!({"kind": "equivalent", "evidence": "sampled", "points": points})
        }
        Verdict::NeverWorse(m) => json!({
            "kind": "never_worse",
            "least_speedup": json_num(m.least),
            "least_at": point_json(&m.least_at),
            "most_speedup": json_num(m.most),
            "most_at": point_json(&m.most_at),
            "proved": m.proved,
            "points": m.points,
        }),
        Verdict::Worse(x) => json!({
            "kind": "worse",
            "at": point_json(&x.at),
            "a": json_num(x.a),
            "b": json_num(x.b),
            "ratio": json_num(x.ratio),
            "worst_ratio": json_num(x.worst_ratio),
            "worst_at": point_json(&x.worst_at),
        }),
    }
}
