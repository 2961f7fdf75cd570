//! The whole harness end to end on small sizes: a suite of element atoms,
//! a custom atom and four configurations measured, run, fitted and
//! reported; the report's JSON read back; bad suites refused with clear
//! errors.

use crate::cases::Case;
use crate::error::ValidationError;
use crate::report::{Acceptance, Machine, Report, Row, SuiteReport};
use crate::settings::Settings;
use crate::suite::Suite;
use pattern_core::Design;
use pattern_core::exec::{Cores, Kernels};
use pattern_core::fit::measure::Harness;

/// A suite of two element atoms and a custom one over four configurations.
fn small_suite() -> Suite<Vec<i32>> {
    let kernels = Kernels::<Vec<i32>>::new()
        .add("sort", |v| v.sort_unstable())
        .add("bump", |v| v.iter_mut().for_each(|e| *e += 1));
    let make = |x: usize, seed: u64| -> Vec<i32> {
        (0..x)
            .map(|i| ((i as u64).wrapping_mul(2654435761).wrapping_add(seed) % 1000) as i32)
            .collect()
    };
    Suite::new("small", kernels, &[64, 128, 256, 512], make)
        .element_bytes(|x| 4 * x)
        .measure("sort")
        .measure("bump")
        .probe("const", |h: &Harness, sizes: &[usize]| {
            h.run(sizes, |x| x, |x| x + 1)
        })
        .with_handoff(true)
        .with_cache_reuse(true)
        .with_contention(true)
        .with_direct(true)
        .case("seq", "seq(sort, bump)", true)
        .case("tpool", "tpool[2](sort)", true)
        .case("pipe", "pipe(sort, bump)", true)
        .case("pipe", "pipe(tpool[2](sort), bump)", false)
}

#[test]
fn validation_runs_end_to_end_on_small_sizes() {
    let settings = Settings {
        acceptance_from: 256,
        ..Settings::quick()
    };
    let mut lines = Vec::new();
    let report = small_suite()
        .run(&settings, &mut |l| lines.push(l.to_string()))
        .unwrap();
    assert_eq!(lines.len(), settings.rounds);
    assert_eq!(report.atoms.len(), 3);
    assert_eq!(report.handoff.as_ref().unwrap().name, "handoff");
    assert_eq!(report.rows.len(), 4);
    for row in &report.rows {
        assert_eq!(row.sizes.len(), 4, "{}", row.design);
        check_sizes(row, &settings);
        assert!(
            row.errors_from.is_some_and(|e| e.count == 2),
            "{}",
            row.design
        );
    }
    check_refinements(&report, &settings);
    check_record(report, settings);
}

/// Every size of `row`: its runs, their speed factors and every
/// prediction of them.
fn check_sizes(row: &Row, settings: &Settings) {
    for s in &row.sizes {
        assert_eq!(s.runs.len(), settings.rounds);
        // Each run stated at the reference speed by its own factor.
        assert_eq!(s.speed_factors.len(), settings.rounds);
        assert!(s.speed_factors.iter().all(|f| f.is_finite() && *f > 0.0));
        let raw = s.runs[0].inter_departure_ns.unwrap();
        assert_eq!(s.measured_raw_ns, Some(raw));
        assert_eq!(s.measured_ns, Some(raw * s.speed_factors[0]));
        assert!(s.predicted_raw_ns.is_some() && s.error_raw.is_some());
        assert!(s.elements >= settings.min_elements && s.elements <= settings.max_elements);
        assert!(s.predicted_ns.is_some());
        assert!(s.max_in_flight <= row.threads);
        // The machine-aware predictions of every round; on one thread
        // the simulation of the refined design is its refined model,
        // up to the varied durations' mean over the simulated stream.
        assert!(s.predicted_queueing_ns.is_some() && s.predicted_simulated_ns.is_some());
        assert!(s.predicted_direct_ns.is_some_and(|t| t > 0.0));
        if row.threads == 1 {
            for p in &s.round_predictions {
                let (sim, refined) = (p.simulated.unwrap(), p.refined.unwrap());
                // A spread of measured calls: any value under load.
                assert!(
                    p.variation.is_finite() && p.variation >= 0.0,
                    "{}",
                    p.variation
                );
                let tolerance = 1e-9 + 5.0 * p.variation / 2000f64.sqrt();
                assert!(
                    (sim / refined - 1.0).abs() < tolerance,
                    "{sim} vs {refined}"
                );
            }
        }
    }
}

/// The refined designs and the variants timed for them.
fn check_refinements(report: &SuiteReport, settings: &Settings) {
    assert_eq!(
        report.rows[2].refined_design.as_deref(),
        Some("pipe(seq(sort, handoff), seq(handoff, bump))")
    );
    let cores = Cores::of_current_thread().len();
    assert_eq!(
        report.rows[0].refined_design.as_deref(),
        Some("seq(sort, bump_warm)")
    );
    // Warm variants of both element atoms; a co-run variant of the pooled
    // one where there is another core to run it on.
    let variants: Vec<&str> = report.variants.iter().map(|a| a.name.as_str()).collect();
    // Refined: co-run where another core runs it, and the pool's hand-over
    // for the workers that are busy at once.
    let pooled = match cores {
        1 => "tpool[2](seq(sort, handoff_pool1))",
        2 => "tpool[2](seq(sort_corun, handoff_pool2))",
        _ => "tpool[2](seq(sort_corun2, handoff_pool2))",
    };
    assert_eq!(report.rows[1].refined_design.as_deref(), Some(pooled));
    if cores > 1 {
        // `pipe(tpool[2](sort), bump)` runs three threads: on two cores
        // its stages share a core and hand over at the shared cost.
        // No stage follows one that ends with its own atom: nothing is
        // timed handed. `pipe(sort, bump)` fits the cores: its atoms are
        // timed waking a stage.
        let expected: &[&str] = if cores < 3 {
            &[
                "sort_warm",
                "bump_warm",
                "sort_corun",
                "sort_waking",
                "bump_waking",
                "handoff_shared",
                "handoff_pool2",
            ]
        } else {
            &[
                "sort_warm",
                "bump_warm",
                "sort_corun",
                "bump_handed",
                "bump_handing",
                "sort_waking",
                "bump_waking",
                "handoff_pool2",
            ]
        };
        assert_eq!(variants, expected);
        // Timed before and after each run of the two cases that pool sort.
        let timings = 2 * 2 * settings.atom_repetitions * settings.rounds;
        for s in &report.variants[2].samples {
            assert_eq!(s.times_ns.len(), timings);
        }
    } else {
        assert_eq!(variants, ["sort_warm", "bump_warm", "handoff_pool1"]);
    }
    assert!(report.table().lines().count() == 6);
    assert!(report.errors_table().contains("| tpool[2](sort) |"));
}

/// The acceptance over `report`, the atoms' timings as measured, and the
/// JSON file that holds it all, read back.
fn check_record(report: SuiteReport, settings: Settings) {
    let acceptance = Acceptance::of(std::slice::from_ref(&report), 256, 0.1);
    assert_eq!(acceptance.configurations, 3);
    assert_eq!(acceptance.plain.unwrap().count, 6);
    assert_eq!(acceptance.raw.unwrap().count, 6);
    // Atoms keep their timings as measured beside the normalized ones, in
    // the same order: one factor per atom timing.
    for atom in report.atoms.iter().filter(|a| a.name != "const") {
        for s in &atom.samples {
            assert_eq!(s.raw_times_ns.len(), s.times_ns.len(), "{}", atom.name);
            assert!(s.raw_times_ns.iter().all(|t| t.is_finite() && *t >= 0.0));
        }
    }
    // The JSON file holds everything and reads back.
    let full = Report {
        machine_before: Machine::now(),
        machine_after: Machine::now(),
        settings: [("small".to_string(), settings.record())].into(),
        suites: vec![report],
        acceptance,
        seconds: 0.0,
    };
    let json = serde_json::to_string(&full).unwrap();
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back.suites[0].rows.len(), 4);
    assert_eq!(back.suites[0].atoms[0].model, full.suites[0].atoms[0].model);
}

/// A suite without atoms, an atom without a kernel, a structure over an
/// unknown atom: refused with clear errors.
#[test]
fn bad_suites_are_refused() {
    let settings = Settings::quick();
    let empty: Suite<Vec<i32>> = Suite::new("e", Kernels::new(), &[1, 2, 3], |_, _| vec![]);
    assert!(empty.run(&settings, &mut |_| {}).is_err());
    let missing = Suite::new("m", Kernels::new(), &[1, 2, 3], |_, _| vec![0i32])
        .measure("sort")
        .case("seq", "sort", true);
    assert_eq!(
        missing.run(&settings, &mut |_| {}).unwrap_err().to_string(),
        "the atom `sort` has no element kernel to measure"
    );
    let unknown = Suite::new(
        "u",
        Kernels::new().add("sort", |v: &mut Vec<i32>| v.sort()),
        &[4, 8, 16],
        |x, _| vec![0i32; x],
    )
    .measure("sort")
    .case("seq", "seq(sort, bump)", true);
    let err = unknown.run(&settings, &mut |_| {}).unwrap_err().to_string();
    assert!(
        err.starts_with("the design `seq(sort, bump)` is not valid"),
        "{err}"
    );
}

#[test]
fn where_a_case_uses_its_atoms() {
    let kernels = Kernels::<Vec<u8>>::new().add("a", |_| {}).add("b", |_| {});
    let suite = Suite::new("s", kernels, &[1, 2, 4], |x, _| vec![0; x])
        .measure("a")
        .measure("b")
        .probe("c", |h: &Harness, sizes: &[usize]| {
            h.run(sizes, |x| x, |x| x)
        })
        .case("pipe", "pipe(a, tpool[2](seq(b, c)))", true);
    let case = &suite.cases[0];
    // c, a custom probe, is timed around every run too.
    assert_eq!(suite.atoms_of(case).unwrap(), [0, 1, 2]);
    // c is in the pool too, but not an element atom.
    assert_eq!(suite.pooled_atoms_of(case).unwrap(), [1]);
    assert_eq!(suite.shape(case).unwrap().model().eval(&[]).unwrap(), 1.0);
    let bad = Case {
        group: "g".into(),
        structure: "pipe(a, d)".into(),
        acceptance: false,
    };
    assert!(matches!(
        suite.atoms_of(&bad),
        Err(ValidationError::Design { .. })
    ));
}

#[test]
fn elements_per_run_follow_the_target_and_the_bounds() {
    let kernels = Kernels::<Vec<u8>>::new().add("a", |_| {});
    let suite = Suite::new("s", kernels, &[1_000], |x, _| vec![0; x]).element_bytes(|x| x);
    let settings = Settings {
        run_target: std::time::Duration::from_millis(1),
        min_elements: 5,
        max_elements: 400,
        max_bytes: 100_000,
        ..Settings::default()
    };
    let d = |ns: f64| Design::parse(&format!("a = {ns}; a")).unwrap();
    // 1 ms at 10 µs per element.
    assert_eq!(suite.elements_for(&d(10_000.0), 1_000, &settings), 100);
    // 1 ms at 1 µs: 1,000, above the element and the memory bound (100).
    assert_eq!(suite.elements_for(&d(1_000.0), 1_000, &settings), 100);
    assert_eq!(suite.memory_bound(1_000, &settings), 100);
    // 1 ms at 1 ms: the fewest.
    assert_eq!(suite.elements_for(&d(1e6), 1_000, &settings), 5);
    let inputs = suite.inputs(3, 4, 1);
    assert_eq!(inputs.len(), 4);
    assert!(inputs.iter().all(|e| e.len() == 3));
}
