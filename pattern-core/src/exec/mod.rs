//! Validation against reality: run a design's structure for real and compare
//! what it measures with what its model predicts (seed 001 §4, modular
//! against monolithic).
//!
//! - [`Kernels`]: what each atom runs, Rust closures by name.
//! - [`Executor`]: runs a [`Term`](crate::Term) on threads over a stream of
//!   elements — `seq` in order on one thread, `pipe` one stage per thread
//!   with bounded channels, `tpool[n]` as `n` workers on a shared queue,
//!   `mapreduce` (m = 1) as map on `n` threads, each grouping its own pairs
//!   by key as it maps ([`WorkerGroups`]), then reduce on `n` threads, each
//!   gathering its keys' values from the map workers — and reports [`Metrics`]: the paper's average time between two
//!   departures in steady state, latency, makespan, the parallelism reached.
//! - `Rayon` (feature `rayon`): runs the executor's plan of a design the
//!   way a program is written with rayon — `tpool[n]` as a rayon
//!   `ThreadPool` over a parallel iterator, `pipe` as std threads joined by
//!   bounded channels — with the same options, [`Run`] and [`Metrics`].
//! - [`Cores`]: threads pinned to known cores.
//! - [`probe`]: this computer as a [`Machine`](crate::machine::Machine),
//!   what its threads cost to wait and hand over measured.
//!
//! The validation that compares runs with models (atoms measured, models
//! composed, runs fitted) is the example `validate`; it times with
//! [`fit::measure`](crate::fit::measure), like the calibration.

mod calls;
mod context;
mod error;
mod executor;
mod grouping;
mod kernels;
mod metrics;
mod phase;
mod placement;
mod plan;
pub mod probe;
#[cfg(feature = "rayon")]
mod rayon;
mod run;
mod shuffle;

#[cfg(feature = "rayon")]
pub use self::rayon::Rayon;
pub use error::ExecError;
pub use executor::{Executor, MAX_SPIN};
pub use grouping::{KeyValues, WorkerGroups, block_len, merge_groups};
pub use kernels::{ElementKernel, Job, Kernels};
pub use metrics::{Departure, Metrics, ThreadTimes, Warning, steady_window};
pub use placement::Cores;
pub use plan::{MAX_NESTING, MAX_THREADS};
pub use run::{MAX_BUFFER, Run};
pub use shuffle::{KeyOutOfRange, group_by_key};
