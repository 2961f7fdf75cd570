//! The report of a solved network of classes: the header rows its file
//! gives, the classes, how it was solved and the open rates' headroom; a
//! table per class and one per station and class (with the station's
//! totals where several classes visit it); the same as JSON.

use super::solve::Solved;
use super::{ClassesModel, ModelStation};
use crate::cli::output::{Report, Text, json_num, num};
use pattern_core::queue::{ClassFigures, Workload};
use serde_json::{Value, json};

/// The width of the header's labels.
const W: usize = 15;

/// The report of `model` solved as `solved`, after the `header` rows (label
/// and value) that its file gives; the JSON has the same figures, exact.
pub fn report(header: &[(&str, String)], model: &ClassesModel, solved: &Solved) -> Report {
    let mut text = Text::default();
    for (label, value) in header {
        text.row(0, W, label, value);
    }
    let (closed, open) = model.counts();
    text.row(0, W, "classes", format!("{closed} closed, {open} open"));
    text.row(0, W, "solved by", solver(model, solved));
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
        json: to_json(model, solved),
    }
}

/// How it was solved, in words.
fn solver(model: &ClassesModel, solved: &Solved) -> String {
    let how = solved.solver.describe();
    match model.counts() {
        (0, _) => how.to_string(),
        (_, 0) if model.classes.len() > 1 => format!("multi-class {how}"),
        (_, 0) => how.to_string(),
        _ => format!("a mixed network: the open load first, the closed classes by {how}"),
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
        Workload::Closed(1) => "1 job".into(),
        Workload::Closed(n) => format!("{n} jobs"),
        Workload::Open(rate) => format!("rate {}", num(rate)),
    }
}

/// Per class: its jobs or its rate, throughput, response and cycle time.
fn classes_table(text: &mut Text, model: &ClassesModel, solved: &Solved) {
    let w = width(model.classes.iter().map(|c| c.name.as_str()), 5);
    text.line(format!(
        "{:<w$}  {:<14}  {:>10}  {:>14}  {:>10}",
        "class", "workload", "throughput", "response time", "cycle time"
    ));
    for (class, r) in model.classes.iter().zip(&solved.classes) {
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

/// Per station, a row per class that visits it, and the station's totals
/// where that is not one class.
fn stations_table(text: &mut Text, model: &ClassesModel, solved: &Solved) {
    let sw = width(model.stations.iter().map(|s| s.name.as_str()), 7);
    let cw = width(model.classes.iter().map(|c| c.name.as_str()), 5);
    let line = |text: &mut Text, [s, k, c, d, u, q, r]: [&str; 7]| {
        text.line(format!(
            "{s:<sw$}  {k:<14}  {c:<cw$}  {d:>10}  {u:>11}  {q:>12}  {r:>14}"
        ));
    };
    line(
        text,
        [
            "station",
            "kind",
            "class",
            "demand",
            "utilization",
            "queue length",
            "residence time",
        ],
    );
    for (k, st) in model.stations.iter().enumerate() {
        // The station's name and kind on its first row only.
        let mut label = Some((st.name.clone(), st.kind.describe()));
        let mut row = |text: &mut Text, class: &str, demand: String, f: &ClassFigures| {
            let (name, kind) = label.take().unwrap_or_default();
            line(
                text,
                [
                    &name,
                    &kind,
                    class,
                    &demand,
                    &num(f.utilization),
                    &num(f.queue_length),
                    &num(f.residence_time),
                ],
            );
        };
        let visitors: Vec<usize> = (0..model.classes.len())
            .filter(|&c| st.demands[c] > 0.0)
            .collect();
        for &c in &visitors {
            let f = &solved.figures[k][c];
            row(text, &model.classes[c].name, num(st.demands[c]), f);
        }
        if visitors.len() != 1 {
            row(text, "(all)", String::new(), &solved.total(k));
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

/// A station's JSON: its totals, and every class (in the model's order,
/// with its demand, 0 where it does not visit).
fn station_json(model: &ClassesModel, solved: &Solved, k: usize, st: &ModelStation) -> Value {
    let per_class: Vec<Value> = (model.classes.iter().enumerate())
        .map(|(c, class)| {
            let mut v = figures_json(&solved.figures[k][c]);
            v["class"] = json!(class.name);
            v["demand"] = json_num(st.demands[c]);
            v
        })
        .collect();
    let mut v = figures_json(&solved.total(k));
    v["name"] = json!(st.name);
    v["kind"] = json!(st.kind.describe());
    v["classes"] = Value::Array(per_class);
    v
}

fn to_json(model: &ClassesModel, solved: &Solved) -> Value {
    let classes: Vec<Value> = (model.classes.iter().zip(&solved.classes))
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
    let stations: Vec<Value> = (model.stations.iter().enumerate())
        .map(|(k, st)| station_json(model, solved, k, st))
        .collect();
    let (closed, open) = model.counts();
    json!({
        "solver": solver(model, solved),
        "exact": solved.solver.approximation().is_none(),
        "approximation": solved.solver.approximation(),
        "closed_classes": closed,
        "open_classes": open,
        "headroom": solved.headroom.as_ref().map(|(f, s)| json!({"factor": json_num(*f), "station": s})),
        "classes": classes,
        "stations": stations,
    })
}
