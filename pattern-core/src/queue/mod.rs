//! Closed queueing networks and Mean Value Analysis (seed 002).
//!
//! The composition operators assume every thread has a core and nothing is
//! shared. A closed queueing network says what happens when that is not so:
//! jobs (elements in flight, processes) cycle through stations (cores,
//! links, locks), queueing where the stations are busy.
//!
//! - [`Network`]: the stations, built with a builder — single-server
//!   queues, delays, `c`-server stations and general load-dependent ones;
//! - [`Network::mva`]: exact single-class MVA, numerically stable with
//!   many servers (no probability is ever computed by subtraction);
//! - [`Network::sweep`]: every population `1..=N` in the same pass;
//! - [`Network::mva_approx`]: approximate MVA for large populations, the
//!   Linearizer by default, Schweitzer-Bard and Seidmann's multi-server
//!   decomposition as options ([`Approximation`], [`Method`]);
//! - [`Network::bounds`]: asymptotic bounds and the saturation population
//!   `N*`;
//! - [`OpenNetwork`]: open networks, classes arriving at rates: each
//!   class's times, each station's load, the rate at which one saturates.
//!
//! ```
//! use pattern_core::queue::Network;
//!
//! let net = Network::new()
//!     .queue("disk", 0.03)
//!     .multi_server("cpu", 2, 0.05)
//!     .load_dependent("net", 0.01, |n: usize| 1.0 / (1.0 + 0.1 * n as f64))
//!     .delay("think", 4.0);
//! let s = net.mva(20)?;
//! assert!((s.throughput() - 4.8814).abs() < 1e-4);
//! assert!(s.utilization("cpu")? < 1.0);
//! let a = net.mva_approx(20)?;
//! assert!((a.throughput() / s.throughput() - 1.0).abs() < 0.02);
//! assert!(s.queue_length("gpu").is_err()); // no such station
//! # Ok::<(), pattern_core::queue::QueueError>(())
//! ```

mod approx;
mod bounds;
#[cfg(feature = "calibrate")]
mod calibrate;
mod cluster;
mod error;
mod exact;
mod linearizer;
mod mixed;
mod multiclass;
mod network;
mod normalizing;
mod open;
mod prepared;
mod schweitzer;
mod solution;

pub use approx::{Approximation, Method, MultiServer};
pub use bounds::Bounds;
#[cfg(feature = "calibrate")]
pub use calibrate::{Calibration, MpiRun};
pub use cluster::{ClusterError, MpiModel, MpiPrediction, MpiWorkload, spread};
pub use error::QueueError;
pub use exact::MAX_EXACT_STEPS;
pub use mixed::{MixedNetwork, MixedSolution, Workload};
pub use multiclass::{
    ClassFigures, MAX_MULTICLASS_STEPS, MultiClassApproximation, MultiClassNetwork,
    MultiClassSolution,
};
pub use network::{Network, Station, StationKind};
pub(crate) use open::erlang_c;
pub use open::{OpenNetwork, OpenSolution, OpenStation};
pub use solution::{Solution, StationResult, Sweep};
