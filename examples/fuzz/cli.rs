//! The `cli` target: random argument lists over the real subcommands and
//! options of `pattern` (read from its clap definition, so a new option is
//! fuzzed without a change here), on files generated beside them, run in
//! process by `pattern::run`; then checks of what it printed.
//!
//! An input is the argument list, one argument a line, then the files, each
//! after a line `=== NAME`. An argument `@NAME` is the file NAME in the
//! worker's directory, `%NAME` the file of `examples/data`.

use crate::generate;
use crate::invariants;
use rand::Rng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Options not fuzzed: `--probe` measures this computer (seconds of work
/// that read no input) and `--quick` only goes with it.
const SKIPPED: &[&str] = &["probe", "quick"];

/// The files of `examples/data` an argument may name.
const DATA: &[&str] = &[
    "paper_pipe.design",
    "paper_farm.design",
    "pipeline.design",
    "map_reduce.design",
    "threads.design",
    "syntax_error.design",
    "cluster.machine.json",
    "star.machine.json",
    "interactive.json",
    "kernels.txt",
    "kernels.json",
    "syntax_error.txt",
];

/// One option or positional argument of a subcommand.
#[derive(Debug)]
struct Arg {
    id: String,
    /// `--long` (or `-s`); `None` for a positional argument.
    flag: Option<String>,
    takes_value: bool,
    required: bool,
    /// Whether it may be given several times (or, positional, take several).
    many: bool,
    /// The fewest values a positional argument takes.
    least: usize,
    value_name: String,
    possible: Vec<String>,
}

/// One subcommand and its arguments.
#[derive(Debug)]
struct Sub {
    name: String,
    args: Vec<Arg>,
}

/// The subcommands, read once from the command line's definition.
fn subcommands() -> &'static [Sub] {
    static SUBS: OnceLock<Vec<Sub>> = OnceLock::new();
    SUBS.get_or_init(|| {
        let mut command = pattern::command();
        command.build();
        command
            .get_subcommands()
            .filter(|s| s.get_name() != "help")
            .map(|s| Sub {
                name: s.get_name().to_string(),
                args: s
                    .get_arguments()
                    .filter(|a| !SKIPPED.contains(&a.get_id().as_str()))
                    .map(|a| Arg {
                        id: a.get_id().to_string(),
                        flag: a
                            .get_long()
                            .map(|l| format!("--{l}"))
                            .or_else(|| a.get_short().map(|c| format!("-{c}"))),
                        takes_value: a.get_action().takes_values(),
                        required: a.is_required_set(),
                        many: a.get_num_args().is_some_and(|n| n.max_values() > 1)
                            || matches!(a.get_action(), clap::ArgAction::Append),
                        least: a.get_num_args().map_or(1, |n| n.min_values().max(1)),
                        value_name: a
                            .get_value_names()
                            .and_then(|v| v.first())
                            .map_or_else(|| a.get_id().as_str().to_uppercase(), |v| v.to_string()),
                        possible: a
                            .get_possible_values()
                            .iter()
                            .map(|p| p.get_name().to_string())
                            .collect(),
                    })
                    .collect(),
            })
            .collect()
    })
}

/// A random input: a subcommand, its positional files, some of its options
/// with values good and bad, and the files they name.
pub fn input(rng: &mut ChaCha8Rng) -> String {
    // Half the inputs go to the commands whose output is checked closely.
    let checked = ["model", "simulate", "mva", "best"];
    let sub = loop {
        let sub = subcommands().choose(rng).expect("subcommands");
        if checked.contains(&sub.name.as_str()) || rng.random_bool(0.5) {
            break sub;
        }
    };
    let mut files = Files::default();
    let mut args = vec![sub.name.clone()];
    for arg in &sub.args {
        let chance = match (&arg.flag, arg.required) {
            (None, _) | (_, true) => 0.95,
            _ if arg.id == "help" || arg.id == "version" => 0.01,
            _ if arg.id == "json" => 0.7,
            _ => 0.15,
        };
        if !rng.random_bool(chance) {
            continue;
        }
        let times = match (&arg.flag, arg.many) {
            (None, true) => rng.random_range(arg.least..arg.least + 3),
            (Some(_), true) => rng.random_range(1..3),
            _ => 1,
        };
        for _ in 0..times {
            if let Some(flag) = &arg.flag {
                args.push(flag.clone());
            }
            if arg.takes_value && rng.random_bool(0.98) {
                args.push(value(rng, arg, &sub.name, &mut files));
            }
        }
    }
    if rng.random_bool(0.03) {
        args.insert(rng.random_range(1..=args.len()), "--no-such-option".into());
    }
    // With --simulate, the stream stays short: work bounded per input.
    if args.iter().any(|a| a == "--simulate") && !args.iter().any(|a| a == "--elements") {
        args.extend(["--elements".into(), rng.random_range(1..50u32).to_string()]);
    }
    let mut text = args.join("\n");
    for (name, contents) in files.0 {
        text.push_str(&format!("\n=== {name}\n{contents}"));
    }
    text
}

/// The files an input writes, by name.
#[derive(Default)]
struct Files(Vec<(String, String)>);

impl Files {
    /// Adds a file and returns the argument naming it.
    fn add(&mut self, name: String, contents: String) -> String {
        let arg = format!("@{name}");
        self.0.push((name, contents));
        arg
    }
}

/// A value for `arg` of subcommand `sub`, by what the option reads.
fn value(rng: &mut ChaCha8Rng, arg: &Arg, sub: &str, files: &mut Files) -> String {
    if !arg.possible.is_empty() && rng.random_bool(0.9) {
        return arg.possible.choose(rng).expect("values").clone();
    }
    match arg.value_name.as_str() {
        "FILE" | "A" | "B" | "FILES" | "DATA" => {
            if ["output", "trace", "efficiency", "gantt"].contains(&arg.id.as_str()) {
                let ext = ["svg", "png", "csv", "json", "txt", ""]
                    .choose(rng)
                    .expect("extensions");
                format!("@out{}.{ext}", files.0.len())
            } else {
                input_file(rng, arg, sub, files)
            }
        }
        "POINT" => point(rng),
        "AXIS" => axis(rng),
        "NAME=AXIS" => format!("{}={}", name(rng), axis(rng)),
        "RANGES" => ranges(rng),
        "LO..HI" => format!("{}..{}", number(rng), number(rng)),
        "TIME" | "CV" => number(rng),
        "EXPRESSION" => {
            let e = generate::expr(rng, 3);
            if rng.random_bool(0.2) {
                generate::mutate(rng, &e)
            } else {
                e
            }
        }
        "NAME" | "REGION" | "METRIC" => name(rng),
        // A limit lifted far past its default runs as long as it is told
        // to (not a hang): bad values, or limits up to the defaults.
        "STEPS" | "EVENTS" => {
            let limits = ["0", "-1", "1.5", "1e5", "2e7", "20000000", "abc"];
            limits.choose(rng).expect("limits").to_string()
        }
        _ => count(rng),
    }
}

/// A file to read: mostly a generated one of the kind the argument reads,
/// sometimes one of `examples/data`, a directory, a missing file or
/// standard input.
fn input_file(rng: &mut ChaCha8Rng, arg: &Arg, sub: &str, files: &mut Files) -> String {
    let n = files.0.len();
    match rng.random_range(0..40) {
        0 => return "@missing.design".into(),
        1 => return "@".into(),
        2 => return "-".into(),
        3..=8 => return format!("%{}", DATA.choose(rng).expect("data")),
        _ => {}
    }
    let mutate = rng.random_bool(0.15);
    let (name, text) = match (sub, arg.id.as_str()) {
        (_, "machine") => (format!("m{n}.json"), generate::machine(rng)),
        ("fit", _) if rng.random_bool(0.2) => (format!("e{n}.txt"), generate::talpas(rng)),
        ("fit", _) if rng.random_bool(0.5) => (format!("e{n}.txt"), generate::extrap_text(rng)),
        ("fit", _) => (format!("e{n}.json"), generate::extrap_json(rng)),
        ("machine", _) => (format!("m{n}.json"), generate::machine(rng)),
        ("mva", _) if rng.random_bool(0.3) => (format!("n{n}.json"), generate::network_file(rng)),
        _ if rng.random_bool(0.5) => (format!("d{n}.design"), known_design(rng, sub)),
        _ => (format!("d{n}.design"), generate::small_design(rng)),
    };
    let text = if mutate {
        generate::mutate(rng, &text)
    } else {
        text
    };
    files.add(name, text)
}

/// A design whose counts and times the checks know: `a = C1; b = C2;
/// pipe(a, tpool[K](b))` or `a = C1; tpool[K](a)` (`invariants::Known`),
/// with `K` literal, or the count `k` for `best` and `rank`.
fn known_design(rng: &mut ChaCha8Rng, sub: &str) -> String {
    let cost = |rng: &mut ChaCha8Rng| rng.random_range(1..2000u32);
    let k = if matches!(sub, "best" | "rank" | "sweep" | "sensitivity") && rng.random_bool(0.7) {
        "k".to_string()
    } else {
        count(rng)
    };
    if rng.random_bool(0.5) {
        format!(
            "a = {}; b = {}; pipe(a, tpool[{k}](b))",
            cost(rng),
            cost(rng)
        )
    } else {
        format!("a = {}; tpool[{k}](a)", cost(rng))
    }
}

/// A count: small mostly, sometimes 0, negative, beyond 2^53 or 2^64, or
/// not a number.
fn count(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..80) {
        0 => "0".into(),
        1 => "-1".into(),
        2 => "9007199254740993".into(),
        3 => "18446744073709551615".into(),
        4 => "18446744073709551616".into(),
        5 => "1e3".into(),
        6 => "two".into(),
        7 => "4294967297".into(),
        _ => rng.random_range(1..24u32).to_string(),
    }
}

/// A number: everyday, zero, negative, extreme or not finite.
fn number(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..30) {
        0 => [
            "0", "-0", "-1", "-2.5", "nan", "inf", "-inf", "1e308", "1e-320", "x",
        ]
        .choose(rng)
        .expect("numbers")
        .to_string(),
        1 => rng.random_range(0.0..1.0f64).to_string(),
        _ => rng.random_range(1..2000u32).to_string(),
    }
}

/// A variable or count name, or a bad one.
fn name(rng: &mut ChaCha8Rng) -> String {
    ["x", "n", "k", "a", "b", "m", "main", "time", "zz", "", "1x"]
        .choose(rng)
        .expect("names")
        .to_string()
}

/// A point, `x=3,k=4`: the designs' variables and counts, sometimes one
/// twice or a bad value.
fn point(rng: &mut ChaCha8Rng) -> String {
    let mut names = vec!["x", "k", "n", "m", "y"];
    if rng.random_bool(0.05) {
        names.push("x");
    }
    let how_many = rng.random_range(1..4);
    let chosen: Vec<&str> = names.choose_multiple(rng, how_many).copied().collect();
    let parts: Vec<String> = chosen
        .into_iter()
        .map(|name| {
            let v = if rng.random_bool(0.8) {
                rng.random_range(1..24u32).to_string()
            } else {
                number(rng)
            };
            format!("{name}={v}")
        })
        .collect();
    parts.join(",")
}

/// An axis of `pattern sweep`, short mostly.
fn axis(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..8) {
        0 => format!("{}..{}", number(rng), number(rng)),
        1 => format!("1..{}:{}:log", number(rng), count(rng)),
        2 => [
            "1..16",
            "2..1e7:20",
            "1e3..1e7:50:log",
            "5",
            "1..0",
            ":",
            "1..4:0",
        ]
        .choose(rng)
        .expect("axes")
        .to_string(),
        _ => format!(
            "1..{}:{}",
            rng.random_range(1..64u32),
            rng.random_range(1..20u32)
        ),
    }
}

/// Ranges of counts, `k=1..8,x=2..4`.
fn ranges(rng: &mut ChaCha8Rng) -> String {
    let parts: Vec<String> = (0..rng.random_range(1..3))
        .map(|_| {
            let name = ["k", "x", "n"].choose(rng).expect("names");
            match rng.random_range(0..5) {
                0 => format!("{name}={}..{}", count(rng), count(rng)),
                _ => format!("{name}=1..{}", rng.random_range(1..30u32)),
            }
        })
        .collect();
    parts.join(",")
}

/// The directory the files of process `pid` are written to (and a
/// worker's working directory, where a relative output lands).
pub fn scratch(pid: u32) -> PathBuf {
    std::env::temp_dir().join(format!("pattern-fuzz-{pid}"))
}

/// The argument list and files of an input.
pub fn split(text: &str) -> (Vec<String>, Vec<(String, String)>) {
    let mut parts = text.split("\n=== ");
    let args = parts
        .next()
        .unwrap_or("")
        .lines()
        .map(str::to_string)
        .collect();
    let files = parts
        .map(|p| {
            let (name, contents) = p.split_once('\n').unwrap_or((p, ""));
            (name.to_string(), contents.to_string())
        })
        .collect();
    (args, files)
}

/// Writes the files, runs the command line in process and checks what it
/// printed.
pub fn run(text: &str, _: &mut ChaCha8Rng) -> Result<(), String> {
    let (args, files) = split(text);
    let dir = scratch(std::process::id());
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    for (name, contents) in &files {
        std::fs::write(dir.join(name), contents)
            .map_err(|e| format!("cannot write {name}: {e}"))?;
    }
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/data");
    let argv: Vec<String> = std::iter::once("pattern".to_string())
        .chain(args.iter().map(|a| {
            if let Some(name) = a.strip_prefix('@') {
                dir.join(name).display().to_string()
            } else if let Some(name) = a.strip_prefix('%') {
                data.join(name).display().to_string()
            } else {
                a.clone()
            }
        }))
        .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = pattern::run(&argv, &mut out, &mut err);
    let (out, err) = (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    );
    if std::env::var_os("PATTERN_FUZZ_TRACE").is_some() {
        eprintln!(
            "exit {code} {}: {}",
            args[0],
            err.lines().next().unwrap_or("")
        );
    }
    invariants::check(&args, &files, code, &out, &err)
}
