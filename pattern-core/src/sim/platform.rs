//! The machine a simulation runs on: nodes of cores, each node linked to a
//! crossbar.

use super::SimError;

/// Nodes of identical cores, each with one outgoing and one incoming link
/// (full duplex) to a crossbar that is never the bottleneck. Builder
/// methods take and return `self`; [`Platform::check`] (run by every
/// simulation) reports a value out of range.
///
/// ```
/// use pattern_core::sim::Platform;
///
/// let p = Platform::new(4, 2).latency(50_000.0).bandwidth(12.5);
/// assert_eq!((p.nodes(), p.cores()), (4, 2));
/// // A transfer alone: latency + bytes / bandwidth.
/// assert_eq!(p.transfer_time(1e6), 50_000.0 + 1e6 / 12.5);
/// assert!(p.check().is_ok());
/// assert!(Platform::new(4, 0).check().is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Platform {
    nodes: usize,
    cores: usize,
    latency: f64,
    bandwidth: f64,
    pinned: bool,
    wake_latency: f64,
    spin: f64,
    wake_cost: f64,
    waker_cost: f64,
}

impl Platform {
    /// `nodes` nodes of `cores` cores each; no latency and a bandwidth of
    /// one byte per ns until set.
    pub fn new(nodes: usize, cores: usize) -> Platform {
        Platform {
            nodes,
            cores,
            latency: 0.0,
            bandwidth: 1.0,
            pinned: false,
            wake_latency: 0.0,
            spin: f64::INFINITY,
            wake_cost: 0.0,
            waker_cost: 0.0,
        }
    }

    /// Pins a design's threads to cores as [`Executor::pin_threads`] does:
    /// thread `i`, in the order of the design's text (a pool's workers one
    /// after another), runs on core `i mod cores` of its node, and each
    /// core is shared by its own threads alone. Unpinned (the default), a
    /// node's cores are shared by all its threads. A flow graph's tasks are
    /// never pinned.
    ///
    /// Pinned, a pipeline of three equal stages on two cores runs at the
    /// pace of the core holding two of them:
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::sim::{Platform, Simulation};
    ///
    /// let d = Design::parse("a = 10; pipe(a, a, a)")?;
    /// let shared = Simulation::new(&d, &Platform::new(1, 2)).elements(3000).run()?;
    /// let pinned = Simulation::new(&d, &Platform::new(1, 2).pinned(true)).elements(3000).run()?;
    /// assert!((shared.time_per_element() - 15.0).abs() < 0.15);
    /// assert!((pinned.time_per_element() - 20.0).abs() < 0.2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`Executor::pin_threads`]: crate::exec::Executor::pin_threads
    pub fn pinned(mut self, on: bool) -> Platform {
        self.pinned = on;
        self
    }

    /// Whether threads are pinned to cores ([`Platform::pinned`]).
    pub fn is_pinned(&self) -> bool {
        self.pinned
    }

    /// How long a thread woken while every core it may run on is busy
    /// waits before it runs, in ns (0, the default: it runs at once). The
    /// operating system's scheduler lets the running thread go on for a
    /// while; meanwhile another thread that frees itself takes the element
    /// first. So a task pool's worker that shares a core with a busy stage
    /// gets an element only when the pool's other workers are still busy
    /// `ns` after it arrived. Applies to threads waiting for an element of
    /// a pipeline's or a pool's queue; the thread that hands the element
    /// over keeps its own core busy.
    ///
    /// A stage feeding a pool of two equal workers, one of which shares the
    /// stage's core: first come first served, that worker takes every
    /// other element and slows the stage by half; with a wake-up latency,
    /// the worker on the free core takes them all.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::sim::{Platform, Simulation};
    ///
    /// let d = Design::parse("a = 10; pipe(a, tpool[2](a))")?;
    /// let pinned = Platform::new(1, 2).pinned(true);
    /// let at_once = Simulation::new(&d, &pinned).elements(3000).run()?;
    /// let later = Simulation::new(&d, &pinned.wake_latency(5.0)).elements(3000).run()?;
    /// assert!((at_once.time_per_element() - 15.0).abs() < 0.15);
    /// assert!((later.time_per_element() - 10.0).abs() < 0.1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn wake_latency(mut self, ns: f64) -> Platform {
        self.wake_latency = ns;
        self
    }

    /// The wake-up latency on a busy core, in ns ([`Platform::wake_latency`]).
    pub fn wake_latency_ns(&self) -> f64 {
        self.wake_latency
    }

    /// With a wake-up latency: how long a thread that finds its queue empty
    /// polls it before it sleeps, in ns (default: forever). A polling
    /// thread whose core is free takes a new element at once; a sleeping
    /// one takes it at once only if it is the first waiting thread not yet
    /// notified, as a channel wakes its blocked receivers in the order they
    /// blocked. So a task pool's worker on a free core that fell asleep
    /// leaves the next element to a worker ahead of it that shares a busy
    /// core, which runs it after the latency. The model is stated in full
    /// in the stream's `waiting` module; without a wake-up latency, the
    /// spin changes nothing.
    ///
    /// A stage of 10 ns feeding a pool of two workers of 8 ns, one of which
    /// shares the stage's core. A spin of 12 ns outlasts the free worker's
    /// waits (10 ns for the first element, 2 ns later on): it takes every
    /// element. With 1 ns it falls asleep behind the other worker, which is
    /// notified, runs late on the stage's core and slows it: the two settle
    /// into a cycle of two elements in 28 ns.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::sim::{Platform, Simulation};
    ///
    /// let d = Design::parse("a = 10; b = 8; pipe(a, tpool[2](b))")?;
    /// let p = Platform::new(1, 2).pinned(true).wake_latency(5.0);
    /// let long = Simulation::new(&d, &p.clone().spin(12.0)).elements(3000).run()?;
    /// let short = Simulation::new(&d, &p.spin(1.0)).elements(3000).run()?;
    /// assert!((long.time_per_element() - 10.0).abs() < 1e-6);
    /// assert!((short.time_per_element() - 14.0).abs() < 1e-3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn spin(mut self, ns: f64) -> Platform {
        self.spin = ns;
        self
    }

    /// How long a waiting thread polls before it sleeps, in ns
    /// ([`Platform::spin`]).
    pub fn spin_ns(&self) -> f64 {
        self.spin
    }

    /// With a wake-up latency: the CPU time a thread woken for an element
    /// that another thread took meanwhile spends on its core before it
    /// waits again, in ns (default 0): the switches into it and out of it
    /// and its polling. It competes with the thread running on that core,
    /// so a stage sharing its core with a pool's worker that is woken in
    /// vain loses about this much per wake-up.
    pub fn wake_cost(mut self, ns: f64) -> Platform {
        self.wake_cost = ns;
        self
    }

    /// The CPU time of a wake-up that finds nothing, in ns
    /// ([`Platform::wake_cost`]).
    pub fn wake_cost_ns(&self) -> f64 {
        self.wake_cost
    }

    /// What waking a thread asleep on a free core costs the thread that
    /// hands it an element, in ns of the waker's core (default 0). With a
    /// finite [`Platform::spin`], a stage that waits longer than the spin
    /// for each element sleeps, and the stage before pays this at every
    /// hand-over. On a virtual machine an idle core is halted and waking it
    /// goes through the hypervisor: 11–15 µs on the CI machine, where a
    /// pipeline of a 126 µs stage and an empty one ran 11 % slower than the
    /// 126 µs stage alone. (Waking a thread whose core is busy, or a
    /// producer asleep on a full queue, costs nothing here.)
    ///
    /// A stage of 200 ns feeding one of 10 ns: with a spin of 50 ns the
    /// second stage sleeps 140 ns of its 190 ns waits, and the first pays
    /// 12 ns per element; with a spin of 500 ns it never sleeps.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::sim::{Platform, Simulation};
    ///
    /// let d = Design::parse("a = 200; b = 10; pipe(a, b)")?;
    /// let p = Platform::new(1, 2).pinned(true).waker_cost(12.0);
    /// let sleeps = Simulation::new(&d, &p.clone().spin(50.0)).elements(3000).run()?;
    /// let polls = Simulation::new(&d, &p.spin(500.0)).elements(3000).run()?;
    /// assert!((sleeps.time_per_element() - 212.0).abs() < 1e-6);
    /// assert!((polls.time_per_element() - 200.0).abs() < 1e-6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn waker_cost(mut self, ns: f64) -> Platform {
        self.waker_cost = ns;
        self
    }

    /// What waking a sleeping thread costs the waker, in ns
    /// ([`Platform::waker_cost`]).
    pub fn waker_cost_ns(&self) -> f64 {
        self.waker_cost
    }

    /// The time every transfer takes before its bytes move, in ns.
    pub fn latency(mut self, ns: f64) -> Platform {
        self.latency = ns;
        self
    }

    /// The bytes per ns of each node's outgoing and incoming link.
    pub fn bandwidth(mut self, bytes_per_ns: f64) -> Platform {
        self.bandwidth = bytes_per_ns;
        self
    }

    /// The number of nodes.
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// The cores of each node.
    pub fn cores(&self) -> usize {
        self.cores
    }

    /// The latency of a transfer, in ns.
    pub fn latency_ns(&self) -> f64 {
        self.latency
    }

    /// The bandwidth of each link, in bytes per ns.
    pub fn bandwidth_bytes_per_ns(&self) -> f64 {
        self.bandwidth
    }

    /// The time a transfer of `bytes` takes alone on its links.
    pub fn transfer_time(&self, bytes: f64) -> f64 {
        self.latency + bytes / self.bandwidth
    }

    /// Every parameter in its range: at least one node of at least one
    /// core, a finite latency `>= 0`, a finite bandwidth `> 0`, a finite
    /// wake-up latency and wake-up cost `>= 0`, a spin `>= 0` (infinite
    /// allowed).
    pub fn check(&self) -> Result<(), SimError> {
        if self.nodes == 0 || self.cores == 0 {
            return Err(SimError::NoCores {
                nodes: self.nodes,
                cores: self.cores,
            });
        }
        if !(self.latency.is_finite() && self.latency >= 0.0) {
            return Err(SimError::InvalidPlatform {
                parameter: "latency",
                value: self.latency,
                expected: "a finite number of ns >= 0",
            });
        }
        if !(self.bandwidth.is_finite() && self.bandwidth > 0.0) {
            return Err(SimError::InvalidPlatform {
                parameter: "bandwidth",
                value: self.bandwidth,
                expected: "a finite number of bytes per ns > 0",
            });
        }
        if !(self.wake_latency.is_finite() && self.wake_latency >= 0.0) {
            return Err(SimError::InvalidPlatform {
                parameter: "wake latency",
                value: self.wake_latency,
                expected: "a finite number of ns >= 0",
            });
        }
        if !(self.wake_cost.is_finite() && self.wake_cost >= 0.0) {
            return Err(SimError::InvalidPlatform {
                parameter: "wake cost",
                value: self.wake_cost,
                expected: "a finite number of ns >= 0",
            });
        }
        if !(self.waker_cost.is_finite() && self.waker_cost >= 0.0) {
            return Err(SimError::InvalidPlatform {
                parameter: "waker cost",
                value: self.waker_cost,
                expected: "a finite number of ns >= 0",
            });
        }
        if self.spin.is_nan() || self.spin < 0.0 {
            return Err(SimError::InvalidPlatform {
                parameter: "spin",
                value: self.spin,
                expected: "a number of ns >= 0 (infinite: forever)",
            });
        }
        Ok(())
    }
}
