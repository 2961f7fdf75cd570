//! The experiments of rayon's runtime (feature `rayon`), written with plain
//! rayon and crossbeam the way a user's program runs: a task pool is a
//! rayon `ThreadPool`, a pipeline's stages std threads joined by crossbeam
//! bounded channels with blocking sends and receives (rayon has no
//! pipeline). rayon does not pin its threads; the probe pins a pool's
//! worker (through its `start_handler`) only where an experiment needs it
//! on a given core.
//!
//! | quantity | experiment | a sample |
//! | --- | --- | --- |
//! | `handoff_ns` | two std threads joined by a crossbeam `bounded(4)` channel, passing one-int arrays with blocking `send` and `recv` | a run's steady-state time per element |
//! | `take_ns` | a rayon pool of 1 worker consuming a filled channel with `par_bridge` (`pool.install(\|\| inbox.into_iter().par_bridge().for_each(pass))`) | a run's time per element, timed on the worker |
//! | `wake_latency_ns` | a pool of 1 worker, pinned to core 0 that another thread keeps busy, handed a job by `pool.spawn` from core 1 every 2 ms | the time from the spawn until the job runs |
//! | `spin_ns` | a pool of 1 worker on a core of its own, handed a job from another core every 1 ms | the worker's CPU time from one job's end to the next one's start |
//! | `wake_cost_ns` | a pool of 2 workers, the first on core 1, the second on core 0 that another thread keeps busy, handed `rayon::join(\|\| (), \|\| ())` from core 1 every 4 ms or twice the wake-up latency, once the second worker sleeps again: the join's second half wakes it, and the first takes it back | the second worker's CPU time between two hand-overs, read through its CPU clock from another thread (Linux) |
//! | `waker_cost_ns` | rounds of work and a `pool.spawn` of a job that does nothing, to a pool whose worker on another core sleeps, against one whose worker polls (`rayon::yield_now` without end); the waker spins 250 µs untimed before each round, so that a sleeping worker is asleep | a pair of blocks of rounds: the difference of their median rounds |

mod idle;
mod pool;
mod stream;
#[cfg(target_os = "linux")]
mod vain;
mod wake;
mod waker;

use super::options::Part;
use super::quantity::{Bench, Quantity, ms};
use super::{spin, wake as executor_wake, waker as executor_waker};

/// The six quantities of rayon's runtime, in [`Part::ALL`]'s order.
pub(super) fn quantities(b: &Bench) -> Vec<Quantity> {
    let (cores, n) = (b.cores, b.n);
    let (_, elements) = super::handoff::runs(n);
    let latency = b.take(
        Part::WakeLatency,
        &b.for_waits,
        format!(
            "a job handed to a rayon pool whose one worker idles on a busy core, every {}, from the spawn until it runs",
            ms(executor_wake::PAUSE)
        ),
        &|| wake::latency(cores, n),
    );
    let pause = executor_wake::slow_pause(latency.median_ns());
    vec![
        latency,
        b.take(
            Part::Spin,
            &b.for_cpu,
            format!(
                "the CPU time of a rayon pool's idle worker between two jobs {} apart",
                ms(spin::WAIT)
            ),
            &|| idle::idle(cores, n.div_ceil(4)),
        ),
        wake_cost(b, pause),
        b.take(
            Part::WakerCost,
            &b.for_waits,
            format!(
                "the median of {} rounds of work and a job handed to a rayon pool whose worker sleeps less that to one whose worker polls",
                executor_waker::ROUNDS
            ),
            &|| waker::waker_cost(cores, n),
        ),
        b.take(
            Part::Handoff,
            &[],
            format!(
                "a run of two std threads joined by a crossbeam bounded({}) channel over {elements} elements, both polling it, its steady-state time per element",
                stream::CAPACITY
            ),
            &|| stream::handoff(n),
        ),
        b.take(
            Part::Take,
            &[],
            format!(
                "a run of a rayon pool of 1 worker taking {elements} elements from a channel with par_bridge, its time per element"
            ),
            &|| stream::take(cores, n),
        ),
    ]
}

/// `wake_cost_ns`: the CPU time of a rayon worker woken for nothing on a
/// busy core, read through another thread's CPU clock (Linux only).
fn wake_cost(b: &Bench, pause: std::time::Duration) -> Quantity {
    let sample = format!(
        "the CPU time of a rayon worker woken for nothing on a busy core (a join's second half taken back), every {} once it sleeps again",
        ms(pause)
    );
    #[cfg(target_os = "linux")]
    return b.take(Part::WakeCost, &b.for_cpu, sample, &|| {
        vain::cost(b.cores, b.n.div_ceil(8), pause)
    });
    #[cfg(not(target_os = "linux"))]
    b.unmeasured(
        Part::WakeCost,
        sample,
        "needs another thread's CPU clock (Linux's pthread_getcpuclockid)",
    )
}
