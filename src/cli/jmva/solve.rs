//! Solving a JMVA model with the library's solvers: one closed class with
//! [`Network`] (exact MVA, or the Linearizer or Schweitzer-Bard), several
//! with [`MultiClassNetwork`], open classes with [`OpenNetwork`], both
//! kinds with [`MixedNetwork`]. The figures come back in one shape, per
//! station and class.

use super::{ClassKind, JmvaModel, JmvaStation, StationType};
use crate::cli::error::CliError;
use crate::cli::mva::ApproxMethod;
use crate::cli::output::num;
use pattern_core::queue::{
    Approximation, ClassFigures, MAX_EXACT_STEPS, MAX_MULTICLASS_STEPS, MixedNetwork,
    MultiClassApproximation, MultiClassNetwork, Network, OpenNetwork, QueueError, Workload,
};

/// How the model was solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// Exact MVA (closed classes).
    Exact,
    /// An approximation of MVA (closed classes).
    Approx(ApproxMethod),
    /// The open network's product form (exact).
    Open,
}

impl Solver {
    /// The algorithm's name as JMT writes it in `<algorithm name>` (one
    /// JMT knows, or JMT skips the solution).
    pub fn jmt_name(self) -> &'static str {
        match self {
            Solver::Exact | Solver::Open => "MVA",
            Solver::Approx(ApproxMethod::Linearizer) => "Linearizer",
            Solver::Approx(ApproxMethod::SchweitzerBard) => "Bard-Schweitzer",
        }
    }

    /// For the report.
    pub fn describe(self) -> &'static str {
        match self {
            Solver::Exact => "exact MVA",
            Solver::Approx(ApproxMethod::Linearizer) => "approximate MVA: the Linearizer",
            Solver::Approx(ApproxMethod::SchweitzerBard) => "approximate MVA: Schweitzer-Bard",
            Solver::Open => "an open network (product form)",
        }
    }

    /// `--approx`'s value, as JSON reports it.
    pub fn approximation(self) -> Option<&'static str> {
        match self {
            Solver::Approx(ApproxMethod::Linearizer) => Some("linearizer"),
            Solver::Approx(ApproxMethod::SchweitzerBard) => Some("schweitzer-bard"),
            _ => None,
        }
    }
}

/// One class's figures over the network.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassResult {
    /// Cycles (closed) or jobs (open) per unit of time.
    pub throughput: f64,
    /// Time at the stations: for a closed class delays excluded, for an
    /// open one every station (its time in the network).
    pub response_time: f64,
    /// A closed class's cycle: every station, delays included.
    pub cycle_time: Option<f64>,
}

/// A model's solution.
#[derive(Clone, Debug, PartialEq)]
pub struct Solved {
    /// How.
    pub solver: Solver,
    /// Per class, in the model's order.
    pub classes: Vec<ClassResult>,
    /// Per station, then class: the class's throughput (cycles or jobs per
    /// unit of time where it has a demand, else 0), residence time over
    /// all its visits, queue length and utilization.
    pub figures: Vec<Vec<ClassFigures>>,
    /// With open classes, their headroom: the factor every rate may grow
    /// by, and the station that saturates first.
    pub headroom: Option<(f64, String)>,
}

/// Solves `model`: exactly unless `approx`, within `max_steps` (the exact
/// solvers' default limit unless given).
pub fn solve(
    model: &JmvaModel,
    approx: Option<ApproxMethod>,
    max_steps: Option<f64>,
) -> Result<Solved, CliError> {
    let solved = solve_any(model, approx, max_steps)?;
    // A figure past the largest double (a demand of 1e308 at a delay
    // visited at a rate > 1) is an error here, not an `inf` in the report.
    for (s, row) in model.stations.iter().zip(&solved.figures) {
        for (c, f) in model.classes.iter().zip(row) {
            let figures = [
                f.throughput,
                f.residence_time,
                f.queue_length,
                f.utilization,
            ];
            if figures.iter().any(|v| !v.is_finite()) {
                return Err(CliError::Invalid(format!(
                    "the figures of `{}` at `{}` overflow (queue length {}, residence time {}): its demand or rate is too large",
                    c.name,
                    s.name,
                    num(f.queue_length),
                    num(f.residence_time)
                )));
            }
        }
    }
    Ok(solved)
}

fn solve_any(
    model: &JmvaModel,
    approx: Option<ApproxMethod>,
    max_steps: Option<f64>,
) -> Result<Solved, CliError> {
    let populations: Vec<usize> = (model.classes.iter())
        .filter_map(|c| match c.kind {
            ClassKind::Closed(n) => Some(n),
            ClassKind::Open(_) => None,
        })
        .collect();
    let rates: Vec<f64> = (model.classes.iter())
        .filter_map(|c| match c.kind {
            ClassKind::Open(rate) => Some(rate),
            ClassKind::Closed(_) => None,
        })
        .collect();
    let (closed, open) = (populations.len(), rates.len());
    let solver = approx.map_or(Solver::Exact, Solver::Approx);
    if closed > 0 && open > 0 {
        return solve_mixed(model, solver, max_steps);
    }
    if open > 0 {
        if approx.is_some() || max_steps.is_some() {
            return Err(CliError::Invalid(
                "--approx and --max-steps are for closed classes: an open model is solved exactly, in closed form".into(),
            ));
        }
        return solve_open(model, &rates);
    }
    if let [population] = populations[..] {
        solve_single(model, population, solver, max_steps)
    } else {
        solve_closed(model, &populations, solver, max_steps)
    }
}

/// A load-dependent station's rate multiplier `α(n) = S(1)/S(n)`, from
/// the first class that visits it (the reader checked that every class's
/// curve is the same); `S` beyond the list is its last time.
fn rate_curve(station: &JmvaStation) -> impl Fn(usize) -> f64 + Send + Sync + 'static {
    let times = station
        .service
        .iter()
        .find(|t| t[0] > 0.0)
        .cloned()
        .unwrap_or_else(|| vec![1.0]);
    move |n: usize| times[0] / times[n.saturating_sub(1).min(times.len() - 1)]
}

/// The multi-class solvers' settings for `--approx`'s method.
fn classes_approximation(method: ApproxMethod) -> MultiClassApproximation {
    MultiClassApproximation {
        method: method.into(),
        ..MultiClassApproximation::default()
    }
}

/// The exact solvers' refusals in the command's words.
fn beyond_exact(e: QueueError) -> CliError {
    match e {
        QueueError::BeyondExact { steps, limit, .. }
        | QueueError::BeyondExactClasses { steps, limit, .. } => CliError::Invalid(format!(
            "exact MVA would take about {steps:.1e} steps, more than the limit of {limit:.1e} (--max-steps; 1e8 steps take about a second): give --approx for an approximation, or raise --max-steps"
        )),
        other => other.into(),
    }
}

fn solve_single(
    model: &JmvaModel,
    population: usize,
    solver: Solver,
    max_steps: Option<f64>,
) -> Result<Solved, CliError> {
    let class = &model.classes[0];
    if population == 0 {
        return Err(CliError::Invalid(format!(
            "the class `{}` has no jobs: give it a population of at least 1",
            class.name
        )));
    }
    let mut net = Network::new();
    for s in &model.stations {
        let (name, d) = (s.name.clone(), s.demand(0));
        net = match s.kind {
            StationType::Queue { servers: 1 } => net.queue(name, d),
            StationType::Queue { servers } => net.multi_server(name, servers, d),
            StationType::Delay => net.delay(name, d),
            StationType::LoadDependent { .. } => net.load_dependent(name, d, rate_curve(s)),
        };
    }
    let solution = match solver {
        Solver::Approx(method) => {
            let settings = Approximation {
                method: method.into(),
                ..Approximation::default()
            };
            net.mva_approx_with(population, &settings)?
        }
        _ => net
            .mva_within(population, max_steps.unwrap_or(MAX_EXACT_STEPS))
            .map_err(beyond_exact)?,
    };
    let x = solution.throughput();
    let figures = model
        .stations
        .iter()
        .zip(solution.stations())
        .map(|(s, (_, r))| {
            vec![ClassFigures {
                throughput: if s.demand(0) > 0.0 { x } else { 0.0 },
                residence_time: r.residence_time,
                queue_length: r.queue_length,
                utilization: r.utilization,
            }]
        })
        .collect();
    Ok(Solved {
        solver,
        classes: vec![ClassResult {
            throughput: x,
            response_time: solution.response_time(),
            cycle_time: Some(solution.cycle_time()),
        }],
        figures,
        headroom: None,
    })
}

fn solve_closed(
    model: &JmvaModel,
    populations: &[usize],
    solver: Solver,
    max_steps: Option<f64>,
) -> Result<Solved, CliError> {
    let mut net = MultiClassNetwork::new();
    for s in &model.stations {
        let name = s.name.clone();
        net = match s.kind {
            StationType::Queue { servers: 1 } => net.queue(name),
            StationType::Queue { servers } => net.multi_server(name, servers),
            StationType::Delay => net.delay(name),
            StationType::LoadDependent { .. } => net.load_dependent(name, rate_curve(s)),
        };
    }
    for (c, (class, &population)) in model.classes.iter().zip(populations).enumerate() {
        let demands: Vec<(&str, f64)> = (model.stations.iter())
            .map(|s| (s.name.as_str(), s.demand(c)))
            .collect();
        net = net.class(class.name.clone(), population, &demands);
    }
    let solution = match solver {
        Solver::Approx(method) => net.mva_approx_with(&classes_approximation(method))?,
        _ => net
            .mva_within(max_steps.unwrap_or(MAX_MULTICLASS_STEPS))
            .map_err(beyond_exact)?,
    };
    let mut figures = Vec::with_capacity(model.stations.len());
    for s in &model.stations {
        let row: Result<Vec<ClassFigures>, QueueError> = (model.classes.iter())
            .map(|c| solution.of(&c.name, &s.name).copied())
            .collect();
        figures.push(row?);
    }
    let classes: Result<Vec<ClassResult>, QueueError> = (model.classes.iter())
        .map(|c| {
            Ok(ClassResult {
                throughput: solution.throughput(&c.name)?,
                response_time: solution.response_time(&c.name)?,
                cycle_time: Some(solution.cycle_time(&c.name)?),
            })
        })
        .collect();
    Ok(Solved {
        solver,
        classes: classes?,
        figures,
        headroom: None,
    })
}

fn solve_open(model: &JmvaModel, rates: &[f64]) -> Result<Solved, CliError> {
    let mut net = OpenNetwork::new();
    for s in &model.stations {
        let name = s.name.clone();
        net = match s.kind {
            StationType::Queue { servers: 1 } => net.queue(name),
            StationType::Queue { servers } => net.multi_server(name, servers),
            StationType::Delay => net.delay(name),
            StationType::LoadDependent { .. } => {
                return Err(CliError::Invalid(format!(
                    "the load-dependent station `{name}` in an open model is not solved: open networks here have queues, multi-server stations and delays"
                )));
            }
        };
    }
    for (c, (class, &rate)) in model.classes.iter().zip(rates).enumerate() {
        let demands: Vec<(&str, f64)> = (model.stations.iter())
            .map(|s| (s.name.as_str(), s.demand(c)))
            .collect();
        net = net.class(class.name.clone(), rate, &demands);
    }
    let solution = net.solve()?;
    let mut figures = Vec::with_capacity(model.stations.len());
    for (k, s) in model.stations.iter().enumerate() {
        let mut row = Vec::with_capacity(model.classes.len());
        for (c, (class, &rate)) in model.classes.iter().zip(rates).enumerate() {
            let r = solution.of(&class.name, &s.name)?;
            row.push(ClassFigures {
                throughput: if model.stations[k].demand(c) > 0.0 {
                    rate
                } else {
                    0.0
                },
                residence_time: r.residence_time,
                queue_length: r.queue_length,
                utilization: r.utilization,
            });
        }
        figures.push(row);
    }
    let classes: Result<Vec<ClassResult>, QueueError> = (model.classes.iter().zip(rates))
        .map(|(c, &rate)| {
            Ok(ClassResult {
                throughput: rate,
                response_time: solution.response_time(&c.name)?,
                cycle_time: None,
            })
        })
        .collect();
    let (factor, station) = solution.headroom();
    Ok(Solved {
        solver: Solver::Open,
        classes: classes?,
        figures,
        headroom: Some((factor, station.to_string())),
    })
}

/// Closed and open classes together: the open load first, the closed
/// classes by multi-class MVA on the stations it slows down.
fn solve_mixed(
    model: &JmvaModel,
    solver: Solver,
    max_steps: Option<f64>,
) -> Result<Solved, CliError> {
    let mut net = MixedNetwork::new();
    for s in &model.stations {
        let name = s.name.clone();
        net = match s.kind {
            StationType::Queue { servers: 1 } => net.queue(name),
            StationType::Queue { servers } => net.multi_server(name, servers),
            StationType::Delay => net.delay(name),
            StationType::LoadDependent { .. } => net.load_dependent(name, rate_curve(s)),
        };
    }
    for (c, class) in model.classes.iter().enumerate() {
        let workload = match class.kind {
            ClassKind::Closed(n) => Workload::Closed(n),
            ClassKind::Open(rate) => Workload::Open(rate),
        };
        let demands: Vec<(&str, f64)> = (model.stations.iter())
            .map(|s| (s.name.as_str(), s.demand(c)))
            .collect();
        net = net.class(class.name.clone(), workload, &demands);
    }
    let solution = match solver {
        Solver::Approx(method) => net.solve_approx_with(&classes_approximation(method))?,
        _ => net
            .solve_within(max_steps.unwrap_or(MAX_MULTICLASS_STEPS))
            .map_err(beyond_exact)?,
    };
    let mut figures = Vec::with_capacity(model.stations.len());
    for s in &model.stations {
        let row: Result<Vec<ClassFigures>, QueueError> = (model.classes.iter())
            .map(|c| solution.of(&c.name, &s.name).copied())
            .collect();
        figures.push(row?);
    }
    let classes: Result<Vec<ClassResult>, QueueError> = (model.classes.iter())
        .map(|c| {
            let closed = matches!(c.kind, ClassKind::Closed(_));
            Ok(ClassResult {
                throughput: solution.throughput(&c.name)?,
                response_time: solution.response_time(&c.name)?,
                cycle_time: if closed {
                    Some(solution.cycle_time(&c.name)?)
                } else {
                    None
                },
            })
        })
        .collect();
    let (factor, station) = solution.headroom();
    Ok(Solved {
        solver,
        classes: classes?,
        figures,
        headroom: Some((factor, station.to_string())),
    })
}
