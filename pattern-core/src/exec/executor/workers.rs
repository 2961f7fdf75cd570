//! The threads of a run: their shared state (kernel calls counted in
//! flight, the first failure, the stop flag), the channels between stages
//! with their spin-then-block waits, the accounting of each thread's time,
//! and the helper threads of a mapReduce phase ([`Workers`]).

use crate::exec::error::ExecError;
use crate::exec::metrics::ThreadTimes;
use crate::exec::placement::Cores;
use crate::fit::measure::clock::waited_ns;
use crate::fit::measure::thread_cpu_ns;
use crossbeam_channel::{Receiver, Sender, TryRecvError, TrySendError};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// An element on its way through the program.
pub(super) struct Item<E> {
    pub(super) index: usize,
    pub(super) enter: Option<Instant>,
    pub(super) leave: Option<Instant>,
    pub(super) value: E,
}

impl<E> Item<E> {
    pub(super) fn new(index: usize, value: E) -> Self {
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
pub(super) struct In<E> {
    pub(super) rx: Receiver<Item<E>>,
    pub(super) entry: bool,
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
pub(super) struct Out<E> {
    pub(super) tx: Sender<Item<E>>,
    pub(super) exit: bool,
}

impl<E> Clone for Out<E> {
    fn clone(&self) -> Self {
        Out {
            tx: self.tx.clone(),
            exit: self.exit,
        }
    }
}

/// Shared state of a run: the in-flight counter, the first failure, the
/// options.
pub(crate) struct Ctx {
    in_flight: AtomicUsize,
    pub(super) max_in_flight: AtomicUsize,
    /// How each thread spent its time; `None` once a thread could not
    /// tell (no `/proc/thread-self/schedstat`).
    thread_times: Mutex<Option<Vec<ThreadTimes>>>,
    stop: AtomicBool,
    failure: Mutex<Option<ExecError>>,
    spin: Duration,
    pub(super) capacity: usize,
    pub(super) window: usize,
    /// Where to pin the threads ([`Executor::pin_threads`](super::Executor::pin_threads)).
    pub(super) cores: Option<Cores>,
    /// Kernels running per atom, kept when the run has a deadline.
    running: Option<Mutex<std::collections::BTreeMap<String, usize>>>,
    /// A mapReduce's emptied buckets, kept for the next job
    /// ([`Workers::buffer`]).
    spare: Mutex<Vec<Box<dyn std::any::Any + Send>>>,
}

impl Ctx {
    pub(super) fn new(spin: Duration, capacity: usize, window: usize) -> Ctx {
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
            running: None,
            spare: Mutex::new(Vec::new()),
        }
    }

    /// Starts the accounting of the calling thread, the design's thread
    /// number `thread` (pinning it first, if the run is pinned).
    pub(super) fn begin(&self, thread: usize) -> ThreadStart {
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
    pub(super) fn account(&self, start: ThreadStart) {
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

    pub(super) fn take_thread_times(&self) -> Option<Vec<ThreadTimes>> {
        self.thread_times
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// Counts the kernels of `atom` running, when a deadline asks for it.
    fn track(&self, atom: &str, entering: bool) {
        let Some(running) = &self.running else {
            return;
        };
        let mut running = running.lock().unwrap_or_else(|p| p.into_inner());
        let count = running.entry(atom.to_string()).or_insert(0);
        if entering {
            *count += 1;
        } else {
            *count = count.saturating_sub(1);
        }
    }

    /// Keeps count of the kernels running, to name them at a deadline.
    pub(super) fn track_running(&mut self) {
        self.running = Some(Mutex::new(std::collections::BTreeMap::new()));
    }

    /// The atoms with a kernel running now.
    pub(super) fn running(&self) -> Vec<String> {
        self.running.as_ref().map_or_else(Vec::new, |running| {
            let running = running.lock().unwrap_or_else(|p| p.into_inner());
            running
                .iter()
                .filter(|(_, n)| **n > 0)
                .map(|(atom, _)| atom.clone())
                .collect()
        })
    }

    /// Tells every thread to stop (at a deadline).
    pub(super) fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Records the first failure and tells every thread to stop.
    pub(super) fn fail(&self, e: ExecError) {
        let mut slot = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        self.stop.store(true, Ordering::SeqCst);
    }

    pub(super) fn take_failure(&self) -> Option<ExecError> {
        self.failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// Calls a kernel, counted as a task in flight; a panic becomes a
    /// failure of the run.
    pub(super) fn call<R>(&self, atom: &str, f: impl FnOnce() -> R) -> Option<R> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        self.track(atom, true);
        let result = catch_unwind(AssertUnwindSafe(f));
        self.track(atom, false);
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
    pub(super) fn recv<E>(&self, input: &In<E>) -> Option<Item<E>> {
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
    pub(super) fn send<E>(&self, output: &Out<E>, mut item: Item<E>) -> bool {
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
pub(super) fn blocking<R>(f: impl FnOnce() -> R) -> R {
    let start = Instant::now();
    let r = f();
    let ns = start.elapsed().as_nanos() as u64;
    BLOCKED_NS.with(|b| b.set(b.get().saturating_add(ns)));
    r
}

/// Where a thread's accounting began.
pub(super) struct ThreadStart {
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

/// The current thread's CPU time (up to date, [`thread_cpu_ns`]) and time
/// spent waiting on a run queue (`/proc/thread-self/schedstat`), in ns
/// (Linux); `None` elsewhere.
fn sched_now() -> Option<(u64, u64)> {
    Some((thread_cpu_ns()?, waited_ns()?))
}

/// The threads of a mapReduce phase: the calling thread and `n - 1`
/// helpers.
pub(crate) struct Workers<'a> {
    pub(super) n: usize,
    /// The keys the design declares, `k(x)`.
    pub(super) keys: &'a crate::Expr,
    pub(super) ctx: &'a Ctx,
    /// The design's number of the calling thread; the helpers follow it.
    pub(super) first: usize,
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

    /// Runs `work` on `min(n, tasks)` workers at once (the calling thread
    /// and helpers, which share out the tasks themselves) and returns what
    /// each returned, the calling thread's first; `None` if a kernel
    /// failed or the run stopped.
    pub(crate) fn on_workers<R: Send>(
        &self,
        atom: &str,
        tasks: usize,
        work: impl Fn() -> R + Sync,
    ) -> Option<Vec<R>> {
        let ctx = self.ctx;
        let work = &work;
        let helpers = self.n.min(tasks).saturating_sub(1);
        let parts = thread::scope(|s| {
            let mut handles = Vec::with_capacity(helpers);
            let spawn_all = |handles: &mut Vec<_>| {
                for h in 0..helpers {
                    let helper = move || {
                        let start = ctx.begin(self.first + 1 + h);
                        let done = work();
                        ctx.account(start);
                        done
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
        Some(parts)
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
