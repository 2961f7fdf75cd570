//! Exact and approximate MVA against the reports PDQ (Gunther's Pretty Damn
//! Quick analyzer) prints for its own example models, as they ship in the
//! PDQ package (`examples/ppa_1998`, `java/examples`, from *The Practical
//! Performance Analyst*). Exact figures are checked to one unit of the last
//! printed digit. PDQ's approximate solver stops iterating when queue
//! lengths change by less than 0.1 %; `mva_approx` solves the same
//! Schweitzer-Bard equations to their fixed point, which lies within 0.02 %
//! of PDQ's printed figures (X = 23.7477 against 23.7455, 8.7868 against
//! 8.7857), so they are checked to 1e-3 relative.

use pattern_core::queue::{Approximation, Method, Network};

fn near(what: &str, got: f64, printed: f64, digits: i32) {
    let tol = 10f64.powi(-digits) + 1e-12;
    assert!(
        (got - printed).abs() <= tol,
        "{what}: {got} vs PDQ's {printed}"
    );
}

fn within(what: &str, got: f64, printed: f64, relative: f64) {
    assert!(
        ((got - printed) / printed).abs() <= relative,
        "{what}: {got} vs PDQ's {printed} (more than {relative} apart)"
    );
}

/// `closed1.out`, "Time Share Computer": one CPU of demand 0.63 s, 100
/// terminals thinking 300 s, solved EXACT.
#[test]
fn pdq_time_share_computer() {
    let net = Network::new().queue("CPU", 0.63).delay("think", 300.0);
    let s = net.mva(100).unwrap();
    near("throughput", s.throughput(), 0.3325, 4);
    near("response time", s.response_time(), 0.7943, 4);
    near("concurrency", s.queue_length("CPU").unwrap(), 0.2641, 4);
    near(
        "utilization %",
        100.0 * s.utilization("CPU").unwrap(),
        20.9445,
        4,
    );
    near("residence", s.residence_time("CPU").unwrap(), 0.7943, 4);
    let b = net.bounds(100).unwrap();
    // PDQ prints the two asymptotes; the bound at N = 100 is the smaller.
    near("throughput bound", b.throughput_upper, 100.0 / 300.63, 12);
    near("min response", b.response_lower, 0.6300, 4);
    near("optimal clients", b.saturation, 477.1905, 4);
}

/// The Teradata DBC-10/12 of chapter 6: 15 IFPs (demand 0.1/15 s each,
/// printed 0.0067), 50 AMPs and 100 DSUs of 0.012 s, 300 users thinking
/// 10 s: 165 stations.
fn teradata() -> Network {
    let mut net = Network::new();
    for i in 0..15 {
        net = net.queue(format!("IFP{i}"), 0.1 / 15.0);
    }
    for i in 0..50 {
        net = net.queue(format!("AMP{i}"), 0.012);
    }
    for i in 0..100 {
        net = net.queue(format!("DSU{i}"), 0.012);
    }
    net.delay("think", 10.0)
}

/// `dbc_exact.out`: the same model solved EXACT.
#[test]
fn pdq_teradata_exact() {
    let net = teradata();
    let s = net.mva(300).unwrap();
    near("throughput", s.throughput(), 23.7494, 4);
    near("response time", s.response_time(), 2.6319, 4);
    let concurrency: f64 = s
        .stations()
        .filter(|(name, _)| *name != "think")
        .map(|(_, r)| r.queue_length)
        .sum();
    near("concurrency", concurrency, 62.5056, 4);
    for (name, u, q, r) in [
        ("IFP0", 15.8330, 0.1880, 0.0079),
        ("IFP14", 15.8330, 0.1880, 0.0079),
        ("AMP0", 28.4993, 0.3979, 0.0168),
        ("DSU99", 28.4993, 0.3979, 0.0168),
    ] {
        near(name, 100.0 * s.utilization(name).unwrap(), u, 4);
        near(name, s.queue_length(name).unwrap(), q, 4);
        near(name, s.residence_time(name).unwrap(), r, 4);
    }
    let b = net.bounds(300).unwrap();
    near("min response", b.response_lower, 1.9000, 4);
    near("optimal clients", b.saturation, 991.6667, 4);
}

/// `dbc_approx.out`: the same model solved APPROX (X = 23.7455 where exact
/// gives 23.7494).
#[test]
fn pdq_teradata_approximate() {
    let s = teradata().mva_approx(300).unwrap();
    within("throughput", s.throughput(), 23.7455, 2e-4);
    within(
        "AMP utilization",
        100.0 * s.utilization("AMP7").unwrap(),
        28.4946,
        1e-3,
    );
    within("AMP queue", s.queue_length("AMP7").unwrap(), 0.3982, 1e-3);
    within("IFP queue", s.queue_length("IFP9").unwrap(), 0.1879, 1e-3);
}

/// `Ch3_Closed.out`: one node of demand 0.1 s, 3 clients thinking 0.1 s,
/// solved APPROX (5 iterations to 0.1 %).
#[test]
fn pdq_closed_queue_approximate() {
    let net = Network::new().queue("node", 0.1).delay("think", 0.1);
    let schweitzer = Approximation {
        method: Method::SchweitzerBard,
        ..Default::default()
    };
    let s = net.mva_approx_with(3, &schweitzer).unwrap();
    within("throughput", s.throughput(), 8.7857, 2e-4);
    within("response time", s.response_time(), 0.2415, 1e-3);
    within(
        "queue length",
        s.queue_length("node").unwrap(),
        2.1214,
        1e-3,
    );
    within(
        "utilization %",
        100.0 * s.utilization("node").unwrap(),
        87.8571,
        1e-3,
    );
    near("optimal clients", net.bounds(3).unwrap().saturation, 2.0, 4);
}
