//! Our side of the comparison with SimGrid (`scripts/simgrid_compare.py
//! --ours`, formats in `scripts/simgrid/README.md`):
//!
//! - `simgrid_peer MACHINE.json GRAPH.json` simulates the flow graph on the
//!   machine and prints `{"start": [..], "finish": [..], "makespan": x}`,
//!   times in ns with 17 significant digits;
//! - `simgrid_peer --pipeline ELEMENTS NODES` builds the 16-stage pipeline
//!   of `benches/sim.rs` in memory (NODES 1: one node of 16 cores; 4: four
//!   nodes of 4 cores, a transfer of 1024 bytes between two nodes) and prints
//!   `{"build_s": .., "run_s": .., "makespan": ..}`.
//!
//! Run with `cargo run --release --example simgrid_peer -- ARGS`.
use pattern_core::machine::Machine;
use pattern_core::sim::{Simulation, TaskGraph, TaskId};
use serde_json::Value;
use std::time::Instant;

const USAGE: &str = "usage: simgrid_peer MACHINE.json GRAPH.json\n       simgrid_peer --pipeline ELEMENTS NODES (NODES 1 or 4)";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = match args.as_slice() {
        [flag, elements, nodes] if flag == "--pipeline" => pipeline(elements, nodes),
        [machine, graph] => graph_run(machine, graph),
        _ => Err(USAGE.to_string()),
    };
    match out {
        Ok(line) => println!("{line}"),
        Err(e) => {
            eprintln!("simgrid_peer: {e}");
            std::process::exit(2);
        }
    }
}

/// The flow graph of `graph` on the machine of `machine`, run.
fn graph_run(machine: &str, graph: &str) -> Result<String, String> {
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"));
    let m = Machine::from_json(&read(machine)?).map_err(|e| format!("{machine}: {e}"))?;
    let text = read(graph)?;
    let g = parse_graph(&text).map_err(|e| format!("{graph}: {e}"))?;
    let r = Simulation::graph(&g, &m).run().map_err(|e| e.to_string())?;
    let ids: Vec<TaskId> = g.ids().collect();
    let start: Vec<f64> = ids.iter().map(|&t| r.start(t)).collect();
    let finish: Vec<f64> = ids.iter().map(|&t| r.finish(t)).collect();
    Ok(format!(
        "{{\"start\": {}, \"finish\": {}, \"makespan\": {}}}",
        list(&start),
        list(&finish),
        g17(r.makespan())
    ))
}

/// The graph format of `scripts/simgrid/README.md`: tasks in order, each a
/// `compute` (`node`, `ns`) or a `transfer` (`from`, `to`, `bytes`) with
/// the earlier tasks it comes `after`.
fn parse_graph(text: &str) -> Result<TaskGraph, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let tasks = v["tasks"].as_array().ok_or("no `tasks` array")?;
    let mut g = TaskGraph::new();
    let mut ids: Vec<TaskId> = Vec::with_capacity(tasks.len());
    for (i, t) in tasks.iter().enumerate() {
        let index = |v: &Value, key: &str| -> Result<usize, String> {
            let n = v[key]
                .as_u64()
                .ok_or(format!("task {i}: `{key}` is not a count"))?;
            usize::try_from(n).map_err(|_| format!("task {i}: `{key}` is too large"))
        };
        let number = |v: &Value, key: &str| {
            v[key]
                .as_f64()
                .ok_or(format!("task {i}: `{key}` is not a number"))
        };
        let mut after = Vec::new();
        for d in t["after"]
            .as_array()
            .ok_or(format!("task {i}: no `after`"))?
        {
            let d = d.as_u64().and_then(|d| usize::try_from(d).ok());
            match d.and_then(|d| ids.get(d)) {
                Some(&id) => after.push(id),
                None => return Err(format!("task {i}: `after` names no earlier task")),
            }
        }
        let id = if let Some(c) = t.get("compute") {
            g.compute(index(c, "node")?, number(c, "ns")?, &after)
        } else if let Some(x) = t.get("transfer") {
            g.transfer(
                index(x, "from")?,
                index(x, "to")?,
                number(x, "bytes")?,
                &after,
            )
        } else {
            return Err(format!("task {i}: neither `compute` nor `transfer`"));
        };
        ids.push(id);
    }
    Ok(g)
}

/// The 16-stage pipeline of `benches/sim.rs`, timed.
fn pipeline(elements: &str, nodes: &str) -> Result<String, String> {
    let elements: usize = elements.parse().map_err(|_| USAGE.to_string())?;
    let nodes: usize = nodes.parse().map_err(|_| USAGE.to_string())?;
    if elements == 0 || !(nodes == 1 || nodes == 4) {
        return Err(USAGE.to_string());
    }
    let machine = Machine::new(nodes, 16 / nodes)
        .latency(1000.0)
        .bandwidth(10.0);
    let t0 = Instant::now();
    let g = stages(elements, nodes);
    let t1 = Instant::now();
    let r = Simulation::graph(&g, &machine)
        .run()
        .map_err(|e| e.to_string())?;
    let t2 = Instant::now();
    Ok(format!(
        "{{\"tasks\": {}, \"build_s\": {}, \"run_s\": {}, \"makespan\": {}}}",
        g.len(),
        g17((t1 - t0).as_secs_f64()),
        g17((t2 - t1).as_secs_f64()),
        g17(r.makespan())
    ))
}

/// Stage `s` of element `i` (100 + s ns on node `s·nodes/16`) after stage
/// `s` of element `i − 1` and stage `s − 1` of element `i`, through a
/// transfer of 1024 bytes when the two are on different nodes.
fn stages(elements: usize, nodes: usize) -> TaskGraph {
    const STAGES: usize = 16;
    let mut g = TaskGraph::new();
    let mut previous: Vec<Option<TaskId>> = vec![None; STAGES];
    for _ in 0..elements {
        let mut before: Option<TaskId> = None;
        for (s, prev) in previous.iter_mut().enumerate() {
            let node = s * nodes / STAGES;
            let mut deps: Vec<TaskId> = prev.iter().copied().collect();
            if let Some(b) = before {
                let from = (s - 1) * nodes / STAGES;
                deps.push(if from == node {
                    b
                } else {
                    g.transfer(from, node, 1024.0, &[b])
                });
            }
            let step = g.compute(node, 100.0 + s as f64, &deps);
            *prev = Some(step);
            before = Some(step);
        }
    }
    g
}

fn list(xs: &[f64]) -> String {
    let items: Vec<String> = xs.iter().map(|&x| g17(x)).collect();
    format!("[{}]", items.join(", "))
}

/// `x` with 17 significant digits, as C's `%.17g` prints it (a JSON number).
fn g17(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x.is_finite() {
            "0".into()
        } else {
            "null".into()
        };
    }
    let sci = format!("{x:.16e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if (-5..17).contains(&exp) {
        let decimals = usize::try_from(16 - exp).unwrap_or(0);
        trim(format!("{x:.decimals$}"))
    } else {
        format!("{}e{exp:+03}", trim(mantissa.to_string()))
    }
}
