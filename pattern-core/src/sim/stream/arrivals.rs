//! Open arrivals ([`Simulation::arrivals`]): elements arrive at the
//! instants of a Poisson process, and the source queue holds those that
//! have arrived and are not taken yet.
//!
//! The model:
//! - Element `i` (from 0) arrives at `a_i = g_0 + … + g_i`, the gaps `g`
//!   exponential of mean `1/rate` ns, drawn from a generator seeded as
//!   asked (on a stream of its own: the same seed for the variation of the
//!   durations draws other numbers). The first arrives after a gap too,
//!   not at 0.
//! - A thread of the first stage takes the first element that has arrived
//!   and is not taken, at once; if none has, it waits in the source's
//!   queue of takers, first come first served.
//! - The arrivals are drawn one at a time, as they are needed: at most one
//!   event is scheduled, at the next arrival, and only while a thread waits
//!   for it. It hands the element to the first waiting thread at once (the
//!   machine's waiting costs, a wake-up latency, say, apply to the queues
//!   between stages, not to the source).
//! - An element's latency counts from its arrival, so its wait in the
//!   source queue is in it.
//!
//! [`Simulation::arrivals`]: super::super::Simulation::arrivals

use super::{ARRIVAL, Item, SOURCE, Stream};
use crate::sim::SimError;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};

/// The arrival process: when the next element arrives.
pub(crate) struct Arrivals {
    rng: ChaCha8Rng,
    gaps: Exp<f64>,
    /// When the next element not taken yet arrives, in ns.
    next: f64,
    /// Whether the event of that arrival is scheduled.
    scheduled: bool,
}

impl Arrivals {
    /// Arrivals at `rate` elements per ns, drawn from a generator seeded
    /// with `seed`; a rate that is not a finite number > 0 is an error.
    pub(crate) fn new(rate: f64, seed: u64) -> Result<Arrivals, SimError> {
        let invalid = || SimError::InvalidArrivalRate { value: rate };
        if !(rate.is_finite() && rate > 0.0) {
            return Err(invalid());
        }
        let gaps = Exp::new(rate).map_err(|_| invalid())?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // The variation draws from stream 0 of its seed.
        rng.set_stream(1);
        let mut a = Arrivals {
            rng,
            gaps,
            next: 0.0,
            scheduled: false,
        };
        a.draw();
        Ok(a)
    }

    /// The next element arrives one gap after the last.
    fn draw(&mut self) {
        self.next += self.gaps.sample(&mut self.rng);
    }
}

impl Stream<'_> {
    /// Whether the source holds an element now: one not taken yet that has
    /// arrived (every one not taken, without arrivals).
    pub(super) fn source_ready(&self) -> bool {
        self.released < self.o.elements
            && (self.o.arrivals.as_ref()).is_none_or(|a| a.next <= self.resources.now)
    }

    /// The first element of the source, if one is there: generated as it is
    /// taken, entering the design when it arrived (now, without arrivals).
    pub(super) fn take_source(&mut self) -> Option<Item> {
        if !self.source_ready() {
            return None;
        }
        let slot = match &mut self.o.direct {
            Some(d) => d.enter(self.released),
            None => 0,
        };
        self.released += 1;
        let entered = match &mut self.o.arrivals {
            Some(a) => {
                let at = a.next;
                a.draw();
                at
            }
            None => self.resources.now,
        };
        Some(Item { entered, slot })
    }

    /// Thread `t` found the source empty: unless every element is taken,
    /// it waits for the next arrival.
    pub(super) fn wait_for_arrival(&mut self, t: usize) {
        if self.released >= self.o.elements {
            return; // the stream is over for this thread
        }
        self.threads[t].since = self.resources.now;
        self.queues[SOURCE].takers.push_back(t);
        self.schedule_arrival();
    }

    /// Schedules the event of the next arrival, unless it is or every
    /// element has arrived.
    fn schedule_arrival(&mut self) {
        let Some(a) = &mut self.o.arrivals else {
            return;
        };
        if a.scheduled || self.released >= self.o.elements {
            return;
        }
        a.scheduled = true;
        let at = a.next;
        self.resources.delay_until(at, ARRIVAL, &mut self.ended);
    }

    /// The next arrival's event: the elements that have arrived go to the
    /// threads waiting for them, in the order they came; the next arrival
    /// is scheduled while threads still wait.
    pub(super) fn arrived(&mut self) {
        if let Some(a) = &mut self.o.arrivals {
            a.scheduled = false;
        }
        while self.source_ready() {
            let Some(t) = self.queues[SOURCE].takers.pop_front() else {
                return;
            };
            if let Some(item) = self.take_source() {
                self.begin(t, item);
            }
        }
        if !self.queues[SOURCE].takers.is_empty() {
            self.schedule_arrival();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_exponential_of_the_rate_and_seeded() {
        let mut a = Arrivals::new(0.01, 5).unwrap();
        let mut b = Arrivals::new(0.01, 5).unwrap();
        let n = 100_000;
        for _ in 1..n {
            a.draw();
            b.draw();
        }
        assert_eq!(a.next.to_bits(), b.next.to_bits());
        // n gaps of mean 100 ns: within 4 standard errors (100·√n ns).
        let mean = a.next / n as f64;
        assert!(
            (mean / 100.0 - 1.0).abs() < 4.0 / (n as f64).sqrt(),
            "{mean}"
        );
        assert_ne!(
            Arrivals::new(0.01, 6).unwrap().next,
            Arrivals::new(0.01, 5).unwrap().next
        );
    }

    #[test]
    fn a_rate_not_finite_and_positive_is_refused() {
        for rate in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(matches!(
                Arrivals::new(rate, 1),
                Err(SimError::InvalidArrivalRate { .. })
            ));
        }
        assert!(Arrivals::new(f64::MIN_POSITIVE, 1).is_ok());
    }
}
