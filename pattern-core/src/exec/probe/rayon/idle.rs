//! What an idle rayon worker spends looking for work before it sleeps
//! ([`Waiting::spin_ns`]): a worker that finds no job yields its core some
//! rounds, then announces itself sleepy, then sleeps; that, and its
//! wake-up, is CPU time on its core.
//!
//! [`Waiting::spin_ns`]: crate::machine::Waiting::spin_ns

use super::super::spin::WAIT;
use super::super::threads::{Sampled, cpu_ns, join, spawn_on};
use super::pool;
use crate::exec::Cores;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

/// The CPU clock at the end of the last job, and the gaps so far.
#[derive(Default)]
struct Gaps {
    last_end: Option<f64>,
    gaps: Vec<f64>,
}

/// The CPU time of a rayon pool's one worker, on a core of its own (core
/// 1), between two jobs handed to it from core 0 [`WAIT`] apart, `samples`
/// times: a job reads the worker's CPU clock at its start and at its end;
/// a sample is the time from one job's end to the next one's start. An
/// error without a per-thread CPU clock.
pub(super) fn idle(cores: &Cores, samples: usize) -> Result<Sampled, String> {
    let pool = pool::of_one(cores, Some(1))?;
    let gaps = Arc::new(Mutex::new(Gaps::default()));
    thread::scope(|s| {
        let sender = spawn_on(s, cores, 0, || {
            for _ in 0..=samples {
                thread::sleep(WAIT);
                let gaps = Arc::clone(&gaps);
                pool.spawn(move || {
                    let start = cpu_ns();
                    let mut g = gaps.lock().unwrap_or_else(PoisonError::into_inner);
                    if let (Some(end), Some(start)) = (g.last_end, start) {
                        g.gaps.push(start - end);
                    }
                    g.last_end = cpu_ns();
                });
            }
            // The jobs handed to the pool run in turn: this one, last.
            pool.install(|| ());
        })?;
        join(sender)
    })?;
    let gaps = std::mem::take(&mut gaps.lock().unwrap_or_else(PoisonError::into_inner).gaps);
    if cpu_ns().is_none() {
        return Err("needs a per-thread CPU clock, which this system does not offer".into());
    }
    Sampled::of(gaps)
}
