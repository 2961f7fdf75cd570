//! What a validation reports: per suite its atoms and configurations
//! ([`SuiteReport`], [`Row`], [`SizeResult`]), over all suites the
//! acceptance figure ([`Acceptance`]), and the whole file ([`Report`]) with
//! the machine and the settings; the Markdown tables printed from them.

#[cfg(doc)]
use crate::{probe::SpeedProbe, settings::Settings, suite::Suite};
use pattern_core::Expr;
use pattern_core::exec::Metrics;
use pattern_core::fit::stats;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The predictions of one run from the atoms timed around it, ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Predictions {
    /// The plain operators.
    pub plain: Option<f64>,
    /// The refined operators (hand-overs, warm and co-run atoms).
    pub refined: Option<f64>,
    /// The refined design under the queueing model of this machine's
    /// cores.
    pub queueing: Option<f64>,
    /// The refined design simulated on this machine's cores, pinned.
    pub simulated: Option<f64>,
    /// A simulation whose atoms ran their kernels beside the run (direct
    /// execution), at the run's speed factor.
    pub direct: Option<f64>,
    /// The coefficient of variation of the simulated durations.
    #[serde(default)]
    pub variation: f64,
}

/// A measured atom and its fitted model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AtomReport {
    /// The atom.
    pub name: String,
    /// The fitted model, ns per call.
    pub model: Expr,
    /// The fit's leave-one-out SMAPE, percent.
    pub cv_smape: f64,
    /// Every timing, per size.
    pub samples: Vec<AtomSamples>,
}

/// The timings of an atom at one size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AtomSamples {
    /// The size.
    pub x: usize,
    /// Their median, ns.
    pub median_ns: f64,
    /// Every timing, ns, at the reference speed
    /// ([`Settings::normalize_speed`]).
    pub times_ns: Vec<f64>,
    /// The same timings as measured.
    #[serde(default)]
    pub raw_times_ns: Vec<f64>,
}

/// One configuration at one size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizeResult {
    /// The size.
    pub x: usize,
    /// Elements per run.
    pub elements: usize,
    /// The median over the rounds (see [`SizeResult::counted`]) of the
    /// steady-state time between departures, ns, at the reference speed
    /// ([`Settings::normalize_speed`]).
    pub measured_ns: Option<f64>,
    /// The same as measured, without the speed factors.
    pub measured_raw_ns: Option<f64>,
    /// The median latency, ns.
    pub latency_ns: Option<f64>,
    /// The median makespan, ns.
    pub makespan_ns: Option<f64>,
    /// The largest number of kernel calls in flight seen.
    pub max_in_flight: usize,
    /// The median over the rounds of the share of runnable time the
    /// threads waited for a core ([`Metrics::wait_share`]).
    pub wait_share: Option<f64>,
    /// The median over the rounds of the machine's share stolen by the
    /// hypervisor during the run ([`Metrics::steal_share`]).
    pub steal_share: Option<f64>,
    /// Runs repeated because they were disturbed, over all rounds.
    pub repeated: usize,
    /// Rounds whose run counts for the medians: the undisturbed ones (wait
    /// share at most [`Settings::max_wait_share`] and stolen share at most
    /// [`Settings::max_steal_share`]), or all if none is.
    pub counted: usize,
    /// The composed prediction: the plain operators applied to the atoms'
    /// medians at `x` (over every round), ns.
    pub predicted_ns: Option<f64>,
    /// Its relative error against `measured_ns`: the headline figure.
    pub error: Option<f64>,
    /// The plain operators applied to the atoms' medians as measured.
    pub predicted_raw_ns: Option<f64>,
    /// Its relative error against `measured_raw_ns`: the comparison
    /// without the speed probe.
    pub error_raw: Option<f64>,
    /// The speed factor of each round's run ([`SpeedProbe::factor`]; 1
    /// without [`Settings::normalize_speed`]).
    pub speed_factors: Vec<f64>,
    /// The refined operators (hand-over, cache reuse) applied to the same.
    pub predicted_refined_ns: Option<f64>,
    /// Its relative error.
    pub error_refined: Option<f64>,
    /// Each counted round's run against the operators applied to the atoms
    /// timed right before and after it, the median over the rounds
    /// (noisier: fewer timings per comparison).
    pub paired_error: Option<f64>,
    /// The same for the refined operators.
    pub paired_error_refined: Option<f64>,
    /// The refined design under the queueing model of this machine's cores
    /// (the median over the counted rounds), ns.
    #[serde(default)]
    pub predicted_queueing_ns: Option<f64>,
    /// Its relative error against `measured_ns`.
    #[serde(default)]
    pub error_queueing: Option<f64>,
    /// The refined design simulated on this machine's pinned cores (the
    /// median over the counted rounds), ns.
    #[serde(default)]
    pub predicted_simulated_ns: Option<f64>,
    /// Its relative error against `measured_ns`.
    #[serde(default)]
    pub error_simulated: Option<f64>,
    /// The simulation with directly executed atoms (the median over the
    /// counted rounds, each at its run's speed factor), ns.
    #[serde(default)]
    pub predicted_direct_ns: Option<f64>,
    /// Its relative error against `measured_ns`.
    #[serde(default)]
    pub error_direct: Option<f64>,
    /// Per round: the predictions from the atoms timed around that round's
    /// run, ns.
    pub round_predictions: Vec<Predictions>,
    /// The modular model (from the atoms' fitted models) at `x`, ns.
    pub model_predicted_ns: Option<f64>,
    /// Its relative error against `measured_ns`: adds the error of fitting
    /// the atoms over all sizes.
    pub model_error: Option<f64>,
    /// The refined model at `x`, ns.
    pub model_predicted_refined_ns: Option<f64>,
    /// Its relative error.
    pub model_error_refined: Option<f64>,
    /// The metrics of every run.
    pub runs: Vec<Metrics>,
}

/// Median and largest of some relative errors.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorSummary {
    /// How many.
    pub count: usize,
    /// Their median.
    pub median: f64,
    /// The largest.
    pub max: f64,
}

impl ErrorSummary {
    /// `None` for no errors.
    pub fn of(errors: &[f64]) -> Option<ErrorSummary> {
        (!errors.is_empty()).then(|| ErrorSummary {
            count: errors.len(),
            median: stats::median(errors),
            max: errors.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }
}

/// One configuration: its models and errors (a row of the paper's Table 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Its family.
    pub group: String,
    /// Its structure.
    pub design: String,
    /// Whether it counts for the acceptance figure.
    pub acceptance: bool,
    /// Threads it runs.
    pub threads: usize,
    /// The executor's warnings (threads beyond the cores).
    pub warnings: Vec<String>,
    /// The model fitted from the whole runs (monolithic).
    pub monolithic: Option<String>,
    /// Why there is none.
    pub monolithic_note: Option<String>,
    /// The model composed from the atoms, pipelines as a pointwise max
    /// (modular).
    pub modular: String,
    /// The same with the paper's asymptotic choice for pipelines.
    pub modular_asymptotic: String,
    /// Relative error of the leading coefficients, modular (asymptotic)
    /// against monolithic.
    pub lead_error: Option<f64>,
    /// Why there is none (different classes, ...).
    pub lead_note: Option<String>,
    /// The design with the hand-over atoms.
    pub refined_design: Option<String>,
    /// Its model.
    pub refined_model: Option<String>,
    /// Its leading-coefficient error.
    pub lead_error_refined: Option<f64>,
    /// Why there is none.
    pub lead_note_refined: Option<String>,
    /// Pointwise errors ([`SizeResult::error`]) at the acceptance sizes.
    pub errors_from: Option<ErrorSummary>,
    /// The same for the model with the hand-over.
    pub errors_from_refined: Option<ErrorSummary>,
    /// The same for the queueing model ([`SizeResult::error_queueing`]).
    #[serde(default)]
    pub errors_from_queueing: Option<ErrorSummary>,
    /// The same for the simulation ([`SizeResult::error_simulated`]).
    #[serde(default)]
    pub errors_from_simulated: Option<ErrorSummary>,
    /// The same for direct execution ([`SizeResult::error_direct`]).
    #[serde(default)]
    pub errors_from_direct: Option<ErrorSummary>,
    /// Pointwise errors ([`SizeResult::error`]) at every size.
    pub errors_all: Option<ErrorSummary>,
    /// Errors of the fitted modular model ([`SizeResult::model_error`]) at
    /// the acceptance sizes.
    pub model_errors_from: Option<ErrorSummary>,
    /// The largest [`SizeResult::wait_share`] at the acceptance sizes: how
    /// much other load (or more threads than cores) disturbed the runs.
    pub wait_share_max: Option<f64>,
    /// The largest [`SizeResult::steal_share`] at the acceptance sizes.
    pub steal_share_max: Option<f64>,
    /// Every size.
    pub sizes: Vec<SizeResult>,
}

/// The result of one suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteReport {
    /// The suite.
    pub name: String,
    /// Its sizes.
    pub sizes: Vec<usize>,
    /// The smallest size its error summaries ([`Row::errors_from`]) count.
    pub acceptance_from: usize,
    /// Its atoms.
    pub atoms: Vec<AtomReport>,
    /// The hand-over atom, if measured.
    pub handoff: Option<AtomReport>,
    /// The variants of the element atoms: measured warm
    /// ([`Suite::with_cache_reuse`]) and co-run ([`Suite::with_contention`]).
    pub variants: Vec<AtomReport>,
    /// Its configurations.
    pub rows: Vec<Row>,
    /// How long it took, s.
    pub seconds: f64,
}

/// The acceptance figure: pointwise errors of the acceptance configurations
/// at the acceptance sizes, over every suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Acceptance {
    /// From which size.
    pub from: usize,
    /// The limit.
    pub limit: f64,
    /// Configurations counted.
    pub configurations: usize,
    /// The plain operators.
    pub plain: Option<ErrorSummary>,
    /// The worst (configuration, size) of the plain operators.
    pub plain_worst: Option<(String, usize)>,
    /// The refined model (hand-over and cache reuse).
    pub refined: Option<ErrorSummary>,
    /// The worst (configuration, size) with the hand-over.
    pub refined_worst: Option<(String, usize)>,
    /// The plain operators on the timings as measured, without the speed
    /// factors ([`SizeResult::error_raw`]).
    #[serde(default)]
    pub raw: Option<ErrorSummary>,
    /// Its worst (configuration, size).
    #[serde(default)]
    pub raw_worst: Option<(String, usize)>,
    /// The refined design under the queueing model of the machine.
    #[serde(default)]
    pub queueing: Option<ErrorSummary>,
    /// Its worst (configuration, size).
    #[serde(default)]
    pub queueing_worst: Option<(String, usize)>,
    /// The refined design simulated on the machine's pinned cores: the
    /// machine-aware prediction chosen before the run
    /// ([`CHOSEN`](crate::machine_aware::CHOSEN)).
    #[serde(default)]
    pub simulated: Option<ErrorSummary>,
    /// Its worst (configuration, size).
    #[serde(default)]
    pub simulated_worst: Option<(String, usize)>,
    /// The simulation with directly executed atoms.
    #[serde(default)]
    pub direct: Option<ErrorSummary>,
    /// Its worst (configuration, size).
    #[serde(default)]
    pub direct_worst: Option<(String, usize)>,
}

impl Acceptance {
    /// Collects the figure from suite reports.
    pub fn of(suites: &[SuiteReport], from: usize, limit: f64) -> Acceptance {
        // Each suite from its own acceptance size (its sizes are its own:
        // images per job for the mapReduce), at most `from`.
        let rows: Vec<(&Row, usize)> = suites
            .iter()
            .flat_map(|s| s.rows.iter().map(|r| (r, s.acceptance_from.min(from))))
            .filter(|(r, _)| r.acceptance)
            .collect();
        let collect = |f: fn(&SizeResult) -> Option<f64>| {
            let mut all = Vec::new();
            let mut worst: Option<(f64, String, usize)> = None;
            for (r, from) in &rows {
                for s in r.sizes.iter().filter(|s| s.x >= *from) {
                    if let Some(e) = f(s) {
                        all.push(e);
                        if worst.as_ref().is_none_or(|w| e > w.0) {
                            worst = Some((e, r.design.clone(), s.x));
                        }
                    }
                }
            }
            (ErrorSummary::of(&all), worst.map(|(_, d, x)| (d, x)))
        };
        let (plain, plain_worst) = collect(|s| s.error);
        let (refined, refined_worst) = collect(|s| s.error_refined);
        let (raw, raw_worst) = collect(|s| s.error_raw);
        let (queueing, queueing_worst) = collect(|s| s.error_queueing);
        let (simulated, simulated_worst) = collect(|s| s.error_simulated);
        let (direct, direct_worst) = collect(|s| s.error_direct);
        Acceptance {
            from,
            limit,
            configurations: rows.len(),
            plain,
            plain_worst,
            refined,
            refined_worst,
            raw,
            raw_worst,
            queueing,
            queueing_worst,
            simulated,
            simulated_worst,
            direct,
            direct_worst,
        }
    }

    /// Whether the chosen machine-aware prediction meets the bar:
    /// every point within the limit, the median within half of it.
    pub fn passed_machine_aware(&self) -> bool {
        self.simulated
            .is_some_and(|s| s.max <= self.limit && s.median <= self.limit / 2.0)
    }

    /// Whether the plain operators meet the limit everywhere.
    pub fn passed(&self) -> bool {
        self.plain.is_some_and(|s| s.max <= self.limit)
    }

    /// Whether the refined model meets the limit everywhere.
    pub fn passed_refined(&self) -> bool {
        self.refined.is_some_and(|s| s.max <= self.limit)
    }
}

/// The machine a validation ran on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Cores offered (`std::thread::available_parallelism`).
    pub cores: usize,
    /// The 1, 5 and 15 minute load averages (`/proc/loadavg`), where the
    /// system tells them: runnable processes, this one included.
    pub load_average: Option<[f64; 3]>,
}

impl Machine {
    /// The machine now.
    pub fn now() -> Machine {
        let load_average = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|text| {
                let v: Vec<f64> = text
                    .split_whitespace()
                    .take(3)
                    .filter_map(|t| t.parse().ok())
                    .collect();
                <[f64; 3]>::try_from(v).ok()
            });
        Machine {
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            load_average,
        }
    }
}

/// The settings of a validation, as recorded in its report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SettingsRecord {
    /// [`Settings::rounds`].
    pub rounds: usize,
    /// [`Settings::atom_repetitions`].
    pub atom_repetitions: usize,
    /// [`Settings::run_target`], ms.
    pub run_target_ms: f64,
    /// [`Settings::min_elements`].
    pub min_elements: usize,
    /// [`Settings::max_elements`].
    pub max_elements: usize,
    /// [`Settings::max_bytes`].
    pub max_bytes: usize,
    /// [`Settings::capacity`].
    pub capacity: usize,
    /// [`Settings::spin`], µs.
    pub spin_us: f64,
    /// [`Settings::trim`].
    pub trim: f64,
    /// [`Settings::max_wait_share`].
    pub max_wait_share: f64,
    /// [`Settings::retries`].
    pub retries: usize,
    /// [`Settings::cold_bytes`].
    pub cold_bytes: usize,
    /// [`Settings::normalize_speed`].
    #[serde(default)]
    pub normalize_speed: bool,
    /// [`Settings::max_speed_change`].
    #[serde(default)]
    pub max_speed_change: f64,
    /// [`Settings::pin_threads`].
    #[serde(default)]
    pub pin_threads: bool,
    /// [`Settings::max_steal_share`].
    #[serde(default)]
    pub max_steal_share: f64,
    /// [`Settings::discount_steal`].
    #[serde(default)]
    pub discount_steal: bool,
    /// [`Settings::atom_stream`], ms.
    #[serde(default)]
    pub atom_stream_ms: f64,
    /// The wake-up latency on a busy core the simulations use, µs.
    pub wake_latency_us: f64,
    /// How long a waiting thread polls before it sleeps in the
    /// simulations, µs (`None`: forever).
    #[serde(default)]
    pub wait_spin_us: Option<f64>,
    /// What a wake-up in vain costs its core in the simulations, µs.
    #[serde(default)]
    pub wake_cost_us: f64,
    /// What waking a thread asleep on a free core costs the waker in the
    /// simulations, µs.
    #[serde(default)]
    pub waker_cost_us: f64,
}

/// Everything a validation measured and concluded, for the JSON file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The machine before the run.
    pub machine_before: Machine,
    /// The machine after the run.
    pub machine_after: Machine,
    /// The settings of each suite, by suite name.
    pub settings: BTreeMap<String, SettingsRecord>,
    /// The suites.
    pub suites: Vec<SuiteReport>,
    /// The acceptance figure.
    pub acceptance: Acceptance,
    /// The whole validation's wall time, s.
    pub seconds: f64,
}

fn pct(e: Option<f64>) -> String {
    e.map_or("–".to_string(), |e| format!("{:.1}", e * 100.0))
}

fn pct_summary(s: Option<ErrorSummary>) -> String {
    s.map_or("–".to_string(), |s| {
        format!("{:.1} / {:.1}", s.median * 100.0, s.max * 100.0)
    })
}

fn rounded(text: &str) -> String {
    Expr::parse(text).map_or(text.to_string(), |e| format!("{e:.4}"))
}

impl SuiteReport {
    /// The atoms as a Markdown table.
    pub fn atoms_table(&self) -> String {
        let mut out =
            String::from("| atom | fitted model [ns] | LOO SMAPE % |\n| --- | --- | --- |\n");
        for a in self.atoms.iter().chain(&self.variants).chain(&self.handoff) {
            let _ = writeln!(out, "| {} | {:.4} | {:.2} |", a.name, a.model, a.cv_smape);
        }
        out
    }

    /// The configurations as a Markdown table like seed 001 Table 2:
    /// monolithic model, modular model, the relative error of the leading
    /// coefficients, and the pointwise errors (median / max over the sizes
    /// from [`SuiteReport::acceptance_from`]) of the plain and the refined
    /// model, and how much other load disturbed the runs.
    pub fn table(&self) -> String {
        let from = self.acceptance_from;
        let mut out = format!(
            "| configuration | threads | monolithic model [ns] | modular model [ns] | lead. coeff. error % | plain: error % at x ≥ {from} (median / max) | refined | queueing | **simulated** | direct execution | fitted model | CPU wait % | stolen % |\n\
             | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
        );
        for r in &self.rows {
            let mono = r
                .monolithic
                .as_deref()
                .map_or_else(|| "–".to_string(), rounded);
            let lead = match (r.lead_error, &r.lead_note) {
                (Some(e), Some(_)) => format!("{} (refitted)", pct(Some(e))),
                (Some(e), None) => pct(Some(e)),
                (None, Some(note)) if note.contains("different classes") => "classes differ".into(),
                _ => "–".into(),
            };
            let warn = if r.warnings.is_empty() { "" } else { " ⚠" };
            let _ = writeln!(
                out,
                "| {}{warn} | {} | {mono} | {} | {lead} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.design,
                r.threads,
                rounded(&r.modular),
                pct_summary(r.errors_from),
                pct_summary(r.errors_from_refined),
                pct_summary(r.errors_from_queueing),
                pct_summary(r.errors_from_simulated),
                pct_summary(r.errors_from_direct),
                pct_summary(r.model_errors_from),
                pct(r.wait_share_max),
                pct(r.steal_share_max),
            );
        }
        out
    }

    /// Pointwise errors of the plain operators per configuration and size,
    /// as a Markdown table.
    pub fn errors_table(&self) -> String {
        let mut out = String::from("| configuration |");
        for x in &self.sizes {
            let _ = write!(out, " {x} |");
        }
        out.push_str("\n| --- |");
        out.push_str(&" --- |".repeat(self.sizes.len()));
        out.push('\n');
        for r in &self.rows {
            let _ = write!(out, "| {} |", r.design);
            for x in &self.sizes {
                let e = r.sizes.iter().find(|s| s.x == *x).and_then(|s| s.error);
                let _ = write!(out, " {} |", pct(e));
            }
            out.push('\n');
        }
        out
    }
}
