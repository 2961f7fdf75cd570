//! A rayon worker woken on a core that another thread keeps busy: how long
//! a job handed to its pool waits before it runs
//! ([`Waiting::wake_latency_ns`]).
//!
//! [`Waiting::wake_latency_ns`]: crate::machine::Waiting::wake_latency_ns

use super::super::threads::{Sampled, busy, join, spawn_on};
use super::super::wake::PAUSE;
use super::pool;
use crate::exec::Cores;
use crossbeam_channel::bounded;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Instant;

/// The wake-up latency of a rayon worker on a busy core, `samples` times:
/// the one worker of a pool, pinned to core 0 that another thread keeps
/// busy, idle for [`PAUSE`] (asleep, or still yielding its core before it
/// sleeps), runs a job this long after a thread on core 1 handed it to the
/// pool (`pool.spawn`).
pub(super) fn latency(cores: &Cores, samples: usize) -> Result<Sampled, String> {
    let pool = pool::of_one(cores, Some(0))?;
    let stop = AtomicBool::new(false);
    let (to_waker, woken) = bounded::<f64>(1);
    let delays = thread::scope(|s| {
        let delays = (|| {
            spawn_on(s, cores, 0, || busy(&stop))?;
            let waker = spawn_on(s, cores, 1, || {
                let mut delays = Vec::with_capacity(samples);
                for _ in 0..samples {
                    thread::sleep(PAUSE);
                    let to_waker = to_waker.clone();
                    let sent = Instant::now();
                    pool.spawn(move || {
                        let _ = to_waker.send(sent.elapsed().as_nanos() as f64);
                    });
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
