//! A thread woken on a core that another thread keeps busy: how long it
//! waits before it runs ([`Waiting::wake_latency_ns`]) and, woken for
//! nothing, what CPU time it takes from the busy thread
//! ([`Waiting::wake_cost_ns`]). Both wake it through the executor's channel
//! (crossbeam's bounded channel), received as the executor receives when
//! its threads outnumber the cores: blocking at once.
//!
//! [`Waiting::wake_latency_ns`]: crate::machine::Waiting::wake_latency_ns
//! [`Waiting::wake_cost_ns`]: crate::machine::Waiting::wake_cost_ns

use super::threads::{Sampled, busy, cpu_ns, join, spawn_on};
use crate::exec::Cores;
use crossbeam_channel::bounded;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// The pause before each wake-up: long enough that the woken thread is
/// asleep again and the busy thread has its core to itself.
pub(super) const PAUSE: Duration = Duration::from_millis(2);

/// The pause between two wake-ups timed by the woken thread's CPU clock:
/// each must be over before the next, so at least twice the wake-up
/// latency, and no less than this.
pub(super) const SLOW_PAUSE: Duration = Duration::from_millis(4);

/// The longest pause between two wake-ups in vain, however long a wake-up
/// took: a bound on the probe's time.
const LONGEST_PAUSE: Duration = Duration::from_millis(100);

/// The pause between two wake-ups in vain for a measured wake-up latency
/// of `latency_ns` (if measured).
pub(super) fn slow_pause(latency_ns: Option<f64>) -> Duration {
    let twice = latency_ns.map_or(Duration::ZERO, |ns| {
        Duration::from_secs_f64((2.0 * ns / 1e9).clamp(0.0, 1.0))
    });
    twice.clamp(SLOW_PAUSE, LONGEST_PAUSE)
}

/// The wake-up latency on a busy core, `samples` times: a thread blocked
/// on a channel, pinned to core 0 that another thread keeps busy, runs
/// this long after a thread on core 1 sent it an element (each after
/// [`PAUSE`]).
pub(super) fn latency(cores: &Cores, samples: usize) -> Result<Sampled, String> {
    let stop = AtomicBool::new(false);
    let (to_sleeper, inbox) = bounded::<Instant>(1);
    let (to_waker, woken) = bounded::<f64>(1);
    let delays = thread::scope(|s| {
        let delays = (|| {
            spawn_on(s, cores, 0, || busy(&stop))?;
            spawn_on(s, cores, 0, move || {
                while let Ok(sent) = inbox.recv() {
                    let delay = sent.elapsed().as_nanos() as f64;
                    if to_waker.send(delay).is_err() {
                        break;
                    }
                }
            })?;
            let waker = spawn_on(s, cores, 1, move || {
                let mut delays = Vec::with_capacity(samples);
                for _ in 0..samples {
                    thread::sleep(PAUSE);
                    if to_sleeper.send(Instant::now()).is_err() {
                        break;
                    }
                    match woken.recv() {
                        Ok(d) => delays.push(d),
                        Err(_) => break,
                    }
                }
                delays
            })?;
            join(waker)
        })();
        // Whatever happened, the busy thread stops (the scope waits for it).
        stop.store(true, Ordering::Relaxed);
        delays
    })?;
    Sampled::of(delays)
}

/// The CPU time a thread woken for nothing takes from a busy core,
/// `samples` times: pinned to core 0, which another thread keeps busy, and
/// woken from core 1 every `pause`, it reads its CPU clock at each
/// wake-up; a sample is the time between two readings. The switches into
/// it and out of it cost the busy thread a little more, uncounted. An
/// error without a per-thread CPU clock.
pub(super) fn cost(cores: &Cores, samples: usize, pause: Duration) -> Result<Sampled, String> {
    let stop = AtomicBool::new(false);
    let (to_sleeper, inbox) = bounded::<()>(1);
    let spent = thread::scope(|s| {
        let spent = (|| {
            spawn_on(s, cores, 0, || busy(&stop))?;
            let sleeper = spawn_on(s, cores, 0, move || {
                let mut spent = Vec::with_capacity(samples);
                let mut last = None;
                while inbox.recv().is_ok() {
                    let now = cpu_ns();
                    if let (Some(before), Some(now)) = (last, now) {
                        spent.push(now - before);
                    }
                    last = now;
                }
                spent
            })?;
            let waker = spawn_on(s, cores, 1, move || {
                for _ in 0..=samples {
                    thread::sleep(pause);
                    if to_sleeper.send(()).is_err() {
                        break;
                    }
                }
            })?;
            join(waker)?;
            join(sleeper)
        })();
        stop.store(true, Ordering::Relaxed);
        spent
    })?;
    Sampled::of(spent)
}
