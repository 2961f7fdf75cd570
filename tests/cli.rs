//! The `pattern` binary run on the files under `examples/data/`: each
//! subcommand's figures against values derived here (by hand or by a
//! computation of the test's own), and its errors: exit codes, messages,
//! the caret under the right column.

mod common;

use common::cli::*;

use pattern_core::strategies::shuffle_free_term;
use pattern_core::{Design, Expr};
use proptest::prelude::*;
use serde_json::Value;
use std::io::Read;
use std::process::{Command, Stdio};

// s1 = 2*x, s2 = x, pipe(tpool[a](s1), tpool[b](s2)).
#[test]
fn model_of_the_pipeline_at_points() {
    let file = data("pipeline.design");
    let doc = json(&[
        "model",
        &file,
        "--at",
        "x=1024,a=2,b=4",
        "--at",
        "x=10,a=1,b=1",
    ]);
    assert_eq!(doc["growth"], "O(x)");
    let points = doc["points"].as_array().unwrap();
    // max(2x/a, x/b), the latency 2x + x, the threads a + b.
    for (p, (x, a, b)) in points.iter().zip([(1024.0, 2.0, 4.0), (10.0, 1.0, 1.0)]) {
        close(
            "time per element",
            f(&p["time_per_element"]),
            f64::max(2.0 * x / a, x / b),
            1e-12,
        );
        close("latency", f(&p["latency"]), 3.0 * x, 1e-12);
        close("threads", f(&p["threads"]), a + b, 0.0);
        close("nodes", f(&p["nodes"]), 1.0, 0.0);
    }
    // The text report shows the same.
    let o = run(&["model", &file, "--at", "x=1024,a=2,b=4"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("threads             a + b"), "{text}");
    close("text", field(&text, "time per element"), 1024.0, 1e-12);
}

#[test]
fn asymptotic_model_and_bare_expressions() {
    // The paper's choice keeps the stage that grows fastest: qsort.
    let doc = json(&[
        "model",
        &data("paper_pipe.design"),
        "--asymptotic",
        "--at",
        "x=1024",
    ]);
    assert_eq!(doc["growth"], "O(x·log₂x)");
    let qsort = 1034.17 * 1024.0 * 10.0;
    close(
        "asymptotic",
        f(&doc["points"][0]["time_per_element"]),
        qsort,
        1e-12,
    );
    let e = "1034.17*x*log2(x) + 5422.97";
    let doc = json(&["model", "--expr", e, "--at", "x=1e6"]);
    let want = 1034.17 * 1e6 * 1e6f64.log2() + 5422.97;
    close("expression", f(&doc["points"][0]["value"]), want, 1e-12);
    assert_eq!(doc["growth"], "O(x·log₂x)");
}

/// seed 001's qsort and inc at x = 2: `pipe` costs max(qsort, inc), the
/// farm of two (qsort + inc)/2.
fn paper_at_2() -> (f64, f64) {
    let (qsort, inc): (f64, f64) = (1034.17 * 2.0, 536.185 * 2.0);
    (qsort.max(inc), (qsort + inc) / 2.0)
}

#[test]
fn compare_the_paper_designs_both_ways() {
    let (pipe, farm) = (data("paper_pipe.design"), data("paper_farm.design"));
    let (a, b) = paper_at_2();
    let doc = json(&["compare", &pipe, &farm]);
    assert_eq!(doc["never_worse"], true);
    let v = &doc["verdict"];
    assert_eq!(v["kind"], "never_worse");
    assert_eq!(v["proved"], true);
    assert_eq!(v["least_at"]["x"], 2);
    close("least speedup", f(&v["least_speedup"]), a / b, 1e-12);
    // The other way round B loses, first at x = 2, by the same ratio; the
    // worst ratio is at the top of the domain given.
    let doc = json(&["compare", &farm, &pipe, "--domain", "x=2..1e6"]);
    let v = &doc["verdict"];
    assert_eq!(
        (v["kind"].as_str(), v["at"]["x"].as_u64()),
        (Some("worse"), Some(2))
    );
    close("A there", f(&v["a"]), b, 1e-12);
    close("B there", f(&v["b"]), a, 1e-12);
    close("ratio", f(&v["ratio"]), a / b, 1e-12);
    assert_eq!(v["worst_at"]["x"], 1_000_000);
    let x = 1e6f64;
    let worst = (1034.17 * x * x.log2()) / ((1034.17 * x * x.log2() + 536.185 * x) / 2.0);
    close("worst ratio", f(&v["worst_ratio"]), worst, 1e-9);
}

/// The medians of the repetitions at each point of a region of an Extra-P
/// text file, read here.
fn medians(text: &str, region: &str) -> Vec<f64> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(r) = line.strip_prefix("REGION ") {
            inside = r.trim() == region;
        } else if let Some(values) = line.strip_prefix("DATA ").filter(|_| inside) {
            let mut v: Vec<f64> = values
                .split_whitespace()
                .map(|s| s.parse().unwrap())
                .collect();
            v.sort_by(f64::total_cmp);
            out.push(v[v.len() / 2]);
        }
    }
    out
}

#[test]
fn fit_finds_the_generating_models() {
    // The files hold the atoms qsort = 1034.17·x·log2(x), inc = 536.185·x
    // and nop = 5422.97 measured with up to ±1 % noise.
    let want = [
        ("qsort", "O(x·log₂x)", 1034.17),
        ("inc", "O(x)", 536.185),
        ("nop", "O(1)", 5422.97),
    ];
    let text = std::fs::read_to_string(data("kernels.txt")).unwrap();
    let mut models = Vec::new();
    for file in ["kernels.txt", "kernels.json"] {
        let doc = json(&["fit", &data(file)]);
        let series = doc["series"].as_array().unwrap();
        assert_eq!(series.len(), 3);
        // Extra-P's JSON keeps regions by name: look each up.
        for (region, class, coefficient) in want {
            let s = series.iter().find(|s| s["region"] == region).unwrap();
            assert_eq!(s["fit"]["class"], class, "{region}");
            close(
                region,
                f(&s["fit"]["leading_coefficient"]),
                coefficient,
                0.01,
            );
            assert!(f(&s["fit"]["smape"]) < 1.0, "{region}: within the noise");
            let got: Vec<f64> = s["measurements"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| f(&m["median"]))
                .collect();
            assert_eq!(got, medians(&text, region), "{region}");
            models.push(s["fit"]["model"].clone());
        }
    }
    // The same measurements in both formats: the same models.
    assert_eq!(models[..3], models[3..]);
    // One region alone, in the text report.
    let o = run(&["fit", &data("kernels.txt"), "--region", "inc"]);
    let report = stdout(&o);
    assert!(
        report.starts_with("region: inc\n  metric: time\n"),
        "{report}"
    );
    assert!(report.contains("growth                O(x)"), "{report}");
    assert!(!report.contains("qsort"));
}

#[test]
fn fit_errors() {
    let o = run(&["fit", &data("kernels.txt"), "--region", "sort"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no series of region `sort` (it has: qsort/time, inc/time, nop/time)"),
        "{}",
        stderr(&o)
    );
    let o = run(&["fit", &data("pipeline.design")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("line 1"), "{}", stderr(&o));
}

#[test]
fn simulate_the_pipeline() {
    let file = data("pipeline.design");
    let dir = std::env::temp_dir().join(format!("pattern-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (trace, eff, gantt) = (dir.join("t.json"), dir.join("e.svg"), dir.join("g.svg"));
    // Two cores for three threads: the cores never idle, each element's
    // work 2x + x is shared by both.
    let doc = json(&[
        "simulate",
        &file,
        "--cores",
        "2",
        "--elements",
        "10000",
        "--at",
        "x=1024,a=2,b=1",
        "--trace",
        trace.to_str().unwrap(),
        "--efficiency",
        eff.to_str().unwrap(),
        "--gantt",
        gantt.to_str().unwrap(),
    ]);
    close(
        "time per element",
        f(&doc["time_per_element"]),
        3.0 * 1024.0 / 2.0,
        1e-9,
    );
    assert!(f(&doc["core_utilization"][0]) > 0.999);
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let steps = t["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X");
    // An s1 step and an s2 step per element.
    assert_eq!(steps.count(), 2 * 10000);
    for svg in [&eff, &gantt] {
        assert!(std::fs::read_to_string(svg).unwrap().starts_with("<svg"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
    // Four cores: a core per thread. s2 (x per element) is the bottleneck,
    // busy from the end of the first s1 step (2x) on: 2x + N·x in all.
    let o = run(&[
        "simulate",
        &file,
        "--cores",
        "4",
        "--elements",
        "10000",
        "--at",
        "x=1024,a=2,b=1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    // The report rounds to 6 significant digits.
    close(
        "makespan",
        field(&text, "makespan"),
        2048.0 + 10000.0 * 1024.0,
        5e-6,
    );
    close(
        "time per element",
        field(&text, "time per element"),
        1024.0,
        1e-6,
    );
}

#[test]
fn simulate_errors() {
    let file = data("pipeline.design");
    // The counts need values.
    let o = run(&["simulate", &file, "--at", "x=1024"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("the count `a` needs a value: give it with --at a=.."),
        "{}",
        stderr(&o)
    );
    let o = run(&["simulate", &file, "--cores", "0", "--at", "x=1,a=1,b=1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("at least one node of at least one core"),
        "{}",
        stderr(&o)
    );
}

/// Exact MVA of queues and delays, by its recursion: `(X, R_k)` at `n`.
fn mva(stations: &[(f64, bool)], n: usize) -> (f64, Vec<f64>) {
    let mut q = vec![0.0; stations.len()];
    let (mut x, mut r) = (0.0, vec![0.0; stations.len()]);
    for jobs in 1..=n {
        for (k, &(d, delay)) in stations.iter().enumerate() {
            r[k] = if delay { d } else { d * (1.0 + q[k]) };
        }
        x = jobs as f64 / r.iter().sum::<f64>();
        for k in 0..stations.len() {
            q[k] = x * r[k];
        }
    }
    (x, r)
}

#[test]
fn mva_of_a_network_file() {
    // cpu 0.2, disk 0.5, think 3.0 (a delay), 10 jobs.
    let stations = [(0.2, false), (0.5, false), (3.0, true)];
    let doc = json(&["mva", &data("interactive.json")]);
    let (x, r) = mva(&stations, 10);
    let x10 = x;
    close("throughput", f(&doc["throughput"]), x, 1e-12);
    close(
        "response time",
        f(&doc["response_time"]),
        r[0] + r[1],
        1e-12,
    );
    for (k, s) in doc["stations"].as_array().unwrap().iter().enumerate() {
        close(
            "utilization",
            f(&s["utilization"]),
            x * stations[k].0,
            1e-12,
        );
        close("queue length", f(&s["queue_length"]), x * r[k], 1e-12);
        close("residence", f(&s["residence_time"]), r[k], 1e-12);
    }
    assert_eq!(doc["bottleneck"], "disk");
    // N* = (D + Z) / D_max.
    close(
        "N*",
        f(&doc["optimal_population"]),
        (0.7 + 3.0) / 0.5,
        1e-12,
    );
    let doc = json(&[
        "mva",
        &data("interactive.json"),
        "--population",
        "12",
        "--sweep",
    ]);
    let sweep = doc["sweep"].as_array().unwrap();
    assert_eq!(sweep.len(), 12);
    for (n, row) in (1..=12).zip(sweep) {
        let (x, r) = mva(&stations, n);
        close("swept throughput", f(&row["throughput"]), x, 1e-12);
        close(
            "swept response",
            f(&row["response_time"]),
            r[0] + r[1],
            1e-12,
        );
        close(
            "bound",
            f(&row["throughput_upper"]),
            (n as f64 / 3.7).min(2.0),
            1e-12,
        );
    }
    // Schweitzer-Bard's approximation: its fixed point.
    let doc = json(&["mva", &data("interactive.json"), "--approx=schweitzer-bard"]);
    let bard = schweitzer(&stations, 10);
    close("approximate", f(&doc["throughput"]), bard, 1e-6);
    assert_eq!(doc["approximation"], "schweitzer-bard");
    // The Linearizer, the default: within its documented 0.5 % of exact
    // MVA on queues and delays, and closer than Schweitzer-Bard here.
    let doc = json(&["mva", &data("interactive.json"), "--approx"]);
    let linearizer = f(&doc["throughput"]);
    close("Linearizer", linearizer, x10, 5e-3);
    assert!((linearizer - x10).abs() < (bard - x10).abs() / 10.0);
    assert_eq!(doc["approximation"], "linearizer");
    assert_eq!(doc["exact"], false);
}

/// Schweitzer-Bard's approximate MVA, iterated to its fixed point: the
/// throughput at `n` jobs.
fn schweitzer(stations: &[(f64, bool)], n: usize) -> f64 {
    let jobs = n as f64;
    let mut q: Vec<f64> = stations
        .iter()
        .map(|_| jobs / stations.len() as f64)
        .collect();
    let mut x = 0.0;
    for _ in 0..100_000 {
        let r: Vec<f64> = stations
            .iter()
            .zip(&q)
            .map(|(&(d, delay), &q)| {
                if delay {
                    d
                } else {
                    d * (1.0 + q * (jobs - 1.0) / jobs)
                }
            })
            .collect();
        x = jobs / r.iter().sum::<f64>();
        q = r.iter().map(|r| x * r).collect();
    }
    x
}

#[test]
fn mva_of_a_design_on_cores() {
    // Two cores saturated by three threads: the work per element over the
    // cores; the operators alone say max(2x/2, x) = 1024.
    let doc = json(&[
        "mva",
        &data("pipeline.design"),
        "--cores",
        "2",
        "--at",
        "x=1024,a=2,b=1",
    ]);
    close(
        "time per element",
        f(&doc["time_per_element"]),
        3.0 * 1024.0 / 2.0,
        1e-9,
    );
    close("operators", f(&doc["operators_model"]), 1024.0, 1e-12);
    assert_eq!(doc["machine"]["summary"], "1 node of 2 cores");
    assert_eq!(doc["machine"]["origin"], "options");
    // No machine: a core for every thread (three), as the operators assume.
    let doc = json(&["mva", &data("pipeline.design"), "--at", "x=1024,a=2,b=1"]);
    assert_eq!(doc["machine"]["summary"], "1 node of 3 cores");
    assert_eq!(doc["machine"]["origin"], "assumed");
    assert!(f(&doc["time_per_element"]) >= 1024.0);
}

/// The line of `stderr` with the caret, and the one above it.
fn caret(stderr: &str) -> (String, usize) {
    let lines: Vec<&str> = stderr.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == "^")
        .unwrap_or_else(|| panic!("no caret in\n{stderr}"));
    let column = lines[at].chars().count() - 1;
    (lines[at - 1].to_string(), column)
}

#[test]
fn syntax_errors_show_the_caret_under_the_column() {
    // Line 3 of the file is `pipe(qsort, inc))`: the second `)` is extra.
    let o = run(&["model", &data("syntax_error.design")]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("syntax_error.design"), "{err}");
    assert!(err.contains("line 3, column 17"), "{err}");
    let (excerpt, column) = caret(&err);
    assert_eq!(excerpt.trim(), "pipe(qsort, inc))");
    assert_eq!(excerpt.chars().nth(column), Some(')'));
    assert_eq!(excerpt[..column].trim(), "pipe(qsort, inc)");
    assert!(o.stdout.is_empty());
    // An expression: the caret under the `*` that cannot start an operand.
    let o = run(&["model", "--expr", "2*x +* 3"]);
    assert_eq!(o.status.code(), Some(1));
    let (excerpt, column) = caret(&stderr(&o));
    assert_eq!(excerpt.trim(), "2*x +* 3");
    assert_eq!(excerpt.chars().nth(column), Some('*'));
    assert_eq!(excerpt[..column].trim(), "2*x +");
}

/// Every subcommand that reads a design shows the caret under the extra
/// `)` of `syntax_error.design`, exits 1 and prints nothing on stdout.
#[test]
fn every_design_reader_shows_the_caret() {
    let bad = data("syntax_error.design");
    let good = data("pool4_qsort.design");
    let out = std::env::temp_dir().join(format!("pattern-caret-{}.svg", std::process::id()));
    let out = out.to_str().expect("a UTF-8 path");
    let commands: [Vec<&str>; 12] = [
        vec!["model", &bad],
        vec!["compare", &good, &bad],
        vec!["simulate", &bad],
        vec!["mva", &bad, "--cores", "2"],
        vec!["best", &bad, "--budget", "8"],
        vec!["crossovers", &good, &bad, "--span", "1..1e6"],
        vec!["sweep", &good, &bad, "--x", "1..1e3:4"],
        vec!["sweep", &bad, "--threads", "1..4", "--at", "x=1e3"],
        vec!["plot", &good, &bad, "--x", "1..1e3", "-o", out],
        vec![
            "plot",
            &bad,
            "--kind",
            "threads",
            "--threads",
            "1..4",
            "-o",
            out,
        ],
        vec!["rank", &bad, "--budget", "8"],
        vec!["sensitivity", &bad, "--at", "x=1e3"],
    ];
    for args in &commands {
        let o = run(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(
            err.starts_with("error: ")
                && err.contains("syntax_error.design: ")
                && err.contains("found `)` at line 3, column 17"),
            "{args:?}: {err}"
        );
        let (excerpt, column) = caret(&err);
        assert_eq!(excerpt.trim(), "pipe(qsort, inc))", "{args:?}");
        assert_eq!(excerpt.chars().nth(column), Some(')'), "{args:?}");
        assert_eq!(excerpt[..column].trim(), "pipe(qsort, inc)", "{args:?}");
    }
    assert!(
        !std::path::Path::new(out).exists(),
        "a failed plot wrote {out}"
    );
}

/// The measurements of `fit` and the networks of `mva` show the line at
/// fault with the caret under its column.
#[test]
fn data_and_network_files_show_the_caret() {
    let err = fails(&["fit", &data("syntax_error.txt")]);
    assert!(
        err.contains("syntax_error.txt: line 5, column 9: `2l` is not a number"),
        "{err}"
    );
    let (excerpt, column) = caret(&err);
    assert_eq!(excerpt.trim(), "DATA 20 2l");
    assert_eq!(&excerpt[column..], "2l");
    let err = fails(&["mva", &data("syntax_error.json")]);
    assert!(
        err.contains("syntax_error.json: trailing comma at line 4 column"),
        "{err}"
    );
    let (excerpt, column) = caret(&err);
    assert!(excerpt.trim().starts_with("{ \"name\": \"cpu\""), "{err}");
    assert_eq!(excerpt.chars().nth(column), Some('}'), "{err}");
}

#[test]
fn input_and_usage_errors() {
    // A missing file: an input error.
    let o = run(&["model", &data("no_such.design")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read") && stderr(&o).contains("no_such.design"));
    // A bad --at: a usage error, as clap reports them.
    for bad in ["x=abc", "x", "x=1,x=2", "=3"] {
        let o = run(&["model", &data("pipeline.design"), "--at", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains("--at"), "{bad}: {}", stderr(&o));
    }
    // A point that leaves a count unbound: an input error naming it.
    let o = run(&["model", &data("pipeline.design"), "--at", "x=1024"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unbound variable `a`"),
        "{}",
        stderr(&o)
    );
    // No subcommand, an unknown one, a bad domain.
    assert_eq!(run(&[]).status.code(), Some(2));
    assert_eq!(run(&["best"]).status.code(), Some(2));
    let o = run(&[
        "compare",
        &data("paper_pipe.design"),
        &data("paper_farm.design"),
        "--domain",
        "x=9..3",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("empty"));
    // A sweep of more rows than anyone reads.
    let o = run(&[
        "mva",
        &data("interactive.json"),
        "--population",
        "2000000",
        "--sweep",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("at most 1000000"), "{}", stderr(&o));
    // An approximation that does not exist: a usage error naming those that do.
    let o = run(&["mva", &data("interactive.json"), "--approx=newton"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("newton") && stderr(&o).contains("schweitzer-bard"),
        "{}",
        stderr(&o)
    );
    // A network file that is not one.
    let o = run(&["mva", &data("kernels.json"), "--population", "3"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("kernels.json"), "{}", stderr(&o));
}

#[test]
fn help_lists_every_subcommand() {
    let o = run(&["--help"]);
    assert!(o.status.success());
    let help = stdout(&o);
    for command in [
        "model",
        "compare",
        "fit",
        "simulate",
        "mva",
        "best",
        "crossovers",
        "sweep",
        "plot",
        "rank",
        "sensitivity",
    ] {
        assert!(help.contains(&format!("  {command} ")), "{command}: {help}");
    }
    let o = run(&["help", "mva"]);
    assert!(stdout(&o).contains("--population"));
}

#[test]
fn a_closed_pipe_is_not_a_panic() {
    // Far more output than a pipe holds; the reader leaves after a few bytes.
    let mut child = Command::new(BIN)
        .args([
            "mva",
            &data("interactive.json"),
            "--population",
            "20000",
            "--sweep",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    out.read_exact(&mut first).unwrap();
    drop(out);
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert!(o.status.success(), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(24)))]

    /// Any design written to a file: the command's figures are the
    /// library's at the point, and the model it prints reads back to the
    /// same values.
    #[test]
    fn model_agrees_with_the_library(
        term in shuffle_free_term(3),
        x in 2u32..1_000_000,
        n in 1u32..64,
        p in 1u32..64,
    ) {
        let design = Design::from_term(term).unwrap();
        let file = std::env::temp_dir().join(format!(
            "pattern-cli-model-{}-{x}-{n}-{p}.design",
            std::process::id()
        ));
        std::fs::write(&file, design.to_string()).unwrap();
        // Only the names the design has: another is an error.
        let r = design.resources();
        let mut names = design.model().vars();
        for e in [design.latency(), r.threads, r.nodes] {
            names.extend(e.vars());
        }
        let point: Vec<(&str, f64)> = [("x", f64::from(x)), ("n", f64::from(n)), ("p", f64::from(p))]
            .into_iter()
            .filter(|(name, _)| names.contains(*name))
            .collect();
        let at: Vec<String> = point.iter().map(|(name, v)| format!("{name}={v}")).collect();
        let mut args = vec!["model", file.to_str().unwrap()];
        let at = at.join(",");
        if !at.is_empty() {
            args.extend(["--at", &at]);
        }
        let doc = json(&args);
        std::fs::remove_file(&file).unwrap();
        let want = design.model().eval(&point).unwrap();
        let got = &doc["points"][0];
        prop_assert!((f(&got["time_per_element"]) - want).abs() <= 1e-12 * want.abs());
        let latency = design.latency().eval(&point).unwrap();
        prop_assert!((f(&got["latency"]) - latency).abs() <= 1e-12 * latency.abs());
        let threads = design.resources().threads.eval(&point).unwrap();
        prop_assert_eq!(f(&got["threads"]), threads);
        let printed = Expr::parse(doc["model"].as_str().unwrap()).unwrap();
        let again = printed.eval(&point).unwrap();
        prop_assert!((again - want).abs() <= 1e-9 * want.abs(), "{} vs {}", again, want);
    }
}

/// Splits a command line of the docs: words, `'quoted words'`.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut any) = (false, false);
    for c in line.chars() {
        match c {
            '\'' => (quoted, any) = (!quoted, true),
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => (word.push(c), any = true).1,
        }
    }
    if any {
        out.push(word);
    }
    out
}

#[test]
fn the_docs_show_real_output() {
    let root = env!("CARGO_MANIFEST_DIR");
    let doc = std::fs::read_to_string(format!("{root}/docs/cli.md")).unwrap();
    let mut checked = 0;
    for block in doc.split("```console\n").skip(1) {
        let block = &block[..block.find("```").unwrap()];
        let (command, shown) = block.split_once('\n').unwrap();
        let Some(command) = command.strip_prefix("$ pattern ") else {
            continue;
        };
        let o = Command::new(BIN)
            .args(words(command))
            .current_dir(root)
            .output()
            .unwrap();
        let got = format!("{}{}", stdout(&o), stderr(&o));
        assert_eq!(got.trim_end(), shown.trim_end(), "`pattern {command}`");
        checked += 1;
    }
    assert!(checked >= 10, "{checked} commands");
}
