//! `pattern best FILE --budget N`: the design's symbolic counts that
//! minimize its time per element under a thread budget, exactly (plain
//! operators, queueing or simulation), beside RPL-shell's greedy rules and
//! their gap to the optimum; with `--sizes`, the optimum per interval of
//! sizes and the one robust choice.

use super::args::{self, Point, Range};
use super::error::{CliError, DEFAULT_ELEMENTS};
use super::files::read_design;
use super::machine::MachineArgs;
use super::names::Known;
use super::output::{Report, Text, counts_json, counts_text, json_num, num, point_json, shown};
use super::progress;
use pattern_core::Design;
use pattern_core::explore::allocation::{
    Allocation, AllocationError, Allocator, DEFAULT_MAX_STEPS, GreedyRule, SizePlan, greedy_gap,
};
use pattern_core::explore::ranking::symbolic_counts;
use pattern_core::explore::sweep::Axis;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// The options of `pattern best`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Every symbolic count is chosen from 1 to the budget unless \
    --range narrows it. Ties go to the fewest threads. On a machine (--machine, \
    --cores, --nodes) the operators keep a core for every thread on each node; the \
    queueing and simulated semantics price threads beyond the cores and search up to \
    the budget; every semantics keeps within the machine's nodes.\n\nExamples:\n  \
    pattern best examples/data/stages.design --budget 16 --at x=1000\n  \
    pattern best examples/data/stages.design --budget 16 --at x=1000 --queueing --cores 8\n  \
    pattern best examples/data/map_reduce.design --budget 64 --machine examples/data/star.machine.json --at x=1e6\n  \
    pattern best examples/data/stages.design --budget 16 --sizes x=1e2..1e6:9"
)]
pub struct BestArgs {
    /// The design file, with symbolic counts (`tpool[a](..)`).
    pub file: PathBuf,
    /// The most threads the design may occupy.
    #[arg(long)]
    pub budget: u64,
    /// Values of the models' variables, `x=1000`; a count given here is
    /// fixed to its value.
    #[arg(long, value_name = "POINT", value_parser = args::point)]
    pub at: Option<Point>,
    /// The machine the design runs on [default: a core for every thread
    /// the budget allows, the operators' assumption].
    #[command(flatten)]
    pub machine: MachineArgs,
    /// The values a count may take, `a=1..8` or `a=1..8,b=2..4`.
    #[arg(long, value_name = "RANGES", value_parser = args::ranges)]
    pub range: Vec<Vec<Range>>,
    /// Minimize the queueing model (MVA on the machine) instead of the
    /// plain operators.
    #[arg(long, conflicts_with = "simulate")]
    pub queueing: bool,
    /// Minimize the simulated time per element on the machine.
    #[arg(long)]
    pub simulate: bool,
    /// Elements of each simulated stream (with --simulate).
    #[arg(long, default_value_t = DEFAULT_ELEMENTS)]
    pub elements: usize,
    /// Stop after this many steps of the search with an error instead of
    /// running on: a step is a branch or an evaluation, about a
    /// microsecond; a network solve (--queueing) or a simulation
    /// (--simulate) counts as many steps as its threads make it cost
    /// [default: 20000000, about 20 s].
    #[arg(long, value_name = "STEPS")]
    pub max_steps: Option<u64>,
    /// The best counts over sizes instead of at one point, e.g.
    /// `x=1e3..1e7` or `x=1e3..1e7:50:log` (an axis of `pattern sweep`).
    #[arg(long, value_name = "AXIS")]
    pub sizes: Option<String>,
}

/// Runs `pattern best`.
pub fn run(args: &BestArgs) -> Result<Report, CliError> {
    let design = read_design(&args.file)?;
    let at = super::names::checked_at(args.at.as_ref(), &[&design])?;
    check_options(args, &design, &at)?;
    let on = args.machine.for_budget(&design, args.budget)?;
    if args.sizes.is_none() {
        super::names::require_bound(&[&design], &at, false, &[])?;
        super::times::at_point(&[&design], &at.bindings())?;
    }
    let mut allocator = Allocator::new(&design, args.budget);
    if args.machine.given() {
        allocator = allocator.machine(&on.machine);
    }
    for r in args.range.iter().flatten() {
        allocator = allocator.range(&r.var, r.lo..=r.hi);
    }
    // A count the point binds is fixed: a range of one value.
    let names = symbolic_counts(design.term());
    let (fixed, free): (Vec<_>, Vec<_>) = at.0.into_iter().partition(|(n, _)| names.contains(n));
    let at = Point(free);
    for (name, value) in fixed {
        // Checked with the point: a whole number from 1 to 2^53, exact.
        let count = value as u64;
        allocator = allocator.range(&name, count..=count);
    }
    let steps = args.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
    let counter = Arc::new(AtomicU64::new(0));
    allocator = allocator.max_steps(steps).count_steps(counter.clone());
    let search = Search { steps, counter };
    let (semantics, allocator) = if args.queueing {
        ("queueing", allocator.queueing(&on.machine))
    } else if args.simulate {
        (
            "simulation",
            allocator.simulation(&on.machine, args.elements),
        )
    } else {
        ("operators", allocator)
    };
    let mut text = Text::default();
    const W: usize = 10;
    text.row(0, W, "design", shown(design.term()));
    text.row(0, W, "machine", on.describe());
    text.row(0, W, "budget", format!("{} threads", args.budget));
    text.row(0, W, "semantics", semantics);
    let mut json = json!({
        "design": design.term().to_string(),
        "machine": on.json(),
        "budget": args.budget,
        "semantics": semantics,
    });
    match &args.sizes {
        Some(sizes) => over_sizes(
            allocator, &design, &at, sizes, &mut text, &mut json, &search,
        )?,
        None => at_point(allocator, &design, &at, &mut text, &mut json, &search)?,
    }
    Ok(Report { text: text.0, json })
}

/// The options that name the design's variables and counts checked, and
/// none given where it would be ignored.
fn check_options(args: &BestArgs, design: &Design, at: &Point) -> Result<(), CliError> {
    let known = Known::of(&[design]);
    for r in args.range.iter().flatten() {
        known.check_count("--range", &r.var)?;
        if at.0.iter().any(|(n, _)| *n == r.var) {
            return Err(CliError::Invalid(format!(
                "--range {0} and --at {0}=..: a count is either fixed or searched, give one",
                r.var
            )));
        }
    }
    if let Some(sizes) = &args.sizes {
        let (variable, _) =
            args::named_axis(sizes).map_err(|e| CliError::Invalid(format!("--sizes: {e}")))?;
        known.check_name("--sizes", &variable)?;
        if known.is_count(&variable) {
            return Err(CliError::Invalid(format!(
                "--sizes {variable}: `{variable}` is a count, which the search chooses; give a size such as `x`"
            )));
        }
        if at.0.iter().any(|(n, _)| *n == variable) {
            return Err(CliError::Invalid(format!(
                "--sizes {variable}=.. and --at {variable}=..: the sizes give `{variable}`, drop it from --at"
            )));
        }
    }
    CliError::refuse_unused(
        args.elements != DEFAULT_ELEMENTS && !args.simulate,
        "--elements",
        "--simulate",
    )
}

/// The search's step limit and the count of steps taken, for its bar.
struct Search {
    steps: u64,
    counter: Arc<AtomicU64>,
}

/// A bar of the search's steps up to the step limit, fed by `counter`
/// (which the allocator adds its steps to).
fn bar(steps: u64, what: &str, counter: &Arc<AtomicU64>) -> Option<progress::Polled> {
    progress::polled(
        steps,
        &format!("searching the best counts ({what}; the bar ends at --max-steps)"),
        "steps",
        counter,
    )
}

fn allocation_json(a: &Allocation) -> Value {
    json!({
        "counts": counts_json(&a.counts),
        "time_per_element": json_num(a.time_per_element),
        "threads": a.threads,
    })
}

/// The design's threads at `counts` and the point `at`, counted exactly in
/// integers (the search compares them through its compiled model); the
/// search's figure where they cannot be counted.
fn exact_threads(
    design: &Design,
    counts: &[(String, u64)],
    at: &[(&str, f64)],
    searched: u64,
) -> u64 {
    let mut bindings: Vec<(&str, f64)> = counts
        .iter()
        .map(|(n, c)| (n.as_str(), *c as f64))
        .collect();
    bindings.extend(
        at.iter()
            .filter(|(n, _)| counts.iter().all(|(c, _)| c != n)),
    );
    design
        .resource_counts(&bindings)
        .map_or(searched, |r| r.threads)
}

/// `a` with its threads counted exactly.
/// `a` with its threads counted exactly, an error if its time is none.
fn counted(design: &Design, a: &Allocation, at: &[(&str, f64)]) -> Result<Allocation, CliError> {
    super::times::chosen(design, &a.counts, at, a.time_per_element)?;
    Ok(Allocation {
        threads: exact_threads(design, &a.counts, at, a.threads),
        ..a.clone()
    })
}

fn at_point(
    allocator: Allocator,
    design: &Design,
    at: &Point,
    text: &mut Text,
    json: &mut Value,
    search: &Search,
) -> Result<(), CliError> {
    let allocator = allocator.at(&at.bindings());
    if !at.is_empty() {
        text.row(0, 10, "at", at);
    }
    let bar = bar(search.steps, "at one point", &search.counter);
    let solved = allocator.solve();
    drop(bar);
    let solution = solved.map_err(CliError::from_allocation)?;
    let best = &counted(design, &solution.allocation, &at.bindings())?;
    text.line("");
    text.row(0, 10, "best", counts_text(&best.counts));
    text.row(2, 16, "time per element", num(best.time_per_element));
    text.row(2, 16, "threads", best.threads);
    text.row(2, 16, "evaluations", solution.evaluations);
    json["at"] = point_json(&at.bindings());
    json["best"] = allocation_json(best);
    json["evaluations"] = Value::from(solution.evaluations);
    json["bound_evaluations"] = Value::from(solution.bound_evaluations);
    text.line("");
    text.line("greedy rules (RPL-shell), gap = time / best time");
    let mut rules = Vec::new();
    for (rule, name) in [
        (GreedyRule::PipeBalance, "pipebalance"),
        (GreedyRule::MaxResources, "maxresources"),
    ] {
        match greedy_gap(&allocator, rule) {
            Ok(mut g) => {
                g.greedy = counted(design, &g.greedy, &at.bindings())?;
                let fits = if g.within_budget {
                    ""
                } else {
                    ", over the budget"
                };
                text.row(
                    2,
                    12,
                    name,
                    format!(
                        "{}: time {}, {} threads, gap {}{fits}",
                        counts_text(&g.greedy.counts),
                        num(g.greedy.time_per_element),
                        g.greedy.threads,
                        num(g.gap)
                    ),
                );
                rules.push(json!({
                    "rule": name,
                    "counts": counts_json(&g.greedy.counts),
                    "time_per_element": json_num(g.greedy.time_per_element),
                    "threads": g.greedy.threads,
                    "gap": json_num(g.gap),
                    "within_budget": g.within_budget,
                }));
            }
            // A design the rules do not apply to: said, not an error.
            Err(e @ AllocationError::NotAPipelineOfPools(_)) => {
                text.row(2, 12, name, format!("not applicable: {e}"));
                rules.push(json!({"rule": name, "not_applicable": e.to_string()}));
            }
            Err(e) => return Err(CliError::from_allocation(e)),
        }
    }
    json["greedy"] = Value::Array(rules);
    Ok(())
}

fn over_sizes(
    allocator: Allocator,
    design: &Design,
    at: &Point,
    sizes: &str,
    text: &mut Text,
    json: &mut Value,
    search: &Search,
) -> Result<(), CliError> {
    let (variable, axis) =
        args::named_axis(sizes).map_err(|e| CliError::Invalid(format!("--sizes: {e}")))?;
    let axis = Axis::parse(&variable, &axis).map_err(|source| CliError::Axis {
        option: format!("--sizes {variable}"),
        source,
    })?;
    let point: Vec<(&str, f64)> = at
        .bindings()
        .into_iter()
        .filter(|(n, _)| *n != variable)
        .collect();
    if !point.is_empty() {
        text.row(0, 10, "at", at);
    }
    super::names::require_bound(&[design], at, false, &[&variable])?;
    super::times::over_grid(&[design], &point, &[(&variable, axis.values().to_vec())])?;
    let allocator = allocator.at(&point);
    // Each size's search has the step limit: the bar ends at their sum.
    let sizes = axis.values().len() as u64;
    let bar = bar(
        search.steps.saturating_mul(sizes),
        &format!("{sizes} sizes"),
        &search.counter,
    );
    let planned = allocator.over_sizes(&variable, axis.values());
    drop(bar);
    let mut plan = planned.map_err(CliError::from_allocation)?;
    for (size, a) in &mut plan.best {
        let mut here = point.clone();
        here.push((variable.as_str(), *size));
        *a = counted(design, a, &here)?;
    }
    let robust = &plan.robust;
    plan.robust.threads = exact_threads(design, &robust.counts, &point, robust.threads);
    report_plan(&plan, text, json);
    json["at"] = point_json(&point);
    Ok(())
}

fn report_plan(plan: &SizePlan, text: &mut Text, json: &mut Value) {
    let v = &plan.variable;
    text.line("");
    text.line(format!(
        "best counts over {v} ({} sizes, {} evaluations)",
        plan.best.len(),
        plan.evaluations
    ));
    let labels: Vec<String> = plan
        .intervals
        .iter()
        .map(|i| format!("{v} from {} to {}", num(i.from), num(i.to)))
        .collect();
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    for (label, i) in labels.iter().zip(&plan.intervals) {
        text.row(2, width, label, counts_text(&i.counts));
    }
    let r = &plan.robust;
    text.line("");
    text.row(
        0,
        10,
        "robust",
        format!(
            "{} ({} threads): at most {} % slower than the best, at {v} = {}",
            counts_text(&r.counts),
            r.threads,
            num(100.0 * r.worst_loss),
            num(r.worst_at)
        ),
    );
    json["sizes"] = json!({
        "variable": v,
        "best": plan.best.iter().map(|(s, a)| {
            let mut one = allocation_json(a);
            one["size"] = json_num(*s);
            one
        }).collect::<Vec<_>>(),
        "intervals": plan.intervals.iter().map(|i| json!({
            "from": json_num(i.from),
            "to": json_num(i.to),
            "counts": counts_json(&i.counts),
        })).collect::<Vec<_>>(),
        "change_points": plan.change_points().into_iter().map(json_num).collect::<Vec<_>>(),
        "robust": {
            "counts": counts_json(&r.counts),
            "threads": r.threads,
            "worst_loss": json_num(r.worst_loss),
            "worst_at": json_num(r.worst_at),
        },
        "evaluations": plan.evaluations,
    });
}
