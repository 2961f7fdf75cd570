//! Starting a plan on threads: a thread per step, a bounded channel per
//! `pipe`, `n` instances of a pool's part on one queue, and the window by
//! window phases of a `seq` over parallel parts.

use super::helpers::Helpers;
use crate::exec::context::{Ctx, In, Out, blocking};
use crate::exec::error::ExecError;
use crate::exec::plan::Plan;
use crossbeam_channel::{bounded, unbounded};
use std::thread::{self, Scope, ScopedJoinHandle};

type Handles<'scope> = Vec<ScopedJoinHandle<'scope, ()>>;

/// Starts the threads of `plan`, reading from `input` and writing to
/// `output`; its first thread is the design's thread number `first`.
pub(super) fn spawn<'scope, E: Send>(
    s: &'scope Scope<'scope, '_>,
    plan: &'scope Plan<E>,
    input: In<E>,
    output: Out<E>,
    ctx: &'scope Ctx,
    handles: &mut Handles<'scope>,
    first: usize,
) -> Result<(), ExecError> {
    match plan {
        Plan::Step(step) => {
            let h = thread::Builder::new()
                .name("pattern-stage".into())
                .spawn_scoped(s, move || {
                    let start = ctx.begin(first);
                    while let Some(mut item) = ctx.recv(&input) {
                        if !step.run(&mut item.value, ctx, first, &Helpers { ctx })
                            || !ctx.send(&output, item)
                        {
                            break;
                        }
                    }
                    drop((input, output));
                    ctx.account(start);
                })
                .map_err(|e| ExecError::Spawn(e.to_string()))?;
            handles.push(h);
        }
        Plan::Pipe(a, b) => {
            let (tx, rx) = bounded(ctx.capacity);
            let second = first + a.threads();
            spawn(s, a, input, Out { tx, exit: false }, ctx, handles, first)?;
            spawn(s, b, In { rx, entry: false }, output, ctx, handles, second)?;
        }
        Plan::Pool(n, part) => {
            let each = part.threads();
            for w in 0..*n {
                let at = first + w * each;
                spawn(s, part, input.clone(), output.clone(), ctx, handles, at)?;
            }
        }
        Plan::Phases(parts) => {
            let h = thread::Builder::new()
                .name("pattern-phases".into())
                .spawn_scoped(s, move || {
                    let start = ctx.begin(first);
                    run_phases(parts, input, output, ctx, first);
                    ctx.account(start);
                })
                .map_err(|e| ExecError::Spawn(e.to_string()))?;
            handles.push(h);
        }
    }
    Ok(())
}

pub(super) fn join_all(handles: Handles<'_>, ctx: &Ctx) {
    for h in handles {
        if h.join().is_err() {
            // Kernel panics are caught in `Ctx::call`; this is a bug.
            ctx.fail(ExecError::Spawn("a stage thread died".into()));
        }
    }
}

/// A `seq` over parallel parts: takes a window of elements, runs it through
/// each part in turn (a part's threads live for one window and are numbered
/// from `first`, the phases' own thread, which waits for them), hands it on.
fn run_phases<E: Send>(parts: &[Plan<E>], input: In<E>, output: Out<E>, ctx: &Ctx, first: usize) {
    loop {
        let mut window = ctx.recv_window(&input);
        if window.is_empty() {
            return;
        }
        for part in parts {
            window = match part {
                Plan::Step(step) => {
                    for item in &mut window {
                        if !step.run(&mut item.value, ctx, first, &Helpers { ctx }) {
                            return;
                        }
                    }
                    window
                }
                stream => {
                    let (in_tx, in_rx) = unbounded();
                    for item in window {
                        let _ = in_tx.send(item);
                    }
                    drop(in_tx);
                    let (out_tx, out_rx) = unbounded();
                    // The phases' thread sleeps while the part runs.
                    blocking(|| {
                        thread::scope(|s| {
                            let mut handles = Vec::new();
                            let input = In {
                                rx: in_rx,
                                entry: false,
                            };
                            let output = Out {
                                tx: out_tx,
                                exit: false,
                            };
                            if let Err(e) =
                                spawn(s, stream, input, output, ctx, &mut handles, first)
                            {
                                ctx.fail(e);
                            }
                            join_all(handles, ctx);
                        })
                    });
                    out_rx.try_iter().collect()
                }
            };
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
