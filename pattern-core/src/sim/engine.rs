//! The flow-graph engine: a task starts on the [`Resources`] when the last
//! task it depends on ends; time jumps from one end to the next.

use super::SimError;
use super::change::{Change, Changes, When};
use super::graph::{TaskGraph, Work};
use super::resources::Resources;
use super::result::SimResult;
use super::variation::Variation;
use crate::machine::Machine;

pub(crate) struct Engine<'a> {
    graph: &'a TaskGraph,
    resources: Resources,
    waiting: Vec<usize>,
    dependents_start: Vec<usize>,
    dependents: Vec<usize>,
    start: Vec<f64>,
    finish: Vec<f64>,
    variation: Variation,
    changes: Changes,
}

impl<'a> Engine<'a> {
    /// Checks the graph against the machine and builds the dependents.
    pub(crate) fn new(
        graph: &'a TaskGraph,
        machine: &Machine,
        variation: Variation,
        cpu_per_byte: f64,
        changes: Changes,
    ) -> Result<Engine<'a>, SimError> {
        let n = graph.tasks.len();
        let nodes = machine.nodes();
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
        changes.check_graph(nodes, n)?;
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
            // A flow graph's tasks belong to no thread: never pinned.
            resources: Resources::new(machine, cpu_per_byte, false)?,
            waiting,
            dependents_start: counts,
            dependents,
            start: vec![f64::NAN; n],
            finish: vec![f64::NAN; n],
            variation,
            changes,
        })
    }

    /// Runs every task to its end; a task left on a node whose cores were
    /// all taken away is [`SimError::Stalled`].
    pub(crate) fn run(mut self, machine: &Machine) -> Result<SimResult, SimError> {
        let n = self.graph.tasks.len();
        let mut ready: Vec<usize> = (0..n).filter(|&i| self.waiting[i] == 0).collect();
        let mut done: Vec<usize> = Vec::new();
        // Changes at a time are delays whose ids follow the tasks'.
        for (i, when) in self.changes.times() {
            let wait = (when - self.resources.now).max(0.0);
            self.resources.delay(wait, n + i, &mut done);
        }
        loop {
            // Start what is ready and end what takes no time, until neither is left.
            while !ready.is_empty() || !done.is_empty() {
                while let Some(task) = ready.pop() {
                    self.begin(task, &mut done);
                }
                self.release(&mut done, &mut ready);
            }
            let more = self.resources.advance(&mut done);
            if self.resources.overflowed {
                let left = self.finish.iter().filter(|f| f.is_nan()).count();
                return Err(SimError::ClockOverflow { left });
            }
            if !more {
                break;
            }
        }
        let left = self.finish.iter().filter(|f| f.is_nan()).count();
        if left > 0 {
            return Err(SimError::Stalled { left });
        }
        Ok(SimResult::new(
            self.graph,
            machine,
            self.start,
            self.finish,
            self.resources,
        ))
    }

    /// Ends the finished tasks in `done` and moves the dependents they were
    /// the last wait of to `ready`.
    fn release(&mut self, done: &mut Vec<usize>, ready: &mut Vec<usize>) {
        let n = self.graph.tasks.len();
        while let Some(task) = done.pop() {
            if task >= n {
                let change = self.changes.get(task - n);
                self.apply(change);
                continue;
            }
            self.finish[task] = self.resources.now;
            for i in self.changes.after_task(task) {
                let change = self.changes.get(i);
                self.apply(change);
            }
            for k in self.dependents_start[task]..self.dependents_start[task + 1] {
                let d = self.dependents[k];
                self.waiting[d] -= 1;
                if self.waiting[d] == 0 {
                    ready.push(d);
                }
            }
        }
    }

    fn apply(&mut self, change: (When, Change)) {
        if let (_, Change::Cores { node, cores }) = change {
            self.resources.set_cores(node, cores);
        }
    }

    fn begin(&mut self, task: usize, done: &mut Vec<usize>) {
        self.start[task] = self.resources.now;
        match self.graph.tasks[task].work {
            Work::Compute { node, duration } => {
                let duration = self.variation.apply(duration);
                self.resources.compute(node, 0, duration, task);
            }
            Work::Transfer { from, to, bytes } => {
                self.resources.transfer(from, to, 0, bytes, task, done);
            }
        }
    }
}
