//! The command line's limits on time and memory: work beyond a limit is
//! refused before it starts, with the limit and the option that lifts it
//! (exit code 1); big inputs within the limits run to completion with the
//! right values (no time is asserted: a run whose time grew faster than
//! its input would show in the suite's time).

mod common;

use common::cli::*;

/// The fewest workers of a pool of one-worker time `time` to reach `target`.
fn workers_for(time: f64, target: f64) -> u64 {
    let mut c = (time / target).ceil().max(1.0) as u64;
    while c > 1 && time / (c - 1) as f64 <= target {
        c -= 1;
    }
    while time / c as f64 > target {
        c += 1;
    }
    c
}

/// `stages.design`'s best counts under `budget` threads, without a search:
/// the least `time / count` of a pool whose pools' fewest workers fit, then
/// each pool's fewest workers within the tie tolerance.
fn stages_optimum(x: f64, budget: u64) -> (u64, u64, u64) {
    let times = [qsort(x), inc(x), NOP];
    let fewest = |target: f64| times.iter().map(|&t| workers_for(t, target)).sum::<u64>();
    let best = times
        .iter()
        .flat_map(|&t| (1..=budget).map(move |c| t / c as f64))
        .filter(|&target| fewest(target) <= budget)
        .fold(f64::INFINITY, f64::min);
    let c = |t: f64| workers_for(t, best * (1.0 + 1e-9));
    (c(times[0]), c(times[1]), c(times[2]))
}

#[test]
fn best_under_a_large_budget_completes_exactly() {
    let doc = json(&[
        "best",
        &data("stages.design"),
        "--budget",
        "50000",
        "--at",
        "x=10",
    ]);
    let (a, b, c) = stages_optimum(10.0, 50_000);
    let best = &doc["best"]["counts"];
    assert_eq!(
        (best["a"].as_u64(), best["b"].as_u64(), best["c"].as_u64()),
        (Some(a), Some(b), Some(c))
    );
    assert_eq!(doc["best"]["threads"].as_u64(), Some(a + b + c));
    close(
        "time per element",
        f(&doc["best"]["time_per_element"]),
        stages_time(10.0, (a, b, c)),
        1e-9,
    );
}

#[test]
fn best_names_the_step_limit_and_its_option() {
    let e = fails(&[
        "best",
        &data("stages.design"),
        "--budget",
        "50000",
        "--at",
        "x=10",
        "--max-steps",
        "100",
    ]);
    assert!(
        e.contains("stopped after 100 steps") && e.contains("--max-steps"),
        "{e}"
    );
}

/// A search under queueing or simulation counts each network solve or run
/// by its cost: a budget of 2^53 threads stops at the limit (20 s of work
/// by default, here lowered) instead of solving a network of every size.
#[test]
fn searches_under_queueing_or_simulation_stop_at_the_step_limit() {
    let pool =
        std::env::temp_dir().join(format!("pattern-limits-{}-pool.design", std::process::id()));
    std::fs::write(&pool, "a = 329; b = 1586; pipe(a, tpool[k](b))\n").unwrap();
    let pool = pool.to_str().unwrap();
    let huge = "9007199254740992";
    for semantics in ["--queueing", "--simulate"] {
        let e = fails(&[
            "best",
            pool,
            "--budget",
            huge,
            semantics,
            "--max-steps",
            "300000",
        ]);
        assert!(
            e.contains("stopped after 300000 steps") && e.contains("--max-steps"),
            "{semantics}: {e}"
        );
        let e = fails(&[
            "rank",
            pool,
            "--budget",
            huge,
            semantics,
            "--cores",
            "17",
            "--max-steps",
            "300000",
        ]);
        assert!(
            e.contains("the ranking stopped") && e.contains("300000 steps of --max-steps"),
            "{semantics}: {e}"
        );
    }
    // Within the limit, the same search finishes: 64 threads on 4 cores.
    let doc = json(&["best", pool, "--budget", "64", "--queueing", "--cores", "4"]);
    let k = doc["best"]["counts"]["k"].as_u64().unwrap();
    assert!((3..=64).contains(&k), "{doc}");
}

#[test]
fn simulate_refuses_a_month_of_events_before_it_starts() {
    let e = fails(&[
        "simulate",
        &data("pipeline.design"),
        "--elements",
        "1000000000000",
        "--at",
        "x=1024,a=2,b=1",
    ]);
    // About an event an element (the estimate from 100 elements).
    assert!(e.contains("about 1.0e12 events"), "{e}");
    assert!(
        e.contains("the limit of 20000000 (--max-events)") && e.contains("raise --max-events"),
        "{e}"
    );
    // The option lifts the limit: a smaller run under a lower limit is
    // refused, and runs under a higher one.
    let args = |limit: &'static str| {
        [
            "simulate",
            "--elements",
            "300000",
            "--cores",
            "4",
            "--at",
            "x=1024,a=2,b=1",
            "--max-events",
            limit,
        ]
    };
    let file = data("pipeline.design");
    let mut low = args("100000").to_vec();
    low.insert(1, &file);
    assert!(fails(&low).contains("--max-events"));
    // A limit below a hundred elements' events is judged from one element.
    let mut tiny = args("150").to_vec();
    tiny.insert(1, &file);
    let e = fails(&tiny);
    assert!(e.contains("the limit of 150 (--max-events)"), "{e}");
    let mut high = args("1e6").to_vec();
    high.insert(1, &file);
    let doc = json(&high);
    // s2 (x per element) is the bottleneck on a core per thread.
    close(
        "time per element",
        f(&doc["time_per_element"]),
        1024.0,
        1e-6,
    );
    let events = doc["events"].as_u64().unwrap();
    assert!((300_000..=1_000_000).contains(&events), "{events}");
}

#[test]
fn simulate_summarizes_many_nodes_unless_asked_per_node() {
    let file = data("pipeline.design");
    let base = [
        "simulate",
        file.as_str(),
        "--nodes",
        "1000",
        "--elements",
        "100",
        "--at",
        "x=1024,a=2,b=1",
    ];
    let o = run(&base);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(!text.contains("cores of node 0 "), "{text}");
    assert!(text.contains("over 1000 nodes"), "{text}");
    assert!(text.lines().count() < 30, "{text}");
    let doc = json(&base);
    let summary = &doc["core_utilization_summary"];
    // The design's three threads are on node 0; the others idle.
    assert_eq!(summary["busiest_node"].as_u64(), Some(0));
    assert_eq!(f(&summary["min"]), 0.0);
    close(
        "mean",
        f(&summary["mean"]),
        f(&summary["max"]) / 1000.0,
        1e-12,
    );
    assert!(doc.get("core_utilization").is_none());
    let mut per_node = base.to_vec();
    per_node.push("--per-node");
    let doc = json(&per_node);
    let cores = doc["core_utilization"].as_array().unwrap();
    assert_eq!(cores.len(), 1000);
    close("node 0", f(&cores[0]), f(&summary["max"]), 1e-12);
    let o = run(&per_node);
    assert!(stdout(&o).contains("cores of node 999"));
}

#[test]
fn a_gantt_chart_of_a_long_run_draws_its_beginning_and_says_so() {
    let dir = std::env::temp_dir().join(format!("pattern-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("g.svg");
    let o = run(&[
        "plot",
        &data("pipeline.design"),
        "--kind",
        "gantt",
        "--cores",
        "2",
        "--elements",
        "30000",
        "--at",
        "x=1024,a=2,b=1",
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Two steps an element: 60,000 tasks, 20,000 drawn.
    assert!(
        stderr(&o).contains("draws the first 20000 of the run's 60000 tasks"),
        "{}",
        stderr(&o)
    );
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.contains("(the first 20000 of 60000)"));
    // A rectangle per task drawn, not per task run.
    let bars = chart.matches("<rect").count();
    assert!((20_000..20_100).contains(&bars), "{bars} rectangles");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Writes a network of `stations` (JSON) at `population` jobs to a
/// temporary file; its path.
fn network(name: &str, population: u64, stations: &str) -> std::path::PathBuf {
    let path =
        std::env::temp_dir().join(format!("pattern-limits-{}-{name}.json", std::process::id()));
    std::fs::write(
        &path,
        format!(r#"{{"population": {population}, "stations": [{stations}]}}"#),
    )
    .unwrap();
    path
}

#[test]
fn mva_of_one_queue_at_a_billion_jobs_is_its_closed_form() {
    let file = network(
        "one",
        1_000_000_000,
        r#"{"name": "cpu", "kind": "queue", "demand": 0.2}"#,
    );
    let doc = json(&["mva", file.to_str().unwrap()]);
    // Every job at the one queue: X = 1/D, R = N·D.
    close("throughput", f(&doc["throughput"]), 5.0, 1e-15);
    close("response time", f(&doc["response_time"]), 2e8, 1e-15);
    close(
        "utilization",
        f(&doc["stations"][0]["utilization"]),
        1.0,
        1e-15,
    );
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn mva_refuses_beyond_its_step_limit_and_names_the_options() {
    let stations = r#"{"name": "cpu", "kind": "queue", "demand": 0.2},
        {"name": "disk", "kind": "queue", "demand": 0.1}"#;
    let file = network("two", 1_000_000_000, stations);
    let e = fails(&["mva", file.to_str().unwrap()]);
    assert!(
        e.contains("about 2.0e9 steps")
            && e.contains("the limit of 1.0e8 (--max-steps")
            && e.contains("--approx"),
        "{e}"
    );
    // --max-steps lowers (or raises) it: 10^5 jobs over two queues are
    // 2·10^5 steps.
    let small = network("small", 100_000, stations);
    let e = fails(&["mva", small.to_str().unwrap(), "--max-steps", "1e5"]);
    assert!(e.contains("the limit of 1.0e5"), "{e}");
    let doc = json(&["mva", small.to_str().unwrap(), "--max-steps", "2e5"]);
    // Far beyond saturation: the bottleneck's rate.
    close("throughput", f(&doc["throughput"]), 5.0, 1e-9);
    for path in [file, small] {
        std::fs::remove_file(&path).unwrap();
    }
}
