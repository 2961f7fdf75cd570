//! The wake-up latency on a busy core, the simulation's
//! `Platform::wake_latency`: how long a thread blocked on a channel, pinned
//! to a core that another thread keeps busy, takes to run once an element is
//! sent to it from another core. A worker of a task pool that shares its
//! core with a busy stage waits this long, and meanwhile a worker on a free
//! core takes the element.

use pattern_core::exec::Cores;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Pauses between two wake-ups: long enough that the woken thread sleeps
/// again and the busy thread has the core to itself.
const PAUSE: Duration = Duration::from_micros(2_000);

/// The median wake-up latency over `samples` wake-ups, ns; `None` with
/// fewer than two cores or without pinning (nothing to share a core with).
pub(crate) fn wake_latency(cores: &Cores, samples: usize) -> Option<f64> {
    if cores.len() < 2 || cores.ids().is_empty() || samples == 0 {
        return None;
    }
    let stop = AtomicBool::new(false);
    let (to_sleeper, inbox) = mpsc::sync_channel::<Instant>(1);
    let (to_waker, woken) = mpsc::sync_channel::<f64>(1);
    let mut delays: Vec<f64> = std::thread::scope(|s| {
        // The busy thread and the sleeper share core 0.
        s.spawn(|| {
            cores.pin_current(0);
            let mut x = 0u64;
            while !stop.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        });
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
    if delays.is_empty() {
        return None;
    }
    delays.sort_by(f64::total_cmp);
    Some(delays[delays.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wake-up takes time, and less than the pauses between them.
    #[test]
    fn a_wake_up_on_a_busy_core_is_measured() {
        let cores = Cores::of_current_thread();
        match wake_latency(&cores, 20) {
            Some(ns) => assert!(ns > 0.0 && ns < 1e9, "{ns}"),
            None => assert!(cores.len() < 2 || cores.ids().is_empty()),
        }
    }
}
