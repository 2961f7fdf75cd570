//! A node's cores shared by processor sharing: `k` running steps on `c`
//! cores each progress at rate `min(1, c/k)`. All running steps progress
//! at the same rate, so the node keeps one virtual time (the work each has
//! done since the start) and a heap of the virtual times they end at: a
//! start or an end costs `O(log k)`.
//!
//! A node's memory is the same unit with a fractional capacity, its
//! `lanes` ([`Memory::lanes`]) at most its cores: `k` memory parts at once
//! each progress at `min(1, lanes/k)`, i.e. move `min(core, node/k)` bytes
//! per ns. A call waiting on memory holds its core ([`Cores::hold`]): the
//! steps running there share what the held cores leave.
//!
//! [`Memory::lanes`]: crate::machine::Memory::lanes

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A step's end as one integer that orders as (end, id) do: a virtual
/// time is a finite number `>= 0` (a sum of non-negative work), whose bits
/// order as it does; the heap then compares one integer, not two floats
/// by `total_cmp`.
fn key(end: f64, id: usize) -> u128 {
    // +0.0 for -0.0 (a duration of -0.0 passes the checks), so the bits order.
    let end = end + 0.0;
    (u128::from(end.to_bits()) << 64) | id as u128
}

/// The (end, id) of a [`key`].
fn unkey(k: u128) -> (f64, usize) {
    (f64::from_bits((k >> 64) as u64), k as u64 as usize)
}

/// The running steps of one node, each named by an id of its owner's
/// choosing (a task, a thread).
#[derive(Debug)]
pub(crate) struct Cores {
    /// The capacity: how many steps run at full speed at once.
    cores: f64,
    /// The cores it counts busy at most: `cores` as a count (a float's
    /// conversion on every start and end cost more than the rest of
    /// [`Cores::busy`]), 0 for a memory.
    count: usize,
    running: usize,
    /// Cores held by calls waiting on memory: busy, and running none of
    /// these steps.
    held: usize,
    /// `min(1, (cores − held)/running)`, kept as those change (a division
    /// less on every start and end).
    rate: f64,
    virtual_time: f64,
    updated: f64,
    /// The running steps' ends: virtual time and id, packed by [`key`].
    ends: BinaryHeap<Reverse<u128>>,
}

impl Cores {
    pub(crate) fn new(cores: usize) -> Cores {
        Cores {
            cores: cores as f64,
            count: cores,
            running: 0,
            held: 0,
            rate: 0.0,
            virtual_time: 0.0,
            updated: 0.0,
            ends: BinaryHeap::new(),
        }
    }

    /// A node's memory of `lanes` cores' worth of bandwidth: its steps
    /// share `lanes` (fractional) and keep no core busy.
    pub(crate) fn memory(lanes: f64) -> Cores {
        Cores {
            cores: lanes,
            count: 0,
            ..Cores::new(0)
        }
    }

    /// The cores busy now: the running steps and the held cores, at most
    /// the cores.
    pub(crate) fn busy(&self) -> usize {
        (self.running + self.held).min(self.count)
    }

    /// From `now` on, one more core held by a call waiting on memory.
    pub(crate) fn hold(&mut self, now: f64) {
        self.advance(now);
        self.held += 1;
        self.set_rate();
    }

    /// From `now` on, one core fewer held.
    pub(crate) fn release(&mut self, now: f64) {
        self.advance(now);
        self.held = self.held.saturating_sub(1);
        self.set_rate();
    }

    /// Whether every core runs a step, with `more` steps about to start
    /// beside the running ones: a thread woken now would wait.
    pub(crate) fn saturated(&self, more: usize) -> bool {
        (self.running + self.held + more) as f64 >= self.cores
    }

    fn set_rate(&mut self) {
        self.rate = if self.running == 0 {
            0.0
        } else {
            ((self.cores - self.held as f64).max(0.0) / self.running as f64).min(1.0)
        };
    }

    fn advance(&mut self, now: f64) {
        self.virtual_time += self.rate * (now - self.updated);
        self.updated = now;
    }

    /// Starts a step of `work` ns named `id` at `now`.
    pub(crate) fn start(&mut self, now: f64, work: f64, id: usize) {
        self.advance(now);
        self.ends.push(Reverse(key(self.virtual_time + work, id)));
        self.running += 1;
        self.set_rate();
    }

    /// When the next step ends if nothing starts before, or `None` when
    /// none runs.
    pub(crate) fn next_end(&self, now: f64) -> Option<f64> {
        let end = unkey(self.ends.peek()?.0).0;
        let rate = self.rate;
        (rate > 0.0).then(|| now + (end - self.virtual_time).max(0.0) / rate)
    }

    /// From `now` on, `cores` cores (0 holds every running step until
    /// cores come back).
    pub(crate) fn set_cores(&mut self, now: f64, cores: usize) {
        self.advance(now);
        self.cores = cores as f64;
        self.count = cores;
        self.set_rate();
    }

    /// Ends, at `now` (the time [`Cores::next_end`] gave), the next step and
    /// every other that ends at the same virtual time; their ids go to
    /// `ended`.
    pub(crate) fn end_next(&mut self, now: f64, ended: &mut Vec<usize>) {
        self.advance(now);
        if let Some(&Reverse(k)) = self.ends.peek() {
            let end = unkey(k).0;
            // Rounding may leave the clock a hair short of the end it was set for.
            self.virtual_time = self.virtual_time.max(end);
        }
        while let Some(&Reverse(k)) = self.ends.peek() {
            let (end, id) = unkey(k);
            if end > self.virtual_time {
                break;
            }
            self.ends.pop();
            self.running -= 1;
            ended.push(id);
        }
        self.set_rate();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memory_shares_fractional_lanes_and_keeps_no_core_busy() {
        // 1.5 lanes, three parts of 10 ns: each at 1/2, all end at 20.
        let mut m = Cores::memory(1.5);
        for id in 0..3 {
            m.start(0.0, 10.0, id);
        }
        assert_eq!(m.busy(), 0);
        assert_eq!(m.next_end(0.0), Some(20.0));
        let mut ended = Vec::new();
        m.end_next(20.0, &mut ended);
        assert_eq!(ended, [0, 1, 2]);
        // One alone goes at full speed, not 1.5.
        m.start(20.0, 10.0, 3);
        assert_eq!(m.next_end(20.0), Some(30.0));
    }
}
