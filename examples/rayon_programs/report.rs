//! The report: per point the measured median over the processes and its
//! spread, the kernels' medians, the two predictions' medians and their
//! errors under the rule of the issue; a summary per prediction, for all
//! points and for those with more threads than cores.

use crate::args::Args;
use crate::child::Run;
use crate::programs::Program;
use crate::stats::{self, Verdict};
use pattern_core::machine::{Machine, Runtime};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Duration;

/// The goal: the median error at most this…
const GOAL_MEDIAN: f64 = 0.05;

/// …and at least this share of the points within.
const GOAL_SHARE: f64 = 0.90;

/// The two predictions, by name.
pub const PREDICTIONS: [&str; 2] = ["queueing", "simulated"];

/// One prediction of a point: the median over the processes, its error
/// against the measured median and the verdict of the rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub ns: f64,
    pub error: f64,
    pub verdict: Verdict,
}

/// One point: a program at a size, over its processes.
#[derive(Clone, Debug)]
pub struct Row {
    pub program: String,
    pub x: usize,
    pub threads: usize,
    /// The measured times of the processes, ns.
    pub measured: Vec<f64>,
    /// Each kernel's median over the processes, ns.
    pub kernels: Vec<(String, f64)>,
    /// The cores the program had during its runs, median over the
    /// processes ([`Run::cores_used`]).
    pub cores_used: Option<f64>,
    /// The queueing and the simulated prediction, where they could be made.
    pub predictions: [Option<Judged>; 2],
}

impl Row {
    /// The point's row from `runs` (those of the point), `None` without any.
    pub fn new(program: &Program, x: usize, runs: &[&Run]) -> Option<Row> {
        let measured: Vec<f64> = runs.iter().map(|r| r.measured_ns).collect();
        if measured.is_empty() {
            return None;
        }
        let mut kernels = Vec::new();
        for (name, _) in &runs[0].kernel_ns {
            let times: Vec<f64> = runs
                .iter()
                .filter_map(|r| r.kernel_ns.iter().find(|(n, _)| n == name).map(|k| k.1))
                .collect();
            kernels.push((name.clone(), stats::median(&times)?));
        }
        let judged = |pick: fn(&Run) -> Option<f64>| {
            let values: Vec<f64> = runs.iter().filter_map(|r| pick(r)).collect();
            let ns = stats::median(&values)?;
            let (error, verdict) = stats::judge(ns, &measured)?;
            Some(Judged { ns, error, verdict })
        };
        Some(Row {
            program: program.name(),
            x,
            threads: program.threads(),
            predictions: [judged(|r| r.queueing), judged(|r| r.simulated)],
            cores_used: stats::median(
                &runs.iter().filter_map(|r| r.cores_used).collect::<Vec<_>>(),
            ),
            measured,
            kernels,
        })
    }

    /// The measured median, ns.
    pub fn median(&self) -> f64 {
        stats::median(&self.measured).unwrap_or(f64::NAN)
    }

    /// The measured spread, (max − min) / median.
    pub fn spread(&self) -> f64 {
        stats::spread(&self.measured).unwrap_or(f64::NAN)
    }
}

/// How one prediction fares over some points.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Points with this prediction.
    pub points: usize,
    /// The median of the absolute errors.
    pub median_error: f64,
    /// The share of the points that count as within.
    pub share_within: f64,
    /// The worst point: its name and error.
    pub worst: Option<(String, f64)>,
}

impl Summary {
    /// Prediction `which` over `rows`; `None` if none of them has it.
    pub fn of(rows: &[&Row], which: usize) -> Option<Summary> {
        let judged: Vec<(&Row, &Judged)> = rows
            .iter()
            .filter_map(|r| Some((*r, r.predictions[which].as_ref()?)))
            .collect();
        let errors: Vec<f64> = judged.iter().map(|(_, j)| j.error.abs()).collect();
        let median_error = stats::median(&errors)?;
        let within = judged.iter().filter(|(_, j)| j.verdict.counts()).count();
        let worst = judged
            .iter()
            .max_by(|a, b| a.1.error.abs().total_cmp(&b.1.error.abs()))
            .map(|(r, j)| (format!("{} at {}", r.program, r.x), j.error));
        Some(Summary {
            points: judged.len(),
            median_error,
            share_within: within as f64 / judged.len() as f64,
            worst,
        })
    }

    /// Whether the goal is met: median error at most 5 %, 90 % within.
    pub fn meets_goal(&self) -> bool {
        self.median_error <= GOAL_MEDIAN && self.share_within >= GOAL_SHARE
    }

    fn line(&self, name: &str, scope: &str) -> String {
        let worst = self.worst.as_ref().map_or(String::from("-"), |(p, e)| {
            format!("{p} ({:+.1} %)", e * 100.0)
        });
        format!(
            "- {name}, {scope} ({} points): median error {:.1} %, {:.0} % within, worst {worst}; goal {}",
            self.points,
            self.median_error * 100.0,
            self.share_within * 100.0,
            if self.meets_goal() { "met" } else { "not met" }
        )
    }
}

/// The whole report.
pub struct Report {
    pub rows: Vec<Row>,
    pub cores: usize,
    machines: BTreeMap<Runtime, Machine>,
    rounds: usize,
    quick: bool,
    took: Duration,
    runs: Vec<Run>,
}

impl Report {
    /// The report of `runs` over `points`.
    pub fn new(
        points: &[(Program, usize)],
        runs: &[Run],
        machines: &BTreeMap<Runtime, Machine>,
        args: &Args,
        took: Duration,
    ) -> Report {
        let rows = points
            .iter()
            .filter_map(|(program, x)| {
                let name = program.name();
                let of: Vec<&Run> = runs
                    .iter()
                    .filter(|r| r.program == name && r.x == *x)
                    .collect();
                Row::new(program, *x, &of)
            })
            .collect();
        let cores = machines.values().next().map_or(1, Machine::cores);
        Report {
            rows,
            cores,
            machines: machines.clone(),
            rounds: args.rounds,
            quick: args.quick,
            took,
            runs: runs.to_vec(),
        }
    }

    /// The summaries of each prediction: over all points and over those
    /// with more threads than cores.
    pub fn summaries(&self) -> Vec<(&'static str, &'static str, Option<Summary>)> {
        let all: Vec<&Row> = self.rows.iter().collect();
        let beyond: Vec<&Row> = self
            .rows
            .iter()
            .filter(|r| r.threads > self.cores)
            .collect();
        let mut out = Vec::new();
        for (which, name) in PREDICTIONS.iter().enumerate() {
            out.push((*name, "all points", Summary::of(&all, which)));
            out.push((*name, "threads > cores", Summary::of(&beyond, which)));
        }
        out
    }

    /// The table and the summary lines, in markdown.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Rayon and std-thread programs on {} cores, {} process(es) per point; times in µs per element (medians over the processes); cores: the cores the program's threads had during its run (CPU time over the run's length).\n",
            self.cores, self.rounds
        );
        s.push_str("| program | x | threads | cores | measured | spread | kernels | queueing | error | simulated | error |\n");
        s.push_str(
            "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |\n",
        );
        for row in &self.rows {
            let kernels: Vec<String> = row
                .kernels
                .iter()
                .map(|(k, ns)| format!("{k} {:.1}", ns / 1e3))
                .collect();
            let _ = write!(
                s,
                "| {} | {} | {} | {} | {:.2} | {:.0} % | {} |",
                row.program,
                row.x,
                row.threads,
                row.cores_used
                    .map_or("-".to_string(), |c| format!("{c:.1}")),
                row.median() / 1e3,
                row.spread() * 100.0,
                kernels.join(", ")
            );
            for judged in &row.predictions {
                match judged {
                    Some(j) => {
                        let mark = match j.verdict {
                            Verdict::Within => "",
                            Verdict::InRange => " (range)",
                            Verdict::Off => " !",
                        };
                        let _ = write!(s, " {:.2} | {:+.1} %{mark} |", j.ns / 1e3, j.error * 100.0);
                    }
                    None => s.push_str(" - | - |"),
                }
            }
            s.push('\n');
        }
        s.push_str("\n(range): off by more than 10 %, but the program spreads by more than 20 % and the prediction lies inside its measured range; !: off.\n\n");
        for (name, scope, summary) in self.summaries() {
            if let Some(summary) = summary {
                let _ = writeln!(s, "{}", summary.line(name, scope));
            }
        }
        s
    }

    /// Everything, for `target/rayon_programs.json`.
    pub fn json(&self) -> Value {
        let verdict = |v: Verdict| match v {
            Verdict::Within => "within",
            Verdict::InRange => "in range",
            Verdict::Off => "off",
        };
        let rows: Vec<Value> =
            self.rows
                .iter()
                .map(|r| {
                    let mut row = json!({
                        "program": r.program, "x": r.x, "threads": r.threads,
                        "measured_ns": r.median(), "spread": r.spread(),
                        "measured_runs_ns": r.measured, "kernels_ns": r.kernels,
                    "cores_used": r.cores_used,
                    });
                    for (which, name) in PREDICTIONS.iter().enumerate() {
                        row[*name] = r.predictions[which].as_ref().map_or(Value::Null, |j| {
                        json!({"ns": j.ns, "error": j.error, "verdict": verdict(j.verdict)})
                    });
                    }
                    row
                })
                .collect();
        let summaries: Vec<Value> = self
            .summaries()
            .into_iter()
            .filter_map(|(name, scope, s)| {
                let s = s?;
                Some(json!({
                    "prediction": name, "scope": scope, "points": s.points,
                    "median_error": s.median_error, "share_within": s.share_within,
                    "worst": s.worst, "goal_met": s.meets_goal(),
                }))
            })
            .collect();
        let machines: BTreeMap<String, Value> = self
            .machines
            .iter()
            .map(|(rt, m)| {
                (
                    rt.to_string(),
                    serde_json::from_str(&m.to_json()).unwrap_or(Value::Null),
                )
            })
            .collect();
        json!({
            "cores": self.cores, "rounds": self.rounds, "quick": self.quick,
            "took_s": self.took.as_secs_f64(), "machines": machines,
            "points": rows, "summaries": summaries, "runs": self.runs,
        })
    }
}
