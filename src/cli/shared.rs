//! `pattern mva A B ...`: designs that run at once on one machine, each a
//! class of its elements in flight, sharing the nodes' cores and memories
//! (`Queueing::together`). The report gives each design's time per element
//! beside its time alone, each node's load by design, and where the designs
//! interfere.

use super::args::Point;
use super::error::CliError;
use super::machine::OnMachine;
use super::output::{Report, Text, json_num, num, shown};
use pattern_core::Design;
use pattern_core::semantics::{Queueing, SharedNode, SharedPrediction};
use serde_json::{Value, json};

/// The report of `designs` (each with the file it came from) on `on` at
/// `at`, channels of `buffer` places.
pub fn report(
    designs: &[(String, Design)],
    on: &OnMachine,
    at: &Point,
    buffer: usize,
) -> Result<Report, CliError> {
    let terms: Vec<_> = designs.iter().map(|(_, d)| d.term()).collect();
    let p = Queueing::new(&on.machine)
        .buffer(buffer)
        .at(&at.bindings())
        .together(&terms)?;
    let mut text = Text::default();
    const W: usize = 11;
    text.row(0, W, "machine", on.describe());
    if !at.is_empty() {
        text.row(0, W, "at", at);
    }
    text.row(0, W, "interfere", interference(&p));
    text.line("");
    text.line(format!(
        "{:<6}  {:>14}  {:>14}  {:>7}  design",
        "", "alone", "together", "slower"
    ));
    for (i, ((file, design), d)) in designs.iter().zip(&p.designs).enumerate() {
        text.line(format!(
            "{:<6}  {:>14}  {:>14}  {:>7}  {} ({file})",
            format!("{}", i + 1),
            num(d.alone.time_per_element),
            num(d.time_per_element),
            format!("{}x", num(d.time_per_element / d.alone.time_per_element)),
            shown(design.term()),
        ));
    }
    text.line("");
    text.line(format!(
        "{:<6}  {:>6}  {:>11}  {:>8}  {:>7}  {:>8}  cores by design",
        "node", "cores", "utilization", "slowdown", "memory", "slowdown"
    ));
    for (j, n) in p.nodes.iter().enumerate() {
        let l = &n.load;
        text.line(format!(
            "{:<6}  {:>6}  {:>11}  {:>8}  {:>7}  {:>8}  {}",
            j,
            l.cores,
            num(l.utilization),
            num(l.slowdown),
            num(l.memory_utilization),
            num(l.memory_slowdown),
            shares(&n.core_shares),
        ));
    }
    let json = json!({
        "machine": on.json(),
        "buffer": buffer,
        "interfere": p.interfere(),
        "designs": designs.iter().zip(&p.designs).map(|((file, design), d)| json!({
            "file": file,
            "design": design.term().to_string(),
            "time_per_element": json_num(d.time_per_element),
            "throughput": json_num(d.throughput),
            "alone": json_num(d.alone.time_per_element),
            "in_flight": d.alone.population,
        })).collect::<Vec<Value>>(),
        "nodes": p.nodes.iter().map(node_json).collect::<Vec<Value>>(),
    });
    Ok(Report { text: text.0, json })
}

/// Where the designs slow each other: the saturated resources, or `no`.
fn interference(p: &SharedPrediction) -> String {
    let mut found = Vec::new();
    for (j, n) in p.nodes.iter().enumerate() {
        if n.load.slowdown > 1.0 {
            found.push(format!(
                "node {j}'s cores, {}x slower",
                num(n.load.slowdown)
            ));
        }
        if n.load.memory_slowdown > 1.0 {
            found.push(format!(
                "node {j}'s memory, {}x slower",
                num(n.load.memory_slowdown)
            ));
        }
    }
    if found.is_empty() {
        "no: every node has the cores and memory they ask for".into()
    } else {
        format!("on {}", found.join("; "))
    }
}

/// Each design's share of a resource, `1: 75 %, 2: 25 %`.
fn shares(shares: &[f64]) -> String {
    (shares.iter().enumerate())
        .map(|(d, s)| format!("{}: {} %", d + 1, num(100.0 * s)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn node_json(n: &SharedNode) -> Value {
    let l = &n.load;
    json!({
        "cores": l.cores,
        "speed": json_num(l.speed),
        "utilization": json_num(l.utilization),
        "slowdown": json_num(l.slowdown),
        "memory_utilization": json_num(l.memory_utilization),
        "memory_slowdown": json_num(l.memory_slowdown),
        "core_shares": n.core_shares.iter().copied().map(json_num).collect::<Vec<Value>>(),
        "memory_shares": n.memory_shares.iter().copied().map(json_num).collect::<Vec<Value>>(),
    })
}
