//! A design's time per element against one of its counts: the operators'
//! model, the queueing prediction on a machine and, if asked, a simulation
//! on the same machine, side by side.

use super::{SweepError, Table};
use crate::Design;
use crate::explore::ranking::symbolic_counts;
use crate::machine::Machine;
use crate::semantics::ResourceError;
use crate::sim::Simulation;
use serde::{Deserialize, Serialize};

/// The sweep of a design's time per element against a symbolic count.
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::explore::sweep::ThreadSweep;
/// use pattern_core::machine::Machine;
///
/// let d = Design::parse("a = 100*x; tpool[n](a)")?;
/// let curve = ThreadSweep::new(&d, "n", &[1, 2, 4, 8], Machine::new(1, 4))
///     .at(&[("x", 10.0)])
///     .run()?;
/// let ops: Vec<f64> = curve.points.iter().map(|p| p.operators).collect();
/// assert_eq!(ops, [1000.0, 500.0, 250.0, 125.0]);
/// // Four cores: eight workers take as long as four.
/// assert!((curve.points[3].queueing - 250.0).abs() < 1e-6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ThreadSweep<'a> {
    design: &'a Design,
    count: String,
    values: Vec<u64>,
    machine: Machine,
    at: Vec<(String, f64)>,
    simulation: Option<usize>,
}

/// One count of a [`ThreadCurve`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadPoint {
    /// The count's value.
    pub count: u64,
    /// The design's threads at that count ([`Design::resources`]).
    pub threads: f64,
    /// The operators' time per element ([`Design::model`]).
    pub operators: f64,
    /// The queueing prediction ([`Design::queueing`]).
    pub queueing: f64,
    /// The simulated time per element, if asked for.
    pub simulation: Option<f64>,
}

/// A design's time per element against a count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadCurve {
    /// The count's name.
    pub count: String,
    /// One point per value of the count, in the order given.
    pub points: Vec<ThreadPoint>,
}

impl ThreadCurve {
    /// The curve as a table: the count, `threads`, `operators`,
    /// `queueing` and (when simulated) `simulation`.
    pub fn to_table(&self) -> Table {
        let simulated =
            self.points.iter().all(|p| p.simulation.is_some()) && !self.points.is_empty();
        let mut columns = vec![
            self.count.clone(),
            "threads".into(),
            "operators".into(),
            "queueing".into(),
        ];
        if simulated {
            columns.push("simulation".into());
        }
        let rows = self
            .points
            .iter()
            .map(|p| {
                let mut row = vec![p.count as f64, p.threads, p.operators, p.queueing];
                row.extend(p.simulation.filter(|_| simulated));
                row
            })
            .collect();
        Table {
            columns,
            variables: 1,
            rows,
        }
    }
}

impl<'a> ThreadSweep<'a> {
    /// The sweep of `design` over the values of its symbolic count `count`,
    /// with the queueing prediction on `machine`.
    pub fn new(design: &'a Design, count: &str, values: &[u64], machine: Machine) -> Self {
        ThreadSweep {
            design,
            count: count.to_string(),
            values: values.to_vec(),
            machine,
            at: Vec::new(),
            simulation: None,
        }
    }

    /// The values of the models' other variables (and other counts).
    pub fn at(mut self, at: &[(&str, f64)]) -> Self {
        self.at = at.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        self
    }

    /// Also simulate a stream of `elements` elements on the machine at
    /// each count (more where a count needs them for its steady state,
    /// [`Simulation::run_steady`]).
    pub fn simulate(mut self, elements: usize) -> Self {
        self.simulation = Some(elements);
        self
    }

    /// The curve; every prediction finite.
    pub fn run(&self) -> Result<ThreadCurve, SweepError> {
        let counts = symbolic_counts(self.design.term());
        if !counts.contains(&self.count) {
            return Err(SweepError::NotACount {
                name: self.count.clone(),
                counts: counts.join(", "),
            });
        }
        if self.values.is_empty() || self.values.contains(&0) {
            return Err(SweepError::Counts(self.values.clone()));
        }
        check_point(&self.at)?;
        let model = self.design.model();
        let points = self
            .values
            .iter()
            .map(|&count| {
                let mut bindings: Vec<(&str, f64)> = vec![(self.count.as_str(), count as f64)];
                bindings.extend(
                    self.at
                        .iter()
                        .filter(|(n, _)| *n != self.count)
                        .map(|(n, v)| (n.as_str(), *v)),
                );
                let eval = |e: &crate::Expr| {
                    e.eval(&bindings)
                        .map_err(|source| SweepError::Eval { count, source })
                };
                let finite = |what, value: f64| {
                    if value.is_finite() {
                        Ok(value)
                    } else {
                        Err(SweepError::NotFinite { what, count, value })
                    }
                };
                let queueing = self
                    .design
                    .queueing(&self.machine, &bindings)
                    .map_err(|source| SweepError::Queueing { count, source })?;
                let simulation = match self.simulation {
                    None => None,
                    Some(elements) => {
                        let run = Simulation::new(self.design, &self.machine)
                            .at(&bindings)
                            .elements(elements)
                            .run_steady()
                            .map_err(|source| SweepError::Simulation { count, source })?;
                        Some(finite("simulation", run.time_per_element())?)
                    }
                };
                Ok(ThreadPoint {
                    count,
                    // Counted in integers: exact, never a rounded model's.
                    threads: match self.design.resource_counts(&bindings) {
                        Ok(r) => r.threads as f64,
                        Err(ResourceError::Eval(source)) => {
                            return Err(SweepError::Eval { count, source });
                        }
                        Err(ResourceError::NotACount { value, .. }) => {
                            return Err(SweepError::NotFinite {
                                what: "threads",
                                count,
                                value,
                            });
                        }
                    },
                    operators: finite("operators", eval(&model)?)?,
                    queueing: finite("queueing", queueing.time_per_element)?,
                    simulation,
                })
            })
            .collect::<Result<Vec<_>, SweepError>>()?;
        Ok(ThreadCurve {
            count: self.count.clone(),
            points,
        })
    }
}

/// The point's values, checked finite.
fn check_point(at: &[(String, f64)]) -> Result<(), SweepError> {
    match at.iter().find(|(_, v)| !v.is_finite()) {
        Some((name, value)) => Err(SweepError::Binding {
            name: name.clone(),
            value: *value,
        }),
        None => Ok(()),
    }
}
