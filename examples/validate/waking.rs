//! What waking a pipeline stage asleep on a free core costs the stage that
//! wakes it, timed as a run's stages pay it: with the waker's own kernel
//! on a stream of cold elements. The machine-wide measurement
//! ([`crate::wake`]) hands over between passes over 64 KiB that stay in
//! the cache, and there a wake-up costs the waker 11–14 µs. A waker that
//! streams its elements from memory pays more, and the more the larger
//! they are: on 2026-11-24, passes over cold arrays of 64 KiB, 256 KiB,
//! 512 KiB and 1 MiB paid 16, 19, 25 and 32 µs per wake-up, and
//! `pipe(inc, nop)` at 262,144 elements ran 24 µs per element slower with
//! its second stage asleep between elements than with it polling (273
//! against 249 µs), where the machine-wide cost predicted it 6–11 % too
//! fast (runs 12–14).

use crate::cases::Case;
use crate::error::ValidationError;
use crate::settings::Settings;
use crate::suite::Suite;
use crate::wake::median;
use crossbeam_channel::{TryRecvError, bounded};
use pattern_core::Expr;
use pattern_core::exec::Cores;
use std::collections::BTreeMap;
use std::thread;
use std::time::Instant;

/// Elements each of the two blocks of a timing hands over, at least (as
/// many as a cold timing's stream where that is longer, at most what the
/// memory bound allows).
const WAKING_ELEMENTS: usize = 16;

/// A waker's timing at one size, ns per element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Waking {
    /// The median of the kernel and the hand-over to a receiver that
    /// polls.
    pub(crate) polled: f64,
    /// The median to a receiver that sleeps, less `polled` (at least 0):
    /// what a wake-up costs the waker.
    pub(crate) cost: f64,
}

impl<E: Send + 'static> Suite<E> {
    /// Times the element kernel `name` at `x` on two blocks of cold
    /// elements, each element handed on after the kernel to a thread on
    /// the second core that polls (one block) or sleeps at once (the
    /// other; which block goes first alternates with `round`). The first
    /// element of each block warms the code up, untimed; the receiver keeps
    /// the elements until the block's timing is over. On one core, `None`.
    pub(crate) fn measure_waking(
        &self,
        name: &str,
        settings: &Settings,
        x: usize,
        round: usize,
        cores: Option<&Cores>,
    ) -> Result<Option<Waking>, ValidationError> {
        let kernel = self.element_kernel(name)?;
        let Some(cores) = cores.filter(|c| c.len() > 1) else {
            return Ok(None);
        };
        let k = self
            .stream_length(name, &kernel, x, settings)
            .max(WAKING_ELEMENTS)
            .min((self.memory_bound(x, settings) / 4).max(2));
        let mut seed = u64::MAX / 8;
        let mut block = || -> Vec<E> {
            (0..=k)
                .map(|_| {
                    seed -= 1;
                    (self.make)(x, seed)
                })
                .collect()
        };
        let (first, second) = (block(), block());
        self.evict(&[x], settings);
        let time_block = |elements: Vec<E>, asleep: bool| -> Option<f64> {
            let (to_receiver, inbox) = bounded::<E>(1);
            let mut times = thread::scope(|s| {
                let receiver = cores.spawning(0, || {
                    s.spawn(move || {
                        cores.pin_current(1);
                        let mut kept = Vec::with_capacity(k + 1);
                        if asleep {
                            kept.extend(inbox.iter());
                        } else {
                            loop {
                                match inbox.try_recv() {
                                    Ok(e) => kept.push(e),
                                    Err(TryRecvError::Empty) => std::hint::spin_loop(),
                                    Err(TryRecvError::Disconnected) => break,
                                }
                            }
                        }
                        kept
                    })
                });
                cores.pin_current(0);
                let mut times = Vec::with_capacity(k);
                for (i, mut e) in elements.into_iter().enumerate() {
                    let start = Instant::now();
                    kernel(&mut e);
                    if to_receiver.send(e).is_err() {
                        break;
                    }
                    if i > 0 {
                        times.push(start.elapsed().as_nanos() as f64);
                    }
                }
                drop(to_receiver);
                drop(receiver.join());
                times
            });
            median(&mut times)
        };
        let (polled, asleep) = if round.is_multiple_of(2) {
            let polled = time_block(first, false);
            (polled, time_block(second, true))
        } else {
            let asleep = time_block(first, true);
            (time_block(second, false), asleep)
        };
        Ok(polled.zip(asleep).map(|(polled, asleep)| Waking {
            polled,
            cost: (asleep - polled).max(0.0),
        }))
    }
}

/// The wakers' timings of a suite, by probe and size.
pub(crate) struct Wakings {
    cost: Vec<BTreeMap<usize, Vec<f64>>>,
    polled: Vec<BTreeMap<usize, Vec<f64>>>,
}

impl Wakings {
    /// None yet, for `probes` probes.
    pub(crate) fn new(probes: usize) -> Self {
        Wakings {
            cost: vec![BTreeMap::new(); probes],
            polled: vec![BTreeMap::new(); probes],
        }
    }

    /// Adds probe `i`'s timing at `x`.
    pub(crate) fn record(&mut self, i: usize, x: usize, w: Waking) {
        self.cost[i].entry(x).or_default().push(w.cost);
        self.polled[i].entry(x).or_default().push(w.polled);
    }

    /// Every probe's wake-up costs so far, by size.
    pub(crate) fn costs(&self) -> &[BTreeMap<usize, Vec<f64>>] {
        &self.cost
    }

    /// The median wake-up cost of probe `i` at `x` so far, where its
    /// kernel's median time there (`polled`) exceeds `longer_than`, ns.
    pub(crate) fn cost_at(&self, i: usize, x: usize, longer_than: f64) -> Option<f64> {
        let polled = median(&mut self.polled.get(i)?.get(&x)?.clone())?;
        (polled > longer_than)
            .then(|| median(&mut self.cost.get(i)?.get(&x)?.clone()))
            .flatten()
    }
}

impl<E: Send + 'static> Suite<E> {
    /// What waking a stage costs a stage of `case` at `x` on `cores`
    /// cores, ns: the wake-up cost of its costliest element atom (the
    /// slowest stage sets the pace, and it is the one that wakes the
    /// others: the stage after it, asleep between elements, and the one
    /// before, blocked on a full channel), as measured by
    /// [`Suite::measure_waking`], where the atom takes longer than a
    /// waiting stage polls before it sleeps (otherwise no stage sleeps, and
    /// the machine-wide cost stands); `None` beyond the cores (no wake-up
    /// costs there, [`platform`](crate::machine_aware::platform)) and
    /// without timings.
    pub(crate) fn waker_of(
        &self,
        case: &Case,
        atoms: &[(String, Expr)],
        x: usize,
        cores: usize,
        settings: &Settings,
        wakings: &Wakings,
    ) -> Result<Option<f64>, ValidationError> {
        let at = [("x", x as f64)];
        let time = |i: usize| {
            atoms
                .iter()
                .find(|(name, _)| name == self.probes[i].name())
                .and_then(|(_, model)| model.eval(&at).ok())
                .unwrap_or(0.0)
        };
        let costliest = self
            .waking_atoms_of(case, cores)?
            .into_iter()
            .max_by(|&a, &b| time(a).total_cmp(&time(b)));
        let polls = settings.spin.as_secs_f64() * 1e9 + settings.waiting.spin_ns.unwrap_or(0.0);
        Ok(costliest.and_then(|i| wakings.cost_at(i, x, polls)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The medians by probe and size; a kernel shorter than the polling
    /// gives no cost.
    #[test]
    fn wake_up_costs_are_kept_by_probe_and_size() {
        let mut w = Wakings::new(2);
        for (polled, cost) in [(250e3, 30e3), (240e3, 20e3), (260e3, 40e3)] {
            w.record(1, 262_144, Waking { polled, cost });
        }
        w.record(
            1,
            1_024,
            Waking {
                polled: 1e3,
                cost: 50e3,
            },
        );
        assert_eq!(w.cost_at(1, 262_144, 113e3), Some(30e3));
        assert_eq!(w.cost_at(1, 1_024, 113e3), None);
        assert_eq!(w.cost_at(0, 262_144, 113e3), None);
        assert_eq!(w.cost_at(2, 262_144, 113e3), None);
        assert_eq!(w.costs()[1][&262_144].len(), 3);
    }
}
