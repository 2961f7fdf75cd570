//! rayon pools of one worker, as a probe builds them: the worker pinned to
//! a core where an experiment needs it there (through rayon's
//! `start_handler`), left where the scheduler puts it otherwise, as a plain
//! rayon program leaves its workers.

use crate::exec::Cores;
use ::rayon::{ThreadPool, ThreadPoolBuilder};

/// A pool of one worker, pinned to the core at `position` of `cores` if
/// given; an error, not a panic, when the system refuses the thread.
pub(super) fn of_one(cores: &Cores, position: Option<usize>) -> Result<ThreadPool, String> {
    let cores = cores.clone();
    ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(|_| "pattern-probe".into())
        .start_handler(move |_| {
            if let Some(p) = position {
                cores.pin_current(p);
            }
        })
        .build()
        .map_err(|e| format!("could not start a rayon pool: {e}"))
}
