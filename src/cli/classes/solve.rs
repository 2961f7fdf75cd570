//! Solving a network of classes with the library's solvers: one closed
//! class with [`Network`] (exact MVA, or the Linearizer or
//! Schweitzer-Bard), several closed ones (with or without open ones) with
//! [`MixedNetwork`], open classes alone with [`OpenNetwork`]. The figures
//! come back in one shape, per station and class.

use super::{ClassesModel, StationKind, rate_curve};
use crate::cli::error::CliError;
use crate::cli::mva::ApproxMethod;
use crate::cli::output::num;
use pattern_core::queue::{
    Approximation, ClassFigures, MAX_EXACT_STEPS, MAX_MULTICLASS_STEPS, MixedNetwork,
    MultiClassApproximation, Network, OpenNetwork, QueueError, Workload,
};

/// How the network was solved.
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
            Solver::Approx(method) => Some(method.name()),
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

/// A network's solution.
#[derive(Clone, Debug, PartialEq)]
pub struct Solved {
    /// How.
    pub solver: Solver,
    /// Per class, in the model's order.
    pub classes: Vec<ClassResult>,
    /// Per station, then class: the class's throughput (cycles or jobs per
    /// unit of time where it has a demand, else 0), residence time, queue
    /// length and utilization.
    pub figures: Vec<Vec<ClassFigures>>,
    /// With open classes, their headroom: the factor every rate may grow
    /// by, and the station that saturates first.
    pub headroom: Option<(f64, String)>,
}

impl Solved {
    /// Station `k`'s figures over every class: throughputs, utilizations
    /// and queues summed, the residence time by Little's law.
    pub fn total(&self, k: usize) -> ClassFigures {
        let row = &self.figures[k];
        let x: f64 = row.iter().map(|f| f.throughput).sum();
        let q: f64 = row.iter().map(|f| f.queue_length).sum();
        ClassFigures {
            throughput: x,
            utilization: row.iter().map(|f| f.utilization).sum(),
            queue_length: q,
            residence_time: if x > 0.0 { q / x } else { 0.0 },
        }
    }
}

/// Solves `model`: exactly unless `approx`, within `max_steps` (the exact
/// solvers' default limit unless given). A figure past the largest double
/// (a demand of 1e308 at a delay visited at a rate > 1) is an error, not
/// an `inf` in the report.
pub fn solve(
    model: &ClassesModel,
    approx: Option<ApproxMethod>,
    max_steps: Option<f64>,
) -> Result<Solved, CliError> {
    let solved = solve_any(model, approx, max_steps)?;
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
    model: &ClassesModel,
    approx: Option<ApproxMethod>,
    max_steps: Option<f64>,
) -> Result<Solved, CliError> {
    let solver = approx.map_or(Solver::Exact, Solver::Approx);
    match model.counts() {
        (0, _) => {
            if approx.is_some() || max_steps.is_some() {
                return Err(CliError::Invalid(
                    "--approx and --max-steps are for closed classes: open classes alone are solved exactly, in closed form".into(),
                ));
            }
            solve_open(model)
        }
        (1, 0) => solve_single(model, solver, max_steps),
        _ => solve_classes(model, solver, max_steps),
    }
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
            "exact MVA would take about {steps:.1e} steps, more than the limit of {limit:.1e} (--max-steps; 1e8 steps take about a second): give --approx for the Linearizer's approximation, or raise --max-steps"
        )),
        other => other.into(),
    }
}

/// The figures of each station and class, read from a solution.
fn figures(
    model: &ClassesModel,
    of: impl Fn(&str, &str) -> Result<ClassFigures, QueueError>,
) -> Result<Vec<Vec<ClassFigures>>, QueueError> {
    (model.stations.iter())
        .map(|s| {
            (model.classes.iter())
                .map(|c| of(&c.name, &s.name))
                .collect()
        })
        .collect()
}

fn solve_single(
    model: &ClassesModel,
    solver: Solver,
    max_steps: Option<f64>,
) -> Result<Solved, CliError> {
    let class = &model.classes[0];
    let Workload::Closed(population) = class.workload else {
        unreachable!("one closed class");
    };
    if population == 0 {
        return Err(CliError::Invalid(format!(
            "the class `{}` has no jobs: give it a population of at least 1",
            class.name
        )));
    }
    let mut net = Network::new();
    for s in &model.stations {
        let (name, d) = (s.name.clone(), s.demands[0]);
        net = match &s.kind {
            StationKind::Queue => net.queue(name, d),
            StationKind::MultiServer(c) => net.multi_server(name, *c, d),
            StationKind::Delay => net.delay(name, d),
            StationKind::LoadDependent(r) => net.load_dependent(name, d, rate_curve(r.clone())),
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
    let figures = (model.stations.iter().zip(solution.stations()))
        .map(|(s, (_, r))| {
            vec![ClassFigures {
                throughput: if s.demands[0] > 0.0 { x } else { 0.0 },
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

fn solve_open(model: &ClassesModel) -> Result<Solved, CliError> {
    let mut net = OpenNetwork::new();
    for s in &model.stations {
        let name = s.name.clone();
        net = match &s.kind {
            StationKind::Queue => net.queue(name),
            StationKind::MultiServer(c) => net.multi_server(name, *c),
            StationKind::Delay => net.delay(name),
            StationKind::LoadDependent(_) => match s.demands.iter().position(|d| *d > 0.0) {
                // Unvisited, it is idle: as the mixed solver says it.
                None => net.delay(name),
                Some(c) => {
                    return Err(QueueError::OpenAtLoadDependent {
                        station: name,
                        class: model.classes[c].name.clone(),
                    }
                    .into());
                }
            },
        };
    }
    let rate = |c: usize| match model.classes[c].workload {
        Workload::Open(rate) => rate,
        Workload::Closed(_) => 0.0,
    };
    for (c, class) in model.classes.iter().enumerate() {
        net = net.class(class.name.clone(), rate(c), &model.demands(c));
    }
    let solution = net.solve()?;
    let figures = (model.stations.iter())
        .map(|s| {
            (model.classes.iter().enumerate())
                .map(|(c, class)| {
                    let r = solution.of(&class.name, &s.name)?;
                    Ok(ClassFigures {
                        throughput: if s.demands[c] > 0.0 { rate(c) } else { 0.0 },
                        residence_time: r.residence_time,
                        queue_length: r.queue_length,
                        utilization: r.utilization,
                    })
                })
                .collect()
        })
        .collect::<Result<_, QueueError>>()?;
    let classes = (model.classes.iter().enumerate())
        .map(|(c, class)| {
            Ok(ClassResult {
                throughput: rate(c),
                response_time: solution.response_time(&class.name)?,
                cycle_time: None,
            })
        })
        .collect::<Result<_, QueueError>>()?;
    let (factor, station) = solution.headroom();
    Ok(Solved {
        solver: Solver::Open,
        classes,
        figures,
        headroom: Some((factor, station.to_string())),
    })
}

/// Several closed classes, with or without open ones: the open load
/// first, the closed classes by multi-class MVA on the stations it slows
/// down (without open classes, exactly what `MultiClassNetwork` gives).
fn solve_classes(
    model: &ClassesModel,
    solver: Solver,
    max_steps: Option<f64>,
) -> Result<Solved, CliError> {
    let mut net = MixedNetwork::new();
    for s in &model.stations {
        let name = s.name.clone();
        net = match &s.kind {
            StationKind::Queue => net.queue(name),
            StationKind::MultiServer(c) => net.multi_server(name, *c),
            StationKind::Delay => net.delay(name),
            StationKind::LoadDependent(r) => net.load_dependent(name, rate_curve(r.clone())),
        };
    }
    for (c, class) in model.classes.iter().enumerate() {
        net = net.class(class.name.clone(), class.workload, &model.demands(c));
    }
    let solution = match solver {
        Solver::Approx(method) => net.solve_approx_with(&classes_approximation(method))?,
        _ => net
            .solve_within(max_steps.unwrap_or(MAX_MULTICLASS_STEPS))
            .map_err(beyond_exact)?,
    };
    let classes = (model.classes.iter())
        .map(|c| {
            Ok(ClassResult {
                throughput: solution.throughput(&c.name)?,
                response_time: solution.response_time(&c.name)?,
                cycle_time: match c.workload {
                    Workload::Closed(_) => Some(solution.cycle_time(&c.name)?),
                    Workload::Open(_) => None,
                },
            })
        })
        .collect::<Result<_, QueueError>>()?;
    let (factor, station) = solution.headroom();
    let open = model.counts().1 > 0;
    Ok(Solved {
        solver,
        classes,
        figures: figures(model, |c, s| solution.of(c, s).copied())?,
        headroom: open.then(|| (factor, station.to_string())),
    })
}
