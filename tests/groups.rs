//! Multi-processor task groups (seed 004): concurrent execution on disjoint
//! groups, equal groups with the floor rule, sequential composition with a
//! redistribution, and contention exactly where groups communicate at once.
use pattern_core::comm::{CommError, MachineProfile};
use pattern_core::semantics::Throughput;
use pattern_core::{Design, DesignErrorKind, Expr, Term};

fn design(text: &str) -> Design {
    Design::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

fn value(e: &Expr, at: &[(&str, f64)]) -> f64 {
    e.eval(at).unwrap_or_else(|err| panic!("{e}: {err}"))
}

#[test]
fn disjoint_groups_take_the_maximum() {
    let d = design("a = 1000 / p; b = 3000 / p; on[64](par[16, 48](a, b))");
    assert_eq!(d.term().to_string(), "on[64](par[16, 48](a, b))");
    // max(1000/16, 3000/48) = max(62.5, 62.5)
    assert_eq!(value(&d.model(), &[]), 62.5);
    let d = design("a = 1000 / p; b = 3000 / p; on[64](par[32, 32](a, b))");
    assert_eq!(value(&d.model(), &[]), 3000.0 / 32.0);
    // Symbolic sizes stay symbolic.
    let d = design("a = 1000 / p; b = 3000 / p; par[g, h](a, b)");
    assert_eq!(d.model().to_string(), "max(1000/g, 3000/h)");
    assert_eq!(d.resources().threads.to_string(), "g + h");
}

#[test]
fn equal_groups_follow_the_smallest() {
    // 3 groups out of 64 processors: floor(64/3) = 21 each.
    let d = design("t = 2100 / p; on[64](groups[3](t))");
    assert_eq!(value(&d.model(), &[]), 100.0);
    let symbolic = design("t = 2100 / p; groups[s](t)");
    assert_eq!(symbolic.model().to_string(), "2100/floor(p/s)");
    assert_eq!(value(&symbolic.model(), &[("p", 64.0), ("s", 3.0)]), 100.0);
}

#[test]
fn sequence_on_one_group_adds_the_redistribution() {
    let d = design("a = 100 * n / p; b = 50 * n / p; on[8](seq[redist = 2 * n](a, b))");
    assert_eq!(d.term().to_string(), "on[8](seq[redist = 2*n](a, b))");
    assert_eq!(value(&d.model(), &[("n", 8.0)]), 100.0 + 50.0 + 16.0);
    let parsed_back = Design::parse(&d.to_string()).unwrap();
    assert_eq!(parsed_back.model(), d.model());
}

#[test]
fn contention_applies_exactly_where_groups_run_concurrently() {
    let t3e = MachineProfile::t3e();
    let b = 4096.0;
    let plain = |p: f64| 6.04 - 0.75 * p + 0.019 * p * b;
    let contended = |p: f64, all: f64| {
        6.04 - 0.75 * p + 0.04 * all * all.log2().log2() * b.log2() * 0.019 * p * b
    };
    let comm = "c = allgather(p, 4096);";

    // Alone on 64 processors: no contention.
    let alone = design(&format!("{comm} on[64](c)"))
        .model_by(&Throughput::new().machine(&t3e))
        .unwrap();
    assert!((value(&alone, &[]) - plain(64.0)).abs() < 1e-9);

    // Two groups of 32 at once: contention with p = 64 (all processors).
    let two = design(&format!("{comm} on[64](par[32, 32](c, c))"))
        .model_by(&Throughput::new().machine(&t3e))
        .unwrap();
    assert!((value(&two, &[]) - contended(32.0, 64.0)).abs() < 1e-6 * contended(32.0, 64.0));

    // One group only: nothing concurrent, no contention.
    let one = design(&format!("{comm} on[64](par[32](c))"))
        .model_by(&Throughput::new().machine(&t3e))
        .unwrap();
    assert!((value(&one, &[]) - plain(32.0)).abs() < 1e-9);
    let single = design(&format!("{comm} on[64](groups[1](c))"))
        .model_by(&Throughput::new().machine(&t3e))
        .unwrap();
    assert!((value(&single, &[]) - plain(64.0)).abs() < 1e-9);

    // Equal groups: contention inside, none in the sequential part after.
    let mixed = design(&format!(
        "{comm} d = allgather(p, 4096); on[64](seq(groups[4](c), d))"
    ))
    .model_by(&Throughput::new().machine(&t3e))
    .unwrap();
    let want = contended(16.0, 64.0) + plain(64.0);
    assert!((value(&mixed, &[]) - want).abs() < 1e-6 * want);

    // Without an outermost on[..], the contention's p is the program's p.
    let open = design(&format!("{comm} par[g, g](c, c)"))
        .model_by(&Throughput::new().machine(&t3e))
        .unwrap();
    let at = [("p", 64.0), ("g", 32.0)];
    assert!((value(&open, &at) - contended(32.0, 64.0)).abs() < 1e-6 * contended(32.0, 64.0));

    // Unresolved, the model keeps the machine function.
    assert_eq!(
        design(&format!("{comm} on[64](c)")).model().to_string(),
        "allgather(64, 4096)"
    );
}

#[test]
fn oversubscribed_groups_are_refused_with_the_position() {
    let err = Design::parse("a = 1; b = 1; on[64](par[32, 48](a, b))").unwrap_err();
    assert_eq!(
        err.kind(),
        &DesignErrorKind::OverSubscribed {
            needed: 80,
            available: 64
        }
    );
    assert_eq!(err.offset(), 24);
    let err = Design::parse("a = 1; on[8](groups[16](a))").unwrap_err();
    assert_eq!(
        err.kind(),
        &DesignErrorKind::OverSubscribed {
            needed: 16,
            available: 8
        }
    );
    // Nested: a group of 16 cannot hold groups of 10 and 10.
    let err = Design::parse("a = 1; on[64](par[16, 48](par[10, 10](a, a), a))").unwrap_err();
    assert_eq!(
        err.kind(),
        &DesignErrorKind::OverSubscribed {
            needed: 20,
            available: 16
        }
    );
    let err = Design::parse("a = 1; on[64](par[16](a, a))").unwrap_err();
    assert!(matches!(
        err.kind(),
        DesignErrorKind::WrongArity { found: 2, .. }
    ));
    // Terms built in code get the same check.
    let a = Term::atom("a", Expr::num(1.0));
    let bad = Term::On(
        64u64.into(),
        Box::new(Term::Par(
            vec![40u64.into(), 40u64.into()],
            vec![a.clone(), a],
        )),
    );
    assert!(matches!(
        bad.check(),
        Err(e) if e.kind() == &DesignErrorKind::OverSubscribed {
            needed: 80,
            available: 64,
        }
    ));
}

#[test]
fn machine_function_errors() {
    let t3e = MachineProfile::t3e();
    let err = design("c = alltoall(p, 10); on[4](c)")
        .model_by(&Throughput::new().machine(&t3e))
        .unwrap_err();
    assert!(matches!(err, CommError::UnknownFunction { ref name, .. } if name == "alltoall"));
    // The T3D profile has the contention factor only: every call is missing.
    let err = design("c = bcast(p, 10); on[4](c)")
        .model_by(&Throughput::new().machine(&MachineProfile::t3d()))
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("unknown machine function `bcast` on Cray T3D (it has: )"),
        "{err}"
    );
    // Evaluating an unresolved model names the function.
    let err = design("c = bcast(p, 10); on[4](c)")
        .model()
        .eval(&[])
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("`bcast` is not a built-in function"),
        "{err}"
    );
}

/// The RK designs reproduce seed 004's formulas: T_dp + C_dp, and T_gp +
/// C_gp with t̃_mb = τ1 + τ2·g + C(p, b)·t_c·g·b in the groups.
#[test]
fn runge_kutta_designs_reproduce_the_papers_formulas() {
    use pattern_core::paper::{rk_consecutive, rk_group};
    for (machine, name, [tau1, tau2, t_c]) in [
        (MachineProfile::t3e(), "multibcast", [-3.72, 42.60, 0.028]),
        (
            MachineProfile::clic(),
            "multibcast_p",
            [-9724.2, 8385.5, 0.690],
        ),
    ] {
        let contention = machine.contention.clone().unwrap();
        let dp = design(&rk_consecutive(name))
            .model_by(&Throughput::new().machine(&machine))
            .unwrap();
        let gp = design(&rk_group(name))
            .model_by(&Throughput::new().machine(&machine))
            .unwrap();
        for (n, p) in [
            (242.0f64, 8.0f64),
            (1922.0, 32.0),
            (16562.0, 128.0),
            (100000.0, 64.0),
        ] {
            let (s, m, t_op, t_f) = (4.0, 6.0, 0.002, 0.05);
            let t_mb = |p: f64, b: f64| tau1 + tau2 * p + t_c * p * b;
            let c = |all: f64, b: f64| contention.eval(&[("p", all), ("n", b)]).unwrap();
            let t_mb_contended = |g: f64, b: f64| tau1 + tau2 * g + c(p, b) * t_c * g * b;
            let np = (n / p).ceil();
            let g = (p / s).floor();
            let ng = (n / g).ceil();
            let t_dp = (m * s * np + np) * (2.0 * s + 1.0) * t_op
                + (m * s * np + s * np) * t_f
                + n * s * t_op;
            let c_dp = s * m * t_mb(p, 8.0 * np) + t_mb(p, 8.0 * np);
            let t_gp = (m * ng + np) * (2.0 * s + 1.0) * t_op + (m * ng + ng) * t_f + ng * s * t_op;
            let c_gp = 2.0 * m * t_mb_contended(g, 8.0 * ng) + t_mb(p, 8.0 * np);
            let at = [
                ("n", n),
                ("p", p),
                ("s", s),
                ("m", m),
                ("t_op", t_op),
                ("T_f", t_f),
            ];
            let (got_dp, got_gp) = (value(&dp, &at), value(&gp, &at));
            assert!(
                (got_dp - (t_dp + c_dp)).abs() <= 1e-9 * got_dp.abs(),
                "{} dp at {n} {p}",
                machine.name
            );
            assert!(
                (got_gp - (t_gp + c_gp)).abs() <= 1e-9 * got_gp.abs(),
                "{} gp at {n} {p}",
                machine.name
            );
        }
    }
}

#[test]
fn a_user_profile_from_a_file() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/data/lab_cluster.json"
    );
    let lab = MachineProfile::from_json_file(path).unwrap();
    assert_eq!(lab.name, "lab cluster (example)");
    let d = design("c = allgather(p, 1024); on[32](par[16, 16](c, c))");
    let us = value(&d.model_by(&Throughput::new().machine(&lab)).unwrap(), &[]);
    let contention = 1.0 + 0.02 * 32.0 * 10.0;
    assert!((us - (15.0 + 4.0 * 16.0 + contention * 0.011 * 16.0 * 1024.0)).abs() < 1e-9);
}
