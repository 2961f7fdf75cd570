//! The executor's threads of a mapReduce phase: the calling thread and
//! helpers spawned for the phase, numbered after it.

use crate::exec::context::{Ctx, blocking};
use crate::exec::error::ExecError;
use crate::exec::phase::{Parallel, PhaseThreads};
use std::thread;

/// The executor's source of a mapReduce's threads: helpers spawned per
/// phase beside the thread that runs the job.
pub(super) struct Helpers<'a> {
    pub(super) ctx: &'a Ctx,
}

impl PhaseThreads for Helpers<'_> {
    fn phase<R>(
        &self,
        _id: usize,
        _n: usize,
        thread: usize,
        f: impl FnOnce(&dyn Parallel) -> R,
    ) -> Option<R> {
        Some(f(&Spawned {
            ctx: self.ctx,
            first: thread,
        }))
    }
}

/// The calling thread, the design's thread number `first`, and helpers
/// spawned for each call, numbered from `first + 1`.
struct Spawned<'a> {
    ctx: &'a Ctx,
    first: usize,
}

impl Parallel for Spawned<'_> {
    fn run(&self, atom: &str, workers: usize, work: &(dyn Fn() + Sync)) {
        let ctx = self.ctx;
        let helpers = workers.saturating_sub(1);
        thread::scope(|s| {
            let mut handles = Vec::with_capacity(helpers);
            let spawn_all = |handles: &mut Vec<_>| {
                for h in 0..helpers {
                    let helper = move || {
                        let start = ctx.begin(self.first + 1 + h);
                        work();
                        ctx.account(start);
                    };
                    match thread::Builder::new()
                        .name(format!("mapreduce-{atom}"))
                        .spawn_scoped(s, helper)
                    {
                        Ok(h) => handles.push(h),
                        Err(e) => {
                            ctx.fail(ExecError::Spawn(e.to_string()));
                            break;
                        }
                    }
                }
            };
            // A pinned spawner's helpers would start on its own core and
            // wait for it there: spawn them with every core allowed.
            match &ctx.cores {
                Some(cores) => {
                    cores.spawning(cores.core_of_thread(self.first), || spawn_all(&mut handles))
                }
                None => spawn_all(&mut handles),
            }
            work();
            for h in handles {
                if blocking(|| h.join()).is_err() {
                    ctx.fail(ExecError::Spawn("a mapReduce worker died".into()));
                }
            }
        });
    }
}
