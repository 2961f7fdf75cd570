//! A stream of elements through a design's [`Plan`] on one node: threads
//! take elements from queues, run their steps on the node's shared cores
//! ([`Cores`]), and put them into the next queue, waiting while it is full
//! (blocking after service). Elements are generated as they are taken and
//! forgotten when they leave: memory depends on the design, not on the
//! number of elements.

use super::SimError;
use super::busy::BusyHistory;
use super::cores::Cores;
use super::plan::{MAX_THREADS, Plan};
use super::variation::Variation;
use std::collections::VecDeque;

/// The source queue: every element is there from the start.
const SOURCE: usize = 0;
/// The sink: every element that leaves the design.
const SINK: usize = 1;

/// An element in flight: its number and when it entered the design.
#[derive(Clone, Copy, Debug)]
struct Item {
    entered: f64,
}

struct Station {
    steps: Vec<f64>,
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
}

struct Thread {
    station: usize,
    item: Item,
    step: usize,
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
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StreamStats {
    pub(crate) makespan: f64,
    pub(crate) time_per_element: f64,
    pub(crate) latencies: LatencyHistogram,
    pub(crate) history: BusyHistory,
    pub(crate) events: u64,
    pub(crate) threads: usize,
    pub(crate) work: f64,
}

/// Latencies in buckets 1 % wide (relative), for percentiles in bounded
/// memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LatencyHistogram {
    zero: u64,
    buckets: Vec<u64>,
    count: u64,
}

const BUCKET: f64 = 0.01;

impl LatencyHistogram {
    fn add(&mut self, latency: f64) {
        self.count += 1;
        if latency < 1e-3 {
            self.zero += 1;
            return;
        }
        // Bucket i holds [1e-3·1.01^i, 1e-3·1.01^(i+1)).
        let i = ((latency / 1e-3).ln() / BUCKET.ln_1p()) as usize;
        if self.buckets.len() <= i {
            self.buckets.resize(i + 1, 0);
        }
        self.buckets[i] += 1;
    }

    /// The `p`-th percentile (0 to 100), to within 1 %.
    pub(crate) fn percentile(&self, p: f64) -> Option<f64> {
        if self.count == 0 || !(0.0..=100.0).contains(&p) {
            return None;
        }
        let rank = ((p / 100.0) * self.count as f64).ceil().max(1.0) as u64;
        if rank <= self.zero {
            return Some(0.0);
        }
        let mut seen = self.zero;
        for (i, &n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                // The bucket's middle.
                return Some(1e-3 * ((i as f64 + 0.5) * BUCKET.ln_1p()).exp());
            }
        }
        None
    }
}

pub(crate) struct Stream {
    stations: Vec<Station>,
    queues: Vec<Queue>,
    threads: Vec<Thread>,
    /// Threads that must take their next item.
    free: Vec<usize>,
    cores: Cores,
    elements: usize,
    released: usize,
    left: usize,
    now: f64,
    /// Least squares of exit time on exit number over the middle half.
    fit: Slope,
    latencies: LatencyHistogram,
    history: BusyHistory,
    events: u64,
    work: f64,
    variation: Variation,
}

impl Stream {
    /// The stations and queues of `plan`, `buffer` places between two
    /// stages of a pipeline.
    pub(crate) fn new(
        plan: &Plan,
        cores: usize,
        elements: usize,
        buffer: usize,
        variation: Variation,
        overheads: Overheads,
    ) -> Result<Stream, SimError> {
        let mut queues: Vec<Queue> = vec![Queue::default(), Queue::default()];
        queues[SOURCE].capacity = usize::MAX;
        queues[SINK].capacity = usize::MAX;
        let mut stations: Vec<(Station, u64)> = Vec::new();
        let mut total: u64 = 0;
        // (plan, input, output, copies): explicit stack, no recursion.
        let mut work: Vec<(&Plan, usize, usize, u64)> = vec![(plan, SOURCE, SINK, 1)];
        while let Some((plan, input, output, copies)) = work.pop() {
            match plan {
                Plan::Stage(steps) => {
                    total = total.saturating_add(copies);
                    if total > MAX_THREADS {
                        return Err(SimError::TooManyThreads {
                            threads: total,
                            limit: MAX_THREADS,
                        });
                    }
                    let steps = steps.iter().map(|(_, d)| *d).collect();
                    stations.push((
                        Station {
                            steps,
                            input,
                            output,
                        },
                        copies,
                    ));
                }
                Plan::Pipe(stages) => {
                    let mut from = input;
                    for (i, stage) in stages.iter().enumerate() {
                        let to = if i + 1 == stages.len() {
                            output
                        } else {
                            queues.push(Queue {
                                capacity: buffer,
                                ..Queue::default()
                            });
                            queues.len() - 1
                        };
                        work.push((stage, from, to, copies));
                        from = to;
                    }
                }
                Plan::Pool(n, body) => {
                    let copies = copies.saturating_mul(*n);
                    match body.as_ref() {
                        // Workers of one stage share its input queue.
                        Plan::Stage(_) => work.push((body, input, output, copies)),
                        // Each worker runs its own copy of the pipeline; the
                        // copies share the pool's input and output.
                        body => {
                            if copies > MAX_THREADS {
                                return Err(SimError::TooManyThreads {
                                    threads: copies,
                                    limit: MAX_THREADS,
                                });
                            }
                            for _ in 0..copies {
                                work.push((body, input, output, 1));
                            }
                        }
                    }
                }
            }
        }
        // Each thread's program: the take from a queue that several threads
        // share, the steps, the hand-over to a next stage.
        let mut readers = vec![0u64; queues.len()];
        for (station, copies) in &stations {
            readers[station.input] = readers[station.input].saturating_add(*copies);
        }
        for (station, _) in stations.iter_mut() {
            if overheads.take > 0.0 && readers[station.input] > 1 {
                station.steps.insert(0, overheads.take);
            }
            if overheads.handoff > 0.0 && station.output != SINK {
                station.steps.push(overheads.handoff);
            }
        }
        let mut threads = Vec::new();
        let mut flat = Vec::with_capacity(stations.len());
        for (station, copies) in stations {
            for _ in 0..copies {
                threads.push(Thread {
                    station: flat.len(),
                    item: Item { entered: 0.0 },
                    step: 0,
                });
            }
            flat.push(station);
        }
        Ok(Stream {
            stations: flat,
            queues,
            threads,
            free: Vec::new(),
            cores: Cores::new(cores),
            elements,
            released: 0,
            left: 0,
            now: 0.0,
            fit: Slope::default(),
            latencies: LatencyHistogram::default(),
            history: BusyHistory::new(1.0),
            events: 0,
            work: 0.0,
            variation,
        })
    }

    pub(crate) fn run(mut self) -> Result<StreamStats, SimError> {
        self.free.extend((0..self.threads.len()).rev());
        self.take_all();
        let mut ended = Vec::new();
        while let Some(at) = self.cores.next_end(self.now) {
            self.now = at;
            self.events += 1;
            let before = self.cores.busy();
            self.cores.end_next(at, &mut ended);
            self.note_busy(before);
            for t in ended.drain(..) {
                self.step_done(t);
            }
            self.take_all();
        }
        if self.left < self.elements {
            // Unreachable for the plans the fold builds; never a hang.
            return Err(SimError::Unsupported {
                pattern: "a design that stalls",
            });
        }
        let time_per_element = self.fit.slope().unwrap_or(self.now / self.elements as f64);
        self.history.finish(self.now);
        Ok(StreamStats {
            makespan: self.now,
            time_per_element,
            latencies: self.latencies,
            history: self.history,
            events: self.events,
            threads: self.threads.len(),
            work: self.work,
        })
    }

    fn note_busy(&mut self, before: usize) {
        let after = self.cores.busy();
        if before != after {
            self.history.set(self.now, after);
        }
    }

    /// Every free thread takes the next item of its input, or waits; a
    /// worklist rather than recursion (freeing a place in a buffer frees
    /// the producer upstream, and so on up a pipeline of any length).
    fn take_all(&mut self) {
        while let Some(t) = self.free.pop() {
            self.take(t);
        }
    }

    /// Thread `t` is free: it takes the next item of its input, or waits.
    fn take(&mut self, t: usize) {
        let input = self.stations[self.threads[t].station].input;
        let item = if input == SOURCE {
            (self.released < self.elements).then(|| {
                self.released += 1;
                Item { entered: self.now }
            })
        } else {
            let item = self.queues[input].items.pop_front();
            if item.is_some() {
                // A place is free: the first blocked producer puts its item.
                if let Some((producer, waiting)) = self.queues[input].blocked.pop_front() {
                    self.queues[input].items.push_back(waiting);
                    self.free.push(producer);
                }
            }
            item
        };
        match item {
            Some(item) => self.begin(t, item),
            None if input == SOURCE => {} // the stream is over for this thread
            None => self.queues[input].takers.push_back(t),
        }
    }

    fn begin(&mut self, t: usize, item: Item) {
        self.threads[t].item = item;
        self.threads[t].step = 0;
        self.start_step(t);
    }

    fn start_step(&mut self, t: usize) {
        let thread = &self.threads[t];
        let station = &self.stations[thread.station];
        match station.steps.get(thread.step) {
            Some(&d) => {
                let d = self.variation.apply(d);
                let before = self.cores.busy();
                self.cores.start(self.now, d, t);
                self.work += d;
                self.note_busy(before);
            }
            None => self.put(t),
        }
    }

    fn step_done(&mut self, t: usize) {
        self.threads[t].step += 1;
        self.start_step(t);
    }

    /// Thread `t` has run its steps: the item goes to the output (to a
    /// waiting taker, into the buffer, or the thread blocks).
    fn put(&mut self, t: usize) {
        let output = self.stations[self.threads[t].station].output;
        let item = self.threads[t].item;
        if output == SINK {
            self.leave(item);
            self.free.push(t);
            return;
        }
        let q = &mut self.queues[output];
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
        self.latencies.add(self.now - item.entered);
        let (a, b) = marks(self.elements);
        if (a..=b).contains(&self.left) {
            self.fit.add((self.left - a) as f64, self.now);
        }
    }
}

/// The slope of a least-squares line through points added one at a time,
/// in constant memory: exits come in bursts where a pool's workers finish
/// together, and a slope through all of them does not depend on where the
/// measured stretch starts in a burst.
#[derive(Default)]
struct Slope {
    n: f64,
    origin: Option<f64>,
    sx: f64,
    sy: f64,
    sxx: f64,
    sxy: f64,
}

impl Slope {
    fn add(&mut self, x: f64, y: f64) {
        let y = y - *self.origin.get_or_insert(y);
        self.n += 1.0;
        self.sx += x;
        self.sy += y;
        self.sxx += x * x;
        self.sxy += x * y;
    }

    fn slope(&self) -> Option<f64> {
        let d = self.n * self.sxx - self.sx * self.sx;
        (self.n >= 2.0 && d > 0.0).then(|| (self.n * self.sxy - self.sx * self.sy) / d)
    }
}

/// The exits over which the steady state is measured: the middle half
/// (fill and drain left out).
fn marks(elements: usize) -> (usize, usize) {
    (elements / 4 + 1, elements - elements / 4)
}
