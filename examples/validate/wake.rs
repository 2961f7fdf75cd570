//! How threads wait on this machine, a part of the machine ([`Waiting`])
//! that the simulations' machine takes: the
//! wake-up latency on a busy core (`Waiting::wake_latency_ns`), how long a
//! receiver blocked on the executor's channel polls before it sleeps
//! (`Waiting::spin_ns`), what a wake-up costs the thread busy on the woken
//! one's core (`Waiting::wake_cost_ns`), and what waking a thread asleep on
//! a free core costs the waker (`Waiting::waker_cost_ns`). Each is measured
//! with the executor's channel (crossbeam's bounded channel, received as
//! the executor does when its threads outnumber the cores: blocking at
//! once).

use crossbeam_channel::bounded;
use pattern_core::exec::Cores;
use pattern_core::fit::measure::thread_cpu_ns;
use pattern_core::machine::Waiting;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Pauses between two wake-ups: long enough that the woken thread sleeps
/// again and the busy thread has the core to itself.
const PAUSE: Duration = Duration::from_micros(2_000);

/// Pauses between two wake-ups when a wake-up is timed by its CPU: longer
/// than this machine's wake-up latency with the executor's channel (1.8
/// ms), so that each one is over before the next.
const SLOW_PAUSE: Duration = Duration::from_millis(4);

/// What was measured, ns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Measured {
    /// The median wake-up latency on a busy core.
    pub(crate) latency: f64,
    /// The median CPU time a receiver on a free core spends in a wait that
    /// ends with a wake-up: its polling before it sleeps (`None` where a
    /// thread's CPU time cannot be read).
    pub(crate) spin: Option<f64>,
    /// The median CPU time a thread woken for nothing on a busy core takes
    /// from it (`None` likewise).
    pub(crate) cost: Option<f64>,
    /// What a thread loses handing an element to a thread asleep on a free
    /// core, against one that polls.
    pub(crate) waker: f64,
}

/// All three, `samples` times each (fewer for the spin and the cost);
/// `None` with fewer than two cores or without pinning.
pub(crate) fn measure(cores: &Cores, samples: usize) -> Option<Measured> {
    if cores.len() < 2 || cores.ids().is_empty() || samples == 0 {
        return None;
    }
    Some(Measured {
        latency: wake_latency(cores, samples)?,
        spin: spin(cores, samples.div_ceil(4)),
        cost: wake_cost(cores, samples.div_ceil(8)),
        waker: waker_cost(cores, samples)?,
    })
}

impl Measured {
    /// The machine's waiting as measured, each figure in whole ns; an
    /// unknown spin polls for ever, an unknown cost is none.
    pub(crate) fn waiting(&self) -> Waiting {
        let ns = |v: f64| v.max(0.0).trunc();
        let waiting = Waiting::new()
            .wake_latency_ns(ns(self.latency))
            .wake_cost_ns(self.cost.map_or(0.0, ns))
            .waker_cost_ns(ns(self.waker));
        match self.spin {
            Some(spin) => waiting.spin_ns(ns(spin)),
            None => waiting,
        }
    }
}

/// The median of `values` (sorted in place); `None` if empty.
pub(crate) fn median(values: &mut [f64]) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

/// The calling thread's CPU time so far, ns, up to date
/// ([`thread_cpu_ns`]: the scheduler's counter lags a running thread).
fn cpu_ns() -> Option<f64> {
    thread_cpu_ns().map(|ns| ns as f64)
}

/// A thread that keeps core `core` busy until `stop`, counting its loops
/// in `count`.
fn busy(cores: &Cores, core: usize, stop: &AtomicBool, count: &AtomicU64) {
    cores.pin_current(core);
    let mut x = 0u64;
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..1024 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        count.fetch_add(1, Ordering::Relaxed);
    }
}

/// The median wake-up latency over `samples` wake-ups: a thread blocked on
/// a channel, pinned to a core that another thread keeps busy, takes this
/// long to run once an element is sent to it from another core.
fn wake_latency(cores: &Cores, samples: usize) -> Option<f64> {
    let stop = AtomicBool::new(false);
    let loops = AtomicU64::new(0);
    let (to_sleeper, inbox) = bounded::<Instant>(1);
    let (to_waker, woken) = bounded::<f64>(1);
    let mut delays: Vec<f64> = std::thread::scope(|s| {
        // The busy thread and the sleeper share core 0.
        s.spawn(|| busy(cores, 0, &stop, &loops));
        s.spawn(move || {
            cores.pin_current(0);
            while let Ok(sent) = inbox.recv() {
                let delay = sent.elapsed().as_nanos() as f64;
                if to_waker.send(delay).is_err() {
                    break;
                }
            }
        });
        let delays = cores.run_on(1, move || {
            let mut delays = Vec::with_capacity(samples);
            for _ in 0..samples {
                std::thread::sleep(PAUSE);
                if to_sleeper.send(Instant::now()).is_err() {
                    break;
                }
                match woken.recv() {
                    Ok(d) => delays.push(d),
                    Err(_) => break,
                }
            }
            drop(to_sleeper);
            delays
        });
        stop.store(true, Ordering::Relaxed);
        delays
    });
    median(&mut delays)
}

/// The median CPU time of a receiver on a core of its own over `samples`
/// waits of a millisecond each: what it polls before it sleeps, and the
/// wake-up.
fn spin(cores: &Cores, samples: usize) -> Option<f64> {
    let (to_receiver, inbox) = bounded::<()>(1);
    let mut spent: Vec<f64> = std::thread::scope(|s| {
        let receiver = s.spawn(move || {
            cores.pin_current(1);
            let mut spent = Vec::with_capacity(samples);
            while let Some(before) = cpu_ns() {
                if inbox.recv().is_err() {
                    break;
                }
                if let Some(after) = cpu_ns() {
                    spent.push(after - before);
                }
            }
            spent
        });
        cores.run_on(0, move || {
            for _ in 0..samples {
                std::thread::sleep(Duration::from_millis(1));
                if to_receiver.send(()).is_err() {
                    break;
                }
            }
        });
        receiver.join().unwrap_or_default()
    });
    median(&mut spent)
}

/// The median CPU time of a thread woken `samples` times for nothing on a
/// core that another thread keeps busy (pinned to core 0, woken from core
/// 1 every [`SLOW_PAUSE`]), from one wake-up to the next: what it takes
/// from the busy thread each time (the switches into it and out of it
/// cost a little more, uncounted).
fn wake_cost(cores: &Cores, samples: usize) -> Option<f64> {
    let stop = AtomicBool::new(false);
    let loops = AtomicU64::new(0);
    let (to_sleeper, inbox) = bounded::<()>(1);
    let mut spent: Vec<f64> = std::thread::scope(|s| {
        s.spawn(|| busy(cores, 0, &stop, &loops));
        let sleeper = s.spawn(move || {
            cores.pin_current(0);
            let mut spent = Vec::with_capacity(samples);
            let mut last = None;
            while inbox.recv().is_ok() {
                let now = cpu_ns();
                if let (Some(before), Some(now)) = (last, now) {
                    spent.push(now - before);
                }
                last = now;
            }
            spent
        });
        cores.run_on(1, move || {
            for _ in 0..=samples {
                std::thread::sleep(SLOW_PAUSE);
                if to_sleeper.send(()).is_err() {
                    break;
                }
            }
        });
        let spent = sleeper.join().unwrap_or_default();
        stop.store(true, Ordering::Relaxed);
        spent
    });
    median(&mut spent)
}

/// The work between two hand-overs of [`waker_cost`]: 60 passes over 64
/// KiB, about 60 µs on the CI machine, longer than the channel's polling
/// (about 13 µs), so that a blocked receiver is asleep at each.
fn between_hand_overs(v: &mut [u32]) {
    for _ in 0..60 {
        for e in v.iter_mut() {
            *e = e.wrapping_add(1);
        }
        std::hint::black_box(&mut *v);
    }
}

/// The median time of `rounds` rounds of work and a hand-over, from core 0
/// to a receiver on core 1 that blocks on the channel (`asleep`) or polls
/// it without end.
fn hand_over_round(cores: &Cores, asleep: bool, rounds: usize) -> Option<f64> {
    let (to_receiver, inbox) = bounded::<()>(1);
    let stop = AtomicBool::new(false);
    let mut times: Vec<f64> = std::thread::scope(|s| {
        let stop = &stop;
        s.spawn(move || {
            cores.pin_current(1);
            if asleep {
                while inbox.recv().is_ok() {}
            } else {
                while !stop.load(Ordering::Relaxed) {
                    if inbox.try_recv().is_err() {
                        std::hint::spin_loop();
                    }
                }
            }
        });
        let times = cores.run_on(0, move || {
            let mut v = vec![1u32; 16 * 1024];
            let mut times = Vec::with_capacity(rounds);
            for _ in 0..rounds {
                let start = Instant::now();
                between_hand_overs(&mut v);
                if to_receiver.send(()).is_err() {
                    break;
                }
                times.push(start.elapsed().as_nanos() as f64);
            }
            times
        });
        stop.store(true, Ordering::Relaxed);
        times
    });
    median(&mut times)
}

/// What waking a thread asleep on a free core costs the thread that hands
/// it the element: the median round of work and hand-over to a receiver
/// that sleeps, less the median round to one that polls, over blocks of
/// rounds taken in turn (the difference of each pair, their median). On
/// the CI machine 11–15 µs: the halted virtual core is woken through the
/// hypervisor.
fn waker_cost(cores: &Cores, samples: usize) -> Option<f64> {
    let rounds = 50;
    let mut costs: Vec<f64> = (0..samples.div_ceil(rounds).max(3))
        .filter_map(|_| {
            let polled = hand_over_round(cores, false, rounds)?;
            let asleep = hand_over_round(cores, true, rounds)?;
            Some((asleep - polled).max(0.0))
        })
        .collect();
    median(&mut costs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each is measured, in ns, within the measurement's own time: a
    /// wake-up takes time, a wait's polling and a wake-up's cost are CPU
    /// time of threads that lived no longer than the measurement, and the
    /// waker's cost is a difference of rounds timed within it (not below
    /// 0). No bound on how long these take: that depends on the load.
    #[test]
    fn the_ways_threads_wait_are_measured() {
        let cores = Cores::of_current_thread();
        let started = Instant::now();
        let measured = measure(&cores, 20);
        let wall = started.elapsed().as_nanos() as f64;
        let Some(w) = measured else {
            assert!(cores.len() < 2 || cores.ids().is_empty());
            return;
        };
        let within = |ns: f64| ns.is_finite() && ns <= wall;
        assert!(w.latency > 0.0 && within(w.latency), "{w:?} in {wall} ns");
        // (CPU times are read where Linux gives them)
        let readable = thread_cpu_ns().is_some();
        assert_eq!(w.spin.is_some(), readable, "{w:?}");
        assert_eq!(w.cost.is_some(), readable, "{w:?}");
        assert!(
            w.spin.is_none_or(|ns| ns > 0.0 && within(ns)),
            "{w:?} in {wall} ns"
        );
        assert!(
            w.cost.is_none_or(|ns| ns >= 0.0 && within(ns)),
            "{w:?} in {wall} ns"
        );
        assert!(w.waker >= 0.0 && within(w.waker), "{w:?} in {wall} ns");
    }
}
