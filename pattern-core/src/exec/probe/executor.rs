//! The experiments of the executor and of plain threads: both wait on the
//! executor's channel (crossbeam's bounded channel). The executor's stages
//! spin before they block where a design's threads fit the cores, and it
//! pins its threads; plain threads block at once and are not pinned, so
//! their take is the executor's run with [`Executor::spin`] zero,
//! unpinned. Their hand-over is run with the stages spinning: a run of
//! stages that do nothing and block at once parks and wakes a thread at
//! every element (7.9 µs an element on this machine idle, 0.2 µs busy),
//! and the sleeping and the waking are quantities of their own, which the
//! simulator charges where a thread sleeps. The waits (wake-up latency,
//! spin, wake-up in vain, the waker's cost) already block at once on the
//! channel: the same experiments for both.
//!
//! [`Executor::spin`]: crate::exec::Executor::spin

use super::options::Part;
use super::quantity::{Bench, Quantity, ms};
use super::{handoff, spin, wake, waker};
use std::time::Duration;

/// How the executor's runs are set for the runtime probed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Stages {
    /// The executor's own: spinning before blocking, pinned where threads
    /// can be pinned.
    Executor,
    /// Plain threads: blocking at once, not pinned.
    Blocking,
}

/// The six quantities, in [`Part::ALL`]'s order.
pub(super) fn quantities(b: &Bench, stages: Stages) -> Vec<Quantity> {
    let (cores, n) = (b.cores, b.n);
    let latency = b.take(
        Part::WakeLatency,
        &b.for_waits,
        "a wake-up of a thread on a busy core, from the send until it runs".into(),
        &|| wake::latency(cores, n),
    );
    let pause = wake::slow_pause(latency.median_ns());
    let (_, elements) = handoff::runs(n);
    let (pinned, spin_for) = match stages {
        Stages::Executor => (b.can_pin, None),
        Stages::Blocking => (false, Some(Duration::ZERO)),
    };
    let run = |design| {
        let how = match stages {
            Stages::Executor => "",
            Stages::Blocking => ", its stages blocking at once and unpinned",
        };
        format!(
            "a run of `{design}` over {elements} elements{how}, its steady-state time per element"
        )
    };
    // Awake stages, whatever the runtime: see the module's docs.
    let handoff_run = run(handoff::HANDOFF).replace("blocking at once", "spinning");
    vec![
        latency,
        b.take(
            Part::Spin,
            &b.for_cpu,
            format!(
                "the CPU time of a thread blocked on the channel over a wait of {}",
                ms(spin::WAIT)
            ),
            &|| spin::spin(cores, n.div_ceil(4)),
        ),
        b.take(
            Part::WakeCost,
            &b.for_cpu,
            format!(
                "the CPU time of a thread woken for nothing on a busy core, every {}",
                ms(pause)
            ),
            &|| wake::cost(cores, n.div_ceil(8), pause),
        ),
        b.take(
            Part::WakerCost,
            &b.for_waits,
            format!(
                "the median of {} rounds of work and a hand-over to a sleeping thread less that to a polling one",
                waker::ROUNDS
            ),
            &|| waker::waker_cost(cores, n),
        ),
        b.take(Part::Handoff, &[], handoff_run, &|| {
            handoff::per_element(handoff::HANDOFF, n, pinned, None)
        }),
        b.take(Part::Take, &[], run(handoff::TAKE), &|| {
            handoff::per_element(handoff::TAKE, n, pinned, spin_for)
        }),
    ]
}
