//! What a run returns, whichever runner ran it: the elements that left,
//! when each entered and left, and the metrics measured from those
//! departures.

use super::context::{Ctx, Item};
use super::error::ExecError;
use super::metrics::{Departure, Metrics, Warning};
use std::sync::OnceLock;
use std::thread;
use std::time::Instant;

/// The largest channel capacity and window (`capacity`, `window` of
/// either runner): both are allocated up front, so memory stays bounded by
/// what the design holds in flight.
pub const MAX_BUFFER: usize = 1 << 20;

/// The result of [`Executor::run`](super::Executor::run) (and of the rayon
/// runner's `run`, with the feature `rayon`).
#[derive(Clone, Debug)]
pub struct Run<E> {
    /// The elements that left the program, with their input positions, in
    /// the order they left.
    pub outputs: Vec<(usize, E)>,
    /// When each of them entered and left, in the same order.
    pub departures: Vec<Departure>,
    /// The measured metrics.
    pub metrics: Metrics,
    /// What the reader should know about the run.
    pub warnings: Vec<Warning>,
}

impl<E> Run<E> {
    /// The outputs sorted by input position.
    pub fn into_input_order(self) -> Vec<E> {
        let mut outputs = self.outputs;
        outputs.sort_by_key(|(i, _)| *i);
        outputs.into_iter().map(|(_, e)| e).collect()
    }

    /// Whether the elements left in the order they came in.
    pub fn kept_order(&self) -> bool {
        self.outputs.windows(2).all(|w| w[0].0 < w[1].0)
    }

    /// The run of the elements that left (`items`, stamped), measured from
    /// `start` with the departures' steady state trimmed by `trim`, for a
    /// design of `threads` threads (warned about when more than the cores);
    /// no thread times (the runner sets them if it has them).
    pub(crate) fn measured(
        mut items: Vec<Item<E>>,
        start: Instant,
        ctx: &Ctx,
        trim: f64,
        threads: usize,
    ) -> Run<E> {
        let cores = available_cores();
        let mut warnings = Vec::new();
        if threads > cores {
            warnings.push(Warning::Oversubscribed { threads, cores });
        }
        items.sort_by_key(|it| it.leave);
        let departures: Vec<Departure> = items
            .iter()
            .map(|it| Departure {
                index: it.index,
                enter_ns: ctx.stamp_ns(it.enter, start),
                leave_ns: ctx.stamp_ns(it.leave, start),
            })
            .collect();
        let makespan_ns = departures.last().map_or(0.0, |d| d.leave_ns);
        let metrics = Metrics::from_departures(
            &departures,
            trim,
            makespan_ns,
            ctx.calls.max_in_flight(),
            threads,
        );
        Run {
            outputs: items.into_iter().map(|it| (it.index, it.value)).collect(),
            departures,
            metrics,
            warnings,
        }
    }
}

/// The cores this process may run on, read once per process: std reads
/// them from the cgroup files on every call (about 37 µs here), which was
/// a fifth of an empty run of the rayon runner.
pub(crate) fn available_cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The options both runners share, out of range, as
/// [`ExecError::InvalidOption`] naming the option, the value and the limit:
/// a channel's capacity and a window of `1..=`[`MAX_BUFFER`] elements, a
/// trimmed fraction of `0..=0.5`.
pub(crate) fn check_options(capacity: usize, window: usize, trim: f64) -> Result<(), ExecError> {
    let invalid = |what: String| Err(ExecError::InvalidOption(what));
    if !(1..=MAX_BUFFER).contains(&capacity) {
        return invalid(format!(
            "capacity({capacity}): the channel capacity runs from 1 to {MAX_BUFFER} elements"
        ));
    }
    if !(1..=MAX_BUFFER).contains(&window) {
        return invalid(format!(
            "window({window}): a window runs from 1 to {MAX_BUFFER} elements"
        ));
    }
    if !(0.0..=0.5).contains(&trim) {
        return invalid(format!(
            "steady_state_trim({trim}): the trimmed fraction runs from 0 to 0.5"
        ));
    }
    Ok(())
}
