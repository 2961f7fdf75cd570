//! Multi-class MVA (`pattern_core::queue::MultiClassNetwork`): the figures
//! published for textbook networks, the product form summed state by state,
//! the single-class solver, the laws every solution obeys, the
//! approximation's error against exact MVA, and the errors. Run with
//! `--nocapture` to see the approximation's error table.

mod common;
#[path = "queue/multiclass_networks.rs"]
mod networks;

use networks::{
    Kind, Spec, approx_errors, build, check_laws, class_name, close, random_spec, single_class,
    station_name,
};
use pattern_core::queue::{
    MAX_MULTICLASS_STEPS, Method, MultiClassApproximation, MultiClassNetwork, MultiClassSolution,
    MultiServer, Network, QueueError,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

// (a) Published figures

/// `value` agrees with `printed` to within one unit of its last printed
/// digit (`digits` after the point), as in `tests/queue_published.rs`.
fn printed(what: &str, value: f64, printed: f64, digits: i32) {
    assert!(
        (value - printed).abs() <= 10f64.powi(-digits) + 1e-12,
        "{what}: {value} vs the printed {printed}"
    );
}

/// Figures of class `class` at the stations `names`: queue lengths,
/// residence times, utilizations.
fn row(s: &MultiClassSolution, class: &str, names: &[&str]) -> [Vec<f64>; 3] {
    let f: Vec<_> = names.iter().map(|n| *s.of(class, n).unwrap()).collect();
    [
        f.iter().map(|f| f.queue_length).collect(),
        f.iter().map(|f| f.residence_time).collect(),
        f.iter().map(|f| f.utilization).collect(),
    ]
}

#[test]
fn lazowska_two_classes_over_a_cpu_and_a_disk() {
    // Lazowska et al., Quantitative System Performance, p. 142, as the
    // Octave queueing package's tests quote it (S = [1/10 1/3; 2/5 1],
    // V = [10 9; 5 4], N = (1, 1)): figures in exact fractions.
    let net = MultiClassNetwork::new()
        .queue("cpu")
        .queue("disk")
        .class("a", 1, &[("cpu", 10.0 / 10.0), ("disk", 9.0 / 3.0)])
        .class("b", 1, &[("cpu", 5.0 * 2.0 / 5.0), ("disk", 4.0)]);
    let s = net.mva().unwrap();
    let want = [
        ("a", [4.0 / 19.0, 15.0 / 19.0], [4.0 / 3.0, 5.0], 3.0 / 19.0),
        ("b", [5.0 / 19.0, 14.0 / 19.0], [5.0 / 2.0, 7.0], 2.0 / 19.0),
    ];
    for (class, q, r, x) in want {
        let [got_q, got_r, _] = row(&s, class, &["cpu", "disk"]);
        for k in 0..2 {
            assert!(close(got_q[k], q[k], 1e-14), "{class} Q: {got_q:?}");
            assert!(close(got_r[k], r[k], 1e-14), "{class} R: {got_r:?}");
        }
        assert!(close(s.throughput(class).unwrap(), x, 1e-14));
    }
}

/// Schwetman, Implementing the Mean Value Algorithm for the Solution of
/// Queueing Network Models, CSD-TR-355, Purdue, 1982: a terminal class
/// (think 1) and a batch class (think 15) sharing one processor.
fn schwetman(n1: usize, n2: usize) -> MultiClassSolution {
    MultiClassNetwork::new()
        .delay("apl")
        .delay("ims")
        .queue("sys")
        .class("1", n1, &[("apl", 1.0), ("sys", 0.025)])
        .class("2", n2, &[("ims", 15.0), ("sys", 0.5)])
        .mva()
        .unwrap()
}

#[test]
fn schwetman_tables_3_and_5() {
    let s = schwetman(2, 1);
    printed("R(1, sys)", s.residence_time("1", "sys").unwrap(), 0.027, 3);
    printed("R(2, sys)", s.residence_time("2", "sys").unwrap(), 0.525, 3);
    printed("X(1)", s.throughput("1").unwrap(), 1.949, 3);
    printed("X(2)", s.throughput("2").unwrap(), 0.064, 3);
    for (station, q) in [("apl", 1.949), ("ims", 0.966), ("sys", 0.085)] {
        printed(station, s.queue_length(station).unwrap(), q, 3);
    }
    let s = schwetman(15, 5);
    // The report prints X(1) = 14.3; the package 14.323.
    printed("X(1)", s.throughput("1").unwrap(), 14.3, 1);
    printed("X(2)", s.throughput("2").unwrap(), 0.314, 3);
    let [q, r, u] = row(&s, "1", &["apl", "sys"]);
    printed("Q(1, apl)", q[0], 14.3, 1);
    for (what, got, want) in [("Q", q[1], 0.677), ("R", r[1], 0.047), ("U", u[1], 0.358)] {
        printed(&format!("{what}(1, sys)"), got, want, 3);
    }
    let [q, r, u] = row(&s, "2", &["ims", "sys"]);
    printed("Q(2, ims)", q[0], 4.707, 3);
    printed("U(2, ims)", u[0], 4.707, 3);
    for (what, got, want) in [("Q", q[1], 0.293), ("R", r[1], 0.934), ("U", u[1], 0.157)] {
        printed(&format!("{what}(2, sys)"), got, want, 3);
    }
}

#[test]
fn bolch_example_with_two_servers_and_a_delay() {
    // Bolch et al., Queueing Networks and Markov Chains, Example p. 337 as
    // the Octave package quotes it: S = [0.2 0.4 1; 0.2 0.6 2], V =
    // [1 0.6 0.4; 1 0.3 0.7], 2 servers, 1 server, infinite servers,
    // N = (2, 1).
    let net = MultiClassNetwork::new()
        .multi_server("s1", 2)
        .queue("s2")
        .delay("s3")
        .class("1", 2, &[("s1", 0.2), ("s2", 0.4 * 0.6), ("s3", 0.4)])
        .class("2", 1, &[("s1", 0.2), ("s2", 0.6 * 0.3), ("s3", 2.0 * 0.7)]);
    let s = net.mva().unwrap();
    let names = ["s1", "s2", "s3"];
    for (class, want, x) in [
        ("1", [0.428, 0.726, 0.845], 2.113),
        ("2", [0.108, 0.158, 0.734], 0.524),
    ] {
        let [q, _, _] = row(&s, class, &names);
        for k in 0..3 {
            printed(&format!("Q({class}, {})", names[k]), q[k], want[k], 3);
        }
        printed(&format!("X({class})"), s.throughput(class).unwrap(), x, 3);
    }
}

#[test]
fn jmt_figures_for_schwetman_figure_7() {
    // The network of Schwetman's "Testing network-of-queues software"
    // (CSD-TR 330, fig. 7) as solved by JMT's JMVA, quoted by the Octave
    // package (its printed table is wrong, the package says): 4 digits.
    let (v, s) = (
        [[1.0, 0.45, 0.5, 0.0], [1.0, 0.0, 0.5, 0.49]],
        [[0.01, 0.09, 0.10, 0.08], [0.05, 0.09, 0.10, 0.08]],
    );
    let names = ["k1", "k2", "k3", "k4"];
    let queues = MultiClassNetwork::new().queue("k1").queue("k2");
    let mut net = queues.queue("k3").queue("k4");
    for (c, pop) in [(0, 3), (1, 2)] {
        let demands: Vec<(&str, f64)> = (0..4).map(|k| (names[k], v[c][k] * s[c][k])).collect();
        net = net.class(format!("{}", c + 1), pop, &demands);
    }
    let sol = net.mva().unwrap();
    let want_u = [[0.1215, 0.4921, 0.6075, 0.0], [0.3433, 0.0, 0.3433, 0.2691]];
    let want_q = [[0.2131, 0.7539, 2.0328, 0.0], [0.5011, 0.0, 1.1839, 0.3149]];
    let want_r = [[0.0175, 0.0620, 0.1672, 0.0], [0.0729, 0.0, 0.1724, 0.0458]];
    for (c, class) in ["1", "2"].iter().enumerate() {
        let [q, r, u] = row(&sol, class, &names);
        for k in 0..4 {
            printed("U", u[k], want_u[c][k], 4);
            printed("Q", q[k], want_q[c][k], 4);
            printed("R", r[k], want_r[c][k], 4);
        }
    }
    printed("X(1)", sol.throughput("1").unwrap(), 12.1517, 4);
    printed("X(2)", sol.throughput("2").unwrap(), 6.8669, 4);
}

// (b) The product form, state by state

/// Every way to put `n` jobs at `k` stations.
fn compositions(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    let mut head = vec![0usize; k - 1];
    loop {
        let used: usize = head.iter().sum();
        if used <= n {
            let mut v = head.clone();
            v.push(n - used);
            all.push(v);
        }
        // The next head in [0, n]^(k − 1), as an odometer.
        let Some(i) = head.iter().position(|&h| h < n) else {
            return all;
        };
        head[..i].fill(0);
        head[i] += 1;
    }
}

fn factorial(n: usize) -> f64 {
    (1..=n).map(|i| i as f64).product()
}

/// Station `k`'s product-form factor with `m[c]` jobs of each class:
/// `|m|! / Π_{j≤|m|} α(j) · Π_c D_c^{m_c} / m_c!`.
fn factor(spec: &Spec, k: usize, m: &[usize]) -> f64 {
    let total: usize = m.iter().sum();
    let mut f = factorial(total)
        / (1..=total)
            .map(|j| spec.stations[k].alpha(j))
            .product::<f64>();
    for (c, &jobs) in m.iter().enumerate() {
        f *= spec.classes[c].1[k].powi(jobs as i32) / factorial(jobs);
    }
    f
}

/// Calls `visit(m, weight)` for every state at the populations `pops`,
/// `m[k][c]` the class-`c` jobs at station `k`.
fn states(spec: &Spec, pops: &[usize], mut visit: impl FnMut(&[Vec<usize>], f64)) {
    let k_all = spec.stations.len();
    let per_class: Vec<Vec<Vec<usize>>> = pops.iter().map(|&n| compositions(n, k_all)).collect();
    let mut pick = vec![0usize; pops.len()];
    let mut m = vec![vec![0usize; pops.len()]; k_all];
    loop {
        for (c, &p) in pick.iter().enumerate() {
            for k in 0..k_all {
                m[k][c] = per_class[c][p][k];
            }
        }
        let w: f64 = (0..k_all).map(|k| factor(spec, k, &m[k])).product();
        visit(&m, w);
        let Some(c) = (0..pops.len()).find(|&c| pick[c] + 1 < per_class[c].len()) else {
            return;
        };
        pick[..c].fill(0);
        pick[c] += 1;
    }
}

/// Throughputs `G(N − 1_c)/G(N)`, queue lengths `[c][k]` and busy
/// probabilities, from the states at `N`.
fn brute_force(spec: &Spec) -> (Vec<f64>, Vec<Vec<f64>>, Vec<f64>) {
    let pops: Vec<usize> = spec.classes.iter().map(|(n, _)| *n).collect();
    let (c_all, k_all) = (pops.len(), spec.stations.len());
    let mut g = 0.0;
    let mut q = vec![vec![0.0; k_all]; c_all];
    let mut busy = vec![0.0; k_all];
    states(spec, &pops, |m, w| {
        g += w;
        for k in 0..k_all {
            for c in 0..c_all {
                q[c][k] += w * m[k][c] as f64;
            }
            if m[k].iter().any(|&j| j > 0) {
                busy[k] += w;
            }
        }
    });
    q.iter_mut().flatten().for_each(|v| *v /= g);
    busy.iter_mut().for_each(|v| *v /= g);
    let x = (0..c_all)
        .map(|c| {
            if pops[c] == 0 {
                return 0.0;
            }
            let mut fewer = pops.clone();
            fewer[c] -= 1;
            let mut g_fewer = 0.0;
            states(spec, &fewer, |_, w| g_fewer += w);
            g_fewer / g
        })
        .collect();
    (x, q, busy)
}

#[test]
fn exact_mva_is_the_product_form_summed_state_by_state() {
    let mut rng = ChaCha8Rng::seed_from_u64(37);
    let mut load_dependent = 0;
    for case in 0..200 {
        let spec = random_spec(&mut rng, &[0, 1, 2, 3], 2..=4, 2..=3, 4);
        let s = build(&spec).mva().unwrap();
        let (x, q, busy) = brute_force(&spec);
        for (c, (pop, demands)) in spec.classes.iter().enumerate() {
            let class = class_name(c);
            let got = s.throughput(&class).unwrap();
            assert!(
                close(got, x[c], 1e-10) || *pop == 0,
                "case {case} {spec:?}: X {got} vs {}",
                x[c]
            );
            for k in 0..spec.stations.len() {
                let f = s.of(&class, &station_name(k)).unwrap();
                assert!(
                    close(f.queue_length, q[c][k], 1e-10)
                        || q[c][k] == 0.0 && f.queue_length == 0.0,
                    "case {case} {spec:?}: Q[{c}][{k}] {} vs {}",
                    f.queue_length,
                    q[c][k]
                );
                if let Kind::Load(_) = spec.stations[k] {
                    continue;
                }
                let u = x[c] * demands[k] / spec.stations[k].servers();
                assert!(close(f.utilization, u, 1e-10) || u == 0.0 && f.utilization == 0.0);
            }
        }
        for (k, kind) in spec.stations.iter().enumerate() {
            if let Kind::Load(_) = kind {
                load_dependent += 1;
                let u = s.utilization(&station_name(k)).unwrap();
                assert!(
                    close(u, busy[k], 1e-10) || busy[k] == 0.0,
                    "case {case}: busy {u} vs {}",
                    busy[k]
                );
            }
        }
    }
    assert!(load_dependent > 50, "{load_dependent} stations");
}

// (c) One class is the single-class solver

#[test]
fn one_class_is_the_single_class_mva() {
    let mut rng = ChaCha8Rng::seed_from_u64(2037);
    for case in 0..300 {
        let mut spec = random_spec(&mut rng, &[0, 1, 2, 3], 1..=5, 1..=1, 40);
        spec.classes[0].0 = spec.classes[0].0.max(1);
        let n = spec.classes[0].0;
        let multi = build(&spec).mva().unwrap();
        let single = single_class(&spec).mva(n).unwrap();
        let x = multi.throughput("c0").unwrap();
        assert!(
            close(x, single.throughput(), 1e-12),
            "case {case}: X {x} vs {}",
            single.throughput()
        );
        for (name, r) in single.stations() {
            let f = multi.of("c0", name).unwrap();
            for (what, got, want) in [
                ("Q", f.queue_length, r.queue_length),
                ("R", f.residence_time, r.residence_time),
                ("U", f.utilization, r.utilization),
            ] {
                assert!(
                    close(got, want, 1e-12) || got.abs().max(want.abs()) < 1e-300,
                    "case {case} {spec:?}, {name}: {what} {got} vs {want}"
                );
            }
        }
    }
}

/// Identical classes are one class of their summed population, here the
/// network of `tests/queue_exact.rs`'s stability case: a 300-server
/// station at 400 jobs, where the textbook recursion (the probability that
/// the station is empty by subtraction) gives a negative throughput.
#[test]
fn identical_classes_with_many_servers_are_one_class() {
    let demands = [("cpu", 1.0), ("disk", 0.002), ("think", 0.1)];
    let net = MultiClassNetwork::new()
        .multi_server("cpu", 300)
        .queue("disk")
        .delay("think")
        .class("a", 150, &demands)
        .class("b", 250, &demands);
    let s = net.mva().unwrap();
    // The single-class solution, checked there against all 80,601 states.
    let one = Network::new()
        .multi_server("cpu", 300, 1.0)
        .queue("disk", 0.002)
        .delay("think", 0.1)
        .mva(400)
        .unwrap();
    let (xa, xb) = (s.throughput("a").unwrap(), s.throughput("b").unwrap());
    assert!(close(xa + xb, one.throughput(), 1e-10), "{xa} + {xb}");
    assert!(close(xa / xb, 150.0 / 250.0, 1e-10));
    for name in ["cpu", "disk", "think"] {
        let (got, want) = (s.station(name).unwrap(), one.station(name).unwrap());
        assert!(close(got.queue_length, want.queue_length, 1e-9), "{name}");
        assert!(close(got.utilization, want.utilization, 1e-9), "{name}");
    }
}

// (d) Little's law and the utilization law

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    #[test]
    fn solutions_obey_little_and_the_utilization_law(seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let spec = random_spec(&mut rng, &[0, 1, 2, 3], 2..=4, 2..=3, 6);
        let net = build(&spec);
        check_laws(&spec, &net.mva().unwrap(), true)?;
        check_laws(&spec, &net.mva_approx().unwrap(), false)?;
        let bard = MultiClassApproximation { method: Method::SchweitzerBard, ..Default::default() };
        check_laws(&spec, &net.mva_approx_with(&bard).unwrap(), false)?;
    }
}

// (e) The approximation's error

#[test]
fn bard_schweitzer_error_against_exact_mva() {
    let marginals = MultiClassApproximation {
        method: Method::SchweitzerBard,
        ..Default::default()
    };
    let seidmann = MultiClassApproximation {
        multi_server: MultiServer::Seidmann,
        ..marginals
    };
    println!(
        "| networks | max X error | median X error | max X error, N_c >= 5 | max queue error / N_c |"
    );
    // The bounds (max, median, max queue error / N_c): the errors measured
    // (docs/queueing.md) with a margin.
    #[rustfmt::skip]
    let rows = [
        ("queues and delays", &[0u8, 1][..], &marginals, [0.25, 0.008, 0.055]),
        ("multi-server, Seidmann", &[0, 1, 2], &seidmann, [0.28, 0.022, 0.06]),
        ("multi-server, marginals (default)", &[0, 1, 2], &marginals, [0.24, 0.018, 0.05]),
        ("load-dependent, rising rates", &[0, 1, 4], &marginals, [0.18, 0.022, 0.055]),
        ("load-dependent, any rates", &[0, 1, 3], &marginals, [4.2, 0.03, 0.7]),
    ];
    for (what, kinds, settings, [max_bound, median_bound, q_bound]) in rows {
        let [max, median, large, q] = approx_errors(kinds, settings, 200, 8);
        let pct = |v: f64| format!("{:.2} %", 100.0 * v);
        println!(
            "| {what} | {} | {} | {} | {q:.3} |",
            pct(max),
            pct(median),
            pct(large)
        );
        assert!(max < max_bound, "{what}: {max}");
        assert!(median < median_bound, "{what}: {median}");
        assert!(q < q_bound, "{what}: {q}");
    }
}

#[test]
fn one_class_is_the_single_class_schweitzer_fixed_point() {
    let mut rng = ChaCha8Rng::seed_from_u64(4037);
    let mut compared = 0;
    for (kinds, multi_server) in [
        (&[0u8, 1, 2][..], MultiServer::Seidmann),
        (&[0, 1, 2, 4][..], MultiServer::Marginals),
    ] {
        let settings = MultiClassApproximation {
            multi_server,
            method: Method::SchweitzerBard,
            ..MultiClassApproximation::default()
        };
        let single_settings = pattern_core::queue::Approximation {
            multi_server,
            method: Method::SchweitzerBard,
            ..pattern_core::queue::Approximation::default()
        };
        for case in 0..100 {
            let mut spec = random_spec(&mut rng, kinds, 1..=5, 1..=1, 30);
            spec.classes[0].0 = spec.classes[0].0.max(1);
            let n = spec.classes[0].0;
            let single = single_class(&spec);
            let want = single.mva_approx_with(n, &single_settings).unwrap();
            // The single-class solver caps the throughput at its bound
            // (Schweitzer may pass it): compare where it does not.
            if want.throughput() >= single.bounds(n).unwrap().throughput_upper * (1.0 - 1e-9) {
                continue;
            }
            compared += 1;
            let got = build(&spec).mva_approx_with(&settings).unwrap();
            let x = got.throughput("c0").unwrap();
            assert!(
                close(x, want.throughput(), 1e-8),
                "case {case} {spec:?}: X {x} vs {}",
                want.throughput()
            );
        }
    }
    assert!(compared > 100, "{compared} compared");
}

// (f) Errors

fn two_queues() -> MultiClassNetwork {
    MultiClassNetwork::new().queue("cpu").queue("disk")
}

#[test]
fn exact_mva_past_its_budget_is_refused_at_once() {
    let demands = [("cpu", 1.0), ("disk", 2.0)];
    let net = (0..4).fold(two_queues(), |net, c| {
        net.class(format!("c{c}"), 60, &demands)
    });
    // 61^4 vectors × 4 classes × 2 queue lengths.
    let steps = 61f64.powi(4) * 4.0 * 2.0;
    assert_eq!(net.exact_steps().unwrap(), steps);
    let t = std::time::Instant::now();
    let err = net.mva().unwrap_err();
    assert!(t.elapsed().as_millis() < 100, "refused before it starts");
    assert_eq!(
        err,
        QueueError::BeyondExactClasses {
            populations: "[60, 60, 60, 60]".into(),
            vectors: 61f64.powi(4),
            steps,
            limit: MAX_MULTICLASS_STEPS,
        }
    );
    assert_eq!(
        err.to_string(),
        "exact multi-class MVA at the populations [60, 60, 60, 60] visits 13845841 population \
         vectors, about 1.1e8 steps (at most 1e8): use mva_approx (the Linearizer), or \
         mva_within with a higher limit"
    );
    // The approximation the message offers, and a higher limit.
    let a = net.mva_approx().unwrap();
    assert!((a.throughput("c0").unwrap() - 0.5 / 4.0).abs() < 1e-3);
    let small = two_queues().class("a", 3, &demands).class("b", 2, &demands);
    assert!(matches!(
        small.mva_within(10.0),
        Err(QueueError::BeyondExactClasses { .. })
    ));
    assert!(small.mva_within(small.exact_steps().unwrap()).is_ok());
}

#[test]
fn bad_input_is_an_error() {
    let fails = |net: MultiClassNetwork| net.mva().unwrap_err();
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let net = two_queues().class("a", 2, &[("cpu", 1.0), ("disk", bad)]);
        assert!(net.mva_approx().is_err());
        match fails(net) {
            QueueError::InvalidDemand { station, value } => {
                assert_eq!(station, "disk");
                assert!(value.is_nan() && bad.is_nan() || value == bad);
            }
            e => panic!("{e}"),
        }
    }
    let none = "at least one class with a population >= 1 (`class`)";
    #[rustfmt::skip]
    let cases = [
        (two_queues(), format!("the option `classes` is none: {none}")),
        (two_queues().class("a", 0, &[("cpu", 1.0)]), format!("the option `classes` is no jobs: {none}")),
        (two_queues().class("a", 1, &[("gpu", 1.0)]), "no station is named `gpu` (stations: cpu, disk)".into()),
        (two_queues().class("a", 1, &[("cpu", 1.0)]).class("a", 2, &[("cpu", 1.0)]),
            "two classes are named `a` (classes: a, a)".into()),
        (two_queues().class("a", 1, &[("cpu", 1.0)]).class("b", 2, &[("cpu", 0.0)]),
            "every demand is 0 (the throughput would be unbounded) of the class `b` (classes: a, b)".into()),
        (MultiClassNetwork::new().class("a", 1, &[]),
            "the network has no station: add one with `queue`, `multi_server`, `load_dependent` or `delay`".into()),
        (MultiClassNetwork::new().multi_server("cpu", 0).class("a", 1, &[("cpu", 1.0)]),
            "`cpu` has 0 servers: a multi-server station needs at least 1".into()),
    ];
    for (net, message) in cases {
        assert_eq!(net.mva_approx().unwrap_err().to_string(), message);
        assert_eq!(fails(net).to_string(), message);
    }
    let net = MultiClassNetwork::new()
        .load_dependent("net", |n| if n < 3 { 1.0 } else { 0.0 })
        .class("a", 4, &[("net", 1.0)]);
    assert!(matches!(
        fails(net),
        QueueError::InvalidRate { jobs: 3, .. }
    ));
    // A class of no jobs needs no demand; a solution knows its names.
    let net = two_queues()
        .class("a", 3, &[("cpu", 1.0)])
        .class("idle", 0, &[]);
    let s = net.mva().unwrap();
    assert_eq!(s.throughput("idle").unwrap(), 0.0);
    let err = s.throughput("b").unwrap_err().to_string();
    assert_eq!(err, "no class is named `b` (classes: a, idle)");
    assert!(matches!(
        s.of("a", "gpu"),
        Err(QueueError::UnknownStation { .. })
    ));
    let net = net.class("b", 2, &[("disk", 1.0)]);
    let bad = MultiClassApproximation {
        tolerance: 0.0,
        ..Default::default()
    };
    let err = net.mva_approx_with(&bad).unwrap_err();
    assert!(matches!(err, QueueError::InvalidOption { .. }));
    let tight = MultiClassApproximation {
        max_iterations: 1,
        ..Default::default()
    };
    let err = net.mva_approx_with(&tight).unwrap_err();
    assert!(matches!(err, QueueError::NoConvergence { .. }));
}
