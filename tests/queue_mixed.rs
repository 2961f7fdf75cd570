//! Mixed networks (`queue::MixedNetwork`): textbook examples to their
//! printed digits, the product form summed state by state, the closed and
//! the open solvers where one kind of class is missing, Little's law and
//! the utilization law on random networks, and clear errors.

use pattern_core::queue::{
    MixedNetwork, MixedSolution, MultiClassApproximation, MultiClassNetwork, OpenNetwork,
    QueueError, Workload,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[path = "queue/mixed_networks.rs"]
mod mixed_networks;

use mixed_networks::{Kind, Net, exact, random_net, station};

/// `got` is within one unit of the last digit of `printed`, a figure
/// printed with `digits` decimals (books round from rounded figures: Bolch
/// et al. print 10.766 where the exact value is 10.76652).
fn printed(what: &str, got: f64, printed: f64, digits: i32) {
    let unit = 10f64.powi(-digits) * (1.0 + 1e-9);
    assert!(
        (got - printed).abs() <= unit,
        "{what}: {got} is not the printed {printed}"
    );
}

fn close(what: &str, got: f64, want: f64, rel: f64) {
    assert!(
        (got - want).abs() <= rel * want.abs().max(1e-300),
        "{what}: {got} against {want}"
    );
}

/// Lazowska et al., *Quantitative System Performance*, §7.4, p. 147: two
/// open classes and two closed ones over a CPU and a disk. The closed
/// classes see the p. 142 network (demands (1, 3) and (2, 4)), whose
/// figures are fractions over 19; the open ones follow by hand from
/// `D·(1 + Q_closed)/(1 − U_open)`.
#[test]
fn lazowska_mixed_example() {
    let s = MixedNetwork::new()
        .queue("cpu")
        .queue("disk")
        .open_class("a", 1.0, &[("cpu", 0.25), ("disk", 1.0 / 6.0)])
        .open_class("b", 0.5, &[("cpu", 0.5), ("disk", 1.0)])
        .closed_class("c", 1, &[("cpu", 0.5), ("disk", 1.0)])
        .closed_class("d", 1, &[("cpu", 1.0), ("disk", 4.0 / 3.0)])
        .solve()
        .unwrap();
    let q = |c: &str, k: &str| s.of(c, k).unwrap().queue_length;
    close("Q c cpu", q("c", "cpu"), 4.0 / 19.0, 1e-14);
    close("Q c disk", q("c", "disk"), 15.0 / 19.0, 1e-14);
    close("Q d cpu", q("d", "cpu"), 5.0 / 19.0, 1e-14);
    close("Q d disk", q("d", "disk"), 14.0 / 19.0, 1e-14);
    close("X c", s.throughput("c").unwrap(), 3.0 / 19.0, 1e-14);
    close("X d", s.throughput("d").unwrap(), 2.0 / 19.0, 1e-14);
    // Open: the CPU half busy with 9/19 closed jobs, the disk 2/3 with 29/19.
    let r = |c: &str, k: &str| s.residence_time(c, k).unwrap();
    close("R a cpu", r("a", "cpu"), 14.0 / 19.0, 1e-14);
    close("R b cpu", r("b", "cpu"), 28.0 / 19.0, 1e-14);
    close("R a disk", r("a", "disk"), 24.0 / 19.0, 1e-14);
    close("R b disk", r("b", "disk"), 144.0 / 19.0, 1e-14);
    close("R a", s.response_time("a").unwrap(), 38.0 / 19.0, 1e-14);
    // Utilization: the open classes' U = λD, the closed ones' X·D.
    close(
        "U cpu",
        s.utilization("cpu").unwrap(),
        0.5 + 3.5 / 19.0,
        1e-14,
    );
    assert_eq!(s.workload("a").unwrap(), Workload::Open(1.0));
}

/// Bolch et al., *Queueing Networks and Markov Chains*, example 8.6
/// (p. 345 of the 2nd edition): two open and two closed classes; visits
/// and service times, times printed per visit.
#[test]
fn bolch_example_8_6() {
    let v = [[2.0, 1.0], [2.5, 1.5], [1.0, 0.5], [1.0, 0.4]];
    let t = [[0.4, 0.6], [0.8, 1.6], [0.3, 0.5], [0.5, 0.8]];
    let d = |c: usize| [("1", v[c][0] * t[c][0]), ("2", v[c][1] * t[c][1])];
    let s = MixedNetwork::new()
        .queue("1")
        .queue("2")
        .open_class("o1", 0.5, &d(0))
        .open_class("o2", 0.25, &d(1))
        .closed_class("c1", 1, &d(2))
        .closed_class("c2", 1, &d(3))
        .solve()
        .unwrap();
    let names = ["o1", "o2", "c1", "c2"];
    let per_visit =
        |c: usize, k: usize| s.residence_time(names[c], ["1", "2"][k]).unwrap() / v[c][k];
    let fig = |c: usize, k: usize| *s.of(names[c], ["1", "2"][k]).unwrap();
    let u = [[0.4, 0.3], [0.5, 0.6]];
    let r = [
        [8.822, 10.766],
        [17.645, 28.710],
        [4.829, 6.951],
        [7.727, 11.636],
    ];
    let q = [
        [8.822, 5.383],
        [11.028, 10.766],
        [0.582, 0.418],
        [0.624, 0.376],
    ];
    for c in 0..4 {
        for k in 0..2 {
            if c < 2 {
                printed("U", fig(c, k).utilization, u[c][k], 3);
            }
            printed("R per visit", per_visit(c, k), r[c][k], 3);
            printed("Q", fig(c, k).queue_length, q[c][k], 3);
        }
    }
    printed("X c1", s.throughput("c1").unwrap(), 0.120, 3);
    printed("X c2", s.throughput("c2").unwrap(), 0.081, 3);
}

/// Schwetman, *Implementing the Mean Value Analysis for the Solution of
/// Queueing Network Models*, CSD-TR-355 (Purdue, 1982), figure 10: an
/// open class at the CPU beside 3 closed jobs at the CPU and a disk.
#[test]
fn schwetman_figure_10() {
    let s = MixedNetwork::new()
        .queue("cpu")
        .queue("disk")
        .open_class("open", 1.0, &[("cpu", 0.25)])
        .closed_class("closed", 3, &[("cpu", 0.25), ("disk", 0.10)])
        .solve()
        .unwrap();
    printed("U open", s.of("open", "cpu").unwrap().utilization, 0.25, 3);
    printed("X open", s.throughput("open").unwrap(), 1.0, 3);
    printed(
        "R open cpu",
        s.residence_time("open", "cpu").unwrap(),
        1.201,
        3,
    );
    printed(
        "R closed cpu",
        s.residence_time("closed", "cpu").unwrap(),
        0.885,
        3,
    );
    printed(
        "R closed disk",
        s.residence_time("closed", "disk").unwrap(),
        0.135,
        3,
    );
}

/// The largest relative differences between the solver and the product
/// form: closed throughputs, closed queue lengths (over the population),
/// open residence times.
fn against_product_form(net: &Net, s: &MixedSolution) -> [f64; 3] {
    let e = exact(net);
    let mut worst = [0.0f64; 3];
    for (c, (n, row)) in net.closed.iter().enumerate() {
        let name = format!("c{c}");
        let x = s.throughput(&name).unwrap();
        if *n > 0 {
            worst[0] = worst[0].max((x / e.x[c] - 1.0).abs());
        }
        for k in (0..row.len()).filter(|&k| row[k] > 0.0) {
            let q = s.of(&name, &station(k)).unwrap().queue_length;
            worst[1] = worst[1].max((q - e.closed[c][k]).abs() / (*n).max(1) as f64);
        }
    }
    for (c, (_, row)) in net.open.iter().enumerate() {
        for k in (0..row.len()).filter(|&k| row[k] > 0.0) {
            // The open jobs at k split by class as their loads do.
            let want = e.open[k] * row[k] / net.open_load(k);
            let got = s.residence_time(&format!("o{c}"), &station(k)).unwrap();
            worst[2] = worst[2].max((got / want - 1.0).abs());
        }
    }
    worst
}

#[test]
fn the_product_form_summed_state_by_state() {
    let mut rng = ChaCha8Rng::seed_from_u64(37);
    for i in 0..150 {
        let net = random_net(&mut rng, true);
        let s = net.build().solve().unwrap();
        let worst = against_product_form(&net, &s);
        assert!(
            worst.iter().all(|w| *w < 1e-6),
            "network {i}: {net:?}: {worst:?}"
        );
    }
}

/// Multi-server stations that both kinds of class visit: the open jobs
/// summed out of the closed classes' station, and the probe's time for
/// the open ones; exact, as queues are.
#[test]
fn shared_multi_server_stations_are_exact() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut seen = 0;
    while seen < 150 {
        let net = random_net(&mut rng, false);
        let meet = (0..net.kinds.len()).any(|k| {
            matches!(net.kinds[k], Kind::Servers(_))
                && net.closed.iter().any(|(n, r)| *n > 0 && r[k] > 0.0)
                && net.open.iter().any(|(_, r)| r[k] > 0.0)
        });
        if !meet {
            continue;
        }
        seen += 1;
        let worst = against_product_form(&net, &net.build().solve().unwrap());
        assert!(worst.iter().all(|w| *w < 1e-6), "{net:?}: {worst:?}");
    }
    // Many servers, three quarters busy with open work.
    let net = Net {
        kinds: vec![Kind::Servers(16), Kind::Queue, Kind::Delay],
        closed: vec![(3, vec![2.0, 0.3, 1.0]), (2, vec![5.0, 0.0, 0.5])],
        open: vec![(4.0, vec![2.0, 0.1, 0.0]), (2.0, vec![2.0, 0.0, 1.0])],
    };
    let s = net.build().solve().unwrap();
    let worst = against_product_form(&net, &s);
    assert!(worst.iter().all(|w| *w < 1e-6), "{worst:?}");
    close("U open", s.of("o0", "s0").unwrap().utilization, 0.5, 1e-12);
    // The approximation (the Linearizer on the load-dependent station the
    // closed classes see): 0.6571 for 0.7191, 8.6 % low.
    let a = net.build().solve_approx().unwrap();
    close(
        "X approx",
        a.throughput("c0").unwrap(),
        s.throughput("c0").unwrap(),
        0.1,
    );
}

/// The closed networks of the random ones, with a load-dependent station
/// added: as [`MultiClassNetwork`] and as [`MixedNetwork`].
fn closed_pair(net: &Net) -> (MultiClassNetwork, MixedNetwork) {
    let alpha = |n: usize| 1.0 + 0.3 * (n.min(3) as f64);
    let (mut a, mut b) = (MultiClassNetwork::new(), MixedNetwork::new());
    for (k, kind) in net.kinds.iter().enumerate() {
        (a, b) = match kind {
            Kind::Queue => (a.queue(station(k)), b.queue(station(k))),
            Kind::Delay => (a.delay(station(k)), b.delay(station(k))),
            Kind::Servers(c) => (
                a.multi_server(station(k), *c),
                b.multi_server(station(k), *c),
            ),
        };
    }
    a = a.load_dependent("net", alpha);
    b = b.load_dependent("net", alpha);
    let names: Vec<String> = (0..net.kinds.len()).map(station).collect();
    for (c, (n, row)) in net.closed.iter().enumerate() {
        let mut demands: Vec<(&str, f64)> = (row.iter().enumerate())
            .filter(|(_, d)| **d > 0.0)
            .map(|(k, d)| (names[k].as_str(), *d))
            .collect();
        demands.push(("net", 0.2 * (c + 1) as f64));
        a = a.class(format!("c{c}"), *n, &demands);
        b = b.closed_class(format!("c{c}"), *n, &demands);
    }
    (a, b)
}

#[test]
fn without_open_classes_it_is_the_closed_solver() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..100 {
        let net = random_net(&mut rng, false);
        let (closed, mixed) = closed_pair(&net);
        let pairs = [
            (closed.mva().unwrap(), mixed.solve().unwrap()),
            (closed.mva_approx().unwrap(), mixed.solve_approx().unwrap()),
        ];
        for (a, b) in &pairs {
            for class in a.classes() {
                assert_eq!(a.throughput(class).unwrap(), b.throughput(class).unwrap());
                assert_eq!(
                    a.response_time(class).unwrap(),
                    b.response_time(class).unwrap()
                );
                for st in a.stations() {
                    assert_eq!(
                        a.of(class, st).unwrap(),
                        b.of(class, st).unwrap(),
                        "{net:?}"
                    );
                }
            }
            for st in a.stations() {
                assert_eq!(a.station(st).unwrap(), b.station(st).unwrap());
            }
        }
    }
}

#[test]
fn without_closed_classes_it_is_the_open_solver() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..100 {
        let net = Net {
            closed: Vec::new(),
            ..random_net(&mut rng, false)
        };
        let mut open = OpenNetwork::new();
        for (k, kind) in net.kinds.iter().enumerate() {
            open = match kind {
                Kind::Queue => open.queue(station(k)),
                Kind::Delay => open.delay(station(k)),
                Kind::Servers(c) => open.multi_server(station(k), *c),
            };
        }
        let names: Vec<String> = (0..net.kinds.len()).map(station).collect();
        for (c, (rate, row)) in net.open.iter().enumerate() {
            let d: Vec<(&str, f64)> = (0..row.len())
                .map(|k| (names[k].as_str(), row[k]))
                .collect();
            open = open.class(format!("o{c}"), *rate, &d);
        }
        let (a, b) = (open.solve().unwrap(), net.build().solve().unwrap());
        for c in (0..net.open.len()).map(|c| format!("o{c}")) {
            assert_eq!(a.response_time(&c).unwrap(), b.response_time(&c).unwrap());
            for st in &names {
                assert_eq!(
                    a.of(&c, st).unwrap().residence_time,
                    b.residence_time(&c, st).unwrap()
                );
                assert_eq!(
                    a.of(&c, st).unwrap().queue_length,
                    b.of(&c, st).unwrap().queue_length
                );
            }
        }
        for st in &names {
            close(
                "U",
                b.utilization(st).unwrap(),
                a.utilization(st).unwrap(),
                1e-12,
            );
            close(
                "Q",
                b.queue_length(st).unwrap(),
                a.queue_length(st).unwrap(),
                1e-12,
            );
        }
        assert_eq!(a.headroom(), b.headroom());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Little's law per class and station, each closed class's jobs adding
    /// up to its population, the open ones to `λ·R`, and the utilization
    /// law, exact and approximate, shared multi-server stations and all.
    #[test]
    fn littles_law_and_the_utilization_law(seed in any::<u64>(), approx in any::<bool>()) {
        let net = random_net(&mut ChaCha8Rng::seed_from_u64(seed), false);
        let s = if approx { net.build().solve_approx() } else { net.build().solve() }.unwrap();
        for (c, (n, row)) in net.closed.iter().enumerate() {
            let name = format!("c{c}");
            let x = s.throughput(&name).unwrap();
            let mut jobs = 0.0;
            for (k, d) in row.iter().enumerate() {
                let f = s.of(&name, &station(k)).unwrap();
                prop_assert!((f.queue_length - f.throughput * f.residence_time).abs() < 1e-12);
                let servers = match net.kinds[k] {
                    Kind::Servers(c) => c as f64,
                    _ => 1.0,
                };
                prop_assert!((f.utilization - x * d / servers).abs() < 1e-12);
                jobs += f.queue_length;
            }
            prop_assert!((jobs - *n as f64).abs() < 1e-6 * (*n as f64).max(1.0), "{} of {}", jobs, n);
            if *n > 0 {
                prop_assert!((x * s.cycle_time(&name).unwrap() - *n as f64).abs() < 1e-6 * *n as f64);
            }
        }
        for (c, (rate, row)) in net.open.iter().enumerate() {
            let name = format!("o{c}");
            let jobs: f64 = (0..row.len()).map(|k| s.of(&name, &station(k)).unwrap().queue_length).sum();
            prop_assert!((jobs - rate * s.response_time(&name).unwrap()).abs() < 1e-9 * jobs.max(1.0));
            for k in (0..row.len()).filter(|&k| row[k] > 0.0) {
                // Never faster than its demand.
                prop_assert!(s.residence_time(&name, &station(k)).unwrap() >= row[k] * (1.0 - 1e-12));
            }
        }
        for k in 0..net.kinds.len() {
            let st = s.station(&station(k)).unwrap();
            let sum: f64 = s.classes().map(|c| s.of(c, &station(k)).unwrap().utilization).sum();
            prop_assert!((st.utilization - sum).abs() < 1e-12);
            // (Approximations may load a station past 1: not capped.)
            if !approx && !matches!(net.kinds[k], Kind::Delay) {
                prop_assert!(st.utilization < 1.0 + 1e-9, "{}", st.utilization);
            }
        }
    }
}

#[test]
fn saturation_and_bad_input_are_errors() {
    let base = || {
        MixedNetwork::new()
            .queue("cpu")
            .multi_server("disks", 2)
            .closed_class("users", 3, &[("cpu", 0.1), ("disks", 0.2)])
    };
    // 2.5 jobs a second of 0.9 at 2 disks: 1.125 busy each.
    let e = base()
        .open_class("web", 2.5, &[("disks", 0.9)])
        .solve()
        .unwrap_err();
    assert!(
        matches!(&e, QueueError::Saturated { station, servers: 2, .. } if station == "disks"),
        "{e}"
    );
    assert!(
        e.to_string().contains("`disks` is saturated") && e.to_string().contains("1.1250"),
        "{e}"
    );
    // Just under: solved, and the headroom says by how much.
    let s = base()
        .open_class("web", 2.2, &[("disks", 0.9)])
        .solve()
        .unwrap();
    let (factor, at) = s.headroom();
    assert_eq!(at, "disks");
    close("headroom", factor, 2.0 / (2.2 * 0.9), 1e-12);
    let bad: Vec<(MixedNetwork, &str)> = vec![
        (
            base().open_class("web", -1.0, &[("cpu", 0.1)]),
            "the arrival rate of `web` is -1",
        ),
        (
            base().open_class("web", f64::NAN, &[("cpu", 0.1)]),
            "the arrival rate of `web` is NaN",
        ),
        (
            base().open_class("web", 1.0, &[("gpu", 0.1)]),
            "no station is named `gpu`",
        ),
        (
            base().open_class("web", 1.0, &[("cpu", -0.1)]),
            "the demand of `cpu` is -0.1",
        ),
        (
            base().open_class("users", 1.0, &[("cpu", 0.1)]),
            "two classes are named `users`",
        ),
        (
            MixedNetwork::new().closed_class("a", 1, &[]),
            "the network has no station",
        ),
        (MixedNetwork::new().queue("cpu"), "at least one class"),
        (
            MixedNetwork::new()
                .queue("cpu")
                .queue("cpu")
                .open_class("a", 1.0, &[]),
            "two stations are named `cpu`",
        ),
        (
            MixedNetwork::new()
                .multi_server("cpu", 0)
                .open_class("a", 1.0, &[]),
            "`cpu` has 0 servers",
        ),
        (
            MixedNetwork::new()
                .load_dependent("net", |n: usize| n as f64)
                .open_class("a", 1.0, &[("net", 0.1)]),
            "the open class `a` visits `net`, a load-dependent station",
        ),
        (
            MixedNetwork::new()
                .queue("cpu")
                .closed_class("a", 0, &[("cpu", 1.0)]),
            "at least one class with a population >= 1",
        ),
        (
            MixedNetwork::new()
                .queue("cpu")
                .closed_class("a", 2, &[])
                .open_class("b", 1.0, &[("cpu", 0.1)]),
            "every demand is 0",
        ),
    ];
    for (net, want) in bad {
        let e = net.solve().unwrap_err().to_string();
        assert!(e.contains(want), "{e} (wanted {want})");
    }
    // Asked of a solution: unknown names.
    assert!(
        s.throughput("batch")
            .unwrap_err()
            .to_string()
            .contains("no class is named `batch`")
    );
    assert!(
        s.utilization("gpu")
            .unwrap_err()
            .to_string()
            .contains("no station is named `gpu`")
    );
    // The exact solver's budget, as the closed solver's.
    let big = MixedNetwork::new()
        .queue("cpu")
        .closed_class("a", 500, &[("cpu", 1.0)])
        .closed_class("b", 500, &[("cpu", 1.0)])
        .closed_class("c", 500, &[("cpu", 1.0)])
        .open_class("o", 0.1, &[("cpu", 1.0)]);
    assert!(matches!(
        big.solve(),
        Err(QueueError::BeyondExactClasses { .. })
    ));
    let approx = big
        .solve_approx_with(&MultiClassApproximation::default())
        .unwrap();
    assert!(approx.throughput("a").unwrap() > 0.0);
}

#[test]
fn open_classes_slow_the_closed_ones() {
    // More open load, fewer closed cycles; an open class of rate 0 changes nothing.
    let net = |rate: f64| {
        MixedNetwork::new()
            .queue("cpu")
            .delay("think")
            .closed_class("users", 5, &[("cpu", 0.2), ("think", 1.0)])
            .open_class("web", rate, &[("cpu", 0.1)])
            .solve()
            .unwrap()
    };
    let x: Vec<f64> = [0.0, 2.0, 4.0, 8.0]
        .iter()
        .map(|r| net(*r).throughput("users").unwrap())
        .collect();
    assert!(x.windows(2).all(|w| w[1] < w[0]), "{x:?}");
    let alone = MultiClassNetwork::new()
        .queue("cpu")
        .delay("think")
        .class("users", 5, &[("cpu", 0.2), ("think", 1.0)])
        .mva()
        .unwrap();
    assert_eq!(x[0], alone.throughput("users").unwrap());
}

/// jmva fuzz input 99667 (seed 20261123): 100,000 closed jobs and an open
/// class over three 7-server stations and a delay.
fn many_jobs(population: usize) -> MixedNetwork {
    MixedNetwork::new()
        .multi_server("s0", 7)
        .delay("s1")
        .multi_server("s2", 7)
        .multi_server("s3", 7)
        .closed_class(
            "c0",
            population,
            &[("s0", 1.74), ("s1", 0.963), ("s2", 1.236), ("s3", 0.601)],
        )
        .open_class(
            "c1",
            1.1346,
            &[("s0", 0.1436), ("s1", 0.0196), ("s2", 1.797), ("s3", 0.840)],
        )
}

/// With 100,000 jobs the closed class saturates `s0`, which the open
/// class leaves `7 − U` servers: its throughput is `(7 − U)/D` to within
/// the approximations' error. Both finish (they summed the shared
/// stations' rates job by job before: 30 s and 8.5 s in a debug build).
#[test]
fn a_large_closed_population_at_shared_stations() {
    use pattern_core::queue::Method;
    let bound = (7.0 - 1.1346 * 0.1436) / 1.74;
    for method in [Method::Linearizer, Method::SchweitzerBard] {
        let settings = MultiClassApproximation {
            method,
            ..Default::default()
        };
        let s = many_jobs(100_000).solve_approx_with(&settings).unwrap();
        let x = s.throughput("c0").unwrap();
        assert!(x <= bound * (1.0 + 1e-12), "{method:?}: {x} over {bound}");
        close(&format!("{method:?} X"), x, bound, 1e-7);
        let jobs: f64 = ["s0", "s1", "s2", "s3"]
            .iter()
            .map(|k| s.of("c0", k).unwrap().queue_length)
            .sum();
        close(&format!("{method:?} jobs"), jobs, 1e5, 1e-8);
        // An open job at s0 waits behind nearly all of them.
        let r = s.residence_time("c1", "s0").unwrap();
        assert!(r.is_finite() && r > 0.1436 * 1e4, "{method:?}: {r}");
    }
}

/// A general station whose rates stay the same from `f` jobs on has its
/// marginals' tail summed in closed form; the same rates with a jitter of
/// 1e-14 in the tail take the job-by-job sums. Both agree.
#[test]
fn flat_rates_sum_their_tail_in_closed_form() {
    use pattern_core::queue::Method;
    let head = [0.6, 1.5, 2.2, 2.9];
    let rate = move |jitter: f64| {
        move |j: usize| match head.get(j - 1) {
            Some(a) => *a,
            None => 3.2 * (1.0 + jitter * (j % 2) as f64),
        }
    };
    for method in [Method::Linearizer, Method::SchweitzerBard] {
        let settings = MultiClassApproximation {
            method,
            ..Default::default()
        };
        let solve = |jitter: f64| {
            MultiClassNetwork::new()
                .load_dependent("ld", rate(jitter))
                .queue("q")
                .delay("z")
                .class("a", 300, &[("ld", 0.5), ("q", 0.2), ("z", 9.0)])
                .class("b", 2, &[("ld", 0.3), ("q", 0.4)])
                .mva_approx_with(&settings)
                .unwrap()
        };
        let (flat, jittered) = (solve(0.0), solve(1e-14));
        for class in ["a", "b"] {
            let (x, y) = (
                flat.throughput(class).unwrap(),
                jittered.throughput(class).unwrap(),
            );
            close(&format!("{method:?} X {class}"), x, y, 1e-9);
            for k in ["ld", "q"] {
                let (p, q) = (flat.of(class, k).unwrap(), jittered.of(class, k).unwrap());
                close(
                    &format!("{method:?} Q {class} {k}"),
                    p.queue_length,
                    q.queue_length,
                    1e-9,
                );
                close(
                    &format!("{method:?} U {class} {k}"),
                    p.utilization,
                    q.utilization,
                    1e-9,
                );
            }
        }
    }
}

/// A shared station's rates take time in its servers: beyond 10,000,000
/// it is refused at once, naming the station and the way out; at the
/// limit it is solved (the closed class alone there: its jobs in service).
#[test]
fn too_many_shared_servers_are_refused() {
    let net = |servers: usize| {
        MixedNetwork::new()
            .multi_server("farm", servers)
            .closed_class("batch", 2, &[("farm", 1.0)])
            .open_class("web", 3.0, &[("farm", 1.0)])
    };
    let e = net(10_000_001).solve_approx().unwrap_err().to_string();
    for part in [
        "10000001",
        "`farm`",
        "at most 10,000,000",
        "fewer",
        "station of their own",
    ] {
        assert!(e.contains(part), "{part}: {e}");
    }
    assert!(net(usize::MAX).solve().is_err());
    let s = net(3_000_000).solve().unwrap();
    close("X", s.throughput("batch").unwrap(), 2.0, 1e-9);
    close("R web", s.residence_time("web", "farm").unwrap(), 1.0, 1e-9);
}
