//! The state a run shares between its threads, whichever runner runs it
//! (the [`Executor`](super::Executor), the rayon runner): the kernel calls, the first failure, the stop
//! flag, the elements with their entry and departure stamps, the channels
//! between stages with their spin-then-block waits (no spin: block at
//! once), and the accounting of each thread's time.

use crate::exec::calls::Calls;
use crate::exec::error::ExecError;
use crate::exec::metrics::ThreadTimes;
use crate::exec::placement::Cores;
use crate::fit::measure::clock::waited_ns;
use crate::fit::measure::thread_cpu_ns;
use crossbeam_channel::{Receiver, Sender, TryRecvError, TrySendError};
use std::cell::Cell;
use std::num::NonZeroU64;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// When an element entered or left: ns since the run's clock started
/// ([`Ctx::stamp`]), plus one; `None` until stamped. Eight bytes, not an
/// `Option<Instant>`'s sixteen: an element crosses a channel at every stage
/// boundary, and with two `Instant`s an item of a vector took 64 bytes, a
/// channel's slot two cache lines (a vector padded to 64 bytes cost a
/// two-stage pipeline about 60 ns per element here).
pub(crate) type Stamp = Option<NonZeroU64>;

/// An element on its way through the program.
pub(crate) struct Item<E> {
    pub(crate) index: usize,
    pub(crate) enter: Stamp,
    pub(crate) leave: Stamp,
    pub(crate) value: E,
}

impl<E> Item<E> {
    pub(crate) fn new(index: usize, value: E) -> Self {
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
pub(crate) struct In<E> {
    pub(crate) rx: Receiver<Item<E>>,
    pub(crate) entry: bool,
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
pub(crate) struct Out<E> {
    pub(crate) tx: Sender<Item<E>>,
    pub(crate) exit: bool,
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
    /// The kernel calls, for the parallelism reached.
    pub(crate) calls: Calls,
    /// How each thread spent its time; `None` once a thread could not
    /// tell (no `/proc/thread-self/schedstat`).
    thread_times: Mutex<Option<Vec<ThreadTimes>>>,
    stop: AtomicBool,
    failure: Mutex<Option<ExecError>>,
    spin: Duration,
    pub(crate) capacity: usize,
    pub(crate) window: usize,
    /// Where to pin the threads ([`Executor::pin_threads`](super::Executor::pin_threads)).
    pub(crate) cores: Option<Cores>,
    /// Kernels running per atom, kept when the run has a deadline.
    running: Option<Mutex<std::collections::BTreeMap<String, usize>>>,
    /// A mapReduce's emptied buckets, kept for the next job
    /// ([`Workers::buffer`](super::phase::Workers::buffer)).
    pub(crate) spare: Mutex<Vec<Box<dyn std::any::Any + Send>>>,
}

impl Ctx {
    pub(crate) fn new(spin: Duration, capacity: usize, window: usize) -> Ctx {
        Ctx {
            calls: Calls::new(),
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
    pub(crate) fn begin(&self, thread: usize) -> ThreadStart {
        if let Some(cores) = &self.cores {
            cores.pin_current(cores.core_of_thread(thread));
        }
        BLOCKED_NS.with(|b| b.set(Some(0)));
        ThreadStart {
            thread,
            at: Instant::now(),
            sched: sched_now(),
        }
    }

    /// Records how the calling thread spent its time since `start`.
    pub(crate) fn account(&self, start: ThreadStart) {
        let wall_ns = start.at.elapsed().as_nanos() as f64;
        let blocked_ns = BLOCKED_NS.with(|b| b.take()).unwrap_or(0) as f64;
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

    pub(crate) fn take_thread_times(&self) -> Option<Vec<ThreadTimes>> {
        self.thread_times
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// The time now, as an element's [`Stamp`].
    pub(crate) fn stamp(&self) -> Stamp {
        NonZeroU64::new(self.calls.elapsed_ns().saturating_add(1))
    }

    /// A [`Stamp`] as ns since `start` (0 if not stamped, or before it).
    pub(crate) fn stamp_ns(&self, stamp: Stamp, start: Instant) -> f64 {
        let offset = start.saturating_duration_since(self.calls.start());
        let offset = u64::try_from(offset.as_nanos()).unwrap_or(u64::MAX);
        stamp.map_or(0.0, |s| (s.get() - 1).saturating_sub(offset) as f64)
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
    pub(crate) fn track_running(&mut self) {
        self.running = Some(Mutex::new(std::collections::BTreeMap::new()));
    }

    /// The atoms with a kernel running now.
    pub(crate) fn running(&self) -> Vec<String> {
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
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Records the first failure and tells every thread to stop.
    pub(crate) fn fail(&self, e: ExecError) {
        let mut slot = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        self.stop.store(true, Ordering::SeqCst);
    }

    pub(crate) fn take_failure(&self) -> Option<ExecError> {
        self.failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// Calls a kernel, logged as a call of its thread ([`Calls`]); a panic
    /// becomes a failure of the run.
    pub(crate) fn call<R>(&self, atom: &str, f: impl FnOnce() -> R) -> Option<R> {
        self.track(atom, true);
        let result = self.calls.time(|| catch_unwind(AssertUnwindSafe(f)));
        self.track(atom, false);
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
    pub(crate) fn recv<E>(&self, input: &In<E>) -> Option<Item<E>> {
        if self.stopped() {
            return None;
        }
        let mut item = match input.rx.try_recv() {
            Ok(item) => item,
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => self.wait_recv(&input.rx)?,
        };
        if input.entry {
            item.enter = self.stamp();
        }
        Some(item)
    }

    /// Takes up to a window of elements ([`Ctx::recv`] each): a `seq`
    /// over parallel parts runs them through its parts together. Empty
    /// when the input is done or the run stops.
    pub(crate) fn recv_window<E>(&self, input: &In<E>) -> Vec<Item<E>> {
        let mut window = Vec::with_capacity(self.window);
        while window.len() < self.window {
            match self.recv(input) {
                Some(item) => window.push(item),
                None => break,
            }
        }
        window
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
    pub(crate) fn send<E>(&self, output: &Out<E>, mut item: Item<E>) -> bool {
        if self.stopped() {
            return false;
        }
        if output.exit {
            item.leave = self.stamp();
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
    /// join) since its accounting began ([`Ctx::begin`]), ns; `None` when
    /// its time is not accounted (the rayon runner's threads).
    static BLOCKED_NS: Cell<Option<u64>> = const { Cell::new(None) };
}

/// Runs `f`, which may put the thread to sleep, and counts its time as
/// blocked if the thread's time is accounted: a thread's time is CPU,
/// run-queue wait, blocked, or stolen by the hypervisor (the rest). A
/// thread not accounted reads no clock here.
pub(crate) fn blocking<R>(f: impl FnOnce() -> R) -> R {
    if BLOCKED_NS.with(Cell::get).is_none() {
        return f();
    }
    let start = Instant::now();
    let r = f();
    let ns = start.elapsed().as_nanos() as u64;
    BLOCKED_NS.with(|b| b.set(b.get().map(|sum| sum.saturating_add(ns))));
    r
}

/// Where a thread's accounting began.
pub(crate) struct ThreadStart {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_is_eight_bytes_and_reads_as_ns_since_the_start() {
        assert_eq!(std::mem::size_of::<Stamp>(), 8);
        let ctx = Ctx::new(Duration::ZERO, 4, 64);
        let start = Instant::now();
        let stamp = ctx.stamp();
        let after = start.elapsed().as_nanos() as f64;
        let ns = ctx.stamp_ns(stamp, start);
        assert!(stamp.is_some());
        assert!(ns <= after, "{ns} > {after}");
        assert_eq!(ctx.stamp_ns(None, start), 0.0);
        // A stamp before the start counts from the start.
        let early = ctx.stamp();
        std::thread::sleep(Duration::from_millis(1));
        assert_eq!(ctx.stamp_ns(early, Instant::now()), 0.0);
    }

    #[test]
    fn only_an_accounted_thread_counts_its_time_blocked() {
        std::thread::spawn(|| {
            blocking(|| std::thread::sleep(Duration::from_millis(2)));
            assert_eq!(BLOCKED_NS.with(Cell::get), None);
            let ctx = Ctx::new(Duration::ZERO, 4, 64);
            let start = ctx.begin(0);
            blocking(|| std::thread::sleep(Duration::from_millis(2)));
            // Counted (no duration asserted: the suite runs on loaded machines).
            let blocked = BLOCKED_NS.with(Cell::get).expect("accounted");
            assert!(blocked > 0, "{blocked}");
            ctx.account(start);
            assert_eq!(BLOCKED_NS.with(Cell::get), None);
        })
        .join()
        .expect("the thread");
    }
}
