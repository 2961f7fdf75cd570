//! Random multi-class networks and what the multi-class tests check on
//! them (tests/queue_multiclass.rs, tests/queue_multiclass_linearizer.rs).
// Each test binary uses its own part of it.
#![allow(dead_code)]

use pattern_core::queue::{
    MultiClassApproximation, MultiClassNetwork, MultiClassSolution, Network,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// Random networks

/// A station of a random network.
#[derive(Clone, Debug)]
pub enum Kind {
    Queue,
    Delay,
    Multi(usize),
    /// `α(n) = rates[(n − 1) % len]`.
    Load(Vec<f64>),
}

/// Stations, and classes as (population, demand at each station).
#[derive(Clone, Debug)]
pub struct Spec {
    pub stations: Vec<Kind>,
    pub classes: Vec<(usize, Vec<f64>)>,
}

impl Kind {
    pub fn alpha(&self, j: usize) -> f64 {
        match self {
            Kind::Queue => 1.0,
            Kind::Delay => j as f64,
            Kind::Multi(c) => j.min(*c) as f64,
            Kind::Load(rates) => rates[(j - 1) % rates.len()],
        }
    }

    pub fn servers(&self) -> f64 {
        match self {
            Kind::Multi(c) => *c as f64,
            _ => 1.0,
        }
    }
}

pub fn station_name(k: usize) -> String {
    format!("s{k}")
}

pub fn class_name(c: usize) -> String {
    format!("c{c}")
}

pub fn build(spec: &Spec) -> MultiClassNetwork {
    let mut net = MultiClassNetwork::new();
    for (k, kind) in spec.stations.iter().enumerate() {
        let name = station_name(k);
        net = match kind {
            Kind::Queue => net.queue(name),
            Kind::Delay => net.delay(name),
            Kind::Multi(c) => net.multi_server(name, *c),
            Kind::Load(rates) => {
                let rates = rates.clone();
                net.load_dependent(name, move |n| rates[(n - 1) % rates.len()])
            }
        };
    }
    let names: Vec<String> = (0..spec.stations.len()).map(station_name).collect();
    for (c, (population, demands)) in spec.classes.iter().enumerate() {
        let list: Vec<(&str, f64)> = names
            .iter()
            .zip(demands)
            .map(|(n, d)| (n.as_str(), *d))
            .collect();
        net = net.class(class_name(c), *population, &list);
    }
    net
}

/// `kinds` picks what may appear (0 queue, 1 delay, 2 multi-server, 3
/// load-dependent of rates anywhere in 0.3–3, 4 of rates rising gently);
/// about a third of the demands are 0 (the class does not
/// visit), every class visits some station.
pub fn random_spec(
    rng: &mut ChaCha8Rng,
    kinds: &[u8],
    stations: std::ops::RangeInclusive<usize>,
    classes: std::ops::RangeInclusive<usize>,
    max_population: usize,
) -> Spec {
    let k_all = rng.random_range(stations);
    let stations: Vec<Kind> = (0..k_all)
        .map(|_| match kinds[rng.random_range(0..kinds.len())] {
            0 => Kind::Queue,
            1 => Kind::Delay,
            2 => Kind::Multi(rng.random_range(2..=4)),
            3 => Kind::Load(
                (0..rng.random_range(1..=4))
                    .map(|_| rng.random_range(0.3..3.0))
                    .collect(),
            ),
            _ => {
                // The single-class tests' rates: rising by up to 30 % a
                // job for the first 5 jobs (tests/queue_approx.rs).
                let a = rng.random_range(0.0..0.3);
                Kind::Load((0..64).map(|j| 1.0 + a * j.min(4) as f64).collect())
            }
        })
        .collect();
    let c_all = rng.random_range(classes);
    let mut classes: Vec<(usize, Vec<f64>)> = (0..c_all)
        .map(|_| {
            let mut demands: Vec<f64> = (0..k_all)
                .map(|_| {
                    if rng.random_bool(0.3) {
                        0.0
                    } else {
                        rng.random_range(0.05..2.0)
                    }
                })
                .collect();
            if demands.iter().all(|&d| d == 0.0) {
                demands[rng.random_range(0..k_all)] = rng.random_range(0.05..2.0);
            }
            (rng.random_range(0..=max_population), demands)
        })
        .collect();
    if classes.iter().all(|(n, _)| *n == 0) {
        classes[0].0 = 1;
    }
    Spec { stations, classes }
}

pub fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(b.abs())
}

pub fn single_class(spec: &Spec) -> Network {
    let demands = &spec.classes[0].1;
    spec.stations
        .iter()
        .enumerate()
        .fold(Network::new(), |net, (k, kind)| {
            let (name, d) = (station_name(k), demands[k]);
            match kind {
                Kind::Queue => net.queue(name, d),
                Kind::Delay => net.delay(name, d),
                Kind::Multi(c) => net.multi_server(name, *c, d),
                Kind::Load(rates) => {
                    let rates = rates.clone();
                    net.load_dependent(name, d, move |n| rates[(n - 1) % rates.len()])
                }
            }
        })
}

/// The laws every solution, exact or approximate, obeys.
pub fn check_laws(spec: &Spec, s: &MultiClassSolution, exact: bool) -> Result<(), TestCaseError> {
    for (c, (pop, demands)) in spec.classes.iter().enumerate() {
        let class = class_name(c);
        let x = s.throughput(&class).unwrap();
        let mut jobs = 0.0;
        for (k, kind) in spec.stations.iter().enumerate() {
            let f = s.of(&class, &station_name(k)).unwrap();
            let little = x * f.residence_time;
            prop_assert!(close(f.queue_length, little, 1e-12) || little == 0.0);
            jobs += f.queue_length;
            if !matches!(kind, Kind::Load(_)) {
                let u = x * demands[k] / kind.servers();
                prop_assert!(close(f.utilization, u, 1e-12) || u == 0.0);
            }
            if exact && *pop > 0 && matches!(kind, Kind::Queue | Kind::Multi(_)) {
                prop_assert!(f.residence_time >= demands[k] * (1.0 - 1e-12));
            }
        }
        let n = *pop as f64;
        prop_assert!(
            (jobs - n).abs() <= 1e-9 * n.max(1.0),
            "{jobs} jobs of {pop}"
        );
        prop_assert!(close(x * s.cycle_time(&class).unwrap(), n, 1e-12) || n == 0.0);
    }
    for (k, kind) in spec.stations.iter().enumerate() {
        let name = station_name(k);
        let total = s.station(&name).unwrap();
        let (mut q, mut u) = (0.0, 0.0);
        for c in 0..spec.classes.len() {
            let f = s.of(&class_name(c), &name).unwrap();
            q += f.queue_length;
            u += f.utilization;
        }
        prop_assert!(close(total.queue_length, q, 1e-12) || q == 0.0);
        prop_assert!(close(total.utilization, u, 1e-12) || u == 0.0);
        if exact && !matches!(kind, Kind::Delay) {
            prop_assert!(total.utilization <= 1.0 + 1e-12, "{name}: {total:?}");
        }
    }
    Ok(())
}

/// Largest and median relative error of the classes' throughputs, the
/// largest where the class has at least 5 jobs, and the largest error of a
/// class's queue length at a station relative to the class's population,
/// over `cases` random networks of 2–3 classes of 1 to `max_population`
/// jobs at 2–5 stations.
pub fn approx_errors(
    kinds: &[u8],
    settings: &MultiClassApproximation,
    cases: usize,
    max_population: usize,
) -> [f64; 4] {
    let mut rng = ChaCha8Rng::seed_from_u64(20260037);
    let mut x_err = Vec::new();
    let (mut q_err, mut large): (f64, f64) = (0.0, 0.0);
    for _ in 0..cases {
        let mut spec = random_spec(&mut rng, kinds, 2..=5, 2..=3, max_population);
        spec.classes.iter_mut().for_each(|(n, _)| *n = (*n).max(1));
        let net = build(&spec);
        let (e, a) = (net.mva().unwrap(), net.mva_approx_with(settings).unwrap());
        for (c, (pop, _)) in spec.classes.iter().enumerate() {
            let class = class_name(c);
            let err = (a.throughput(&class).unwrap() / e.throughput(&class).unwrap() - 1.0).abs();
            x_err.push(err);
            if *pop >= 5 {
                large = large.max(err);
            }
            for k in 0..spec.stations.len() {
                let name = station_name(k);
                let (qa, qe) = (a.of(&class, &name).unwrap(), e.of(&class, &name).unwrap());
                q_err = q_err.max((qa.queue_length - qe.queue_length).abs() / *pop as f64);
            }
        }
    }
    x_err.sort_by(f64::total_cmp);
    [x_err[x_err.len() - 1], x_err[x_err.len() / 2], large, q_err]
}
