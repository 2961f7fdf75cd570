//! The step limit of a search: every branch and evaluation is a step,
//! an evaluation that costs more counts as many as it costs, and a counter
//! shows the steps to another thread.

use super::AllocationError;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering as Atomic};

/// The steps of each search against the limit: a search takes a step per
/// branch and per evaluation, and an objective whose evaluations grow with
/// the threads charges the rest ([`TimeModel::steps`](super::TimeModel::steps)).
/// The steps are added to a counter as they go, for a progress bar in
/// another thread, and all of them when the meter is dropped.
#[derive(Debug)]
pub(super) struct StepMeter<'c> {
    max: u64,
    taken: Cell<u64>,
    /// The steps already added to `counter`.
    reported: Cell<u64>,
    counter: Option<&'c AtomicU64>,
}

/// Steps are added to a [`StepMeter`]'s counter this many at a time.
const STEP_BATCH: u64 = 4096;

impl<'c> StepMeter<'c> {
    /// A meter of at most `max` steps, reported to `counter`.
    pub fn new(max: u64, counter: Option<&'c AtomicU64>) -> Self {
        StepMeter {
            max,
            taken: Cell::new(0),
            reported: Cell::new(0),
            counter,
        }
    }

    /// Takes `n` more steps: an error past the limit.
    pub fn take(&self, n: u64) -> Result<(), AllocationError> {
        let taken = self.taken.get().saturating_add(n);
        self.taken.set(taken);
        if taken > self.max {
            return Err(AllocationError::TooManySteps { limit: self.max });
        }
        if taken - self.reported.get() >= STEP_BATCH {
            self.report();
        }
        Ok(())
    }

    /// Starts a new search: its steps count from 0 (those taken so far
    /// stay reported).
    pub fn restart(&self) {
        self.report();
        self.taken.set(0);
        self.reported.set(0);
    }

    fn report(&self) {
        let taken = self.taken.get().min(self.max);
        if let Some(counter) = self.counter {
            counter.fetch_add(taken - self.reported.get(), Atomic::Relaxed);
        }
        self.reported.set(taken);
    }
}

impl Drop for StepMeter<'_> {
    fn drop(&mut self) {
        self.report();
    }
}
