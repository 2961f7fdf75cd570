//! The machine a simulation runs on: every node's cores, the network's
//! links ([`Links`]) and the clock. Its owner (the flow-graph engine, the stream of a
//! design) starts *activities* on it — compute steps, transfers, delays —
//! each named by an id of the owner's choosing, and hears of their ends.
//!
//! A node's running steps share its cores ([`Cores`]), or, with threads
//! pinned, each core's steps share that core: a start or an end costs
//! `O(log k)`. The next ends of these units sit in a tournament tree, so
//! the next event is found in `O(log units)` with no stale entry. A transfer
//! waits for its route's latency, then its bytes move at the rate its links
//! give it; a start or an end settles and reschedules the transfers whose
//! rates it changes (stale ends are skipped by version). With a CPU cost per byte, a
//! transfer also runs a step of `bytes × cost` on the sender's and on the
//! receiver's cores, and ends when its bytes and both steps are done.
//!
//! On a node with a [`Memory`], a step that moves bytes is two parts one
//! after the other ([`Resources::compute_moving`]): its cores' part, as any
//! step, then its memory part on the node's memory unit (a [`Cores`] of
//! `lanes` capacity, at most its cores, after every node's cores in the
//! tournament tree). The memory part holds its core ([`Cores::hold`]): a
//! core stalled on memory is busy, as the queueing semantics counts it. A
//! change of a node's cores leaves its memory as it is.

use super::SimError;
use super::busy::BusyHistory;
use super::cores::Cores;
use super::links::Links;
use crate::machine::{Machine, Memory};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// [`Resources::busy_before`] of a unit not touched.
const CLEAN: usize = usize::MAX;

/// The most nodes a simulated machine may have.
pub const MAX_NODES: usize = 1 << 20;
/// The most cores a simulated machine with pinned threads may have.
pub const MAX_UNITS: usize = 1 << 22;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// A transfer's latency is over: its bytes start to move.
    Latency { flow: usize },
    /// A transfer's bytes have all moved (if its version still matches).
    Flow { flow: usize, version: u64 },
    /// A delay is over.
    Delay { job: usize },
}

/// An event at a time, in the order of (time, when it was scheduled),
/// packed into one integer: times are `>= 0` (or infinite), whose bits
/// order as they do, so the heap compares one integer, not a float by
/// `total_cmp`, a counter and the event.
#[derive(Clone, Copy, Debug)]
struct Scheduled {
    key: u128,
    event: Event,
}

impl Scheduled {
    fn new(time: f64, seq: u64, event: Event) -> Scheduled {
        // +0.0 for -0.0, so that the bits order.
        let time = time + 0.0;
        Scheduled {
            key: (u128::from(time.to_bits()) << 64) | u128::from(seq),
            event,
        }
    }

    fn time(&self) -> f64 {
        f64::from_bits((self.key >> 64) as u64)
    }
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// An activity in progress: the owner's id and the parts still running
/// (a transfer with a CPU cost has three).
#[derive(Clone, Copy)]
struct Job {
    id: usize,
    parts: u8,
    /// A step's memory part, to start when its cores' part ends.
    then: Option<MemoryPart>,
    /// The cores' unit whose core its memory part holds.
    holding: Option<usize>,
}

/// The memory part of a step: the memory's unit, its ns, and the unit of
/// the core it holds meanwhile.
#[derive(Clone, Copy, Debug)]
struct MemoryPart {
    memory: usize,
    ns: f64,
    core: usize,
}

/// The minimum of one time per node, updated in `O(log nodes)`.
struct MinTree {
    size: usize,
    /// Each node's time and index packed as [`Scheduled`]'s key is (the
    /// time's bits, then the index): one integer compare per level.
    tree: Vec<u128>,
}

impl MinTree {
    fn new(n: usize) -> MinTree {
        let size = n.next_power_of_two();
        MinTree {
            size,
            tree: vec![u128::MAX; 2 * size],
        }
    }

    fn set(&mut self, i: usize, t: f64) {
        let mut k = self.size + i;
        // +0.0 for -0.0, so that the bits order; an index fits 64 bits.
        self.tree[k] = (u128::from((t + 0.0).to_bits()) << 64) | i as u128;
        while k > 1 {
            k /= 2;
            self.tree[k] = self.tree[2 * k].min(self.tree[2 * k + 1]);
        }
    }

    fn min(&self) -> (f64, usize) {
        match self.tree[1] {
            u128::MAX => (f64::INFINITY, usize::MAX),
            k => (f64::from_bits((k >> 64) as u64), k as u64 as usize),
        }
    }
}

pub(crate) struct Resources {
    pub(crate) now: f64,
    cpu_per_byte: f64,
    seq: u64,
    events: BinaryHeap<Reverse<Scheduled>>,
    /// What shares cores: each node's cores as one unit, or (threads
    /// pinned) each core a unit of its own; node `n`'s units are
    /// `first_unit[n]..first_unit[n + 1]`.
    units: Vec<Cores>,
    first_unit: Vec<usize>,
    /// Each node's speed: a step of `ns` takes `ns / speed` there.
    speed: Vec<f64>,
    /// Each node's memory and its unit; empty when no node has one (a
    /// step then costs no look-up).
    memory: Vec<Option<(Memory, usize)>>,
    next_ends: MinTree,
    /// The units touched at this time ([`Resources::touch`]), and each
    /// unit's busy cores before ([`CLEAN`] when untouched).
    touched: Vec<usize>,
    busy_before: Vec<usize>,
    links: Links,
    jobs: Vec<Job>,
    free_jobs: Vec<usize>,
    ended_jobs: Vec<usize>,
    busy_cores: usize,
    pub(crate) history: BusyHistory,
    pub(crate) events_processed: u64,
    /// An activity was due past the largest finite time (durations or
    /// sizes too large to add up): it never ends.
    pub(crate) overflowed: bool,
    /// Each node's compute work so far, in ns.
    pub(crate) work: Vec<f64>,
    /// Each node's (outgoing, incoming) bytes so far.
    pub(crate) bytes: Vec<(f64, f64)>,
}

impl Resources {
    /// The machine's nodes; `pinned`: each core shared by its own
    /// threads alone ([`Waiting::pinned`]), else a node's cores by all of
    /// the node's. A machine of more nodes or cores than the simulator
    /// holds is refused with its limit.
    ///
    /// [`Waiting::pinned`]: crate::machine::Waiting::pinned
    pub(crate) fn new(
        machine: &Machine,
        cpu_per_byte: f64,
        pinned: bool,
    ) -> Result<Resources, SimError> {
        machine.check()?;
        let nodes = machine.nodes();
        if nodes > MAX_NODES {
            return Err(SimError::MachineTooLarge {
                what: "nodes",
                value: nodes as u64,
                limit: MAX_NODES as u64,
            });
        }
        let mut units = Vec::new();
        let mut first_unit = Vec::with_capacity(nodes + 1);
        let mut speed = Vec::with_capacity(nodes);
        for (cores, s) in machine.each_node() {
            first_unit.push(units.len());
            speed.push(s);
            if pinned {
                if units.len() + cores > MAX_UNITS {
                    return Err(SimError::MachineTooLarge {
                        what: "pinned cores",
                        value: machine.cores() as u64,
                        limit: MAX_UNITS as u64,
                    });
                }
                units.extend((0..cores).map(|_| Cores::new(1)));
            } else {
                units.push(Cores::new(cores));
            }
        }
        first_unit.push(units.len());
        let memory = memories(machine, &mut units);
        Ok(Resources {
            now: 0.0,
            cpu_per_byte,
            seq: 0,
            events: BinaryHeap::new(),
            next_ends: MinTree::new(units.len()),
            touched: Vec::new(),
            busy_before: vec![CLEAN; units.len()],
            units,
            first_unit,
            speed,
            memory,
            links: Links::new(machine),
            jobs: Vec::new(),
            free_jobs: Vec::new(),
            ended_jobs: Vec::new(),
            busy_cores: 0,
            history: BusyHistory::new(1.0),
            events_processed: 0,
            overflowed: false,
            work: vec![0.0; nodes],
            bytes: vec![(0.0, 0.0); nodes],
        })
    }

    fn job(&mut self, id: usize, parts: u8) -> usize {
        let job = Job {
            id,
            parts,
            then: None,
            holding: None,
        };
        match self.free_jobs.pop() {
            Some(j) => {
                self.jobs[j] = job;
                j
            }
            None => {
                self.jobs.push(job);
                self.jobs.len() - 1
            }
        }
    }

    /// One part of `job` ended: its owner hears when the last has.
    fn part_done(&mut self, job: usize, ended: &mut Vec<usize>) {
        let j = &mut self.jobs[job];
        j.parts -= 1;
        if j.parts == 0 {
            ended.push(j.id);
            self.free_jobs.push(job);
        }
    }

    fn push(&mut self, time: f64, event: Event) {
        self.overflowed |= !time.is_finite();
        self.seq += 1;
        self.events
            .push(Reverse(Scheduled::new(time, self.seq, event)));
    }

    /// Starts `ns` of one core's work on `node`, named `id`, for a thread
    /// pinned to core `core mod cores` (when threads are pinned); returns
    /// the step's time alone at the node's speed.
    pub(crate) fn compute(&mut self, node: usize, core: usize, ns: f64, id: usize) -> f64 {
        let job = self.job(id, 1);
        self.run_on(node, core, ns, job)
    }

    /// [`Resources::compute`] of a step that moves `bytes` to and from
    /// memory, its element `handed` over by the stage before or not: on a
    /// node with a memory, its cores' part (`ns − m` and, if handed, the
    /// bytes' time from the caches; `m` from [`Memory::split`]) as any
    /// step, then its memory part of `m`
    /// (at no speed but the memory's), holding its core, `id` reported
    /// when that ends. Returns the work it asks of the cores: its cores'
    /// part at the node's speed plus `m`. No memory or no bytes:
    /// [`Resources::compute`].
    pub(crate) fn compute_moving(
        &mut self,
        node: usize,
        core: usize,
        ns: f64,
        (bytes, handed): (f64, bool),
        id: usize,
    ) -> f64 {
        let Some(&Some((memory, unit))) = self.memory.get(node).filter(|_| bytes > 0.0) else {
            return self.compute(node, core, ns, id);
        };
        let (cores, m) = memory.split(ns, bytes, handed);
        if m <= 0.0 {
            return self.compute(node, core, cores, id);
        }
        let job = self.job(id, 1);
        let part = MemoryPart {
            memory: unit,
            ns: m,
            core: self.unit(node, core),
        };
        self.work[node] += m;
        if cores > 0.0 {
            self.jobs[job].then = Some(part);
            self.run_on(node, core, cores, job) + m
        } else {
            // All of it waits on memory: no step of nothing on the cores.
            self.wait_on_memory(job, part);
            m
        }
    }

    /// Starts `job`'s memory part, its core held until it ends.
    fn wait_on_memory(&mut self, job: usize, part: MemoryPart) {
        self.touch(part.core);
        self.units[part.core].hold(self.now);
        self.jobs[job].holding = Some(part.core);
        self.touch(part.memory);
        self.units[part.memory].start(self.now, part.ns, job);
    }

    fn run_on(&mut self, node: usize, core: usize, ns: f64, job: usize) -> f64 {
        let speed = self.speed[node];
        // (Most nodes run at the models' speed: no division then.)
        let ns = if speed == 1.0 { ns } else { ns / speed };
        self.work[node] += ns;
        let unit = self.unit(node, core);
        self.touch(unit);
        self.units[unit].start(self.now, ns, job);
        ns
    }

    /// Whether a thread woken on core `core` of `node` (on its node's
    /// cores, when threads are not pinned) would find every core it may
    /// run on busy, counting the thread that wakes it, which goes on
    /// running on core `by` of `by_node` (none: `by_node` out of range).
    pub(crate) fn would_wait(&self, node: usize, core: usize, by_node: usize, by: usize) -> bool {
        let unit = self.unit(node, core);
        let waker = usize::from(by_node < self.work.len() && unit == self.unit(by_node, by));
        self.units[unit].saturated(waker)
    }

    fn unit(&self, node: usize, core: usize) -> usize {
        let first = self.first_unit[node];
        match self.first_unit[node + 1] - first {
            // Unpinned: the node's cores are one unit (no division).
            1 => first,
            units => first + core % units,
        }
    }

    /// The speed of node `node`.
    pub(crate) fn speed(&self, node: usize) -> f64 {
        self.speed[node]
    }

    /// Starts a delay of `ns` that uses nothing, named `id`.
    pub(crate) fn delay(&mut self, ns: f64, id: usize, ended: &mut Vec<usize>) {
        if ns == 0.0 {
            ended.push(id);
            return;
        }
        let job = self.job(id, 1);
        self.push(self.now + ns, Event::Delay { job });
    }

    /// [`Resources::delay`] until the time `at` (no time passing at
    /// once): the clock is `at` exactly when `id` ends.
    pub(crate) fn delay_until(&mut self, at: f64, id: usize, ended: &mut Vec<usize>) {
        if at <= self.now {
            ended.push(id);
            return;
        }
        let job = self.job(id, 1);
        self.push(at, Event::Delay { job });
    }

    /// Starts a transfer of `bytes` from `from` to `to`, named `id`; one
    /// within a node (or of nothing with no latency) ends at once, into
    /// `ended`. Its CPU cost, if any, runs on core `core` (when pinned)
    /// of both nodes.
    pub(crate) fn transfer(
        &mut self,
        from: usize,
        to: usize,
        core: usize,
        bytes: f64,
        id: usize,
        ended: &mut Vec<usize>,
    ) {
        let latency = if from == to {
            0.0
        } else {
            self.links.latency(from, to)
        };
        if from == to || (bytes == 0.0 && latency == 0.0) {
            ended.push(id);
            return;
        }
        let cpu = self.cpu_per_byte * bytes;
        let job = self.job(id, if cpu > 0.0 { 3 } else { 1 });
        if cpu > 0.0 {
            self.run_on(from, core, cpu, job);
            self.run_on(to, core, cpu, job);
        }
        self.bytes[from].0 += bytes;
        self.bytes[to].1 += bytes;
        let f = self.links.open(job, from, to, bytes);
        if latency > 0.0 {
            self.push(self.now + latency, Event::Latency { flow: f });
        } else {
            self.move_bytes(f, ended);
        }
    }

    /// Sets the cores of `node` from now on (0 stops its steps until
    /// cores come back). Pinned, the node's first `cores` cores run and the
    /// others hold their threads' steps; cores beyond the platform's have
    /// no threads to run.
    pub(crate) fn set_cores(&mut self, node: usize, cores: usize) {
        let (first, end) = (self.first_unit[node], self.first_unit[node + 1]);
        for unit in first..end {
            let given = if end - first == 1 {
                cores
            } else {
                usize::from(unit - first < cores)
            };
            self.touch(unit);
            self.units[unit].set_cores(self.now, given);
        }
    }

    /// Moves the clock to the next event and hands the ids of the
    /// activities that ended to `ended`; `false` when nothing runs.
    pub(crate) fn advance(&mut self, ended: &mut Vec<usize>) -> bool {
        self.settle();
        let (unit_end, unit) = self.next_ends.min();
        let other = self
            .events
            .peek()
            .map_or(f64::INFINITY, |Reverse(e)| e.time());
        if unit_end.is_infinite() && other.is_infinite() {
            return false;
        }
        self.events_processed += 1;
        if unit_end <= other {
            self.now = unit_end;
            self.touch(unit);
            let mut jobs = std::mem::take(&mut self.ended_jobs);
            self.units[unit].end_next(self.now, &mut jobs);
            for job in jobs.drain(..) {
                match self.jobs[job].then.take() {
                    // A cores' part ended: its memory part starts.
                    Some(part) => self.wait_on_memory(job, part),
                    None => {
                        if let Some(core) = self.jobs[job].holding.take() {
                            self.touch(core);
                            self.units[core].release(self.now);
                        }
                        self.part_done(job, ended);
                    }
                }
            }
            self.ended_jobs = jobs;
            return true;
        }
        let Some(Reverse(scheduled)) = self.events.pop() else {
            return false;
        };
        self.now = scheduled.time();
        let event = scheduled.event;
        match event {
            Event::Latency { flow } => self.move_bytes(flow, ended),
            Event::Flow { flow, version } if self.links.is_current(flow, version) => {
                self.links.end(flow);
                let job = self.links.job(flow);
                self.links.release(flow);
                self.part_done(job, ended);
            }
            Event::Delay { job } => self.part_done(job, ended),
            Event::Flow { .. } => {}
        }
        true
    }

    /// Unit `unit`'s steps are about to change now: its busy cores and its
    /// next end are settled once, before the clock moves on (a step that
    /// ends and the next that starts at once cost one).
    fn touch(&mut self, unit: usize) {
        if self.busy_before[unit] == CLEAN {
            self.busy_before[unit] = self.units[unit].busy();
            self.touched.push(unit);
        }
    }

    /// Settles what changed at this time: the busy cores and the next ends
    /// of the units touched, and the rates of the links touched.
    pub(crate) fn settle(&mut self) {
        if !self.touched.is_empty() {
            let mut touched = std::mem::take(&mut self.touched);
            for &unit in &touched {
                let before = std::mem::replace(&mut self.busy_before[unit], CLEAN);
                self.busy_cores = self.busy_cores + self.units[unit].busy() - before;
                self.reschedule(unit);
            }
            touched.clear();
            self.touched = touched;
            self.history.set(self.now, self.busy_cores);
        }
        if self.links.is_touched() {
            self.rerate();
        }
    }

    fn reschedule(&mut self, unit: usize) {
        let at = match self.units[unit].next_end(self.now) {
            Some(at) => {
                self.overflowed |= !at.is_finite();
                at
            }
            None => f64::INFINITY,
        };
        self.next_ends.set(unit, at);
    }

    /// A transfer's latency is over: its bytes join its links (one of no
    /// bytes ends).
    fn move_bytes(&mut self, f: usize, ended: &mut Vec<usize>) {
        if self.links.is_empty(f) {
            let job = self.links.job(f);
            self.links.release(f);
            self.part_done(job, ended);
            return;
        }
        self.links.start(f, self.now);
    }

    /// The rates after the starts and ends at this time, and the ends of
    /// the transfers whose rates they changed (the old ends are stale by
    /// version).
    fn rerate(&mut self) {
        self.links.rerate(self.now);
        let changed = std::mem::take(&mut self.links.changed);
        for &f in &changed {
            let (at, version) = self.links.due(f);
            self.push(at, Event::Flow { flow: f, version });
        }
        self.links.changed = changed;
    }
}

/// Each node's memory and its unit, added to `units` after the cores';
/// nothing when no node has a memory.
fn memories(machine: &Machine, units: &mut Vec<Cores>) -> Vec<Option<(Memory, usize)>> {
    let groups = machine.groups();
    if groups.iter().all(|g| g.memory.is_none()) {
        return Vec::new();
    }
    let mut memory = Vec::with_capacity(machine.nodes());
    for g in groups {
        for _ in 0..g.count {
            memory.push(g.memory.map(|m| {
                units.push(Cores::memory(m.lanes().min(g.cores as f64)));
                (m, units.len() - 1)
            }));
        }
    }
    memory
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids that ended at each time until nothing runs (a time's
    /// events together: pinned cores end their steps one by one).
    fn events(r: &mut Resources) -> Vec<(f64, Vec<usize>)> {
        let mut out: Vec<(f64, Vec<usize>)> = Vec::new();
        let mut ended = Vec::new();
        while r.advance(&mut ended) {
            match out.last_mut() {
                Some((t, ids)) if *t == r.now => ids.append(&mut ended),
                _ => out.push((r.now, std::mem::take(&mut ended))),
            }
        }
        for (_, ids) in &mut out {
            ids.sort_unstable();
        }
        out
    }

    #[test]
    fn a_step_runs_its_cores_part_then_its_memory_part() {
        // One lane, two cores: both cores' parts (50 ns) at once, then both
        // memory parts (50 ns each) at half speed.
        let m = Machine::new(1, 2).memory(Memory::new(20.0, 20.0));
        let mut r = Resources::new(&m, 0.0, false).unwrap();
        assert_eq!(r.compute_moving(0, 0, 100.0, (1000.0, false), 7), 100.0);
        assert_eq!(r.compute_moving(0, 1, 100.0, (1000.0, false), 8), 100.0);
        assert_eq!(events(&mut r), [(50.0, vec![]), (150.0, vec![7, 8])]);
        // Each core worked 50 ns and was held 50 more (its wait alone).
        assert_eq!(r.work, [200.0]);
    }

    #[test]
    fn a_step_waiting_on_memory_holds_its_core() {
        let m = Machine::new(1, 1).memory(Memory::new(20.0, 20.0));
        let mut r = Resources::new(&m, 0.0, false).unwrap();
        assert_eq!(r.compute_moving(0, 0, 100.0, (5000.0, false), 1), 100.0);
        // A compute step beside it waits for the one core.
        r.compute(0, 0, 30.0, 2);
        assert_eq!(events(&mut r), [(100.0, vec![1]), (130.0, vec![2])]);
        // With two cores it has one to itself.
        let m = Machine::new(1, 2).memory(Memory::new(20.0, 20.0));
        let mut r = Resources::new(&m, 0.0, false).unwrap();
        r.compute_moving(0, 0, 100.0, (5000.0, false), 1);
        r.compute(0, 0, 30.0, 2);
        assert_eq!(events(&mut r), [(30.0, vec![2]), (100.0, vec![1])]);
    }

    #[test]
    fn without_a_memory_or_bytes_a_step_is_a_compute_step() {
        for (machine, bytes) in [
            (Machine::new(1, 1), 1000.0),
            (Machine::new(1, 1).memory(Memory::new(20.0, 20.0)), 0.0),
        ] {
            let mut r = Resources::new(&machine, 0.0, false).unwrap();
            assert_eq!(r.compute_moving(0, 0, 100.0, (bytes, false), 3), 100.0);
            assert_eq!(events(&mut r), [(100.0, vec![3])]);
        }
    }

    #[test]
    fn each_node_waits_on_its_own_memory_pinned_or_not() {
        // Node 1 alone has a memory (two lanes' worth for three calls).
        let m =
            Machine::new(1, 3).node(crate::machine::Node::new(3).memory(Memory::new(40.0, 20.0)));
        for pinned in [false, true] {
            let mut r = Resources::new(&m, 0.0, pinned).unwrap();
            for core in 0..3 {
                r.compute_moving(0, core, 60.0, (600.0, false), core);
                r.compute_moving(1, core, 60.0, (600.0, false), 10 + core);
            }
            // Node 0: 60 ns. Node 1: 30 on the cores, then 30 of memory
            // each at 2/3: 45 more.
            let got = events(&mut r);
            assert_eq!(got[0], (30.0, vec![]), "pinned: {pinned}");
            assert_eq!(got[1], (60.0, vec![0, 1, 2]), "pinned: {pinned}");
            assert_eq!(got[2], (75.0, vec![10, 11, 12]), "pinned: {pinned}");
        }
    }
}
