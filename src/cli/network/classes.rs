//! A network file that lists `classes`: closed ones alone are solved by
//! multi-class MVA (exact, or `--approx`), open ones alone as an open
//! network, both by the mixed networks' reduction; a table per class and
//! one per station and class.

use super::{ClassFile, DemandFile, KindFile, StationFile, rate_curve};
use crate::cli::error::CliError;
use crate::cli::mva::{ApproxMethod, MvaArgs};
use crate::cli::output::{Report, Text, json_num, num};
use pattern_core::queue::{
    ClassFigures, MAX_MULTICLASS_STEPS, Method, MixedNetwork, MultiClassApproximation,
    MultiClassNetwork, OpenNetwork, QueueError, Workload,
};
use serde_json::{Value, json};

/// The classes and stations of a file that lists classes.
#[derive(Debug)]
pub struct ClassesSpec {
    /// The classes, in the file's order.
    pub classes: Vec<ClassFile>,
    /// The stations, each demand by class.
    pub stations: Vec<StationFile>,
}

/// One class's figures over the network.
struct ClassRow {
    throughput: f64,
    response_time: f64,
    /// A closed class's `N / X`.
    cycle_time: Option<f64>,
}

/// The solution, whichever solver gave it.
struct Solved {
    /// What solved it, as the report says.
    solver: String,
    classes: Vec<ClassRow>,
    /// By station, then class.
    figures: Vec<Vec<ClassFigures>>,
    /// By station, every class together.
    totals: Vec<ClassFigures>,
    /// How far the open rates may grow, and where they saturate first.
    headroom: Option<(f64, String)>,
}

impl ClassesSpec {
    /// Class `c`'s demands, by station name.
    fn demands(&self, c: usize) -> Vec<(&str, f64)> {
        let name = &self.classes[c].name;
        (self.stations.iter())
            .filter_map(|s| match &s.demand {
                DemandFile::ByClass(d) => d
                    .iter()
                    .find(|(class, _)| class == name)
                    .map(|(_, v)| (s.name.as_str(), *v)),
                DemandFile::One(_) => None,
            })
            .collect()
    }

    fn demand(&self, k: usize, c: usize) -> f64 {
        let name = &self.classes[c].name;
        match &self.stations[k].demand {
            DemandFile::ByClass(d) => {
                (d.iter().find(|(class, _)| class == name)).map_or(0.0, |v| v.1)
            }
            DemandFile::One(d) => *d,
        }
    }

    fn count(&self, open: bool) -> usize {
        (self.classes.iter())
            .filter(|c| matches!(c.workload, Workload::Open(_)) == open)
            .count()
    }
}

/// Solves and reports a file of classes (`path` names it).
pub fn report(
    args: &MvaArgs,
    path: &str,
    name: Option<&str>,
    spec: &ClassesSpec,
) -> Result<Report, CliError> {
    for (flag, given) in [
        ("--population", args.population.is_some()),
        ("--sweep", args.sweep),
    ] {
        if given {
            return Err(CliError::Invalid(format!(
                "{flag} is for a network of one class: {path} lists classes, each closed one with its population"
            )));
        }
    }
    let (closed, open) = (spec.count(false), spec.count(true));
    let solved = if open == 0 {
        closed_only(args, spec)?
    } else if closed == 0 {
        open_only(args, spec)?
    } else {
        mixed(args, spec)?
    };
    let mut text = Text::default();
    const W: usize = 15;
    if let Some(name) = name {
        text.row(0, W, "network", name);
    }
    text.row(0, W, "classes", format!("{closed} closed, {open} open"));
    text.row(0, W, "solved by", &solved.solver);
    if let Some((factor, station)) = &solved.headroom {
        text.row(
            0,
            W,
            "headroom",
            format!(
                "{}: the open rates may grow this many times before `{station}` saturates",
                num(*factor)
            ),
        );
    }
    text.line("");
    classes_table(&mut text, spec, &solved);
    text.line("");
    stations_table(&mut text, spec, &solved);
    Ok(Report {
        text: text.0,
        json: to_json(args, name, spec, &solved),
    })
}

/// The settings of `--approx`.
fn approximation(method: ApproxMethod) -> MultiClassApproximation {
    MultiClassApproximation {
        method: match method {
            ApproxMethod::Linearizer => Method::Linearizer,
            ApproxMethod::SchweitzerBard => Method::SchweitzerBard,
        },
        ..MultiClassApproximation::default()
    }
}

/// What solved the closed classes.
fn closed_solver(args: &MvaArgs) -> &'static str {
    match args.approx {
        None => "exact MVA",
        Some(ApproxMethod::Linearizer) => "approximate MVA: the Linearizer",
        Some(ApproxMethod::SchweitzerBard) => "approximate MVA: Schweitzer-Bard",
    }
}

/// The exact solver's refusal in the command's words.
fn beyond_exact(e: QueueError) -> CliError {
    match e {
        QueueError::BeyondExactClasses {
            populations,
            steps,
            limit,
            ..
        } => CliError::Invalid(format!(
            "exact multi-class MVA at the populations {populations} would take about {steps:.1e} steps, more than the limit of {limit:.1e} (--max-steps; 1e8 steps take about a second): give --approx for the Linearizer's approximation, or raise --max-steps"
        )),
        other => other.into(),
    }
}

fn closed_only(args: &MvaArgs, spec: &ClassesSpec) -> Result<Solved, CliError> {
    let mut net = MultiClassNetwork::new();
    for s in &spec.stations {
        net = match s.kind {
            KindFile::Queue => net.queue(&s.name),
            KindFile::MultiServer => net.multi_server(&s.name, s.servers),
            KindFile::Delay => net.delay(&s.name),
            KindFile::LoadDependent => net.load_dependent(&s.name, rate_curve(s.rates.clone())),
        };
    }
    for (c, class) in spec.classes.iter().enumerate() {
        let Workload::Closed(n) = class.workload else {
            continue;
        };
        net = net.class(&class.name, n, &spec.demands(c));
    }
    let s = match args.approx {
        Some(method) => net.mva_approx_with(&approximation(method))?,
        None => (net.mva_within(args.max_steps.unwrap_or(MAX_MULTICLASS_STEPS)))
            .map_err(beyond_exact)?,
    };
    let mut classes = Vec::new();
    for class in &spec.classes {
        let n = &class.name;
        classes.push(ClassRow {
            throughput: s.throughput(n)?,
            response_time: s.response_time(n)?,
            cycle_time: Some(s.cycle_time(n)?),
        });
    }
    let figures = (spec.stations.iter())
        .map(|st| {
            (spec.classes.iter())
                .map(|c| s.of(&c.name, &st.name).copied())
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let totals = (spec.stations.iter())
        .map(|st| s.station(&st.name).copied())
        .collect::<Result<_, _>>()?;
    Ok(Solved {
        solver: format!("multi-class {}", closed_solver(args)),
        classes,
        figures,
        totals,
        headroom: None,
    })
}

fn open_only(args: &MvaArgs, spec: &ClassesSpec) -> Result<Solved, CliError> {
    for (flag, given) in [
        ("--approx", args.approx.is_some()),
        ("--max-steps", args.max_steps.is_some()),
    ] {
        if given {
            return Err(CliError::Invalid(format!(
                "{flag} is for closed classes: open classes alone are solved exactly"
            )));
        }
    }
    let mut net = OpenNetwork::new();
    for (k, s) in spec.stations.iter().enumerate() {
        net = match s.kind {
            KindFile::Queue => net.queue(&s.name),
            KindFile::MultiServer => net.multi_server(&s.name, s.servers),
            KindFile::Delay => net.delay(&s.name),
            KindFile::LoadDependent => {
                // As the mixed solver says it; unvisited, it is idle.
                match (0..spec.classes.len()).find(|&c| spec.demand(k, c) > 0.0) {
                    None => net.delay(&s.name),
                    Some(c) => {
                        return Err(QueueError::OpenAtLoadDependent {
                            station: s.name.clone(),
                            class: spec.classes[c].name.clone(),
                        }
                        .into());
                    }
                }
            }
        };
    }
    for (c, class) in spec.classes.iter().enumerate() {
        if let Workload::Open(rate) = class.workload {
            net = net.class(&class.name, rate, &spec.demands(c));
        }
    }
    let s = net.solve()?;
    let mut figures = Vec::new();
    let mut totals = Vec::new();
    for (k, st) in spec.stations.iter().enumerate() {
        let mut row = Vec::new();
        let mut total = ClassFigures::default();
        for (c, class) in spec.classes.iter().enumerate() {
            let r = s.of(&class.name, &st.name)?;
            let Workload::Open(rate) = class.workload else {
                continue;
            };
            let x = if spec.demand(k, c) > 0.0 { rate } else { 0.0 };
            total.throughput += x;
            row.push(ClassFigures {
                throughput: x,
                residence_time: r.residence_time,
                queue_length: r.queue_length,
                utilization: r.utilization,
            });
        }
        total.queue_length = s.queue_length(&st.name)?;
        total.utilization = s.utilization(&st.name)?;
        if total.throughput > 0.0 {
            total.residence_time = total.queue_length / total.throughput;
        }
        figures.push(row);
        totals.push(total);
    }
    let mut classes = Vec::new();
    for class in &spec.classes {
        let rate = match class.workload {
            Workload::Open(rate) => rate,
            Workload::Closed(_) => 0.0,
        };
        classes.push(ClassRow {
            throughput: rate,
            response_time: s.response_time(&class.name)?,
            cycle_time: None,
        });
    }
    let (factor, station) = s.headroom();
    Ok(Solved {
        solver: "an open network (product form)".into(),
        classes,
        figures,
        totals,
        headroom: Some((factor, station.to_string())),
    })
}

fn mixed(args: &MvaArgs, spec: &ClassesSpec) -> Result<Solved, CliError> {
    let mut net = MixedNetwork::new();
    for s in &spec.stations {
        net = match s.kind {
            KindFile::Queue => net.queue(&s.name),
            KindFile::MultiServer => net.multi_server(&s.name, s.servers),
            KindFile::Delay => net.delay(&s.name),
            KindFile::LoadDependent => net.load_dependent(&s.name, rate_curve(s.rates.clone())),
        };
    }
    for (c, class) in spec.classes.iter().enumerate() {
        net = net.class(&class.name, class.workload, &spec.demands(c));
    }
    let s = match args.approx {
        Some(method) => net.solve_approx_with(&approximation(method))?,
        None => (net.solve_within(args.max_steps.unwrap_or(MAX_MULTICLASS_STEPS)))
            .map_err(beyond_exact)?,
    };
    let mut classes = Vec::new();
    for class in &spec.classes {
        let n = &class.name;
        classes.push(ClassRow {
            throughput: s.throughput(n)?,
            response_time: s.response_time(n)?,
            cycle_time: match class.workload {
                Workload::Closed(_) => Some(s.cycle_time(n)?),
                Workload::Open(_) => None,
            },
        });
    }
    let figures = (spec.stations.iter())
        .map(|st| {
            (spec.classes.iter())
                .map(|c| s.of(&c.name, &st.name).copied())
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let totals = (spec.stations.iter())
        .map(|st| s.station(&st.name).copied())
        .collect::<Result<_, _>>()?;
    let (factor, station) = s.headroom();
    Ok(Solved {
        solver: format!(
            "a mixed network: the open load first, the closed classes by {}",
            closed_solver(args)
        ),
        classes,
        figures,
        totals,
        headroom: Some((factor, station.to_string())),
    })
}

/// A station's kind as `pattern mva` names it.
fn kind(s: &StationFile) -> String {
    match s.kind {
        KindFile::Queue => "queue".into(),
        KindFile::MultiServer => format!("{} servers", s.servers),
        KindFile::LoadDependent => "load-dependent".into(),
        KindFile::Delay => "delay".into(),
    }
}

fn width<'a>(names: impl Iterator<Item = &'a str>, least: usize) -> usize {
    names
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(least)
}

/// A class's workload, as the table shows it.
fn workload(w: Workload) -> String {
    match w {
        Workload::Closed(n) => format!("{n} jobs"),
        Workload::Open(rate) => format!("rate {}", num(rate)),
    }
}

fn classes_table(text: &mut Text, spec: &ClassesSpec, solved: &Solved) {
    let w = width(spec.classes.iter().map(|c| c.name.as_str()), 5);
    text.line(format!(
        "{:<w$}  {:<14}  {:>10}  {:>14}  {:>10}",
        "class", "workload", "throughput", "response time", "cycle time"
    ));
    for (class, r) in spec.classes.iter().zip(&solved.classes) {
        text.line(format!(
            "{:<w$}  {:<14}  {:>10}  {:>14}  {:>10}",
            class.name,
            workload(class.workload),
            num(r.throughput),
            num(r.response_time),
            r.cycle_time.map_or_else(|| "-".into(), num)
        ));
    }
}

/// Per station, a row per class it serves and the station's totals.
fn stations_table(text: &mut Text, spec: &ClassesSpec, solved: &Solved) {
    let sw = width(spec.stations.iter().map(|s| s.name.as_str()), 7);
    let cw = width(spec.classes.iter().map(|c| c.name.as_str()), 5);
    let line = |text: &mut Text, cells: [&str; 7]| {
        let [s, k, c, d, u, q, r] = cells;
        text.line(format!(
            "{s:<sw$}  {k:<14}  {c:<cw$}  {d:>10}  {u:>11}  {q:>12}  {r:>14}"
        ));
    };
    let head = [
        "station",
        "kind",
        "class",
        "demand",
        "utilization",
        "queue length",
        "residence time",
    ];
    line(text, head);
    for (k, st) in spec.stations.iter().enumerate() {
        let mut first = true;
        for (c, class) in spec.classes.iter().enumerate() {
            let d = spec.demand(k, c);
            if d == 0.0 {
                continue;
            }
            let f = solved.figures[k][c];
            let (name, kind) = if first {
                (st.name.clone(), kind(st))
            } else {
                Default::default()
            };
            first = false;
            let cells = [
                &num(d),
                &num(f.utilization),
                &num(f.queue_length),
                &num(f.residence_time),
            ];
            line(
                text,
                [
                    &name,
                    &kind,
                    &class.name,
                    cells[0],
                    cells[1],
                    cells[2],
                    cells[3],
                ],
            );
        }
        let visitors = (0..spec.classes.len())
            .filter(|&c| spec.demand(k, c) > 0.0)
            .count();
        if visitors != 1 {
            // The totals, where they are not the one class's row.
            let t = solved.totals[k];
            let (name, kind) = if first {
                (st.name.clone(), kind(st))
            } else {
                Default::default()
            };
            let cells = [
                &num(t.utilization),
                &num(t.queue_length),
                &num(t.residence_time),
            ];
            line(
                text,
                [&name, &kind, "(all)", "", cells[0], cells[1], cells[2]],
            );
        }
    }
}

fn figures_json(f: &ClassFigures) -> Value {
    json!({
        "throughput": json_num(f.throughput),
        "utilization": json_num(f.utilization),
        "queue_length": json_num(f.queue_length),
        "residence_time": json_num(f.residence_time),
    })
}

fn to_json(args: &MvaArgs, name: Option<&str>, spec: &ClassesSpec, solved: &Solved) -> Value {
    let classes: Vec<Value> = (spec.classes.iter().zip(&solved.classes))
        .map(|(class, r)| {
            let mut v = json!({
                "name": class.name,
                "throughput": json_num(r.throughput),
                "response_time": json_num(r.response_time),
                "cycle_time": r.cycle_time.map_or(Value::Null, json_num),
            });
            match class.workload {
                Workload::Closed(n) => v["population"] = json!(n),
                Workload::Open(rate) => v["rate"] = json_num(rate),
            }
            v
        })
        .collect();
    let stations: Vec<Value> = (spec.stations.iter().enumerate())
        .map(|(k, st)| {
            let per_class: Vec<Value> = (spec.classes.iter().enumerate())
                .filter(|(c, _)| spec.demand(k, *c) > 0.0)
                .map(|(c, class)| {
                    let mut v = figures_json(&solved.figures[k][c]);
                    v["class"] = json!(class.name);
                    v["demand"] = json_num(spec.demand(k, c));
                    v
                })
                .collect();
            let mut v = figures_json(&solved.totals[k]);
            v["name"] = json!(st.name);
            v["kind"] = json!(kind(st));
            v["classes"] = Value::Array(per_class);
            v
        })
        .collect();
    json!({
        "name": name,
        "solver": solved.solver,
        "exact": args.approx.is_none(),
        "approximation": args.approx.map(|m| match m {
            ApproxMethod::Linearizer => "linearizer",
            ApproxMethod::SchweitzerBard => "schweitzer-bard",
        }),
        "headroom": solved.headroom.as_ref().map(|(f, s)| json!({"factor": json_num(*f), "station": s})),
        "classes": classes,
        "stations": stations,
    })
}
