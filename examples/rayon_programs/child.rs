//! One point in its own process: the kernels timed alone, then the program
//! run on fresh arrays, one JSON line out.

use crate::programs::{self, Kernel, Program};
use crate::stats;
use serde::{Deserialize, Serialize};
use std::error::Error;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Bytes of arrays a kernel is timed on (one call per array).
const KERNEL_BYTES: usize = 32 << 20;

/// Calls a kernel is timed on at least.
const MIN_CALLS: usize = 16;

/// How long a run should take, s (at most [`RUN_BYTES`] of arrays).
const RUN_SECONDS: f64 = 0.3;

/// Bytes of arrays a run holds at most.
const RUN_BYTES: usize = 512 << 20;

/// Elements a run has at least, for a steady state between the fill and
/// the drain.
const MIN_ELEMENTS: usize = 60;

/// What a child reports, and what the parent adds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Run {
    pub program: String,
    pub x: usize,
    pub threads: usize,
    /// Each kernel's mean time per call alone, ns.
    pub kernel_ns: Vec<(String, f64)>,
    /// Elements the program ran.
    pub elements: usize,
    /// The steady-state time per element, ns.
    pub measured_ns: f64,
    /// How long the program ran, s.
    pub run_s: f64,
    /// The cores the program's threads had on average over the run: the
    /// process's CPU time over the run's length (Linux; 10 ms ticks). Below
    /// `min(threads, cores)` where other work took cores from it.
    #[serde(default)]
    pub cores_used: Option<f64>,
    /// The queueing prediction from this run's kernel times (the parent's).
    #[serde(default)]
    pub queueing: Option<f64>,
    /// The simulated prediction from this run's kernel times (the parent's).
    #[serde(default)]
    pub simulated: Option<f64>,
}

impl Run {
    /// The kernel times by kernel.
    pub fn kernels(&self) -> Vec<(Kernel, f64)> {
        [Kernel::Qsort, Kernel::Inc, Kernel::Nop]
            .into_iter()
            .filter_map(|k| {
                let (_, ns) = self.kernel_ns.iter().find(|(n, _)| n == k.name())?;
                Some((k, *ns))
            })
            .collect()
    }
}

/// Times `program`'s kernels at size `x`, runs it and prints the [`Run`].
pub fn main(program: &Program, x: usize, quick: bool) -> Result<(), Box<dyn Error>> {
    let seed = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos() as u64
        ^ u64::from(std::process::id()) << 32;
    let bytes = x * std::mem::size_of::<i32>();
    let scale = if quick { 8 } else { 1 };
    let calls = (KERNEL_BYTES / scale / bytes).max(MIN_CALLS);
    let kernel_ns: Vec<(Kernel, f64)> = program
        .kernels()
        .into_iter()
        .enumerate()
        .map(|(i, k)| (k, programs::time_kernel(k, x, calls, seed ^ (i as u64 + 1))))
        .collect();
    let elements = elements(program, &kernel_ns, bytes, quick);
    let arrays = programs::arrays(x, elements, seed.rotate_left(17));
    let cpu_before = cpu_seconds();
    let start = Instant::now();
    let departures = program.run(arrays);
    let run_s = start.elapsed().as_secs_f64();
    let cores_used = cpu_seconds()
        .zip(cpu_before)
        .map(|(after, before)| (after - before) / run_s);
    let measured_ns = stats::steady_state(&departures).ok_or("too few elements")?;
    let run = Run {
        program: program.name(),
        x,
        threads: program.threads(),
        kernel_ns: kernel_ns
            .iter()
            .map(|(k, ns)| (k.name().to_string(), *ns))
            .collect(),
        elements,
        measured_ns,
        run_s,
        cores_used,
        queueing: None,
        simulated: None,
    };
    println!("{}", serde_json::to_string(&run)?);
    Ok(())
}

/// Elements for a run of about [`RUN_SECONDS`], guessed from the kernels'
/// times on this machine's cores, within [`MIN_ELEMENTS`] and
/// [`RUN_BYTES`].
fn elements(program: &Program, kernel_ns: &[(Kernel, f64)], bytes: usize, quick: bool) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_element: f64 = match program {
        Program::Pool(_, k) => kernel_ns
            .iter()
            .filter(|(j, _)| j == k)
            .map(|(_, t)| t)
            .sum(),
        Program::Pipe(stages) => stages
            .iter()
            .filter_map(|k| kernel_ns.iter().find(|(j, _)| j == k).map(|(_, t)| t))
            .sum(),
    };
    let parallel = program.threads().min(cores).max(1) as f64;
    let scale = if quick { 8 } else { 1 };
    let wanted = RUN_SECONDS / scale as f64 * 1e9 / (per_element / parallel).max(1.0);
    let most = (RUN_BYTES / scale / bytes).max(MIN_ELEMENTS);
    (wanted as usize).clamp(MIN_ELEMENTS, most)
}

/// The CPU time of this process so far, all its threads, s: user and system
/// time from `/proc/self/stat` (Linux, in ticks of 1/100 s).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command's name in parentheses: utime and stime
    // are the 12th and 13th.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    Some((ticks(11)? + ticks(12)?) / 100.0)
}
