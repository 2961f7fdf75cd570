//! The `pattern` binary's commands over a variable (`crossovers`,
//! `sweep`, `plot`), run on the files under `examples/data/`: their
//! figures against values derived here by hand from the atoms' models, the
//! files they write, and their errors.

// Only its command-line part is used here.
#[allow(dead_code)]
mod common;

use common::cli::*;
use serde_json::Value;

#[test]
fn crossovers_of_three_designs_in_closed_form() {
    let doc = json(&[
        "crossovers",
        &data("pool4_qsort.design"),
        &data("pool2_seq.design"),
        &data("pool2_inc_nop.design"),
        "--span",
        "1..1e7",
    ]);
    // qsort/4 = 2·inc/2 where log2(x) = 4·536.185/1034.17; 2·inc/2 =
    // (inc + nop)/2 where inc = nop.
    let first = 2f64.powf(4.0 * 536.185 / 1034.17);
    let second = NOP / 536.185;
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    close("first crossing", f(&points[0]["at"]), first, 1e-9);
    close("second crossing", f(&points[1]["at"]), second, 1e-9);
    for p in points {
        assert_eq!(p["kind"], "crossing");
        assert_eq!(p["closed_form"], true);
    }
    assert_eq!(points[0]["before"], "pool4_qsort");
    assert_eq!(points[0]["after"], "pool2_seq");
    assert_eq!(points[1]["after"], "pool2_inc_nop");
    let best: Vec<&str> = doc["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["best"].as_str().unwrap())
        .collect();
    assert_eq!(best, ["pool4_qsort", "pool2_seq", "pool2_inc_nop"]);
    // Best really is lowest, checked inside each piece.
    for (x, want) in [(2.0, 0), (7.0, 1), (1e5, 2)] {
        let times = [qsort(x) / 4.0, inc(x), (inc(x) + NOP) / 2.0];
        let lowest = (0..3)
            .min_by(|&i, &j| times[i].total_cmp(&times[j]))
            .unwrap();
        assert_eq!(lowest, want, "x = {x}");
    }
}

#[test]
fn crossovers_at_a_point_found_numerically() {
    // threads.design at n = 4 is max(inc, qsort/4); it meets
    // (inc + nop)/2 where qsort/4 is the larger, a root of no closed form.
    let doc = json(&[
        "crossovers",
        &data("threads.design"),
        &data("pool2_inc_nop.design"),
        "--span",
        "1..1e4",
        "--at",
        "n=4",
    ]);
    assert_eq!(doc["at"]["n"], 4.0);
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 1);
    let at = f(&points[0]["at"]);
    assert_eq!(points[0]["kind"], "crossing");
    assert_eq!(points[0]["closed_form"], false);
    assert!(inc(at) < qsort(at) / 4.0);
    close(
        "qsort/4 = (inc + nop)/2",
        qsort(at) / 4.0,
        (inc(at) + NOP) / 2.0,
        1e-9,
    );
    assert_eq!(points[0]["before"], "threads");
    assert_eq!(points[0]["after"], "pool2_inc_nop");
}

#[test]
fn crossovers_tie_where_the_shared_stage_dominates() {
    // threads.design at n = 4 is max(inc, qsort/4), pool4_qsort is
    // qsort/4: equal from where qsort/4 overtakes inc, log2(x) =
    // 536.185/(1034.17/4), to the end of the span; qsort/4 alone below.
    let doc = json(&[
        "crossovers",
        &data("threads.design"),
        &data("pool4_qsort.design"),
        "--span",
        "1..1e4",
        "--at",
        "n=4",
    ]);
    let kink = 2f64.powf(536.185 / (1034.17 / 4.0));
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 1, "{doc}");
    assert_eq!(points[0]["kind"], "tie boundary");
    close("tie boundary", f(&points[0]["at"]), kink, 1e-9);
    let intervals = doc["intervals"].as_array().unwrap();
    assert_eq!(intervals.len(), 2, "{doc}");
    assert_eq!(intervals[0]["best"], "pool4_qsort");
    assert_eq!(intervals[0]["tied"].as_array().unwrap().len(), 0);
    close("tie start", f(&intervals[1]["lo"]), kink, 1e-9);
    assert_eq!(f(&intervals[1]["hi"]), 1e4);
    let tied: Vec<&str> = [&intervals[1]["best"]]
        .into_iter()
        .chain(intervals[1]["tied"].as_array().unwrap())
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(tied.len(), 2, "{doc}");
    assert!(tied.contains(&"threads") && tied.contains(&"pool4_qsort"));
    // Below the kink inc is the larger stage: pool4_qsort is faster.
    assert!(inc(2.0) > qsort(2.0) / 4.0);
}

#[test]
fn crossovers_tangency_and_errors() {
    // x^2 + 100 - 20x = (x - 10)^2: touches at 10, never below.
    let doc = json(&[
        "crossovers",
        &data("square.design"),
        &data("line.design"),
        "--span",
        "1..100",
    ]);
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0]["kind"], "tangency");
    close("tangency", f(&points[0]["at"]), 10.0, 1e-9);
    assert_eq!(doc["intervals"].as_array().unwrap().len(), 1);
    assert_eq!(doc["intervals"][0]["best"], "line");
    let text = stdout(&run(&[
        "crossovers",
        &data("square.design"),
        &data("line.design"),
        "--span",
        "1..100",
    ]));
    assert!(
        text.contains("x = 10") && text.contains("tangency: square touches line"),
        "{text}"
    );
    // A count no point binds.
    let err = fails(&[
        "crossovers",
        &data("threads.design"),
        &data("pool4_qsort.design"),
        "--span",
        "1..100",
    ]);
    assert!(err.contains("`n`"), "{err}");
    // A bad span is a usage error.
    let o = run(&[
        "crossovers",
        &data("square.design"),
        &data("line.design"),
        "--span",
        "5..1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = fails(&[
        "crossovers",
        &data("syntax_error.design"),
        &data("line.design"),
        "--span",
        "1..2",
    ]);
    assert!(err.ends_with("^\n"), "{err}");
}

#[test]
fn sweep_tables_hold_the_models() {
    let o = run(&[
        "sweep",
        &data("pool4_qsort.design"),
        &data("pool2_seq.design"),
        "--x",
        "1..1e3:4",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let csv = stdout(&o);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("x,pool4_qsort,pool2_seq"));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 4);
    for (row, x) in rows.iter().zip([1.0, 10.0, 100.0, 1000.0]) {
        assert_eq!(row[0], x);
        close("qsort/4", row[1], qsort(x) / 4.0, 1e-12);
        close("2 inc / 2", row[2], inc(x), 1e-12);
    }
    // Two axes, the rest of the point fixed, written as JSON.
    let out = std::env::temp_dir().join(format!("pattern-sweep-{}.json", std::process::id()));
    let doc = json(&[
        "sweep",
        &data("stages.design"),
        "--x",
        "1e3..1e6:4",
        "--axis",
        "a=1..4",
        "--at",
        "b=2,c=1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(doc["rows"], 16);
    let table: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert_eq!(table["columns"], serde_json::json!(["x", "a", "stages"]));
    for row in table["rows"].as_array().unwrap() {
        let (x, a) = (f(&row[0]), f(&row[1]) as u64);
        close("stages", f(&row[2]), stages_time(x, (a, 2, 1)), 1e-12);
    }
}

#[test]
fn thread_sweep_operators_queueing_simulation() {
    let doc = json(&[
        "sweep",
        &data("threads.design"),
        "--threads",
        "1..6",
        "--cores",
        "4",
        "--at",
        "x=1e4",
        "--simulate",
        "--elements",
        "200",
    ]);
    let columns = doc["columns"].as_array().unwrap();
    assert_eq!(columns.len(), 5, "{columns:?}");
    let x = 1e4;
    for (k, row) in doc["rows"].as_array().unwrap().iter().enumerate() {
        let n = (k + 1) as f64;
        assert_eq!(f(&row[0]), n);
        assert_eq!(f(&row[1]), n + 1.0, "threads");
        let operators = (qsort(x) / n).max(inc(x));
        close("operators", f(&row[2]), operators, 1e-12);
        // Queueing and simulation never beat the operators by more than
        // rounding. Up to 4 threads each has a core: the operators' time;
        // beyond, the 4 cores share all the work: (qsort + inc)/4.
        assert!(f(&row[3]) >= operators * (1.0 - 1e-9));
        let want = if n + 1.0 <= 4.0 {
            operators
        } else {
            (qsort(x) + inc(x)) / 4.0
        };
        close("queueing on 4 cores", f(&row[3]), want, 0.01);
        close("simulation on 4 cores", f(&row[4]), want, 0.05);
    }
}

#[test]
fn sweep_errors_point_at_the_axis() {
    let err = fails(&["sweep", &data("pool4_qsort.design"), "--x", "1..x"]);
    assert!(
        err.contains("--x: `x` is not a number at column 4\n  1..x\n     ^"),
        "{err}"
    );
    let err = fails(&["sweep", &data("pool4_qsort.design")]);
    assert!(err.contains("give the axes"), "{err}");
    let err = fails(&["sweep", &data("stages.design"), "--x", "1..4"]);
    assert!(err.contains("unbound variable `a`"), "{err}");
    let err = fails(&[
        "sweep",
        &data("stages.design"),
        "--threads",
        "1..4",
        "--cores",
        "2",
    ]);
    assert!(err.contains("several symbolic counts (a, b, c)"), "{err}");
    let err = fails(&[
        "sweep",
        &data("pool4_qsort.design"),
        "--x",
        "1..8",
        "-o",
        "/tmp/out.txt",
    ]);
    assert!(err.contains(".csv or .json"), "{err}");
}

/// A plot written to a fresh temporary file; returns its bytes.
fn plot(args: &[&str], name: &str) -> Vec<u8> {
    let out = std::env::temp_dir().join(format!("pattern-plot-{}-{name}", std::process::id()));
    let mut all = vec!["--json", "plot"];
    all.extend_from_slice(args);
    all.extend(["-o", out.to_str().unwrap()]);
    let o = run(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let doc: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let bytes = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert_eq!(doc["bytes"].as_u64(), Some(bytes.len() as u64));
    assert!(bytes.len() > 2000, "{name}: {} bytes", bytes.len());
    bytes
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";

#[test]
fn plots_are_written_in_both_formats() {
    let (a, b) = (data("pool4_qsort.design"), data("pool2_seq.design"));
    let svg = String::from_utf8(plot(&[&a, &b, "--x", "2..1e7"], "curves.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains("pool4_qsort") && svg.contains("pool2_seq"));
    let png = plot(&[&a, &b, "--x", "2..1e7"], "curves.png");
    assert!(png.starts_with(PNG));
    // The crossover is marked where it is.
    let out = std::env::temp_dir().join(format!("pattern-plot-{}-marks.svg", std::process::id()));
    let doc = json(&["plot", &a, &b, "--x", "2..1e7", "-o", out.to_str().unwrap()]);
    std::fs::remove_file(&out).unwrap();
    close(
        "mark",
        f(&doc["crossovers"][0]),
        2f64.powf(4.0 * 536.185 / 1034.17),
        1e-9,
    );
    let threads = [
        data("threads.design"),
        "--kind".into(),
        "threads".into(),
        "--threads".into(),
        "1..6".into(),
        "--cores".into(),
        "4".into(),
        "--at".into(),
        "x=1e4".into(),
        "--elements".into(),
        "100".into(),
    ];
    let threads: Vec<&str> = threads.iter().map(String::as_str).collect();
    let svg = String::from_utf8(plot(&threads, "threads.svg")).unwrap();
    assert!(svg.contains("operators") && svg.contains("queueing") && svg.contains("simulation"));
    assert!(plot(&threads, "threads.png").starts_with(PNG));
    let sim = [
        data("pipeline.design"),
        "--cores".into(),
        "2".into(),
        "--elements".into(),
        "50".into(),
        "--at".into(),
        "x=1024,a=2,b=1".into(),
    ];
    for kind in ["gantt", "efficiency"] {
        let mut args: Vec<&str> = sim.iter().map(String::as_str).collect();
        args.extend(["--kind", kind]);
        assert!(
            String::from_utf8(plot(&args, &format!("{kind}.svg")))
                .unwrap()
                .starts_with("<svg")
        );
        assert!(plot(&args, &format!("{kind}.png")).starts_with(PNG));
    }
}

#[test]
fn plot_errors() {
    let a = data("pool4_qsort.design");
    let err = fails(&["plot", &a, "-o", "/tmp/pattern-plot.txt"]);
    assert!(err.contains(".svg or .png"), "{err}");
    // qsort's model is 0 at x = 1: no point of a log axis.
    let err = fails(&[
        "plot",
        &a,
        "--x",
        "1..100",
        "-o",
        "/tmp/pattern-plot-error.svg",
    ]);
    assert!(err.contains("log axis"), "{err}");
    let err = fails(&[
        "plot",
        &a,
        "--x",
        "1..1e",
        "-o",
        "/tmp/pattern-plot-error.svg",
    ]);
    assert!(err.contains("^"), "{err}");
    let err = fails(&[
        "plot",
        &a,
        &a,
        "--kind",
        "gantt",
        "-o",
        "/tmp/pattern-plot-error.svg",
    ]);
    assert!(err.contains("one design, 2 given"), "{err}");
}
