//! A design fed at a rate (`Queueing::at_rate`, `pattern mva --rate`): its
//! stations as an open network, the latency at the rate, the highest rate
//! and what limits it.

use pattern_core::Design;
use pattern_core::machine::{Machine, Memory};
use pattern_core::semantics::{Queueing, QueueingError, RatePrediction};
use proptest::prelude::*;

fn fed(text: &str, machine: &Machine, rate: f64) -> Result<RatePrediction, QueueingError> {
    let d = Design::parse(text).unwrap();
    Queueing::new(machine)
        .at(&[("x", 1.0)])
        .at_rate(d.term(), rate)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

#[test]
fn one_atom_is_one_queue() {
    // 100 ns per element, one every 200 ns: M/D/1 at 1/2, Pollaczek and
    // Khinchine's 100 + 0.5·100/(2·0.5) = 150 ns.
    let p = fed("a = 100; a", &Machine::new(1, 1), 1.0 / 200.0).unwrap();
    assert!(close(p.latency, 150.0), "{}", p.latency);
    assert_eq!((p.max_rate, p.limit.as_str()), (0.01, "0: a"));
    assert_eq!(p.stations.len(), 1);
    assert!(close(p.stations[0].utilization, 0.5));
}

#[test]
fn a_pool_serves_as_many_at_once_as_its_cores() {
    // Two workers on two cores at 1/2 each: half the M/M/2 wait (100/3).
    let two = Machine::new(1, 2);
    let p = fed("a = 100; tpool[2](a)", &two, 1.0 / 100.0).unwrap();
    assert!(close(p.latency, 100.0 + 50.0 / 3.0), "{}", p.latency);
    assert!(close(p.max_rate, 0.02));
    // Eight workers on the same two cores serve no more at once.
    let eight = fed("a = 100; tpool[8](a)", &two, 1.0 / 100.0).unwrap();
    assert!(close(eight.latency, p.latency));
    let servers: Vec<usize> = eight.stations.iter().map(|s| s.servers).collect();
    assert_eq!(servers, [1, 2], "the pool's queue, then its workers");
}

#[test]
fn single_servers_in_a_row_wait_as_their_slowest() {
    let m = Machine::new(1, 2);
    let waits = |p: &RatePrediction| -> Vec<f64> {
        (p.stations.iter())
            .map(|s| s.residence_time - s.demand)
            .collect()
    };
    // 100 then 80: the slowest first, its M/D/1 wait at 1/2 (50 ns); the
    // second gets elements at least 100 ns apart and never waits.
    let p = fed("a = 100; b = 80; pipe(a, b)", &m, 1.0 / 200.0).unwrap();
    let w = waits(&p);
    assert!(
        close(w[0], 50.0) && w[1..].iter().all(|w| *w == 0.0),
        "{w:?}"
    );
    assert!(close(p.latency, 230.0));
    // 80 then 100: the same latency, the wait at the slowest (Friedman).
    let p = fed("a = 80; b = 100; pipe(a, b)", &m, 1.0 / 200.0).unwrap();
    let w = waits(&p);
    assert!(
        close(*w.last().unwrap(), 50.0) && w[..w.len() - 1].iter().all(|w| *w == 0.0),
        "{w:?}"
    );
    assert!(close(p.latency, 230.0));
}

#[test]
fn the_cores_or_the_memory_may_limit_first() {
    // Two stages of 100 ns on one core: the core, at one per 200 ns.
    let p = fed("a = 100; b = 100; pipe(a, b)", &Machine::new(1, 1), 1e-3).unwrap();
    assert_eq!(
        (p.max_rate, p.limit.as_str()),
        (1.0 / 200.0, "node 0's cores")
    );
    // On two cores, each stage alone: one per 100 ns, the first stage.
    let p = fed("a = 100; b = 100; pipe(a, b)", &Machine::new(1, 2), 1e-3).unwrap();
    assert_eq!((p.max_rate, p.limit.as_str()), (0.01, "0: a"));
    // Both all memory on one core's bandwidth: the memory, one per 200 ns.
    let m = Machine::new(1, 2).memory(Memory::new(20.0, 20.0));
    let text = "a = 100 [bytes = 2000]; b = 100 [bytes = 2000]; pipe(a, b)";
    let p = fed(text, &m, 1e-3).unwrap();
    assert_eq!(
        (p.max_rate, p.limit.as_str()),
        (1.0 / 200.0, "node 0's memory")
    );
}

#[test]
fn rates_out_of_range_are_clear_errors() {
    let m = Machine::new(1, 1);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(
            matches!(fed("a = 100; a", &m, bad), Err(QueueingError::Rate { .. })),
            "{bad}"
        );
    }
    let err = fed("a = 100; a", &m, 0.01).unwrap_err();
    assert_eq!(
        err.to_string(),
        "at 1e-2 elements per ns the design saturates: it sustains at most 1e-2, limited by 0: a"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The latency is at least the stations' demands and grows with the
    /// rate; as the rate vanishes it tends to the demands' sum.
    #[test]
    fn latency_grows_with_the_rate_from_the_demands(
        a in 1.0f64..1e4, b in 1.0f64..1e4, n in 1u32..5, cores in 1usize..5, share in 0.01f64..0.95,
    ) {
        let text = format!("a = {a}; b = {b}; pipe(a, tpool[{n}](b))");
        let m = Machine::new(1, cores);
        let max = fed(&text, &m, 1e-12).unwrap().max_rate;
        let low = fed(&text, &m, max * share * 0.5).unwrap();
        let high = fed(&text, &m, max * share).unwrap();
        let demands: f64 = high.stations.iter().map(|s| s.demand).sum();
        prop_assert!(low.latency >= demands * (1.0 - 1e-12));
        prop_assert!(high.latency >= low.latency * (1.0 - 1e-12));
        let tiny = fed(&text, &m, max * 1e-9).unwrap();
        prop_assert!((tiny.latency / demands - 1.0).abs() < 1e-6);
    }
}

/// The simulator fed the same way (Poisson arrivals): the mean latency
/// within 5 % below 80 % utilization (issue 37), over designs of one
/// queue, a pool, pipelines of both orders and a pool behind a stage.
#[test]
fn the_simulator_fed_the_same_way_agrees() {
    use pattern_core::sim::Simulation;
    let cases = [
        ("a = 100; a", 1, 0.01),
        ("a = 100; tpool[2](a)", 2, 0.02),
        ("a = 100; tpool[4](a)", 4, 0.04),
        ("a = 80; b = 60; pipe(a, b)", 2, 1.0 / 80.0),
        ("a = 60; b = 80; pipe(a, b)", 2, 1.0 / 80.0),
        ("a = 50; b = 150; pipe(a, tpool[2](b))", 3, 1.0 / 75.0),
    ];
    println!("| design | utilization | queueing | simulated | error |");
    for (text, cores, max) in cases {
        let m = Machine::new(1, cores);
        let d = Design::parse(text).unwrap();
        for load in [0.5, 0.7, 0.79] {
            let rate = max * load;
            let q = fed(text, &m, rate).unwrap();
            let sims: Vec<f64> = (1..=3)
                .map(|seed| {
                    // (channels long enough never to block a stage, as
                    // the open network takes them)
                    Simulation::new(&d, &m)
                        .elements(100_000)
                        .buffer(100_000)
                        .arrivals(rate, seed)
                        .run()
                        .unwrap()
                        .latency_mean()
                        .unwrap()
                })
                .collect();
            let simulated = sims.iter().sum::<f64>() / sims.len() as f64;
            let error = q.latency / simulated - 1.0;
            println!(
                "| `{text}` | {load} | {:.1} | {simulated:.1} | {:+.2} % |",
                q.latency,
                100.0 * error
            );
            assert!(
                error.abs() < 0.05,
                "{text} at {load}: {} against {simulated}",
                q.latency
            );
        }
    }
}
