//! Streams of elements through designs (`Simulation::new`): the simulated
//! time per element against the operators where their assumptions hold, one
//! element against the latency, the fill and drain of a finite stream,
//! threads beyond the cores, and every error.
mod common;

use pattern_core::machine::{Machine, MachineError};
use pattern_core::sim::{MAX_THREADS, SimError, Simulation};
use pattern_core::strategies::{atom, shuffle_free_term};
use pattern_core::{Count, Design, Term};
use proptest::prelude::*;

/// Designs of atoms under seq (of atoms), pipe and tpool (1 to 4 workers,
/// or the symbol `n`), at most `depth` patterns deep.
fn design(depth: u32) -> impl Strategy<Value = Term> {
    atom().prop_recursive(depth, 24, 3, |inner| {
        prop_oneof![
            prop::collection::vec(atom(), 2..4)
                .prop_map(|v| { v.into_iter().reduce(Term::seq).expect("two or more atoms") }),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Term::pipe(a, b)),
            (
                prop_oneof![(1u64..=4).prop_map(Count::Fixed), Just(Count::from("n"))],
                inner
            )
                .prop_map(|(n, t)| Term::tpool(n, t)),
        ]
    })
}

fn run(
    d: &Design,
    p: &Machine,
    at: &[(&str, f64)],
    elements: usize,
) -> pattern_core::sim::SimResult {
    Simulation::new(d, p)
        .at(at)
        .elements(elements)
        .run()
        .expect("a design the simulator runs")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(200)))]

    /// With a core for every thread, a long stream's time per element is
    /// the operators' model (1 %), and one element takes the latency.
    #[test]
    fn where_the_operators_assumptions_hold_the_simulation_agrees(t in design(3)) {
        let d = Design::from_term(t).unwrap();
        let at = [("x", 64.0), ("n", 3.0)];
        let cores = Machine::new(1, 1 << 16);
        let model = d.model().eval(&at).unwrap();
        let r = run(&d, &cores, &at, 3000);
        prop_assert!((r.time_per_element() / model - 1.0).abs() < 0.01,
            "{d}: simulated {} vs model {model}", r.time_per_element());
        let one = run(&d, &cores, &at, 1);
        let latency = d.latency().eval(&at).unwrap();
        prop_assert!((one.makespan() / latency - 1.0).abs() < 1e-9,
            "{d}: one element in {} vs latency {latency}", one.makespan());
    }

    /// Processor sharing wastes no core: a design whose threads outnumber
    /// the cores keeps all of them busy in steady state, so a stream of
    /// one-stage pools takes its work over the cores.
    #[test]
    fn threads_beyond_the_cores_share_them(n in 1u64..12, cores in 1usize..4, work in 1.0f64..1e4) {
        let d = Design::from_term(Term::tpool(n, Term::atom("a", pattern_core::Expr::num(work)))).unwrap();
        let r = run(&d, &Machine::new(1, cores), &[], 4000);
        let want = work / (n as f64).min(cores as f64);
        // A pool's exits come in bursts: the fitted slope is within 1e-4.
        prop_assert!((r.time_per_element() / want - 1.0).abs() < 1e-4, "{} vs {want}", r.time_per_element());
    }
}

/// `t` with every task pool's count 1.
fn counts_one(t: &Term) -> Term {
    match t {
        Term::Tpool(_, body) => Term::tpool(1u64, counts_one(body)),
        other => other.map_children(counts_one),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(300)))]

    /// With every count 1 and a core per thread, one element's simulated
    /// time through any design of atoms, seq, pipe and tpool (that the
    /// simulator runs) is the latency semantics' value (1e-9).
    #[test]
    fn one_element_takes_the_latency_with_every_count_one(t in shuffle_free_term(4)) {
        let d = Design::from_term(counts_one(&t)).unwrap();
        let at = [("x", 64.0)];
        let r = Simulation::new(&d, &Machine::new(1, 1 << 16)).at(&at).run();
        // (A task pool of a seq with parallel parts is not simulated.)
        prop_assume!(!matches!(r, Err(SimError::Unsupported { .. })));
        let r = r.unwrap();
        let latency = d.latency().eval(&at).unwrap();
        prop_assert!((r.makespan() / latency - 1.0).abs() < 1e-9,
            "{d}: one element in {} vs latency {latency}", r.makespan());
    }
}

#[test]
fn a_finite_stream_pays_the_fill_and_the_drain() {
    let d = Design::parse("a = 10; b = 30; c = 20; pipe(a, b, c)").unwrap();
    let cores = Machine::new(1, 3);
    for elements in [1, 2, 10, 1000] {
        let r = run(&d, &cores, &[], elements);
        // The first element crosses all stages (60 ns), then one leaves per
        // 30 ns, the slowest stage's time.
        assert_eq!(
            r.makespan(),
            60.0 + 30.0 * (elements - 1) as f64,
            "{elements}"
        );
    }
    // The operators' steady state is reached only in the limit: for 10
    // elements the makespan per element is 33 ns, not 30.
    let r = run(&d, &cores, &[], 10);
    assert_eq!(r.makespan() / 10.0, 33.0);
    // Every element's latency: 60 ns when nothing waits.
    let free = run(
        &Design::parse("a = 10; b = 10; pipe(a, b)").unwrap(),
        &cores,
        &[],
        100,
    );
    assert!((free.latency_percentile(50.0).unwrap() / 20.0 - 1.0).abs() < 0.01);
    // Behind a slow stage, elements queue in the buffer: the tail waits.
    let slow = run(
        &Design::parse("a = 10; b = 30; pipe(a, b)").unwrap(),
        &cores,
        &[],
        100,
    );
    assert!(slow.latency_percentile(99.0).unwrap() > slow.latency_percentile(1.0).unwrap());
}

#[test]
fn a_buffer_bounds_what_a_fast_stage_runs_ahead() {
    // With one place, the fast first stage waits for the slow second one;
    // the makespan is the same (the slow stage sets it), the latency not.
    let d = Design::parse("a = 1; b = 10; pipe(a, b)").unwrap();
    let cores = Machine::new(1, 2);
    let one = Simulation::new(&d, &cores)
        .elements(100)
        .buffer(1)
        .run()
        .unwrap();
    let many = Simulation::new(&d, &cores)
        .elements(100)
        .buffer(64)
        .run()
        .unwrap();
    assert_eq!(one.makespan(), many.makespan());
    assert!(one.latency_percentile(100.0).unwrap() < 0.5 * many.latency_percentile(100.0).unwrap());
}

/// When each step of stage `name` started, in ns, from a run's trace.
fn starts_of(r: &pattern_core::sim::SimResult, name: &str) -> Vec<f64> {
    let trace: serde_json::Value = serde_json::from_str(&r.trace_json()).unwrap();
    let mut starts: Vec<f64> = (trace["traceEvents"].as_array().unwrap().iter())
        .filter(|e| e["ph"] == "X" && e["name"] == name)
        .map(|e| e["ts"].as_f64().unwrap())
        .collect();
    starts.sort_by(f64::total_cmp);
    starts
}

#[test]
fn a_buffer_of_no_places_is_a_rendezvous() {
    // pipe(a, b), a = 10 and b = 30 ns, 2 cores, 5 elements. Rendezvous:
    // a hands element 1 over at 10 (b waits) and element 2 at 40 (when b
    // takes it), and starts element k (k >= 3) when b takes element k − 1,
    // at 40 + 30·(k − 3): a starts at 0, 10, 40, 70, 100. One place: a
    // puts element 2 in the buffer at 20 and blocks with element 3 until
    // b takes element 2 at 40; it starts 0, 10, 20, 40, 70. b ends an
    // element every 30 ns from 40 either way: makespan 10 + 30·5.
    let d = Design::parse("a = 10; b = 30; pipe(a, b)").unwrap();
    let cores = Machine::new(1, 2);
    let run = |places| {
        Simulation::new(&d, &cores)
            .elements(5)
            .buffer(places)
            .trace(true)
            .run()
            .unwrap()
    };
    let (rendezvous, one) = (run(0), run(1));
    // The trace's times are in µs.
    let us = |ns: &[f64]| ns.iter().map(|t| t / 1e3).collect::<Vec<f64>>();
    assert_eq!(
        starts_of(&rendezvous, "a"),
        us(&[0.0, 10.0, 40.0, 70.0, 100.0])
    );
    assert_eq!(starts_of(&one, "a"), us(&[0.0, 10.0, 20.0, 40.0, 70.0]));
    assert_eq!(rendezvous.makespan(), 160.0);
    assert_eq!(one.makespan(), 160.0);
    // Through a rendezvous an element takes 60 ns from the third on (it
    // waits 20 ns in a); one place adds b's 30 ns.
    let (r, o) = (
        rendezvous.latency_percentile(100.0).unwrap(),
        one.latency_percentile(100.0).unwrap(),
    );
    assert!((r / 60.0 - 1.0).abs() < 0.01, "{r}");
    assert!((o / 90.0 - 1.0).abs() < 0.01, "{o}");
    // A pool feeding a rendezvous: each worker waits for b in turn.
    let d = Design::parse("a = 10; b = 30; pipe(tpool[2](a), b)").unwrap();
    let r = Simulation::new(&d, &Machine::new(1, 3))
        .elements(4)
        .buffer(0)
        .run()
        .unwrap();
    // Elements 1 and 2 are done at 10; b takes 1 at 10 and 2 at 40, 3 (done
    // at 20 by the worker freed at 10) at 70, 4 at 100: ends at 130.
    assert_eq!(r.makespan(), 130.0);
}

#[test]
fn beyond_the_cores_the_operators_are_off_and_the_simulation_is_not() {
    let d = Design::parse("qsort = 1034.17*x*log2(x); tpool[n](qsort)").unwrap();
    let two = Machine::new(1, 2);
    for n in [1.0, 2.0, 4.0, 8.0] {
        let at = [("x", 16384.0), ("n", n)];
        let r = run(&d, &two, &at, 2000);
        let qsort = 1034.17 * 16384.0 * 14.0;
        let want = qsort / n.min(2.0);
        assert!(
            (r.time_per_element() / want - 1.0).abs() < 1e-4,
            "{} vs {want}",
            r.time_per_element()
        );
        // The operators divide by n whatever the cores.
        assert!((d.model().eval(&at).unwrap() - qsort / n).abs() < 1e-6 * qsort);
    }
    // Dynamic efficiency: both cores busy in steady state.
    let r = run(&d, &two, &[("x", 16384.0), ("n", 4.0)], 100);
    let eff = r.dynamic_efficiency(r.makespan() / 4.0);
    assert!(eff.iter().all(|&(_, e)| (e - 1.0).abs() < 1e-6), "{eff:?}");
    assert!((r.core_utilization()[0] - 1.0).abs() < 1e-9);
}

#[test]
fn bad_input_is_an_error() {
    let p = Machine::new(1, 2);
    let mr = Design::parse("m = x; s = 0; r = x; mapreduce[m = 4, n = 2, d = x, k = 4](m, s, r)")
        .unwrap();
    let err = Simulation::new(&mr, &p)
        .at(&[("x", 8.0)])
        .run()
        .unwrap_err();
    assert_eq!(
        err,
        SimError::NotEnoughNodes {
            needed: 4,
            nodes: 1
        }
    );
    let on = Design::parse("a = x; on[2](pipe(a, a))").unwrap();
    assert_eq!(
        Simulation::new(&on, &p)
            .at(&[("x", 1.0)])
            .run()
            .unwrap_err(),
        SimError::Unsupported {
            pattern: "on[p] of a pipe or task pool"
        }
    );

    let d = Design::parse("a = x*y; tpool[n](a)").unwrap();
    let err = Simulation::new(&d, &p)
        .at(&[("x", 1.0), ("n", 2.0)])
        .run()
        .unwrap_err();
    assert!(
        matches!(&err, SimError::Model { atom, .. } if atom == "a"),
        "{err}"
    );
    assert!(err.to_string().contains('y'), "{err}");
    let err = Simulation::new(&d, &p)
        .at(&[("x", 1.0), ("y", 1.0)])
        .run()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the count `n` is unbound: a whole number from 1 to 2^20, bound with .at(..)"
    );
    let err = Simulation::new(&d, &p)
        .at(&[("x", 1.0), ("y", 1.0), ("n", 2.5)])
        .run()
        .unwrap_err();
    assert!(matches!(
        err,
        SimError::Count {
            value: Some(2.5),
            ..
        }
    ));
    let negative = Design::parse("a = x - 5; a").unwrap();
    let err = Simulation::new(&negative, &p)
        .at(&[("x", 1.0)])
        .run()
        .unwrap_err();
    assert!(err.to_string().contains("-4 ns"), "{err}");

    let ok = Design::parse("a = 1; a").unwrap();
    assert!(matches!(
        Simulation::new(&ok, &p).elements(0).run(),
        Err(SimError::InvalidOption { .. })
    ));
    assert!(matches!(
        Simulation::new(&ok, &Machine::new(1, 0)).run(),
        Err(SimError::Machine(MachineError::NoCores { .. }))
    ));
    let huge = Design::parse("a = 1; tpool[2048](tpool[1024](a))").unwrap();
    assert_eq!(
        Simulation::new(&huge, &p).run().unwrap_err(),
        SimError::TooManyThreads {
            threads: 2048 * 1024,
            limit: MAX_THREADS
        }
    );
    let huge = Design::parse("a = 1; tpool[2048](pipe(a, tpool[1024](a)))").unwrap();
    assert!(matches!(
        Simulation::new(&huge, &p).run(),
        Err(SimError::TooManyThreads { .. })
    ));
}

#[test]
fn a_pipeline_of_100k_stages_runs_on_a_small_stack() {
    let result = common::on_small_stack(|| {
        let stages = vec!["a"; 100_000].join(", ");
        let d = Design::parse(&format!("a = 2; pipe({stages})")).unwrap();
        let r = Simulation::new(&d, &Machine::new(1, 4))
            .elements(8)
            .run()
            .unwrap();
        r.makespan()
    });
    // 100,000 threads on 4 cores: work conserving, 8 elements × 200,000 ns
    // of work over 4 cores once the pipeline is full, and never less.
    let makespan = result;
    assert!(makespan >= 8.0 * 200_000.0 / 4.0, "{makespan}");
    assert!(makespan <= 8.0 * 200_000.0, "{makespan}");
}

/// Two exponential stages in tandem, saturated, with B places between
/// them and blocking after service: throughput μ(B + 2)/(B + 3) (the
/// classic result for a two-station line), so the time per element is
/// a·(B + 3)/(B + 2).
#[test]
fn random_durations_reproduce_the_tandem_queue_with_blocking() {
    let d = Design::parse("a = 100; pipe(a, a)").unwrap();
    let two = Machine::new(1, 2);
    for places in [1usize, 2, 4] {
        let r = Simulation::new(&d, &two)
            .elements(200_000)
            .buffer(places)
            .variation(1.0, 42)
            .run()
            .unwrap();
        let b = places as f64;
        let want = 100.0 * (b + 3.0) / (b + 2.0);
        assert!(
            (r.time_per_element() / want - 1.0).abs() < 0.02,
            "B = {places}: {} vs {want}",
            r.time_per_element()
        );
    }
}

#[test]
fn variation_keeps_the_mean_and_the_seed_decides() {
    let d = Design::parse("a = 100; a").unwrap();
    let one = Machine::new(1, 1);
    let run = |cv: f64, seed: u64| {
        Simulation::new(&d, &one)
            .elements(50_000)
            .variation(cv, seed)
            .run()
            .unwrap()
    };
    // One stage on one core: the makespan is the sum of the durations.
    let r = run(0.5, 1);
    assert!((r.makespan() / 5e6 - 1.0).abs() < 0.01, "{}", r.makespan());
    assert_eq!(run(0.5, 1).makespan(), r.makespan());
    assert_ne!(run(0.5, 2).makespan(), r.makespan());
    assert_eq!(run(0.0, 9).makespan(), 5e6);
    for bad in [-0.1, f64::NAN, f64::INFINITY] {
        let err = Simulation::new(&d, &one)
            .variation(bad, 0)
            .run()
            .unwrap_err();
        assert!(matches!(err, SimError::InvalidVariation { .. }), "{err}");
    }
    // Flow graphs too.
    let mut g = pattern_core::sim::TaskGraph::new();
    let t = g.compute(0, 100.0, &[]);
    let varied = Simulation::graph(&g, &one).variation(1.0, 3).run().unwrap();
    assert_ne!(varied.finish(t), 100.0);
    assert_eq!(
        Simulation::graph(&g, &one)
            .variation(1.0, 3)
            .run()
            .unwrap()
            .finish(t),
        varied.finish(t)
    );
}

#[test]
fn taking_from_a_shared_queue_and_handing_over_cost_cpu() {
    let costs = |take: f64, handoff: f64| {
        Machine::new(1, 2).with_waiting(|w| w.take_ns(take).handoff_ns(handoff))
    };
    let pool = Design::parse("a = 100; tpool[2](a)").unwrap();
    let r = Simulation::new(&pool, &costs(10.0, 0.0))
        .elements(4000)
        .run()
        .unwrap();
    assert!(
        (r.time_per_element() - 55.0).abs() < 1e-3,
        "{}",
        r.time_per_element()
    );
    // One worker takes alone: no take cost.
    let alone = Design::parse("a = 100; tpool[1](a)").unwrap();
    let r = Simulation::new(&alone, &costs(10.0, 0.0))
        .elements(100)
        .run()
        .unwrap();
    assert!((r.time_per_element() - 100.0).abs() < 1e-9);
    // The first stage hands over, the last stage's output leaves the design.
    let pipe = Design::parse("a = 100; pipe(a, a)").unwrap();
    let r = Simulation::new(&pipe, &costs(0.0, 20.0))
        .elements(1000)
        .run()
        .unwrap();
    assert!(
        (r.time_per_element() - 120.0).abs() < 1e-6,
        "{}",
        r.time_per_element()
    );
    for (take, handoff) in [(-1.0, 0.0), (0.0, f64::NAN), (f64::INFINITY, 0.0)] {
        let err = Simulation::new(&pipe, &costs(take, handoff))
            .run()
            .unwrap_err();
        assert!(
            matches!(err, SimError::Machine(MachineError::Invalid { .. })),
            "{err}"
        );
    }
}

/// Durations that cannot add up, and fixed counts beyond the simulator's
/// threads, are errors (found by the fuzz driver: an index overflow in the
/// latency histogram, a planner copying 2^32 task groups).
#[test]
fn durations_too_large_to_add_up_and_huge_counts_are_errors() {
    let d = Design::parse("a = 1e308; a").unwrap();
    let one = run(&d, &Machine::new(1, 1), &[], 1);
    assert_eq!(one.makespan(), 1e308);
    assert_eq!(one.latency_percentile(50.0).map(|l| l > 1e307), Some(true));
    let two = Simulation::new(&d, &Machine::new(1, 1)).elements(2).run();
    assert!(
        matches!(two, Err(SimError::ClockOverflow { left: 1 })),
        "{two:?}"
    );
    let mut g = pattern_core::sim::TaskGraph::new();
    let a = g.compute(0, 1.5e308, &[]);
    g.compute(0, 1.5e308, &[a]);
    let graph = Simulation::graph(&g, &Machine::new(1, 1)).run();
    assert!(
        matches!(graph, Err(SimError::ClockOverflow { left: 1 })),
        "{graph:?}"
    );
    let wide = Design::parse("a = 1; groups[4294967296](a)").unwrap();
    let err = Simulation::new(&wide, &Machine::new(1, 1))
        .at(&[("p", 4.0)])
        .run()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the count `4294967296` is 4294967296: a whole number from 1 to 2^20"
    );
}
