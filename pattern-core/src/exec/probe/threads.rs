//! The threads a probe measures with (pinned to a core, kept busy, timed by
//! their CPU clock) and its one statistic, the median.

use crate::exec::Cores;
use crate::fit::measure::thread_cpu_ns;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, Scope, ScopedJoinHandle};

/// A quantity's samples summed up: their median, ns, and how many.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Sampled {
    pub(super) median: f64,
    pub(super) samples: usize,
}

impl Sampled {
    /// The median of the finite `values` (the upper middle one of an even
    /// count, as the validation lab takes it); an error if there is none.
    pub(super) fn of(mut values: Vec<f64>) -> Result<Sampled, String> {
        values.retain(|v| v.is_finite());
        values.sort_by(f64::total_cmp);
        match values.get(values.len() / 2) {
            // A difference of two clock readings is never below 0 unless
            // a clock ran back; a cost is never below 0.
            Some(&median) => Ok(Sampled {
                median: median.max(0.0),
                samples: values.len(),
            }),
            None => Err("no sample could be taken".into()),
        }
    }
}

/// Starts `f` on a new thread of `s`, pinned to the core at `position`; an
/// error, not a panic, when the system refuses the thread.
pub(super) fn spawn_on<'s, 'e: 's, T: Send + 's>(
    s: &'s Scope<'s, 'e>,
    cores: &'e Cores,
    position: usize,
    f: impl FnOnce() -> T + Send + 's,
) -> Result<ScopedJoinHandle<'s, T>, String> {
    spawn(s, move || {
        cores.pin_current(position);
        f()
    })
}

/// Starts `f` on a new thread of `s`, where the scheduler puts it; an
/// error, not a panic, when the system refuses the thread.
pub(super) fn spawn<'s, T: Send + 's>(
    s: &'s Scope<'s, '_>,
    f: impl FnOnce() -> T + Send + 's,
) -> Result<ScopedJoinHandle<'s, T>, String> {
    thread::Builder::new()
        .name("pattern-probe".into())
        .spawn_scoped(s, f)
        .map_err(|e| format!("could not start a thread: {e}"))
}

/// The result of the thread `h`.
pub(super) fn join<T>(h: ScopedJoinHandle<'_, T>) -> Result<T, String> {
    h.join()
        .map_err(|_| "a measuring thread panicked".to_string())
}

/// Keeps the calling thread's core busy until `stop`.
pub(super) fn busy(stop: &AtomicBool) {
    let mut x = 0u64;
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..1024 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
    }
}

/// The calling thread's CPU time so far, ns, up to date
/// ([`thread_cpu_ns`]: the scheduler's own counter lags a running thread).
pub(super) fn cpu_ns() -> Option<f64> {
    thread_cpu_ns().map(|ns| ns as f64)
}

/// Whether threads can be pinned to each of `cores`: the system tells
/// which cores they are, and a thread may be pinned to every one.
pub(super) fn can_pin(cores: &Cores) -> bool {
    if cores.ids().is_empty() {
        return false;
    }
    thread::scope(|s| {
        let tried = thread::Builder::new()
            .name("pattern-probe".into())
            .spawn_scoped(s, || (0..cores.len()).all(|k| cores.pin_current(k)));
        tried.ok().and_then(|h| h.join().ok()).unwrap_or(false)
    })
}
