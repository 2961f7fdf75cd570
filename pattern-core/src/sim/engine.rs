//! The event loop: compute steps share their node's cores, transfers share
//! their links; time jumps from one completion to the next.
//!
//! A node's running steps all progress at the same rate `min(1, c/k)`, so
//! the node keeps one *virtual time* (the work each of its steps has done
//! since the start) and a heap of the virtual times at which its steps end:
//! a start or an end costs `O(log k)`, however many steps share the node.
//! A transfer's rate is `bandwidth / max(k_out, k_in)`, the smaller of its
//! equal shares of the sender's outgoing and the receiver's incoming link;
//! a start or an end changes the rates of the transfers on those two links
//! only, which are settled and rescheduled. Stale events (a node or a
//! transfer rescheduled since) are skipped by version.

use super::graph::{TaskGraph, Work};
use super::result::SimResult;
use super::{Platform, SimError};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// A time or a virtual time, ordered totally (never NaN here).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Time(f64);

impl Eq for Time {}
impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Time {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// The next step on a node ends (if the node's version still matches).
    Node { node: usize, version: u64 },
    /// A transfer's latency is over: its bytes start to move.
    Latency { task: usize },
    /// A transfer's bytes have all moved (if its version still matches).
    Transfer { task: usize, version: u64 },
}

#[derive(Default)]
struct Node {
    running: usize,
    /// Work done by each running step since the start, in ns.
    virtual_time: f64,
    updated: f64,
    ends: BinaryHeap<Reverse<(Time, usize)>>,
    version: u64,
}

impl Node {
    fn rate(&self, cores: f64) -> f64 {
        if self.running == 0 {
            0.0
        } else {
            (cores / self.running as f64).min(1.0)
        }
    }

    fn advance(&mut self, now: f64, cores: f64) {
        self.virtual_time += self.rate(cores) * (now - self.updated);
        self.updated = now;
    }
}

/// A transfer whose bytes are moving.
#[derive(Clone, Copy, Default)]
struct Flow {
    remaining: f64,
    rate: f64,
    updated: f64,
    version: u64,
}

/// The transfers on one link, removable in O(1).
#[derive(Default)]
struct Link {
    flows: Vec<usize>,
}

impl Link {
    fn remove(&mut self, task: usize, slot: &mut [usize]) {
        let i = slot[task];
        self.flows.swap_remove(i);
        if let Some(&moved) = self.flows.get(i) {
            slot[moved] = i;
        }
    }
}

pub(crate) struct Engine<'a> {
    graph: &'a TaskGraph,
    cores: f64,
    bandwidth: f64,
    latency: f64,
    now: f64,
    seq: u64,
    events: BinaryHeap<Reverse<(Time, u64, Event)>>,
    nodes: Vec<Node>,
    out_links: Vec<Link>,
    in_links: Vec<Link>,
    flows: Vec<Flow>,
    out_slot: Vec<usize>,
    in_slot: Vec<usize>,
    waiting: Vec<usize>,
    dependents_start: Vec<usize>,
    dependents: Vec<usize>,
    start: Vec<f64>,
    finish: Vec<f64>,
    busy_cores: usize,
    busy_steps: Vec<(f64, usize)>,
    processed: u64,
}

impl<'a> Engine<'a> {
    /// Checks the graph against the platform and builds the dependents.
    pub(crate) fn new(graph: &'a TaskGraph, platform: &Platform) -> Result<Engine<'a>, SimError> {
        platform.check()?;
        let n = graph.tasks.len();
        let nodes = platform.nodes();
        let mut counts = vec![0usize; n + 1];
        let mut waiting = vec![0usize; n];
        for (i, task) in graph.tasks.iter().enumerate() {
            let (amount, what, on) = match task.work {
                Work::Compute { node, duration } => (duration, "a duration", [node, node]),
                Work::Transfer { from, to, bytes } => (bytes, "a size in bytes", [from, to]),
            };
            if let Some(&node) = on.iter().find(|&&node| node >= nodes) {
                return Err(SimError::UnknownNode {
                    task: i,
                    node,
                    nodes,
                });
            }
            if !(amount.is_finite() && amount >= 0.0) {
                return Err(SimError::InvalidAmount {
                    task: i,
                    what,
                    value: amount,
                });
            }
            for d in &task.dependencies {
                if d.0 >= i {
                    return Err(SimError::UnknownTask {
                        task: i,
                        dependency: d.0,
                        tasks: n,
                    });
                }
                counts[d.0 + 1] += 1;
            }
            waiting[i] = task.dependencies.len();
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let mut dependents = vec![0usize; counts[n]];
        let mut fill = counts.clone();
        for (i, task) in graph.tasks.iter().enumerate() {
            for d in &task.dependencies {
                dependents[fill[d.0]] = i;
                fill[d.0] += 1;
            }
        }
        Ok(Engine {
            graph,
            cores: platform.cores() as f64,
            bandwidth: platform.bandwidth_bytes_per_ns(),
            latency: platform.latency_ns(),
            now: 0.0,
            seq: 0,
            events: BinaryHeap::new(),
            nodes: (0..nodes).map(|_| Node::default()).collect(),
            out_links: (0..nodes).map(|_| Link::default()).collect(),
            in_links: (0..nodes).map(|_| Link::default()).collect(),
            flows: vec![Flow::default(); n],
            out_slot: vec![0; n],
            in_slot: vec![0; n],
            waiting,
            dependents_start: counts,
            dependents,
            start: vec![f64::NAN; n],
            finish: vec![f64::NAN; n],
            busy_cores: 0,
            busy_steps: vec![(0.0, 0)],
            processed: 0,
        })
    }

    /// Runs every task to its end.
    pub(crate) fn run(mut self, platform: &Platform) -> SimResult {
        let mut ready: Vec<usize> = (0..self.graph.tasks.len())
            .filter(|&i| self.waiting[i] == 0)
            .collect();
        let mut done: Vec<usize> = Vec::new();
        loop {
            // Start what is ready and end what takes no time, until neither is left.
            while let Some(task) = ready.pop() {
                self.begin(task, &mut done);
                self.release(&mut done, &mut ready);
            }
            self.release(&mut done, &mut ready);
            if !ready.is_empty() {
                continue;
            }
            let Some(Reverse((Time(time), _, event))) = self.events.pop() else {
                break;
            };
            self.processed += 1;
            self.now = time;
            match event {
                Event::Node { node, version } if version == self.nodes[node].version => {
                    self.end_steps(node, &mut done);
                }
                Event::Latency { task } => self.move_bytes(task, &mut done),
                Event::Transfer { task, version } if version == self.flows[task].version => {
                    self.end_flow(task);
                    done.push(task);
                }
                _ => {}
            }
            self.release(&mut done, &mut ready);
        }
        SimResult::new(
            self.graph,
            platform,
            self.start,
            self.finish,
            self.busy_steps,
            self.processed,
        )
    }

    fn push(&mut self, time: f64, event: Event) {
        self.seq += 1;
        self.events.push(Reverse((Time(time), self.seq, event)));
    }

    /// Ends the finished tasks in `done` and moves the dependents they were
    /// the last wait of to `ready`.
    fn release(&mut self, done: &mut Vec<usize>, ready: &mut Vec<usize>) {
        while let Some(task) = done.pop() {
            self.finish[task] = self.now;
            for k in self.dependents_start[task]..self.dependents_start[task + 1] {
                let d = self.dependents[k];
                self.waiting[d] -= 1;
                if self.waiting[d] == 0 {
                    ready.push(d);
                }
            }
        }
    }

    fn begin(&mut self, task: usize, done: &mut Vec<usize>) {
        self.start[task] = self.now;
        match self.graph.tasks[task].work {
            Work::Compute { node, duration } => {
                let cores = self.cores;
                let n = &mut self.nodes[node];
                n.advance(self.now, cores);
                n.ends
                    .push(Reverse((Time(n.virtual_time + duration), task)));
                n.running += 1;
                let running = n.running;
                self.note_busy(running - 1, running);
                self.reschedule(node);
            }
            Work::Transfer { from, to, .. } if from == to => done.push(task),
            Work::Transfer { .. } if self.latency > 0.0 => {
                self.push(self.now + self.latency, Event::Latency { task });
            }
            Work::Transfer { .. } => self.move_bytes(task, done),
        }
    }

    /// The total of busy cores changes when a node gains or loses a step
    /// below its core count.
    fn note_busy(&mut self, before: usize, after: usize) {
        let cores = self.cores as usize;
        let delta = after.min(cores) as isize - before.min(cores) as isize;
        if delta != 0 {
            self.busy_cores = (self.busy_cores as isize + delta) as usize;
            match self.busy_steps.last_mut() {
                Some(last) if last.0 == self.now => last.1 = self.busy_cores,
                _ => self.busy_steps.push((self.now, self.busy_cores)),
            }
        }
    }

    fn reschedule(&mut self, node: usize) {
        let cores = self.cores;
        let n = &mut self.nodes[node];
        n.version += 1;
        let version = n.version;
        if let Some(Reverse((Time(end), _))) = n.ends.peek() {
            let at = self.now + (end - n.virtual_time).max(0.0) / n.rate(cores);
            self.push(at, Event::Node { node, version });
        }
    }

    /// The steps of `node` whose work is done (the one the event was for,
    /// and any that end at the same virtual time).
    fn end_steps(&mut self, node: usize, done: &mut Vec<usize>) {
        let cores = self.cores;
        let n = &mut self.nodes[node];
        n.advance(self.now, cores);
        if let Some(Reverse((Time(end), _))) = n.ends.peek() {
            // Rounding may leave the clock a hair short of the end it was set for.
            n.virtual_time = n.virtual_time.max(*end);
        }
        let before = n.running;
        while let Some(&Reverse((Time(end), task))) = n.ends.peek() {
            if end > n.virtual_time {
                break;
            }
            n.ends.pop();
            n.running -= 1;
            done.push(task);
        }
        let after = n.running;
        self.note_busy(before, after);
        self.reschedule(node);
    }

    fn links(&self, task: usize) -> (usize, usize, f64) {
        match self.graph.tasks[task].work {
            Work::Transfer { from, to, bytes } => (from, to, bytes),
            Work::Compute { .. } => unreachable!("only transfers use links"),
        }
    }

    /// A transfer's latency is over: its bytes join the two links.
    fn move_bytes(&mut self, task: usize, done: &mut Vec<usize>) {
        let (from, to, bytes) = self.links(task);
        if bytes == 0.0 {
            done.push(task);
            return;
        }
        self.flows[task] = Flow {
            remaining: bytes,
            rate: 0.0,
            updated: self.now,
            version: self.flows[task].version + 1,
        };
        self.out_slot[task] = self.out_links[from].flows.len();
        self.out_links[from].flows.push(task);
        self.in_slot[task] = self.in_links[to].flows.len();
        self.in_links[to].flows.push(task);
        self.rerate(from, to);
    }

    fn end_flow(&mut self, task: usize) {
        let (from, to, _) = self.links(task);
        self.out_links[from].remove(task, &mut self.out_slot);
        self.in_links[to].remove(task, &mut self.in_slot);
        self.flows[task].version += 1;
        self.rerate(from, to);
    }

    /// New rates for the transfers on the outgoing link of `from` and the
    /// incoming link of `to`, each settled to now and rescheduled.
    fn rerate(&mut self, from: usize, to: usize) {
        let mut affected = self.out_links[from].flows.clone();
        affected.extend(&self.in_links[to].flows);
        for task in affected {
            let (f, t, _) = self.links(task);
            let share = self.out_links[f]
                .flows
                .len()
                .max(self.in_links[t].flows.len());
            let rate = self.bandwidth / share as f64;
            let flow = &mut self.flows[task];
            if flow.rate == rate {
                continue;
            }
            flow.remaining = (flow.remaining - flow.rate * (self.now - flow.updated)).max(0.0);
            flow.updated = self.now;
            flow.rate = rate;
            flow.version += 1;
            let (at, version) = (self.now + flow.remaining / rate, flow.version);
            self.push(at, Event::Transfer { task, version });
        }
    }
}
