//! The threads of a mapReduce's phase as its kernels see them
//! ([`Workers`]), whichever runner provides them: the map and reduce
//! kernels ([`Kernels::add_map`](super::Kernels::add_map),
//! [`Kernels::add_reduce`](super::Kernels::add_reduce)) are written once
//! against [`Workers`], and each runner says how it runs `k` closures at
//! once ([`Parallel`]) and where a mapReduce's threads come from
//! ([`PhaseThreads`]): the executor spawns helper threads beside the
//! calling one, the rayon runner broadcasts to a pool of its own.

use crate::Expr;
use crate::exec::context::Ctx;
use crate::exec::error::ExecError;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Runs closures on several threads at once: the one seam between a
/// mapReduce's kernels and the threads of a runner.
pub(crate) trait Parallel: Sync {
    /// Runs `work` on `workers` threads at once (`1..=` the phase's
    /// threads) and returns when every call has returned. `atom` names the
    /// phase (for the threads' names); a thread that cannot be had is a
    /// failure of the run (recorded in the run's context), not a panic.
    fn run(&self, atom: &str, workers: usize, work: &(dyn Fn() + Sync));
}

/// Where the threads of a mapReduce come from, per runner.
pub(crate) trait PhaseThreads {
    /// Calls `f` with the `n` threads of the mapReduce `id` (a stable
    /// number of the plan's node) called on the design's thread `thread`;
    /// `None` (the failure recorded) when they cannot be had.
    fn phase<R>(
        &self,
        id: usize,
        n: usize,
        thread: usize,
        f: impl FnOnce(&dyn Parallel) -> R,
    ) -> Option<R>;
}

/// The threads of a mapReduce phase, `n` of them, as its kernels see them.
pub(crate) struct Workers<'a> {
    pub(crate) n: usize,
    /// The keys the design declares, `k(x)`.
    pub(crate) keys: &'a Expr,
    pub(crate) ctx: &'a Ctx,
    pub(crate) parallel: &'a dyn Parallel,
}

impl Workers<'_> {
    /// The keys declared for a job of `x` inputs, `k(x)` rounded up; `None`
    /// (the run failed) where `k` has no such value.
    pub(crate) fn keys(&self, x: usize) -> Option<usize> {
        let value = self.keys.eval(&[("x", x as f64)]);
        match value {
            Ok(k) if k >= 0.0 && k.ceil() < usize::MAX as f64 => Some(k.ceil() as usize),
            other => {
                let why = match other {
                    Ok(k) => format!("{k} is not a number of keys"),
                    Err(e) => e.to_string(),
                };
                self.fail(ExecError::InvalidOption(format!(
                    "the keys of the mapReduce, k = {}, at x = {x}: {why}",
                    self.keys
                )));
                None
            }
        }
    }

    /// Stops the run with `e`.
    pub(crate) fn fail(&self, e: ExecError) {
        self.ctx.fail(e);
    }

    /// The threads of the phase, `n`.
    pub(crate) fn threads(&self) -> usize {
        self.n
    }

    /// Whether the run stops (a kernel failed, the deadline passed).
    pub(crate) fn stopped(&self) -> bool {
        self.ctx.stopped()
    }

    /// Calls the kernel of `atom` through `f`, counting it in flight and
    /// catching its panic (the run then fails naming `atom`).
    pub(crate) fn call<R>(&self, atom: &str, f: impl FnOnce() -> R) -> Option<R> {
        self.ctx.call(atom, f)
    }

    /// An empty vector for a bucket: one a job before emptied, with its
    /// room, if there is one. Buckets allocated anew for every job cost a
    /// mapReduce a large share of its time: the allocator gave the freed
    /// memory back to the system and the next job faulted it in again.
    pub(crate) fn buffer<V: Send + 'static>(&self) -> Vec<V> {
        let mut spare = self.ctx.spare.lock().unwrap_or_else(|p| p.into_inner());
        while let Some(b) = spare.pop() {
            if let Ok(v) = b.downcast::<Vec<V>>() {
                return *v;
            }
        }
        Vec::new()
    }

    /// Keeps `bucket`, emptied, for a later job's [`Workers::buffer`].
    pub(crate) fn spend<V: Send + 'static>(&self, mut bucket: Vec<V>) {
        if bucket.capacity() == 0 {
            return;
        }
        bucket.clear();
        let mut spare = self.ctx.spare.lock().unwrap_or_else(|p| p.into_inner());
        spare.push(Box::new(bucket));
    }

    /// Runs `work` on `min(n, tasks)` workers at once (at least one; they
    /// share out the tasks themselves) and returns what each returned, in
    /// no particular order; `None` if a kernel failed or the run stopped.
    pub(crate) fn on_workers<R: Send>(
        &self,
        atom: &str,
        tasks: usize,
        work: impl Fn() -> R + Sync,
    ) -> Option<Vec<R>> {
        let workers = self.n.min(tasks).max(1);
        let parts = Mutex::new(Vec::with_capacity(workers));
        self.parallel.run(atom, workers, &|| {
            let done = work();
            parts
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(done);
        });
        if self.ctx.stopped() {
            return None;
        }
        Some(parts.into_inner().unwrap_or_else(PoisonError::into_inner))
    }

    /// Calls `f(i)` for every `i` in `0..len` on the workers (each pulls the
    /// next index from a shared counter) and returns the results in index
    /// order; `None` if a kernel failed or the run stopped.
    pub(crate) fn for_each_index<R: Send>(
        &self,
        atom: &str,
        len: usize,
        f: impl Fn(usize) -> R + Sync,
    ) -> Option<Vec<R>> {
        let next = AtomicUsize::new(0);
        let parts = self.on_workers(atom, len, || {
            let mut done = Vec::new();
            while !self.stopped() {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= len {
                    break;
                }
                match self.call(atom, || f(i)) {
                    Some(r) => done.push((i, r)),
                    None => break,
                }
            }
            done
        })?;
        let mut slots: Vec<Option<R>> = (0..len).map(|_| None).collect();
        for (i, r) in parts.into_iter().flatten() {
            slots[i] = Some(r);
        }
        slots.into_iter().collect()
    }
}
