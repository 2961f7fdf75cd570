//! Closed queueing networks of several classes of jobs.
//!
//! A single-class [`super::Network`] has one population of identical jobs.
//! Here each class has its own population and its own demand at each
//! station (batch jobs and interactive users sharing a CPU and disks;
//! the elements of two pipelines sharing cores):
//!
//! - [`MultiClassNetwork`]: the stations (queues, delays, `c`-server and
//!   load-dependent stations) and the classes, built with a builder;
//! - [`MultiClassNetwork::mva`]: exact multi-class MVA over every
//!   population vector `n ≤ N`, numerically stable with multi-server and
//!   load-dependent stations (no probability is ever computed by
//!   subtraction), refused past [`MAX_MULTICLASS_STEPS`]
//!   ([`MultiClassNetwork::exact_steps`] says what it would take);
//! - [`MultiClassNetwork::mva_approx`]: Chandy and Neuse's Linearizer (the
//!   default) or Bard-Schweitzer's approximation, multi-server stations by
//!   their marginals or Seidmann's decomposition
//!   ([`MultiClassApproximation`], [`super::Method`]), at any population;
//! - [`MultiClassSolution`]: per class its throughput, cycle and response
//!   times; per class and station its [`ClassFigures`]; per station the
//!   totals.
//!
//! ```
//! use pattern_core::queue::{Method, MultiClassApproximation, MultiClassNetwork};
//!
//! let net = MultiClassNetwork::new()
//!     .multi_server("cpu", 2)
//!     .queue("disk")
//!     .delay("think")
//!     .class("batch", 4, &[("cpu", 0.5), ("disk", 0.8)])
//!     .class("web", 10, &[("cpu", 0.05), ("disk", 0.03), ("think", 2.0)]);
//! let s = net.mva()?;
//! let (xb, xw) = (s.throughput("batch")?, s.throughput("web")?);
//! // The utilization law, per server of the CPU.
//! let cpu = s.utilization("cpu")?;
//! assert!((cpu - (xb * 0.5 + xw * 0.05) / 2.0).abs() < 1e-12);
//! // Little's law over each class's cycle.
//! assert!((xw * s.cycle_time("web")? - 10.0).abs() < 1e-9);
//! let a = net.mva_approx()?; // the Linearizer
//! assert!((a.throughput("web")? / xw - 1.0).abs() < 0.05);
//! let bard = MultiClassApproximation { method: Method::SchweitzerBard, ..Default::default() };
//! let b = net.mva_approx_with(&bard)?;
//! assert!((b.throughput("web")? / xw - 1.0).abs() < 0.05);
//! assert!(s.of("batch", "think")?.queue_length == 0.0); // batch never thinks
//! # Ok::<(), pattern_core::queue::QueueError>(())
//! ```

mod approx;
mod carried;
mod exact;
mod fixed;
mod linearizer;
mod network;
mod solution;

pub use approx::MultiClassApproximation;
pub use exact::MAX_MULTICLASS_STEPS;
pub use network::MultiClassNetwork;
pub use solution::{ClassFigures, MultiClassSolution};
