//! The hand-over between threads timed as an atom of its own
//! ([`Suite::with_handoff`]): between pipeline stages on cores of their
//! own, between stages that share a core, and from a task pool's queue to
//! its workers. A cost of threads, not of memory: timed without the speed
//! probe.

use crate::error::ValidationError;
use crate::machine_aware::predict;
use crate::probe::Speed;
use crate::refinements::{HANDOFF, with_handoff};
use crate::settings::Settings;
use crate::suite::Suite;
use pattern_core::exec::Kernels;
use pattern_core::{Atom, Count, Expr, Term};
use std::time::{Duration, Instant};

/// The kernel time of the workers that measure a pool's hand-over
/// ([`pool_handoff_name`](crate::refinements::pool_handoff_name)): long
/// enough that the queue's memory has moved to the other cores between two
/// takes, as with real kernels.
const POOL_SPIN: Duration = Duration::from_micros(10);

impl<E: Send + 'static> Suite<E> {
    /// The hand-over between two threads at `x`, ns: the steady-state time
    /// per element of `pipe(pass, pass)` with do-nothing stages, run by the
    /// executor on as many elements as a run takes at most (`None` when the
    /// run has too few departures). A cost of threads, not of memory:
    /// `speed` is expected without probes.
    pub(crate) fn time_handoff(
        &self,
        x: usize,
        round: usize,
        settings: &Settings,
        speed: &mut Speed,
    ) -> Result<Option<f64>, ValidationError> {
        let pass_kernels = Kernels::<E>::new().add("pass", |_| {});
        let pass_term = Term::pipe(
            Term::atom("pass", Expr::num(0.0)),
            Term::atom("pass", Expr::num(0.0)),
        );
        let n = settings.max_elements.min(self.memory_bound(x, settings));
        let metrics = self
            .least_disturbed(&pass_kernels, &pass_term, x, n, round, settings, speed)?
            .metrics;
        Ok(metrics.inter_departure_ns)
    }

    /// The hand-over between pipeline stages that share a core, ns: the
    /// time per element of a pipeline of `2 · cores` do-nothing stages,
    /// pinned two to a core, over what the refined model charges it in
    /// hand-overs (a stage pays one per boundary it touches: a core runs
    /// `2 · 2 − 1 = 3` of them per element on two cores). Stages that
    /// share a core wait for each other by blocking, dearer than the
    /// spinning hand-over of [`Suite::time_handoff`].
    pub(crate) fn time_shared_handoff(
        &self,
        x: usize,
        round: usize,
        cores: usize,
        settings: &Settings,
        speed: &mut Speed,
    ) -> Result<Option<f64>, ValidationError> {
        let pass_kernels = Kernels::<E>::new().add("pass", |_| {});
        let stages = 2 * cores.max(1);
        let Some(pass_term) =
            Term::pipe_all((0..stages).map(|_| Term::atom("pass", Expr::num(0.0))))
        else {
            return Ok(None);
        };
        // The refined model of the same pipeline with a hand-over of 1 ns,
        // on this machine's cores: hand-overs per element.
        let unit = Atom {
            name: HANDOFF.to_string(),
            model: Expr::num(1.0),
            bytes: None,
        };
        let (_, per_unit) = predict(
            &with_handoff(&pass_term, &unit),
            cores,
            settings,
            &[],
            0.0,
            None,
        );
        let Some(per_unit) = per_unit.filter(|u| *u > 0.0) else {
            return Ok(None);
        };
        let n = settings.max_elements.min(self.memory_bound(x, settings));
        let metrics = self
            .least_disturbed(&pass_kernels, &pass_term, x, n, round, settings, speed)?
            .metrics;
        Ok(metrics.inter_departure_ns.map(|t| t / per_unit))
    }

    /// A pool's hand-over: what each of `w` workers spends per element
    /// beside a kernel of known time, ns — `w` times the time per element
    /// of `tpool[w](spin)` minus the kernel's 10 µs (`None` when the run has
    /// too few departures). A cost of threads, not of the elements: on
    /// elements of the smallest size, as many as a full run takes.
    pub(crate) fn time_pool_handoff(
        &self,
        w: usize,
        round: usize,
        settings: &Settings,
        speed: &mut Speed,
    ) -> Result<Option<f64>, ValidationError> {
        let spin_kernels = Kernels::<E>::new().add("spin", |_| {
            let start = Instant::now();
            while start.elapsed() < POOL_SPIN {
                std::hint::spin_loop();
            }
        });
        let spin = POOL_SPIN.as_nanos() as f64;
        let term = Term::Tpool(
            Count::Fixed(w as u64),
            Box::new(Term::atom("spin", Expr::num(spin))),
        );
        let smallest = self.sizes[0];
        let n = ((settings.run_target.as_nanos() as f64 * w as f64 / spin) as usize)
            .clamp(settings.min_elements, settings.max_elements.max(1))
            .min(self.memory_bound(smallest, settings));
        let metrics = self
            .least_disturbed(&spin_kernels, &term, smallest, n, round, settings, speed)?
            .metrics;
        Ok(metrics
            .inter_departure_ns
            .map(|t| (t * w as f64 - spin).max(0.0)))
    }
}
