//! The event loop: compute steps share their node's cores, transfers share
//! their links; time jumps from one completion to the next.
//!
//! A node's running steps share its cores ([`Cores`]): a start or an end
//! costs `O(log k)`, however many steps share the node.
//! A transfer's rate is `bandwidth / max(k_out, k_in)`, the smaller of its
//! equal shares of the sender's outgoing and the receiver's incoming link;
//! a start or an end changes the rates of the transfers on those two links
//! only, which are settled and rescheduled. Stale events (a node or a
//! transfer rescheduled since) are skipped by version.

use super::busy::BusyHistory;
use super::cores::{Cores, Time};
use super::graph::{TaskGraph, Work};
use super::result::SimResult;
use super::variation::Variation;
use super::{Platform, SimError};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// The next step on a node ends (if the node's version still matches).
    Node { node: usize, version: u64 },
    /// A transfer's latency is over: its bytes start to move.
    Latency { task: usize },
    /// A transfer's bytes have all moved (if its version still matches).
    Transfer { task: usize, version: u64 },
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
    bandwidth: f64,
    latency: f64,
    now: f64,
    seq: u64,
    events: BinaryHeap<Reverse<(Time, u64, Event)>>,
    nodes: Vec<Cores>,
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
    history: BusyHistory,
    processed: u64,
    variation: Variation,
    work: Vec<f64>,
}

impl<'a> Engine<'a> {
    /// Checks the graph against the platform and builds the dependents.
    pub(crate) fn new(
        graph: &'a TaskGraph,
        platform: &Platform,
        variation: Variation,
    ) -> Result<Engine<'a>, SimError> {
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
            bandwidth: platform.bandwidth_bytes_per_ns(),
            latency: platform.latency_ns(),
            now: 0.0,
            seq: 0,
            events: BinaryHeap::new(),
            nodes: (0..nodes).map(|_| Cores::new(platform.cores())).collect(),
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
            history: BusyHistory::new(1.0),
            processed: 0,
            variation,
            work: vec![0.0; nodes],
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
            self.history,
            self.processed,
            self.work,
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
                let duration = self.variation.apply(duration);
                self.work[node] += duration;
                let before = self.nodes[node].busy();
                self.nodes[node].start(self.now, duration, task);
                self.note_busy(before, self.nodes[node].busy());
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
    /// A node's busy cores went from `before` to `after`.
    fn note_busy(&mut self, before: usize, after: usize) {
        if before != after {
            self.busy_cores = self.busy_cores + after - before;
            self.history.set(self.now, self.busy_cores);
        }
    }

    fn reschedule(&mut self, node: usize) {
        let n = &self.nodes[node];
        if let Some(at) = n.next_end(self.now) {
            let version = n.version;
            self.push(at, Event::Node { node, version });
        }
    }

    /// The steps of `node` whose work is done (the one the event was for,
    /// and any that end at the same virtual time).
    fn end_steps(&mut self, node: usize, done: &mut Vec<usize>) {
        let before = self.nodes[node].busy();
        self.nodes[node].end_next(self.now, done);
        self.note_busy(before, self.nodes[node].busy());
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
        // By index: the lists do not change while rates do, and copying
        // them at every start and end would allocate on the hot path.
        for i in 0..self.out_links[from].flows.len() {
            self.settle(self.out_links[from].flows[i]);
        }
        for i in 0..self.in_links[to].flows.len() {
            self.settle(self.in_links[to].flows[i]);
        }
    }

    /// A transfer's bytes moved so far at its old rate, its new rate from
    /// its two links' shares, and its end rescheduled (if the rate changed).
    fn settle(&mut self, task: usize) {
        let (f, t, _) = self.links(task);
        let share = self.out_links[f]
            .flows
            .len()
            .max(self.in_links[t].flows.len());
        let rate = self.bandwidth / share as f64;
        let flow = &mut self.flows[task];
        if flow.rate == rate {
            return;
        }
        flow.remaining = (flow.remaining - flow.rate * (self.now - flow.updated)).max(0.0);
        flow.updated = self.now;
        flow.rate = rate;
        flow.version += 1;
        let (at, version) = (self.now + flow.remaining / rate, flow.version);
        self.push(at, Event::Transfer { task, version });
    }
}
