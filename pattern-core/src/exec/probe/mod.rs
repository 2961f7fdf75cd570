//! Probing this computer: the machine it is, measured ([`measure`]).
//!
//! A probe returns one node of the cores the calling thread may run on
//! ([`Cores::machine`]), at speed 1, with what the threads of one runtime
//! ([`Options::runtime`]: the executor by default, rayon, or plain threads)
//! cost to wait and hand elements over ([`Waiting`]); the machine runs on
//! that runtime ([`Machine::runs_on`]). Each runtime's experiments are its
//! own. The executor's, with its channel, as the validation lab measures
//! them:
//!
//! | quantity | experiment | a sample |
//! | --- | --- | --- |
//! | `handoff_ns` | `pipe(pass, pass)` run by the executor | a run's steady-state time per element |
//! | `take_ns` | `tpool[1](pass)` run by the executor | a run's steady-state time per element |
//! | `wake_latency_ns` | a thread blocked on the channel, on a core another thread keeps busy, sent an element from another core | the time from the send until it runs |
//! | `spin_ns` | a thread blocked on the channel, on a core of its own, sent an element after 1 ms | its CPU time over the wait |
//! | `wake_cost_ns` | a thread woken for nothing on a busy core | its CPU time from one wake-up to the next |
//! | `waker_cost_ns` | rounds of work and a hand-over to a thread on another core that sleeps, against one that polls | a pair of blocks of rounds: the difference of their median rounds |
//!
//! `spin_ns` is the channel's own polling, how a stage waits that blocks at
//! once (the executor's way where a design's threads outnumber the cores);
//! where they fit, the executor first spins for [`Executor::spin`] (100 µs
//! by default), which the probe leaves out.
//!
//! Plain threads ([`Runtime::Threads`]: std threads with crossbeam bounded
//! channels, every wait blocking at once) are measured by the same
//! experiments, the executor's runs with `Executor::spin(Duration::ZERO)`
//! and unpinned; the four waits already block at once on the channel.
//! rayon's ([`Runtime::Rayon`], feature `rayon`) are written with plain
//! rayon and crossbeam the way a user's program runs: pools of one worker
//! (`spawn`, `par_bridge`), a pipeline's two std threads on a crossbeam
//! `bounded(4)` channel, a `join` whose second half wakes a worker in vain
//! (docs/machine.md has their table). `pinned` is `false` for both: their
//! programs do not pin their threads.
//!
//! Every probe also measures the node's memory ([`Memory`]) by streaming
//! arrays far larger than the caches (`Options::memory_mib`, 64 MiB per
//! thread unless set), from one thread, then from one per core at once:
//! the bandwidth of one core alone and of the node; then how fast arrays
//! handed from one thread to another move, by size ([`Handed`](crate::machine::Handed)).
//!
//! Each quantity is the median of its samples. What cannot be measured
//! here (the waits need two cores and pinned threads, `spin_ns` and
//! `wake_cost_ns` a per-thread CPU clock) keeps its free default, and the
//! probe's notes say so ([`Probe::notes`]).
//!
//! ```
//! use pattern_core::exec::Cores;
//! use pattern_core::exec::probe::{self, Options, Part};
//!
//! let probe = probe::measure(&Options::quick().only(&[Part::Handoff, Part::Take]))?;
//! assert_eq!(probe.machine.cores(), Cores::of_current_thread().len());
//! for note in &probe.notes {
//!     println!("{note}");
//! }
//! println!("{}", probe.machine.to_json());
//! # Ok::<(), pattern_core::exec::ExecError>(())
//! ```
//!
//! [`Executor::spin`]: super::Executor::spin
//! [`Memory`]: crate::machine::Memory
//! [`Machine::runs_on`]: crate::machine::Machine::runs_on

mod executor;
mod handoff;
mod memory;
mod options;
mod quantity;
#[cfg(feature = "rayon")]
mod rayon;
mod spin;
#[cfg(test)]
mod tests;
mod threads;
mod wake;
mod waker;

use super::{Cores, ExecError};
use crate::fit::measure::thread_cpu_ns;
use crate::machine::{Machine, Runtime, Waiting};
use quantity::Bench;
use std::time::{Duration, Instant};

pub use options::{MAX_MEMORY_MIB, MAX_SAMPLES, Options, Part};
pub use quantity::{Outcome, Quantity};
use threads::can_pin;

/// What a probe found: this computer as a machine, and how each of its
/// quantities was measured or why it was not.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// One node of the calling thread's cores at speed 1, run by the
    /// runtime probed ([`Machine::runs_on`]), with that runtime's waiting
    /// part measured (none if nothing was measured and the runtime does not
    /// pin its threads).
    pub machine: Machine,
    /// Each quantity of the waiting part, in [`Part::ALL`]'s order.
    pub quantities: Vec<Quantity>,
    /// One line for the reader per fact: the cores, the pinning, the
    /// runtime, each quantity (its median and samples, or why it was not
    /// measured and the default it keeps).
    pub notes: Vec<String>,
    /// How long the probe took.
    pub took: Duration,
}

/// Measures this computer: the cores of the calling thread's affinity
/// mask as one node at speed 1 ([`Cores::machine`]) and, as `options` ask,
/// the [`Waiting`] part of the runtime they name ([`Options::runtime`]),
/// each quantity the median of its samples (the experiments are in the
/// [module overview](self)). The machine runs on that runtime. `pinned` is
/// whether threads could be pinned to each of the cores, for the executor;
/// `false` for rayon and plain threads, which do not pin theirs. A quantity
/// that cannot be measured here keeps its free default and a note says
/// why. Out-of-range options, and rayon without the feature `rayon`, are an
/// error ([`ExecError::InvalidOption`]).
///
/// ```no_run
/// use pattern_core::exec::probe::{self, Options};
/// use pattern_core::machine::Runtime;
///
/// let probe = probe::measure(&Options::new())?;
/// std::fs::write("this.machine.json", probe.machine.to_json())?;
/// let threads = probe::measure(&Options::new().runtime(Runtime::Threads))?;
/// assert_eq!(threads.machine.runs_on(), Runtime::Threads);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn measure(options: &Options) -> Result<Probe, ExecError> {
    options.check()?;
    let started = Instant::now();
    let cores = Cores::of_current_thread();
    let can_pin = can_pin(&cores);
    let two_cores = if cores.len() < 2 {
        Some("needs two cores; this thread may run on one".to_string())
    } else if !can_pin {
        Some("needs threads pinned to cores, and they could not be pinned".to_string())
    } else {
        None
    };
    let clock = thread_cpu_ns()
        .is_none()
        .then(|| "needs a per-thread CPU clock, which this system does not offer".to_string());
    let bench = Bench {
        options,
        cores: &cores,
        can_pin,
        n: options.sample_count(),
        for_waits: vec![two_cores.clone()],
        for_cpu: vec![two_cores, clock],
    };
    let runtime = options.probed();
    let quantities = match runtime {
        Runtime::Executor => executor::quantities(&bench, executor::Stages::Executor),
        Runtime::Threads => executor::quantities(&bench, executor::Stages::Blocking),
        #[cfg(feature = "rayon")]
        Runtime::Rayon => rayon::quantities(&bench),
        // `Options::check` refuses rayon without the feature already.
        #[cfg(not(feature = "rayon"))]
        Runtime::Rayon => {
            return Err(ExecError::InvalidOption(options::NEEDS_RAYON.into()));
        }
    };
    let pinned = runtime == Runtime::Executor && can_pin;
    let passes = (options.sample_count() / 40).clamp(3, 25);
    let memory =
        memory::measure(cores.len(), options.memory_size_mib(), passes).map(
            |m| match memory::handed(options.memory_size_mib()) {
                Some(h) => m.with_handed(h),
                None => m,
            },
        );
    let mut probe = assemble(&cores, (runtime, pinned), quantities, started.elapsed());
    probe.notes.push(match memory {
        Some(m) => {
            probe.machine = probe.machine.memory(m);
            let handed: Vec<String> = (m.handed.iter().flat_map(|h| h.points()))
                .map(|p| format!("{:.0} at {:.1}", p.bytes / 1024.0, p.bytes_per_ns))
                .collect();
            format!(
                "memory: {:.1} bytes/ns for the node, {:.1} for one core alone \
                 (medians of {passes} passes over {} MiB per thread, {} thread(s) at once); \
                 handed over between two threads, KiB at bytes/ns: {}",
                m.bandwidth_bytes_per_ns,
                m.core_bandwidth_bytes_per_ns,
                options.memory_size_mib(),
                cores.len(),
                handed.join(", "),
            )
        }
        None => "memory: not measured; atoms' bytes cost nothing beyond their models".into(),
    });
    probe.took = started.elapsed();
    Ok(probe)
}

/// What each runtime's experiments are, for the notes.
fn how_measured(runtime: Runtime) -> &'static str {
    match runtime {
        Runtime::Executor => {
            "the executor: its channels, its stages spinning before they block, its threads pinned"
        }
        Runtime::Threads => {
            "std threads with crossbeam bounded channels, every wait blocking at once, unpinned"
        }
        Runtime::Rayon => {
            "rayon pools of 1 worker (spawn, par_bridge) and std threads joined by crossbeam bounded channels, unpinned"
        }
    }
}

/// The machine of `cores` run by `runtime`, with its waiting part of
/// `quantities` (`pinned` as given), and the notes.
fn assemble(
    cores: &Cores,
    (runtime, pinned): (Runtime, bool),
    quantities: Vec<Quantity>,
    took: Duration,
) -> Probe {
    let mut waiting = Waiting::new().pinned(pinned);
    for q in &quantities {
        if let Some(ns) = q.median_ns() {
            waiting = q.part.set(waiting, ns);
        }
    }
    let mut machine = cores.machine().runtime(runtime);
    if !waiting.is_free() {
        machine = machine.waiting(waiting);
    }
    let ids = cores.ids();
    let listed = if ids.is_empty() {
        "this system does not say which".to_string()
    } else {
        let ids: Vec<String> = ids.iter().map(usize::to_string).collect();
        format!("cores {}", ids.join(", "))
    };
    let mut notes = vec![
        format!(
            "nodes: 1 node of {} cores at speed 1, the calling thread's affinity mask ({listed})",
            cores.len()
        ),
        match (runtime, pinned) {
            (Runtime::Executor, true) => {
                "pinned: true (a thread could be pinned to each core)".to_string()
            }
            (Runtime::Executor, false) => {
                "pinned: false (threads could not be pinned to the cores)".to_string()
            }
            (Runtime::Threads, _) => "pinned: false (plain std threads are not pinned)".to_string(),
            (Runtime::Rayon, _) => "pinned: false (rayon does not pin its threads)".to_string(),
        },
        format!("runtime: {runtime} (probed with {})", how_measured(runtime)),
    ];
    notes.extend(quantities.iter().map(Quantity::to_string));
    let handoff_measured = quantities
        .iter()
        .any(|q| q.part == Part::Handoff && q.median_ns().is_some());
    if cores.len() < 2 && handoff_measured {
        notes.push(
            "handoff_ns was measured with both stages on the one core: each hand-over switches it from one stage to the other".into(),
        );
    }
    Probe {
        machine,
        quantities,
        notes,
        took,
    }
}
