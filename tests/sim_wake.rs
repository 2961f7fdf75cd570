//! The wake-up latency on a busy core (`Waiting::wake_latency_ns`), the spin
//! before a waiting thread sleeps, the cost of a wake-up in vain and the
//! waker's cost (`Waiting::waker_cost_ns`): a thread woken while every core
//! it may run on is busy runs that much later, a thread that frees itself
//! meanwhile takes the element first, and a thread that wakes one asleep
//! on a free core pays for it.
mod common;

use pattern_core::machine::{Machine, MachineError};
use pattern_core::sim::{SimError, Simulation};
use pattern_core::{Design, Expr, Term};
use proptest::prelude::*;

fn run(design: &str, machine: &Machine, elements: usize) -> (f64, f64) {
    let d = Design::parse(design).unwrap();
    let r = Simulation::new(&d, machine)
        .elements(elements)
        .run()
        .unwrap();
    (r.time_per_element(), r.makespan())
}

/// A stage feeding a pool of two equal workers on two pinned cores: thread
/// 0 (the stage) and thread 2 (a worker) share core 0. First come first
/// served, worker 2 takes every other element and core 0 does 1.5 elements'
/// work per element; woken late, it never gets one before worker 1 is free.
#[test]
fn the_worker_on_the_free_core_takes_the_elements() {
    let pinned = Machine::new(1, 2).with_waiting(|w| w.pinned(true));
    let design = "a = 10; pipe(a, tpool[2](a))";
    let (at_once, _) = run(design, &pinned, 3000);
    assert!((at_once - 15.0).abs() < 0.15, "{at_once}");
    for wake in [0.5, 5.0, 9.0, 100.0] {
        let (late, makespan) = run(
            design,
            &pinned.clone().with_waiting(|w| w.wake_latency_ns(wake)),
            3000,
        );
        assert!((late - 10.0).abs() < 0.1, "{wake}: {late}");
        // Every element is at the stage's pace: 3000 of them, plus the
        // last one's pass through the pool.
        assert!((makespan - 30_010.0).abs() < 1e-6, "{wake}: {makespan}");
    }
}

/// A thread that hands over its last element stops, so the one it wakes on
/// its core runs at once: one element through two stages on one core takes
/// their sum.
#[test]
fn a_thread_that_stops_leaves_its_core_to_the_woken_one() {
    let one_core = Machine::new(1, 1)
        .with_waiting(|w| w.pinned(true))
        .with_waiting(|w| w.wake_latency_ns(5.0));
    assert_eq!(run("a = 10; pipe(a, a)", &one_core, 1).1, 20.0);
    // With a second element, the first stage goes on, and the second
    // stage starts 5 ns late: from 15 it shares the core (rate 1/2) with
    // the first stage's second element, which has 5 ns left, so both have
    // done their 5 at 25; the second stage ends its first element alone at
    // 30 and the second at 40.
    let (_, two) = run("a = 10; pipe(a, a)", &one_core, 2);
    assert_eq!(two, 40.0);
}

/// A thread woken late runs as soon as its core is free, if that comes
/// before the latency is over: on one core, stage 2 is notified at 10
/// while stage 1 goes on with the second element; at 20 stage 1 is done,
/// so stage 2 runs then (not at 110) and ends the two elements at 40.
#[test]
fn a_woken_thread_runs_when_its_core_frees_itself() {
    let one_core = Machine::new(1, 1)
        .with_waiting(|w| w.pinned(true))
        .with_waiting(|w| w.wake_latency_ns(100.0));
    assert_eq!(run("a = 10; pipe(a, a)", &one_core, 2).1, 40.0);
    // A first stage that blocks on a full buffer of one place frees the
    // core as well: at 20 it blocks with the second element (the place
    // holds the first), so stage 2 runs from 20; the core never idles and
    // the three elements' six steps end at 60.
    let d = Design::parse("a = 10; pipe(a, a)").unwrap();
    let r = Simulation::new(&d, &one_core)
        .elements(3)
        .buffer(1)
        .run()
        .unwrap();
    assert_eq!(r.makespan(), 60.0);
}

/// A pipeline of three equal stages on two pinned cores: stage 3 shares
/// core 0 with stage 1 and is woken late, but the core never idles, so the
/// pace is still two stages' work per element.
#[test]
fn a_late_wake_keeps_a_busy_core_busy() {
    let pinned = Machine::new(1, 2).with_waiting(|w| w.pinned(true));
    for wake in [0.0, 3.0, 30.0] {
        let (t, _) = run(
            "a = 10; pipe(a, a, a)",
            &pinned.clone().with_waiting(|w| w.wake_latency_ns(wake)),
            3000,
        );
        assert!((t - 20.0).abs() < 0.2, "{wake}: {t}");
    }
}

/// A stage of 10 ns feeding two workers of 10.5 ns, worker B on the
/// stage's core, three elements. Worker A takes element 1 at 10. Element 2
/// comes at 20 while A is busy and B would wait for the stage's core: B is
/// notified, A frees itself at 20.5 and takes it, and B, up at 25, finds
/// nothing. Its cost `c` shares core 0 with the stage's third element (5
/// ns left): both at half rate for `2c`, then the stage's `5 - c` alone, so
/// element 3 comes at `30 + c`; the stage is done, B's core is free, B
/// takes it and ends at `40.5 + c`.
#[test]
fn a_wake_up_that_finds_nothing_costs_its_core() {
    let pinned = Machine::new(1, 2)
        .with_waiting(|w| w.pinned(true))
        .with_waiting(|w| w.wake_latency_ns(5.0));
    for c in [0.0, 0.25, 0.5, 0.9] {
        let (_, makespan) = run(
            "a = 10; b = 10.5; pipe(a, tpool[2](b))",
            &pinned.clone().with_waiting(|w| w.wake_cost_ns(c)),
            3,
        );
        assert!((makespan - (40.5 + c)).abs() < 1e-9, "{c}: {makespan}");
    }
}

/// A stage of 10 ns feeding two workers of 8 ns, B on the stage's core. A
/// spin of 12 ns or more covers A's waits (10 ns for the first element, 2
/// later): it takes them all. A shorter one lets A fall asleep behind B,
/// the first to have waited, so B is notified at `T`, runs from `T + 5`
/// beside the stage (both at half rate) until the stage's element is done
/// at `T + 15`; A, asleep and now first, takes that one at once; B's last
/// 3 ns and the stage's next element share the core until `T + 21`, and
/// the stage ends it alone at `T + 28`, when A (done at `T + 23`, its spin
/// over) sleeps behind B again: 28 ns per two elements.
#[test]
fn a_free_worker_asleep_behind_a_busy_one_leaves_it_the_element() {
    let pinned = Machine::new(1, 2)
        .with_waiting(|w| w.pinned(true))
        .with_waiting(|w| w.wake_latency_ns(5.0));
    let design = "a = 10; b = 8; pipe(a, tpool[2](b))";
    for spin in [0.0, 1.0, 2.5] {
        let (t, _) = run(
            design,
            &pinned.clone().with_waiting(|w| w.spin_ns(spin)),
            3000,
        );
        assert!((t - 14.0).abs() < 1e-3, "{spin}: {t}");
    }
    for spin in [12.0, 100.0, f64::INFINITY] {
        let (t, _) = run(
            design,
            &pinned.clone().with_waiting(|w| w.spin_ns(spin)),
            3000,
        );
        assert!((t - 10.0).abs() < 1e-6, "{spin}: {t}");
    }
}

/// A stage of 200 ns feeding one of 10 ns on two pinned cores, three
/// elements. With a spin of 50 ns the second stage is asleep at every
/// hand-over (it waits 200, then 190 + c): the first pays `c` for each of
/// the three, and the last element leaves at `3 · 200 + 2c + 10` (the
/// third wake-up's cost delays nothing after it). With a spin of 300 ns it
/// polls through every wait, and nothing is paid.
#[test]
fn waking_a_sleeping_stage_costs_the_stage_before() {
    let pinned = Machine::new(1, 2).with_waiting(|w| w.pinned(true));
    let design = "a = 200; b = 10; pipe(a, b)";
    for c in [0.0, 5.0, 12.0] {
        let p = pinned.clone().with_waiting(|w| w.waker_cost_ns(c));
        let (_, makespan) = run(design, &p.clone().with_waiting(|w| w.spin_ns(50.0)), 3);
        assert!(
            (makespan - (610.0 + 2.0 * c)).abs() < 1e-9,
            "{c}: {makespan}"
        );
        let (t, _) = run(design, &p.clone().with_waiting(|w| w.spin_ns(50.0)), 3000);
        assert!((t - (200.0 + c)).abs() < 1e-6, "{c}: {t}");
        let (_, makespan) = run(design, &p.with_waiting(|w| w.spin_ns(300.0)), 3);
        assert!((makespan - 610.0).abs() < 1e-9, "{c}: {makespan}");
    }
}

#[test]
fn a_waker_cost_out_of_range_is_an_error() {
    let d = Design::parse("a = 10; pipe(a, a)").unwrap();
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let p = Machine::new(1, 2).with_waiting(|w| w.waker_cost_ns(bad));
        let err = Simulation::new(&d, &p).elements(10).run().unwrap_err();
        assert!(
            matches!(
                err,
                SimError::Machine(MachineError::Invalid { ref key, .. }) if key == "waiting.executor.waker_cost_ns"
            ),
            "{bad}: {err}"
        );
    }
}

#[test]
fn a_spin_or_a_wake_cost_out_of_range_is_an_error() {
    let d = Design::parse("a = 10; pipe(a, a)").unwrap();
    let wrong = |p: Machine| Simulation::new(&d, &p).elements(10).run().unwrap_err();
    for bad in [-1.0, f64::NAN] {
        let err = wrong(Machine::new(1, 2).with_waiting(|w| w.spin_ns(bad)));
        assert!(
            matches!(
                err,
                SimError::Machine(MachineError::Invalid { ref key, .. }) if key == "waiting.executor.spin_ns"
            ),
            "{bad}: {err}"
        );
    }
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let err = wrong(Machine::new(1, 2).with_waiting(|w| w.wake_cost_ns(bad)));
        assert!(
            matches!(
                err,
                SimError::Machine(MachineError::Invalid { ref key, .. }) if key == "waiting.executor.wake_cost_ns"
            ),
            "{bad}: {err}"
        );
    }
}

#[test]
fn a_wake_latency_out_of_range_is_an_error() {
    let d = Design::parse("a = 10; pipe(a, a)").unwrap();
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let p = Machine::new(1, 2).with_waiting(|w| w.wake_latency_ns(bad));
        let err = Simulation::new(&d, &p).elements(10).run().unwrap_err();
        assert!(
            matches!(
                err,
                SimError::Machine(MachineError::Invalid { ref key, .. }) if key == "waiting.executor.wake_latency_ns"
            ),
            "{bad}: {err}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// With a core for every thread, no thread ever waits for its core: a
    /// pipeline of pools runs to the same makespan (to rounding) whatever
    /// the wake-up latency, the spin and the cost of a wake-up (the
    /// threads a new element may go to are alike).
    #[test]
    fn with_a_core_per_thread_the_wake_latency_changes_nothing(
        stages in prop::collection::vec((1u64..4, 1.0f64..100.0), 1..5),
        wake in 0.0f64..1e3,
        spin in prop_oneof![Just(f64::INFINITY), 0.0f64..200.0],
        cost in 0.0f64..50.0,
        pinned in any::<bool>(),
    ) {
        let term = stages
            .iter()
            .enumerate()
            .map(|(i, &(n, ns))| Term::tpool(n, Term::atom(&format!("a{i}"), Expr::num(ns))))
            .reduce(Term::pipe)
            .unwrap();
        let d = Design::from_term(term).unwrap();
        let threads: u64 = stages.iter().map(|(n, _)| n).sum();
        let p = Machine::new(1, threads as usize).with_waiting(|w| w.pinned(pinned));
        let at = |p: &Machine| Simulation::new(&d, p).elements(500).run().unwrap();
        let late = p.clone().with_waiting(|w| w.wake_latency_ns(wake)).with_waiting(|w| w.spin_ns(spin)).with_waiting(|w| w.wake_cost_ns(cost));
        let (now, late) = (at(&p), at(&late));
        // (alike threads may take the elements in another order, which
        // rounds the shared cores' progress differently in the last bit)
        let (a, b) = (now.makespan(), late.makespan());
        prop_assert!((a - b).abs() <= 1e-12 * a, "{} against {}", a, b);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// A pipeline of single-thread stages with a core each: the waker's
    /// cost never makes it faster, and adds at most its cost per
    /// hand-over between stages.
    #[test]
    fn the_wakers_cost_is_at_most_its_cost_per_hand_over(
        stages in prop::collection::vec(1.0f64..100.0, 2..5),
        spin in 0.0f64..100.0,
        cost in 0.0f64..20.0,
    ) {
        let term = stages
            .iter()
            .enumerate()
            .map(|(i, &ns)| Term::atom(&format!("a{i}"), Expr::num(ns)))
            .reduce(Term::pipe)
            .unwrap();
        let d = Design::from_term(term).unwrap();
        let p = Machine::new(1, stages.len()).with_waiting(|w| w.pinned(true)).with_waiting(|w| w.spin_ns(spin));
        let elements = 200;
        let at = |p: &Machine| Simulation::new(&d, p).elements(elements).run().unwrap().makespan();
        let (free, paid) = (at(&p), at(&p.clone().with_waiting(|w| w.waker_cost_ns(cost))));
        let most = cost * (elements * (stages.len() - 1)) as f64;
        prop_assert!(paid >= free - 1e-9 * free, "{} < {}", paid, free);
        prop_assert!(paid <= free + most + 1e-9 * free, "{} > {} + {}", paid, free, most);
    }
}

/// The stream ends when its last element leaves: a wake-up still due or a
/// change of the allocation after that does not lengthen the makespan.
#[test]
fn the_makespan_ends_with_the_last_element() {
    use pattern_core::sim::{Change, When};
    let d = Design::parse("a = 10; pipe(a, a)").unwrap();
    let r = Simulation::new(&d, &Machine::new(1, 2))
        .elements(3)
        .change(When::At(1e9), Change::Cores { node: 0, cores: 1 })
        .run()
        .unwrap();
    assert_eq!(r.makespan(), 40.0);
    assert!((r.core_utilization()[0] - 60.0 / 80.0).abs() < 1e-12);
}
