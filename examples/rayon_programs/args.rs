//! The command line: `--rounds N`, `--quick`, `--only NAME`, `--help`, and
//! the hidden `--child PROGRAM X [--quick]` the example runs itself with.

use crate::programs::Program;

/// What `--help` prints.
pub const USAGE: &str = "\
usage: cargo run --release --example rayon_programs -- [OPTIONS]

Runs rayon and std-thread programs of the sort suite in independent
processes and sets their time per element against the predictions.

options:
  --rounds N    processes per point, each round runs every point once (default 3)
  --quick       one small size, one round, a short run (a smoke test)
  --only NAME   only the programs named NAME, or whose name contains NAME
                (e.g. 'tpool[4](qsort)', 'tpool', 'pipe(qsort')
  --help        this text";

/// Processes per point unless `--rounds` says.
pub const DEFAULT_ROUNDS: usize = 3;

/// The parent's options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Args {
    /// Processes per point; round `r` runs every point once.
    pub rounds: usize,
    /// One small size, one round, short runs.
    pub quick: bool,
    /// Only the programs so named, or whose name contains it.
    pub only: Option<String>,
}

/// What the process is asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Print the usage.
    Help,
    /// Run every point and report.
    Parent(Args),
    /// Run one point and print one JSON line.
    Child {
        program: Program,
        x: usize,
        quick: bool,
    },
}

/// The mode `args` (without the program's name) ask for, or what is wrong
/// with them.
pub fn parse(args: &[String]) -> Result<Mode, String> {
    if args.first().map(String::as_str) == Some("--child") {
        return parse_child(&args[1..]);
    }
    let mut parsed = Args {
        rounds: DEFAULT_ROUNDS,
        quick: false,
        only: None,
    };
    let mut rounds = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--help" | "-h" => return Ok(Mode::Help),
            "--quick" => parsed.quick = true,
            "--rounds" => {
                let value = it.next().ok_or("--rounds needs a number")?;
                match value.parse::<usize>() {
                    Ok(n) if n >= 1 => rounds = Some(n),
                    _ => {
                        return Err(format!(
                            "--rounds needs a number of at least 1, not '{value}'"
                        ));
                    }
                }
            }
            "--only" => {
                let value = it.next().ok_or("--only needs a program's name")?;
                parsed.only = Some(value.clone());
            }
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    parsed.rounds = rounds.unwrap_or(if parsed.quick { 1 } else { DEFAULT_ROUNDS });
    parsed.programs()?;
    Ok(Mode::Parent(parsed))
}

/// `PROGRAM X [--quick]` after `--child`.
fn parse_child(args: &[String]) -> Result<Mode, String> {
    let [name, x, rest @ ..] = args else {
        return Err("--child needs a program and a size".into());
    };
    let program = Program::named(name).ok_or_else(|| format!("no program '{name}'"))?;
    let x = x
        .parse::<usize>()
        .ok()
        .filter(|x| *x >= 1)
        .ok_or_else(|| format!("the size must be a positive integer, not '{x}'"))?;
    let quick = match rest {
        [] => false,
        [flag] if flag == "--quick" => true,
        _ => return Err(format!("unexpected after --child: {}", rest.join(" "))),
    };
    Ok(Mode::Child { program, x, quick })
}

impl Args {
    /// The programs to run: all, or those `--only` names (exactly, or
    /// else as a part of their name).
    pub fn programs(&self) -> Result<Vec<Program>, String> {
        let all = Program::all();
        let Some(only) = &self.only else {
            return Ok(all);
        };
        if let Some(exact) = Program::named(only) {
            return Ok(vec![exact]);
        }
        let some: Vec<Program> = all
            .into_iter()
            .filter(|p| p.name().contains(only.as_str()))
            .collect();
        if some.is_empty() {
            let names: Vec<String> = Program::all().iter().map(Program::name).collect();
            return Err(format!(
                "--only: no program is named '{only}' (the programs: {})",
                names.join(", ")
            ));
        }
        Ok(some)
    }
}
