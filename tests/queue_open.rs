//! Open queueing networks (`queue::OpenNetwork`): M/M/1 and M/M/m against
//! their birth-death chains summed state by state, several classes, the
//! saturation rate, and clear errors.

use pattern_core::queue::{OpenNetwork, OpenStation, QueueError};
use proptest::prelude::*;

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(b.abs())
}

/// The mean number in an M/M/m system with `a = λ/μ` busy servers on
/// average, from its birth-death chain: `p_n ∝ a^n/n!` below `m`,
/// `a^m/m!·ρ^(n−m)` from `m` on, summed until the terms vanish.
fn mmm_jobs(m: usize, a: f64) -> f64 {
    let rho = a / m as f64;
    let (mut weight, mut total, mut mean) = (1.0f64, 0.0f64, 0.0f64);
    let mut n = 0usize;
    loop {
        total += weight;
        mean += n as f64 * weight;
        n += 1;
        weight *= if n <= m { a / n as f64 } else { rho };
        if n > m && weight < 1e-18 * total {
            break;
        }
    }
    mean / total
}

#[test]
fn one_server_is_m_m_1() {
    let s = OpenNetwork::new()
        .queue("cpu")
        .class("a", 0.5, &[("cpu", 1.0)])
        .solve()
        .unwrap();
    assert!(close(s.residence_time("a", "cpu").unwrap(), 2.0, 1e-15));
    assert!(close(s.queue_length("cpu").unwrap(), 1.0, 1e-15));
    assert!(close(s.utilization("cpu").unwrap(), 0.5, 1e-15));
    assert_eq!(s.headroom(), (2.0, "cpu"));
}

#[test]
fn two_servers_at_half_load_wait_a_third() {
    // M/M/2, λ = 1, service 1: C(2, 1) = 1/3, W = 1 + (1/3)/(2 − 1).
    let s = OpenNetwork::new()
        .multi_server("pair", 2)
        .class("a", 1.0, &[("pair", 1.0)])
        .solve()
        .unwrap();
    assert!(close(
        s.residence_time("a", "pair").unwrap(),
        4.0 / 3.0,
        1e-15
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Every M/M/m, against its chain summed state by state.
    #[test]
    fn many_servers_agree_with_the_chain(m in 1usize..64, load in 0.01f64..0.97, service in 1e-3f64..1e3) {
        let a = load * m as f64;
        let s = OpenNetwork::new()
            .multi_server("s", m)
            .class("a", a / service, &[("s", service)])
            .solve()
            .unwrap();
        let want = mmm_jobs(m, a);
        let got = s.queue_length("s").unwrap();
        prop_assert!(close(got, want, 1e-10), "m = {m}, a = {a}: {got} against {want}");
        prop_assert!(close(s.utilization("s").unwrap(), load, 1e-12));
    }

    /// Rates a hair under the headroom are solved; a hair over, the
    /// station it names saturates.
    #[test]
    fn the_headroom_is_where_it_breaks(
        r1 in 0.01f64..5.0, r2 in 0.01f64..5.0,
        d in proptest::collection::vec(0.0f64..1.0, 6),
        m in 1usize..5,
    ) {
        let net = |scale: f64| OpenNetwork::new()
            .queue("cpu")
            .multi_server("disks", m)
            .delay("wire")
            .class("read", r1 * scale, &[("cpu", d[0]), ("disks", d[1]), ("wire", d[2])])
            .class("write", r2 * scale, &[("cpu", d[3]), ("disks", d[4] + 0.01), ("wire", d[5])]);
        let s = net(1e-3).solve().unwrap();
        let (factor, station) = s.headroom();
        let station = station.to_string();
        prop_assert!(net(1e-3 * factor * (1.0 - 1e-9)).solve().is_ok());
        match net(1e-3 * factor * (1.0 + 1e-9)).solve() {
            Err(QueueError::Saturated { station: s, utilization, .. }) => {
                prop_assert_eq!(s, station);
                prop_assert!(utilization >= 1.0);
            }
            other => prop_assert!(false, "{other:?}"),
        }
        // Little's law, class by class, and the utilization law.
        let jobs: f64 = ["cpu", "disks", "wire"].iter().map(|k| s.queue_length(k).unwrap()).sum();
        let by_class = r1 * 1e-3 * s.response_time("read").unwrap()
            + r2 * 1e-3 * s.response_time("write").unwrap();
        prop_assert!(close(jobs, by_class, 1e-12) && close(jobs, s.jobs(), 1e-12));
        let busy = (r1 * d[1] + r2 * (d[4] + 0.01)) * 1e-3 / m as f64;
        prop_assert!(close(s.utilization("disks").unwrap(), busy, 1e-12));
    }
}

#[test]
fn classes_share_a_queue_each_stretched_alike() {
    // ρ = 0.2·1 + 0.5·1 = 0.7: every demand stretched by 1/0.3.
    let s = OpenNetwork::new()
        .queue("cpu")
        .delay("think")
        .class("batch", 0.2, &[("cpu", 1.0), ("think", 5.0)])
        .class("web", 5.0, &[("cpu", 0.1)])
        .solve()
        .unwrap();
    assert!(close(
        s.residence_time("batch", "cpu").unwrap(),
        1.0 / 0.3,
        1e-14
    ));
    assert!(close(
        s.residence_time("web", "cpu").unwrap(),
        0.1 / 0.3,
        1e-14
    ));
    assert!(close(
        s.response_time("batch").unwrap(),
        1.0 / 0.3 + 5.0,
        1e-14
    ));
    assert_eq!(s.residence_time("web", "think").unwrap(), 0.0);
    // A delay's utilization is the jobs it serves.
    assert!(close(s.utilization("think").unwrap(), 1.0, 1e-15));
    assert!(close(s.of("batch", "cpu").unwrap().utilization, 0.2, 1e-15));
}

#[test]
fn bad_networks_are_clear_errors() {
    let msg = |net: OpenNetwork| net.solve().unwrap_err().to_string();
    let one = || OpenNetwork::new().queue("cpu");
    assert_eq!(
        msg(one().class("a", 2.0, &[("cpu", 0.6)])),
        "`cpu` is saturated: the arrivals keep it 1.2000 busy (its 1 server(s) at most 1 each); lower the rates below 0.8333333333333334x"
    );
    assert_eq!(
        msg(one().class("a", 1.0, &[("gpu", 0.1)])),
        "no station is named `gpu` (stations: cpu)"
    );
    assert_eq!(
        msg(one().class("a", f64::NAN, &[("cpu", 0.1)])),
        "the arrival rate of `a` is NaN: a rate is a finite number >= 0"
    );
    assert_eq!(
        msg(one().class("a", 1.0, &[("cpu", -0.1)])),
        "the demand of `cpu` is -0.1: a demand is a finite number >= 0 (visits × service time)"
    );
    assert_eq!(
        msg(one().class("a", 1.0, &[]).class("a", 1.0, &[])),
        "two classes are named `a` (classes: a, a)"
    );
    assert!(msg(one()).contains("at least one class"));
    assert!(msg(OpenNetwork::new()).contains("no station"));
    let zero = OpenNetwork::new()
        .station("s", OpenStation::MultiServer(0))
        .class("a", 1.0, &[]);
    assert_eq!(
        msg(zero),
        "`s` has 0 servers: a multi-server station needs at least 1"
    );
    let s = one().class("a", 0.5, &[("cpu", 1.0)]).solve().unwrap();
    assert!(matches!(
        s.residence_time("b", "cpu"),
        Err(QueueError::Class { .. })
    ));
    assert!(matches!(
        s.utilization("gpu"),
        Err(QueueError::UnknownStation { .. })
    ));
}
