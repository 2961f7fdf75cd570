//! Where a design's threads run: pinning them to cores.
//!
//! On a shared virtual machine each core has its own speed at any moment
//! (on the 2-core CI machine one core was slow while the other was fast in
//! about a third of the readings of a memory-bound kernel). Pinned, the
//! executor's threads run on known cores ([`Executor::pin_threads`]), so
//! that each core's speed can be read where the work runs.
//!
//! The rule that places threads: the design's threads are numbered in the
//! order of its text (left to right; a pool's workers one after another; a
//! `seq`'s parts on the thread of the `seq`), and thread `i` runs on core
//! `i mod cores` ([`Cores::core_of_thread`]).
//!
//! [`Executor::pin_threads`]: super::Executor::pin_threads

use core_affinity::CoreId;
use std::thread;

/// The cores a thread may run on, in the order threads are placed.
///
/// ```
/// use pattern_core::exec::Cores;
///
/// let cores = Cores::of_current_thread();
/// assert!(cores.len() >= 1);
/// // Thread 0 of a design runs on the first core, thread `len` again on it.
/// assert_eq!(cores.core_of_thread(0), 0);
/// assert_eq!(cores.core_of_thread(cores.len()), 0);
/// // Work can be sent to a core and its result brought back.
/// let answer = cores.run_on(cores.len() - 1, || 6 * 7);
/// assert_eq!(answer, 42);
/// ```
#[derive(Clone, Debug)]
pub struct Cores {
    ids: Vec<CoreId>,
}

impl Cores {
    /// The cores in the calling thread's affinity mask: all of the
    /// machine's, unless the process was started with `taskset` or the
    /// like, or the thread was pinned (then one). When the system does not
    /// tell, one core that pinning leaves alone.
    pub fn of_current_thread() -> Cores {
        Cores {
            ids: core_affinity::get_core_ids().unwrap_or_default(),
        }
    }

    /// How many cores (at least 1).
    pub fn len(&self) -> usize {
        self.ids.len().max(1)
    }

    /// The system's numbers of the cores, by position (empty when the
    /// system does not tell).
    pub fn ids(&self) -> Vec<usize> {
        self.ids.iter().map(|c| c.id).collect()
    }

    /// Never: there is always at least one core to run on.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The position (in `0..len()`) of the core that the design's thread
    /// number `thread` runs on: `thread mod len()`.
    pub fn core_of_thread(&self, thread: usize) -> usize {
        thread % self.len()
    }

    /// Pins the calling thread to the core at `position` (taken modulo
    /// [`Cores::len`]); `false` if the system refused or does not support
    /// it (the thread then runs where the scheduler puts it).
    pub fn pin_current(&self, position: usize) -> bool {
        match self.ids.get(position % self.len()) {
            Some(&id) => core_affinity::set_for_current(id),
            None => false,
        }
    }

    /// Runs `f` on a new thread pinned to the core at `position` and
    /// returns its result (re-raising its panic, if it panics).
    pub fn run_on<R: Send>(&self, position: usize, f: impl FnOnce() -> R + Send) -> R {
        thread::scope(|s| {
            let handle = s.spawn(move || {
                self.pin_current(position);
                f()
            });
            match handle.join() {
                Ok(r) => r,
                Err(payload) => std::panic::resume_unwind(payload),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_threads_run_where_asked() {
        let cores = Cores::of_current_thread();
        for position in 0..cores.len() {
            let mask = cores.run_on(position, || {
                core_affinity::get_core_ids().unwrap_or_default()
            });
            if !cores.ids.is_empty() {
                assert_eq!(mask, vec![cores.ids[position]]);
            }
        }
    }
}
