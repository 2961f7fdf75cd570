//! Running a plan the way a rayon program is written: elements at hand
//! (the program's input, a window of a `seq` over parallel parts) go
//! through a task pool as a parallel iterator over the vector
//! ([`Runner::batch`]); a stream of elements (a pipeline's channel) goes
//! through std threads per stage joined by bounded channels, and through a
//! task pool as the channel bridged into the pool ([`Runner::stream`]).

use super::pools::Pools;
use crate::exec::context::{Ctx, In, Item, Out, Stamp};
use crate::exec::error::ExecError;
use crate::exec::plan::Plan;
use ::rayon::iter::{IntoParallelRefMutIterator, ParallelBridge, ParallelIterator};
use crossbeam_channel::{bounded, unbounded};
use std::thread::{self, Scope, ScopedJoinHandle};

/// Whether a batch is at the program's input (taking an element stamps
/// its entry) and at its output (handing it on stamps its departure).
#[derive(Clone, Copy)]
pub(super) struct Ends {
    pub(super) entry: bool,
    pub(super) exit: bool,
}

impl Ends {
    /// Inside the program: no stamps.
    const INSIDE: Ends = Ends {
        entry: false,
        exit: false,
    };
}

fn stamp(ctx: &Ctx, at: &mut Stamp, on: bool) {
    if on {
        *at = ctx.stamp();
    }
}

/// A stable number of a plan's node, to find its pool.
fn id<E>(plan: &Plan<E>) -> usize {
    std::ptr::from_ref(plan).addr()
}

type Handles<'scope> = Vec<ScopedJoinHandle<'scope, ()>>;

/// What runs a plan: the run's shared state and its pools.
pub(super) struct Runner<'a> {
    pub(super) ctx: &'a Ctx,
    pub(super) pools: &'a Pools<'a>,
}

impl Runner<'_> {
    /// Pins the calling thread as the design's thread `thread`, if the run
    /// is pinned.
    pub(super) fn pin(&self, thread: usize) {
        if let Some(cores) = &self.ctx.cores {
            cores.pin_current(cores.core_of_thread(thread));
        }
    }

    /// Runs `plan` over `items`, all at hand, on the calling thread (the
    /// design's thread `first`) and the threads the plan starts; returns
    /// the items that came through (all of them unless the run failed).
    pub(super) fn batch<E: Send>(
        &self,
        plan: &Plan<E>,
        mut items: Vec<Item<E>>,
        first: usize,
        ends: Ends,
    ) -> Vec<Item<E>> {
        let ctx = self.ctx;
        match plan {
            Plan::Step(step) => {
                for item in &mut items {
                    if ctx.stopped() {
                        break;
                    }
                    stamp(ctx, &mut item.enter, ends.entry);
                    if !step.run(&mut item.value, ctx, first, self.pools) {
                        break;
                    }
                    stamp(ctx, &mut item.leave, ends.exit);
                }
                items
            }
            // A pool of steps over a vector: `pool.install(|| v.par_iter_mut()
            // .for_each(..))`, as a rayon program is written.
            Plan::Pool(n, body) if matches!(**body, Plan::Step(_)) => {
                let Plan::Step(step) = &**body else {
                    return items;
                };
                let each = step.threads();
                let pool = match self.pools.get(id(plan), first, *n, each) {
                    Ok(pool) => pool,
                    Err(e) => {
                        ctx.fail(e);
                        return items;
                    }
                };
                pool.install(|| {
                    items.par_iter_mut().for_each(|item| {
                        if ctx.stopped() {
                            return;
                        }
                        let at = first + ::rayon::current_thread_index().unwrap_or(0) * each;
                        stamp(ctx, &mut item.enter, ends.entry);
                        if step.run(&mut item.value, ctx, at, self.pools) {
                            stamp(ctx, &mut item.leave, ends.exit);
                        }
                    })
                });
                items
            }
            Plan::Phases(parts) => {
                let mut out = Vec::with_capacity(items.len());
                let mut rest = items.into_iter();
                loop {
                    let mut window: Vec<Item<E>> = rest.by_ref().take(ctx.window).collect();
                    if window.is_empty() || ctx.stopped() {
                        return out;
                    }
                    for item in &mut window {
                        stamp(ctx, &mut item.enter, ends.entry);
                    }
                    for part in parts {
                        window = self.batch(part, window, first, Ends::INSIDE);
                        if ctx.stopped() {
                            return out;
                        }
                    }
                    for item in &mut window {
                        stamp(ctx, &mut item.leave, ends.exit);
                    }
                    out.append(&mut window);
                }
            }
            Plan::Pipe(..) | Plan::Pool(..) => self.through_channels(plan, items, first, ends),
        }
    }

    /// Runs a streaming plan over `items`: into a channel, through the
    /// plan's threads, out of a channel.
    fn through_channels<E: Send>(
        &self,
        plan: &Plan<E>,
        items: Vec<Item<E>>,
        first: usize,
        ends: Ends,
    ) -> Vec<Item<E>> {
        let (in_tx, in_rx) = unbounded();
        for item in items {
            // The receiver is alive: this cannot fail.
            let _ = in_tx.send(item);
        }
        drop(in_tx);
        let (out_tx, out_rx) = unbounded();
        let input = In {
            rx: in_rx,
            entry: ends.entry,
        };
        let output = Out {
            tx: out_tx,
            exit: ends.exit,
        };
        self.instance(plan, input, output, first);
        out_rx.try_iter().collect()
    }

    /// Runs one instance of `plan` from `input` to `output` and waits for
    /// its threads.
    fn instance<E: Send>(&self, plan: &Plan<E>, input: In<E>, output: Out<E>, first: usize) {
        thread::scope(|s| {
            let mut handles = Vec::new();
            if let Err(e) = self.stream(s, plan, input, output, first, &mut handles) {
                self.ctx.fail(e);
            }
            for h in handles {
                if h.join().is_err() {
                    // Kernel panics are caught where they are called.
                    self.ctx
                        .fail(ExecError::Spawn("a stage thread died".into()));
                }
            }
        });
    }

    /// Starts the threads of `plan` reading from `input` and writing to
    /// `output`; its first thread is the design's thread `first`.
    fn stream<'s, E: Send>(
        &'s self,
        s: &'s Scope<'s, '_>,
        plan: &'s Plan<E>,
        input: In<E>,
        output: Out<E>,
        first: usize,
        handles: &mut Handles<'s>,
    ) -> Result<(), ExecError> {
        let ctx = self.ctx;
        let spawn = |name: &str, body: Box<dyn FnOnce() + Send + 's>| {
            thread::Builder::new()
                .name(name.into())
                .spawn_scoped(s, body)
                .map_err(|e| ExecError::Spawn(e.to_string()))
        };
        match plan {
            Plan::Step(step) => handles.push(spawn(
                "pattern-stage",
                Box::new(move || {
                    self.pin(first);
                    while let Some(mut item) = ctx.recv(&input) {
                        if !step.run(&mut item.value, ctx, first, self.pools)
                            || !ctx.send(&output, item)
                        {
                            break;
                        }
                    }
                }),
            )?),
            Plan::Pipe(a, b) => {
                let (tx, rx) = bounded(ctx.capacity);
                let second = first + a.threads();
                self.stream(s, a, input, Out { tx, exit: false }, first, handles)?;
                self.stream(s, b, In { rx, entry: false }, output, second, handles)?;
            }
            Plan::Pool(n, body) => {
                let each = body.threads();
                let pool = self.pools.get(id(plan), first, *n, each)?;
                // The thread that hands the stream to the pool, asleep
                // while the pool runs.
                let driver = move || match &**body {
                    Plan::Step(step) => pool.install(|| {
                        let elements = std::iter::from_fn(|| ctx.recv(&input));
                        let _ = elements.par_bridge().try_for_each(|mut item| {
                            let at = first + ::rayon::current_thread_index().unwrap_or(0) * each;
                            let ok = step.run(&mut item.value, ctx, at, self.pools)
                                && ctx.send(&output, item);
                            if ok { Ok(()) } else { Err(()) }
                        });
                    }),
                    // A parallel body: an instance of it per worker, all on
                    // the pool's input and output.
                    body => {
                        pool.broadcast(|b| {
                            let at = first + b.index() * each;
                            self.instance(body, input.clone(), output.clone(), at);
                        });
                    }
                };
                handles.push(spawn("pattern-pool", Box::new(driver))?);
            }
            Plan::Phases(parts) => handles.push(spawn(
                "pattern-phases",
                Box::new(move || {
                    self.pin(first);
                    self.phases(parts, input, output, first);
                }),
            )?),
        }
        Ok(())
    }

    /// A `seq` over parallel parts in a stream: window by window, each
    /// window through each part in turn ([`Runner::batch`]).
    fn phases<E: Send>(&self, parts: &[Plan<E>], input: In<E>, output: Out<E>, first: usize) {
        let ctx = self.ctx;
        loop {
            let mut window = ctx.recv_window(&input);
            if window.is_empty() {
                return;
            }
            for part in parts {
                window = self.batch(part, window, first, Ends::INSIDE);
                if ctx.stopped() {
                    return;
                }
            }
            for item in window {
                if !ctx.send(&output, item) {
                    return;
                }
            }
        }
    }
}
