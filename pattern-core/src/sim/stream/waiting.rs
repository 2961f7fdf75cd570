//! Threads waiting for an element when wake-ups take time (the
//! machine's [`Waiting`] costs: the wake-up latency, the waker cost): who
//! gets a new
//! element, who is woken, and what a wake-up costs.
//!
//! The model, after how a channel hands elements to blocked receivers:
//! - A thread that finds its queue empty polls it for the spin
//!   ns, then sleeps. The threads waiting on a queue are kept in the order
//!   they started to wait.
//! - A new element goes at once to the first polling thread, in that
//!   order, that can run at once (its core is free).
//! - Otherwise it is queued and the first waiting thread not yet notified
//!   is notified: a sleeping one whose core is free takes it at once; any
//!   other runs after the wake-up latency, or as soon as its core is free
//!   if that comes first, and takes an element if one is left. If none is,
//!   it spends the wake cost ns of its core's time (competing
//!   with the thread running there) and waits again, at the back of the
//!   order.
//! - The thread that woke a sleeping one on a free core spends
//!   the waker cost ns of its own core's time before it goes on
//!   (a halted virtual core is woken through the hypervisor).
//!
//! With the default spin (forever) no thread sleeps, and the element goes
//! to the first waiting thread that can run at once, or to the first that
//! cannot after the latency.
//!
//! [`Waiting`]: crate::machine::Waiting

use super::{EMPTY_WAKE, Item, SOURCE, Stream, WAKE};

impl Stream<'_> {
    /// Whether thread `t`, woken now by `by`, would wait for its core: the
    /// core is busy, or it is the core of `by`, which goes on running when
    /// its next item is there.
    fn would_wait(&self, t: usize, by: usize) -> bool {
        let home = |t: usize| self.stations[self.threads[t].station].template.home();
        let input = self.stations[self.threads[by].station].input;
        let goes_on = if input == SOURCE {
            self.source_ready()
        } else {
            !self.queues[input].items.is_empty()
        };
        let (node, core) = (home(t), self.threads[t].pin);
        if goes_on {
            self.resources
                .would_wait(node, core, home(by), self.threads[by].pin)
        } else {
            self.resources.would_wait(node, core, usize::MAX, 0)
        }
    }

    /// Whether waiting thread `w` still polls its queue.
    fn polling(&self, w: usize) -> bool {
        self.resources.now - self.threads[w].since < self.o.spin
    }

    /// [`put`](Self::put) with a wake-up latency or a waker's cost (the
    /// module's model).
    pub(super) fn put_waking(&mut self, t: usize, output: usize, item: Item) {
        let takers = &self.queues[output].takers;
        let at_once =
            (0..takers.len()).find(|&i| self.polling(takers[i]) && !self.would_wait(takers[i], t));
        if let Some(i) = at_once {
            if let Some(taker) = self.queues[output].takers.remove(i) {
                self.begin(taker, item);
            }
            self.free.push(t);
            return;
        }
        let q = &mut self.queues[output];
        let queued = q.items.len() < q.capacity;
        if queued {
            q.items.push_back(item);
        } else {
            q.blocked.push_back((t, item));
        }
        let takers = &self.queues[output].takers;
        let Some(i) = (0..takers.len()).find(|&i| self.threads[takers[i]].waking.is_none()) else {
            if queued {
                self.free.push(t);
            }
            return;
        };
        let w = takers[i];
        if !self.polling(w) && !self.would_wait(w, t) {
            // Asleep on a free core: it runs at once, and waking it costs
            // the waker.
            self.queues[output].takers.remove(i);
            if let Some(item) = self.pop(output) {
                self.begin(w, item);
            }
            // Through a rendezvous the waker's own element went, and the
            // waker goes on (freed by the pop): after the waker cost too.
            let handed = !queued && self.free.last() == Some(&t);
            if handed {
                self.free.pop();
            }
            if queued || handed {
                self.go_on_after_waking(t);
            }
            return;
        }
        if queued {
            self.free.push(t);
        }
        let latency = self.o.wake_latency;
        self.threads[w].waking = Some(self.resources.now + latency);
        self.waking.push(w);
        self.resources.delay(latency, WAKE + w, &mut self.ended);
    }

    /// Thread `t` woke a thread asleep on a free core: it goes on after
    /// the waker cost ns on its own core.
    fn go_on_after_waking(&mut self, t: usize) {
        let cost = self.o.waker_cost;
        if cost > 0.0 {
            let node = self.stations[self.threads[t].station].template.home();
            let core = self.threads[t].pin;
            self.resources.compute(node, core, cost, EMPTY_WAKE + t);
        } else {
            self.free.push(t);
        }
    }

    /// Threads woken late whose core is free now (the thread busy there
    /// blocked, waits or is done) run now: `true` if one did.
    pub(super) fn wake_where_idle(&mut self) -> bool {
        if self.waking.is_empty() {
            return false;
        }
        let mut any = false;
        for w in std::mem::take(&mut self.waking) {
            if self.threads[w].waking.is_none() {
                continue; // it ran already
            }
            let node = self.stations[self.threads[w].station].template.home();
            if self
                .resources
                .would_wait(node, self.threads[w].pin, usize::MAX, 0)
            {
                self.waking.push(w);
            } else {
                self.threads[w].waking = Some(self.resources.now);
                self.woken(w);
                any = true;
            }
        }
        any
    }

    /// Thread `t`'s wake-up latency is over: it takes an item if one is
    /// still there; if not, it spends the wake-up's cost on its core and
    /// waits again.
    pub(super) fn woken(&mut self, t: usize) {
        match self.threads[t].waking {
            Some(due) if due <= self.resources.now => self.threads[t].waking = None,
            _ => return,
        }
        if self.threads[t].retired {
            return;
        }
        let input = self.stations[self.threads[t].station].input;
        let Some(i) = self.queues[input].takers.iter().position(|&w| w == t) else {
            return;
        };
        self.queues[input].takers.remove(i);
        if let Some(item) = self.pop(input) {
            self.begin(t, item);
            return;
        }
        let cost = self.o.wake_cost;
        if cost > 0.0 {
            let node = self.stations[self.threads[t].station].template.home();
            let core = self.threads[t].pin;
            self.resources.compute(node, core, cost, EMPTY_WAKE + t);
        } else {
            self.rejoin(t);
        }
    }

    /// Thread `t`, back from a wake-up that found nothing, waits again (at
    /// the back of the order) or takes an item that came meanwhile.
    pub(super) fn rejoin(&mut self, t: usize) {
        if !self.threads[t].retired {
            self.free.push(t);
        }
    }
}
