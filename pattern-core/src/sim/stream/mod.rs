//! A stream of elements through a design's [`Plan`]: threads take elements
//! from queues, do their stage's steps ([`Template`]) on the machine's
//! [`Resources`], and put them into the next queue, waiting while it is
//! full (blocking after service). Elements are generated as they are taken
//! and forgotten when they leave: memory depends on the design, not on the
//! number of elements (but for the queue between two phases, which holds
//! the whole stream, and a trace, when asked for). The source holds every
//! element from the start, or those that have arrived ([`arrivals`]).

use super::SimError;
use super::change::{Change, Changes};
use super::direct::StepTimer;
use super::graph::Work;
use super::plan::{MAX_THREADS, Plan};
use super::resources::Resources;
use super::stats::{Fit, LatencyHistogram, marks};
use super::template::{Leaf, Template};
use super::variation::Variation;
use crate::machine::Machine;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

/// The source queue: every element is there from the start, or comes
/// when it arrives ([`arrivals`]).
const SOURCE: usize = 0;
/// The sink: every element that leaves the design.
const SINK: usize = 1;
/// Ids from here on name the changes at a time, not steps.
const CHANGE: usize = usize::MAX / 2;
/// Ids from here on name a waiting thread's wake-up (`WAKE + thread`).
const WAKE: usize = CHANGE + CHANGE / 2;
/// Ids from here on name the CPU a wake-up that found nothing took, or
/// the one a thread took to wake a sleeping one (`EMPTY_WAKE + thread`).
const EMPTY_WAKE: usize = WAKE + CHANGE / 4;
/// The id of the next arrival's event.
const ARRIVAL: usize = EMPTY_WAKE + CHANGE / 4;

mod arrivals;
mod waiting;

pub(crate) use arrivals::Arrivals;

/// An element in flight: when it entered the design (arrived, with
/// arrivals), and where direct execution keeps its value.
#[derive(Clone, Copy, Debug)]
struct Item {
    entered: f64,
    slot: usize,
}

struct Station {
    template: Template,
    input: usize,
    output: usize,
}

#[derive(Default)]
struct Queue {
    items: VecDeque<Item>,
    capacity: usize,
    /// Threads waiting for an item, first come first served.
    takers: VecDeque<usize>,
    /// Threads waiting to put their item, first come first served.
    blocked: VecDeque<(usize, Item)>,
    /// Between two phases: closed until the whole stream has arrived.
    phase: Option<Phase>,
}

/// The queue after a phase: the arrivals, fitted for the phase's time per
/// element.
struct Phase {
    arrived: usize,
    fit: Fit,
}

struct Thread {
    station: usize,
    item: Item,
    /// Per step: the steps it still waits for, the parts still running,
    /// and when it started (traces only).
    waiting: Vec<u32>,
    parts: Vec<u32>,
    started: Vec<f64>,
    /// Its steps' ids are `base + step`.
    base: usize,
    /// Its number in the order of the design's text (the executor's, for
    /// pinning: core `pin mod cores`).
    pin: usize,
    retired: bool,
    /// Woken on a busy core: it runs when its wake-up latency is over, at
    /// this time (earlier wake-ups of a wait that ended are ignored).
    waking: Option<f64>,
    /// When it last started to wait for an item (it polls for
    /// the machine's spin from then on, then sleeps).
    since: f64,
}

/// A directly executed step that waits for the others starting with it
/// (`Direct::together`).
struct Together {
    label: usize,
    slot: usize,
    core: usize,
    node: usize,
    width: usize,
    ns: f64,
    bytes: f64,
    handed: bool,
    id: usize,
}

/// CPU time a thread spends moving an element, in ns: taking it from a
/// queue several threads share (a task pool's), handing it to the next stage
/// of a pipeline.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Overheads {
    pub(crate) take: f64,
    pub(crate) handoff: f64,
}

/// What a stream run measured.
pub(crate) struct StreamStats {
    pub(crate) makespan: f64,
    /// The slope of the exits over the window (each phase's added), if
    /// every window had enough exits.
    pub(crate) slope: Option<f64>,
    /// The most elements in flight at once: threads and buffer places.
    pub(crate) in_flight: usize,
    /// Each node's work for the elements' steps, in ns at its speed.
    pub(crate) element_work: Vec<f64>,
    pub(crate) latencies: LatencyHistogram,
    pub(crate) resources: Resources,
    pub(crate) trace: Vec<(Work, usize, f64, f64)>,
}

/// The options of a stream run.
pub(crate) struct Options<'d> {
    pub(crate) elements: usize,
    pub(crate) buffer: usize,
    pub(crate) variation: Variation,
    pub(crate) overheads: Overheads,
    pub(crate) cpu_per_byte: f64,
    pub(crate) changes: Changes,
    pub(crate) direct: Option<&'d mut dyn StepTimer>,
    pub(crate) measure_first: Option<usize>,
    pub(crate) direct_on_cores: bool,
    pub(crate) direct_together: bool,
    pub(crate) labels: &'d [String],
    pub(crate) trace: bool,
    /// Where the elements that have left are counted, as the run goes.
    pub(crate) progress: Option<&'d AtomicU64>,
    /// Durations vary (random or measured), or elements arrive at random:
    /// the slope is a least-squares line's, not the hull's.
    pub(crate) random: bool,
    /// When the elements arrive; `None`: all there from the start.
    pub(crate) arrivals: Option<Arrivals>,
    /// The machine's wake-up latency, in ns.
    pub(crate) wake_latency: f64,
    /// The machine's spin, in ns.
    pub(crate) spin: f64,
    /// The machine's wake cost, in ns.
    pub(crate) wake_cost: f64,
    /// The machine's waker cost, in ns.
    pub(crate) waker_cost: f64,
}

pub(crate) struct Stream<'d> {
    stations: Vec<Station>,
    queues: Vec<Queue>,
    threads: Vec<Thread>,
    /// The thread of every step id.
    owner: Vec<u32>,
    /// Each pool's station (for a pool of one stage) and working threads.
    pools: Vec<(Option<usize>, Vec<usize>)>,
    /// Threads that must take their next item.
    free: Vec<usize>,
    /// Threads woken late, not yet running (some may have run already).
    waking: Vec<usize>,
    /// Step ids that ended and are not handled yet.
    ended: Vec<usize>,
    resources: Resources,
    released: usize,
    left: usize,
    /// When the last element so far left.
    last_left: f64,
    /// The core number of the next thread added.
    next_pin: usize,
    fit: Fit,
    /// Each node's work for the elements' steps so far, in ns at its speed
    /// (a wait on memory, which holds its core, as its time alone).
    element_work: Vec<f64>,
    latencies: LatencyHistogram,
    trace: Option<Vec<(Work, usize, f64, f64)>>,
    /// Directly executed steps starting now, run together before the clock
    /// moves on.
    together: Vec<Together>,
    o: Options<'d>,
}

impl<'d> Stream<'d> {
    /// The stations and queues of `plan`, `buffer` places between two
    /// stages of a pipeline.
    pub(crate) fn new<'p>(
        plan: &'p Plan<Template>,
        machine: &Machine,
        pools: usize,
        o: Options<'d>,
    ) -> Result<Stream<'d>, SimError> {
        let mut queues: Vec<Queue> = vec![Queue::default(), Queue::default()];
        queues[SOURCE].capacity = usize::MAX;
        queues[SINK].capacity = usize::MAX;
        let mut stations: Vec<(Station, u64, Option<usize>)> = Vec::new();
        let mut total: u64 = 0;
        let too_many = |threads| SimError::TooManyThreads {
            threads,
            limit: MAX_THREADS,
        };
        // (plan, input, output, copies, pool): explicit stack, no recursion.
        let mut work = vec![(plan, SOURCE, SINK, 1u64, None)];
        while let Some((plan, input, output, copies, pool)) = work.pop() {
            let mut chain = |stages: &'p [Plan<Template>], capacity: usize, phases: bool| {
                let mut from = input;
                for (i, stage) in stages.iter().enumerate() {
                    let to = if i + 1 == stages.len() {
                        output
                    } else {
                        queues.push(Queue {
                            capacity,
                            phase: phases.then(|| Phase {
                                arrived: 0,
                                fit: Fit::new(o.random),
                            }),
                            ..Queue::default()
                        });
                        queues.len() - 1
                    };
                    work.push((stage, from, to, copies, None));
                    from = to;
                }
            };
            match plan {
                Plan::Stage(template) => {
                    let used = template.nodes_used();
                    if used > machine.nodes() {
                        return Err(SimError::NotEnoughNodes {
                            needed: used,
                            nodes: machine.nodes(),
                        });
                    }
                    total = total.saturating_add(copies);
                    if total > MAX_THREADS {
                        return Err(too_many(total));
                    }
                    let station = Station {
                        template: template.clone(),
                        input,
                        output,
                    };
                    stations.push((station, copies, pool));
                }
                Plan::Pipe(stages) => chain(stages, o.buffer, false),
                Plan::Phases(parts) => chain(parts, usize::MAX, true),
                Plan::Pool { id, n, body } => {
                    let copies = copies.saturating_mul(*n);
                    match body.as_ref() {
                        // Workers of one stage share its input queue.
                        Plan::Stage(_) => work.push((body, input, output, copies, Some(*id))),
                        // n workers each running a pool of m: n·m workers.
                        Plan::Pool { .. } => work.push((body, input, output, copies, None)),
                        // Each worker runs its own copy of the pipeline; the
                        // copies share the pool's input and output.
                        body => {
                            if copies > MAX_THREADS {
                                return Err(too_many(copies));
                            }
                            for _ in 0..copies {
                                work.push((body, input, output, 1, None));
                            }
                        }
                    }
                }
            }
        }
        // Each thread's program: the take from a queue that several threads
        // share, the steps, the hand-over to a next stage.
        let mut readers = vec![0u64; queues.len()];
        for (station, copies, _) in &stations {
            readers[station.input] = readers[station.input].saturating_add(*copies);
        }
        let ov = o.overheads;
        let mut s = Stream {
            stations: Vec::with_capacity(stations.len()),
            queues,
            threads: Vec::new(),
            owner: Vec::new(),
            pools: vec![(None, Vec::new()); pools],
            free: Vec::new(),
            waking: Vec::new(),
            ended: Vec::new(),
            resources: Resources::new(machine, o.cpu_per_byte, machine.waiting_costs().pinned)?,
            released: 0,
            left: 0,
            last_left: 0.0,
            next_pin: 0,
            fit: Fit::new(o.random),
            element_work: vec![0.0; machine.nodes()],
            latencies: LatencyHistogram::default(),
            trace: o.trace.then(Vec::new),
            together: Vec::new(),
            o,
        };
        for (mut station, copies, pool) in stations {
            let home = station.template.home();
            let step = |ns: f64| Leaf::Compute {
                node: home,
                width: 1,
                ns,
                bytes: 0.0,
                handed: false,
                label: usize::MAX,
                direct: false,
                lane: 0,
            };
            let take = (ov.take > 0.0 && readers[station.input] > 1).then(|| step(ov.take));
            let handoff = (ov.handoff > 0.0 && station.output != SINK).then(|| step(ov.handoff));
            station.template = station.template.around(take, handoff);
            let index = s.stations.len();
            s.stations.push(station);
            if let Some(id) = pool {
                s.pools[id].0 = Some(index);
            }
            for _ in 0..copies {
                s.spawn(index, pool);
            }
        }
        // The stations came off a stack, so the threads are numbered in
        // the reverse of the text's order (a pool's workers are alike); a
        // mapReduce's thread counts its workers, as the executor's helper
        // threads follow the calling one.
        let mut next = 0usize;
        for t in (0..s.threads.len()).rev() {
            s.threads[t].pin = next;
            let lanes = s.stations[s.threads[t].station].template.lanes();
            next = next.saturating_add(lanes);
        }
        s.next_pin = next;
        s.o.changes.check_design(machine.nodes(), pools)?;
        for i in 0..s.o.changes.len() {
            if let (_, Change::Workers { pool, .. }) = s.o.changes.get(i)
                && s.pools[pool].0.is_none()
            {
                return Err(SimError::InvalidChange {
                    change: format!("{:?}", s.o.changes.get(i)),
                    reason: "only a pool of one stage changes its workers".into(),
                });
            }
        }
        Ok(s)
    }

    /// A new thread of `station`, free to take.
    fn spawn(&mut self, station: usize, pool: Option<usize>) {
        let t = self.threads.len();
        // Workers added during the run come after every thread so far
        // (the design's are renumbered in text order once all exist).
        let pin = self.next_pin;
        let lanes = self.stations[station].template.lanes();
        self.next_pin = self.next_pin.saturating_add(lanes);
        let n = self.stations[station].template.leaves.len();
        let base = self.owner.len();
        self.owner.extend(std::iter::repeat_n(t as u32, n));
        self.threads.push(Thread {
            station,
            item: Item {
                entered: 0.0,
                slot: 0,
            },
            waiting: vec![0; n],
            parts: vec![0; n],
            started: if self.trace.is_some() {
                vec![0.0; n]
            } else {
                Vec::new()
            },
            base,
            pin,
            retired: false,
            waking: None,
            since: 0.0,
        });
        if let Some(id) = pool {
            self.pools[id].1.push(t);
        }
        self.free.push(t);
    }

    pub(crate) fn run(mut self) -> Result<StreamStats, SimError> {
        self.free.reverse();
        for (i, at) in self.o.changes.times() {
            self.resources.delay(at, CHANGE + i, &mut self.ended);
        }
        loop {
            loop {
                if let Some(t) = self.free.pop() {
                    self.take(t);
                } else if let Some(id) = self.ended.pop() {
                    self.step_ended(id);
                } else {
                    break;
                }
            }
            if self.wake_where_idle() {
                continue;
            }
            if !self.together.is_empty() {
                self.start_together();
            }
            if let Some(counter) = self.o.progress {
                counter.store(self.left as u64, Ordering::Relaxed);
            }
            let mut ended = std::mem::take(&mut self.ended);
            let more = self.resources.advance(&mut ended);
            self.ended = ended;
            if self.resources.overflowed {
                return Err(SimError::ClockOverflow {
                    left: self.o.elements - self.left,
                });
            }
            if !more {
                break;
            }
        }
        if self.left < self.o.elements {
            return Err(SimError::Stalled {
                left: self.o.elements - self.left,
            });
        }
        // The stream ends when its last element leaves, whatever is still
        // due (a change at a later time, a wake-up that finds nothing).
        let now = self.last_left;
        let mut slope = self.fit.slope();
        for q in &self.queues {
            if let Some(p) = &q.phase {
                slope = slope.zip(p.fit.slope()).map(|(a, b)| a + b);
            }
        }
        self.resources.history.finish(now);
        Ok(StreamStats {
            makespan: now,
            slope,
            in_flight: self.in_flight(),
            element_work: self.element_work,
            latencies: self.latencies,
            resources: self.resources,
            trace: self.trace.unwrap_or_default(),
        })
    }

    /// The most elements in flight at once: every thread (one element
    /// each, the workers added during the run counted) and every place of
    /// a pipeline's buffers (the queues between phases, which hold the
    /// whole stream, start a phase of their own).
    fn in_flight(&self) -> usize {
        (self.queues.iter().skip(2))
            .filter(|q| q.phase.is_none())
            .fold(self.threads.len(), |n, q| n.saturating_add(q.capacity))
    }

    /// Thread `t` is free: it takes the next item of its input, or waits.
    fn take(&mut self, t: usize) {
        if self.threads[t].retired {
            return;
        }
        let input = self.stations[self.threads[t].station].input;
        let item = if input == SOURCE {
            self.take_source()
        } else if self.queues[input].phase.is_some()
            && self.queues[input].phase.as_ref().map(|p| p.arrived) != Some(self.o.elements)
        {
            None // the phase before has not ended
        } else {
            self.pop(input)
        };
        match item {
            Some(item) => self.begin(t, item),
            None if input == SOURCE => self.wait_for_arrival(t),
            None => {
                self.threads[t].since = self.resources.now;
                self.queues[input].takers.push_back(t);
            }
        }
    }

    /// The first item of queue `q`; a place is then free, so the first
    /// blocked producer puts its item. A queue of no places (a rendezvous)
    /// holds no item: the first blocked producer hands its own over.
    fn pop(&mut self, q: usize) -> Option<Item> {
        let queue = &mut self.queues[q];
        let item = match queue.items.pop_front() {
            Some(item) => {
                if let Some((producer, waiting)) = queue.blocked.pop_front() {
                    queue.items.push_back(waiting);
                    self.free.push(producer);
                }
                item
            }
            None => {
                let (producer, item) = queue.blocked.pop_front()?;
                self.free.push(producer);
                item
            }
        };
        Some(item)
    }

    /// Runs the kernels of the steps that start now at the same time, and
    /// starts the steps with their durations.
    fn start_together(&mut self) {
        let labels = self.o.labels;
        let together = std::mem::take(&mut self.together);
        let calls: Vec<(&str, usize, usize)> = (together.iter())
            .map(|w| (labels[w.label].as_str(), w.slot, w.core))
            .collect();
        let measured = match &mut self.o.direct {
            Some(d) => d.run_together(&calls, self.o.measure_first),
            None => vec![None; calls.len()],
        };
        for (w, m) in together.iter().zip(measured) {
            let ns = self.o.variation.apply(m.unwrap_or(w.ns));
            for i in 0..w.width {
                let r = &mut self.resources;
                let alone = r.compute_moving(w.node + i, w.core, ns, (w.bytes, w.handed), w.id);
                self.element_work[w.node + i] += alone;
            }
        }
    }

    fn begin(&mut self, t: usize, item: Item) {
        let thread = &mut self.threads[t];
        thread.item = item;
        thread.waking = None;
        let template = &self.stations[thread.station].template;
        thread.waiting.copy_from_slice(&template.preds);
        self.start_step(t, 0);
    }

    fn start_step(&mut self, t: usize, step: u32) {
        let thread = &self.threads[t];
        let station = &self.stations[thread.station];
        let id = thread.base + step as usize;
        let (slot, pin) = (thread.item.slot, thread.pin);
        let now = self.resources.now;
        if let Some(started) = self.threads[t].started.get_mut(step as usize) {
            *started = now;
        }
        match station.template.leaves[step as usize] {
            Leaf::Compute {
                node,
                width,
                ns,
                bytes,
                handed,
                label,
                direct,
                lane,
            } => {
                // A mapReduce's workers run on the cores after their
                // thread's, as the executor pins them.
                let pin = pin.saturating_add(lane);
                if direct && self.o.direct_together && self.o.direct.is_some() {
                    self.threads[t].parts[step as usize] = width as u32;
                    self.together.push(Together {
                        label,
                        slot,
                        core: pin,
                        node,
                        width,
                        ns,
                        bytes,
                        handed,
                        id,
                    });
                    return;
                }
                let measured = match (&mut self.o.direct, direct) {
                    (Some(d), true) => {
                        let core = self.o.direct_on_cores.then_some(pin);
                        d.run(&self.o.labels[label], slot, core, self.o.measure_first)
                    }
                    _ => None,
                };
                let ns = self.o.variation.apply(measured.unwrap_or(ns));
                self.threads[t].parts[step as usize] = width as u32;
                for w in 0..width {
                    let alone =
                        (self.resources).compute_moving(node + w, pin, ns, (bytes, handed), id);
                    self.element_work[node + w] += alone;
                }
            }
            Leaf::Transfer { from, to, bytes } => {
                self.threads[t].parts[step as usize] = 1;
                if from != to {
                    let cpu = self.o.cpu_per_byte * bytes;
                    self.element_work[from] += cpu / self.resources.speed(from);
                    self.element_work[to] += cpu / self.resources.speed(to);
                }
                self.resources
                    .transfer(from, to, pin, bytes, id, &mut self.ended);
            }
            Leaf::Delay(ns) => {
                self.threads[t].parts[step as usize] = 1;
                self.resources.delay(ns, id, &mut self.ended);
            }
            Leaf::Noop => {
                self.threads[t].parts[step as usize] = 1;
                self.ended.push(id);
            }
        }
    }

    /// A part of a step ended: when its last has, the steps that waited
    /// for it start, or the element moves on.
    fn step_ended(&mut self, id: usize) {
        if id == ARRIVAL {
            self.arrived();
            return;
        }
        if id >= EMPTY_WAKE {
            self.rejoin(id - EMPTY_WAKE);
            return;
        }
        if id >= WAKE {
            self.woken(id - WAKE);
            return;
        }
        if id >= CHANGE {
            let (_, change) = self.o.changes.get(id - CHANGE);
            self.apply(change);
            return;
        }
        let t = self.owner[id] as usize;
        let thread = &mut self.threads[t];
        let step = (id - thread.base) as u32;
        thread.parts[step as usize] -= 1;
        if thread.parts[step as usize] > 0 {
            return;
        }
        let station = &self.stations[thread.station];
        if let Some(trace) = &mut self.trace {
            let start = thread.started[step as usize];
            let now = self.resources.now;
            match station.template.leaves[step as usize] {
                Leaf::Compute {
                    node, width, label, ..
                } => {
                    for w in 0..width {
                        let work = Work::Compute {
                            node: node + w,
                            duration: now - start,
                        };
                        trace.push((work, label, start, now));
                    }
                }
                Leaf::Transfer { from, to, bytes } if from != to => {
                    trace.push((Work::Transfer { from, to, bytes }, usize::MAX, start, now));
                }
                _ => {}
            }
        }
        if step == station.template.exit {
            self.put(t);
            return;
        }
        for i in 0..station.template.successors(step).len() {
            let s = self.stations[self.threads[t].station]
                .template
                .successors(step)[i];
            let w = &mut self.threads[t].waiting[s as usize];
            *w -= 1;
            if *w == 0 {
                self.start_step(t, s);
            }
        }
    }

    fn apply(&mut self, change: Change) {
        match change {
            Change::Cores { node, cores } => self.resources.set_cores(node, cores),
            Change::Workers { pool, workers } => {
                let Some(station) = self.pools[pool].0 else {
                    return;
                };
                let working = self.pools[pool].1.len();
                for _ in working..workers {
                    self.spawn(station, Some(pool));
                }
                for _ in workers..working {
                    if let Some(t) = self.pools[pool].1.pop() {
                        self.threads[t].retired = true;
                        let input = self.stations[station].input;
                        self.queues[input].takers.retain(|&w| w != t);
                    }
                }
            }
        }
    }

    /// Thread `t` has done its steps: the item goes to the output (to a
    /// waiting taker, into the buffer, or the thread blocks).
    fn put(&mut self, t: usize) {
        let output = self.stations[self.threads[t].station].output;
        let item = self.threads[t].item;
        if output == SINK {
            self.leave(item);
            self.free.push(t);
            return;
        }
        let now = self.resources.now;
        let elements = self.o.elements;
        let q = &mut self.queues[output];
        if let Some(p) = &mut q.phase {
            p.arrived += 1;
            let (a, b) = marks(elements);
            if (a..=b).contains(&p.arrived) {
                p.fit.add((p.arrived - a) as f64, now);
            }
            q.items.push_back(item);
            if p.arrived == elements {
                // The phase is over: the next one starts.
                self.free.extend(q.takers.drain(..));
            }
            self.free.push(t);
            return;
        }
        if (self.o.wake_latency > 0.0 || self.o.waker_cost > 0.0) && !q.takers.is_empty() {
            self.put_waking(t, output, item);
            return;
        }
        if let Some(taker) = q.takers.pop_front() {
            self.begin(taker, item);
            self.free.push(t);
        } else if q.items.len() < q.capacity {
            q.items.push_back(item);
            self.free.push(t);
        } else {
            q.blocked.push_back((t, item));
        }
    }

    fn leave(&mut self, item: Item) {
        self.left += 1;
        self.last_left = self.resources.now;
        if let Some(d) = &mut self.o.direct {
            d.leave(item.slot);
        }
        let now = self.resources.now;
        self.latencies.add(now - item.entered);
        let (a, b) = marks(self.o.elements);
        if (a..=b).contains(&self.left) {
            self.fit.add((self.left - a) as f64, now);
        }
        for i in self.o.changes.after_elements(self.left) {
            let (_, change) = self.o.changes.get(i);
            self.apply(change);
        }
    }
}
