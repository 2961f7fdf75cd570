//! The executor: runs a design's structure for real, on threads, over a
//! stream of elements.
//!
//! | pattern | how it runs |
//! | --- | --- |
//! | atom `f` | the kernel registered for `f`, called on the element |
//! | `seq(a, b)` | `a` then `b` on the same thread, element by element; if a part contains a `pipe` or `tpool`, phase by phase over windows of elements (all of the window through `a`, then all through `b`), so the parts do not overlap, as `M[a] + M[b]` assumes |
//! | `pipe(a, b)` | `a` and `b` on their own threads, connected by a bounded channel; order is kept when both stages keep it |
//! | `tpool[n](t)` | `n` workers (each an instance of `t`) pulling from one shared queue; no order |
//! | `mapreduce[m = 1, n](map, shuffle, reduce)` | per element (a [`Job`](super::Job)): the map kernel on every input on `n` threads, each taking blocks of inputs and grouping its pairs by key right after each call ([`WorkerGroups`](super::WorkerGroups): the shuffle runs on the map's workers), then the reduce kernel on every key on `n` threads, each gathering the key's values from the map workers in input order |
//!
//! The program's input is a queue filled with every element before the
//! clock starts; an element *enters* when the program takes it from there and
//! *leaves* when the last stage hands it on. Stages wait on an empty or full
//! channel by spinning for a while ([`Executor::spin`]) and then blocking.

mod helpers;
mod stages;

use super::context::{Ctx, In, Item, Out};
use super::error::ExecError;
use super::kernels::Kernels;
use super::placement::Cores;
use super::plan::{Compiler, Plan};
use super::run::{Run, check_options};
use crate::Term;
use crossbeam_channel::unbounded;
use stages::{join_all, spawn};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

/// The longest spin before a stage blocks ([`Executor::spin`]).
pub const MAX_SPIN: Duration = Duration::from_secs(1);

/// Runs designs over streams of elements of type `E` with the kernels of a
/// [`Kernels`] registry.
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::exec::{Executor, Kernels};
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
/// let run = Executor::new(&kernels).run(design.term(), inputs)?;
///
/// assert_eq!(run.metrics.elements, 40);
/// assert_eq!(run.metrics.threads, 3);
/// let outputs = run.into_input_order();
/// assert_eq!(outputs[0], [1, 2, 3, 4]); // [0, 3, 1, 2] sorted, then + 1
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Executor<'k, E> {
    kernels: &'k Kernels<E>,
    capacity: usize,
    spin: Duration,
    window: usize,
    trim: f64,
    pin: bool,
    bindings: Vec<(String, u64)>,
    deadline: Option<Duration>,
}

impl<'k, E: Send> Executor<'k, E> {
    /// An executor with the default options: channels of capacity 4
    /// between stages, 100 µs of spinning before a stage blocks, windows
    /// of 64 elements for a `seq` over parallel parts, and the first and
    /// last 10 % of departures left out of the steady state.
    pub fn new(kernels: &'k Kernels<E>) -> Self {
        Executor {
            kernels,
            capacity: 4,
            spin: Duration::from_micros(100),
            window: 64,
            trim: 0.1,
            pin: false,
            bindings: Vec::new(),
            deadline: None,
        }
    }

    /// Capacity of the channel between two pipeline stages (default 4;
    /// `1..=`[`MAX_BUFFER`](super::MAX_BUFFER), checked by [`Executor::run`]).
    pub fn capacity(mut self, elements: usize) -> Self {
        self.capacity = elements;
        self
    }

    /// How long a stage spins on an empty or full channel before it blocks
    /// (default 100 µs). Blocking costs the other side a wake-up system call
    /// per element; spinning costs the waiting stage's core, which the
    /// pipeline owns anyway. `Duration::ZERO` blocks at once; at most
    /// [`MAX_SPIN`].
    ///
    /// A design with more threads than cores does not own its cores: a
    /// waiting thread would spin on the core that the thread it waits for
    /// needs, so such a run blocks at once whatever the setting (spinning,
    /// a pipeline of do-nothing stages on fewer cores than stages spends
    /// most of each hand-over waiting for a spinner to leave the core).
    pub fn spin(mut self, spin: Duration) -> Self {
        self.spin = spin;
        self
    }

    /// Elements per window of a `seq` over parallel parts (default 64;
    /// `1..=`[`MAX_BUFFER`](super::MAX_BUFFER)).
    pub fn window(mut self, elements: usize) -> Self {
        self.window = elements;
        self
    }

    /// Stops waiting for the run after `limit`: [`Executor::run`] then
    /// returns [`ExecError::DeadlineExceeded`] naming the atoms whose
    /// kernels are still running (default: no deadline). Rust cannot kill
    /// a thread: a kernel that never returns keeps its thread, detached,
    /// until the process ends; the other threads stop at their next
    /// element.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::exec::{ExecError, Executor, Kernels};
    /// use std::time::Duration;
    ///
    /// let kernels = Kernels::<u64>::new()
    ///     .add("quick", |v| *v += 1)
    ///     .add("stuck", |_| std::thread::sleep(Duration::from_secs(3600)));
    /// let design = Design::parse("quick = 1; stuck = 1; pipe(quick, stuck)")?;
    /// let err = Executor::new(&kernels)
    ///     .deadline(Duration::from_millis(100))
    ///     .run(design.term(), vec![0; 4])
    ///     .unwrap_err();
    /// assert!(matches!(&err, ExecError::DeadlineExceeded { running, .. } if running == &["stuck"]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn deadline(mut self, limit: Duration) -> Self {
        self.deadline = Some(limit);
        self
    }

    /// The options out of range, as [`ExecError::InvalidOption`] naming
    /// the option, the value and the limit.
    fn validate(&self) -> Result<(), ExecError> {
        check_options(self.capacity, self.window, self.trim)?;
        let invalid = |what: String| Err(ExecError::InvalidOption(what));
        if self.spin > MAX_SPIN {
            return invalid(format!(
                "spin({:?}): a stage spins at most {MAX_SPIN:?} before it blocks",
                self.spin
            ));
        }
        if self.deadline == Some(Duration::ZERO) {
            return invalid("deadline(0s): a deadline is longer than zero".into());
        }
        Ok(())
    }

    /// The fraction of departures left out at each end of the run for the
    /// steady state (default 0.1; `0..=0.5`).
    pub fn steady_state_trim(mut self, fraction: f64) -> Self {
        self.trim = fraction;
        self
    }

    /// Pins every thread of the design to a core (default off): the
    /// threads are numbered in the order of the design's text (a pool's
    /// workers one after another, a mapReduce's helpers after the thread
    /// of its phase) and thread `i` runs on core `i mod cores` of the
    /// process ([`Cores::core_of_thread`]). A pinned run puts its work on
    /// known cores, so that what was measured on a core (an atom, the
    /// core's speed) applies to the thread that runs there; unpinned, the
    /// scheduler may move threads between cores at any time.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::exec::{Cores, Executor, Kernels};
    ///
    /// // Each element records how many cores its thread may run on.
    /// let kernels = Kernels::<usize>::new().add("where", |v| {
    ///     *v = Cores::of_current_thread().len();
    /// });
    /// let design = Design::parse("where = 1; tpool[2](where)")?;
    /// let run = Executor::new(&kernels)
    ///     .pin_threads(true)
    ///     .run(design.term(), vec![0; 8])?;
    /// assert!(run.outputs.iter().all(|&(_, cores)| cores == 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    /// kernels and counts like [`Executor::run`]): the design's one
    /// definition of threads ([`Footprint`](crate::semantics::Footprint)) with
    /// the counts bound.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::exec::{Executor, Kernels};
    ///
    /// let kernels = Kernels::<u64>::new().add("a", |_| {}).add("b", |_| {});
    /// let d = Design::parse("a = 1; b = 2; pipe(tpool[n](seq(a, b)), a)")?;
    /// assert_eq!(Executor::new(&kernels).bind("n", 3).threads(d.term())?, 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn threads(&self, term: &Term) -> Result<usize, ExecError> {
        self.validate()?;
        self.compiler().thread_count(term)
    }

    /// Runs `term` over `inputs` and measures it.
    ///
    /// Every input element leaves exactly once (unless a kernel panics: then
    /// the run stops and the error names the atom). Warns when the design
    /// runs more threads than the machine has cores. The options are checked
    /// first ([`ExecError::InvalidOption`]); with a [`deadline`](Executor::deadline),
    /// a run that takes longer is an error naming the atoms still running.
    pub fn run(&self, term: &Term, inputs: Vec<E>) -> Result<Run<E>, ExecError>
    where
        E: 'static,
    {
        self.validate()?;
        term.check()?;
        let plan = self.compile(term)?;
        let cores = self.pin.then(Cores::of_current_thread);
        let available = cores
            .as_ref()
            .map_or_else(super::run::available_cores, |c| c.len().max(1));
        let spin = if plan.threads() > available {
            Duration::ZERO
        } else {
            self.spin
        };
        let mut ctx = Ctx::new(spin, self.capacity, self.window);
        ctx.cores = cores;
        let trim = self.trim;
        let Some(limit) = self.deadline else {
            return execute(&plan, inputs, &ctx, trim);
        };
        // The run goes on a thread of its own that the caller stops
        // waiting for at the deadline.
        ctx.track_running();
        let ctx = Arc::new(ctx);
        let shared = Arc::clone(&ctx);
        let (tx, rx) = mpsc::channel();
        thread::Builder::new()
            .name("pattern-run".into())
            .spawn(move || {
                let _ = tx.send(execute(&plan, inputs, &shared, trim));
            })
            .map_err(|e| ExecError::Spawn(e.to_string()))?;
        match rx.recv_timeout(limit) {
            Ok(result) => result,
            Err(_) => {
                ctx.stop();
                Err(ExecError::DeadlineExceeded {
                    after: limit,
                    running: ctx.running(),
                })
            }
        }
    }

    fn compile(&self, term: &Term) -> Result<Plan<E>, ExecError> {
        self.compiler().compile(term)
    }

    fn compiler(&self) -> Compiler<'_, E> {
        Compiler {
            kernels: self.kernels,
            bindings: &self.bindings,
        }
    }
}

/// Runs a compiled plan over `inputs` and measures it.
fn execute<E: Send>(
    plan: &Plan<E>,
    inputs: Vec<E>,
    ctx: &Ctx,
    trim: f64,
) -> Result<Run<E>, ExecError> {
    let (in_tx, in_rx) = unbounded();
    for (index, value) in inputs.into_iter().enumerate() {
        // The receiver is alive: this cannot fail.
        let _ = in_tx.send(Item::new(index, value));
    }
    drop(in_tx);
    let (out_tx, out_rx) = unbounded();
    let start = Instant::now();
    thread::scope(|s| {
        let mut handles = Vec::new();
        let input = In {
            rx: in_rx,
            entry: true,
        };
        let output = Out {
            tx: out_tx,
            exit: true,
        };
        if let Err(e) = spawn(s, plan, input, output, ctx, &mut handles, 0) {
            ctx.fail(e);
        }
        join_all(handles, ctx);
    });
    if let Some(e) = ctx.take_failure() {
        return Err(e);
    }
    let items: Vec<Item<E>> = out_rx.try_iter().collect();
    let mut run = Run::measured(items, start, ctx, trim, plan.threads());
    run.metrics.set_thread_times(ctx.take_thread_times());
    Ok(run)
}
