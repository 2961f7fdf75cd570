//! The report of a solved JMVA model: per class, then per station and
//! class (as `pattern mva` reports a network), and the same as JSON.

use super::solve::Solved;
use super::{ClassKind, JmvaModel, JmvaStation, StationType};
use crate::cli::output::{Report, Text, json_num, num};
use pattern_core::queue::ClassFigures;
use serde_json::{Value, json};

/// A station's kind as `pattern mva` names it.
fn kind(station: &JmvaStation) -> String {
    match station.kind {
        StationType::Queue { servers: 1 } => "queue".into(),
        StationType::Queue { servers } => format!("{servers} servers"),
        StationType::Delay => "delay".into(),
        StationType::LoadDependent { .. } => "load-dependent".into(),
    }
}

/// The report of `model` solved as `solved`; `path` names the file.
pub fn report(path: &str, model: &JmvaModel, solved: &Solved) -> Report {
    let mut text = Text::default();
    const W: usize = 15;
    text.row(0, W, "model", path);
    if let Some(d) = model.description.as_deref().filter(|d| !d.is_empty()) {
        // One line of it: a description may run to paragraphs.
        let first = d.lines().next().unwrap_or_default();
        let more = if d.lines().nth(1).is_some() {
            " …"
        } else {
            ""
        };
        text.row(0, W, "description", format!("{first}{more}"));
    }
    text.row(0, W, "classes", class_counts(model));
    text.row(0, W, "solved by", solved_by(model, solved));
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
    classes_table(&mut text, model, solved);
    text.line("");
    stations_table(&mut text, model, solved);
    Report {
        text: text.0,
        json: report_json(path, model, solved),
    }
}

/// `2 closed`, `1 closed, 2 open`.
fn class_counts(model: &JmvaModel) -> String {
    let closed = (model.classes.iter())
        .filter(|c| matches!(c.kind, ClassKind::Closed(_)))
        .count();
    let open = model.classes.len() - closed;
    match (closed, open) {
        (_, 0) => format!("{closed} closed"),
        (0, _) => format!("{open} open"),
        _ => format!("{closed} closed, {open} open"),
    }
}

/// What solved the model, as the report says it.
fn solved_by(model: &JmvaModel, solved: &Solved) -> String {
    let solver = solved.solver.describe();
    if class_counts(model).contains(", ") {
        format!("a mixed network: the open load first, the closed classes by {solver}")
    } else {
        solver.to_string()
    }
}

/// The mean residence time over the jobs passing a station (Little's law
/// on its totals), 0 where none pass.
fn station_residence(row: &[ClassFigures]) -> f64 {
    let q: f64 = row.iter().map(|f| f.queue_length).sum();
    let x: f64 = row.iter().map(|f| f.throughput).sum();
    if x > 0.0 { q / x } else { 0.0 }
}

/// Per class: its jobs or its rate, throughput, response and cycle time.
fn classes_table(text: &mut Text, model: &JmvaModel, solved: &Solved) {
    let w = name_width(model.classes.iter().map(|c| c.name.as_str()), 5);
    text.line(format!(
        "{:<w$}  {:<14}  {:>10}  {:>14}  {:>10}",
        "class", "workload", "throughput", "response time", "cycle time"
    ));
    for (class, r) in model.classes.iter().zip(&solved.classes) {
        let workload = match class.kind {
            ClassKind::Closed(1) => "1 job".to_string(),
            ClassKind::Closed(n) => format!("{n} jobs"),
            ClassKind::Open(rate) => format!("rate {}", num(rate)),
        };
        text.line(format!(
            "{:<w$}  {workload:<14}  {:>10}  {:>14}  {:>10}",
            class.name,
            num(r.throughput),
            num(r.response_time),
            r.cycle_time.map_or("-".to_string(), num)
        ));
    }
}

fn name_width<'a>(names: impl Iterator<Item = &'a str>, least: usize) -> usize {
    names
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(least)
}

/// Per station, a row per class it serves (and with several classes, the
/// station's totals).
fn stations_table(text: &mut Text, model: &JmvaModel, solved: &Solved) {
    let sw = name_width(model.stations.iter().map(|s| s.name.as_str()), 7);
    let cw = name_width(model.classes.iter().map(|c| c.name.as_str()), 5);
    let several = model.classes.len() > 1;
    text.line(format!(
        "{:<sw$}  {:<14}  {:<cw$}  {:>10}  {:>11}  {:>12}  {:>14}",
        "station", "kind", "class", "demand", "utilization", "queue length", "residence time"
    ));
    for (s, row) in model.stations.iter().zip(&solved.figures) {
        let mut first = true;
        for (c, (class, f)) in model.classes.iter().zip(row).enumerate() {
            let (name, kind) = if first {
                (s.name.clone(), kind(s))
            } else {
                (String::new(), String::new())
            };
            first = false;
            text.line(format!(
                "{name:<sw$}  {kind:<14}  {:<cw$}  {:>10}  {:>11}  {:>12}  {:>14}",
                class.name,
                num(s.demand(c)),
                num(f.utilization),
                num(f.queue_length),
                num(f.residence_time)
            ));
        }
        if several {
            let u: f64 = row.iter().map(|f| f.utilization).sum();
            let q: f64 = row.iter().map(|f| f.queue_length).sum();
            let r = station_residence(row);
            text.line(format!(
                "{:<sw$}  {:<14}  {:<cw$}  {:>10}  {:>11}  {:>12}  {:>14}",
                "",
                "",
                "(all)",
                "",
                num(u),
                num(q),
                num(r)
            ));
        }
    }
}

/// Class `c`'s completions at station `s` per unit of time: its
/// throughput times its visits there (JMVA's station throughput).
pub fn visits_throughput(model: &JmvaModel, solved: &Solved, s: usize, c: usize) -> f64 {
    solved.classes[c].throughput * model.stations[s].visits[c]
}

fn report_json(path: &str, model: &JmvaModel, solved: &Solved) -> Value {
    let closed = (model.classes.iter())
        .filter(|c| matches!(c.kind, ClassKind::Closed(_)))
        .count();
    let classes: Vec<Value> = (model.classes.iter().zip(&solved.classes))
        .map(|(class, r)| {
            let mut v = json!({
                "name": class.name,
                "throughput": json_num(r.throughput),
                "response_time": json_num(r.response_time),
            });
            match class.kind {
                ClassKind::Closed(n) => {
                    v["population"] = json!(n);
                    v["cycle_time"] = r.cycle_time.map_or(Value::Null, json_num);
                }
                ClassKind::Open(rate) => v["rate"] = json_num(rate),
            }
            v
        })
        .collect();
    let stations: Vec<Value> = (model.stations.iter().zip(&solved.figures))
        .enumerate()
        .map(|(k, (s, row))| {
            let per_class: Vec<Value> = (model.classes.iter().zip(row))
                .enumerate()
                .map(|(c, (class, f))| {
                    json!({
                        "class": class.name,
                        "service_times": s.service[c].iter().map(|&t| json_num(t)).collect::<Vec<_>>(),
                        "visits": json_num(s.visits[c]),
                        "demand": json_num(s.demand(c)),
                        "throughput": json_num(visits_throughput(model, solved, k, c)),
                        "utilization": json_num(f.utilization),
                        "queue_length": json_num(f.queue_length),
                        "residence_time": json_num(f.residence_time),
                    })
                })
                .collect();
            json!({
                "name": s.name,
                "kind": kind(s),
                "utilization": json_num(row.iter().map(|f| f.utilization).sum()),
                "queue_length": json_num(row.iter().map(|f| f.queue_length).sum()),
                "residence_time": json_num(station_residence(row)),
                "classes": per_class,
            })
        })
        .collect();
    json!({
        "model": path,
        "format": "jmva",
        "description": model.description,
        "closed_classes": closed,
        "open_classes": model.classes.len() - closed,
        "exact": solved.solver.approximation().is_none(),
        "approximation": solved.solver.approximation(),
        "solver": solved_by(model, solved),
        "headroom": solved.headroom.as_ref().map(|(f, s)| json!({"factor": json_num(*f), "station": s})),
        "classes": classes,
        "stations": stations,
    })
}
