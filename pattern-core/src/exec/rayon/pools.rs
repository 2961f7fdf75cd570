//! The rayon thread pools of a run: one `ThreadPool` per task pool or
//! mapReduce of the plan and per design thread that runs it, built when
//! first needed and kept for the rest of the run, its workers pinned when
//! the run is pinned.

use crate::exec::context::Ctx;
use crate::exec::error::ExecError;
use crate::exec::phase::{Parallel, PhaseThreads};
use ::rayon::{ThreadPool, ThreadPoolBuilder};
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError};

/// The pools of one run, by plan node and the design's thread that runs
/// the node (a pool inside a pool has an instance per outer worker).
pub(super) struct Pools<'a> {
    ctx: &'a Ctx,
    built: Mutex<HashMap<(usize, usize), Arc<ThreadPool>>>,
}

impl<'a> Pools<'a> {
    pub(super) fn new(ctx: &'a Ctx) -> Self {
        Pools {
            ctx,
            built: Mutex::new(HashMap::new()),
        }
    }

    /// The pool of the node `id` run from the design's thread `first`:
    /// `n` workers, worker `i` the design's thread `first + i · each` (so
    /// pinned to its core, [`Cores::core_of_thread`](crate::exec::Cores::core_of_thread)).
    pub(super) fn get(
        &self,
        id: usize,
        first: usize,
        n: usize,
        each: usize,
    ) -> Result<Arc<ThreadPool>, ExecError> {
        let mut built = self.built.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(pool) = built.get(&(id, first)) {
            return Ok(Arc::clone(pool));
        }
        let mut builder = ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(move |i| format!("pattern-rayon-{}", first + i * each));
        if let Some(cores) = self.ctx.cores.clone() {
            builder = builder.start_handler(move |i| {
                cores.pin_current(cores.core_of_thread(first + i * each));
            });
        }
        let pool = Arc::new(
            builder
                .build()
                .map_err(|e| ExecError::Spawn(e.to_string()))?,
        );
        built.insert((id, first), Arc::clone(&pool));
        Ok(pool)
    }
}

impl PhaseThreads for Pools<'_> {
    /// A mapReduce's `n` threads: a pool of its own per calling thread,
    /// its workers the design's threads `thread..thread + n`.
    fn phase<R>(
        &self,
        id: usize,
        n: usize,
        thread: usize,
        f: impl FnOnce(&dyn Parallel) -> R,
    ) -> Option<R> {
        match self.get(id, thread, n, 1) {
            Ok(pool) => Some(f(&OnPool {
                pool: &pool,
                ctx: self.ctx,
            })),
            Err(e) => {
                self.ctx.fail(e);
                None
            }
        }
    }
}

/// A mapReduce phase on a rayon pool: the work broadcast to the pool's
/// first `workers` threads.
struct OnPool<'a> {
    pool: &'a ThreadPool,
    ctx: &'a Ctx,
}

impl Parallel for OnPool<'_> {
    fn run(&self, atom: &str, workers: usize, work: &(dyn Fn() + Sync)) {
        let all = catch_unwind(AssertUnwindSafe(|| {
            self.pool.broadcast(|b| {
                if b.index() < workers {
                    work();
                }
            })
        }));
        // The kernels' panics are caught where they are called: this is
        // a bug, reported rather than raised.
        if all.is_err() {
            self.ctx.fail(ExecError::Spawn(format!(
                "a worker of the mapReduce `{atom}` died"
            )));
        }
    }
}
