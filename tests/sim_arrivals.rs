//! Open arrivals (`Simulation::arrivals`): a design fed at a rate by a
//! Poisson process, against the queueing results that hold exactly for the
//! simplest designs. The simulator draws deterministic service times from
//! the models, so `a = 100; a` fed at a rate is an M/D/1 queue,
//! `tpool[2](a)` an M/D/2 one, and with `variation(1.0, _)` (a Gamma of
//! shape 1: exponential) `a` is an M/M/1 queue.
//!
//! The tolerances. A run's mean latency is a random estimate: 40 seeds of
//! 200,000 elements each (in release) measured its standard deviation
//! from run to run as 0.27 % (M/D/1, ρ = 0.5), 1.4 % (M/D/1, ρ = 0.8),
//! 0.71 % (M/M/1, ρ = 0.5), 2.5 % (M/M/1, ρ = 0.8) and 1.1 % (M/D/2, ρ =
//! 0.8) of the mean, and the means over the 40 seeds were within 0.13 % of
//! the formulas (less than one standard error each). Each test averages
//! `k` seeds and allows about 4 standard deviations of that average,
//! `4·sd/√k`: a correct simulator fails it for about one choice of seeds
//! in 10,000, while an error in how latency is counted (from the take
//! rather than the arrival, say: the whole queueing delay, 33 % to 67 %
//! of the mean here) fails it by far.

use pattern_core::Design;
use pattern_core::machine::{Machine, Waiting};
use pattern_core::sim::{SimError, SimResult, Simulation};

/// Every mean latency of a run of `elements` of `design` on `cores` cores
/// fed at `rate`, one per seed (the variation's seed follows the
/// arrivals').
fn mean_latencies(
    design: &str,
    cores: usize,
    rate: f64,
    cv: f64,
    seeds: &[u64],
    elements: usize,
) -> Vec<f64> {
    let d = Design::parse(design).unwrap();
    let m = Machine::new(1, cores);
    (seeds.iter())
        .map(|&seed| {
            let mut s = Simulation::new(&d, &m)
                .elements(elements)
                .arrivals(rate, seed);
            if cv > 0.0 {
                s = s.variation(cv, seed + 1000);
            }
            s.run().unwrap().latency_mean().unwrap()
        })
        .collect()
}

/// The mean of `runs`, checked within `tolerance` (relative) of `expected`.
fn assert_mean_near(what: &str, runs: &[f64], expected: f64, tolerance: f64) {
    let mean = runs.iter().sum::<f64>() / runs.len() as f64;
    let off = mean / expected - 1.0;
    println!(
        "{what}: simulated {mean:.3} ns, expected {expected:.3} ns ({off:+.4}), runs {runs:.3?}"
    );
    assert!(
        off.abs() < tolerance,
        "{what}: simulated {mean} ns against {expected} ns ({off:+.4}); runs {runs:?}"
    );
    // Different seeds, different runs.
    if runs.len() > 1 {
        assert_ne!(runs[0], runs[1], "{what}");
    }
}

/// Pollaczek–Khinchine for M/D/1: `W = S + ρ·S/(2(1 − ρ))`.
fn md1(service: f64, rho: f64) -> f64 {
    service + rho * service / (2.0 * (1.0 - rho))
}

/// The mean number in an M/D/c system of `a = λ·D` (exact, up to a
/// truncation far in the tail). Seen every `D` ns, the number in the
/// system follows `X' = max(X − c, 0) + A`, `A` the Poisson(`a`) arrivals
/// of those `D` ns: every element in service at a time has left `D` ns
/// later, every waiting one is still there (it starts later and takes
/// `D`), every one that arrived meanwhile is there. That holds from any
/// time on, so the chain's stationary mean is the time-average number in
/// the system, and `W = L/λ` by Little's law. Solved by power iteration
/// over 400 states.
fn mdc_mean_in_system(c: usize, a: f64) -> f64 {
    let states = 400;
    let mut poisson = vec![(-a).exp()];
    while poisson.len() < 60 {
        let k = poisson.len() as f64;
        poisson.push(poisson[poisson.len() - 1] * a / k);
    }
    let mut pi = vec![0.0; states];
    pi[0] = 1.0;
    for _ in 0..100_000 {
        let mut next = vec![0.0; states];
        for (i, &p) in pi.iter().enumerate() {
            let base = i.saturating_sub(c);
            for (k, &q) in poisson.iter().enumerate().take(states - base) {
                next[base + k] += p * q;
            }
        }
        let total: f64 = next.iter().sum();
        next.iter_mut().for_each(|x| *x /= total);
        let change: f64 = next.iter().zip(&pi).map(|(x, y)| (x - y).abs()).sum();
        pi = next;
        if change < 1e-15 {
            break;
        }
    }
    pi.iter().enumerate().map(|(j, p)| j as f64 * p).sum()
}

/// The mean latency of M/D/c of `rho` per server, service `service`.
fn mdc(c: usize, service: f64, rho: f64) -> f64 {
    let rate = rho * c as f64 / service;
    mdc_mean_in_system(c, rate * service) / rate
}

#[test]
fn the_m_d_c_solver_gives_pollaczek_khinchine_for_one_server() {
    for rho in [0.3, 0.5, 0.8, 0.9] {
        let (chain, pk) = (mdc(1, 100.0, rho), md1(100.0, rho));
        assert!(
            (chain / pk - 1.0).abs() < 1e-9,
            "ρ = {rho}: {chain} vs {pk}"
        );
    }
    // M/D/2 at 0.8 per server: a wait of 0.903 D, a little over half of
    // M/M/2's 1.778 D (the usual M/D/c ≈ M/M/c / 2).
    assert!((mdc(2, 100.0, 0.8) - 190.328).abs() < 1e-3);
}

#[test]
fn one_stage_fed_at_half_its_capacity_is_an_m_d_1_queue() {
    // λ = 0.005 per ns, S = 100 ns: W = 150 ns. One run: sd 0.27 %.
    let runs = mean_latencies("a = 100; a", 1, 0.005, 0.0, &[1], 200_000);
    assert_mean_near("M/D/1 at 0.5", &runs, md1(100.0, 0.5), 0.015);
}

#[test]
fn one_stage_fed_at_four_fifths_of_its_capacity_is_an_m_d_1_queue() {
    // λ = 0.008 per ns: W = 300 ns. Three runs: sd 1.4 %/√3 = 0.8 %.
    let runs = mean_latencies("a = 100; a", 1, 0.008, 0.0, &[1, 2, 3], 200_000);
    assert_mean_near("M/D/1 at 0.8", &runs, md1(100.0, 0.8), 0.03);
}

#[test]
fn exponential_durations_make_an_m_m_1_queue() {
    // W = S/(1 − ρ): 200 ns at 0.5 (two runs: sd 0.5 %), 500 ns at 0.8
    // (three runs: sd 2.5 %/√3 = 1.4 %).
    let runs = mean_latencies("a = 100; a", 1, 0.005, 1.0, &[1, 2], 200_000);
    assert_mean_near("M/M/1 at 0.5", &runs, 100.0 / 0.5, 0.02);
    let runs = mean_latencies("a = 100; a", 1, 0.008, 1.0, &[1, 2, 3], 200_000);
    assert_mean_near("M/M/1 at 0.8", &runs, 100.0 / 0.2, 0.06);
}

#[test]
fn a_pool_of_two_workers_is_an_m_d_2_queue() {
    // 0.8 per worker: λ = 0.016 per ns, W = 190.33 ns. Three runs: sd
    // 1.1 %/√3 = 0.62 %.
    let runs = mean_latencies("a = 100; tpool[2](a)", 2, 0.016, 0.0, &[1, 2, 3], 200_000);
    assert_mean_near("M/D/2 at 0.8", &runs, mdc(2, 100.0, 0.8), 0.025);
}

#[test]
fn a_pipeline_below_its_capacity_keeps_up_with_the_arrivals() {
    // Stages of 60 and 80 ns on two cores, fed every 100 ns on average:
    // every element leaves (or the run is an error), elements leave at the
    // rate they arrive, and the two cores are busy 140 ns of every 200.
    let n = 200_000;
    let run = |design: &str| {
        Simulation::new(&Design::parse(design).unwrap(), &Machine::new(1, 2))
            .elements(n)
            .arrivals(0.01, 4)
            .run()
            .unwrap()
    };
    let r = run("a = 60; b = 80; pipe(a, b)");
    // The arrivals themselves, measured: the same seed's elements through
    // a stage of 10^-3 ns leave as they arrive.
    let feed = run("a = 0.001; a");
    assert!(feed.latency_mean().unwrap() < 0.0011);
    let (arrivals, departures) = (n as f64 / feed.makespan(), n as f64 / r.makespan());
    println!(
        "pipe: arrivals {arrivals:.7}/ns, departures {departures:.7}/ns, time per element {:.3} ns \
         (the arrivals' {:.3} ns), utilization {:.4}",
        r.time_per_element(),
        feed.time_per_element(),
        r.core_utilization()[0]
    );
    // The last departure is the last arrival's and a few hundred ns: the
    // rates agree to 10^-5, and the slopes over the middle half.
    assert!((departures / arrivals - 1.0).abs() < 0.01);
    assert!((r.time_per_element() / feed.time_per_element() - 1.0).abs() < 0.01);
    // Against the nominal rate: n arrivals take n/λ ns to within 1/√n =
    // 0.22 % (the slope over the middle half to within 0.35 %): 1.5 %.
    assert!((departures / 0.01 - 1.0).abs() < 0.015, "{departures}");
    assert!((r.time_per_element() / 100.0 - 1.0).abs() < 0.015);
    assert!(r.steady_state().unwrap().steady);
    assert!((r.core_utilization()[0] / 0.7 - 1.0).abs() < 0.015);
    // No element is faster than its two stages (140 ns to within the
    // rounding of the clock, the percentile's bucket to within 1 %).
    let fastest = r.latency_percentile(0.0).unwrap();
    assert!((140.0 - 1e-6..141.4).contains(&fastest), "{fastest}");
}

#[test]
fn fed_slowly_every_element_crosses_alone() {
    // An element every 10^6 ns on average, through 140 ns of stages: none
    // waits (unless two arrive less than 80 ns apart: for about one seed
    // in 125).
    let d = Design::parse("a = 60; b = 80; pipe(a, b)").unwrap();
    let r = Simulation::new(&d, &Machine::new(1, 2))
        .elements(100)
        .arrivals(1e-6, 9)
        .run()
        .unwrap();
    // 140 ns, to within the rounding of times near 10^8 ns.
    for latency in [
        r.latency_percentile(0.0),
        r.latency_percentile(100.0),
        r.latency_mean(),
    ] {
        assert!((latency.unwrap() - 140.0).abs() < 1e-6, "{latency:?}");
    }
    // Time per element: the mean gap, 10^6 ns, to within 30 % for 100 gaps.
    assert!((r.time_per_element() / 1e6 - 1.0).abs() < 0.3);
}

#[test]
fn fed_at_once_it_runs_as_the_closed_stream() {
    // Arrivals 10^-6 ns apart on average: the run is the closed one but
    // for those gaps (the last element arrives at about 10^-3 ns).
    let d = Design::parse("a = 3*x; b = x; pipe(a, tpool[2](b))").unwrap();
    let m = Machine::new(1, 3);
    let at = [("x", 10.0)];
    let closed = Simulation::new(&d, &m)
        .at(&at)
        .elements(1000)
        .run()
        .unwrap();
    let open = Simulation::new(&d, &m)
        .at(&at)
        .elements(1000)
        .arrivals(1e6, 3)
        .run()
        .unwrap();
    assert!((open.makespan() - closed.makespan()).abs() < 0.01);
    assert!((open.time_per_element() - closed.time_per_element()).abs() < 1e-3);
    // Latency counts from the arrival: the last element waited in the
    // source for all the others.
    assert!(open.latency_percentile(100.0).unwrap() > 0.99 * closed.makespan());
    assert!(closed.latency_percentile(100.0).unwrap() < 100.0);
}

#[test]
fn workers_left_waiting_for_an_element_that_never_comes_end_the_run() {
    // Four workers, an element now and then: at the end three or four
    // wait on the source for more, and the run ends when the last leaves.
    let d = Design::parse("a = 100; tpool[4](a)").unwrap();
    for seed in 0..20 {
        let r = Simulation::new(&d, &Machine::new(1, 4))
            .elements(50)
            .arrivals(0.001, seed)
            .run()
            .unwrap();
        assert!(r.makespan() > 0.0);
    }
}

#[test]
fn arrivals_go_with_waiting_costs_changes_and_variation() {
    use pattern_core::sim::{Change, When};
    let d = Design::parse("a = 50; b = 80; c = 30; pipe(a, tpool[3](b), c)").unwrap();
    let waits = Waiting::new()
        .take_ns(12.0)
        .handoff_ns(7.0)
        .wake_latency_ns(400.0)
        .spin_ns(100.0)
        .wake_cost_ns(5.0)
        .waker_cost_ns(3.0);
    let m = Machine::new(1, 3).waiting(waits);
    let run = |seed| {
        Simulation::new(&d, &m)
            .elements(20_000)
            .arrivals(1.0 / 120.0, seed)
            .variation(0.3, seed)
            .change(
                When::Left(10_000),
                Change::Workers {
                    pool: 0,
                    workers: 2,
                },
            )
            .run()
            .unwrap()
    };
    let r = run(5);
    assert!(
        (r.time_per_element() / 120.0 - 1.0).abs() < 0.03,
        "{}",
        r.time_per_element()
    );
    // 160 ns of steps on average, and the overheads, and the waits.
    assert!(r.latency_mean().unwrap() > 160.0);
    assert_eq!(r, run(5));
}

#[test]
fn a_rate_that_is_not_a_finite_number_above_0_is_an_error() {
    let d = Design::parse("a = 100; a").unwrap();
    let m = Machine::new(1, 1);
    for rate in [0.0, -0.001, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let e = Simulation::new(&d, &m).elements(10).arrivals(rate, 1).run();
        match e {
            Err(SimError::InvalidArrivalRate { value }) => {
                assert!(value.to_bits() == rate.to_bits());
                let message = e.unwrap_err().to_string();
                assert!(message.contains("arrival rate"), "{message}");
                assert!(message.contains("finite number > 0"), "{message}");
            }
            other => panic!("rate {rate}: {other:?}"),
        }
    }
}

#[test]
fn a_seed_makes_one_run_and_another_seed_another() {
    let d = Design::parse("a = 60; b = 80; pipe(a, tpool[2](b))").unwrap();
    let m = Machine::new(1, 2);
    let run = |seed| {
        Simulation::new(&d, &m)
            .elements(5000)
            .arrivals(0.012, seed)
            .trace(true)
            .run()
            .unwrap()
    };
    let (a, b, c) = (run(7), run(7), run(8));
    assert_eq!(a, b);
    assert_eq!(fingerprint(&a), fingerprint(&b));
    assert_ne!(a.latency_mean(), c.latency_mean());
    assert_ne!(a.makespan(), c.makespan());
    // The arrivals draw from a stream of their own: the variation's seed
    // equal to the arrivals' does not tie the durations to the gaps (one
    // stream for both ties each element's duration to the gap before it,
    // and makes the mean latency 160 ns instead of M/M/1's 200). 50,000
    // elements: sd 1.4 %.
    let tied = Simulation::new(&Design::parse("a = 100; a").unwrap(), &Machine::new(1, 1))
        .elements(50_000)
        .arrivals(0.005, 3)
        .variation(1.0, 3)
        .run()
        .unwrap();
    let w = tied.latency_mean().unwrap();
    assert!((w / 200.0 - 1.0).abs() < 0.05, "{w}");
}

/// What a run's results are, bit for bit.
fn fingerprint(r: &SimResult) -> Vec<u64> {
    let mut v = vec![
        r.makespan().to_bits(),
        r.time_per_element().to_bits(),
        r.events(),
    ];
    for p in [0.0, 50.0, 99.0, 100.0] {
        v.push(r.latency_percentile(p).unwrap().to_bits());
    }
    v
}

#[test]
fn without_arrivals_runs_are_unchanged_bit_for_bit() {
    // Recorded before arrivals were added: closed streams, with and
    // without variation, pools, buffers, a rendezvous, waiting costs.
    let d1 = Design::parse("a = 3*x; b = x; pipe(a, b)").unwrap();
    let d2 = Design::parse("a = 100; tpool[4](a)").unwrap();
    let d3 = Design::parse("a = 100; pipe(a, a)").unwrap();
    let d4 = Design::parse("a = 50; b = 80; c = 30; pipe(a, tpool[3](b), c)").unwrap();
    let m2 = Machine::new(1, 2);
    let m3 = Machine::new(1, 3);
    let waits = Waiting::new()
        .take_ns(12.0)
        .handoff_ns(7.0)
        .wake_latency_ns(400.0)
        .spin_ns(100.0)
        .wake_cost_ns(5.0)
        .waker_cost_ns(3.0);
    let mw = Machine::new(1, 2).waiting(waits);
    let runs = [
        Simulation::new(&d1, &m2)
            .at(&[("x", 10.0)])
            .elements(1000)
            .run(),
        Simulation::new(&d2, &m3)
            .elements(500)
            .variation(0.5, 3)
            .run(),
        (Simulation::new(&d3, &m2).elements(2000).buffer(1))
            .variation(1.0, 7)
            .run(),
        Simulation::new(&d4, &mw)
            .elements(3000)
            .variation(0.3, 11)
            .run(),
        Simulation::new(&d4, &m3).elements(777).buffer(0).run(),
    ];
    let recorded: [[u64; 7]; 5] = [
        [
            4673978299943223296,
            4629137466983448576,
            2000,
            4630826316843712512,
            4630826316843712512,
            4630826316843712512,
            4630826316843712512,
        ],
        [
            4670255209269341514,
            4629937235835175341,
            500,
            4627398855797970944,
            4638326178114222456,
            4644777219554400503,
            4645652090693575808,
        ],
        [
            4688404348338305750,
            4638953925006895913,
            4000,
            4626007433035581214,
            4643347244819973103,
            4650281666341727989,
            4654719066826647392,
        ],
        [
            4688534198690437788,
            4636241163996236388,
            18952,
            4643731669163456916,
            4649122234875128874,
            4651668517363732197,
            4652601396577495040,
        ],
        [
            4675942027710431245,
            4632702816688450121,
            2331,
            4639959572429000457,
            4640302641059638272,
            4640302641059638272,
            4640302641059638272,
        ],
    ];
    for (i, (r, want)) in runs.into_iter().zip(recorded).enumerate() {
        assert_eq!(fingerprint(&r.unwrap()), want, "run {i}");
    }
}
