//! Where a design's threads run: pinning them to cores.
//!
//! On a shared virtual machine each core has its own speed at any moment
//! (the hypervisor lends each one out on its own; docs/validation.md
//! reports how often they differ on the machine it measured). Pinned, the
//! executor's threads run on known cores ([`Executor::pin_threads`]), so
//! that each core's speed can be read where the work runs.
//!
//! The rule that places threads: the design's threads are numbered in the
//! order of its text (left to right; a pool's workers one after another; a
//! `seq`'s parts on the thread of the `seq`), and thread `i` runs on core
//! `i mod cores` ([`Cores::core_of_thread`]).
//!
//! [`Executor::pin_threads`]: super::Executor::pin_threads

use crate::machine::Machine;
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

    /// These cores as a machine: a view of this computer as one node of
    /// [`Cores::len`] cores at speed 1, its network unused and its waiting
    /// free ([`probe::measure`](super::probe::measure) measures what
    /// waiting costs here).
    ///
    /// ```
    /// use pattern_core::exec::Cores;
    ///
    /// let cores = Cores::of_current_thread();
    /// let m = cores.machine();
    /// assert_eq!((m.nodes(), m.cores()), (1, cores.len()));
    /// assert!(m.check().is_ok() && !m.has_waiting());
    /// ```
    pub fn machine(&self) -> Machine {
        Machine::new(1, self.len())
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

    /// Runs `f` with the calling thread allowed on every one of these
    /// cores, then pins it to the core at `position` again. Threads that
    /// `f` spawns inherit the wider mask: a thread spawned by a pinned
    /// thread would otherwise start on its spawner's core and wait there
    /// for it, as long as the spawner keeps that core busy, before it could
    /// pin itself elsewhere. Only where the system lets a thread set a set of cores
    /// (Linux); elsewhere `f` runs as it is.
    pub fn spawning<R>(&self, position: usize, f: impl FnOnce() -> R) -> R {
        let widened = self.allow_all();
        let r = f();
        if widened {
            self.pin_current(position);
        }
        r
    }

    /// Lets the calling thread run on every one of these cores; `false` if
    /// the system refused or cannot.
    #[cfg(target_os = "linux")]
    fn allow_all(&self) -> bool {
        if self.ids.is_empty() {
            return false;
        }
        // SAFETY: `cpu_set_t` is plain data, zeroed is the empty set;
        // `CPU_SET` checks the index against the set's size; the call reads
        // the set it is given, for the calling thread (0).
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for id in &self.ids {
                libc::CPU_SET(id.id, &mut set);
            }
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn allow_all(&self) -> bool {
        false
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

    /// A thread spawned by a pinned thread inherits its one core, unless
    /// spawned inside `spawning`: then it may run on every core, and the
    /// spawner is pinned again afterwards.
    #[test]
    fn threads_spawned_while_spawning_may_run_on_every_core() {
        let cores = Cores::of_current_thread();
        let mask = || core_affinity::get_core_ids().unwrap_or_default();
        let (plain, widened, after) = cores.run_on(0, || {
            let plain = thread::scope(|s| s.spawn(mask).join().unwrap());
            let widened = cores.spawning(0, || thread::scope(|s| s.spawn(mask).join().unwrap()));
            (plain, widened, mask())
        });
        if cores.ids.is_empty() {
            return;
        }
        assert_eq!(plain, vec![cores.ids[0]]);
        assert_eq!(after, vec![cores.ids[0]]);
        if cfg!(target_os = "linux") {
            assert_eq!(widened, cores.ids);
        }
    }
}
