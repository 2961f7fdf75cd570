//! A rayon worker woken for nothing on a core that another thread keeps
//! busy: what CPU time it takes from the busy thread
//! ([`Waiting::wake_cost_ns`]). rayon wakes a sleeping worker when another
//! pushes a job onto its own deque (a `join`'s second half), in case it can
//! steal it; when the owner takes the job back first, the woken worker
//! finds nothing, yields its core 33 times, and sleeps again. rayon has no
//! hook on that wake-up, so the worker's CPU clock is read from another
//! thread (Linux's `pthread_getcpuclockid`).
//!
//! [`Waiting::wake_cost_ns`]: crate::machine::Waiting::wake_cost_ns

use super::super::threads::{Sampled, busy, join, spawn_on};
use crate::exec::Cores;
use ::rayon::ThreadPoolBuilder;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

/// How long a woken worker may take to fall asleep again: its 33 yields
/// give the busy core back to the busy thread for a time slice each.
const FALLS_ASLEEP_WITHIN: Duration = Duration::from_secs(2);

/// A thread's CPU clock and its state, read from any thread.
#[derive(Clone, Copy, Debug)]
struct CpuClock {
    id: libc::clockid_t,
    tid: libc::pid_t,
}

impl CpuClock {
    /// The calling thread's, if the system gives it.
    fn of_current() -> Option<CpuClock> {
        let mut id: libc::clockid_t = 0;
        // SAFETY: `pthread_self` is the calling thread, alive during the
        // call, which only writes `id`.
        let ok = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) } == 0;
        // SAFETY: `gettid` has no arguments and cannot fail.
        let tid = unsafe { libc::gettid() };
        ok.then_some(CpuClock { id, tid })
    }

    /// Whether its thread sleeps (state `S` in `/proc`), as a rayon worker
    /// that found no work does; not when it runs or waits for a core.
    fn asleep(self) -> Result<bool, String> {
        let path = format!("/proc/self/task/{}/stat", self.tid);
        let stat = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next());
        Ok(state == Some('S'))
    }

    /// Waits until its thread sleeps, [`FALLS_ASLEEP_WITHIN`] at most.
    fn until_asleep(self) -> Result<(), String> {
        let start = std::time::Instant::now();
        while !self.asleep()? {
            if start.elapsed() > FALLS_ASLEEP_WITHIN {
                return Err(format!(
                    "a woken rayon worker did not fall asleep again within {} s",
                    FALLS_ASLEEP_WITHIN.as_secs()
                ));
            }
            thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }

    /// Its CPU time, ns, while its thread lives.
    fn ns(self) -> Option<f64> {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid, writable timespec; the call only writes
        // it, and fails (for a clock whose thread has ended) without harm.
        let ok = unsafe { libc::clock_gettime(self.id, &mut t) } == 0;
        ok.then_some(t.tv_sec as f64 * 1e9 + t.tv_nsec as f64)
    }
}

/// The CPU time a rayon worker woken for nothing takes from a busy core,
/// `samples` times: a pool of two workers, the first on core 1, the
/// second on core 0 which another thread keeps busy. Every `pause`, a
/// thread on core 1 hands the pool a `join` of two halves that do nothing
/// (`pool.install(|| rayon::join(|| (), || ()))`): the first worker takes
/// it, its second half wakes the sleeping second worker, and the first
/// worker takes that half back before the second, waiting for its busy
/// core, could steal it. A sample is the second worker's CPU time between
/// two hand-overs.
pub(super) fn cost(cores: &Cores, samples: usize, pause: Duration) -> Result<Sampled, String> {
    let clock = Arc::new(Mutex::new(None));
    let pool = {
        let (cores, clock) = (cores.clone(), Arc::clone(&clock));
        ThreadPoolBuilder::new()
            .num_threads(2)
            .thread_name(|_| "pattern-probe".into())
            .start_handler(move |i| {
                cores.pin_current(if i == 0 { 1 } else { 0 });
                if i == 1 {
                    *clock.lock().unwrap_or_else(PoisonError::into_inner) = CpuClock::of_current();
                }
            })
            .build()
            .map_err(|e| format!("could not start a rayon pool: {e}"))?
    };
    // Both workers have started (and the second read its clock's id).
    pool.broadcast(|_| ());
    let clock = (*clock.lock().unwrap_or_else(PoisonError::into_inner))
        .ok_or_else(|| "the system gives no CPU clock of a rayon worker".to_string())?;
    let stop = AtomicBool::new(false);
    let spent = thread::scope(|s| {
        let spent = (|| -> Result<Vec<f64>, String> {
            spawn_on(s, cores, 0, || busy(&stop))?;
            let driver = spawn_on(s, cores, 1, || {
                let mut spent = Vec::with_capacity(samples);
                let mut last = None;
                for _ in 0..=samples {
                    thread::sleep(pause);
                    clock.until_asleep()?;
                    let now = clock.ns();
                    if let (Some(before), Some(now)) = (last, now) {
                        spent.push(now - before);
                    }
                    last = now;
                    pool.install(|| ::rayon::join(|| (), || ()));
                }
                Ok::<_, String>(spent)
            })?;
            join(driver)?
        })();
        stop.store(true, Ordering::Relaxed);
        spent
    })?;
    Sampled::of(spent)
}
