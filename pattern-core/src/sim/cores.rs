//! A node's cores shared by processor sharing: `k` running steps on `c`
//! cores each progress at rate `min(1, c/k)`. All running steps progress
//! at the same rate, so the node keeps one virtual time (the work each has
//! done since the start) and a heap of the virtual times they end at: a
//! start or an end costs `O(log k)`.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// A time or a virtual time, ordered totally (never NaN here).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Time(pub(crate) f64);

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

/// The running steps of one node, each named by an id of its owner's
/// choosing (a task, a thread).
#[derive(Debug)]
pub(crate) struct Cores {
    cores: f64,
    running: usize,
    virtual_time: f64,
    updated: f64,
    ends: BinaryHeap<Reverse<(Time, usize)>>,
}

impl Cores {
    pub(crate) fn new(cores: usize) -> Cores {
        Cores {
            cores: cores as f64,
            running: 0,
            virtual_time: 0.0,
            updated: 0.0,
            ends: BinaryHeap::new(),
        }
    }

    /// The cores busy now: the running steps, at most the cores.
    pub(crate) fn busy(&self) -> usize {
        self.running.min(self.cores as usize)
    }

    /// Whether every core runs a step, with `more` steps about to start
    /// beside the running ones: a thread woken now would wait.
    pub(crate) fn saturated(&self, more: usize) -> bool {
        (self.running + more) as f64 >= self.cores
    }

    fn rate(&self) -> f64 {
        if self.running == 0 {
            0.0
        } else {
            (self.cores / self.running as f64).min(1.0)
        }
    }

    fn advance(&mut self, now: f64) {
        self.virtual_time += self.rate() * (now - self.updated);
        self.updated = now;
    }

    /// Starts a step of `work` ns named `id` at `now`.
    pub(crate) fn start(&mut self, now: f64, work: f64, id: usize) {
        self.advance(now);
        self.ends
            .push(Reverse((Time(self.virtual_time + work), id)));
        self.running += 1;
    }

    /// When the next step ends if nothing starts before, or `None` when
    /// none runs.
    pub(crate) fn next_end(&self, now: f64) -> Option<f64> {
        let Reverse((Time(end), _)) = self.ends.peek()?;
        let rate = self.rate();
        (rate > 0.0).then(|| now + (end - self.virtual_time).max(0.0) / rate)
    }

    /// From `now` on, `cores` cores (0 holds every running step until
    /// cores come back).
    pub(crate) fn set_cores(&mut self, now: f64, cores: usize) {
        self.advance(now);
        self.cores = cores as f64;
    }

    /// Ends, at `now` (the time [`Cores::next_end`] gave), the next step and
    /// every other that ends at the same virtual time; their ids go to
    /// `ended`.
    pub(crate) fn end_next(&mut self, now: f64, ended: &mut Vec<usize>) {
        self.advance(now);
        if let Some(Reverse((Time(end), _))) = self.ends.peek() {
            // Rounding may leave the clock a hair short of the end it was set for.
            self.virtual_time = self.virtual_time.max(*end);
        }
        while let Some(&Reverse((Time(end), id))) = self.ends.peek() {
            if end > self.virtual_time {
                break;
            }
            self.ends.pop();
            self.running -= 1;
            ended.push(id);
        }
    }
}
