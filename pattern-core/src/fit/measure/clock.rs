//! The clock: timing a closure ([`timed`]), what reading the clock costs
//! ([`timer_overhead_ns`]), the CPU time of the calling thread
//! ([`thread_cpu_ns`]), and the time a thread waited for a CPU.

use super::stats;
use std::hint::black_box;
use std::time::Instant;

/// Back-to-back clock reads timed by [`timer_overhead_ns`].
const OVERHEAD_RUNS: usize = 10_001;

/// Calls `f` once and times it: its result and the time it took, in
/// nanoseconds. The clock is read once before the timed region, so that the
/// region does not pay for bringing the clock's code and data back into the
/// caches (after building a large input, that alone added tens of ns to an
/// empty function's time). The result is returned, so it is dropped after
/// the clock stops.
///
/// What reading the clock costs ([`timer_overhead_ns`], tens of ns with a
/// fast clock source) is in every timing: time many calls in one region for kernels
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
/// With a fast clock source (the TSC read through the `vDSO`'s
/// `clock_gettime`) it is tens of ns, which is all a one-call timing of an
/// empty function like `nop` measures.
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

/// The CPU time of the calling thread so far, in nanoseconds, up to date
/// (`CLOCK_THREAD_CPUTIME_ID`); `None` where it cannot be read (outside
/// Linux).
///
/// Not the first field of `/proc/thread-self/schedstat`: the scheduler
/// brings a running thread's counter up to date only at its tick or when
/// the thread stops running, so a thread reading its own is behind by up
/// to a tick: a thread busy for less than a few ticks reads only part of
/// its time there, the rest showing up as time stolen by the hypervisor;
/// this clock reads all of it.
///
/// ```
/// use pattern_core::fit::measure::thread_cpu_ns;
///
/// if let Some(before) = thread_cpu_ns() {
///     let sum: u64 = (0..1_000_000u64).map(std::hint::black_box).sum();
///     assert!(sum > 0 && thread_cpu_ns().unwrap() >= before);
/// }
/// ```
pub fn thread_cpu_ns() -> Option<u64> {
    thread_cpu_clock()
}

#[cfg(target_os = "linux")]
fn thread_cpu_clock() -> Option<u64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the call only writes it.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    let secs = u64::try_from(t.tv_sec).ok()?;
    let nanos = u64::try_from(t.tv_nsec).ok()?;
    ok.then(|| secs.checked_mul(1_000_000_000)?.checked_add(nanos))
        .flatten()
}

#[cfg(not(target_os = "linux"))]
fn thread_cpu_clock() -> Option<u64> {
    None
}

/// The time this thread has spent runnable but waiting for a CPU, in
/// nanoseconds (`run_delay` of `/proc/thread-self/schedstat`); `None` where
/// it cannot be read.
pub(crate) fn waited_ns() -> Option<u64> {
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
    fn a_busy_threads_cpu_time_is_up_to_date() {
        // The scheduler's counter of a running thread moves only at its
        // tick or when the thread stops running: read by a busy thread it
        // stands still for milliseconds. This clock moves with the work itself: each of twenty
        // pieces of work shows in it, and it never runs ahead of the wall
        // clock around it, however loaded the machine.
        assert_eq!(thread_cpu_ns().is_some(), cfg!(target_os = "linux"));
        let start = Instant::now();
        let Some(first) = thread_cpu_ns() else {
            return;
        };
        let mut last = first;
        for piece in 0..20 {
            let mut x = 0u64;
            for i in 0..100_000u64 {
                x = black_box(x.wrapping_add(i));
            }
            let now = thread_cpu_ns().unwrap();
            assert!(now > last, "piece {piece}: {now} after {last}");
            last = now;
        }
        let cpu = (last - first) as f64;
        let wall = start.elapsed().as_nanos() as f64;
        // (the two clocks tick apart by parts per million)
        assert!(cpu <= wall * 1.001 + 1e3, "{cpu} ns of CPU in {wall} ns");
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
