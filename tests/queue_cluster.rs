//! Seed 002's MPI model on a multicore cluster: visit ratios and service
//! times as the equations give them, calibration from noisy runs, and the
//! point where adding processes stops paying.

use pattern_core::machine::{Machine, MachineError, Node};
use pattern_core::queue::{ClusterError, MpiModel, MpiRun, MpiWorkload, StationKind, spread};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The seed's 8-node cluster (Table 1): 4 × E5620 (8 threads), 2 × E5645
/// (12), 2 × E5-2450 (16, taken 20 % faster); 88 cores.
fn seed_cluster() -> Machine {
    Machine::new(4, 8)
        .node(Node::new(12).count(2))
        .node(Node::new(16).count(2).speed(1.2))
}

/// A lammps-like workload: `s(n) = C·ln(n) + D`, `m(n) = A·n^-B` (seed
/// §3.5's forms).
fn model(machine: Machine, cpu: f64, net: f64) -> MpiModel {
    MpiModel {
        machine,
        workload: MpiWorkload {
            sends: "2000*ln(n) + 8000".parse().unwrap(),
            message: "3e5*n^-0.6".parse().unwrap(),
            compute: 0.85,
            communicate: 0.15,
        },
        startup: 5e-6,
        per_word: 8e-9,
        cpu_constant: cpu,
        net_constant: net,
    }
}

#[test]
fn visits_and_demands_follow_equations_8_and_9() {
    let m = MpiModel {
        workload: MpiWorkload {
            sends: "10".parse().unwrap(),
            message: "1000".parse().unwrap(),
            compute: 0.8,
            communicate: 0.2,
        },
        ..model(Machine::new(1, 4).node(Node::new(2).speed(2.0)), 80.0, 1.5)
    };
    let net = m.network(&[3, 1]).unwrap();
    let st = net.stations();
    // V_cpu,0 = 3/4·0.8 + 3/4·2/4·0.2 + 1/4·3/4·0.2 = 0.7125; s_cpu = 80/(10·4) = 2.
    assert_eq!(st[0].name(), "cpu0");
    assert_eq!(st[0].kind(), StationKind::MultiServer { servers: 4 });
    assert!((st[0].demand() - 0.7125 * 2.0).abs() < 1e-12);
    // V_net,0 = 2·3/4·1/4 = 0.375; s_net = (5e-6 + 1000·8e-9)·1.5.
    assert!((st[1].demand() - 0.375 * 1.3e-5 * 1.5).abs() < 1e-18);
    // Node 1: V_cpu = 1/4·0.8 + 0 + 3/4·1/4·0.2 = 0.2375, at speed 2.
    assert_eq!(st[2].kind(), StationKind::MultiServer { servers: 2 });
    assert!((st[2].demand() - 0.2375 * 2.0 / 2.0).abs() < 1e-12);
    assert!((st[3].demand() - st[1].demand()).abs() < 1e-18);
    // Eq. 10: T = R·s(n).
    let p = m.predict(&[3, 1]).unwrap();
    assert!((p.time - p.cycle * 10.0).abs() < 1e-12 * p.time);
    assert!((p.cycle - p.solution.response_time()).abs() < 1e-15);
}

#[test]
fn spreading_follows_the_cores() {
    let c = seed_cluster();
    assert_eq!(c.cores(), 88);
    assert_eq!(spread(&c, 88), vec![8, 8, 8, 8, 12, 12, 16, 16]);
    assert_eq!(spread(&c, 11).iter().sum::<usize>(), 11);
    assert_eq!(spread(&c, 176), vec![16, 16, 16, 16, 24, 24, 32, 32]);
    assert_eq!(spread(&Machine::new(2, 8), 3), vec![2, 1]);
}

#[test]
fn calibration_recovers_the_constants_and_predicts_unseen_counts() {
    let truth = model(seed_cluster(), 3600.0, 1.4);
    // Profiled runs from one process to most cores, so that both the CPUs
    // and the network weigh in some of them (the network is 1 % of the
    // time at n = 2 and 42 % at n = 64); predictions between and beyond.
    let profiled = [1, 2, 4, 16, 32, 48, 64, 96];
    let unseen = [8, 12, 24, 40, 56, 72, 88, 120];
    let mut constant_errors = Vec::new();
    let mut prediction_errors = Vec::new();
    // Twenty independent noisy profiles (2 % Gaussian noise on every time).
    for seed in 0..20 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let runs: Vec<MpiRun> = profiled
            .iter()
            .map(|&n| {
                let placement = spread(&truth.machine, n);
                let time = truth.predict(&placement).unwrap().time;
                let noise: f64 = (0..12).map(|_| rng.random::<f64>()).sum::<f64>() - 6.0;
                MpiRun {
                    placement,
                    time: time * (1.0 + 0.02 * noise),
                }
            })
            .collect();
        let guess = model(seed_cluster(), 100.0, 1.0);
        let fit = guess.calibrate(&runs).unwrap();
        constant_errors.push(
            (fit.model.cpu_constant / 3600.0 - 1.0)
                .abs()
                .max((fit.model.net_constant / 1.4 - 1.0).abs()),
        );
        let worst = unseen
            .iter()
            .map(|&n| {
                let want = truth.predict_spread(n).unwrap();
                (fit.model.predict_spread(n).unwrap() / want - 1.0).abs()
            })
            .fold(0.0, f64::max);
        prediction_errors.push(worst);
    }
    constant_errors.sort_by(f64::total_cmp);
    prediction_errors.sort_by(f64::total_cmp);
    println!(
        "constants: median error {:.4}, worst {:.4}",
        constant_errors[10], constant_errors[19]
    );
    println!(
        "unseen counts: median worst error {:.4}, worst {:.4}",
        prediction_errors[10], prediction_errors[19]
    );
    // Every profile's constants within 5 %; its predictions at all eight
    // unseen counts within 3 % for at least 18 of the 20 profiles, 4 % for all.
    assert!(constant_errors[19] < 0.05, "{constant_errors:?}");
    assert!(prediction_errors[17] < 0.03, "{prediction_errors:?}");
    assert!(prediction_errors[19] < 0.04, "{prediction_errors:?}");
}

#[test]
fn the_saturation_point_moves_as_cores_are_added() {
    let mut points = Vec::new();
    for nodes in [1, 2, 4, 8] {
        let m = model(Machine::new(nodes, 8), 3600.0, 1.4);
        let (n, times) = m.saturation(128, 0.05).unwrap();
        // Beyond the saturation point the time stays within 5 % of the
        // best, and before it more processes paid.
        let best = times.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(times[n - 1] <= best * 1.05);
        assert!(times[n - 2] > best * 1.05);
        points.push(n);
    }
    println!("saturation at {points:?} processes for 1, 2, 4, 8 nodes of 8 cores");
    assert!(points.windows(2).all(|w| w[0] < w[1]), "{points:?}");
}

#[test]
fn bad_input_is_an_error() {
    let m = model(Machine::new(0, 4), 1.0, 1.0);
    assert_eq!(
        m.predict(&[1]).unwrap_err().to_string(),
        "node group 0 has 0 node(s) of 4 core(s): at least one node of at least one core"
    );
    let m = model(Machine::new(1, 0), 1.0, 1.0);
    assert!(matches!(
        m.predict(&[1]),
        Err(ClusterError::Machine(MachineError::NoCores {
            group: 0,
            ..
        }))
    ));
    let m = model(Machine::new(1, 1).node(Node::new(2).speed(-1.0)), 1.0, 1.0);
    assert!(matches!(
        m.predict(&[1, 1]),
        Err(ClusterError::Machine(MachineError::Invalid { .. }))
    ));
    let m = model(Machine::new(2, 4), 1.0, 1.0);
    assert!(matches!(
        m.predict(&[1]),
        Err(ClusterError::Placement { .. })
    ));
    assert!(matches!(
        m.predict(&[0, 0]),
        Err(ClusterError::Placement { .. })
    ));
    let mut bad = m.clone();
    bad.workload.sends = "5 - n".parse().unwrap();
    assert_eq!(
        bad.predict(&[3, 3]).unwrap_err().to_string(),
        "s(n) is -1, out of range"
    );
    bad.workload.sends = "k*n".parse().unwrap();
    assert!(
        bad.predict(&[1, 1])
            .unwrap_err()
            .to_string()
            .starts_with("cannot evaluate s(n) at n = 2")
    );
    let mut bad = m.clone();
    bad.workload.compute = 1.5;
    assert_eq!(
        bad.predict(&[1, 1]).unwrap_err().to_string(),
        "V_comp is 1.5, out of range"
    );
    assert!(
        m.calibrate(&[])
            .unwrap_err()
            .to_string()
            .contains("at least 2 runs")
    );
    let runs = [
        MpiRun {
            placement: vec![1, 0],
            time: 1.0,
        },
        MpiRun {
            placement: vec![1, 1],
            time: f64::NAN,
        },
    ];
    assert!(matches!(
        m.calibrate(&runs),
        Err(ClusterError::InvalidValue { .. })
    ));
    assert_eq!(
        MpiWorkload::shares_from_profile(10.0, 1.5).unwrap(),
        (0.85, 0.15)
    );
    assert!(MpiWorkload::shares_from_profile(10.0, 11.0).is_err());
}
