//! The multi-class Linearizer (`MultiClassApproximation::default()`,
//! `Method::Linearizer`): its error against exact multi-class MVA beside
//! Bard-Schweitzer's on the same random networks, one class against
//! exact single-class MVA, the laws it obeys, and bad input. Run with
//! `--nocapture` to see the error table (docs/queueing.md, "Several
//! classes").

mod common;
#[path = "queue/multiclass_networks.rs"]
mod networks;

use networks::{approx_errors, build, check_laws, random_spec, single_class};
use pattern_core::queue::{
    Method, MultiClassApproximation, MultiClassNetwork, MultiServer, QueueError,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn settings(method: Method, multi_server: MultiServer) -> MultiClassApproximation {
    MultiClassApproximation {
        method,
        multi_server,
        ..Default::default()
    }
}

/// Bounds just above the errors measured (docs/queueing.md): max and median
/// throughput error, max queue error over the class's population.
struct Bounds([f64; 3]);

fn check_row(what: &str, kinds: &[u8], multi_server: MultiServer, jobs: usize, bounds: Bounds) {
    let pct = |v: f64| format!("{:.3} %", 100.0 * v);
    let (mut lin, mut bard) = ([0.0; 4], [0.0; 4]);
    for method in [Method::SchweitzerBard, Method::Linearizer] {
        let [max, median, large, q] =
            approx_errors(kinds, &settings(method, multi_server), 200, jobs);
        println!(
            "| {what}, 1–{jobs} jobs | {method:?} | {} | {} | {} | {q:.3} |",
            pct(max),
            pct(median),
            pct(large)
        );
        match method {
            Method::Linearizer => lin = [max, median, large, q],
            Method::SchweitzerBard => bard = [max, median, large, q],
        }
    }
    // Better than Bard-Schweitzer on the same networks, every figure.
    for (l, b) in lin.iter().zip(&bard) {
        assert!(l <= b, "{what}: {lin:?} against Bard-Schweitzer's {bard:?}");
    }
    let Bounds([max_bound, median_bound, q_bound]) = bounds;
    assert!(lin[0] < max_bound, "{what}: max {}", lin[0]);
    assert!(lin[1] < median_bound, "{what}: median {}", lin[1]);
    assert!(lin[3] < q_bound, "{what}: queue {}", lin[3]);
}

#[test]
fn linearizer_error_against_exact_mva() {
    println!(
        "| networks | method | max X error | median X error | max X error, N_c >= 5 | max queue error / N_c |"
    );
    use MultiServer::{Marginals, Seidmann};
    #[rustfmt::skip]
    let rows = [
        ("queues and delays", &[0u8, 1][..], Marginals, 8, Bounds([0.017, 0.0001, 0.007])),
        ("queues and delays", &[0u8, 1][..], Marginals, 20, Bounds([0.017, 0.00002, 0.011])),
        ("multi-server, Seidmann", &[0, 1, 2], Seidmann, 8, Bounds([0.175, 0.0019, 0.05])),
        ("multi-server, marginals", &[0, 1, 2], Marginals, 8, Bounds([0.088, 0.0005, 0.013])),
        ("load-dependent, rising rates", &[0, 1, 4], Marginals, 8, Bounds([0.143, 0.0018, 0.027])),
        ("load-dependent, any rates", &[0, 1, 3], Marginals, 8, Bounds([1.41, 0.0035, 0.63])),
    ];
    for (what, kinds, multi_server, jobs, bounds) in rows {
        check_row(what, kinds, multi_server, jobs, bounds);
    }
}

/// With one class the multi-class Linearizer is Chandy and Neuse's
/// two-population scheme; the single-class solver's default climbs exact
/// MVA's steps over the last eight populations (module docs), so the two
/// differ: measured here against exact single-class MVA, and against
/// each other.
#[test]
fn one_class_against_the_single_class_solvers() {
    let mut rng = ChaCha8Rng::seed_from_u64(4038);
    let (mut worst, mut apart): (f64, f64) = (0.0, 0.0);
    for case in 0..200 {
        let mut spec = random_spec(&mut rng, &[0, 1], 1..=5, 1..=1, 30);
        spec.classes[0].0 = spec.classes[0].0.max(1);
        let n = spec.classes[0].0;
        let single = single_class(&spec);
        let exact = single.mva(n).unwrap().throughput();
        let linearizer = single.mva_approx(n).unwrap().throughput();
        let x = build(&spec).mva_approx().unwrap().throughput("c0").unwrap();
        assert!(x.is_finite() && x > 0.0, "case {case}: {x}");
        worst = worst.max((x / exact - 1.0).abs());
        apart = apart.max((x / linearizer - 1.0).abs());
    }
    println!(
        "one class: {:.3} % from exact MVA, {:.3} % from the single-class Linearizer",
        100.0 * worst,
        100.0 * apart
    );
    assert!(worst < 0.007, "{worst}");
    assert!(apart < 0.007, "{apart}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    #[test]
    fn the_linearizer_obeys_little_and_the_utilization_law(seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let spec = random_spec(&mut rng, &[0, 1, 2, 3], 2..=4, 2..=3, 6);
        let net = build(&spec);
        check_laws(&spec, &net.mva_approx().unwrap(), false)?;
        let seidmann = settings(Method::Linearizer, MultiServer::Seidmann);
        check_laws(&spec, &net.mva_approx_with(&seidmann).unwrap(), false)?;
    }
}

#[test]
fn bad_input_is_an_error() {
    let two_queues = || MultiClassNetwork::new().queue("cpu").queue("disk");
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let net = two_queues().class("a", 2, &[("cpu", 1.0), ("disk", bad)]);
        let err = net.mva_approx().unwrap_err().to_string();
        assert!(err.contains("disk"), "{err}");
    }
    let none = two_queues().class("a", 0, &[("cpu", 1.0)]);
    let err = none.mva_approx().unwrap_err().to_string();
    assert!(err.contains("no jobs"), "{err}");
    let net = two_queues()
        .class("a", 3, &[("cpu", 1.0), ("disk", 0.5)])
        .class("b", 2, &[("disk", 1.0)]);
    let bad = MultiClassApproximation {
        tolerance: f64::NAN,
        ..Default::default()
    };
    assert!(matches!(
        net.mva_approx_with(&bad),
        Err(QueueError::InvalidOption { .. })
    ));
    let tight = MultiClassApproximation {
        max_iterations: 1,
        ..Default::default()
    };
    assert!(matches!(
        net.mva_approx_with(&tight),
        Err(QueueError::NoConvergence { .. })
    ));
    // A class of one job leaves none at N − 1_j; a class of none is idle.
    let net = two_queues()
        .class("a", 1, &[("cpu", 1.0)])
        .class("b", 1, &[("cpu", 2.0), ("disk", 1.0)])
        .class("idle", 0, &[]);
    let s = net.mva_approx().unwrap();
    let e = net.mva().unwrap();
    assert_eq!(s.throughput("idle").unwrap(), 0.0);
    for c in ["a", "b"] {
        let (x, want) = (s.throughput(c).unwrap(), e.throughput(c).unwrap());
        assert!((x / want - 1.0).abs() < 0.05, "{c}: {x} vs {want}");
    }
}

/// The bench's networks (benches/queue.rs, scripts/line_speed.py): `classes`
/// classes of `jobs` jobs over `stations` queues and a think time.
fn bench_network(classes: usize, jobs: usize, stations: usize) -> MultiClassNetwork {
    let names: Vec<String> = (0..stations).map(|k| format!("q{k}")).collect();
    let net = names
        .iter()
        .fold(MultiClassNetwork::new().delay("think"), |net, n| {
            net.queue(n)
        });
    (0..classes).fold(net, |net, c| {
        let mut demands: Vec<(&str, f64)> = names
            .iter()
            .enumerate()
            .map(|(k, n)| (n.as_str(), 0.01 * (1 + (3 * k + 5 * c) % 11) as f64))
            .collect();
        demands.push(("think", 1.0 + 0.5 * c as f64));
        net.class(format!("c{c}"), jobs, &demands)
    })
}

/// LINE 3.0.8's `pfqn_linearizer` (tolerance 1e-10) on the bench's 10
/// classes of 20 jobs over 100 queues, as `scripts/line_speed.py` prints
/// them: Chandy and Neuse's Linearizer, the same here to 1e-9.
#[test]
fn the_same_as_lines_linearizer() {
    #[rustfmt::skip]
    let line = [
        1.1645080733, 1.1632582007, 1.0896545281, 1.0851742572, 1.0442534597,
        1.0231525732, 1.0056360460, 0.9707230331, 0.9714661536, 0.9241587307,
    ];
    let s = bench_network(10, 20, 100).mva_approx().unwrap();
    for (c, want) in line.iter().enumerate() {
        let x = s.throughput(&format!("c{c}")).unwrap();
        assert!((x / want - 1.0).abs() < 1e-9, "c{c}: {x} vs LINE's {want}");
    }
}

/// Many servers: up to 64 the Linearizer carries the marginals (here
/// within 2.8e-6 of exact MVA), beyond it takes the station alone (65
/// servers: 0.11 %, 200: 0.90 %, both low); large demands neither overflow
/// nor lose the figures.
#[test]
fn many_servers() {
    for (servers, demand, within) in [
        (64, 10.0, 3e-6),
        (64, 1e6, 1e-10),
        (8, 100.0, 1e-9),
        (65, 10.0, 1.2e-3),
        (200, 10.0, 0.0095),
    ] {
        let net = MultiClassNetwork::new()
            .multi_server("cpu", servers)
            .queue("disk")
            .delay("think")
            .class(
                "a",
                200,
                &[("cpu", demand), ("disk", 0.001), ("think", 1.0)],
            )
            .class("b", 120, &[("cpu", demand / 2.0), ("disk", 0.01)]);
        let (e, a) = (net.mva().unwrap(), net.mva_approx().unwrap());
        for c in ["a", "b"] {
            let (x, want) = (a.throughput(c).unwrap(), e.throughput(c).unwrap());
            assert!(
                (x / want - 1.0).abs() < within,
                "{servers} servers, D = {demand}, {c}: {x} vs {want}"
            );
        }
    }
}
