//! What the executor costs per element where its stages do nothing: the
//! hand-over between two pipeline stages ([`Waiting::handoff_ns`], runs of
//! `pipe(pass, pass)`) and the take from a task pool's shared queue
//! ([`Waiting::take_ns`], runs of `tpool[1](pass)`), each the steady-state
//! time per element of a run, its threads pinned where they can be.
//!
//! [`Waiting::handoff_ns`]: crate::machine::Waiting::handoff_ns
//! [`Waiting::take_ns`]: crate::machine::Waiting::take_ns

use super::threads::Sampled;
use crate::Design;
use crate::exec::{Executor, Kernels};
use std::time::Duration;

/// The design whose time per element is the hand-over.
pub(super) const HANDOFF: &str = "pipe(pass, pass)";

/// The design whose time per element is the take.
pub(super) const TAKE: &str = "tpool[1](pass)";

/// Samples per run: a run of a few thousand elements or more gives one
/// steady-state time per element.
const SAMPLES_PER_RUN: usize = 25;

/// Elements of a run for each sample asked for, within
/// [`FEWEST_ELEMENTS`] and [`MOST_ELEMENTS`].
const ELEMENTS_PER_SAMPLE: usize = 125;
const FEWEST_ELEMENTS: usize = 2_000;
const MOST_ELEMENTS: usize = 50_000;

/// The runs `samples` ask for, and the elements of each.
pub(super) fn runs(samples: usize) -> (usize, usize) {
    let elements = samples
        .saturating_mul(ELEMENTS_PER_SAMPLE)
        .clamp(FEWEST_ELEMENTS, MOST_ELEMENTS);
    (samples.div_ceil(SAMPLES_PER_RUN).max(1), elements)
}

/// The steady-state time per element of `structure` (of `pass` atoms that
/// do nothing to one-int arrays, as the validation lab runs them) over
/// [`runs`]`(samples)` runs by the executor, its threads pinned if
/// `pinned`: their median. A stage that waits spins for `spin` before it
/// blocks (by default, `None`, the executor's 100 µs while the design's
/// threads fit the cores, and at once beyond them; `Duration::ZERO`, at
/// once, as plain threads do).
pub(super) fn per_element(
    structure: &str,
    samples: usize,
    pinned: bool,
    spin: Option<Duration>,
) -> Result<Sampled, String> {
    let kernels = Kernels::<Vec<i32>>::new().add("pass", |_| {});
    let design = Design::parse(&format!("pass = 0; {structure}")).map_err(|e| e.to_string())?;
    let mut executor = Executor::new(&kernels).pin_threads(pinned);
    if let Some(spin) = spin {
        executor = executor.spin(spin);
    }
    let (runs, elements) = runs(samples);
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let inputs = (0..elements).map(|_| vec![0]).collect();
        let run = (executor.run(design.term(), inputs))
            .map_err(|e| format!("`{structure}` did not run: {e}"))?;
        let m = run.metrics;
        times.push((m.inter_departure_ns).unwrap_or(m.makespan_ns / m.elements.max(1) as f64));
    }
    Sampled::of(times)
}
