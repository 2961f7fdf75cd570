//! How long a thread blocked on the executor's channel polls it before it
//! sleeps ([`Waiting::spin_ns`]): the channel (crossbeam's) spins and
//! yields a while before it parks the thread, and that polling is CPU time
//! the waiting thread spends on its core.
//!
//! [`Waiting::spin_ns`]: crate::machine::Waiting::spin_ns

use super::threads::{Sampled, cpu_ns, join, spawn_on};
use crate::exec::Cores;
use crossbeam_channel::bounded;
use std::thread;
use std::time::Duration;

/// How long each wait lasts: far longer than the channel polls, so that
/// every wait ends asleep.
pub(super) const WAIT: Duration = Duration::from_millis(1);

/// The CPU time of a receiver on a core of its own (core 1) over a wait of
/// [`WAIT`] for an element sent from core 0, `samples` times: its polling
/// before it sleeps, and its wake-up. An error without a per-thread CPU
/// clock.
pub(super) fn spin(cores: &Cores, samples: usize) -> Result<Sampled, String> {
    let (to_receiver, inbox) = bounded::<()>(1);
    let spent = thread::scope(|s| {
        let receiver = spawn_on(s, cores, 1, move || {
            let mut spent = Vec::with_capacity(samples);
            while let Some(before) = cpu_ns() {
                if inbox.recv().is_err() {
                    break;
                }
                if let Some(after) = cpu_ns() {
                    spent.push(after - before);
                }
            }
            spent
        })?;
        let sender = spawn_on(s, cores, 0, move || {
            for _ in 0..samples {
                thread::sleep(WAIT);
                if to_receiver.send(()).is_err() {
                    break;
                }
            }
        })?;
        join(sender)?;
        join(receiver)
    })?;
    Sampled::of(spent)
}
