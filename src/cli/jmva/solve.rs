//! Solving a JMVA model: its classes and stations as a [`ClassesModel`]
//! (each demand its visits times its service time; a load-dependent
//! station's rates `α(n) = S(1)/S(n)` from its times), solved as every
//! network of classes is (module `classes`).

use super::{ClassKind, JmvaModel, StationType};
use crate::cli::classes::{self, ClassesModel, ModelClass, ModelStation, StationKind};
use crate::cli::error::CliError;
use crate::cli::mva::ApproxMethod;
use pattern_core::queue::Workload;

pub use crate::cli::classes::{Solved, Solver};

/// The algorithm's name as JMT writes it in `<algorithm name>` (one JMT
/// knows, or JMT skips the solution).
pub fn jmt_name(solver: Solver) -> &'static str {
    match solver {
        Solver::Exact | Solver::Open => "MVA",
        Solver::Approx(ApproxMethod::Linearizer) => "Linearizer",
        Solver::Approx(ApproxMethod::SchweitzerBard) => "Bard-Schweitzer",
    }
}

/// Solves `model`: exactly unless `approx`, within `max_steps` (the exact
/// solvers' default limit unless given).
pub fn solve(
    model: &JmvaModel,
    approx: Option<ApproxMethod>,
    max_steps: Option<f64>,
) -> Result<Solved, CliError> {
    classes::solve(&network(model), approx, max_steps)
}

/// The network of classes a JMVA model describes.
pub fn network(model: &JmvaModel) -> ClassesModel {
    let classes = (model.classes.iter())
        .map(|c| ModelClass {
            name: c.name.clone(),
            workload: match c.kind {
                ClassKind::Closed(n) => Workload::Closed(n),
                ClassKind::Open(rate) => Workload::Open(rate),
            },
        })
        .collect();
    let stations = (model.stations.iter())
        .map(|s| ModelStation {
            name: s.name.clone(),
            kind: match s.kind {
                StationType::Queue { servers: 1 } => StationKind::Queue,
                StationType::Queue { servers } => StationKind::MultiServer(servers),
                StationType::Delay => StationKind::Delay,
                StationType::LoadDependent { .. } => StationKind::LoadDependent(rates(s)),
            },
            demands: (0..model.classes.len()).map(|c| s.demand(c)).collect(),
        })
        .collect();
    ClassesModel { classes, stations }
}

/// A load-dependent station's rate multipliers `α(n) = S(1)/S(n)`, from
/// the first class that visits it (the reader checked that every class's
/// curve is the same); beyond the list, its last.
fn rates(station: &super::JmvaStation) -> Vec<f64> {
    let times = (station.service.iter())
        .find(|t| t.first().is_some_and(|&t0| t0 > 0.0))
        .cloned()
        .unwrap_or_else(|| vec![1.0]);
    times.iter().map(|t| times[0] / t).collect()
}
