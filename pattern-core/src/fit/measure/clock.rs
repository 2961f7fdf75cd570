//! The clock: timing a closure ([`timed`]), what reading the clock costs
//! ([`timer_overhead_ns`]), and the time a thread waited for a CPU.

use super::stats;
use std::hint::black_box;
use std::time::Instant;

/// Back-to-back clock reads timed by [`timer_overhead_ns`].
const OVERHEAD_RUNS: usize = 10_001;

/// Calls `f` once and times it: its result and the time it took, in
/// nanoseconds. The clock is read once before the timed region, so that the
/// region does not pay for bringing the clock's code and data back into the
/// caches (after building a large input, that alone added about 20 ns to an
/// empty function's time). The result is returned, so it is dropped after
/// the clock stops.
///
/// What reading the clock costs ([`timer_overhead_ns`], 21–33 ns on the CI
/// machine) is in every timing: time many calls in one region for kernels
/// that short.
///
/// ```
/// use pattern_core::fit::measure::timed;
///
/// let data: Vec<u64> = (0..10_000).collect();
/// let (sum, ns) = timed(|| data.iter().sum::<u64>());
/// assert_eq!(sum, 49_995_000);
/// assert!(ns >= 0.0 && ns.is_finite());
/// // A stream of calls: the mean time per call.
/// let mut items = vec![1u32; 64];
/// let ((), total) = timed(|| items.iter_mut().for_each(|e| *e += 1));
/// let per_call = total / items.len() as f64;
/// assert!(per_call >= 0.0 && items.iter().all(|&e| e == 2));
/// ```
#[inline]
pub fn timed<R>(f: impl FnOnce() -> R) -> (R, f64) {
    black_box(Instant::now());
    let start = Instant::now();
    let out = f();
    let ns = start.elapsed().as_nanos() as f64;
    (out, ns)
}

/// The median time of an empty timed region — reading the clock at the
/// start and at the end — in nanoseconds, over 10,001 back-to-back pairs.
/// On the 2-core CI machine it is 21–33 ns (TSC clock source, `vDSO`
/// `clock_gettime`), which is all a one-call timing of an empty function
/// like `nop` measures.
pub fn timer_overhead_ns() -> f64 {
    black_box(Instant::now().elapsed());
    let mut times: Vec<f64> = (0..OVERHEAD_RUNS)
        .map(|_| {
            let start = Instant::now();
            black_box(start.elapsed()).as_nanos() as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    stats::quantile_sorted(&times, 0.5)
}

/// `elapsed` minus the time waited (at least zero), and whether there was
/// any.
pub(super) fn net_of_waiting(elapsed: f64, waited: Option<u64>) -> (f64, bool) {
    match waited {
        Some(w) if w > 0 => ((elapsed - w as f64).max(0.0), true),
        _ => (elapsed, false),
    }
}

/// The time this thread has spent runnable but waiting for a CPU, in
/// nanoseconds (`run_delay` of `/proc/thread-self/schedstat`); `None` where
/// it cannot be read.
pub(super) fn waited_ns() -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timed_returns_the_result_and_at_least_the_time_slept() {
        let (v, ns) = timed(|| {
            std::thread::sleep(Duration::from_micros(300));
            42
        });
        assert_eq!(v, 42);
        assert!(ns >= 300_000.0, "{ns}");
    }

    #[test]
    fn overhead_is_positive_and_finite() {
        let overhead = timer_overhead_ns();
        assert!(overhead.is_finite() && overhead > 0.0, "{overhead}");
    }

    #[test]
    fn waiting_is_subtracted() {
        assert_eq!(net_of_waiting(5_000.0, None), (5_000.0, false));
        assert_eq!(net_of_waiting(5_000.0, Some(0)), (5_000.0, false));
        assert_eq!(net_of_waiting(5_000.0, Some(3_000)), (2_000.0, true));
        assert_eq!(net_of_waiting(5_000.0, Some(9_000)), (0.0, true));
        if cfg!(target_os = "linux") {
            let a = waited_ns().expect("schedstat on Linux");
            assert!(waited_ns().unwrap() >= a);
        }
    }
}
