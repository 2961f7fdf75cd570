//! What rayon's runtime costs per element where the stages do nothing:
//! the hand-over between two pipeline stages ([`Waiting::handoff_ns`]),
//! std threads joined by a crossbeam bounded channel as rayon's runtime
//! runs a pipeline (rayon has none), and the take of a pool from its
//! stream ([`Waiting::take_ns`]), a rayon pool consuming a channel with
//! `par_bridge`. Elements are one-int arrays, as the executor's runs pass;
//! threads unpinned, as a plain rayon program leaves them.
//!
//! [`Waiting::handoff_ns`]: crate::machine::Waiting::handoff_ns
//! [`Waiting::take_ns`]: crate::machine::Waiting::take_ns

use super::super::handoff::runs;
use super::super::threads::{Sampled, join, spawn};
use super::pool;
use crate::exec::{Cores, steady_window};
use ::rayon::iter::{ParallelBridge, ParallelIterator};
use crossbeam_channel::{TryRecvError, TrySendError, bounded};
use std::thread;
use std::time::Instant;

/// The capacity of the channel between two stages: the executor's and the
/// rayon runner's default.
pub(super) const CAPACITY: usize = 4;

/// The share of departures left out at each end of a run: the executor's
/// default steady state.
const TRIM: f64 = 0.1;

/// A stage that does nothing to its element.
fn pass(e: &mut Vec<i32>) {
    std::hint::black_box(e);
}

/// The elements of a run.
fn elements(n: usize) -> Vec<Vec<i32>> {
    (0..n).map(|_| vec![0]).collect()
}

/// The steady-state time per element of two std threads that pass
/// elements through a crossbeam `bounded(CAPACITY)` channel, each polling
/// it while it waits, over [`runs`]`(samples)` runs: their median. A run's
/// time per element is the average time between two departures from the
/// second stage, the first and last 10 % left out. The stages poll so that
/// neither sleeps: stages that do nothing and block park and wake a thread
/// at every element, and sleeping and waking are quantities of their own.
pub(super) fn handoff(samples: usize) -> Result<Sampled, String> {
    let (runs, n) = runs(samples);
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        times.push(pipeline(n)?);
    }
    Sampled::of(times)
}

/// One run of the two stages over `n` elements: its steady-state time per
/// element.
fn pipeline(n: usize) -> Result<f64, String> {
    let inputs = elements(n);
    let (to_second, inbox) = bounded::<Vec<i32>>(CAPACITY);
    let departures = thread::scope(|s| {
        let first = spawn(s, move || {
            for mut e in inputs {
                pass(&mut e);
                loop {
                    match to_second.try_send(e) {
                        Ok(()) => break,
                        Err(TrySendError::Full(back)) => e = back,
                        Err(TrySendError::Disconnected(_)) => return,
                    }
                    std::hint::spin_loop();
                }
            }
        })?;
        let second = spawn(s, move || {
            let mut out = Vec::with_capacity(n);
            let mut departures = Vec::with_capacity(n);
            loop {
                let mut e = match inbox.try_recv() {
                    Ok(e) => e,
                    Err(TryRecvError::Empty) => {
                        std::hint::spin_loop();
                        continue;
                    }
                    Err(TryRecvError::Disconnected) => break,
                };
                pass(&mut e);
                out.push(e);
                departures.push(Instant::now());
            }
            departures
        })?;
        join(first)?;
        join(second)
    })?;
    let (lo, hi) = steady_window(departures.len(), TRIM)
        .ok_or_else(|| "too few departures for a steady state".to_string())?;
    let span = departures[hi].duration_since(departures[lo]);
    Ok(span.as_nanos() as f64 / (hi - lo) as f64)
}

/// The time per element of a rayon pool of one worker taking elements
/// from a crossbeam channel with `par_bridge` (`pool.install(||
/// inbox.into_iter().par_bridge().for_each(..))`), the channel filled
/// beforehand so that no hand-over is waited for, over [`runs`]`(samples)`
/// runs: their median. A run is timed on the worker, from the start of its
/// loop to its end: the pool's wake-up is left out.
pub(super) fn take(cores: &Cores, samples: usize) -> Result<Sampled, String> {
    let (runs, n) = runs(samples);
    let pool = pool::of_one(cores, None)?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (to_pool, inbox) = bounded::<Vec<i32>>(n);
        for e in elements(n) {
            to_pool
                .send(e)
                .map_err(|_| "the pool's channel closed".to_string())?;
        }
        drop(to_pool);
        let took = pool.install(|| {
            let start = Instant::now();
            inbox
                .into_iter()
                .par_bridge()
                .for_each(|mut e| pass(&mut e));
            start.elapsed()
        });
        times.push(took.as_nanos() as f64 / n as f64);
    }
    Sampled::of(times)
}
