//! Probing this computer: the machine it is, measured ([`measure`]).
//!
//! A probe returns one node of the cores the calling thread may run on
//! ([`Cores::machine`]), at speed 1, with what its threads cost to wait and
//! hand elements over ([`Waiting`]) measured with the executor and its
//! channel, as the validation lab measures them:
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

mod handoff;
mod options;
mod spin;
#[cfg(test)]
mod tests;
mod threads;
mod wake;
mod waker;

use super::{Cores, ExecError};
use crate::fit::measure::thread_cpu_ns;
use crate::machine::{Machine, Waiting};
use std::fmt;
use std::time::{Duration, Instant};

pub use options::{MAX_SAMPLES, Options, Part};
use threads::{Sampled, can_pin};

/// How a quantity came out.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Measured: the median of `samples` samples, ns.
    Measured {
        /// The median, ns (finite, `>= 0`).
        median_ns: f64,
        /// How many samples.
        samples: usize,
    },
    /// Not measured, and why: the machine keeps the free default.
    Unmeasured(String),
}

/// One quantity of a probe: what a sample of it is and how it came out.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantity {
    /// Which.
    pub part: Part,
    /// What one sample is.
    pub sample: String,
    /// Its median, or why there is none.
    pub outcome: Outcome,
}

impl Quantity {
    /// Its median, ns, if measured.
    pub fn median_ns(&self) -> Option<f64> {
        match self.outcome {
            Outcome::Measured { median_ns, .. } => Some(median_ns),
            Outcome::Unmeasured(_) => None,
        }
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Measured { median_ns, samples } => write!(
                f,
                "{}: {median_ns:.1} ns, the median of {samples} sample{} (a sample: {})",
                self.part,
                if *samples == 1 { "" } else { "s" },
                self.sample
            ),
            Outcome::Unmeasured(why) => write!(
                f,
                "{}: not measured ({why}); left at {}",
                self.part,
                self.part.free()
            ),
        }
    }
}

/// What a probe found: this computer as a machine, and how each of its
/// quantities was measured or why it was not.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// One node of the calling thread's cores at speed 1, with the waiting
    /// part measured (none if nothing was measured and the threads could
    /// not be pinned).
    pub machine: Machine,
    /// Each quantity of the waiting part, in [`Part::ALL`]'s order.
    pub quantities: Vec<Quantity>,
    /// One line for the reader per fact: the cores, the pinning, each
    /// quantity (its median and samples, or why it was not measured and
    /// the default it keeps).
    pub notes: Vec<String>,
    /// How long the probe took.
    pub took: Duration,
}

/// Measures this computer: the cores of the calling thread's affinity
/// mask as one node at speed 1 ([`Cores::machine`]) and, as `options` ask,
/// the [`Waiting`] part, each quantity the median of its samples (the
/// experiments are in the [module overview](self)). `pinned` is whether
/// threads could be pinned to each of the cores. A quantity that cannot be
/// measured here keeps its free default and a note says why. Out-of-range
/// options are an error ([`ExecError::InvalidOption`]).
///
/// ```no_run
/// use pattern_core::exec::probe::{self, Options};
///
/// let probe = probe::measure(&Options::new())?;
/// std::fs::write("this.machine.json", probe.machine.to_json())?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn measure(options: &Options) -> Result<Probe, ExecError> {
    options.check()?;
    let started = Instant::now();
    let cores = Cores::of_current_thread();
    let pinned = can_pin(&cores);
    let n = options.sample_count();
    let two_cores = if cores.len() < 2 {
        Some("needs two cores; this thread may run on one".to_string())
    } else if !pinned {
        Some("needs threads pinned to cores, and they could not be pinned".to_string())
    } else {
        None
    };
    let clock = thread_cpu_ns()
        .is_none()
        .then(|| "needs a per-thread CPU clock, which this system does not offer".to_string());
    let for_waits = [two_cores.clone()];
    let for_cpu = [two_cores, clock];
    let take = |part, obstacles: &[Option<String>], sample: String, f: &Measuring| {
        quantity(options, part, obstacles, sample, f)
    };
    let latency = take(
        Part::WakeLatency,
        &for_waits,
        "a wake-up of a thread on a busy core, from the send until it runs".into(),
        &|| wake::latency(&cores, n),
    );
    let pause = wake::slow_pause(latency.median_ns());
    let (_, elements) = handoff::runs(n);
    let run = |design| {
        format!("a run of `{design}` over {elements} elements, its steady-state time per element")
    };
    let quantities = vec![
        latency,
        take(
            Part::Spin,
            &for_cpu,
            format!(
                "the CPU time of a thread blocked on the channel over a wait of {}",
                ms(spin::WAIT)
            ),
            &|| spin::spin(&cores, n.div_ceil(4)),
        ),
        take(
            Part::WakeCost,
            &for_cpu,
            format!(
                "the CPU time of a thread woken for nothing on a busy core, every {}",
                ms(pause)
            ),
            &|| wake::cost(&cores, n.div_ceil(8), pause),
        ),
        take(
            Part::WakerCost,
            &for_waits,
            format!(
                "the median of {} rounds of work and a hand-over to a sleeping thread less that to a polling one",
                waker::ROUNDS
            ),
            &|| waker::waker_cost(&cores, n),
        ),
        take(Part::Handoff, &[], run(handoff::HANDOFF), &|| {
            handoff::per_element(handoff::HANDOFF, n, pinned)
        }),
        take(Part::Take, &[], run(handoff::TAKE), &|| {
            handoff::per_element(handoff::TAKE, n, pinned)
        }),
    ];
    Ok(assemble(&cores, pinned, quantities, started.elapsed()))
}

/// `d` in ms, to a tenth.
fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// An experiment: its samples summed up, or why there are none.
type Measuring<'a> = dyn Fn() -> Result<Sampled, String> + 'a;

/// `part`, measured by `f` unless `options` leave it out or one of
/// `obstacles` stands in the way.
fn quantity(
    options: &Options,
    part: Part,
    obstacles: &[Option<String>],
    sample: String,
    f: &Measuring,
) -> Quantity {
    let outcome = if !options.measures(part) {
        Outcome::Unmeasured("not asked for".into())
    } else if let Some(why) = obstacles.iter().flatten().next() {
        Outcome::Unmeasured(why.clone())
    } else {
        match f() {
            Ok(s) => Outcome::Measured {
                median_ns: s.median,
                samples: s.samples,
            },
            Err(why) => Outcome::Unmeasured(why),
        }
    };
    Quantity {
        part,
        sample,
        outcome,
    }
}

/// The machine of `cores` with the waiting part of `quantities`, and the
/// notes.
fn assemble(cores: &Cores, pinned: bool, quantities: Vec<Quantity>, took: Duration) -> Probe {
    let mut waiting = Waiting::new().pinned(pinned);
    for q in &quantities {
        if let Some(ns) = q.median_ns() {
            waiting = q.part.set(waiting, ns);
        }
    }
    let mut machine = cores.machine();
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
        if pinned {
            "pinned: true (a thread could be pinned to each core)".to_string()
        } else {
            "pinned: false (threads could not be pinned to the cores)".to_string()
        },
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
