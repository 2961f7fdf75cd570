//! A shared-memory machine as the queueing semantics of designs sees it.

/// The machine a design runs on: its cores and the costs that the
/// composition operators leave out, measured on the machine (the
/// `contention` example measures them with the executor).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Machine {
    /// Cores that run the design's threads.
    pub cores: usize,
    /// Time (ns) to hand an element from one pipeline stage to the next:
    /// the steady-state time per element of `pipe(pass, pass)`.
    pub handoff: f64,
    /// Time (ns) a task pool's worker holds the shared queue to take an
    /// element.
    pub take: f64,
    /// Elements a channel between threads holds (the executor's default
    /// capacity, 4): with the threads, how many elements are in flight.
    pub buffer: usize,
}

impl Machine {
    /// A machine of `cores` cores with free hand-overs and the executor's
    /// channel capacity.
    pub fn new(cores: usize) -> Self {
        Self {
            cores,
            handoff: 0.0,
            take: 0.0,
            buffer: 4,
        }
    }

    /// Sets the hand-over time between pipeline stages (ns).
    pub fn handoff(mut self, ns: f64) -> Self {
        self.handoff = ns;
        self
    }

    /// Sets the time to take an element from a task pool's queue (ns).
    pub fn take(mut self, ns: f64) -> Self {
        self.take = ns;
        self
    }

    /// Sets the capacity of the channels between threads.
    pub fn buffer(mut self, elements: usize) -> Self {
        self.buffer = elements;
        self
    }
}
