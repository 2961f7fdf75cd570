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
    /// wake-up latency `>= 0`.
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
        Ok(())
    }
}
