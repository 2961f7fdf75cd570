//! One machine for every command: `--machine FILE`, the shorthands
//! `--cores` and `--nodes`, the default (a core for every thread), the
//! machine in every report, and the decisions taken on it.

mod common;

use common::cli::*;
use std::io::Write;

/// A machine file in a temporary place, deleted when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, contents: &str) -> TempFile {
        let path = std::env::temp_dir().join(format!("pattern-{}-{name}", std::process::id()));
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(contents.as_bytes()).unwrap();
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Every command that predicts names its machine in the report and in the
/// JSON, whichever way the machine was given.
#[test]
fn every_command_names_its_machine() {
    let pipeline = data("pipeline.design");
    let star = data("star.machine.json");
    let pool = data("pool2_seq.design");
    let plot = std::env::temp_dir().join(format!("pattern-{}-plot.svg", std::process::id()));
    let plot = plot.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["model", &pipeline, "--at", "x=1024,a=2,b=4"],
        vec!["compare", &pipeline, &pipeline],
        vec!["simulate", &pipeline, "--at", "x=1024,a=2,b=1"],
        vec!["mva", &pipeline, "--at", "x=1024,a=2,b=1"],
        vec!["best", &pipeline, "--budget", "8", "--at", "x=1024"],
        vec![
            "rank",
            &pipeline,
            "--budget",
            "8",
            "--at",
            "x=1024",
            "--designs",
            "20",
        ],
        vec![
            "crossovers",
            &pipeline,
            &pool,
            "--span",
            "1..1e3",
            "--at",
            "a=2,b=1",
        ],
        vec!["sensitivity", &pipeline, "--at", "x=1024,a=2,b=1"],
    ];
    for command in &commands {
        for machine in [
            vec![],
            vec!["--cores", "2"],
            vec!["--machine", star.as_str()],
        ] {
            let mut args = command.clone();
            args.extend(machine.iter().copied());
            let doc = json(&args);
            let summary = doc["machine"]["summary"].as_str();
            assert!(summary.is_some(), "{args:?}: no machine in {doc}");
            let o = run(&args);
            assert!(stdout(&o).contains("machine"), "{args:?}");
        }
    }
    let threads = data("threads.design");
    let doc = json(&[
        "sweep",
        &threads,
        "--threads",
        "1..4",
        "--cores",
        "2",
        "--at",
        "x=100",
    ]);
    assert_eq!(doc["machine"]["summary"], "1 node of 2 cores");
    let o = run(&["sweep", &threads, "--threads", "1..4", "--at", "x=100"]);
    assert!(
        stdout(&o).starts_with("# machine: 1 node of 5 cores"),
        "{}",
        stdout(&o)
    );
    let doc = json(&[
        "plot",
        &threads,
        "--kind",
        "threads",
        "--threads",
        "1..3",
        "--cores",
        "2",
        "--at",
        "x=100",
        "-o",
        plot,
    ]);
    assert_eq!(doc["machines"][0]["summary"], "1 node of 2 cores");
    let _ = std::fs::remove_file(plot);
}

/// The shorthands build the machine a file would: `--cores 8 --nodes 8`
/// is the star of `examples/data/star.machine.json` but for its network.
#[test]
fn shorthands_and_files_build_one_machine() {
    let design = data("map_reduce.design");
    let at = "x=1e6,m=8,n=8";
    let short = json(&[
        "simulate", &design, "--cores", "8", "--nodes", "8", "--at", at,
    ]);
    let file = TempFile::new("eight.json", r#"{"nodes": [{"count": 8, "cores": 8}]}"#);
    let long = json(&["simulate", &design, "--machine", file.path(), "--at", at]);
    assert_eq!(
        short["machine"]["description"],
        long["machine"]["description"]
    );
    assert_eq!(short["time_per_element"], long["time_per_element"]);
    assert_eq!(long["machine"]["origin"], "file");
    assert_eq!(short["machine"]["origin"], "options");
}

/// The default is a core for every thread, said so: the operators'
/// assumption holds and the report says where it came from.
#[test]
fn the_default_is_the_operators_assumption() {
    let o = run(&["model", &data("pipeline.design"), "--at", "x=1024,a=2,b=4"]);
    let text = stdout(&o);
    assert!(
        text.contains("1 node of 6 cores: a core for every thread, the operators' assumption"),
        "{text}"
    );
    assert!(!text.contains("warning"), "{text}");
}

/// The operators' model on a machine says where its assumption fails:
/// 64 workers on one node of 8 cores, and 16 nodes on a machine of 8.
#[test]
fn the_operators_say_where_the_machine_breaks_them() {
    let star = data("star.machine.json");
    let design = data("map_reduce.design");
    let doc = json(&[
        "model",
        &design,
        "--at",
        "x=1e6,m=1,n=64",
        "--machine",
        &star,
    ]);
    let fails = &doc["points"][0]["operators_assumption"]["fails"];
    assert_eq!(
        fails[0],
        "up to 64 threads on a node of 8 cores: the operators assume a core per thread"
    );
    let doc = json(&[
        "model",
        &design,
        "--at",
        "x=1e6,m=16,n=1",
        "--machine",
        &star,
    ]);
    let fails = &doc["points"][0]["operators_assumption"]["fails"];
    assert_eq!(fails[0], "the design asks for 16 nodes, the machine has 8");
    let doc = json(&[
        "model",
        &design,
        "--at",
        "x=1e6,m=8,n=8",
        "--machine",
        &star,
    ]);
    assert_eq!(doc["points"][0]["operators_assumption"]["holds"], true);
}

/// Bad machines are clear errors: a file's line and key, a usage error for
/// a file and a shorthand at once, an option a command cannot use.
#[test]
fn bad_machines_are_clear_errors() {
    let design = data("pipeline.design");
    let zero = TempFile::new("zero.json", "{\"nodes\": [\n  {\"cores\": 0}\n]}");
    let err = fails(&[
        "simulate",
        &design,
        "--machine",
        zero.path(),
        "--at",
        "x=1,a=1,b=1",
    ]);
    assert!(
        err.contains("line 2, column 14, at `nodes[0].cores`: 0 is out of range"),
        "{err}"
    );
    let typo = TempFile::new("typo.json", r#"{"nodes": [{"cores": 2}], "netwrk": {}}"#);
    let err = fails(&["model", &design, "--machine", typo.path()]);
    assert!(err.contains("unknown field `netwrk`"), "{err}");
    let err = fails(&["machine", typo.path()]);
    assert!(err.contains("at `netwrk`"), "{err}");
    let o = run(&[
        "model",
        &design,
        "--machine",
        &data("star.machine.json"),
        "--cores",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = fails(&[
        "sweep", &design, "--x", "1..10", "--cores", "2", "--at", "a=1,b=1",
    ]);
    assert!(err.contains("are for --threads"), "{err}");
    let err = fails(&["simulate", &design, "--cores", "0", "--at", "x=1,a=1,b=1"]);
    assert!(err.contains("--cores 0"), "{err}");
    let err = fails(&[
        "simulate",
        &data("map_reduce.design"),
        "--nodes",
        "2",
        "--cores",
        "2",
        "--at",
        "x=10,m=4,n=1",
    ]);
    assert!(err.contains("nodes"), "{err}");
    let err = fails(&["mva", &data("interactive.json"), "--cores", "2"]);
    assert!(err.contains("are for a design"), "{err}");
}

/// A machine file describes each runtime's waiting; `--runtime` prices
/// the one that will run the design, and a runtime the file does not
/// describe is a clear error.
#[test]
fn the_runtime_picks_its_waiting() {
    let machine = TempFile::new(
        "runtimes.json",
        r#"{"nodes": [{"cores": 4}], "runtime": "executor",
            "waiting": {"executor": {"take_ns": 0},
                        "rayon": {"take_ns": 5000, "handoff_ns": 800}}}"#,
    );
    let design = data("pipeline.design");
    let mva = |runtime: &[&str]| {
        let mut args = vec!["mva", &design, "--machine", machine.path()];
        args.extend_from_slice(runtime);
        args.extend_from_slice(&["--at", "x=1000,a=2,b=1"]);
        json(&args)
    };
    let executor = mva(&[]);
    let rayon = mva(&["--runtime", "rayon"]);
    assert_eq!(executor["machine"]["runtime"], "executor");
    assert_eq!(rayon["machine"]["runtime"], "rayon");
    let (e, r) = (
        executor["time_per_element"].as_f64().unwrap(),
        rayon["time_per_element"].as_f64().unwrap(),
    );
    // The executor's waiting is free here: as on 4 bare cores. s1 = 2000
    // ns on two workers is 1000 ns per element free; rayon's take of 5 µs
    // per element, on the workers' cores, makes the pool 3.5x slower.
    let bare = json(&["mva", &design, "--cores", "4", "--at", "x=1000,a=2,b=1"]);
    assert_eq!(bare["time_per_element"].as_f64(), Some(e));
    assert!(r > 3.0 * e, "{r} against {e}");
    let err = fails(&[
        "mva",
        &design,
        "--machine",
        machine.path(),
        "--runtime",
        "threads",
        "--at",
        "x=1000,a=2,b=1",
    ]);
    assert!(
        err.contains("has no waiting part for threads (it has executor, rayon)"),
        "{err}"
    );
    let o = run(&[
        "mva",
        &design,
        "--machine",
        machine.path(),
        "--runtime",
        "tokio",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("unknown runtime `tokio`: one of executor, rayon, threads"),
        "{}",
        stderr(&o)
    );
    let err = fails(&[
        "simulate",
        &design,
        "--cores",
        "2",
        "--runtime",
        "rayon",
        "--at",
        "x=1,a=1,b=1",
    ]);
    assert!(
        err.contains("--runtime rayon needs --machine FILE"),
        "{err}"
    );
}

/// `pattern machine FILE` checks a file and describes it.
#[test]
fn a_machine_file_is_described() {
    let doc = json(&["machine", &data("cluster.machine.json")]);
    assert_eq!(doc["nodes"], 8);
    assert_eq!(doc["cores"], 6 * 8 + 2 * 16);
    assert_eq!(doc["description"]["network"]["topology"], "racks");
}

/// On 8 nodes of 8 cores, the three semantics lay the mapReduce out the
/// same way: 8 workers on each of the 8 nodes.
#[test]
fn the_semantics_choose_one_layout_on_a_cluster() {
    let design = data("map_reduce.design");
    for semantics in [vec![], vec!["--queueing"], vec!["--simulate"]] {
        let mut args = vec![
            "best", &design, "--budget", "64", "--nodes", "8", "--cores", "8", "--at", "x=1e6",
        ];
        args.extend(semantics.iter().copied());
        let doc = json(&args);
        assert_eq!(doc["best"]["counts"]["m"], 8, "{semantics:?}: {doc}");
        assert_eq!(doc["best"]["counts"]["n"], 8, "{semantics:?}: {doc}");
    }
}

/// Under queueing the search looks beyond the cores, where that semantics
/// prices the threads: three stages on two cores fit, and a pool grows
/// past the cores until the work per element over the cores is reached.
#[test]
fn queueing_searches_beyond_the_cores() {
    let doc = json(&[
        "best",
        &data("stages.design"),
        "--budget",
        "16",
        "--cores",
        "2",
        "--queueing",
        "--at",
        "x=1000",
    ]);
    assert!(doc["best"]["threads"].as_u64().unwrap() >= 3, "{doc}");
    let design = TempFile::new(
        "consumer.design",
        "producer = 5000 + 2*x; consumer = 200*x; logger = 1000;\npipe(producer, tpool[c](consumer), logger)",
    );
    let doc = json(&[
        "best",
        design.path(),
        "--budget",
        "64",
        "--cores",
        "4",
        "--queueing",
        "--at",
        "x=4096",
    ]);
    let c = doc["best"]["counts"]["c"].as_u64().unwrap();
    assert!(c > 2, "c = {c}: the search stopped at the cores");
    // Work per element over 4 cores: (5000 + 2·4096 + 200·4096 + 1000)/4.
    let bound = (5000.0 + 2.0 * 4096.0 + 200.0 * 4096.0 + 1000.0) / 4.0;
    let t = f(&doc["best"]["time_per_element"]);
    assert!(t >= bound * (1.0 - 1e-9), "{t} below the bound {bound}");
    close("time per element", t, bound, 0.01);
}

/// `pattern machine --probe` prints this computer as a machine file that
/// reads back: its cores, and what it measured of its threads (no figure
/// asserted: they are this moment's on this machine).
#[test]
fn the_probe_prints_a_machine_file() {
    let o = run(&["machine", "--probe", "--quick"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let machine = pattern_core::machine::Machine::from_json(&stdout(&o)).unwrap();
    let cores = pattern_core::exec::Cores::of_current_thread().len();
    assert_eq!((machine.nodes(), machine.cores()), (1, cores));
    let w = machine.waiting_costs();
    for ns in [
        w.handoff_ns,
        w.take_ns,
        w.wake_latency_ns,
        w.wake_cost_ns,
        w.waker_cost_ns,
    ] {
        assert!(ns.is_finite() && ns >= 0.0, "{w:?}");
    }
    assert!(stderr(&o).contains("took"), "{}", stderr(&o));
    // Its memory: the node's bandwidth at least one core's.
    let memory = machine
        .node_memory(0)
        .expect("the probe measures the memory");
    assert!(memory.bandwidth_bytes_per_ns >= memory.core_bandwidth_bytes_per_ns);
    assert!(stderr(&o).contains("memory: "), "{}", stderr(&o));
    let o = run(&["machine", "--quick"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `--memory-mib` sizes the memory's probe: 0 skips it, beyond the limit
/// is an error that says the range, and it needs --probe.
#[test]
fn the_memory_probe_is_sized_or_skipped() {
    let o = run(&["machine", "--probe", "--quick", "--memory-mib", "0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let machine = pattern_core::machine::Machine::from_json(&stdout(&o)).unwrap();
    assert_eq!(machine.node_memory(0), None);
    assert!(
        stderr(&o).contains("memory: not measured"),
        "{}",
        stderr(&o)
    );
    let o = run(&["machine", "--probe", "--quick", "--memory-mib", "5000"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("memory_mib(5000): a probe streams 0 to 4096 MiB per thread"),
        "{}",
        stderr(&o)
    );
    for bad in [["--memory-mib", "-1"], ["--memory-mib", "lots"]] {
        let o = run(&["machine", "--probe", "--quick", bad[0], bad[1]]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    }
    let o = run(&["machine", "--memory-mib", "4"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `pattern machine --probe --runtime R` measures that runtime's threads:
/// the file runs on it and has its waiting part (no figure asserted); an
/// unknown runtime is a usage error, and --runtime needs --probe.
#[test]
fn the_probe_measures_the_runtime_named() {
    use pattern_core::machine::{Machine, Runtime};
    for (name, runtime) in [("rayon", Runtime::Rayon), ("threads", Runtime::Threads)] {
        let o = run(&["machine", "--probe", "--quick", "--runtime", name]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = stdout(&o);
        let machine = Machine::from_json(&text).unwrap();
        assert_eq!(machine.runs_on(), runtime);
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(file["runtime"], name, "{text}");
        assert!(file["waiting"][name].is_object(), "{text}");
        let w = machine.waiting_of(runtime).unwrap();
        assert!(!w.pinned, "{w:?}");
        for ns in [w.handoff_ns, w.take_ns, w.wake_latency_ns, w.waker_cost_ns] {
            assert!(ns.is_finite() && ns >= 0.0, "{w:?}");
        }
        let runtime_note = format!("runtime: {name} (probed with ");
        assert!(stderr(&o).contains(&runtime_note), "{}", stderr(&o));
    }
    let o = run(&["machine", "--probe", "--quick", "--runtime", "tokio"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("unknown runtime `tokio`: one of executor, rayon, threads"),
        "{err}"
    );
    let o = run(&["machine", "--runtime", "rayon"]);
    assert_eq!(o.status.code(), Some(2));
}
