//! The kernel calls of a run, for the parallelism it reached
//! ([`Metrics::max_in_flight`](super::Metrics::max_in_flight)): each thread
//! writes when its calls began and ended into a log of its own, and the
//! largest number of calls running at once is counted after the run.
//!
//! A counter of the calls in flight, shared by every thread, is what the
//! runners had first: two stages of `pipe(inc, inc)` then wrote one cache
//! line on every call, and the rayon runner ran the pipeline 20–25 % slower
//! than the same program written by hand (benches/rayon_skeleton.rs). A
//! log per thread is written only by its thread.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Each run's logs have a number of their own, so that a thread that
/// served an earlier run (a pool's worker, a thread of the caller's) opens
/// a new log for this one.
static RUNS: AtomicU64 = AtomicU64::new(0);

/// One thread's calls: (began, ended), ns since the run's start.
type Log = Arc<Mutex<Vec<(u64, u64)>>>;

thread_local! {
    /// The calling thread's log and the run it belongs to.
    static OWN: RefCell<Option<(u64, Log)>> = const { RefCell::new(None) };
}

/// The logs of one run's threads.
pub(crate) struct Calls {
    run: u64,
    start: Instant,
    logs: Mutex<Vec<Log>>,
}

impl Calls {
    pub(crate) fn new() -> Calls {
        Calls {
            run: RUNS.fetch_add(1, Ordering::Relaxed),
            start: Instant::now(),
            logs: Mutex::new(Vec::new()),
        }
    }

    /// Runs `f` as a call, written into the calling thread's log.
    pub(crate) fn time<R>(&self, f: impl FnOnce() -> R) -> R {
        let began = self.elapsed_ns();
        let result = f();
        let ended = self.elapsed_ns();
        OWN.with(|own| {
            let mut own = own.borrow_mut();
            if !matches!(&*own, Some((run, _)) if *run == self.run) {
                let log = Log::default();
                (self.logs.lock().unwrap_or_else(PoisonError::into_inner)).push(Arc::clone(&log));
                *own = Some((self.run, log));
            }
            if let Some((_, log)) = &*own {
                (log.lock().unwrap_or_else(PoisonError::into_inner)).push((began, ended));
            }
        });
        result
    }

    /// When the run's clock started.
    pub(crate) fn start(&self) -> Instant {
        self.start
    }

    /// ns since the run's clock started.
    pub(crate) fn elapsed_ns(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// The largest number of calls that ran at once: a call that ended
    /// when another began did not overlap it.
    pub(crate) fn max_in_flight(&self) -> usize {
        let logs = self.logs.lock().unwrap_or_else(PoisonError::into_inner);
        // (time, +1 for a start, -1 for an end), ends first at a tie.
        let mut events: Vec<(u64, i8)> = Vec::new();
        for log in logs.iter() {
            let log = log.lock().unwrap_or_else(PoisonError::into_inner);
            events.extend(log.iter().flat_map(|&(b, e)| [(b, 1), (e, -1)]));
        }
        // Each thread's calls come one after another, so its events are
        // already in order: a stable sort merges the threads' runs
        // (n·log(threads)) where an unstable one would sort all n anew.
        events.sort();
        let (mut now, mut most) = (0usize, 0usize);
        for (_, step) in events {
            if step > 0 {
                now += 1;
                most = most.max(now);
            } else {
                now = now.saturating_sub(1);
            }
        }
        most
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;

    #[test]
    fn calls_that_overlap_are_counted_together() {
        let calls = Calls::new();
        let met = Barrier::new(3);
        std::thread::scope(|s| {
            for _ in 0..3 {
                // Each call waits inside for the other two: all three overlap.
                s.spawn(|| calls.time(|| met.wait()));
            }
        });
        calls.time(|| ());
        assert_eq!(calls.max_in_flight(), 3);
    }

    #[test]
    fn calls_one_after_another_are_one_in_flight() {
        let calls = Calls::new();
        for _ in 0..5 {
            calls.time(|| ());
        }
        assert_eq!(calls.max_in_flight(), 1);
        assert_eq!(Calls::new().max_in_flight(), 0);
    }

    #[test]
    fn a_thread_opens_a_new_log_for_each_run() {
        let first = Calls::new();
        first.time(|| ());
        let second = Calls::new();
        second.time(|| ());
        second.time(|| ());
        assert_eq!(first.logs.lock().unwrap()[0].lock().unwrap().len(), 1);
        assert_eq!(second.logs.lock().unwrap()[0].lock().unwrap().len(), 2);
    }
}
