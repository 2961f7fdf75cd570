//! Exact MVA (`pattern_core::queue`): against the product form enumerated
//! state by state, on the stability case where the textbook recursion
//! fails, and its invariants over random networks.

mod common;
#[path = "queue/product_form.rs"]
mod product_form;

use pattern_core::queue::{Network, QueueError};
use proptest::prelude::*;

/// A station to build: kind (0 queue, 1 delay, 2 multi-server, 3
/// load-dependent), demand, servers, rates.
type Spec = (u8, f64, usize, Vec<f64>);

fn build(specs: &[Spec]) -> Network {
    specs
        .iter()
        .enumerate()
        .fold(Network::new(), |net, (i, (kind, d, c, rates))| {
            let name = format!("s{i}");
            match kind {
                0 => net.queue(name, *d),
                1 => net.delay(name, *d),
                2 => net.multi_server(name, *c, *d),
                _ => {
                    let rates = rates.clone();
                    net.load_dependent(name, *d, move |n| rates[(n - 1) % rates.len()])
                }
            }
        })
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        0u8..4,
        prop_oneof![Just(0.0), 0.01f64..5.0],
        1usize..6,
        prop::collection::vec(0.2f64..4.0, 1..6),
    )
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(b.abs()).max(1e-300)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(400)))]

    /// Every figure agrees with the product form summed over all states.
    #[test]
    fn mva_is_the_product_form(specs in prop::collection::vec(spec(), 1..5), n in 1usize..9) {
        prop_assume!(specs.iter().any(|s| s.1 > 0.0));
        let net = build(&specs);
        let s = net.mva(n).unwrap();
        let exact = product_form::solve(&net, n);
        prop_assert!(close(s.throughput(), exact.throughput, 1e-10), "X {} vs {}", s.throughput(), exact.throughput);
        for (k, (name, r)) in s.stations().enumerate() {
            prop_assert!(close(r.queue_length, exact.queue[k], 1e-9) || exact.queue[k] < 1e-12, "{name}: Q {} vs {}", r.queue_length, exact.queue[k]);
            let u = product_form::utilization(&net, &exact, k);
            prop_assert!(close(r.utilization, u, 1e-9) || u < 1e-12, "{name}: U {} vs {u}", r.utilization);
        }
    }

    /// Little's law at every station, all jobs somewhere, utilizations at
    /// most 1, throughput within the asymptotic bounds and never falling
    /// as jobs are added; the sweep is the recursion's own steps.
    #[test]
    fn invariants(specs in prop::collection::vec(spec(), 1..7), n in 1usize..60) {
        prop_assume!(specs.iter().any(|s| s.1 > 0.0));
        let net = build(&specs);
        let sweep = net.sweep(n).unwrap();
        prop_assert_eq!(sweep.len(), n);
        prop_assert_eq!(sweep.at(n).unwrap(), net.mva(n).unwrap());
        prop_assert_eq!(sweep.at(0), None);
        prop_assert_eq!(sweep.at(n + 1), None);
        let responses = sweep.response_times();
        let mut last = 0.0;
        for (i, s) in sweep.iter().enumerate() {
            prop_assert_eq!(s.throughput(), sweep.throughputs()[i]);
            prop_assert_eq!(s.response_time(), responses[i]);
            let jobs = (i + 1) as f64;
            prop_assert_eq!(s.population(), i + 1);
            let total: f64 = s.stations().map(|(_, r)| r.queue_length).sum();
            prop_assert!(close(total, jobs, 1e-9), "{} jobs at N = {}", total, jobs);
            prop_assert!(close(s.cycle_time() * s.throughput(), jobs, 1e-9));
            for (k, (name, r)) in s.stations().enumerate() {
                prop_assert!(close(r.queue_length, s.throughput() * r.residence_time, 1e-12));
                if specs[k].0 != 1 {
                    prop_assert!(r.utilization <= 1.0 + 1e-9, "{}: U = {}", name, r.utilization);
                }
            }
            let b = net.bounds(i + 1).unwrap();
            let x = s.throughput();
            prop_assert!(b.throughput_lower <= x * (1.0 + 1e-9) && x <= b.throughput_upper * (1.0 + 1e-9),
                "X = {} outside [{}, {}]", x, b.throughput_lower, b.throughput_upper);
            let r = s.response_time();
            prop_assert!(b.response_lower <= r * (1.0 + 1e-9) + 1e-12 && r <= b.response_upper * (1.0 + 1e-9) + 1e-12,
                "R = {} outside [{}, {}]", r, b.response_lower, b.response_upper);
            // More jobs never lower the throughput of these networks
            // (rates that do not fall with load).
            if specs.iter().all(|s| s.0 != 3) {
                prop_assert!(x >= last * (1.0 - 1e-12));
            }
            last = x;
        }
    }
}

/// The textbook recursion for a load-dependent station: `p(0 | n)` by
/// subtraction. Kept here to show what the stability case is about.
fn textbook_throughput(servers: usize, demand: f64, population: usize) -> f64 {
    let mut p = vec![1.0];
    let mut x = 0.0;
    for n in 1..=population {
        let r: f64 = (1..=n)
            .map(|j| j as f64 * demand / j.min(servers) as f64 * p[j - 1])
            .sum();
        x = n as f64 / r;
        let mut next = vec![0.0; n + 1];
        for j in 1..=n {
            next[j] = x * demand / j.min(servers) as f64 * p[j - 1];
        }
        next[0] = 1.0 - next[1..].iter().sum::<f64>();
        p = next;
    }
    x
}

#[test]
fn many_servers_are_stable() {
    // One 300-server station, 400 jobs: all 300 servers busy, X = 300/D.
    assert!(
        textbook_throughput(300, 1.0, 400) < 0.0,
        "the textbook recursion fails here"
    );
    let s = Network::new()
        .multi_server("cpu", 300, 1.0)
        .mva(400)
        .unwrap();
    assert!(close(s.throughput(), 300.0, 1e-12), "{}", s.throughput());
    assert!(close(s.queue_length("cpu").unwrap(), 400.0, 1e-12));
    assert!(close(s.utilization("cpu").unwrap(), 1.0, 1e-12));
    assert!(close(
        s.residence_time("cpu").unwrap(),
        400.0 / 300.0,
        1e-12
    ));

    // With a queue and a think time beside it, against the product form
    // enumerated over all 80,601 states in log space.
    let net = Network::new()
        .multi_server("cpu", 300, 1.0)
        .queue("disk", 0.002)
        .delay("think", 0.1);
    let s = net.mva(400).unwrap();
    let exact = product_form::solve(&net, 400);
    assert!(
        close(s.throughput(), exact.throughput, 1e-10),
        "{} vs {}",
        s.throughput(),
        exact.throughput
    );
    for (k, name) in ["cpu", "disk", "think"].into_iter().enumerate() {
        let q = s.queue_length(name).unwrap();
        assert!(
            close(q, exact.queue[k], 1e-9),
            "{name}: {q} vs {}",
            exact.queue[k]
        );
    }

    // 1,000 servers at 5,000 jobs: the station is the bottleneck, X = c/D.
    let s = Network::new()
        .multi_server("cpu", 1000, 2.0)
        .queue("disk", 0.001)
        .mva(5000)
        .unwrap();
    assert!(close(s.throughput(), 500.0, 1e-9), "{}", s.throughput());
}

#[test]
fn a_single_queue_and_a_delay_in_closed_form() {
    // One queue alone: every job is there, X = 1/D, R = N·D.
    let s = Network::new().queue("cpu", 0.25).mva(7).unwrap();
    assert_eq!(s.throughput(), 4.0);
    assert!(close(s.response_time(), 1.75, 1e-12));
    // Delays alone: X = N/Z and no response time.
    let s = Network::new()
        .delay("think", 2.0)
        .delay("net", 3.0)
        .mva(10)
        .unwrap();
    assert!(close(s.throughput(), 2.0, 1e-12));
    assert_eq!(s.response_time(), 0.0);
    // A multi-server station with as many servers as jobs never queues.
    let s = Network::new()
        .multi_server("cpu", 8, 1.0)
        .delay("z", 1.0)
        .mva(8)
        .unwrap();
    assert!(close(s.throughput(), 4.0, 1e-12));
    assert!(close(s.utilization("cpu").unwrap(), 0.5, 1e-12));
    assert!(close(s.response_time(), 1.0, 1e-12));
    // Population 0: nothing moves.
    let s = Network::new().queue("cpu", 1.0).mva(0).unwrap();
    assert_eq!((s.throughput(), s.queue_length("cpu").unwrap()), (0.0, 0.0));
    assert!(
        Network::new()
            .queue("cpu", 1.0)
            .sweep(0)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn bad_input_is_an_error() {
    let err = |net: Network| net.mva(3).unwrap_err().to_string();
    assert_eq!(
        err(Network::new()),
        "the network has no station: add one with `queue`, `multi_server`, `load_dependent` or `delay`"
    );
    for d in [-1.0, f64::NAN, f64::INFINITY] {
        let e = Network::new().queue("disk", d).mva(3).unwrap_err();
        assert!(
            matches!(e, QueueError::InvalidDemand { ref station, .. } if station == "disk"),
            "{e}"
        );
    }
    assert_eq!(
        err(Network::new().multi_server("cpu", 0, 1.0)),
        "`cpu` has 0 servers: a multi-server station needs at least 1"
    );
    assert_eq!(
        err(Network::new().queue("a", 1.0).queue("a", 2.0)),
        "two stations are named `a`: every station needs its own name"
    );
    assert_eq!(
        err(Network::new().load_dependent("net", 1.0, |n| 2.0 - n as f64)),
        "the rate of `net` with 2 jobs present is α(2) = 0: a rate is a finite number > 0 (and D/α(n) finite)"
    );
    assert_eq!(
        err(Network::new().queue("a", 0.0).delay("z", 0.0)),
        "every demand is 0: the throughput is unbounded (give some station a demand > 0)"
    );
    let s = Network::new()
        .queue("cpu", 1.0)
        .queue("disk", 2.0)
        .mva(2)
        .unwrap();
    assert_eq!(
        s.utilization("gpu").unwrap_err().to_string(),
        "no station is named `gpu` (stations: cpu, disk)"
    );
    // Demands so large that the times overflow.
    let e = Network::new()
        .queue("a", 1e306)
        .queue("b", 1e306)
        .mva(1000)
        .unwrap_err();
    assert!(matches!(e, QueueError::NonFinite { .. }), "{e}");
    // The same errors from every solver.
    assert!(Network::new().queue("disk", -1.0).mva_approx(3).is_err());
    assert!(Network::new().queue("disk", -1.0).bounds(3).is_err());
    assert!(Network::new().queue("disk", -1.0).sweep(3).is_err());
    // A population whose sweep cannot be held is refused, not an abort.
    let e = Network::new()
        .queue("a", 1.0)
        .sweep(usize::MAX)
        .unwrap_err();
    assert!(matches!(e, QueueError::TooLarge { .. }), "{e}");
    // Populations that would take hours: the exact solver says so, a
    // load-dependent station's rates are not evaluated 10^18 times.
    assert_eq!(
        Network::new()
            .queue("a", 1.0)
            .queue("b", 2.0)
            .mva(usize::MAX)
            .unwrap_err()
            .to_string(),
        format!(
            "exact MVA at N = {} would take about 3.7e19 steps (at most 1e8): use mva_approx, or mva_within with a higher limit",
            usize::MAX
        )
    );
    // One queue alone is solved in closed form at any population: every
    // job there, X = 1/D.
    let one = Network::new().queue("a", 2.0).mva(usize::MAX).unwrap();
    assert_eq!(one.throughput(), 0.5);
    assert_eq!(one.response_time(), usize::MAX as f64 * 2.0);
    // ... unless a figure is beyond f64 there: the recursion names it
    // (found by the `network` fuzz target: a throughput of inf, a queue
    // length of NaN).
    for (demand, delay) in [(1e-320, false), (1e-320, true), (1e308, false)] {
        let net = if delay {
            Network::new().delay("s", demand)
        } else {
            Network::new().queue("s", demand)
        };
        assert!(
            matches!(net.mva(190), Err(QueueError::NonFinite { .. })),
            "{demand} {delay}: {:?}",
            net.mva(190)
        );
    }
    // Three general load-dependent stations at 20,000 jobs: 4.8e9 steps.
    let three = (0..3).fold(Network::new(), |net, i| {
        net.load_dependent(format!("l{i}"), 1.0, |n| n as f64)
    });
    assert!(matches!(
        three.mva(20_000),
        Err(QueueError::BeyondExact { .. })
    ));
    assert!(three.mva_approx(20_000).is_ok());
    let ld = Network::new().load_dependent("net", 1.0, |n| n as f64);
    assert!(matches!(
        ld.mva_approx(1 << 40),
        Err(QueueError::TooManyRates { .. })
    ));
    assert!(matches!(
        ld.bounds(1 << 40),
        Err(QueueError::TooManyRates { .. })
    ));
    // The approximation answers for any population and server count.
    let huge = Network::new()
        .multi_server("cpu", 1 << 30, 1.0)
        .multi_server("io", 1000, 1e-7)
        .queue("disk", 1e-12)
        .delay("think", 1.0);
    let s = huge.mva_approx(usize::MAX).unwrap();
    assert!(
        close(s.throughput(), (1u64 << 30) as f64, 1e-6),
        "{}",
        s.throughput()
    );
}
