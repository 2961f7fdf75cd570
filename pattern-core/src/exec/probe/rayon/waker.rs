//! What handing a job to a rayon pool whose worker sleeps costs the thread
//! that hands it ([`Waiting::waker_cost_ns`]): rounds of work and a
//! `pool.spawn` of a job that does nothing, to a pool whose one worker
//! sleeps between jobs against one whose worker polls for them (a job of
//! its own that calls `rayon::yield_now` without end), as the executor's
//! experiment does with its channel.
//!
//! [`Waiting::waker_cost_ns`]: crate::machine::Waiting::waker_cost_ns

use super::super::threads::{Sampled, join, spawn_on};
use super::super::waker::{pairs_of, rounds};
use super::pool;
use crate::exec::Cores;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

/// How long the waker spins, untimed, before each round: longer than an
/// idle rayon worker looks for work (33 yields of its core, and its
/// wake-up: [`super::idle`] measures them, some 50 µs) before it sleeps,
/// so that a worker that sleeps is asleep at each hand-over. The timed
/// round is the executor's, as short, as little noisy.
const SETTLE: Duration = Duration::from_micros(250);

/// The median time of a block of rounds of work and a job handed from core
/// 0 to a pool whose one worker, on core 1, sleeps between jobs (`asleep`)
/// or polls for them.
fn block(cores: &Cores, asleep: bool) -> Result<f64, String> {
    let pool = pool::of_one(cores, Some(1))?;
    let stop = Arc::new(AtomicBool::new(false));
    if !asleep {
        let stop = Arc::clone(&stop);
        pool.spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if ::rayon::yield_now() != Some(::rayon::Yield::Executed) {
                    std::hint::spin_loop();
                }
            }
        });
    }
    let times = thread::scope(|s| {
        let sender = spawn_on(s, cores, 0, || {
            rounds(SETTLE, || {
                pool.spawn(|| {});
                true
            })
        })?;
        join(sender)
    });
    // The polling worker stops; the pool ends with its jobs.
    stop.store(true, Ordering::Relaxed);
    Sampled::of(times?).map(|s| s.median)
}

/// What handing a job to a rayon pool whose worker sleeps costs, over
/// pairs of blocks taken in turn, as the executor's experiment: each
/// pair's median round to a sleeping worker less its median round to a
/// polling one (at least 0); the median of the pairs.
pub(super) fn waker_cost(cores: &Cores, samples: usize) -> Result<Sampled, String> {
    pairs_of(samples, |asleep| block(cores, asleep))
}
