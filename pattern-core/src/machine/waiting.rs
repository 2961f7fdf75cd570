//! What a machine's threads cost to wait for an element and to hand one
//! over: the part of a machine that a runtime (the executor, with its
//! channels) sets, measured by `pattern machine --probe`. A machine without
//! it waits for free: elements move at no cost and a woken thread runs at
//! once, the operators' view.

use serde::{Deserialize, Serialize};

/// How threads wait and hand elements over, in ns. Every cost is 0, the
/// spin endless and the threads free to run on any core of their node
/// unless set.
///
/// ```
/// use pattern_core::machine::{Machine, Waiting};
///
/// let waits = Waiting::new().handoff_ns(300.0).take_ns(120.0).wake_latency_ns(4e3);
/// let m = Machine::new(1, 2).waiting(waits);
/// assert_eq!(m.waiting_costs().handoff_ns, 300.0);
/// assert_eq!(Machine::new(1, 2).waiting_costs(), &Waiting::new());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Waiting {
    /// CPU time of handing an element to the next stage of a pipeline:
    /// the steady-state time per element of `pipe(pass, pass)`.
    #[serde(deserialize_with = "super::values::ns")]
    pub handoff_ns: f64,
    /// CPU time of taking an element from a queue several threads share
    /// (a task pool's).
    #[serde(deserialize_with = "super::values::ns")]
    pub take_ns: f64,
    /// How long a thread woken while every core it may run on is busy
    /// waits before it runs: the scheduler lets the running thread go on,
    /// and another thread that frees itself meanwhile takes the element.
    #[serde(deserialize_with = "super::values::ns")]
    pub wake_latency_ns: f64,
    /// How long a thread that finds its queue empty polls it before it
    /// sleeps; `None` (`null` in a file): it polls for ever.
    #[serde(deserialize_with = "super::values::optional_ns")]
    pub spin_ns: Option<f64>,
    /// CPU time a thread woken for an element another took meanwhile spends
    /// on its core (competing with the thread running there) before it
    /// waits again.
    #[serde(deserialize_with = "super::values::ns")]
    pub wake_cost_ns: f64,
    /// What waking a thread asleep on a free core costs the thread that
    /// hands it an element, on the waker's core.
    #[serde(deserialize_with = "super::values::ns")]
    pub waker_cost_ns: f64,
    /// Whether the runtime pins its threads: thread `i` of a design, in the
    /// order of its text (a pool's workers one after another), runs on core
    /// `i mod cores` of its node, and each core is shared by its own
    /// threads alone (`Executor::pin_threads`). Unpinned, a node's cores
    /// are shared by all its threads.
    pub pinned: bool,
}

impl Default for Waiting {
    fn default() -> Waiting {
        Waiting::new()
    }
}

impl Waiting {
    /// Free waiting: no costs, no latency, endless spin, threads unpinned.
    pub const fn new() -> Waiting {
        Waiting {
            handoff_ns: 0.0,
            take_ns: 0.0,
            wake_latency_ns: 0.0,
            spin_ns: None,
            wake_cost_ns: 0.0,
            waker_cost_ns: 0.0,
            pinned: false,
        }
    }

    /// Sets [`Waiting::handoff_ns`].
    pub fn handoff_ns(mut self, ns: f64) -> Waiting {
        self.handoff_ns = ns;
        self
    }

    /// Sets [`Waiting::take_ns`].
    pub fn take_ns(mut self, ns: f64) -> Waiting {
        self.take_ns = ns;
        self
    }

    /// Sets [`Waiting::wake_latency_ns`].
    pub fn wake_latency_ns(mut self, ns: f64) -> Waiting {
        self.wake_latency_ns = ns;
        self
    }

    /// Sets [`Waiting::spin_ns`] (`f64::INFINITY`: for ever).
    pub fn spin_ns(mut self, ns: f64) -> Waiting {
        self.spin_ns = (ns != f64::INFINITY).then_some(ns);
        self
    }

    /// Sets [`Waiting::wake_cost_ns`].
    pub fn wake_cost_ns(mut self, ns: f64) -> Waiting {
        self.wake_cost_ns = ns;
        self
    }

    /// Sets [`Waiting::waker_cost_ns`].
    pub fn waker_cost_ns(mut self, ns: f64) -> Waiting {
        self.waker_cost_ns = ns;
        self
    }

    /// Sets [`Waiting::pinned`].
    pub fn pinned(mut self, on: bool) -> Waiting {
        self.pinned = on;
        self
    }

    /// The spin in ns, infinite for ever.
    pub fn spin(&self) -> f64 {
        self.spin_ns.unwrap_or(f64::INFINITY)
    }

    /// Whether waiting costs nothing and threads are free: the operators'
    /// view.
    pub fn is_free(&self) -> bool {
        *self == Waiting::new()
    }

    /// The first cost out of its range, as (its key, its value, what it
    /// must be): every cost a finite number of ns >= 0, the spin too (or
    /// none).
    pub(crate) fn invalid(&self) -> Option<(&'static str, f64, &'static str)> {
        const NS: &str = "a finite number of ns >= 0";
        let costs = [
            ("handoff_ns", self.handoff_ns),
            ("take_ns", self.take_ns),
            ("wake_latency_ns", self.wake_latency_ns),
            ("spin_ns", self.spin_ns.unwrap_or(0.0)),
            ("wake_cost_ns", self.wake_cost_ns),
            ("waker_cost_ns", self.waker_cost_ns),
        ];
        costs
            .into_iter()
            .find(|(_, v)| !(v.is_finite() && *v >= 0.0))
            .map(|(k, v)| (k, v, NS))
    }
}
