//! What waking a thread asleep on a free core costs the thread that hands
//! it an element ([`Waiting::waker_cost_ns`]): rounds of work and a
//! hand-over through the executor's channel, to a receiver that sleeps
//! between elements against one that polls. On a virtual machine a halted
//! virtual core is woken through the hypervisor, and the waker pays for it.
//!
//! [`Waiting::waker_cost_ns`]: crate::machine::Waiting::waker_cost_ns

use super::threads::{Sampled, join, spawn_on};
use crate::exec::Cores;
use crossbeam_channel::bounded;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Rounds of work and hand-over in a block; a sample is a pair of blocks.
pub(super) const ROUNDS: usize = 50;

/// The fewest pairs of blocks.
const FEWEST_PAIRS: usize = 3;

/// How many pairs of blocks `samples` ask for.
pub(super) fn pairs(samples: usize) -> usize {
    samples.div_ceil(ROUNDS).max(FEWEST_PAIRS)
}

/// The work between two hand-overs: 60 passes over 64 KiB, in the cache,
/// longer than the channel polls before it parks a thread ([`super::spin`]
/// measures that), so that a receiver that blocks is asleep at each
/// hand-over.
fn between_hand_overs(v: &mut [u32]) {
    for _ in 0..60 {
        for e in v.iter_mut() {
            *e = e.wrapping_add(1);
        }
        std::hint::black_box(&mut *v);
    }
}

/// The median time of [`ROUNDS`] rounds of work and a hand-over, from core
/// 0 to a receiver on core 1 that blocks on the channel (`asleep`) or
/// polls it without end.
fn block(cores: &Cores, asleep: bool) -> Result<f64, String> {
    let (to_receiver, inbox) = bounded::<()>(1);
    let stop = AtomicBool::new(false);
    let times = thread::scope(|s| {
        let times = (|| {
            let stop = &stop;
            spawn_on(s, cores, 1, move || {
                if asleep {
                    while inbox.recv().is_ok() {}
                } else {
                    while !stop.load(Ordering::Relaxed) {
                        if inbox.try_recv().is_err() {
                            std::hint::spin_loop();
                        }
                    }
                }
            })?;
            let sender = spawn_on(s, cores, 0, move || {
                rounds(Duration::ZERO, || to_receiver.send(()).is_ok())
            })?;
            join(sender)
        })();
        // The polling receiver stops (the scope waits for it).
        stop.store(true, Ordering::Relaxed);
        times
    })?;
    Sampled::of(times).map(|s| s.median)
}

/// The times of [`ROUNDS`] rounds of work and a hand-over by `hand_over`,
/// on the calling thread; fewer if a hand-over fails (`false`). Before
/// each round, untimed, the thread spins for `settle` on its core (without
/// halting it), so that a receiver slower to fall asleep than the channel's
/// is asleep at the hand-over.
pub(super) fn rounds(settle: Duration, mut hand_over: impl FnMut() -> bool) -> Vec<f64> {
    let mut v = vec![1u32; 16 * 1024];
    let mut times = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let settling = Instant::now();
        while settling.elapsed() < settle {
            std::hint::spin_loop();
        }
        let start = Instant::now();
        between_hand_overs(&mut v);
        if !hand_over() {
            break;
        }
        times.push(start.elapsed().as_nanos() as f64);
    }
    times
}

/// What waking a thread asleep on a free core costs the waker, over
/// [`pairs`] pairs of blocks taken in turn: each pair's median round to a
/// receiver that sleeps less its median round to one that polls (at least
/// 0); the median of the pairs.
pub(super) fn waker_cost(cores: &Cores, samples: usize) -> Result<Sampled, String> {
    pairs_of(samples, |asleep| block(cores, asleep))
}

/// Over [`pairs`]`(samples)` pairs of `block(false)` (to a polling
/// receiver) then `block(true)` (to a sleeping one), each a median round:
/// the median of their differences (each at least 0).
pub(super) fn pairs_of(
    samples: usize,
    block: impl Fn(bool) -> Result<f64, String>,
) -> Result<Sampled, String> {
    let mut costs = Vec::with_capacity(pairs(samples));
    for _ in 0..pairs(samples) {
        let polled = block(false)?;
        let asleep = block(true)?;
        costs.push((asleep - polled).max(0.0));
    }
    Sampled::of(costs)
}
