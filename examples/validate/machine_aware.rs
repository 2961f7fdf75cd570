//! The machine-aware predictions of a run: the refined design (hand-overs,
//! warm and co-run atoms, [`refine`](crate::refinements::refine)) under the
//! queueing model of this machine's cores and simulated on them, pinned as
//! the executor pins its threads; and a simulation whose atoms are the
//! kernels themselves (direct execution, the seed's mixed mode).
//!
//! Which one is the headline was fixed before the full run
//! ([`CHOSEN`]): the simulation of the refined design. It is the only one
//! of the three that places threads as the executor does (thread `i` on
//! core `i mod cores`): a pipeline of three stages on two cores runs two
//! stages' work per element on the first core, not three halves as the
//! queueing model's shared cores have it; and it keeps the refinements
//! that brought the plain operators within 10 % where threads fit the
//! cores. Direct execution times each kernel alone and on its own, so it
//! misses what workers sharing the memory cost each other.

use crate::settings::Settings;
use crate::suite::Suite;
use pattern_core::exec::Kernels;
use pattern_core::queue::Machine;
use pattern_core::sim::{Platform, Simulation};
use pattern_core::{Design, Term};
use std::time::Duration;

/// The machine-aware prediction the acceptance uses.
pub const CHOSEN: &str = "simulated";

/// Elements a model-driven simulation runs: enough for a steady state
/// whatever the design (the simulator's time per element leaves out the
/// fill and the drain).
const SIMULATED_ELEMENTS: usize = 2_000;

/// At least as many elements in a direct simulation.
const DIRECT_ELEMENTS: usize = 400;

/// The queueing model and the simulation of `refined` (a refined design,
/// its hand-overs explicit atoms) on `cores` cores, ns per element at `at`:
/// `None` where a model cannot be evaluated.
pub(crate) fn predict(
    refined: &Term,
    cores: usize,
    settings: &Settings,
    at: &[(&str, f64)],
) -> (Option<f64>, Option<f64>) {
    let Ok(design) = Design::from_term(refined.clone()) else {
        return (None, None);
    };
    let machine = Machine::new(cores).buffer(settings.capacity);
    let queueing = design
        .queueing(&machine, at)
        .ok()
        .map(|p| p.time_per_element)
        .filter(|t| t.is_finite());
    let platform = platform(cores, settings);
    let simulated = Simulation::new(&design, &platform)
        .at(at)
        .elements(SIMULATED_ELEMENTS)
        .buffer(settings.capacity)
        .run()
        .ok()
        .map(|r| r.time_per_element())
        .filter(|t| t.is_finite() && *t > 0.0);
    (queueing, simulated)
}

/// This machine's `cores` as the executor uses them: pinned as it pins its
/// threads, a thread woken on a busy core running after the measured
/// wake-up latency, a waiting thread polling for the measured spin before
/// it sleeps, and a wake-up in vain costing its core the measured time.
pub(crate) fn platform(cores: usize, settings: &Settings) -> Platform {
    let ns = |d: Duration| d.as_secs_f64() * 1e9;
    Platform::new(1, cores)
        .pinned(settings.pin_threads)
        .wake_latency(ns(settings.wake_latency))
        .spin(settings.wait_spin.map_or(f64::INFINITY, ns))
        .wake_cost(ns(settings.wake_cost))
}

/// At most how many elements of `design` are in flight at once: one per
/// thread and a full buffer per thread's output.
fn in_flight(design: &Design, x: usize, settings: &Settings) -> usize {
    let threads = design
        .resources()
        .threads
        .eval(&[("x", x as f64)])
        .ok()
        .filter(|t| t.is_finite() && *t >= 1.0)
        .map_or(1, |t| t as usize);
    threads.saturating_mul(settings.capacity.saturating_add(1))
}

/// The overheads a direct simulation adds: the take from a task pool's
/// queue and the hand-over between pipeline stages, ns (the simulator
/// charges one hand-over per boundary, the refined model one to each side).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Overheads {
    pub(crate) take: f64,
    pub(crate) handoff: f64,
}

impl<E: Send + 'static> Suite<E> {
    /// A simulation of `design` (atoms with their measured models) on this
    /// machine's pinned cores whose atoms with a kernel run it (the seed's
    /// mixed mode: each kernel on its first [`Settings::direct_calls`]
    /// calls, each on its thread's core, on inputs made before and evicted
    /// from the caches as a run's are; later calls take their mean), over
    /// `n` elements: ns per element, as measured (no speed factor).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn simulate_direct(
        &self,
        kernels: &Kernels<E>,
        design: &Design,
        x: usize,
        n: usize,
        round: usize,
        cores: usize,
        overheads: Overheads,
        settings: &Settings,
    ) -> Option<f64> {
        // Mixed mode: later elements cost the simulation nothing, and a
        // long stream leaves its fill and drain out of the steady state.
        let n = n.max(DIRECT_ELEMENTS);
        let calls = settings.direct_calls.clamp(1, n);
        // An atom's first calls are not always on the first elements: a
        // pool of eight takes eight at once, and the order in which their
        // steps reach the kernel is the simulator's. Every element that can
        // be in flight before each atom has had its calls gets a real input
        // (the others a dummy that no kernel runs on).
        let real = calls.saturating_add(in_flight(design, x, settings)).min(n);
        let mut inputs: Vec<Option<E>> = (0..real)
            .map(|i| Some((self.make)(x, (round as u64) << 40 | 1 << 39 | i as u64)))
            .collect();
        self.evict(&[x], settings);
        let make = &self.make;
        let platform = platform(cores, settings);
        Simulation::new(design, &platform)
            .at(&[("x", x as f64)])
            .elements(n)
            .buffer(settings.capacity)
            .overheads(overheads.take, overheads.handoff)
            // Only the first `real` elements reach a kernel: once element
            // `e` enters, those before `e - in_flight` have left, so each
            // atom has had its calls.
            .direct(kernels, |i| {
                inputs
                    .get_mut(i)
                    .and_then(Option::take)
                    .unwrap_or_else(|| make(0, 0))
            })
            .measure_first(calls)
            .direct_on_cores(settings.pin_threads)
            .run()
            .ok()
            .map(|r| r.time_per_element())
            .filter(|t| t.is_finite() && *t > 0.0)
    }
}
