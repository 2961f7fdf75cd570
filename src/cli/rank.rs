//! `pattern rank FILE --budget N`: the best designs reachable from a design
//! by the laws' rewrites and the moves that add threads, each at its best
//! symbolic counts under the budget (the exact allocation), ranked by time
//! per element at a point, with model, class, threads and margin over the
//! next.

use super::args::{self, Point};
use super::error::{CliError, DEFAULT_ELEMENTS};
use super::files::read_design;
use super::machine::MachineArgs;
use super::output::{Report, Text, counts_json, counts_text, json_num, num, point_json, shown};
use super::progress;
use pattern_core::explore::allocation::{DEFAULT_MAX_STEPS, Pricing};
use pattern_core::explore::ranking::{AllocationCounts, Ranking};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// The options of `pattern rank`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The search takes up to --steps moves from the design and \
    evaluates up to --designs candidates; a candidate's symbolic counts are the \
    exact allocation's under the budget, under the semantics chosen (the plain \
    operators, --queueing or --simulate) on the machine (--machine, --cores, --nodes). \
    A count bound in --at stays fixed.\n\n\
    Examples:\n  \
    pattern rank examples/data/threads.design --budget 8 --top 5 --at x=1000\n  \
    pattern rank examples/data/threads.design --budget 16 --top 5 --at x=1000 --cores 4 --queueing"
)]
pub struct RankArgs {
    /// The design file.
    pub file: PathBuf,
    /// The most threads a design may occupy.
    #[arg(long)]
    pub budget: u64,
    /// How many designs to list.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Values of the models' variables, `x=1000`.
    #[arg(long, value_name = "POINT", value_parser = args::point)]
    pub at: Option<Point>,
    /// The machine the designs run on [default: a core for every thread
    /// the budget allows, the operators' assumption].
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Rank and choose counts by the queueing model on the machine.
    #[arg(long, conflicts_with = "simulate")]
    pub queueing: bool,
    /// Rank and choose counts by the simulated time per element on the
    /// machine.
    #[arg(long)]
    pub simulate: bool,
    /// Elements of each simulated stream (with --simulate).
    #[arg(long, default_value_t = DEFAULT_ELEMENTS)]
    pub elements: usize,
    /// The variable of the growth classes.
    #[arg(long, default_value = "x", value_name = "NAME")]
    pub var: String,
    /// At most this many moves from the design.
    #[arg(long, default_value_t = 4)]
    pub steps: usize,
    /// At most this many candidates evaluated.
    #[arg(long, default_value_t = 500)]
    pub designs: usize,
    /// Stop with an error after this many steps of the candidates' count
    /// searches together (as `pattern best --max-steps` counts them: about
    /// a microsecond each, a network solve or a simulation as many as its
    /// threads make it cost) [default: 20000000, about 20 s].
    #[arg(long, value_name = "STEPS")]
    pub max_steps: Option<u64>,
}

/// Runs `pattern rank`.
pub fn run(args: &RankArgs) -> Result<Report, CliError> {
    let design = read_design(&args.file)?;
    let at = super::names::checked_at(args.at.as_ref(), &[&design])?;
    super::names::require_bound(&[&design], &at, false, &[])?;
    super::times::at_point(&[&design], &at.bindings())?;
    super::names::Known::of(&[&design]).check_var(&args.var)?;
    CliError::refuse_unused(
        args.elements != DEFAULT_ELEMENTS && !args.simulate,
        "--elements",
        "--simulate",
    )?;
    let budget = args.budget;
    let on = args.machine.for_budget(&design, args.budget)?;
    let pricing = if args.queueing {
        Pricing::Queueing(on.machine.clone())
    } else if args.simulate {
        Pricing::simulation(&on.machine, args.elements)
    } else {
        Pricing::Operators
    };
    let max_steps = args.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
    let mut chooser = AllocationCounts::new(budget)
        .pricing(pricing.clone())
        .max_steps(max_steps);
    if args.machine.given() {
        chooser = chooser.machine(&on.machine);
    }
    let ranking = Ranking::new(budget)
        .pricing(pricing.clone())
        .top(args.top)
        .var(&args.var)
        .max_steps(args.steps)
        .max_designs(args.designs);
    let explored = Arc::new(AtomicU64::new(0));
    let bar = progress::polled(
        args.designs as u64,
        "ranking candidates (the bar ends at --designs)",
        "designs",
        &explored,
    );
    let ranked = ranking.rank_counting(&design, &at.bindings(), &chooser, &explored);
    drop(bar);
    if chooser.steps_exhausted() {
        return Err(CliError::Invalid(format!(
            "the ranking stopped: its candidates' count searches took the {max_steps} steps of --max-steps: lower --budget or --designs, narrow the counts with --at, or raise --max-steps"
        )));
    }
    let ranked = ranked?;
    let mut text = Text::default();
    const W: usize = 16;
    text.row(0, W, "design", shown(design.term()));
    text.row(0, W, "machine", on.describe());
    text.row(0, W, "budget", format!("{budget} threads"));
    text.row(0, W, "semantics", pricing.name());
    if !at.is_empty() {
        text.row(0, W, "at", &at);
    }
    text.row(
        0,
        W,
        "explored",
        format!(
            "{} designs ({} over the budget, {} rejected: see --json; {} merged into one above once counted)",
            ranked.explored,
            ranked.over_budget,
            ranked.rejected.len(),
            ranked.merged
        ),
    );
    let mut listed = Vec::new();
    for (i, r) in ranked.ranked.iter().enumerate() {
        let class = r
            .class
            .as_ref()
            .map_or_else(|| "unknown".to_string(), ToString::to_string);
        let margin = r.margin.map_or_else(|| "-".to_string(), num);
        text.line("");
        text.line(format!("{}. {}", i + 1, shown(r.design.term())));
        text.row(3, W, "counts", counts_text(&r.counts));
        text.row(3, W, "model", shown(&r.model));
        text.row(3, W, "class", format!("{class} in {}", args.var));
        text.row(3, W, "time per element", num(r.time));
        text.row(3, W, "threads", r.threads);
        text.row(3, W, "margin", margin);
        let moves: Vec<String> = r.steps.iter().map(ToString::to_string).collect();
        listed.push(json!({
            "design": r.design.term().to_string(),
            "counts": counts_json(&r.counts),
            "model": format!("{:#}", r.model),
            "class": class,
            "time_per_element": json_num(r.time),
            "threads": r.threads,
            "margin": r.margin.map_or(Value::Null, json_num),
            "moves": moves,
        }));
    }
    let json = json!({
        "design": design.term().to_string(),
        "machine": on.json(),
        "semantics": pricing.name(),
        "budget": budget,
        "at": point_json(&at.bindings()),
        "var": args.var,
        "explored": ranked.explored,
        "over_budget": ranked.over_budget,
        "merged": ranked.merged,
        "rejected": ranked.rejected.iter().map(|r| json!({
            "design": r.design.term().to_string(),
            "reason": r.reason.to_string(),
        })).collect::<Vec<_>>(),
        "ranked": listed,
    });
    Ok(Report { text: text.0, json })
}
