//! A queueing network of several classes, whichever file gave it (a JSON
//! network that lists `classes`, a JMVA model): closed classes with their
//! populations, open ones with their rates, each station with a demand per
//! class. [`solve()`] solves it with the library's solvers and [`report()`]
//! prints it, so every file of classes is solved and reported alike.

pub mod report;
pub mod solve;

pub use report::report;
pub use solve::{ClassResult, Solved, Solver, solve};

use pattern_core::queue::Workload;

/// A network of classes.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassesModel {
    /// The classes, in the file's order.
    pub classes: Vec<ModelClass>,
    /// The stations, in the file's order.
    pub stations: Vec<ModelStation>,
}

/// A class of jobs.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelClass {
    /// Its name.
    pub name: String,
    /// Closed (a population) or open (an arrival rate).
    pub workload: Workload,
}

/// A station with each class's demand.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelStation {
    /// Its name.
    pub name: String,
    /// How it serves.
    pub kind: StationKind,
    /// Per class, in the classes' order: the demand (0 where the class
    /// does not visit it).
    pub demands: Vec<f64>,
}

/// How a station serves.
#[derive(Clone, Debug, PartialEq)]
pub enum StationKind {
    /// One server.
    Queue,
    /// This many servers.
    MultiServer(usize),
    /// No queueing.
    Delay,
    /// Its rate multiplier `α(n)` with `n` jobs there: `rates[n − 1]`, the
    /// last one beyond the list.
    LoadDependent(Vec<f64>),
}

impl StationKind {
    /// As the reports name it.
    pub fn describe(&self) -> String {
        match self {
            StationKind::Queue => "queue".into(),
            StationKind::MultiServer(c) => format!("{c} servers"),
            StationKind::LoadDependent(_) => "load-dependent".into(),
            StationKind::Delay => "delay".into(),
        }
    }
}

impl ClassesModel {
    /// The closed and the open classes' counts.
    pub fn counts(&self) -> (usize, usize) {
        let closed = (self.classes.iter())
            .filter(|c| matches!(c.workload, Workload::Closed(_)))
            .count();
        (closed, self.classes.len() - closed)
    }

    /// Class `c`'s demands by station name, the stations it visits.
    fn demands(&self, c: usize) -> Vec<(&str, f64)> {
        (self.stations.iter())
            .filter(|s| s.demands[c] > 0.0)
            .map(|s| (s.name.as_str(), s.demands[c]))
            .collect()
    }
}

/// A load-dependent station's `α(n)`: `rates[n − 1]`, the last one beyond
/// the list (1 for an empty list). The solvers check each rate they use.
pub fn rate_curve(rates: Vec<f64>) -> impl Fn(usize) -> f64 + Send + Sync + 'static {
    let last = rates.last().copied().unwrap_or(1.0);
    move |n: usize| {
        n.checked_sub(1)
            .and_then(|i| rates.get(i))
            .copied()
            .unwrap_or(last)
    }
}
