//! The `pattern` binary's commands that choose counts and designs
//! (`best`, `rank`, `sensitivity`), run on the files under
//! `examples/data/`: their figures against values derived here, by
//! hand from the atoms' models or by brute force, and their errors.

mod common;

use common::allocation::TIE_TOLERANCE;
use common::cli::*;

use pattern_core::Design;
use pattern_core::machine::Machine;
use pattern_core::sim::Simulation;
use proptest::prelude::*;
use serde_json::Value;

/// `(a, b, c)` of a JSON object of counts.
fn abc(counts: &Value) -> (u64, u64, u64) {
    let c = |n: &str| {
        counts[n]
            .as_u64()
            .unwrap_or_else(|| panic!("no `{n}` in {counts}"))
    };
    (c("a"), c("b"), c("c"))
}

/// The best (a, b, c) with a + b + c <= budget by enumeration: least time,
/// then fewest threads, then the smallest counts in order.
fn brute_force(x: f64, budget: u64) -> ((u64, u64, u64), f64) {
    let mut best: Option<((u64, u64, u64), f64)> = None;
    for a in 1..=budget {
        for b in 1..=budget.saturating_sub(a) {
            for c in 1..=budget.saturating_sub(a + b) {
                let t = stages_time(x, (a, b, c));
                let better = match best {
                    None => true,
                    Some((k, bt)) => (t, a + b + c, (a, b, c)) < (bt, k.0 + k.1 + k.2, k),
                };
                if better {
                    best = Some(((a, b, c), t));
                }
            }
        }
    }
    best.expect("some allocation fits")
}

#[test]
fn best_is_the_brute_force_optimum_with_the_greedy_rules_beside() {
    let file = data("stages.design");
    for (x, budget) in [(10.0, 16u64), (10.0, 8), (1000.0, 12), (100.0, 5)] {
        let doc = json(&[
            "best",
            &file,
            "--budget",
            &budget.to_string(),
            "--at",
            &format!("x={x}"),
        ]);
        let (counts, time) = brute_force(x, budget);
        assert_eq!(
            abc(&doc["best"]["counts"]),
            counts,
            "x = {x}, budget {budget}"
        );
        close("time", f(&doc["best"]["time_per_element"]), time, 1e-12);
        assert_eq!(doc["best"]["threads"], counts.0 + counts.1 + counts.2);
        assert!(doc["evaluations"].as_u64().unwrap() >= 1);
    }
    // RPL-shell's rules at x = 10, by hand. No sequential stage: ts_max is
    // the fastest pool's one-worker time, inc(10) = 5361.85; pipebalance
    // gives ceil(T/ts_max): a = ceil(34354.5/5361.85) = 7, b = 1,
    // c = ceil(5422.97/5361.85) = 2 (10 threads, time inc(10)).
    let x = 10.0;
    assert!(qsort(x) / inc(x) > 6.0 && qsort(x) / inc(x) < 7.0);
    let doc = json(&["best", &file, "--budget", "8", "--at", "x=10"]);
    let (_, optimum) = brute_force(x, 8);
    let rules = doc["greedy"].as_array().unwrap();
    assert_eq!(rules[0]["rule"], "pipebalance");
    assert_eq!(abc(&rules[0]["counts"]), (7, 1, 2));
    assert_eq!(rules[0]["within_budget"], false);
    close(
        "pipebalance",
        f(&rules[0]["time_per_element"]),
        inc(x),
        1e-12,
    );
    // maxresources: from (7, 1, 2), a worker off the fastest pool (least
    // T/n) until 8 threads: c (2711.5) to 1, then a (4907.8) to 6.
    assert_eq!(rules[1]["rule"], "maxresources");
    assert_eq!(abc(&rules[1]["counts"]), (6, 1, 1));
    let greedy = qsort(x) / 6.0;
    close(
        "maxresources",
        f(&rules[1]["time_per_element"]),
        greedy,
        1e-12,
    );
    close("gap", f(&rules[1]["gap"]), greedy / optimum, 1e-12);
    // The text report shows the same counts.
    let text = stdout(&run(&["best", &file, "--budget", "8", "--at", "x=10"]));
    assert!(text.contains("maxresources  a = 6, b = 1, c = 1"), "{text}");
}

#[test]
fn best_with_a_count_fixed_by_the_point() {
    // b = 1 fixed: inc(100) = 53618.5 bounds the time; a and c take the
    // fewest workers that reach it within 8 - 1 threads.
    let x = 100.0;
    let doc = json(&[
        "best",
        &data("stages.design"),
        "--budget",
        "8",
        "--at",
        "x=100,b=1",
    ]);
    let mut best = ((0, 0, 0), f64::INFINITY);
    for a in 1..=6u64 {
        for c in 1..=7 - a {
            let t = stages_time(x, (a, 1, c));
            if t < best.1 {
                best = ((a, 1, c), t);
            }
        }
    }
    assert_eq!(abc(&doc["best"]["counts"]), best.0);
    close("time", f(&doc["best"]["time_per_element"]), best.1, 1e-12);
    let err = fails(&[
        "best",
        &data("stages.design"),
        "--budget",
        "8",
        "--at",
        "x=100,b=1.5",
    ]);
    assert!(
        err.contains("--at: the count `b` is 1.5: a count is a whole number"),
        "{err}"
    );
}

#[test]
fn best_over_sizes_intervals_and_the_robust_choice() {
    let sizes = [10.0, 100.0, 1e3, 1e4, 1e5, 1e6];
    let doc = json(&[
        "best",
        &data("stages.design"),
        "--budget",
        "16",
        "--sizes",
        "x=1e1..1e6:6",
    ]);
    let plan = &doc["sizes"];
    for (k, &x) in sizes.iter().enumerate() {
        let at = &plan["best"][k];
        close("size", f(&at["size"]), x, 1e-12);
        assert_eq!(abc(&at["counts"]), brute_force(x, 16).0, "x = {x}");
    }
    // Each interval's allocation is the optimum inside it, and at each
    // change point the two neighbors take the same time.
    let intervals = plan["intervals"].as_array().unwrap();
    assert!(intervals.len() >= 2);
    close("first", f(&intervals[0]["from"]), 10.0, 0.0);
    close("last", f(&intervals[intervals.len() - 1]["to"]), 1e6, 0.0);
    for w in intervals.windows(2) {
        let at = f(&w[0]["to"]);
        close("contiguous", f(&w[1]["from"]), at, 0.0);
        let (p, q) = (abc(&w[0]["counts"]), abc(&w[1]["counts"]));
        close(
            "tie at the change",
            stages_time(at, p),
            stages_time(at, q),
            1e-5,
        );
    }
    for i in intervals {
        let mid = (f(&i["from"]) * f(&i["to"])).sqrt();
        let (_, best) = brute_force(mid, 16);
        close("inside", stages_time(mid, abc(&i["counts"])), best, 1e-12);
    }
    // Robust: the allocation whose worst loss over the six sizes is least.
    let mut robust = (f64::INFINITY, (0, 0, 0));
    for a in 1..=14u64 {
        for b in 1..=15 - a {
            for c in 1..=16 - a - b {
                let loss = sizes
                    .iter()
                    .map(|&x| stages_time(x, (a, b, c)) / brute_force(x, 16).1 - 1.0)
                    .fold(0.0, f64::max);
                if loss < robust.0 - 1e-12 {
                    robust = (loss, (a, b, c));
                }
            }
        }
    }
    close(
        "worst loss",
        f(&plan["robust"]["worst_loss"]),
        robust.0,
        1e-9,
    );
    let chosen = abc(&plan["robust"]["counts"]);
    let loss = sizes
        .iter()
        .map(|&x| stages_time(x, chosen) / brute_force(x, 16).1 - 1.0)
        .fold(0.0, f64::max);
    close("its loss", loss, robust.0, 1e-9);
}

#[test]
fn best_under_queueing_is_the_brute_force_optimum() {
    let file = data("stages.design");
    let design = Design::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let machine = Machine::new(1, 4);
    let mut best = (f64::INFINITY, 0);
    // Threads at most the budget, beyond the cores too: queueing prices
    // them (a + b + c <= 6 on 4 cores).
    for a in 1..=6u64 {
        for b in 1..=6 - a {
            for c in 1..=(6 - a - b) {
                let at = [
                    ("x", 100.0),
                    ("a", a as f64),
                    ("b", b as f64),
                    ("c", c as f64),
                ];
                let t = design.queueing(&machine, &at).unwrap().time_per_element;
                if t < best.0 - 1e-9 * t.abs() || (t <= best.0 && a + b + c < best.1) {
                    best = (t, a + b + c);
                }
            }
        }
    }
    let doc = json(&[
        "best",
        &file,
        "--budget",
        "6",
        "--cores",
        "4",
        "--at",
        "x=100",
        "--queueing",
    ]);
    assert_eq!(doc["semantics"], "queueing");
    close(
        "queueing optimum",
        f(&doc["best"]["time_per_element"]),
        best.0,
        1e-9,
    );
    assert_eq!(doc["best"]["threads"].as_u64(), Some(best.1));
}

/// The best of two counts `(p, q)` among `candidates`, simulated on
/// `platform` at `x` with `elements` elements, as the allocation decides:
/// of the times within `TIE_TOLERANCE` of the least, the fewest threads
/// (`p·q` or `p + q`, by `threads`), then the smallest counts.
fn simulated_best(
    file: &str,
    names: (&str, &str),
    candidates: &[(u64, u64)],
    threads: impl Fn(u64, u64) -> u64,
    (platform, x, elements): (&Machine, f64, usize),
) -> (f64, (u64, u64)) {
    let design = Design::parse(&std::fs::read_to_string(file).unwrap()).unwrap();
    let timed: Vec<(f64, u64, (u64, u64))> = candidates
        .iter()
        .map(|&(p, q)| {
            let at = [("x", x), (names.0, p as f64), (names.1, q as f64)];
            let t = Simulation::new(&design, platform)
                .at(&at)
                .elements(elements)
                .run()
                .unwrap()
                .time_per_element();
            (t, threads(p, q), (p, q))
        })
        .collect();
    let least = timed.iter().map(|t| t.0).fold(f64::INFINITY, f64::min);
    let limit = least + TIE_TOLERANCE * least;
    let (t, _, counts) = timed
        .into_iter()
        .filter(|t| t.0 <= limit)
        .min_by_key(|t| (t.1, t.2))
        .unwrap();
    (t, counts)
}

/// `best --json`'s choice is `(time, counts)` of the counts `names`.
fn assert_best(doc: &Value, names: (&str, &str), (time, counts): (f64, (u64, u64))) {
    close(
        "simulated optimum",
        f(&doc["best"]["time_per_element"]),
        time,
        1e-12,
    );
    let got = &doc["best"]["counts"];
    assert_eq!(
        (got[names.0].as_u64(), got[names.1].as_u64()),
        (Some(counts.0), Some(counts.1))
    );
}

#[test]
fn best_under_the_simulator_is_the_brute_force_optimum() {
    let file = data("pipeline.design");
    let candidates: Vec<(u64, u64)> = (1..=3u64)
        .flat_map(|a| (1..=4 - a).map(move |b| (a, b)))
        .collect();
    let platform = Machine::new(1, 4);
    let best = simulated_best(
        &file,
        ("a", "b"),
        &candidates,
        |a, b| a + b,
        (&platform, 100.0, 200),
    );
    let doc = json(&[
        "best",
        &file,
        "--budget",
        "4",
        "--at",
        "x=100",
        "--simulate",
        "--elements",
        "200",
    ]);
    assert_eq!(doc["semantics"], "simulation");
    assert_best(&doc, ("a", "b"), best);
}

/// A mapReduce's `m` and `n` simulated on 2 nodes of 4 cores: `m` is
/// capped by the nodes, the threads by all the cores, and the choice is
/// brute force's over every `m <= 2`, `m·n <= 8`.
#[test]
fn best_map_reduce_counts_on_the_simulated_nodes() {
    let file = data("map_reduce.design");
    let candidates: Vec<(u64, u64)> = (1..=2u64)
        .flat_map(|m| (1..=8 / m).map(move |n| (m, n)))
        .collect();
    let platform = Machine::new(2, 4);
    let best = simulated_best(
        &file,
        ("m", "n"),
        &candidates,
        |m, n| m * n,
        (&platform, 1e5, 100),
    );
    let doc = json(&[
        "best",
        &file,
        "--budget",
        "8",
        "--cores",
        "4",
        "--nodes",
        "2",
        "--at",
        "x=1e5",
        "--simulate",
        "--elements",
        "100",
    ]);
    assert_eq!(
        doc["machine"]["summary"],
        "2 nodes of 4 cores, star network (0 ns, 1 bytes/ns, max-min)"
    );
    assert_best(&doc, ("m", "n"), best);
    // Both nodes used: one node's 4 cores cannot hold 8 workers as fast.
    assert_eq!(best.1, (2, 4));
    // No node: an error, not a simulation of none.
    let err = fails(&["best", &file, "--budget", "8", "--nodes", "0", "--simulate"]);
    assert!(
        err.contains("--nodes 0: a machine has at least one node"),
        "{err}"
    );
}

#[test]
fn best_errors() {
    let file = data("stages.design");
    let err = fails(&["best", &file, "--budget", "2", "--at", "x=10"]);
    assert!(
        err.contains("no allocation fits 2 threads: the design needs 3"),
        "{err}"
    );
    let err = fails(&["best", &file, "--budget", "8", "--at", "y=10"]);
    assert!(
        err.contains("`y` is not a variable or count of the design"),
        "{err}"
    );
    let err = fails(&["best", &file, "--budget", "8", "--at", "a=2"]);
    assert!(
        err.contains("the variable `x` needs a value: give it with --at x=.."),
        "{err}"
    );
    let err = fails(&[
        "best", &file, "--budget", "8", "--at", "x=10", "--range", "z=1..4",
    ]);
    assert!(
        err.contains("--range: `z` is not a count of the design (it has a, b, c)"),
        "{err}"
    );
    // Every step of a search under the simulator is a simulation: bounded.
    let err = fails(&[
        "best",
        &file,
        "--budget",
        "16",
        "--at",
        "x=10",
        "--simulate",
        "--max-steps",
        "5",
    ]);
    // The limit is named by its option, not by the library's method.
    assert_eq!(
        err.trim_end(),
        "error: the allocation: the search stopped after 5 steps (the limit of --max-steps): narrow the counts with --range or raise --max-steps"
    );
    assert!(!err.contains("max_steps"), "{err}");
    let err = fails(&["best", &data("syntax_error.design"), "--budget", "8"]);
    assert!(
        err.contains("line 3, column 17") && err.ends_with("^\n"),
        "{err}"
    );
    let err = fails(&["best", &file, "--budget", "8", "--sizes", "x=1e3..y"]);
    assert!(
        err.contains("--sizes x: `y` is not a number at column 6"),
        "{err}"
    );
    assert!(err.contains("\n  1e3..y\n       ^"), "{err}");
}

#[test]
fn rank_lists_designs_at_their_best_counts() {
    let x = 1000.0;
    let doc = json(&[
        "rank",
        &data("threads.design"),
        "--budget",
        "8",
        "--top",
        "6",
        "--at",
        "x=1000",
    ]);
    let ranked = doc["ranked"].as_array().unwrap();
    assert_eq!(ranked.len(), 6);
    // The original at its best: n + 1 <= 8 threads, max(inc, qsort/n)
    // least at n = 7.
    let original = ranked
        .iter()
        .find(|r| r["moves"].as_array().unwrap().is_empty())
        .expect("the original is among the best");
    assert_eq!(original["counts"]["n"], 7);
    close(
        "original",
        f(&original["time_per_element"]),
        qsort(x) / 7.0,
        1e-12,
    );
    for (k, r) in ranked.iter().enumerate() {
        // Each design's time is its model at its counts, and no count of
        // it within the budget is faster (brute force over n).
        let design = Design::parse(&format!(
            "qsort = 1034.17*x*log2(x); inc = 536.185*x; {}",
            r["design"].as_str().unwrap()
        ))
        .unwrap();
        let threads = design.resources().threads;
        let model = design.model();
        let at = |n: f64| [("x", x), ("n", n)];
        let n = r["counts"]["n"].as_f64().unwrap_or(1.0);
        close(
            "time",
            f(&r["time_per_element"]),
            model.eval(&at(n)).unwrap(),
            1e-12,
        );
        assert!(f(&r["threads"]) <= 8.0);
        assert_eq!(f(&r["threads"]), threads.eval(&at(n)).unwrap());
        if r["counts"].get("n").is_some() {
            let best = (1..=8)
                .map(f64::from)
                .filter(|&m| threads.eval(&at(m)).unwrap() <= 8.0)
                .map(|m| model.eval(&at(m)).unwrap())
                .fold(f64::INFINITY, f64::min);
            close("best count", f(&r["time_per_element"]), best, 1e-12);
        }
        // Sorted, each margin the next one's time over this one's; times
        // within 1e-9 of each other rank as equal, margin 1.
        if let Some(next) = ranked.get(k + 1) {
            let (t, u) = (f(&r["time_per_element"]), f(&next["time_per_element"]));
            if (u - t).abs() <= 1e-9 * t.max(u) {
                assert_eq!(f(&r["margin"]), 1.0);
                assert!(f(&r["threads"]) <= f(&next["threads"]));
            } else {
                assert!(t < u);
                close("margin", f(&r["margin"]), u / t, 1e-12);
            }
        }
        assert_eq!(r["class"], "O(x·log₂x)");
    }
    let err = fails(&[
        "rank",
        &data("threads.design"),
        "--budget",
        "1",
        "--at",
        "x=1000",
    ]);
    assert!(err.contains("the ranking"), "{err}");
}

#[test]
fn sensitivity_by_hand() {
    let (x, a) = (1000.0, 4.0);
    let doc = json(&[
        "sensitivity",
        &data("stages.design"),
        "--at",
        "x=1000,a=4,b=2,c=1",
        "--span",
        "1..1e6",
    ]);
    // T = qsort(x)/a: the sort's pool is the bottleneck.
    let t = qsort(x) / a;
    assert!(t > inc(x) / 2.0 && t > NOP);
    close("T", f(&doc["time_per_element"]), t, 1e-12);
    let coefficient = |name: &str| {
        doc["coefficients"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    close(
        "dT/dqsort.c0",
        f(&coefficient("qsort.c0")["derivative"]),
        x * x.log2() / a,
        1e-12,
    );
    close(
        "elasticity",
        f(&coefficient("qsort.c0")["elasticity"]),
        1.0,
        1e-12,
    );
    assert_eq!(f(&coefficient("inc.c0")["derivative"]), 0.0);
    let variable = |name: &str| {
        doc["variables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap()
            .clone()
    };
    // Counts: the change of T with one worker fewer and one more, the
    // sort's pool the bottleneck throughout; one fewer nop worker is none
    // (null: an infinite time per element).
    let count = |name: &str| {
        doc["counts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap()
            .clone()
    };
    close(
        "a - 1",
        f(&count("a")["one_fewer"]),
        qsort(x) / 3.0 - t,
        1e-12,
    );
    close(
        "a + 1",
        f(&count("a")["one_more"]),
        qsort(x) / 5.0 - t,
        1e-12,
    );
    assert_eq!(f(&count("b")["one_fewer"]), 0.0);
    assert_eq!(count("c")["one_fewer"], Value::Null);
    assert_eq!(f(&count("c")["one_more"]), 0.0);
    let names: Vec<&str> = doc["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["x"], "the counts are listed apart");
    let dx = 1034.17 * (x.log2() + std::f64::consts::LOG2_E) / a;
    close("dT/dx", f(&variable("x")["derivative"]), dx, 1e-12);
    // Speed up the sort first: twice as fast, its pool takes qsort/8,
    // still above inc/2 and nop.
    let first = &doc["speed_up"][0];
    assert_eq!(first["atom"], "qsort");
    close(
        "if twice as fast",
        f(&first["time_if_twice_as_fast"]),
        qsort(x) / 8.0,
        1e-12,
    );
    close("gain", f(&first["gain"]), qsort(x) / 8.0, 1e-12);
    // The bottleneck: nop (c = 1) up to where qsort/4 reaches it.
    let b = &doc["bottleneck"];
    assert_eq!(b["intervals"][0]["bottleneck_stage"], "tpool[c](nop)");
    assert_eq!(b["intervals"][1]["bottleneck_stage"], "tpool[a](qsort)");
    let at = f(&b["points"][0]["at"]);
    close("bottleneck moves", qsort(at) / 4.0, NOP, 1e-9);
    let err = fails(&["sensitivity", &data("stages.design"), "--at", "x=1000,a=4"]);
    assert!(
        err.contains("the count `b` needs a value: give it with --at b=.."),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(16)))]

    /// At any size and budget, `best` is the brute-force optimum of
    /// stages.design, and maxresources never beats it.
    #[test]
    fn best_is_optimal_everywhere(x in 2.0f64..1e6, budget in 3u64..14) {
        let doc = json(&[
            "best",
            &data("stages.design"),
            "--budget",
            &budget.to_string(),
            "--at",
            &format!("x={x}"),
        ]);
        let (counts, time) = brute_force(x, budget);
        prop_assert_eq!(abc(&doc["best"]["counts"]), counts);
        let got = f(&doc["best"]["time_per_element"]);
        prop_assert!((got - time).abs() <= 1e-12 * time);
        let maxresources = &doc["greedy"][1];
        prop_assert_eq!(maxresources["within_budget"].as_bool(), Some(true));
        prop_assert!(f(&maxresources["gap"]) >= 1.0);
    }
}
