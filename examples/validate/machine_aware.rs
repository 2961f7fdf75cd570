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
use pattern_core::machine::Machine;
use pattern_core::semantics::Queueing;
use pattern_core::sim::{Direct, Simulation};
use pattern_core::{Design, Term};
use std::sync::PoisonError;
use std::time::Instant;

/// The machine-aware prediction the acceptance uses.
pub const CHOSEN: &str = "simulated";

/// Elements a model-driven simulation runs: enough for a steady state
/// whatever the design (the simulator's time per element leaves out the
/// fill and the drain).
const SIMULATED_ELEMENTS: usize = 2_000;

/// At least as many elements in a direct simulation.
const DIRECT_ELEMENTS: usize = 400;

/// Single calls timed per atom and size for the spread of its durations.
const SPREAD_CALLS: usize = 31;

/// The median and the coefficient of variation of single calls, by atom and
/// size ([`Suite::call_spread`]).
pub(crate) type CallSpreads = std::collections::BTreeMap<(String, usize), Option<(f64, f64)>>;

/// The queueing model and the simulation of `refined` (a refined design,
/// its hand-overs explicit atoms) on `cores` cores, ns per element at `at`,
/// the simulation's durations varying with coefficient `variation`
/// ([`Suite::variation_of`]), a wake-up costing the waker `waker` ns where
/// it was timed for the design ([`Suite::waker_of`]): `None` where a model
/// cannot be evaluated.
pub(crate) fn predict(
    refined: &Term,
    cores: usize,
    settings: &Settings,
    at: &[(&str, f64)],
    variation: f64,
    waker: Option<f64>,
) -> (Option<f64>, Option<f64>) {
    let Ok(design) = Design::from_term(refined.clone()) else {
        return (None, None);
    };
    let machine = Machine::new(1, cores);
    let queueing = Queueing::new(&machine)
        .buffer(settings.capacity)
        .at(at)
        .of(design.term())
        .ok()
        .map(|p| p.time_per_element)
        .filter(|t| t.is_finite());
    let platform = platform(cores, threads(&design, at), settings, waker);
    let mut simulation = Simulation::new(&design, &platform)
        .at(at)
        .elements(SIMULATED_ELEMENTS)
        .buffer(settings.capacity);
    if variation > 0.0 {
        // (one seed: every round and design draws the same sequence)
        simulation = simulation.variation(variation, 1);
    }
    let simulated = simulation
        .run()
        .ok()
        .map(|r| r.time_per_element())
        .filter(|t| t.is_finite() && *t > 0.0);
    (queueing, simulated)
}

/// This machine's `cores` as the executor runs a design of `threads`
/// threads on them: pinned as it pins its threads, a thread woken on a busy
/// core running after the measured wake-up latency, a wake-up in vain
/// costing its core the measured time, and a waiting thread polling before
/// it sleeps for the executor's spin (none where the threads outnumber the
/// cores) and then the channel's measured one. Waking a thread asleep on a
/// free core costs the waker `waker` ns where it was timed for the design
/// ([`Suite::waker_of`]), the machine-wide measured time otherwise, where
/// the threads fit the cores: there a sleeping stage's core idles through
/// its whole wait, and the hypervisor halts it. Beyond the cores a core's
/// other thread takes it up within microseconds, and the runs showed no
/// such cost: charged there too, `pipe(inc, inc, inc, inc)` at 16,384
/// elements was predicted 38 % too slow (run 10), and within 4 % without.
pub(crate) fn platform(
    cores: usize,
    threads: usize,
    settings: &Settings,
    waker: Option<f64>,
) -> Machine {
    let measured = settings.waiting;
    let beyond = threads > cores;
    let executor_spin = if beyond {
        0.0
    } else {
        settings.spin.as_secs_f64() * 1e9
    };
    let waker_cost = if beyond {
        0.0
    } else {
        waker.unwrap_or(measured.waker_cost_ns)
    };
    let spin = (measured.spin_ns).map_or(f64::INFINITY, |s| s + executor_spin);
    Machine::new(1, cores).waiting(
        measured
            .pinned(settings.pin_threads)
            .spin_ns(spin)
            .waker_cost_ns(waker_cost),
    )
}

/// The threads `design` runs at `at` (1 where its count cannot be
/// evaluated).
fn threads(design: &Design, at: &[(&str, f64)]) -> usize {
    design
        .resources()
        .threads
        .eval(at)
        .ok()
        .filter(|t| t.is_finite() && *t >= 1.0)
        .map_or(1, |t| t as usize)
}

/// At most how many elements of `design` are in flight at once: one per
/// thread and a full buffer per thread's output.
fn in_flight(design: &Design, x: usize, settings: &Settings) -> usize {
    threads(design, &[("x", x as f64)]).saturating_mul(settings.capacity.saturating_add(1))
}

/// The overheads a direct simulation adds: the take from a task pool's
/// queue and the hand-over between pipeline stages, ns (the simulator
/// charges one hand-over per boundary, the refined model one to each side).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Overheads {
    pub(crate) take: f64,
    pub(crate) handoff: f64,
    /// What a wake-up costs the waker where it was timed for the design
    /// ([`Suite::waker_of`]).
    pub(crate) waker: Option<f64>,
}

impl<E: Send + 'static> Suite<E> {
    /// How much the durations of `design`'s steps vary at size `x`, as a
    /// coefficient of variation: the spread of single calls of the slowest
    /// atom it uses that has a kernel ([`Suite::call_spread`]); 0 if none
    /// has one. (The simulator varies every step by one coefficient.)
    pub(crate) fn variation_of(&self, design: &Design, x: usize, settings: &Settings) -> f64 {
        design
            .term()
            .atoms()
            .iter()
            .filter_map(|atom| self.call_spread(&atom.name, x, settings))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map_or(0.0, |(_, cv)| cv)
    }

    /// The median duration of single calls of `atom`'s kernel at size `x`
    /// and their coefficient of variation (the interquartile range over
    /// 1.349, a standard deviation robust to the odd interrupt, over the
    /// median), from [`SPREAD_CALLS`] calls on inputs as cold as a run's;
    /// measured at the first request and kept. `None` without a kernel.
    pub(crate) fn call_spread(
        &self,
        atom: &str,
        x: usize,
        settings: &Settings,
    ) -> Option<(f64, f64)> {
        let key = (atom.to_string(), x);
        let kept = self
            .call_spreads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .copied();
        if let Some(spread) = kept {
            return spread;
        }
        let spread = self.kernels.element(atom).and_then(|kernel| {
            let mut inputs: Vec<E> = (0..=SPREAD_CALLS)
                .map(|i| (self.make)(x, 3 << 38 | i as u64))
                .collect();
            self.evict(&[x], settings);
            // The first call warms the code up, untimed.
            kernel(&mut inputs[0]);
            let mut times: Vec<f64> = inputs[1..]
                .iter_mut()
                .map(|e| {
                    let start = Instant::now();
                    kernel(e);
                    start.elapsed().as_nanos() as f64
                })
                .collect();
            times.sort_by(f64::total_cmp);
            let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
            let median = at(0.5);
            (median > 0.0).then(|| (median, (at(0.75) - at(0.25)) / 1.349 / median))
        });
        self.call_spreads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, spread);
        spread
    }

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
        let threads = threads(design, &[("x", x as f64)]);
        let machine = platform(cores, threads, settings, overheads.waker)
            .with_waiting(|w| w.take_ns(overheads.take).handoff_ns(overheads.handoff));
        Simulation::new(design, &machine)
            .at(&[("x", x as f64)])
            .elements(n)
            .buffer(settings.capacity)
            // Only the first `real` elements reach a kernel: once element
            // `e` enters, those before `e - in_flight` have left, so each
            // atom has had its calls.
            .direct(
                kernels,
                |i| {
                    inputs
                        .get_mut(i)
                        .and_then(Option::take)
                        .unwrap_or_else(|| make(0, 0))
                },
                Direct::new()
                    .measure_first(calls)
                    .on_cores(settings.pin_threads),
            )
            .run()
            .ok()
            .map(|r| r.time_per_element())
            .filter(|t| t.is_finite() && *t > 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pattern_core::machine::Waiting;
    use std::time::Duration;

    /// A waiting stage polls the executor's spin and then the channel's
    /// where the threads fit the cores, the channel's alone beyond; the
    /// measured costs go to the platform as they are, but the waker's only
    /// where the threads fit the cores, and the one timed for the design in
    /// place of the machine-wide one.
    #[test]
    fn the_platform_polls_as_the_executor_does() {
        let settings = Settings {
            spin: Duration::from_micros(100),
            waiting: Waiting::new()
                .spin_ns(13e3)
                .waker_cost_ns(12e3)
                .wake_cost_ns(5e3),
            ..Settings::default()
        };
        let within = platform(2, 2, &settings, None);
        let within = within.waiting_costs();
        assert!((within.spin() - 113_000.0).abs() < 1e-6);
        assert!((within.waker_cost_ns - 12_000.0).abs() < 1e-6);
        assert!((within.wake_cost_ns - 5_000.0).abs() < 1e-6);
        let beyond = platform(2, 3, &settings, Some(30_000.0));
        assert!((beyond.waiting_costs().spin() - 13_000.0).abs() < 1e-6);
        assert_eq!(beyond.waiting_costs().waker_cost_ns, 0.0);
        let timed = platform(2, 2, &settings, Some(30_000.0));
        assert!((timed.waiting_costs().waker_cost_ns - 30_000.0).abs() < 1e-6);
        // Not measured: waiting threads poll for ever.
        let unmeasured = platform(2, 2, &Settings::default(), None);
        assert_eq!(unmeasured.waiting_costs().spin(), f64::INFINITY);
    }

    /// On the measured platform a pipeline whose second stage sleeps
    /// between elements pays the waker's cost at every hand-over; one
    /// whose second stage polls through its waits does not.
    #[test]
    fn a_stage_that_sleeps_between_elements_costs_the_one_before() {
        let settings = Settings {
            waiting: Waiting::new().spin_ns(13e3).waker_cost_ns(12e3),
            ..Settings::default()
        };
        for (first, waker, paid) in [
            (126_000.0, None, 12_000.0),
            (126_000.0, Some(30_000.0), 30_000.0),
            (60_000.0, None, 0.0),
            (60_000.0, Some(30_000.0), 0.0),
        ] {
            let d = Design::parse(&format!("a = {first}; b = 100; pipe(a, b)")).unwrap();
            let (_, simulated) = predict(d.term(), 2, &settings, &[], 0.0, waker);
            let t = simulated.unwrap();
            assert!((t - (first + paid)).abs() < 1e-6 * first, "{first}: {t}");
        }
    }
}
