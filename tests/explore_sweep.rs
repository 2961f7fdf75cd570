//! Sweeps of models over grids (CSV, JSON), the text of an axis and its
//! errors, and a design's time per element against a count beside direct
//! calls of the semantics.

mod common;

use pattern_core::explore::sweep::{
    Axis, RangeErrorKind, Spacing, Sweep, SweepError, Table, ThreadSweep,
};
use pattern_core::machine::Machine;
use pattern_core::sim::Simulation;
use pattern_core::{Design, Expr};
use proptest::prelude::*;

#[test]
fn csv_and_json_of_known_models_at_known_points() {
    let table = Sweep::new(vec![
        Axis::parse("x", "1,2").unwrap(),
        Axis::parse("y", "0..1:3").unwrap(),
    ])
    .model("line", Expr::parse("3*x + y").unwrap())
    .model("ratio", Expr::parse("x / (y + 1)").unwrap())
    .run()
    .unwrap();
    // The last axis varies fastest: (1, 0), (1, 0.5), (1, 1), (2, 0), ...
    let mut expected = String::from("x,y,line,ratio\n");
    for x in [1.0f64, 2.0] {
        for y in [0.0f64, 0.5, 1.0] {
            expected.push_str(&format!("{x},{y},{},{}\n", 3.0 * x + y, x / (y + 1.0)));
        }
    }
    assert_eq!(table.to_csv(), expected);
    assert_eq!(
        table.column("line").unwrap(),
        [3.0, 3.5, 4.0, 6.0, 6.5, 7.0]
    );
    let json: serde_json::Value = serde_json::from_str(&table.to_json()).unwrap();
    assert_eq!(
        json["columns"],
        serde_json::json!(["x", "y", "line", "ratio"])
    );
    assert_eq!(json["variables"], 2);
    assert_eq!(
        json["rows"][4],
        serde_json::json!([2.0, 0.5, 6.5, 2.0 / 1.5])
    );
    let back: Table = serde_json::from_str(&table.to_json()).unwrap();
    assert_eq!(back, table);
}

#[test]
fn designs_sweep_as_their_models_and_csv_keeps_every_digit() {
    let pool = Design::parse("qsort = 1034.17*x*log2(x); tpool[n](qsort)").unwrap();
    let table = Sweep::new(vec![
        Axis::parse("x", "1e3..1e7:5:log").unwrap(),
        Axis::parse("n", "4").unwrap(),
    ])
    .design("pool", &pool)
    .run()
    .unwrap();
    let xs = [1e3, 1e4, 1e5, 1e6, 1e7];
    assert_eq!(table.column("x").unwrap(), xs);
    let want: Vec<f64> = xs.iter().map(|x| 1034.17 * x * x.log2() / 4.0).collect();
    let got = table.column("pool").unwrap();
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-12 * w, "{g} against {w}");
    }
    // Every number of the CSV reads back to the same f64.
    let csv = table.to_csv();
    let numbers: Vec<f64> = csv
        .lines()
        .skip(1)
        .flat_map(|l| {
            l.split(',')
                .map(|v| v.parse::<f64>().unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    let flat: Vec<f64> = table.rows.concat();
    assert_eq!(numbers, flat);
    // Huge and tiny values are written with an exponent.
    let tiny = Sweep::new(vec![Axis::parse("x", "1e-300,1e300").unwrap()])
        .model("m", Expr::parse("x").unwrap())
        .run()
        .unwrap();
    assert_eq!(tiny.to_csv(), "x,m\n1e-300,1e-300\n1e300,1e300\n");
    // Names with commas are quoted.
    let quoted = Sweep::new(vec![Axis::parse("x", "1").unwrap()])
        .model("max(a, b)", Expr::parse("x").unwrap())
        .run()
        .unwrap();
    assert_eq!(quoted.to_csv(), "x,\"max(a, b)\"\n1,1\n");
}

#[test]
fn sweeps_fail_with_reasons() {
    let x = || Axis::parse("x", "1..4").unwrap();
    let e = |t: &str| Expr::parse(t).unwrap();
    assert_eq!(
        Sweep::new(vec![]).model("m", e("1")).run(),
        Err(SweepError::NoAxis)
    );
    assert_eq!(Sweep::new(vec![x()]).run(), Err(SweepError::NoModel));
    assert_eq!(
        Sweep::new(vec![x()]).model("x", e("x")).run(),
        Err(SweepError::Duplicate("x".into()))
    );
    let free = Sweep::new(vec![x()])
        .model("m", e("x * y"))
        .run()
        .unwrap_err();
    assert!(
        matches!(&free, SweepError::Model { name, .. } if name == "m"),
        "{free}"
    );
    let err = Sweep::new(vec![x()])
        .model("m", e("log2(x - 2)"))
        .run()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the model `m`: at point 0 of the sweep: `log₂(x - 2)` is not finite (NaN) at x = 1"
    );
}

#[test]
fn axis_texts() {
    let values = |t: &str| Axis::parse("v", t).unwrap().values().to_vec();
    assert_eq!(values("1..8"), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    assert_eq!(values(" 2 .. 6 : 3 "), [2.0, 4.0, 6.0]);
    // Integer ends: every integer; else 11 values.
    assert_eq!(values("0..1"), [0.0, 1.0]);
    assert_eq!(
        values("0..0.5"),
        (0..=10).map(|i| i as f64 / 20.0).collect::<Vec<_>>()
    );
    assert_eq!(values("-1..1e3").len(), 11);
    assert_eq!(values("1..16:log:5"), [1.0, 2.0, 4.0, 8.0, 16.0]);
    assert_eq!(values("1..1000:lin:4"), [1.0, 334.0, 667.0, 1000.0]);
    assert_eq!(values("3,1.5,-2"), [3.0, 1.5, -2.0]);
    assert_eq!(values("7..7"), [7.0]);
    // Four decades, five values each and the end; every power of ten on it.
    let x = values("1e3..1e7");
    assert_eq!(x.len(), 21);
    for k in 0..=4 {
        assert_eq!(x[5 * k], 10f64.powi(3 + k as i32));
    }
    for w in x.windows(2) {
        assert!((w[1] / w[0] - 10f64.powf(0.2)).abs() < 1e-12);
    }
    // Ends whose ratio passes `f64` (found by the `cli` fuzz target, a
    // panic): 628 decades and a little (1e-320 is subnormal), five values
    // each rounded up and the end, all finite and increasing.
    let wide = values("1e-320..1e308");
    assert_eq!(wide.len(), 3141 + 1);
    assert_eq!((wide[0], wide[wide.len() - 1]), (1e-320, 1e308));
    assert!(wide.windows(2).all(|w| w[0] < w[1] && w[1].is_finite()));
    let a = Axis::range("n", 1.0, 64.0, 7, Spacing::Log).unwrap();
    assert_eq!(a.values(), [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]);
    assert_eq!(
        Axis::from_values("n", &[2.0, 5.0]).unwrap().values(),
        [2.0, 5.0]
    );
    assert!(Axis::from_values("n", &[]).is_err());
    assert!(Axis::from_values("n", &[f64::NAN]).is_err());
}

#[test]
fn axis_errors_point_at_their_place() {
    let cases: [(&str, RangeErrorKind, usize); 12] = [
        ("", RangeErrorKind::Empty, 0),
        ("abc", RangeErrorKind::Number("abc".into()), 0),
        ("1..x", RangeErrorKind::Number("x".into()), 3),
        ("1..", RangeErrorKind::Empty, 3),
        ("5..1", RangeErrorKind::Reversed { lo: 5.0, hi: 1.0 }, 3),
        ("0..10:log", RangeErrorKind::LogNotPositive(0.0), 6),
        ("1..10:1", RangeErrorKind::Count("1".into()), 6),
        ("1..10:3:4", RangeErrorKind::Repeated("4".into()), 8),
        ("1..10:log:lin", RangeErrorKind::Repeated("lin".into()), 10),
        ("1..10: fast", RangeErrorKind::Option("fast".into()), 7),
        ("1,2:log", RangeErrorKind::OptionsWithoutRange, 3),
        ("inf..2", RangeErrorKind::NotFinite("inf".into()), 0),
    ];
    for (text, kind, offset) in cases {
        let err = Axis::parse("v", text).unwrap_err();
        assert_eq!((err.kind(), err.offset()), (&kind, offset), "{text}");
    }
    let err = Axis::parse("v", "1, ,3").unwrap_err();
    assert_eq!((err.kind(), err.offset()), (&RangeErrorKind::Empty, 3));
    let err = Axis::parse("v", "1..10:99999999").unwrap_err();
    assert!(matches!(err.kind(), RangeErrorKind::TooMany { .. }));
    assert_eq!(
        Axis::parse("v", "1..x").unwrap_err().to_string(),
        "`x` is not a number at column 4\n  1..x\n     ^"
    );
}

#[test]
fn threads_sweep_agrees_with_direct_calls() {
    let d = Design::parse("a = 100*x; b = 30*x; pipe(tpool[n](a), b)").unwrap();
    let machine = Machine::new(1, 4).with_waiting(|w| w.handoff_ns(5.0));
    let counts = [1u64, 2, 3, 4, 6];
    let curve = ThreadSweep::new(&d, "n", &counts, machine.clone())
        .at(&[("x", 10.0)])
        .simulate(400)
        .run()
        .unwrap();
    assert_eq!(curve.count, "n");
    for (p, &n) in curve.points.iter().zip(&counts) {
        let at = [("n", n as f64), ("x", 10.0)];
        assert_eq!(p.count, n);
        // The operators: the slower of the pool (1000/n) and the stage (300).
        assert_eq!(p.operators, (1000.0 / n as f64).max(300.0));
        assert_eq!(p.threads, n as f64 + 1.0);
        assert_eq!(
            p.queueing,
            d.queueing(&machine, &at).unwrap().time_per_element
        );
        let sim = Simulation::new(&d, &machine)
            .at(&at)
            .elements(400)
            .run()
            .unwrap();
        assert_eq!(p.simulation, Some(sim.time_per_element()));
    }
    let table = curve.to_table();
    assert_eq!(
        table.columns,
        ["n", "threads", "operators", "queueing", "simulation"]
    );
    assert_eq!(table.rows[1][..3], [2.0, 3.0, 500.0]);
    // Without a simulation, no simulation column.
    let plain = ThreadSweep::new(&d, "n", &[1, 2], machine)
        .at(&[("x", 10.0)])
        .run()
        .unwrap();
    assert_eq!(plain.points[0].simulation, None);
    assert_eq!(plain.to_table().columns.len(), 4);
}

#[test]
fn threads_sweep_errors() {
    let d = Design::parse("a = 100*x; tpool[n](a)").unwrap();
    let m = Machine::new(1, 2);
    let run = |count: &str, values: &[u64], at: &[(&str, f64)]| {
        ThreadSweep::new(&d, count, values, m.clone()).at(at).run()
    };
    assert_eq!(
        run("k", &[1], &[("x", 1.0)]),
        Err(SweepError::NotACount {
            name: "k".into(),
            counts: "n".into()
        })
    );
    assert_eq!(
        run("n", &[], &[("x", 1.0)]),
        Err(SweepError::Counts(vec![]))
    );
    assert_eq!(
        run("n", &[2, 0], &[("x", 1.0)]),
        Err(SweepError::Counts(vec![2, 0]))
    );
    assert!(matches!(
        run("n", &[1], &[("x", f64::INFINITY)]),
        Err(SweepError::Binding { .. })
    ));
    assert!(matches!(
        run("n", &[1], &[]),
        Err(SweepError::Queueing { count: 1, .. })
    ));
    let sim = ThreadSweep::new(&d, "n", &[1], m.clone())
        .at(&[("x", 1.0)])
        .simulate(0)
        .run();
    assert!(matches!(sim, Err(SweepError::Simulation { count: 1, .. })));
    let huge = Design::parse("a = 2^x; tpool[n](a)").unwrap();
    let err = ThreadSweep::new(&huge, "n", &[1], m)
        .at(&[("x", 5000.0)])
        .run()
        .unwrap_err();
    assert!(
        matches!(
            err,
            SweepError::Queueing { .. } | SweepError::Eval { .. } | SweepError::NotFinite { .. }
        ),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(256)))]

    /// A range's values keep its ends exactly, rise, and number as asked;
    /// log-spaced ones keep a constant ratio.
    #[test]
    fn ranges_keep_their_ends_and_spacing(
        lo in 1e-3f64..1e6,
        span in 1.0f64..1e6,
        count in 2usize..200,
        log in any::<bool>(),
    ) {
        let hi = lo * span;
        let text = format!("{lo}..{hi}:{count}:{}", if log { "log" } else { "lin" });
        let axis = Axis::parse("x", &text).unwrap();
        let v = axis.values();
        prop_assert_eq!(v.len(), count);
        prop_assert_eq!((v[0], v[count - 1]), (lo, hi));
        prop_assert!(v.windows(2).all(|w| w[0] <= w[1]));
        if log && span > 1.0 {
            let ratio = span.powf(1.0 / (count - 1) as f64);
            for w in v.windows(2) {
                prop_assert!((w[1] / w[0] - ratio).abs() <= 1e-9 * ratio);
            }
        }
    }
}

/// A design 10^5 patterns deep sweeps on a small stack: its time per
/// element is the sum of its atoms', over the count.
#[test]
fn deep_designs_sweep_on_a_small_stack() {
    common::on_small_stack(|| {
        let atoms =
            (0..100_000).map(|i| pattern_core::Term::atom(&format!("a{}", i % 7), Expr::var("x")));
        let chain = pattern_core::Term::seq_all(atoms).unwrap();
        let d = Design::from_term(pattern_core::Term::tpool("n", chain)).unwrap();
        let curve = ThreadSweep::new(&d, "n", &[1, 4], Machine::new(1, 8))
            .at(&[("x", 2.0)])
            .run()
            .unwrap();
        assert_eq!(curve.points[0].operators, 200_000.0);
        assert_eq!(curve.points[1].operators, 50_000.0);
        let table = Sweep::new(vec![
            Axis::parse("x", "1,2").unwrap(),
            Axis::parse("n", "2").unwrap(),
        ])
        .design("deep", &d)
        .run()
        .unwrap();
        assert_eq!(table.column("deep").unwrap(), [50_000.0, 100_000.0]);
    });
}
