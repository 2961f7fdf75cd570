//! Approximate MVA against exact MVA: the error, measured over families of
//! networks and stated in docs/queueing.md. Run with `--nocapture` to see
//! the table.

use pattern_core::queue::{Approximation, MultiServer, Network, QueueError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random network of 2-6 stations; `kinds` picks what may appear
/// (0 queue, 1 delay, 2 multi-server, 3 load-dependent).
fn random_network(rng: &mut ChaCha8Rng, kinds: &[u8]) -> Network {
    let k = rng.random_range(2..=6);
    (0..k).fold(Network::new(), |net, i| {
        let d = rng.random_range(0.05..2.0);
        let name = format!("s{i}");
        match kinds[rng.random_range(0..kinds.len())] {
            0 => net.queue(name, d),
            1 => net.delay(name, d * 5.0),
            2 => net.multi_server(name, rng.random_range(2..=8), d * 4.0),
            _ => {
                let a = rng.random_range(0.0..0.3);
                net.load_dependent(name, d, move |n| 1.0 + a * (n as f64 - 1.0).min(4.0))
            }
        }
    })
}

/// Largest and median relative error of the throughput and of the station
/// queue lengths (relative to the population) over `cases` networks at
/// populations 1..=max.
fn errors(kinds: &[u8], settings: &Approximation, cases: usize, max: usize) -> [f64; 4] {
    let mut rng = ChaCha8Rng::seed_from_u64(20261123);
    let mut x_err = Vec::new();
    let mut q_err: f64 = 0.0;
    let mut large: f64 = 0.0;
    for _ in 0..cases {
        let net = random_network(&mut rng, kinds);
        let exact = net.sweep(max).unwrap();
        for n in [1, 2, 3, 5, 8, 13, 21, 34, 55]
            .into_iter()
            .filter(|&n| n <= max)
        {
            let a = net.mva_approx_with(n, settings).unwrap();
            let e = exact.at(n).unwrap();
            let err = (a.throughput() / e.throughput() - 1.0).abs();
            x_err.push(err);
            if n >= 21 {
                large = large.max(err);
            }
            for ((_, ra), (_, re)) in a.stations().zip(e.stations()) {
                q_err = q_err.max((ra.queue_length - re.queue_length).abs() / n as f64);
            }
        }
    }
    x_err.sort_by(f64::total_cmp);
    [x_err[x_err.len() - 1], x_err[x_err.len() / 2], q_err, large]
}

#[test]
fn schweitzer_bard_error_against_exact_mva() {
    let default = Approximation::default();
    let seidmann = Approximation {
        multi_server: MultiServer::Seidmann,
        ..default
    };
    println!(
        "| networks | max X error | median X error | max X error, N >= 21 | max queue error / N |"
    );
    let rows = [
        // The bounds: the measured errors (docs/queueing.md) with a margin.
        ("queues and delays", &[0u8, 1][..], &default, [0.08, 0.01]),
        (
            "with multi-server (marginals)",
            &[0, 1, 2][..],
            &default,
            [0.16, 0.01],
        ),
        (
            "with multi-server (Seidmann)",
            &[0, 1, 2][..],
            &seidmann,
            [0.18, 0.01],
        ),
        (
            "with load-dependent",
            &[0, 1, 3][..],
            &default,
            [0.12, 0.01],
        ),
    ];
    let measured: Vec<_> = rows
        .iter()
        .map(|(what, kinds, settings, _)| {
            let [max, median, q, large] = errors(kinds, settings, 200, 55);
            println!(
                "| {what} | {:.2} % | {:.3} % | {:.2} % | {:.3} |",
                max * 100.0,
                median * 100.0,
                large * 100.0,
                q
            );
            (max, median)
        })
        .collect();
    for ((what, _, _, [max_bound, median_bound]), (max, median)) in rows.iter().zip(measured) {
        assert!(max < *max_bound, "{what}: {max}");
        assert!(median < *median_bound, "{what}: {median}");
    }
}

#[test]
fn the_approximation_is_exact_at_one_job_and_converges_at_large_populations() {
    let net = Network::new()
        .queue("cpu", 0.2)
        .queue("disk", 0.5)
        .delay("think", 3.0);
    // One job: nobody to queue behind, approximate = exact.
    let (a, e) = (net.mva_approx(1).unwrap(), net.mva(1).unwrap());
    assert!((a.throughput() - e.throughput()).abs() < 1e-9);
    // Far beyond saturation both reach 1/D_max = 2.
    let a = net.mva_approx(100_000).unwrap();
    assert!((a.throughput() - 2.0).abs() < 1e-4, "{}", a.throughput());
    let e = net.mva(100_000).unwrap();
    assert!((a.throughput() / e.throughput() - 1.0).abs() < 1e-4);
}

#[test]
fn bad_settings_are_errors() {
    let net = Network::new().queue("cpu", 1.0);
    let bad = Approximation {
        tolerance: f64::NAN,
        ..Approximation::default()
    };
    assert_eq!(
        net.mva_approx_with(5, &bad).unwrap_err().to_string(),
        "the option `tolerance` is NaN: a finite number > 0"
    );
    let tight = Approximation {
        max_iterations: 1,
        ..Approximation::default()
    };
    let net = Network::new().queue("a", 1.0).queue("b", 2.0);
    assert!(matches!(
        net.mva_approx_with(50, &tight),
        Err(QueueError::NoConvergence { iterations: 1, .. })
    ));
}

/// Found by the queue fuzz target (seed 20261123, input 830504): rates up
/// to 1e308 round a station's Schweitzer residence time to zero, the
/// throughput overflows, and the cap at the asymptotic bound put 198.027
/// jobs at the stations of a population of 198. Residence times now stay at
/// least `D·min j/α(j)`, and the cap keeps `Σ Q = N` from the residence
/// times themselves.
#[test]
fn rates_near_the_largest_float_keep_every_job() {
    let rates = [4.986127537798807, 2.1141867135692416, 1e308];
    let net = Network::new()
        .load_dependent("s0", 2.988761092624339, move |n: usize| rates[(n - 1) % 3])
        .load_dependent("s1", 0.08055274963680192, |_| 1e308);
    let approx = net.mva_approx(198).unwrap();
    let exact = net.mva(198).unwrap();
    let jobs = |s: &pattern_core::queue::Solution| -> f64 {
        s.stations().map(|(_, r)| r.queue_length).sum()
    };
    assert!((jobs(&approx) - 198.0).abs() < 1e-9, "{}", jobs(&approx));
    assert!((jobs(&exact) - 198.0).abs() < 1e-9, "{}", jobs(&exact));
    assert!(approx.throughput() <= net.bounds(198).unwrap().throughput_upper);
    // Both put all but 0.027 jobs at s0.
    let (q, q_exact) = (
        approx.queue_length("s0").unwrap(),
        exact.queue_length("s0").unwrap(),
    );
    assert!((q - q_exact).abs() < 1e-2, "{q} vs {q_exact}");
    assert!(approx.residence_time("s0").unwrap() >= 2.988761092624339 * 3.0 / 1e308);
}
