//! What a simulation reports: when each task ran, the makespan, the
//! utilization of cores and links, dynamic efficiency and a trace.

use super::busy::BusyHistory;
use super::graph::{TaskId, Work};
use super::resources::Resources;
use super::stats::LatencyHistogram;
use super::steady::SteadyState;
use super::stream::StreamStats;
use crate::machine::Machine;
use serde_json::json;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The most windows [`SimResult::dynamic_efficiency`] cuts a run into: a
/// window of 1 ns over a run of 10^50 ns would ask for more memory than
/// there is (and the history holds 4,096 bins).
pub const MAX_WINDOWS: f64 = 1_048_576.0;

/// A task as run: what it did (compactly: a run holds millions) and when.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TaskRun {
    /// Its duration (a compute step) or its bytes (a transfer).
    pub(crate) amount: f64,
    pub(crate) start: f64,
    pub(crate) finish: f64,
    /// Its node, or the sending node of a transfer.
    pub(crate) node: u32,
    /// The receiving node of a transfer; [`TaskRun::COMPUTE`] for a
    /// compute step.
    pub(crate) to: u32,
}

impl TaskRun {
    /// [`TaskRun::to`] of a compute step.
    pub(crate) const COMPUTE: u32 = u32::MAX;

    /// A task doing `work` (its nodes below [`super::MAX_NODES`]), not run
    /// yet.
    pub(crate) fn of(work: &Work) -> TaskRun {
        let (amount, node, to) = match *work {
            Work::Compute { node, duration } => (duration, node, TaskRun::COMPUTE),
            Work::Transfer { from, to, bytes } => (bytes, from, to as u32),
        };
        TaskRun {
            amount,
            start: f64::NAN,
            finish: f64::NAN,
            node: node as u32,
            to,
        }
    }

    pub(crate) fn work(&self) -> Work {
        match self.to {
            TaskRun::COMPUTE => Work::Compute {
                node: self.node as usize,
                duration: self.amount,
            },
            to => Work::Transfer {
                from: self.node as usize,
                to: to as usize,
                bytes: self.amount,
            },
        }
    }

    /// The node of a compute step, the sending node of a transfer.
    pub(crate) fn place(&self) -> usize {
        self.node as usize
    }

    pub(crate) fn is_compute(&self) -> bool {
        self.to == TaskRun::COMPUTE
    }
}

/// The outcome of a simulation: every task's start and end, in ns.
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult {
    pub(crate) tasks: Vec<TaskRun>,
    pub(crate) nodes: usize,
    /// Each node's cores.
    node_cores: Vec<usize>,
    bandwidth: f64,
    makespan: f64,
    history: BusyHistory,
    events: u64,
    node_work: Vec<f64>,
    time_per_element: f64,
    steady: Option<SteadyState>,
    latencies: Option<LatencyHistogram>,
    /// Each traced task's name (a design's steps); empty for a flow graph.
    names: Vec<String>,
    /// Each node's (outgoing, incoming) bytes.
    link_bytes: Vec<(f64, f64)>,
}

impl SimResult {
    /// The result of a flow graph's run: its tasks as they ran.
    pub(crate) fn new(machine: &Machine, tasks: Vec<TaskRun>, resources: Resources) -> SimResult {
        let makespan = tasks.iter().map(|t| t.finish).fold(0.0, f64::max);
        let mut history = resources.history;
        history.finish(makespan);
        SimResult {
            tasks,
            nodes: machine.nodes(),
            node_cores: machine.each_node().map(|(c, _)| c).collect(),
            bandwidth: machine.network().bandwidth_bytes_per_ns,
            makespan,
            history,
            events: resources.events_processed,
            node_work: resources.work,
            time_per_element: makespan,
            steady: None,
            latencies: None,
            names: Vec::new(),
            link_bytes: resources.bytes,
        }
    }

    /// The result of a stream of elements through a design, judged
    /// `steady` or not; its trace's steps as tasks, named by `labels`.
    pub(crate) fn of_stream(
        machine: &Machine,
        stats: StreamStats,
        steady: SteadyState,
        elements: usize,
        labels: &[String],
    ) -> SimResult {
        let r = stats.resources;
        let n = stats.trace.len();
        let (mut tasks, mut names) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (w, label, s, f) in stats.trace {
            names.push(match labels.get(label) {
                Some(l) => l.clone(),
                None if matches!(w, Work::Transfer { .. }) => "transfer".to_string(),
                None => "queue overhead".to_string(),
            });
            tasks.push(TaskRun {
                start: s,
                finish: f,
                ..TaskRun::of(&w)
            });
        }
        SimResult {
            tasks,
            nodes: machine.nodes(),
            node_cores: machine.each_node().map(|(c, _)| c).collect(),
            bandwidth: machine.network().bandwidth_bytes_per_ns,
            makespan: stats.makespan,
            history: r.history,
            events: r.events_processed,
            node_work: r.work,
            time_per_element: steady.time_per_element(stats.makespan, elements),
            steady: Some(steady),
            latencies: Some(stats.latencies),
            names,
            link_bytes: r.bytes,
        }
    }

    /// When the last task ended, in ns (0 for an empty graph).
    pub fn makespan(&self) -> f64 {
        self.makespan
    }

    /// When `task` of the simulated flow graph ended, in ns (NaN for a
    /// task the run did not have).
    pub fn finish(&self, task: TaskId) -> f64 {
        self.tasks.get(task.0).map_or(f64::NAN, |t| t.finish)
    }

    /// When `task` started (its dependencies ended), in ns (NaN for a task
    /// the run did not have).
    pub fn start(&self, task: TaskId) -> f64 {
        self.tasks.get(task.0).map_or(f64::NAN, |t| t.start)
    }

    /// The events the loop processed (completions, latencies, stale ones).
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Each node's cores' busy fraction over the makespan: the time its
    /// steps kept cores busy (their work at the node's speed) over
    /// `cores × makespan` (processor sharing wastes no core).
    pub fn core_utilization(&self) -> Vec<f64> {
        (self.node_work.iter().zip(&self.node_cores))
            .map(|(w, &c)| ratio(*w, c as f64 * self.makespan))
            .collect()
    }

    /// The time per element, in ns. For a stream through a design that
    /// reached a steady state ([`SimResult::steady_state`]), the slope of
    /// the exit times over the middle half of the exits (fill and drain
    /// left out); for one that did not, the makespan over the elements,
    /// fill and drain included. With [`Simulation::arrivals`], the slope
    /// is the mean gap between departures: `1 / rate` where the design
    /// keeps up. Either is never below the capacity bound:
    /// what the design's work asks of the machine's cores per element. For
    /// a flow graph, which is one job, its makespan.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::Simulation;
    ///
    /// // 1000 workers of 100 ns on 4 cores, 1000 elements: all start at
    /// // once and end together; the exits' slope would be 0. Not steady:
    /// // the makespan per element, 25 ns, the work over the cores.
    /// let d = Design::parse("a = 100; tpool[1000](a)")?;
    /// let r = Simulation::new(&d, &Machine::new(1, 4)).elements(1000).run()?;
    /// let s = r.steady_state().unwrap();
    /// assert!(!s.steady);
    /// assert_eq!((s.in_flight, s.elements_needed, s.bound), (1000, 4004, 25.0));
    /// assert_eq!(r.time_per_element(), 25.0);
    /// // Long enough, it is steady, at the bound.
    /// let r = Simulation::new(&d, &Machine::new(1, 4)).elements(s.elements_needed).run()?;
    /// assert!(r.steady_state().unwrap().steady);
    /// assert_eq!(r.time_per_element(), 25.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`Simulation::arrivals`]: super::Simulation::arrivals
    pub fn time_per_element(&self) -> f64 {
        self.time_per_element
    }

    /// Whether a design's run reached a steady state: long enough for the
    /// window measured to lie between the fill and the drain, and its slope
    /// not below the capacity bound; the elements a steady run needs; the
    /// slope and the bound. `None` for a flow graph.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::Simulation;
    ///
    /// // Two stages and 4 places between them: 6 elements in flight at
    /// // most, 28 needed.
    /// let d = Design::parse("a = 10; b = 30; pipe(a, b)")?;
    /// let r = Simulation::new(&d, &Machine::new(1, 2)).elements(20).run()?;
    /// let s = r.steady_state().unwrap();
    /// assert_eq!((s.steady, s.in_flight, s.elements_needed), (false, 6, 28));
    /// assert_eq!(r.time_per_element(), r.makespan() / 20.0); // (40 + 19·30)/20
    /// let r = Simulation::new(&d, &Machine::new(1, 2)).elements(28).run()?;
    /// assert_eq!(r.steady_state().unwrap().steady, true);
    /// assert_eq!(r.time_per_element(), 30.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn steady_state(&self) -> Option<SteadyState> {
        self.steady
    }

    /// The `p`-th percentile (0 to 100) of the elements' latencies (from
    /// entering the design, or arriving with [`Simulation::arrivals`], to
    /// leaving it), to within 1 %; `None` for a flow graph or a `p` out of
    /// range.
    ///
    /// [`Simulation::arrivals`]: super::Simulation::arrivals
    pub fn latency_percentile(&self, p: f64) -> Option<f64> {
        self.latencies.as_ref()?.percentile(p)
    }

    /// The mean of the elements' latencies (from entering the design, or
    /// arriving with [`Simulation::arrivals`], to leaving it), in ns;
    /// `None` for a flow graph.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::Simulation;
    ///
    /// // Every element is there from the start: each takes 100 ns once
    /// // taken, whatever it waited before.
    /// let d = Design::parse("a = 100; a")?;
    /// let r = Simulation::new(&d, &Machine::new(1, 1)).elements(10).run()?;
    /// assert_eq!(r.latency_mean(), Some(100.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`Simulation::arrivals`]: super::Simulation::arrivals
    pub fn latency_mean(&self) -> Option<f64> {
        self.latencies.as_ref()?.mean()
    }

    /// Each node's (outgoing, incoming) link's busy fraction over the
    /// makespan: the bytes it carried over `bandwidth × makespan`.
    pub fn link_utilization(&self) -> Vec<(f64, f64)> {
        let capacity = self.bandwidth * self.makespan;
        self.link_bytes
            .iter()
            .map(|(o, i)| (ratio(*o, capacity), ratio(*i, capacity)))
            .collect()
    }

    /// Dynamic efficiency (seed 003 §5): for each window of `window` ns
    /// from time 0 to the makespan, the fraction of all the machine's
    /// cores that were busy, as `(window start, efficiency in [0, 1])`.
    /// Empty for a window that is not a positive finite number, a run of
    /// no time, or a window that cuts the run into more than
    /// [`MAX_WINDOWS`] windows. The busy time is kept in at most 4,096 bins of a width that
    /// doubles as the run grows (1 ns to start): a window that is not a
    /// multiple of it shares a bin with its neighbour in proportion.
    ///
    /// ```
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::{Simulation, TaskGraph};
    ///
    /// let mut g = TaskGraph::new();
    /// let a = g.compute(0, 10.0, &[]);
    /// g.compute(0, 10.0, &[]);
    /// g.compute(0, 10.0, &[a]);
    /// let r = Simulation::graph(&g, &Machine::new(1, 2)).run()?;
    /// // Two cores busy for 10 ns, then one for 10 ns.
    /// assert_eq!(r.dynamic_efficiency(10.0), vec![(0.0, 1.0), (10.0, 0.5)]);
    /// # Ok::<(), pattern_core::sim::SimError>(())
    /// ```
    pub fn dynamic_efficiency(&self, window: f64) -> Vec<(f64, f64)> {
        if !(window.is_finite() && window > 0.0 && self.makespan > 0.0)
            || self.makespan / window > MAX_WINDOWS
        {
            return Vec::new();
        }
        let total = self.node_cores.iter().map(|&c| c as f64).sum::<f64>();
        self.history
            .windows(window, self.makespan)
            .into_iter()
            .map(|(start, busy)| {
                let length = (start + window).min(self.makespan) - start;
                (start, (busy / (total * length)).clamp(0.0, 1.0))
            })
            .collect()
    }

    /// The run as a Chrome trace (the JSON trace event format that Perfetto
    /// and `chrome://tracing` open): one process per node with a lane per
    /// core its steps overlapped on, one per node's outgoing link; times in
    /// µs.
    pub fn trace_json(&self) -> String {
        let mut events = Vec::new();
        for node in 0..self.nodes {
            events.push(json!({"ph": "M", "name": "process_name", "pid": node,
                "args": {"name": format!("node {node}")}}));
            events.push(
                json!({"ph": "M", "name": "process_name", "pid": self.nodes + node,
                "args": {"name": format!("link out of node {node}")}}),
            );
        }
        for (task, lane) in self.lanes() {
            let what = match self.names.get(task) {
                Some(name) => name.clone(),
                None => format!("task {task}"),
            };
            let t = &self.tasks[task];
            let (pid, name) = match t.work() {
                Work::Compute { node, .. } => (node, what),
                Work::Transfer { from, to, bytes } => {
                    (self.nodes + from, format!("{what}: {bytes} B to node {to}"))
                }
            };
            events.push(json!({
                "ph": "X", "name": name, "pid": pid, "tid": lane,
                "ts": t.start / 1e3,
                "dur": (t.finish - t.start) / 1e3,
            }));
        }
        json!({"traceEvents": events, "displayTimeUnit": "ns"}).to_string()
    }

    /// The row of the Gantt chart of `task` in `lane`: each node's lanes,
    /// then each link's, in order, 64 rows per place at most.
    #[cfg(feature = "plots")]
    pub(crate) fn row(&self, task: usize, lane: usize) -> usize {
        let place = self.place(task);
        place * 64 + lane.min(63)
    }

    /// The process of `task` in a trace: its node, or `nodes + from` for
    /// a transfer (the sender's link out).
    fn place(&self, task: usize) -> usize {
        let t = &self.tasks[task];
        if t.is_compute() {
            t.place()
        } else {
            self.nodes + t.place()
        }
    }

    /// A lane for every task, so that tasks in one lane of one process never
    /// overlap: by start time, the free lane that ended first.
    pub(crate) fn lanes(&self) -> Vec<(usize, usize)> {
        let start = |t: usize| self.tasks[t].start;
        let mut order: Vec<usize> = (0..self.tasks.len()).collect();
        order.sort_by(|&a, &b| start(a).total_cmp(&start(b)).then(a.cmp(&b)));
        let mut free: Vec<BinaryHeap<Reverse<(u64, usize)>>> =
            (0..2 * self.nodes).map(|_| BinaryHeap::new()).collect();
        let mut busy: Vec<BinaryHeap<Reverse<(u64, usize)>>> =
            (0..2 * self.nodes).map(|_| BinaryHeap::new()).collect();
        let mut count = vec![0usize; 2 * self.nodes];
        let mut out = Vec::with_capacity(order.len());
        for t in order {
            let p = self.place(t);
            let start = self.tasks[t].start.to_bits();
            while let Some(&Reverse((end, lane))) = busy[p].peek() {
                if end > start {
                    break;
                }
                busy[p].pop();
                free[p].push(Reverse((lane as u64, lane)));
            }
            let lane = match free[p].pop() {
                Some(Reverse((_, lane))) => lane,
                None => {
                    count[p] += 1;
                    count[p] - 1
                }
            };
            busy[p].push(Reverse((self.tasks[t].finish.to_bits(), lane)));
            out.push((t, lane));
        }
        out
    }
}

/// `a / b`, 0 where `b` is 0.
fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}
