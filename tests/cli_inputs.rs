//! The command line's checks of what it is given (issue "values kept,
//! inputs checked"): counts printed exactly, names and counts at `--at`
//! checked, options a combination would ignore refused, negative times
//! refused in every semantics, standard input read by every command, fit's
//! refusals, messages in the command line's words, the nesting limit.

mod common;

use common::cli::*;

use pattern_core::Expr;
use serde_json::Value;

/// The text after `label` on its line of a report.
fn row<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .unwrap_or_else(|| panic!("no `{label}` in\n{text}"))
        .trim()
}

#[test]
fn counts_are_exact_in_every_report() {
    // 123456789012345 is exact in an f64; a model rounded to 12 digits
    // made it 123456789012000.
    let fixed = temp_file("big.design", "a = x; tpool[123456789012345](a)");
    let o = run(&["model", &fixed, "--at", "x=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let rows: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("threads"))
        .map(str::trim)
        .collect();
    assert_eq!(rows, ["123456789012345", "123456789012345"], "{text}");
    assert!(
        row(&text, "machine").starts_with("1 node of 123456789012345 cores"),
        "{text}"
    );
    let doc = json(&["model", &fixed, "--at", "x=1"]);
    assert_eq!(doc["threads"], "123456789012345");
    assert_eq!(doc["points"][0]["threads"].as_u64(), Some(123456789012345));
    assert_eq!(
        doc["machine"]["description"]["nodes"][0]["cores"].as_u64(),
        Some(123456789012345)
    );
    // With a named count beside it: the threads at a point, the threads
    // sweep and the best counts, all exact.
    let named = temp_file(
        "big_named.design",
        "a = x; b = x; pipe(tpool[123456789012345](a), tpool[n](b))",
    );
    let doc = json(&["model", &named, "--at", "x=1,n=2"]);
    assert_eq!(doc["points"][0]["threads"].as_u64(), Some(123456789012347));
    let doc = json(&["sweep", &named, "--threads", "1..3", "--at", "x=1e20"]);
    let threads: Vec<f64> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| f(&r[1]))
        .collect();
    assert_eq!(
        threads,
        [123456789012346.0, 123456789012347.0, 123456789012348.0]
    );
    let doc = json(&[
        "best",
        &named,
        "--budget",
        "123456789012350",
        "--at",
        "x=1e20",
        "--range",
        "n=1..3",
    ]);
    assert_eq!(doc["best"]["counts"]["n"].as_u64(), Some(3));
    assert_eq!(doc["best"]["threads"].as_u64(), Some(123456789012348));
}

#[test]
fn counts_at_a_point_are_whole_numbers_from_one() {
    let file = data("pipeline.design");
    for bad in ["-1", "2.5", "0"] {
        let err = fails(&["model", &file, "--at", &format!("x=10,a={bad},b=1")]);
        assert!(
            err.contains(&format!(
                "--at: the count `a` is {bad}: a count is a whole number from 1 to 2^53"
            )),
            "{err}"
        );
    }
    for command in ["simulate", "mva"] {
        let err = fails(&[command, &file, "--at", "x=10,a=1,b=2.5"]);
        assert!(err.contains("the count `b` is 2.5"), "{command}: {err}");
    }
}

#[test]
fn unknown_names_are_errors_with_the_nearest() {
    let file = data("pipeline.design");
    let err = fails(&["model", &file, "--at", "x=10,A=3"]);
    assert_eq!(
        err.trim(),
        "error: --at: `A` is not a variable or count of the design (it has a, b, x); did you mean `a`?"
    );
    for command in [
        vec!["simulate", &file, "--at", "x=10,a=1,b=1,bb=2"],
        vec!["best", &file, "--budget", "4", "--at", "x=10,bb=2"],
        vec!["rank", &file, "--budget", "4", "--at", "x=10,bb=2"],
        vec!["sweep", &file, "--x", "1..4", "--at", "bb=2"],
        vec!["sensitivity", &file, "--at", "x=10,a=1,b=1,bb=2"],
    ] {
        let err = fails(&command);
        assert!(
            err.contains("`bb` is not a variable or count"),
            "{command:?}: {err}"
        );
        assert!(err.contains("did you mean `b`?"), "{command:?}: {err}");
    }
    let err = fails(&["model", &file, "--var", "y"]);
    assert!(
        err.contains("--var: `y` is not a variable or count of the design"),
        "{err}"
    );
    let err = fails(&["model", "--expr", "2*x + n", "--at", "x=1,m=2"]);
    assert!(err.contains("`m` is not a variable"), "{err}");
    let err = fails(&[
        "sweep",
        &file,
        "--threads",
        "1..4",
        "--count",
        "aa",
        "--at",
        "x=10,b=1",
    ]);
    assert!(
        err.contains("--count: `aa` is not a count of the design (it has a, b); did you mean `a`?"),
        "{err}"
    );
    let err = fails(&[
        "compare",
        &data("paper_pipe.design"),
        &data("paper_farm.design"),
        "--domain",
        "y=1..9",
    ]);
    assert!(err.contains("--domain: `y` is not a variable"), "{err}");
    let err = fails(&[
        "best", &file, "--budget", "8", "--at", "x=10", "--range", "x=1..4",
    ]);
    assert!(err.contains("--range: `x` is not a count"), "{err}");
}

#[test]
fn options_a_combination_would_ignore_are_errors() {
    let file = data("pipeline.design");
    let stages = data("stages.design");
    let network = data("interactive.json");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "sweep", &file, "--x", "1..4", "--at", "a=1,b=1", "--cores", "2",
            ],
            "--machine, --cores and --nodes are for --threads",
        ),
        (
            vec![
                "sweep",
                &file,
                "--x",
                "1..4",
                "--at",
                "a=1,b=1",
                "--elements",
                "5",
            ],
            "--elements is only for --threads with --simulate",
        ),
        (
            vec!["sweep", &file, "--x", "1..4", "--at", "x=3,a=1,b=1"],
            "--x and --at x=..: `x` is either swept or fixed",
        ),
        (
            vec![
                "sweep",
                &file,
                "--threads",
                "1..4",
                "--count",
                "a",
                "--at",
                "x=10,a=2,b=1",
            ],
            "`a` is the count the threads vary",
        ),
        (
            vec![
                "best",
                &stages,
                "--budget",
                "16",
                "--at",
                "x=1000",
                "--sizes",
                "x=1e2..1e6:9",
            ],
            "--sizes x=.. and --at x=..: the sizes give `x`",
        ),
        (
            vec![
                "best",
                &stages,
                "--budget",
                "16",
                "--at",
                "x=1000",
                "--elements",
                "10",
            ],
            "--elements is only for --simulate",
        ),
        (
            vec![
                "best",
                &stages,
                "--budget",
                "16",
                "--at",
                "x=1000,a=2",
                "--range",
                "a=1..4",
            ],
            "a count is either fixed or searched",
        ),
        (
            vec![
                "rank",
                &stages,
                "--budget",
                "16",
                "--at",
                "x=1000",
                "--elements",
                "10",
            ],
            "--elements is only for --simulate",
        ),
        (
            vec!["simulate", &file, "--at", "x=10,a=1,b=1", "--window", "5"],
            "--window is only for --efficiency FILE",
        ),
        (
            vec!["simulate", &file, "--at", "x=10,a=1,b=1", "--seed", "5"],
            "--seed is only for random durations",
        ),
        (
            vec!["mva", &network, "--buffer", "2"],
            "--buffer, --rate and --at are for a design",
        ),
        (
            vec![
                "plot",
                &file,
                "-o",
                "/tmp/never.svg",
                "--at",
                "a=1,b=1",
                "--threads",
                "1..4",
            ],
            "--threads is only for --kind threads",
        ),
        (
            vec![
                "plot",
                &file,
                "-o",
                "/tmp/never.svg",
                "--at",
                "a=1,b=1",
                "--window",
                "3",
            ],
            "--window is only for --kind efficiency",
        ),
        (
            vec![
                "plot",
                &file,
                "-o",
                "/tmp/never.svg",
                "--at",
                "a=1,b=1",
                "--elements",
                "3",
            ],
            "--elements is only for the simulated kinds",
        ),
        (
            vec![
                "plot",
                &file,
                "-o",
                "/tmp/never.svg",
                "--at",
                "a=1,b=1",
                "--count",
                "a",
            ],
            "--count is only for --kind threads",
        ),
        (
            vec!["plot", &file, "-o", "/tmp/never.svg", "--at", "x=4,a=1,b=1"],
            "the curves' axis is x",
        ),
        (
            vec![
                "plot",
                &file,
                "-o",
                "/tmp/never.svg",
                "--kind",
                "gantt",
                "--at",
                "x=4,a=1,b=1",
                "--x",
                "1..9",
            ],
            "--x is only for --kind curves",
        ),
        (
            vec!["model", "--expr", "2*x", "--asymptotic"],
            "--asymptotic is only for a design's model",
        ),
        (
            vec!["sensitivity", &file, "--at", "x=4,a=1,b=1", "--var", "a"],
            "--var is only for --span",
        ),
    ];
    for (args, message) in cases {
        let err = fails(&args);
        assert!(err.contains(message), "{args:?}: {err}");
    }
    assert!(!std::path::Path::new("/tmp/never.svg").exists());
    // What a command needs bound at --at, named with the option.
    for args in [
        vec!["simulate", &file, "--at", "x=10"],
        vec!["mva", &file, "--at", "x=10,b=1"],
        vec!["sensitivity", &file, "--at", "x=10,b=1"],
        vec![
            "plot",
            &file,
            "-o",
            "/tmp/never.svg",
            "--kind",
            "gantt",
            "--at",
            "x=10,b=1",
        ],
    ] {
        let err = fails(&args);
        assert!(
            err.contains("the count `a` needs a value: give it with --at a=.."),
            "{args:?}: {err}"
        );
    }
    let err = fails(&["rank", &file, "--budget", "4"]);
    assert!(
        err.contains("the variable `x` needs a value: give it with --at x=.."),
        "{err}"
    );
}

/// The model of qsort that `fit` finds in the shipped kernels, as text.
fn fitted_qsort() -> String {
    let doc = json(&["fit", &data("kernels.txt"), "--region", "qsort"]);
    doc["series"][0]["fit"]["model"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn negative_times_are_refused_in_every_semantics() {
    // A stage the max hides: latency -40 at x = 8 before.
    let neg = temp_file("negative.design", "a = -5*x; b = x; pipe(a, b)");
    let err = fails(&["model", &neg, "--at", "x=8"]);
    assert_eq!(
        err.trim(),
        "error: the model of `a` gives -40 ns at x = 8: a time is a finite number >= 0"
    );
    // The fitted qsort turns negative below x of about 21.
    let qsort = fitted_qsort();
    let model = Expr::parse(&qsort).unwrap();
    let at2 = model.eval(&[("x", 2.0)]).unwrap();
    assert!(at2 < 0.0, "{qsort}");
    let fixed = temp_file("fitted.design", &format!("q = {qsort}; tpool[2](q)"));
    let counted = temp_file("fitted_n.design", &format!("q = {qsort}; tpool[n](q)"));
    let other = data("pool2_seq.design");
    let at = format!("the model of `q` gives {at2} ns at x = 2: a time is a finite number >= 0");
    for args in [
        vec!["model", &fixed, "--at", "x=2"],
        vec!["simulate", &fixed, "--at", "x=2"],
        vec!["mva", &fixed, "--at", "x=2"],
        vec!["best", &counted, "--budget", "4", "--at", "x=2"],
        vec!["rank", &counted, "--budget", "4", "--at", "x=2"],
        vec!["sensitivity", &fixed, "--at", "x=2"],
        vec![
            "plot",
            &counted,
            "-o",
            "/tmp/never.png",
            "--kind",
            "threads",
            "--at",
            "x=2",
        ],
    ] {
        let err = fails(&args);
        assert!(err.contains(&at), "{args:?}: {err}");
    }
    // Over a range: found at its low end.
    let at1 = model.eval(&[("x", 1.0)]).unwrap();
    let low = format!("the model of `q` gives {at1} ns at x = 1");
    for args in [
        vec!["sweep", &fixed, "--x", "1..100:5"],
        vec!["crossovers", &fixed, &other, "--span", "1..1e6"],
        vec!["compare", &fixed, &fixed, "--domain", "x=1..100"],
        vec!["plot", &fixed, "-o", "/tmp/never.svg", "--x", "1..100"],
        vec!["best", &counted, "--budget", "4", "--sizes", "x=1..1e6:7"],
    ] {
        let err = fails(&args);
        assert!(err.contains(&low), "{args:?}: {err}");
    }
    // Where the model is positive, it prices as before.
    let doc = json(&["model", &fixed, "--at", "x=64"]);
    close(
        "time",
        f(&doc["points"][0]["time_per_element"]),
        model.eval(&[("x", 64.0)]).unwrap() / 2.0,
        1e-12,
    );
}

#[test]
fn every_command_reads_standard_input() {
    let kernels = std::fs::read_to_string(data("kernels.txt")).unwrap();
    let o = run_stdin(&["--json", "fit", "-", "--region", "qsort"], &kernels);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        doc["series"][0]["fit"]["model"].as_str().unwrap(),
        fitted_qsort()
    );
    let from_json = std::fs::read_to_string(data("kernels.json")).unwrap();
    let o = run_stdin(&["fit", "-"], &from_json);
    assert!(o.status.success(), "{}", stderr(&o));
    let network = std::fs::read_to_string(data("interactive.json")).unwrap();
    let o = run_stdin(&["--json", "mva", "-", "--population", "3"], &network);
    assert!(o.status.success(), "{}", stderr(&o));
    let piped: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let file = json(&["mva", &data("interactive.json"), "--population", "3"]);
    assert_eq!(piped["throughput"], file["throughput"]);
    let design = std::fs::read_to_string(data("pipeline.design")).unwrap();
    let o = run_stdin(
        &["mva", "-", "--cores", "2", "--at", "x=1024,a=2,b=1"],
        &design,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("pipe(tpool[a](s1), tpool[b](s2))"));
    // A machine file too; `-` twice is an error, not an empty second file.
    let machine = std::fs::read_to_string(data("star.machine.json")).unwrap();
    let o = run_stdin(
        &["model", &data("pipeline.design"), "--machine", "-"],
        &machine,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        row(&stdout(&o), "machine").starts_with("8 nodes of 8 cores"),
        "{}",
        stdout(&o)
    );
    let o = run_stdin(&["model", "-", "--machine", "-"], &design);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("`-` is given twice"), "{}", stderr(&o));
}

#[test]
fn fit_refuses_what_it_cannot_read_whole() {
    // Five points, four DATA lines: refused, with the line.
    let short = temp_file(
        "short.txt",
        "PARAMETER x
POINTS 1 2 3 4 5
REGION r
METRIC m
DATA 1
DATA 2
DATA 3
DATA 4
",
    );
    let err = fails(&["fit", &short]);
    assert!(err.contains("line 5, column 1: region `r`, metric `m` has 4 DATA lines from here, but POINTS has 5 points"), "{err}");
    // A JSON point without values.
    let empty = temp_file(
        "empty.json",
        r#"{"parameters": ["x"], "measurements": {"r": {"m": [
        {"point": [1], "values": [1]}, {"point": [2], "values": []}]}}}"#,
    );
    let err = fails(&["fit", &empty]);
    assert!(err.contains("point [2] of `r`/`m` has no values"), "{err}");
    // Extra-P's .JSON files are JSON.
    let upper = temp_file(
        "kernels.JSON",
        &std::fs::read_to_string(data("kernels.json")).unwrap(),
    );
    let lower = json(&["fit", &data("kernels.json")]);
    let doc = json(&["fit", &upper]);
    assert_eq!(doc["series"], lower["series"]);
    // A diagonal design names its problem.
    let diagonal = temp_file(
        "diagonal.txt",
        "PARAMETER p n
POINTS (1 1) (2 2) (3 3) (4 4) (5 5)
DATA 1
DATA 2
DATA 3
DATA 4
DATA 5
",
    );
    let o = run(&["fit", &diagonal]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("no model: the points vary all parameters at once: `p` takes 5 values, but at most 1 of them"), "{}", stdout(&o));
    // Values that overflow: no model 1e999.
    let huge = temp_file(
        "huge.txt",
        "PARAMETER x
POINTS 1 2 3 4 5
DATA 1e300
DATA 1e305
DATA 1e307
DATA 1.5e308
DATA 1.7e308
",
    );
    let o = run(&["fit", &huge]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.contains("no model: the values overflow the fit (the largest is 1.7e308"),
        "{text}"
    );
    assert!(!text.contains("1e999"), "{text}");
    // A negative value names the flag that allows it.
    let negative = temp_file(
        "negative.txt",
        "PARAMETER x
POINTS 1 2 3 4 5
DATA 1
DATA -2
DATA 3
DATA 4
DATA 5
",
    );
    let o = run(&["fit", &negative]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.contains("give --allow-negative to fit them") && !text.contains("Fitter::"),
        "{text}"
    );
    let doc = json(&["fit", &negative, "--allow-negative"]);
    assert!(doc["series"][0]["fit"]["model"].is_string(), "{doc}");
}

#[test]
fn messages_speak_the_command_line() {
    // Exact MVA out of reach: the flag, not the Rust method.
    let network = temp_file(
        "load_dependent.json",
        r#"{"population": 1000000, "stations": [
            {"name": "net", "kind": "load_dependent", "demand": 0.1, "rates": [1, 1.8]},
            {"name": "cpu", "kind": "queue", "demand": 0.2}]}"#,
    );
    let err = fails(&["mva", &network]);
    assert!(
        err.contains("give --approx") && !err.contains("mva_approx"),
        "{err}"
    );
    // A crossover error names the design's file, not `model 0`.
    let err = fails(&[
        "crossovers",
        &data("pipeline.design"),
        &data("pool2_seq.design"),
        "--span",
        "1..1e6",
    ]);
    assert!(
        err.contains("the model of `pipeline` depends on `a`") && !err.contains("model 0"),
        "{err}"
    );
}

#[test]
fn the_nesting_limit_is_the_one_documented() {
    let nested = |levels: usize| {
        format!(
            "a = x; {}a{}",
            "tpool[1](".repeat(levels),
            ")".repeat(levels)
        )
    };
    let ok = temp_file("deep200.design", &nested(200));
    let o = run(&["model", &ok, "--at", "x=3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(field(&stdout(&o), "time per element"), 3.0);
    let deep = temp_file("deep201.design", &nested(201));
    let err = fails(&["model", &deep]);
    assert!(err.contains("at most 200 levels of nesting"), "{err}");
}

/// Found by the `cli` fuzz target (10^6 inputs, seed 20261123): each was a
/// panic, an abort, or a time that is no time with exit code 0.
#[test]
fn fuzz_findings_are_errors() {
    // Input 406676: a group of 2^32 processors asked for 32 GiB (abort).
    let groups = temp_file(
        "wide_par.design",
        "a0 = (1)^2; par[4294967296, 64, 46](a0, a0, seq(a0, a0))\n",
    );
    let e = fails(&["mva", &groups, "--buffer", "5"]);
    assert!(
        e.contains("runs on 4294967296 nodes: at most 1048576"),
        "{e}"
    );
    // Input 373055: stages near f64's limit, a time per element of inf.
    let huge = temp_file(
        "huge.design",
        "a0 = 1.7976931348623157e308; a2 = 8; seq(a0, a2)\n",
    );
    let e = fails(&["mva", &huge]);
    assert!(e.contains("the time per element is inf ns"), "{e}");
    // Input 282069: an atom negative only under its group's `p`: the best
    // counts' time is reported, not printed as a time.
    let negative = temp_file("negative.design", "a1 = -p; on[n](tpool[49](a1))\n");
    let e = fails(&["best", &negative, "--budget", "12", "--nodes", "5"]);
    assert!(
        e.contains("gives -0.1020408163265306 ns at n = 5: a time is a finite number >= 0"),
        "{e}"
    );
    // Input 884605: varied durations near f64's limit, whose exits' fit
    // overflowed: a time per element of inf (printed `null`) as steady.
    let varied = temp_file(
        "varied.design",
        "a0 = 1.7976931348623157e308; seq(pipe(a0, a0, a0), a0)\n",
    );
    let doc = json(&["simulate", &varied, "--variation", "163"]);
    assert!(
        doc["time_per_element"].as_f64().is_some_and(f64::is_finite),
        "{doc}"
    );
    assert_eq!(doc["steady_state"]["steady"], false, "{doc}");
    // Inputs 662441 and 669934: cost curves from 7e-210 to 1.5e109 looped
    // in plotters' log ticks (their ratio passes f64); the axis now spans
    // at most 300 decades.
    let big = temp_file("big.design", "a1 = 1.4729828355436931e109; par[22](a1)\n");
    let tiny = temp_file("tiny.design", "a1 = 1.055354922644161e-211 / 69^-1; a1\n");
    let svg = std::env::temp_dir().join(format!("pattern-cli-{}-wide.svg", std::process::id()));
    let o = run(&["plot", &big, &tiny, "--output", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    // Input 455923: an axis whose ends' ratio passes f64 was a panic; its
    // first point, k = 1e-320, now meets the model's own error.
    let pool = temp_file("pool.design", "a = 691; b = 1416; pipe(a, tpool[k](b))\n");
    let e = fails(&["sweep", &pool, "--axis", "k=1e-320..1e308", "--count", "k"]);
    assert!(e.contains("`1/k` is not finite (inf) at k = 0.0000"), "{e}");
}
