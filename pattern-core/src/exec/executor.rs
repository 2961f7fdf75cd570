//! The executor: runs a design's structure for real, on threads, over a
//! stream of elements.
//!
//! | pattern | how it runs |
//! | --- | --- |
//! | atom `f` | the kernel registered for `f`, called on the element |
//! | `seq(a, b)` | `a` then `b` on the same thread, element by element; if a part contains a `pipe` or `tpool`, phase by phase over windows of elements (all of the window through `a`, then all through `b`), so the parts do not overlap, as `M[a] + M[b]` assumes |
//! | `pipe(a, b)` | `a` and `b` on their own threads, connected by a bounded channel; order is kept when both stages keep it |
//! | `tpool[n](t)` | `n` workers (each an instance of `t`) pulling from one shared queue; no order |
//! | `mapreduce[m = 1, n](map, shuffle, reduce)` | per element (a [`Job`](super::Job)): the map kernel on every input on `n` threads, the pairs grouped by key ([`group_by_key`](super::group_by_key), the shuffle), the reduce kernel on every key on `n` threads |
//!
//! The program's input is a queue filled with every element before the
//! clock starts; an element *enters* when the program takes it from there and
//! *leaves* when the last stage hands it on. Stages wait on an empty or full
//! channel by spinning for a while ([`Executor::spin`]) and then blocking.

use super::error::ExecError;
use super::kernels::{ElementKernel, Kernel, Kernels, MapPhase, ReducePhase};
use super::metrics::{Departure, Metrics, ThreadTimes, Warning};
use super::placement::Cores;
use crate::{Count, Term};
use crossbeam_channel::{Receiver, Sender, TryRecvError, TrySendError, bounded, unbounded};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::{self, Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

/// The most threads a design may ask for; more is refused (a typo such as
/// `tpool[100000]` should not bring the machine down).
pub const MAX_THREADS: usize = 1024;

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
}

/// The result of [`Executor::run`].
#[derive(Clone, Debug)]
pub struct Run<E> {
    /// The elements that left the program, with their input positions, in
    /// the order they left.
    pub outputs: Vec<(usize, E)>,
    /// When each of them entered and left, in the same order.
    pub departures: Vec<Departure>,
    /// The measured metrics.
    pub metrics: Metrics,
    /// What the reader should know about the run.
    pub warnings: Vec<Warning>,
}

impl<E> Run<E> {
    /// The outputs sorted by input position.
    pub fn into_input_order(self) -> Vec<E> {
        let mut outputs = self.outputs;
        outputs.sort_by_key(|(i, _)| *i);
        outputs.into_iter().map(|(_, e)| e).collect()
    }

    /// Whether the elements left in the order they came in.
    pub fn kept_order(&self) -> bool {
        self.outputs.windows(2).all(|w| w[0].0 < w[1].0)
    }
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
        }
    }

    /// Capacity of the channel between two pipeline stages (default 4; at
    /// least 1).
    pub fn capacity(mut self, elements: usize) -> Self {
        self.capacity = elements.max(1);
        self
    }

    /// How long a stage spins on an empty or full channel before it blocks
    /// (default 100 µs). Blocking costs the other side a wake-up system call
    /// per element; spinning costs the waiting stage's core, which the
    /// pipeline owns anyway. `Duration::ZERO` blocks at once.
    pub fn spin(mut self, spin: Duration) -> Self {
        self.spin = spin;
        self
    }

    /// Elements per window of a `seq` over parallel parts (default 64; at
    /// least 1).
    pub fn window(mut self, elements: usize) -> Self {
        self.window = elements.max(1);
        self
    }

    /// The fraction of departures left out at each end of the run for the
    /// steady state (default 0.1; clamped to `0..=0.5`).
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
    /// kernels and counts like [`Executor::run`]).
    pub fn threads(&self, term: &Term) -> Result<usize, ExecError> {
        term.check()?;
        Ok(self.compile(term)?.threads())
    }

    /// Runs `term` over `inputs` and measures it.
    ///
    /// Every input element leaves exactly once (unless a kernel panics: then
    /// the run stops and the error names the atom). Warns when the design
    /// runs more threads than the machine has cores.
    pub fn run(&self, term: &Term, inputs: Vec<E>) -> Result<Run<E>, ExecError> {
        term.check()?;
        let plan = self.compile(term)?;
        let threads = plan.threads();
        let cores = thread::available_parallelism().map_or(1, |n| n.get());
        let mut warnings = Vec::new();
        if threads > cores {
            warnings.push(Warning::Oversubscribed { threads, cores });
        }
        let mut ctx = Ctx::new(self.spin, self.capacity, self.window);
        ctx.cores = self.pin.then(Cores::of_current_thread);
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
            if let Err(e) = spawn(s, &plan, input, output, &ctx, &mut handles, 0) {
                ctx.fail(e);
            }
            join_all(handles, &ctx);
        });
        if let Some(e) = ctx.take_failure() {
            return Err(e);
        }
        let mut items: Vec<Item<E>> = out_rx.try_iter().collect();
        items.sort_by_key(|it| it.leave);
        let ns = |t: Option<Instant>| t.map_or(0.0, |t| t.duration_since(start).as_nanos() as f64);
        let departures: Vec<Departure> = items
            .iter()
            .map(|it| Departure {
                index: it.index,
                enter_ns: ns(it.enter),
                leave_ns: ns(it.leave),
            })
            .collect();
        let makespan_ns = departures.last().map_or(0.0, |d| d.leave_ns);
        let mut metrics = Metrics::from_departures(
            &departures,
            self.trim,
            makespan_ns,
            ctx.max_in_flight.load(Ordering::SeqCst),
            threads,
        );
        metrics.set_thread_times(ctx.take_thread_times());
        Ok(Run {
            outputs: items.into_iter().map(|it| (it.index, it.value)).collect(),
            departures,
            metrics,
            warnings,
        })
    }

    fn count(&self, count: &Count, pattern: &Term) -> Result<usize, ExecError> {
        let value = match count {
            Count::Fixed(k) => *k,
            Count::Symbol(name) => self
                .bindings
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| *v)
                .ok_or_else(|| ExecError::UnboundCount {
                    name: name.clone(),
                    pattern: pattern.to_string(),
                })?,
        };
        match usize::try_from(value) {
            Ok(v) if (1..=MAX_THREADS).contains(&v) => Ok(v),
            _ => Err(ExecError::Unsupported {
                pattern: pattern.to_string(),
                reason: format!("a count of {value}: counts run from 1 to {MAX_THREADS}"),
            }),
        }
    }

    fn compile(&self, term: &Term) -> Result<Plan<E>, ExecError> {
        let plan = self.compile_node(term)?;
        let threads = plan.threads();
        if threads > MAX_THREADS {
            return Err(ExecError::Unsupported {
                pattern: term.to_string(),
                reason: format!("it runs {threads} threads, more than {MAX_THREADS}"),
            });
        }
        Ok(plan)
    }

    fn kernel(&self, name: &str) -> Result<&Kernel<E>, ExecError> {
        self.kernels
            .get(name)
            .ok_or_else(|| ExecError::MissingKernel {
                name: name.to_string(),
                registered: self.kernels.names().join(", "),
            })
    }

    fn compile_node(&self, term: &Term) -> Result<Plan<E>, ExecError> {
        Ok(match term {
            Term::On(..) | Term::Par(..) | Term::Groups(..) | Term::Redist(..) => {
                return Err(ExecError::Unsupported {
                    pattern: term.to_string(),
                    reason: "it places tasks on processor groups, which need a distributed machine, not threads".into(),
                });
            }
            Term::Atom(a) => match self.kernel(&a.name)? {
                Kernel::Element(f) => Plan::Step(Step::Atom {
                    name: a.name.clone(),
                    f: f.clone(),
                }),
                other => {
                    return Err(ExecError::WrongKernel {
                        name: a.name.clone(),
                        expected: "an element kernel",
                        found: other.kind(),
                    });
                }
            },
            Term::Seq(a, b) => {
                let parts = [self.compile_node(a)?, self.compile_node(b)?];
                match parts {
                    [Plan::Step(x), Plan::Step(y)] => Plan::Step(Step::seq(x, y)),
                    parts => Plan::phases(parts),
                }
            }
            Term::Pipe(a, b) => Plan::Pipe(
                Box::new(self.compile_node(a)?),
                Box::new(self.compile_node(b)?),
            ),
            Term::Tpool(n, t) => Plan::Pool(self.count(n, term)?, Box::new(self.compile_node(t)?)),
            Term::MapReduce {
                params,
                map,
                reduce,
                ..
            } => {
                let m = self.count(&params.m, term)?;
                if m != 1 {
                    return Err(ExecError::Unsupported {
                        pattern: term.to_string(),
                        reason: format!(
                            "it runs on m = {m} nodes; the executor runs on one node (m = 1)"
                        ),
                    });
                }
                let n = self.count(&params.n, term)?;
                let (map_name, map) = match &**map {
                    Term::Atom(a) => match self.kernel(&a.name)? {
                        Kernel::Map(f) => (a.name.clone(), f.clone()),
                        other => {
                            return Err(ExecError::WrongKernel {
                                name: a.name.clone(),
                                expected: "a map kernel (Kernels::add_map)",
                                found: other.kind(),
                            });
                        }
                    },
                    other => {
                        return Err(ExecError::Unsupported {
                            pattern: term.to_string(),
                            reason: format!(
                                "its map phase `{other}` is not an atom with a map kernel"
                            ),
                        });
                    }
                };
                let (reduce_name, reduce) = match &**reduce {
                    Term::Atom(a) => match self.kernel(&a.name)? {
                        Kernel::Reduce(f) => (a.name.clone(), f.clone()),
                        other => {
                            return Err(ExecError::WrongKernel {
                                name: a.name.clone(),
                                expected: "a reduce kernel (Kernels::add_reduce)",
                                found: other.kind(),
                            });
                        }
                    },
                    other => {
                        return Err(ExecError::Unsupported {
                            pattern: term.to_string(),
                            reason: format!(
                                "its reduce phase `{other}` is not an atom with a reduce kernel"
                            ),
                        });
                    }
                };
                Plan::Step(Step::MapReduce {
                    n,
                    map_name,
                    map,
                    reduce_name,
                    reduce,
                })
            }
        })
    }
}

/// An element on its way through the program.
struct Item<E> {
    index: usize,
    enter: Option<Instant>,
    leave: Option<Instant>,
    value: E,
}

impl<E> Item<E> {
    fn new(index: usize, value: E) -> Self {
        Item {
            index,
            enter: None,
            leave: None,
            value,
        }
    }
}

/// Where a part of the program reads; `entry` if it is the program's input
/// (taking an element stamps its entry time).
struct In<E> {
    rx: Receiver<Item<E>>,
    entry: bool,
}

impl<E> Clone for In<E> {
    fn clone(&self) -> Self {
        In {
            rx: self.rx.clone(),
            entry: self.entry,
        }
    }
}

/// Where a part of the program writes; `exit` if it is the program's output
/// (handing an element on stamps its departure time).
struct Out<E> {
    tx: Sender<Item<E>>,
    exit: bool,
}

impl<E> Clone for Out<E> {
    fn clone(&self) -> Self {
        Out {
            tx: self.tx.clone(),
            exit: self.exit,
        }
    }
}

/// What runs on one thread per element.
enum Step<E> {
    Atom {
        name: String,
        f: ElementKernel<E>,
    },
    Seq(Vec<Step<E>>),
    MapReduce {
        n: usize,
        map_name: String,
        map: MapPhase<E>,
        reduce_name: String,
        reduce: ReducePhase<E>,
    },
}

impl<E> Step<E> {
    fn seq(a: Step<E>, b: Step<E>) -> Step<E> {
        let mut steps = Vec::new();
        for s in [a, b] {
            match s {
                Step::Seq(inner) => steps.extend(inner),
                other => steps.push(other),
            }
        }
        Step::Seq(steps)
    }

    fn threads(&self) -> usize {
        match self {
            Step::Atom { .. } => 1,
            Step::Seq(steps) => steps.iter().map(Step::threads).max().unwrap_or(1),
            Step::MapReduce { n, .. } => *n,
        }
    }

    /// Runs the step on one element on the design's thread number
    /// `thread`; `false` if a kernel failed.
    fn run(&self, value: &mut E, ctx: &Ctx, thread: usize) -> bool {
        match self {
            Step::Atom { name, f } => ctx.call(name, || f(value)).is_some(),
            Step::Seq(steps) => steps.iter().all(|s| s.run(value, ctx, thread)),
            Step::MapReduce {
                n,
                map_name,
                map,
                reduce_name,
                reduce,
            } => {
                let workers = Workers {
                    n: *n,
                    ctx,
                    first: thread,
                };
                let Some(grouped) = map(value, &workers) else {
                    return false;
                };
                if !reduce(value, grouped, &workers) {
                    if !ctx.stopped() {
                        ctx.fail(ExecError::Unsupported {
                            pattern: format!("{map_name} / {reduce_name}"),
                            reason: "the map and reduce kernels disagree on the value type".into(),
                        });
                    }
                    return false;
                }
                true
            }
        }
    }
}

/// The runnable form of a term.
enum Plan<E> {
    /// Per element on one thread.
    Step(Step<E>),
    /// Two parts on their own threads, connected by a bounded channel.
    Pipe(Box<Plan<E>>, Box<Plan<E>>),
    /// `n` instances of a part sharing the input and the output.
    Pool(usize, Box<Plan<E>>),
    /// A `seq` over parallel parts: window by window, part after part.
    Phases(Vec<Plan<E>>),
}

impl<E> Plan<E> {
    /// Flattens nested phases and fuses neighbouring steps.
    fn phases(parts: impl IntoIterator<Item = Plan<E>>) -> Plan<E> {
        let mut out: Vec<Plan<E>> = Vec::new();
        for part in parts {
            let inner = match part {
                Plan::Phases(inner) => inner,
                other => vec![other],
            };
            for p in inner {
                match (out.pop(), p) {
                    (Some(Plan::Step(a)), Plan::Step(b)) => out.push(Plan::Step(Step::seq(a, b))),
                    (last, p) => {
                        out.extend(last);
                        out.push(p);
                    }
                }
            }
        }
        Plan::Phases(out)
    }

    fn threads(&self) -> usize {
        match self {
            Plan::Step(s) => s.threads(),
            Plan::Pipe(a, b) => a.threads().saturating_add(b.threads()),
            Plan::Pool(n, p) => n.saturating_mul(p.threads()),
            Plan::Phases(parts) => parts.iter().map(Plan::threads).max().unwrap_or(1),
        }
    }
}

/// Shared state of a run: the in-flight counter, the first failure, the
/// options.
pub(crate) struct Ctx {
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    /// How each thread spent its time; `None` once a thread could not
    /// tell (no `/proc/thread-self/schedstat`).
    thread_times: Mutex<Option<Vec<ThreadTimes>>>,
    stop: AtomicBool,
    failure: Mutex<Option<ExecError>>,
    spin: Duration,
    capacity: usize,
    window: usize,
    /// Where to pin the threads ([`Executor::pin_threads`]).
    cores: Option<Cores>,
}

impl Ctx {
    fn new(spin: Duration, capacity: usize, window: usize) -> Ctx {
        Ctx {
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            thread_times: Mutex::new(Some(Vec::new())),
            stop: AtomicBool::new(false),
            failure: Mutex::new(None),
            spin,
            capacity,
            window,
            cores: None,
        }
    }

    /// Starts the accounting of the calling thread, the design's thread
    /// number `thread` (pinning it first, if the run is pinned).
    fn begin(&self, thread: usize) -> ThreadStart {
        if let Some(cores) = &self.cores {
            cores.pin_current(cores.core_of_thread(thread));
        }
        BLOCKED_NS.with(|b| b.set(0));
        ThreadStart {
            thread,
            at: Instant::now(),
            sched: sched_now(),
        }
    }

    /// Records how the calling thread spent its time since `start`.
    fn account(&self, start: ThreadStart) {
        let wall_ns = start.at.elapsed().as_nanos() as f64;
        let blocked_ns = BLOCKED_NS.with(|b| b.get()) as f64;
        let mut slot = self.thread_times.lock().unwrap_or_else(|p| p.into_inner());
        match (start.sched, sched_now(), slot.as_mut()) {
            (Some((cpu0, wait0)), Some((cpu1, wait1)), Some(times)) => times.push(ThreadTimes {
                thread: start.thread,
                core: self.cores.as_ref().map(|c| c.core_of_thread(start.thread)),
                wall_ns,
                cpu_ns: cpu1.saturating_sub(cpu0) as f64,
                wait_ns: wait1.saturating_sub(wait0) as f64,
                blocked_ns,
            }),
            _ => *slot = None,
        }
    }

    fn take_thread_times(&self) -> Option<Vec<ThreadTimes>> {
        self.thread_times
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Records the first failure and tells every thread to stop.
    fn fail(&self, e: ExecError) {
        let mut slot = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        self.stop.store(true, Ordering::SeqCst);
    }

    fn take_failure(&self) -> Option<ExecError> {
        self.failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// Calls a kernel, counted as a task in flight; a panic becomes a
    /// failure of the run.
    fn call<R>(&self, atom: &str, f: impl FnOnce() -> R) -> Option<R> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let result = catch_unwind(AssertUnwindSafe(f));
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        match result {
            Ok(r) => Some(r),
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(no message)".to_string());
                self.fail(ExecError::KernelPanicked {
                    atom: atom.to_string(),
                    message,
                });
                None
            }
        }
    }

    /// Takes the next element: spins for `spin`, then blocks. `None` when
    /// the channel is closed and empty, or the run stops.
    fn recv<E>(&self, input: &In<E>) -> Option<Item<E>> {
        if self.stopped() {
            return None;
        }
        let mut item = match input.rx.try_recv() {
            Ok(item) => item,
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => self.wait_recv(&input.rx)?,
        };
        if input.entry {
            item.enter = Some(Instant::now());
        }
        Some(item)
    }

    fn wait_recv<T>(&self, rx: &Receiver<T>) -> Option<T> {
        if !self.spin.is_zero() {
            let deadline = Instant::now() + self.spin;
            loop {
                pause();
                match rx.try_recv() {
                    Ok(v) => return Some(v),
                    Err(TryRecvError::Disconnected) => return None,
                    Err(TryRecvError::Empty) => {}
                }
                if self.stopped() || Instant::now() >= deadline {
                    break;
                }
            }
        }
        blocking(|| rx.recv().ok())
    }

    /// Hands an element on: spins for `spin` on a full channel, then
    /// blocks. `false` if the other side is gone or the run stops.
    fn send<E>(&self, output: &Out<E>, mut item: Item<E>) -> bool {
        if self.stopped() {
            return false;
        }
        if output.exit {
            item.leave = Some(Instant::now());
        }
        match output.tx.try_send(item) {
            Ok(()) => true,
            Err(TrySendError::Disconnected(_)) => false,
            Err(TrySendError::Full(item)) => self.wait_send(&output.tx, item),
        }
    }

    fn wait_send<T>(&self, tx: &Sender<T>, mut value: T) -> bool {
        if !self.spin.is_zero() {
            let deadline = Instant::now() + self.spin;
            loop {
                pause();
                match tx.try_send(value) {
                    Ok(()) => return true,
                    Err(TrySendError::Disconnected(_)) => return false,
                    Err(TrySendError::Full(v)) => value = v,
                }
                if self.stopped() || Instant::now() >= deadline {
                    break;
                }
            }
        }
        blocking(|| tx.send(value).is_ok())
    }
}

thread_local! {
    /// Time the calling thread spent blocked (asleep on a channel or a
    /// join) since its accounting began, ns.
    static BLOCKED_NS: Cell<u64> = const { Cell::new(0) };
}

/// Runs `f`, which may put the thread to sleep, and counts its time as
/// blocked: a thread's time is CPU, run-queue wait, blocked, or stolen by
/// the hypervisor (the rest).
fn blocking<R>(f: impl FnOnce() -> R) -> R {
    let start = Instant::now();
    let r = f();
    let ns = start.elapsed().as_nanos() as u64;
    BLOCKED_NS.with(|b| b.set(b.get().saturating_add(ns)));
    r
}

/// Where a thread's accounting began.
struct ThreadStart {
    thread: usize,
    at: Instant,
    sched: Option<(u64, u64)>,
}

/// One pause of a waiting stage: a short busy wait. (Yielding instead
/// hands the core to any other process that is ready, for a whole time
/// slice: on a loaded machine both stages of a pipeline then lose their
/// cores at every wait, which doubled the time per element in pipelines of
/// short stages.)
fn pause() {
    for _ in 0..64 {
        std::hint::spin_loop();
    }
}

/// The current thread's CPU time and time spent waiting on a run queue, in
/// ns, from `/proc/thread-self/schedstat` (Linux); `None` elsewhere.
fn sched_now() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let mut fields = text.split_whitespace().map(|t| t.parse::<u64>().ok());
    Some((fields.next()??, fields.next()??))
}

/// The threads of a mapReduce phase: the calling thread and `n - 1`
/// helpers.
pub(crate) struct Workers<'a> {
    n: usize,
    ctx: &'a Ctx,
    /// The design's number of the calling thread; the helpers follow it.
    first: usize,
}

impl Workers<'_> {
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
        let ctx = self.ctx;
        let work = || {
            let mut done = Vec::new();
            while !ctx.stopped() {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= len {
                    break;
                }
                match ctx.call(atom, || f(i)) {
                    Some(r) => done.push((i, r)),
                    None => break,
                }
            }
            done
        };
        let helpers = self.n.min(len).saturating_sub(1);
        let parts = thread::scope(|s| {
            let mut handles = Vec::with_capacity(helpers);
            let helper = |h: usize| {
                let start = ctx.begin(self.first + 1 + h);
                let done = work();
                ctx.account(start);
                done
            };
            for h in 0..helpers {
                match thread::Builder::new()
                    .name(format!("mapreduce-{atom}"))
                    .spawn_scoped(s, move || helper(h))
                {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        ctx.fail(ExecError::Spawn(e.to_string()));
                        break;
                    }
                }
            }
            let mut parts = vec![work()];
            for h in handles {
                match blocking(|| h.join()) {
                    Ok(p) => parts.push(p),
                    Err(_) => ctx.fail(ExecError::Spawn("a mapReduce worker died".into())),
                }
            }
            parts
        });
        if ctx.stopped() {
            return None;
        }
        let mut slots: Vec<Option<R>> = (0..len).map(|_| None).collect();
        for (i, r) in parts.into_iter().flatten() {
            slots[i] = Some(r);
        }
        slots.into_iter().collect()
    }
}

type Handles<'scope> = Vec<ScopedJoinHandle<'scope, ()>>;

/// Starts the threads of `plan`, reading from `input` and writing to
/// `output`; its first thread is the design's thread number `first`.
fn spawn<'scope, E: Send>(
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
                        if !step.run(&mut item.value, ctx, first) || !ctx.send(&output, item) {
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

fn join_all(handles: Handles<'_>, ctx: &Ctx) {
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
        let mut window = Vec::with_capacity(ctx.window);
        while window.len() < ctx.window {
            match ctx.recv(&input) {
                Some(item) => window.push(item),
                None => break,
            }
        }
        if window.is_empty() {
            return;
        }
        for part in parts {
            window = match part {
                Plan::Step(step) => {
                    for item in &mut window {
                        if !step.run(&mut item.value, ctx, first) {
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
