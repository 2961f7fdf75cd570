//! The capacity bound of a design on a machine: a time per element that no
//! run can beat, whatever its length, because the work has to be done.
//!
//! Two limits, and the larger holds:
//!
//! - **Capacity.** Each node does its share of every element's work
//!   (compute steps at the node's speed, the waiting costs of taking and
//!   handing elements over, the CPU of transfers) on its cores: per
//!   element at least that work over the cores. The busiest node decides;
//!   its figure is at least the total work over the capacity (cores ×
//!   speed) of all the nodes the design uses. A link likewise carries its
//!   bytes per element at its bandwidth at most, and a node's memory its
//!   steps' memory parts at its `lanes` (at most its cores) at once at
//!   most; a memory part holds its core, so it counts as work too.
//! - **Stations.** A thread does one element at a time, each taking at
//!   least its steps' longest path (each step alone: a compute step at its
//!   node's speed, its memory part if any at the memory's, a transfer its latency and bytes at its route's
//!   slowest link, a delay its time); a stage of `c` copies (a pool's
//!   workers) ends at most `c` elements per that time.
//!
//! A pipeline's parts run together (the largest limit holds, and their
//! work adds on each node); a `seq` of parallel parts runs the stream
//! through one part after the other (their limits add). Allocations that
//! change during the run count at their largest: each node's most cores,
//! each pool's most workers.

use super::change::{Change, Changes};
use super::plan::Plan;
use super::template::{Leaf, Template};
use crate::machine::Machine;
use std::collections::BTreeMap;

/// What the bound is computed from besides the plan.
pub(crate) struct Context<'a> {
    pub(crate) machine: &'a Machine,
    /// The CPU of taking an element from a shared queue, and of handing
    /// one to the next stage, in ns.
    pub(crate) take: f64,
    pub(crate) handoff: f64,
    /// CPU ns per byte sent or received.
    pub(crate) cpu_per_byte: f64,
    pub(crate) changes: &'a Changes,
}

/// A part of a plan, summed up: its stations' limit (ns per element), and
/// the work per element it puts on each node (ns at the node's speed), the
/// bytes on each link and the memory parts' ns on each node's memory.
#[derive(Default)]
struct Load {
    stations: f64,
    work: BTreeMap<usize, f64>,
    bytes: BTreeMap<usize, f64>,
    memory: BTreeMap<usize, f64>,
}

impl Load {
    fn add(&mut self, other: Load) {
        self.stations = self.stations.max(other.stations);
        for (k, w) in other.work {
            *self.work.entry(k).or_insert(0.0) += w;
        }
        for (l, b) in other.bytes {
            *self.bytes.entry(l).or_insert(0.0) += b;
        }
        for (k, m) in other.memory {
            *self.memory.entry(k).or_insert(0.0) += m;
        }
    }
}

/// Where a part sits: the copies of each of its stages, the threads
/// reading its input queue (a take costs CPU when there are several), and
/// whether its output is the design's.
#[derive(Clone, Copy)]
struct Place {
    copies: u64,
    readers: u64,
    last: bool,
}

/// The capacity bound of `plan`, in ns per element.
pub(crate) fn capacity_bound(plan: &Plan<Template>, cx: &Context) -> f64 {
    let cores = most_cores(cx);
    let limits = |load: &Load| -> f64 {
        let work = (load.work.iter())
            .map(|(&k, &w)| w / cores[k] as f64)
            .fold(0.0, f64::max);
        let links = cx.machine.network().links(cx.machine.nodes());
        let bytes = (load.bytes.iter())
            .map(|(&l, &b)| b / links[l])
            .fold(0.0, f64::max);
        // (Only nodes with a memory have memory parts.)
        let memory = (load.memory.iter())
            .map(|(&k, &m)| {
                let cores = cx.machine.node_cores(k) as f64;
                m / cx
                    .machine
                    .node_memory(k)
                    .map_or(1.0, |mem| mem.lanes().min(cores))
            })
            .fold(0.0, f64::max);
        load.stations.max(work).max(bytes).max(memory)
    };
    // Post-order over the plan, on explicit stacks (no recursion on a
    // design's depth).
    enum Visit<'p> {
        Enter(&'p Plan<Template>, Place),
        Exit(&'p Plan<Template>, usize),
    }
    let top = Place {
        copies: 1,
        readers: 1,
        last: true,
    };
    let mut stack = vec![Visit::Enter(plan, top)];
    let mut done: Vec<Load> = Vec::new();
    while let Some(v) = stack.pop() {
        match v {
            Visit::Enter(p, at) => match p {
                Plan::Stage(t) => done.push(stage(t, at, cx)),
                Plan::Pipe(parts) | Plan::Phases(parts) => {
                    stack.push(Visit::Exit(p, parts.len()));
                    for (i, part) in parts.iter().enumerate().rev() {
                        let here = Place {
                            copies: at.copies,
                            readers: if i == 0 { at.readers } else { 1 },
                            last: at.last && i + 1 == parts.len(),
                        };
                        stack.push(Visit::Enter(part, here));
                    }
                }
                Plan::Pool { id, n, body } => {
                    let most = most_workers(cx.changes, *id).max(*n);
                    let inside = Place {
                        copies: at.copies.saturating_mul(most),
                        readers: at.readers.saturating_mul(*n),
                        last: at.last,
                    };
                    stack.push(Visit::Enter(body, inside));
                }
            },
            Visit::Exit(p, k) => {
                let parts = done.split_off(done.len() - k);
                let mut load = Load::default();
                let phases = matches!(p, Plan::Phases(_));
                let mut sequential = 0.0;
                for part in parts {
                    if phases {
                        sequential += limits(&part);
                    }
                    load.add(part);
                }
                if phases {
                    load.stations = sequential;
                }
                done.push(load);
            }
        }
    }
    done.pop().map_or(0.0, |load| limits(&load))
}

/// The capacity bound from the work the elements' steps did (with varied
/// or measured durations): each node's `work` (ns at its speed) over
/// `elements` and its most cores.
pub(crate) fn measured_bound(work: &[f64], elements: usize, cx: &Context) -> f64 {
    let cores = most_cores(cx);
    (work.iter().zip(&cores))
        .map(|(&w, &c)| w / (elements as f64 * c as f64))
        .fold(0.0, f64::max)
}

/// Each node's most cores over the run.
fn most_cores(cx: &Context) -> Vec<usize> {
    let mut cores: Vec<usize> = cx.machine.each_node().map(|(c, _)| c).collect();
    for i in 0..cx.changes.len() {
        if let (_, Change::Cores { node, cores: c }) = cx.changes.get(i)
            && let Some(k) = cores.get_mut(node)
        {
            *k = (*k).max(c);
        }
    }
    cores
}

/// Pool `pool`'s most workers set by the changes (0 if none).
fn most_workers(changes: &Changes, pool: usize) -> u64 {
    (0..changes.len())
        .filter_map(|i| match changes.get(i) {
            (_, Change::Workers { pool: p, workers }) if p == pool => Some(workers as u64),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// One stage's load: its longest path over its copies, its work and bytes
/// per element, with the take and the hand-over the stream adds to it.
fn stage(t: &Template, at: Place, cx: &Context) -> Load {
    let m = cx.machine;
    let speed = |k: usize| m.node_speed(k);
    let home = t.home();
    let mut load = Load::default();
    let mut overhead = 0.0;
    if cx.take > 0.0 && at.readers > 1 {
        overhead += cx.take;
    }
    if cx.handoff > 0.0 && !at.last {
        overhead += cx.handoff;
    }
    if overhead > 0.0 {
        *load.work.entry(home).or_insert(0.0) += overhead / speed(home);
    }
    let nodes = m.nodes();
    let network = m.network();
    let links = network.links(nodes);
    // Each step's time alone, and the work and bytes it adds.
    let alone = |leaf: &Leaf, load: &mut Load| -> f64 {
        match *leaf {
            Leaf::Compute {
                node,
                width,
                ns,
                bytes,
                handed,
                ..
            } => {
                let mut slowest: f64 = 0.0;
                for k in node..node.saturating_add(width) {
                    let memory = m.node_memory(k).filter(|_| bytes > 0.0);
                    let (work, waits) =
                        memory.map_or((ns, 0.0), |mem| mem.split(ns, bytes, handed));
                    // The cores' part at the node's speed, then the memory's.
                    let cores = work / speed(k);
                    *load.work.entry(k).or_insert(0.0) += cores + waits;
                    if waits > 0.0 {
                        *load.memory.entry(k).or_insert(0.0) += waits;
                    }
                    slowest = slowest.max(cores + waits);
                }
                slowest
            }
            Leaf::Transfer { from, to, bytes } if from != to => {
                let route = network.route(nodes, from, to);
                let mut slowest = f64::INFINITY;
                for &l in route.links() {
                    *load.bytes.entry(l).or_insert(0.0) += bytes;
                    slowest = slowest.min(links[l]);
                }
                let cpu = cx.cpu_per_byte * bytes;
                let mut longest = route.latency_ns + bytes / slowest;
                for k in [from, to] {
                    *load.work.entry(k).or_insert(0.0) += cpu / speed(k);
                    longest = longest.max(cpu / speed(k));
                }
                longest
            }
            Leaf::Delay(ns) => ns,
            Leaf::Transfer { .. } | Leaf::Noop => 0.0,
        }
    };
    let path = longest_path(t, |leaf| alone(leaf, &mut load));
    load.stations = (path + overhead / speed(home)) / at.copies as f64;
    load
}

/// The longest path through a template's steps, each taking `time(step)`
/// (called once per step), in topological order (no recursion).
fn longest_path(t: &Template, mut time: impl FnMut(&Leaf) -> f64) -> f64 {
    let n = t.leaves.len();
    let mut waiting = t.preds.clone();
    let mut start = vec![0.0f64; n];
    let mut ready: Vec<u32> = (0..n as u32)
        .filter(|&i| waiting[i as usize] == 0)
        .collect();
    let mut longest: f64 = 0.0;
    while let Some(i) = ready.pop() {
        let end = start[i as usize] + time(&t.leaves[i as usize]);
        longest = longest.max(end);
        for &s in t.successors(i) {
            let s = s as usize;
            start[s] = start[s].max(end);
            waiting[s] -= 1;
            if waiting[s] == 0 {
                ready.push(s as u32);
            }
        }
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Design;
    use crate::sim::plan::Planner;

    fn bound(src: &str, machine: &Machine, take: f64, handoff: f64) -> f64 {
        let d = Design::parse(src).unwrap();
        let at = [("x", 1.0)];
        let mut planner = Planner::new(&at, crate::sim::Shuffle::Model);
        let plan = d.fold(&mut planner).unwrap();
        let plan = planner.finish(plan).unwrap();
        let changes = Changes::default();
        let cx = Context {
            machine,
            take,
            handoff,
            cpu_per_byte: 0.0,
            changes: &changes,
        };
        capacity_bound(&plan, &cx)
    }

    #[test]
    fn the_busier_limit_holds() {
        // A pool of 1000 on 2 cores: 140 ns of work per element over 2
        // cores, 70; the stations allow 100/1000 and 40.
        let src = "a = 100; b = 40; pipe(tpool[1000](a), b)";
        assert_eq!(bound(src, &Machine::new(1, 2), 0.0, 0.0), 70.0);
        // Enough cores: b's one thread decides.
        assert_eq!(bound(src, &Machine::new(1, 64), 0.0, 0.0), 40.0);
        // The hand-over (2 ns, on the pool's workers) and the take (1 ns,
        // each worker; b alone on its queue takes for free): 143/2.
        assert_eq!(bound(src, &Machine::new(1, 2), 1.0, 2.0), 143.0 / 2.0);
        // A seq of parallel parts: the stream through each part in turn.
        let phases = "a = 400; b = 30; seq(tpool[4](a), b)";
        assert_eq!(bound(phases, &Machine::new(1, 4), 0.0, 0.0), 100.0 + 30.0);
    }
}
