//! Exact and approximate MVA against the figures textbooks print, as the
//! Octave `queueing` package's own tests quote them (Jain; Bolch et al.,
//! *Queueing Networks and Markov Chains*; Lazowska et al., *Quantitative
//! System Performance*). Every figure is checked to the digits printed:
//! within one unit of the last printed digit, the tolerance of the Octave
//! package's tests — the books round their intermediate steps (Example 8.4
//! prints X = 1.218; its product form, summed in exact rationals, is
//! 1.2174606338…, which is what `mva` gives to 1e-15).

use pattern_core::queue::{Approximation, Method, MultiServer, Network, Solution};

/// `value` agrees with `printed` to its last printed digit (`digits` after
/// the point).
fn printed(value: f64, printed: f64, digits: i32) -> bool {
    (value - printed).abs() <= 10f64.powi(-digits) + 1e-12
}

fn check(what: &str, got: &[f64], want: &[f64], digits: i32) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            printed(*g, *w, digits),
            "{what}[{i}]: {g} vs the printed {w}"
        );
    }
}

/// Per-station figures in the textbooks' terms: response time per visit
/// `R_k = residence/V_k`, station throughput `X_k = X·V_k`.
fn per_visit(
    s: &Solution,
    names: &[&str],
    visits: &[f64],
) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let r = names
        .iter()
        .zip(visits)
        .map(|(n, v)| s.residence_time(n).unwrap() / v)
        .collect();
    let q = names.iter().map(|n| s.queue_length(n).unwrap()).collect();
    let u = names.iter().map(|n| s.utilization(n).unwrap()).collect();
    let x = visits.iter().map(|v| s.throughput() * v).collect();
    (r, q, u, x)
}

#[test]
fn jain_example_with_think_time() {
    // Jain, The Art of Computer Systems Performance Analysis, the MVA
    // example: a CPU and two disks, 20 terminals thinking 4 s.
    let (s, v) = ([0.125, 0.3, 0.2], [16.0, 10.0, 5.0]);
    let net = Network::new()
        .queue("cpu", s[0] * v[0])
        .queue("disk a", s[1] * v[1])
        .queue("disk b", s[2] * v[2])
        .delay("think", 4.0);
    let sol = net.mva(20).unwrap();
    let (r, q, u, _) = per_visit(&sol, &["cpu", "disk a", "disk b"], &v);
    check("R", &r, &[0.373, 4.854, 0.300], 3);
    check("Q", &q, &[1.991, 16.177, 0.500], 3);
    assert!(u.iter().all(|u| (0.0..=1.0).contains(u)));
}

#[test]
fn bolch_example_8_3_single_servers() {
    // Bolch et al., Example 8.3 (p. 331): four single servers, K = 6.
    let (s, v) = ([0.02, 0.2, 0.4, 0.6], [1.0, 0.4, 0.2, 0.1]);
    let names = ["1", "2", "3", "4"];
    let net = (0..4).fold(Network::new(), |n, k| n.queue(names[k], s[k] * v[k]));
    let sol = net.mva(6).unwrap();
    let (r, q, u, x) = per_visit(&sol, &names, &v);
    check("U", &u, &[0.198, 0.794, 0.794, 0.595], 3);
    check("R", &r, &[0.025, 0.570, 1.140, 1.244], 3);
    check("Q", &q, &[0.244, 2.261, 2.261, 1.234], 3);
    check("X", &x, &[9.920, 3.968, 1.984, 0.992], 3);
}

#[test]
fn bolch_example_8_4_multi_server_and_delay() {
    // Bolch et al., Example 8.4 (p. 333): a 2-server station, two single
    // servers and an infinite server, K = 3.
    let v = [1.0, 0.5, 0.5, 1.0];
    let net = Network::new()
        .multi_server("1", 2, 0.5 * v[0])
        .queue("2", 0.6 * v[1])
        .queue("3", 0.8 * v[2])
        .delay("4", 1.0 * v[3]);
    let sol = net.mva(3).unwrap();
    let (r, q, _, x) = per_visit(&sol, &["1", "2", "3", "4"], &v);
    check("Q", &q, &[0.624, 0.473, 0.686, 1.217], 3);
    check("X", &x, &[1.218, 0.609, 0.609, 1.218], 3);
    assert!(
        (sol.throughput() - 1.2174606338449272).abs() < 1e-15,
        "the exact product form"
    );
    // Example 8.7 (p. 349) solves the same network with load-dependent
    // rates and prints the response times too.
    check("R", &r, &[0.512, 0.776, 1.127, 1.0], 3);
}

#[test]
fn bolch_example_8_7_load_dependent() {
    // Example 8.7: every station given by its rates μ(n), n = 1..3.
    let v = [1.0, 0.5, 0.5, 1.0];
    let rates: [[f64; 3]; 4] = [[2.0, 4.0, 4.0], [1.667; 3], [1.25; 3], [1.0, 2.0, 3.0]];
    let net = (0..4).fold(Network::new(), |net, k| {
        let mu = rates[k];
        // α(n)/D = μ(n)/V: D = V/μ(1), α(n) = μ(n)/μ(1).
        net.load_dependent(format!("{}", k + 1), v[k] / mu[0], move |n| {
            mu[n - 1] / mu[0]
        })
    });
    let sol = net.mva(3).unwrap();
    let (r, q, _, _) = per_visit(&sol, &["1", "2", "3", "4"], &v);
    check("Q", &q, &[0.624, 0.473, 0.686, 1.217], 3);
    check("R", &r, &[0.512, 0.776, 1.127, 1.0], 3);
}

#[test]
fn bolch_example_8_1_multi_servers() {
    // Bolch et al., Example 8.1 (p. 318, solved there by convolution):
    // 2, 3 and 1 servers, K = 3.
    let (s, v) = ([1.0 / 0.8, 1.0 / 0.6, 1.0 / 0.4], [1.0, 0.667, 0.2]);
    let net = Network::new()
        .multi_server("1", 2, s[0] * v[0])
        .multi_server("2", 3, s[1] * v[1])
        .queue("3", s[2] * v[2]);
    let sol = net.mva(3).unwrap();
    let (r, q, u, x) = per_visit(&sol, &["1", "2", "3"], &v);
    check("X", &x, &[0.945, 0.630, 0.189], 3);
    check("U", &u, &[0.590, 0.350, 0.473], 3);
    check("Q", &q, &[1.290, 1.050, 0.660], 3);
    check("R", &r, &[1.366, 1.667, 3.496], 3);
}

#[test]
fn lazowska_approximate_mva() {
    // Lazowska et al., QSP p. 117: Schweitzer's approximation, 3 users
    // thinking 15 s.
    let net = Network::new()
        .queue("cpu", 0.605)
        .queue("disk a", 2.1)
        .queue("disk b", 1.35)
        .delay("think", 15.0);
    let sol = net
        .mva_approx_with(
            3,
            &Approximation {
                multi_server: MultiServer::Marginals,
                method: Method::SchweitzerBard,
                ..Default::default()
            },
        )
        .unwrap();
    let q: Vec<f64> = ["cpu", "disk a", "disk b"]
        .iter()
        .map(|n| sol.queue_length(n).unwrap())
        .collect();
    check("Q", &q, &[0.0973, 0.4021, 0.2359], 4);
    assert!(printed(sol.throughput(), 0.1510, 4), "{}", sol.throughput());
    assert!(
        printed(sol.response_time(), 4.87, 2),
        "{}",
        sol.response_time()
    );
}

#[test]
fn asymptotic_bounds_as_printed() {
    // The Octave package's bound test: two stations of demands 9.2 and 8,
    // think time 120, N = 20: X ≤ 0.109, R ≥ 64.
    let b = Network::new()
        .queue("a", 4.6 * 2.0)
        .queue("b", 8.0)
        .delay("z", 120.0)
        .bounds(20)
        .unwrap();
    assert!(
        printed(b.throughput_upper, 0.109, 3),
        "{}",
        b.throughput_upper
    );
    assert!(printed(b.response_lower, 64.0, 3), "{}", b.response_lower);
}
