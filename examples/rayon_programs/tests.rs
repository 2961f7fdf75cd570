//! The pure parts: the steady state, medians and spreads, the rule of the
//! issue, the summaries, the design texts and the command line. No test
//! asserts a duration or a speed.

use crate::args::{self, Args, Mode};
use crate::child::Run;
use crate::predict::design_text;
use crate::programs::{Kernel, Program};
use crate::report::{Row, Summary};
use crate::stats::{self, Verdict};
use std::time::{Duration, Instant};

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// Departures `gaps` apart, in µs, from one start.
fn departures(gaps: &[u64]) -> Vec<Instant> {
    let start = Instant::now();
    let mut t = start;
    let mut out = vec![t];
    for g in gaps {
        t += Duration::from_micros(*g);
        out.push(t);
    }
    out
}

#[test]
fn steady_state_leaves_out_the_fill_and_the_drain() {
    // 21 departures: 2 left out at each end; the slow fill and drain gaps
    // do not count, the 16 middle gaps of 10 µs do.
    let mut gaps = vec![1000, 1000];
    gaps.extend([10; 16]);
    gaps.extend([1000, 1000]);
    let d = departures(&gaps);
    assert_eq!(d.len(), 21);
    let t = stats::steady_state(&d).unwrap();
    assert!((t - 10_000.0).abs() < 1.0, "{t}");
}

#[test]
fn steady_state_needs_departures() {
    assert_eq!(stats::steady_state(&[]), None);
    assert_eq!(stats::steady_state(&departures(&[5])), None);
    assert!(stats::steady_state(&departures(&[5, 5])).is_some());
}

#[test]
fn medians_and_spreads() {
    assert_eq!(stats::median(&[]), None);
    assert_eq!(stats::median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(stats::median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(stats::range(&[3.0, 1.0, 2.0]), Some((1.0, 3.0)));
    assert_eq!(stats::spread(&[90.0, 100.0, 110.0]), Some(0.2));
    assert_eq!(stats::spread(&[]), None);
}

#[test]
fn the_rule_of_the_issue() {
    // Within 10 % of the median.
    let quiet = [100.0, 101.0, 99.0];
    assert_eq!(stats::judge(109.0, &quiet).unwrap().1, Verdict::Within);
    assert_eq!(stats::judge(90.0, &quiet).unwrap().1, Verdict::Within);
    // A quiet program does not excuse 15 % off, even inside its range.
    let (error, verdict) = stats::judge(115.0, &quiet).unwrap();
    assert!((error - 0.15).abs() < 1e-9);
    assert_eq!(verdict, Verdict::Off);
    // A program spreading by 40 %: inside its range counts, outside not.
    let noisy = [80.0, 100.0, 120.0];
    assert_eq!(stats::judge(118.0, &noisy).unwrap().1, Verdict::InRange);
    assert_eq!(stats::judge(125.0, &noisy).unwrap().1, Verdict::Off);
    assert!(Verdict::InRange.counts() && !Verdict::Off.counts());
    assert_eq!(stats::judge(1.0, &[]), None);
}

fn run(program: &Program, measured: f64, queueing: f64) -> Run {
    Run {
        program: program.name(),
        x: 16,
        threads: program.threads(),
        kernel_ns: vec![("qsort".into(), 1000.0)],
        elements: 100,
        measured_ns: measured,
        run_s: 0.1,
        cores_used: None,
        queueing: Some(queueing),
        simulated: None,
    }
}

#[test]
fn rows_take_medians_over_the_processes() {
    let p = Program::Pool(2, Kernel::Qsort);
    let runs = [
        run(&p, 100.0, 95.0),
        run(&p, 110.0, 96.0),
        run(&p, 90.0, 200.0),
    ];
    let refs: Vec<&Run> = runs.iter().collect();
    let row = Row::new(&p, 16, &refs).unwrap();
    assert_eq!(row.median(), 100.0);
    assert!((row.spread() - 0.2).abs() < 1e-12);
    let q = row.predictions[0].as_ref().unwrap();
    assert_eq!(q.ns, 96.0);
    assert!((q.error + 0.04).abs() < 1e-12);
    assert!(row.predictions[1].is_none());
    assert_eq!(row.kernels, vec![("qsort".to_string(), 1000.0)]);
    assert!(Row::new(&p, 16, &[]).is_none());
}

#[test]
fn summaries_count_points_within() {
    let p = Program::Pool(1, Kernel::Inc);
    let rows: Vec<Row> = [100.0, 104.0, 130.0]
        .iter()
        .map(|q| {
            let r = run(&p, 100.0, *q);
            Row::new(&p, 16, &[&r]).unwrap()
        })
        .collect();
    let refs: Vec<&Row> = rows.iter().collect();
    let s = Summary::of(&refs, 0).unwrap();
    assert_eq!(s.points, 3);
    assert!((s.median_error - 0.04).abs() < 1e-12);
    assert!((s.share_within - 2.0 / 3.0).abs() < 1e-12);
    assert!((s.worst.unwrap().1 - 0.3).abs() < 1e-12);
    assert!(Summary::of(&refs, 1).is_none());
}

#[test]
fn programs_and_their_designs() {
    let all = Program::all();
    assert_eq!(all.len(), 13);
    for p in &all {
        assert_eq!(Program::named(&p.name()).as_ref(), Some(p));
    }
    let p = Program::Pipe(vec![Kernel::Qsort, Kernel::Inc, Kernel::Nop]);
    assert_eq!(p.threads(), 3);
    let text = design_text(
        &p,
        &[(Kernel::Qsort, 2.0), (Kernel::Inc, 1.0), (Kernel::Nop, 0.5)],
        16,
    );
    assert_eq!(
        text,
        "qsort = 2.0 [bytes = 128]; inc = 1.0 [bytes = 128]; nop = 0.5; pipe(qsort, inc, nop)"
    );
    assert!(pattern_core::Design::parse(&text).is_ok());
    let pool = design_text(&Program::Pool(4, Kernel::Inc), &[(Kernel::Inc, 3.0)], 1);
    assert_eq!(pool, "inc = 3.0 [bytes = 8]; tpool[4](inc)");
}

#[test]
fn kernels_do_what_they_say() {
    let mut a = vec![3, 1, 2];
    Kernel::Qsort.apply(&mut a);
    assert_eq!(a, [1, 2, 3]);
    Kernel::Inc.apply(&mut a);
    assert_eq!(a, [2, 3, 4]);
    Kernel::Nop.apply(&mut a);
    assert_eq!(a, [2, 3, 4]);
    // Every program runs every element once.
    for p in Program::all() {
        let arrays = crate::programs::arrays(8, 30, 1);
        assert_eq!(p.run(arrays).len(), 30, "{}", p.name());
    }
}

#[test]
fn the_command_line() {
    let parent = |a: &[&str]| match args::parse(&strings(a)) {
        Ok(Mode::Parent(args)) => args,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        parent(&[]),
        Args {
            rounds: 3,
            quick: false,
            only: None
        }
    );
    assert_eq!(parent(&["--quick"]).rounds, 1);
    assert_eq!(parent(&["--rounds", "5", "--quick"]).rounds, 5);
    assert_eq!(parent(&["--only", "tpool"]).programs().unwrap().len(), 8);
    assert_eq!(
        parent(&["--only", "pipe(inc, inc)"])
            .programs()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(args::parse(&strings(&["--help"])), Ok(Mode::Help));
    assert_eq!(
        args::parse(&strings(&["--child", "tpool[2](inc)", "64", "--quick"])),
        Ok(Mode::Child {
            program: Program::Pool(2, Kernel::Inc),
            x: 64,
            quick: true
        })
    );
}

#[test]
fn command_line_errors_are_clear() {
    let err = |a: &[&str]| args::parse(&strings(a)).unwrap_err();
    assert!(err(&["--fast"]).contains("unknown option '--fast'"));
    assert!(err(&["--rounds"]).contains("--rounds needs a number"));
    assert!(err(&["--rounds", "0"]).contains("at least 1"));
    assert!(err(&["--rounds", "x"]).contains("not 'x'"));
    assert!(err(&["--only"]).contains("--only needs"));
    assert!(err(&["--only", "tpool[3]"]).contains("no program is named"));
    assert!(err(&["--child"]).contains("a program and a size"));
    assert!(err(&["--child", "seq(qsort)", "8"]).contains("no program 'seq(qsort)'"));
    assert!(err(&["--child", "tpool[1](inc)", "0"]).contains("positive integer"));
    assert!(err(&["--child", "tpool[1](inc)", "8", "-v"]).contains("unexpected"));
}
