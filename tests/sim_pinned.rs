//! Threads pinned to cores (`Waiting::pinned`), as the executor pins them:
//! thread `i` in the order of the design's text on core `i mod cores`, each
//! core shared by its own threads alone; and direct execution on the cores
//! where the pinned threads run (`Direct::on_cores`).
mod common;

use pattern_core::exec::{Cores, Kernels};
use pattern_core::machine::Machine;
use pattern_core::sim::{Change, Direct, SimError, Simulation, When};
use pattern_core::{Design, Expr, Term};
use proptest::prelude::*;
use std::sync::{Arc, Mutex};

fn pipe_of(stages: usize, ns: f64) -> Design {
    let a = || Term::atom("a", Expr::num(ns));
    let t = (1..stages).fold(a(), |t, _| Term::pipe(t, a()));
    Design::from_term(t).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// A pipeline of `k` equal stages on `c` pinned cores runs at the pace
    /// of the core holding the most stages, `ceil(k/c)` of them; unpinned,
    /// the stages share all cores: `max(1, k/c)` stages' work per element.
    #[test]
    fn a_pinned_pipeline_runs_at_the_pace_of_its_fullest_core(k in 1usize..9, c in 1usize..5) {
        let d = pipe_of(k, 10.0);
        let pinned = Simulation::new(&d, &Machine::new(1, c).with_waiting(|w| w.pinned(true)))
            .elements(3000).run().unwrap().time_per_element();
        let shared = Simulation::new(&d, &Machine::new(1, c))
            .elements(3000).run().unwrap().time_per_element();
        let fullest = k.div_ceil(c) as f64 * 10.0;
        let spread = (k as f64 / c as f64).max(1.0) * 10.0;
        prop_assert!((pinned / fullest - 1.0).abs() < 0.01, "pinned {pinned} vs {fullest}");
        prop_assert!((shared / spread - 1.0).abs() < 0.01, "shared {shared} vs {spread}");
    }

    /// A task pool's workers take from one queue, so a worker alone on its
    /// core takes more elements: pinned or not, `n` workers on `c` cores do
    /// `min(n, c)` elements' work at once.
    #[test]
    fn a_pinned_pool_keeps_every_core_with_a_worker_busy(n in 1u64..12, c in 1usize..4, work in 1.0f64..1e4) {
        let d = Design::from_term(Term::tpool(n, Term::atom("a", Expr::num(work)))).unwrap();
        let r = Simulation::new(&d, &Machine::new(1, c).with_waiting(|w| w.pinned(true))).elements(4000).run().unwrap();
        let want = work / (n as f64).min(c as f64);
        prop_assert!((r.time_per_element() / want - 1.0).abs() < 1e-3, "{} vs {want}", r.time_per_element());
    }
}

/// With a core for every thread, pinning changes nothing, to the ns.
#[test]
fn with_a_core_per_thread_pinning_changes_nothing() {
    let d =
        Design::parse("a = 10; b = 25; c = 7; pipe(a, tpool[3](seq(b, c)), pipe(a, b))").unwrap();
    let run = |p: &Machine| Simulation::new(&d, p).elements(500).run().unwrap();
    let (pinned, shared) = (
        run(&Machine::new(1, 8).with_waiting(|w| w.pinned(true))),
        run(&Machine::new(1, 8)),
    );
    assert_eq!(pinned.makespan(), shared.makespan());
    assert_eq!(pinned.makespan(), 10.0 + 32.0 + 10.0 + 25.0 + 499.0 * 25.0);
}

/// A core taken away holds the threads pinned to it: unpinned, the two
/// stages share the core left (20 ns per element); pinned, the second
/// stage never runs again, and the run reports it instead of hanging.
#[test]
fn a_core_taken_away_holds_its_pinned_threads() {
    let d = pipe_of(2, 10.0);
    let one_core = (When::At(0.0), Change::Cores { node: 0, cores: 1 });
    let shared = Simulation::new(&d, &Machine::new(1, 2))
        .elements(1000)
        .change(one_core.0, one_core.1)
        .run()
        .unwrap();
    assert!((shared.time_per_element() - 20.0).abs() < 0.2);
    let pinned = Machine::new(1, 2).with_waiting(|w| w.pinned(true));
    let held = Simulation::new(&d, &pinned)
        .elements(1000)
        .change(one_core.0, one_core.1)
        .run();
    assert!(matches!(held, Err(SimError::Stalled { .. })), "{held:?}");
    // Given back at 1000 ns, the second core takes up its stage again: the
    // second stage held element 0, the first stage filled the buffer (4
    // places) and waits with element 5; from 1000 on the second stage ends
    // one element per 10 ns, the last (element 9) at 1000 + 10·10.
    let back = Simulation::new(&d, &pinned)
        .elements(10)
        .change(one_core.0, one_core.1)
        .change(When::At(1000.0), Change::Cores { node: 0, cores: 2 })
        .run()
        .unwrap();
    assert_eq!(back.makespan(), 1100.0);
}

/// Direct execution on the cores: each kernel runs on the core where the
/// pinned executor runs its thread (thread `i` on core `i mod cores`).
#[test]
fn direct_execution_runs_each_kernel_on_its_threads_core() {
    let cores = Cores::of_current_thread();
    let ids = cores.ids();
    if ids.is_empty() {
        eprintln!("skipped: this system does not tell the cores");
        return;
    }
    let d = Design::parse("where = 1; pipe(where, where, where)").unwrap();
    // Each kernel call reports its stage (the element counts the stages it
    // went through) and the cores its thread may run on.
    let placed = Arc::new(Mutex::new(Vec::new()));
    let report = Arc::clone(&placed);
    let kernels = Kernels::<usize>::new().add("where", move |stage: &mut usize| {
        report
            .lock()
            .unwrap()
            .push((*stage, Cores::of_current_thread().ids()));
        *stage += 1;
    });
    Simulation::new(
        &d,
        &Machine::new(1, cores.len()).with_waiting(|w| w.pinned(true)),
    )
    .elements(5)
    .direct(&kernels, |_| 0, Direct::new().on_cores(true))
    .run()
    .unwrap();
    let placed = placed.lock().unwrap();
    assert_eq!(placed.len(), 15);
    for (stage, on) in placed.iter() {
        assert_eq!(on, &vec![ids[stage % ids.len()]], "stage {stage}");
    }
}

/// With `Direct::together`, the kernels of steps that start at the same
/// simulated time run at the same time. In a pipeline of two stages the
/// first call runs alone and the next two (element 1 entering the first
/// stage as element 0 enters the second) start together: each of those two
/// waits until both have started (up to a minute, a guard against a hang),
/// so the second to arrive finds the first running, however loaded the
/// machine. One at a time, no call ever finds another running.
#[test]
fn kernels_that_start_together_run_together() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let d = Design::parse("meet = 1; pipe(meet, meet)").unwrap();
    let cores = Cores::of_current_thread();
    let run = |together: bool| {
        let running = Arc::new(AtomicUsize::new(0));
        let started = Arc::new(AtomicUsize::new(0));
        let met = Arc::new(AtomicUsize::new(0));
        let (r, s, m) = (Arc::clone(&running), Arc::clone(&started), Arc::clone(&met));
        let kernels = Kernels::<u8>::new().add("meet", move |_| {
            // Running first, then started: a call that waits for the
            // second start is still running when the other one joins.
            if r.fetch_add(1, SeqCst) > 0 {
                m.fetch_add(1, SeqCst);
            }
            let call = s.fetch_add(1, SeqCst);
            if together && (call == 1 || call == 2) {
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
                while s.load(SeqCst) < 3 && std::time::Instant::now() < deadline {
                    std::thread::yield_now();
                }
            }
            // Long enough that calls run at once by mistake would overlap.
            std::thread::sleep(std::time::Duration::from_millis(2));
            r.fetch_sub(1, SeqCst);
        });
        Simulation::new(
            &d,
            &Machine::new(1, cores.len()).with_waiting(|w| w.pinned(true)),
        )
        .elements(3)
        .direct(
            &kernels,
            |_| 0,
            Direct::new().on_cores(true).together(together),
        )
        .run()
        .unwrap();
        assert_eq!(started.load(SeqCst), 6);
        met.load(SeqCst)
    };
    assert_eq!(run(false), 0);
    // The second and third calls meet; whether the fourth and fifth do
    // depends on the two measured durations being equal.
    let met = run(true);
    assert!((1..=2).contains(&met), "{met}");
}

/// A mapReduce's workers on one node run on the cores after its thread's,
/// as the executor pins its helper threads: n = 2 and n = 4 on two pinned
/// cores halve the map and reduce phases (eq. 5 on two cores), and the
/// stage after it in a pipeline is pinned after all its workers.
#[test]
fn a_pinned_map_reduce_spreads_its_workers_over_the_cores() {
    let defs = "map = 1000; shuffle = 0; reduce = 10;";
    let run = |text: &str| {
        let d = Design::parse(text).unwrap();
        Simulation::new(&d, &Machine::new(1, 2).with_waiting(|w| w.pinned(true)))
            .at(&[("x", 8.0)])
            .elements(400)
            .run()
            .unwrap()
            .time_per_element()
    };
    let mr =
        |n: u64| format!("{defs} mapreduce[m = 1, n = {n}, d = x, k = 4](map, shuffle, reduce)");
    // x·map + k·reduce = 8·1000 + 4·10 = 8040 ns of work per job (the
    // reduce's model is per key, for its d values).
    let one = run(&mr(1));
    assert!((one - 8040.0).abs() < 1e-6 * 8040.0, "{one}");
    for n in [2, 4] {
        let t = run(&mr(n));
        assert!((t - 4020.0).abs() < 1e-6 * 4020.0, "n = {n}: {t}");
    }
    // pipe(s, mapreduce n = 2, t): s is thread 0 (core 0), the workers
    // threads 1 and 2 (cores 1, 0), t thread 3 (core 1): core 0 does
    // 3000 + 4020 per element, core 1 4020 + 1000. Numbered without the
    // workers, t would be thread 2, on core 0 with s: 8020.
    let piped = run(&format!(
        "{defs} s = 3000; t = 1000; \
         pipe(s, mapreduce[m = 1, n = 2, d = x, k = 4](map, shuffle, reduce), t)"
    ));
    assert!((piped - 7020.0).abs() < 0.01 * 7020.0, "{piped}");
}
