//! The rayon runner (feature `rayon`): a design run the way a program is
//! written with rayon, from the same plan as the
//! [`Executor`](super::Executor) (one grammar, one checker, one fold: the
//! term is compiled by the executor's compiler and the plan run here).
//!
//! | pattern | how it runs |
//! | --- | --- |
//! | atom `f` | the kernel registered for `f`, called on the element |
//! | `seq(a, b)` | `a` then `b` on the same thread, element by element; if a part contains a `pipe` or `tpool`, window by window ([`Rayon::window`]), all of the window through `a`, then all through `b`, as the executor does |
//! | `tpool[n](t)` | a rayon `ThreadPool` of `n` threads. Over elements at hand (the program's input, a window): `pool.install(\|\| items.par_iter_mut().for_each(..))`; inside a pipeline: the pool consumes its input channel with `par_bridge()` and sends into the next channel. No order. A body that is itself parallel (a `pipe`, a `tpool`, a `seq` over them) runs as `n` instances, one started from each of the pool's workers by `broadcast` (the worker waits for it), all on the pool's input and output channels, as the executor's `n` instances on one queue |
//! | `pipe(a, b)` | rayon has no pipeline: each stage on its own std thread (scoped), stages joined by `crossbeam_channel::bounded(capacity)` ([`Rayon::capacity`]), blocking sends and receives (no spin); a stage that is a pool is a rayon pool consuming the channel. Order is kept when both stages keep it |
//! | `mapreduce[m = 1, n](map, shuffle, reduce)` | per element (a [`Job`](super::Job)): the map kernel over the job's inputs on a rayon pool of `n` threads (one per mapReduce and calling thread, kept for the run), each worker taking blocks of inputs and grouping its pairs by key ([`WorkerGroups`](super::WorkerGroups)), then the reduce kernel over the keys on the same pool: the executor's kernels, with the pool's `broadcast` for its helper threads |
//! | `on`, `par`, `groups`, `seq[redist]`, `m > 1` | [`ExecError::Unsupported`], as the executor |
//!
//! An element *enters* when the program takes it from its input and
//! *leaves* when the last stage hands it on; the [`Metrics`](super::Metrics)
//! come from these departures as the executor's. The rayon runner does not
//! account each thread's time (rayon's workers are its own): its metrics
//! have no thread times, CPU or wait. `Metrics::threads` is the design's
//! threads, as the executor counts them; the runner also has a sleeping
//! thread per pool that hands a stream to it.

mod pools;
mod stages;

use super::context::{Ctx, Item};
use super::error::ExecError;
use super::kernels::Kernels;
use super::placement::Cores;
use super::plan::{Compiler, Plan};
use super::run::{Run, check_options};
use crate::Term;
use crate::dsl::Pattern;
use pools::Pools;
use stages::{Ends, Runner};
use std::thread;
use std::time::{Duration, Instant};

/// Runs designs over a vector of elements of type `E` on rayon's thread
/// pools, with the kernels of a [`Kernels`] registry; the same options and
/// the same [`Run`] as the [`Executor`](super::Executor).
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::exec::{Kernels, Rayon};
///
/// let kernels = Kernels::<Vec<i32>>::new()
///     .add("qsort", |v| v.sort_unstable())
///     .add("inc", |v| v.iter_mut().for_each(|e| *e += 1));
/// let design = Design::parse(
///     "qsort = 1034.17 * x * log2(x);
///      inc   = 536.185 * x;
///      pipe(tpool[2](qsort), inc)",
/// )?;
/// let inputs: Vec<Vec<i32>> = (0..40).map(|i| vec![i, 3, 1, 2]).collect();
///
/// let run = Rayon::new(&kernels).capacity(8).run(design.term(), inputs)?;
///
/// assert_eq!(run.metrics.elements, 40);
/// assert_eq!(run.metrics.threads, 3);
/// let outputs = run.into_input_order();
/// assert_eq!(outputs[0], [1, 2, 3, 4]); // [0, 3, 1, 2] sorted, then + 1
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Rayon<'k, E> {
    kernels: &'k Kernels<E>,
    capacity: usize,
    window: usize,
    trim: f64,
    pin: bool,
    bindings: Vec<(String, u64)>,
}

impl<'k, E: Send> Rayon<'k, E> {
    /// A runner with the default options: channels of capacity 4 between
    /// pipeline stages, windows of 64 elements for a `seq` over parallel
    /// parts, the first and last 10 % of departures left out of the
    /// steady state, threads not pinned.
    pub fn new(kernels: &'k Kernels<E>) -> Self {
        Rayon {
            kernels,
            capacity: 4,
            window: 64,
            trim: 0.1,
            pin: false,
            bindings: Vec::new(),
        }
    }

    /// Capacity of the bounded channel between two pipeline stages
    /// (default 4; `1..=`[`MAX_BUFFER`](super::MAX_BUFFER), checked by [`Rayon::run`]).
    pub fn capacity(mut self, elements: usize) -> Self {
        self.capacity = elements;
        self
    }

    /// Elements per window of a `seq` over parallel parts (default 64;
    /// `1..=`[`MAX_BUFFER`](super::MAX_BUFFER)).
    pub fn window(mut self, elements: usize) -> Self {
        self.window = elements;
        self
    }

    /// The fraction of departures left out at each end of the run for the
    /// steady state (default 0.1; `0..=0.5`).
    pub fn steady_state_trim(mut self, fraction: f64) -> Self {
        self.trim = fraction;
        self
    }

    /// Pins every thread of the design to a core (default off), numbered
    /// as the executor numbers them
    /// ([`Executor::pin_threads`](super::Executor::pin_threads)): thread
    /// `i` on core `i mod cores`. A pool's rayon workers pin themselves as
    /// they start (`ThreadPoolBuilder::start_handler`), a pipeline stage's
    /// thread as it starts.
    pub fn pin_threads(mut self, on: bool) -> Self {
        self.pin = on;
        self
    }

    /// Binds a symbolic count (`tpool[n]`) to a value.
    pub fn bind(mut self, name: &str, value: u64) -> Self {
        self.bindings.retain(|(n, _)| n != name);
        self.bindings.push((name.to_string(), value));
        self
    }

    /// The threads `term` runs at once, without running it (checks the
    /// options, kernels and counts like [`Rayon::run`]): the same number as
    /// [`Executor::threads`](super::Executor::threads).
    pub fn threads(&self, term: &Term) -> Result<usize, ExecError> {
        self.validate()?;
        self.compiler().thread_count(term)
    }

    /// Runs `term` over `inputs` and measures it.
    ///
    /// Every input element leaves exactly once (unless a kernel panics:
    /// then the run stops and the error names the atom). Warns when the
    /// design runs more threads than the machine has cores. The options
    /// are checked first ([`ExecError::InvalidOption`]).
    pub fn run(&self, term: &Term, inputs: Vec<E>) -> Result<Run<E>, ExecError> {
        self.validate()?;
        term.check()?;
        let plan = self.compiler().compile(term)?;
        let mut ctx = Ctx::new(Duration::ZERO, self.capacity, self.window);
        ctx.cores = self.pin.then(Cores::of_current_thread);
        execute(&plan, inputs, &ctx, self.trim)
    }

    /// Runs the design type `D` (written with `design!`) over `inputs`:
    /// [`Rayon::run`] of `D::term()`.
    ///
    /// ```
    /// use pattern_core::design;
    /// use pattern_core::exec::{Kernels, Rayon};
    ///
    /// design!(type Twice = pipe(inc, inc));
    /// # #[pattern_core::cost("x")] fn inc(v: &mut u64) { *v += 1 }
    /// let kernels = Kernels::<u64>::new().add("inc", |v| *v += 1);
    /// let run = Rayon::new(&kernels).run_design::<Twice>(vec![1, 2, 3])?;
    /// assert_eq!(run.into_input_order(), [3, 4, 5]);
    /// # Ok::<(), pattern_core::exec::ExecError>(())
    /// ```
    pub fn run_design<D: Pattern>(&self, inputs: Vec<E>) -> Result<Run<E>, ExecError> {
        self.run(&D::term(), inputs)
    }

    /// The options out of range, as [`ExecError::InvalidOption`] naming
    /// the option, the value and the limit.
    fn validate(&self) -> Result<(), ExecError> {
        check_options(self.capacity, self.window, self.trim)
    }

    fn compiler(&self) -> Compiler<'_, E> {
        Compiler {
            kernels: self.kernels,
            bindings: &self.bindings,
        }
    }
}

/// Runs a compiled plan over `inputs` and measures it: the whole input is
/// one batch at both ends of the program, on the calling thread (on a
/// thread of its own, the design's thread 0, when the run is pinned: the
/// caller's own affinity is left alone).
fn execute<E: Send>(
    plan: &Plan<E>,
    inputs: Vec<E>,
    ctx: &Ctx,
    trim: f64,
) -> Result<Run<E>, ExecError> {
    let items: Vec<Item<E>> = inputs
        .into_iter()
        .enumerate()
        .map(|(index, value)| Item::new(index, value))
        .collect();
    let pools = Pools::new(ctx);
    let runner = Runner { ctx, pools: &pools };
    let ends = Ends {
        entry: true,
        exit: true,
    };
    let start = Instant::now();
    let out = if ctx.cores.is_some() {
        thread::scope(|s| {
            let pinned = thread::Builder::new()
                .name("pattern-rayon-run".into())
                .spawn_scoped(s, || {
                    runner.pin(0);
                    runner.batch(plan, items, 0, ends)
                })
                .map_err(|e| ExecError::Spawn(e.to_string()))?;
            pinned
                .join()
                .map_err(|_| ExecError::Spawn("the run's thread died".into()))
        })?
    } else {
        runner.batch(plan, items, 0, ends)
    };
    if let Some(e) = ctx.take_failure() {
        return Err(e);
    }
    Ok(Run::measured(out, start, ctx, trim, plan.threads()))
}
