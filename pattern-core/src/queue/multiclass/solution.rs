//! What the multi-class solvers return: each class's throughput and times,
//! each class's figures at each station, and each station's totals.

use super::super::QueueError;
use super::super::prepared::Service;
use super::network::{Active, Model, class_error};

/// One class's figures at one station, or a station's totals over the
/// classes ([`MultiClassSolution::station`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClassFigures {
    /// Cycles completed per unit of time through the station: the class's
    /// throughput where it has a demand, 0 where it has none (times its
    /// visits per cycle, it is the station's completions). The total is
    /// the sum over the classes.
    pub throughput: f64,
    /// Time a job spends there per cycle, over all its visits; the total
    /// is the mean over the jobs passing, `queue_length / throughput`.
    pub residence_time: f64,
    /// Mean number of the class's jobs there (waiting or in service).
    pub queue_length: f64,
    /// The class's share of the station's utilization: `X_c·D` for a
    /// queue, `X_c·D/c` of each server of a `c`-server station, the mean
    /// number of its jobs in service for a delay; for a general
    /// load-dependent station the probability that it is busy, split
    /// among the classes in proportion to `X_c·D`. The total is the sum.
    pub utilization: f64,
}

/// The solution of a [`super::MultiClassNetwork`]: exact
/// ([`super::MultiClassNetwork::mva`]) or approximate
/// ([`super::MultiClassNetwork::mva_approx`]).
///
/// Classes and stations are asked by name; an unknown name is an error.
/// The figures obey Little's law (`queue_length = throughput ×
/// residence_time` for every class at every station) and each class's
/// queue lengths add up to its population. A class of no jobs has every
/// figure 0.
#[derive(Clone, Debug, PartialEq)]
pub struct MultiClassSolution {
    classes: Vec<String>,
    population: Vec<usize>,
    stations: Vec<String>,
    delay: Vec<bool>,
    throughput: Vec<f64>,
    /// By class, then station.
    figures: Vec<ClassFigures>,
    /// By station.
    totals: Vec<ClassFigures>,
}

/// What a solver hands over for the active classes and stations: the
/// throughputs `x[d]`, the residence times `residence[i * C + d]` and, for
/// general load-dependent stations, the probability of being busy.
pub(super) struct Raw<'a> {
    pub x: &'a [f64],
    pub residence: &'a [f64],
    pub busy: &'a dyn Fn(usize) -> f64,
}

impl MultiClassSolution {
    /// Builds the solution of `model` from the figures of its active part.
    pub(super) fn new(model: &Model, active: &Active, raw: Raw<'_>) -> Self {
        let (c_all, k_all) = (model.classes.len(), model.stations.len());
        let width = active.width();
        let mut throughput = vec![0.0; c_all];
        for (d, &c) in active.classes.iter().enumerate() {
            throughput[c] = raw.x[d];
        }
        let mut figures = vec![ClassFigures::default(); c_all * k_all];
        let mut totals = vec![ClassFigures::default(); k_all];
        for (i, &k) in active.stations.iter().enumerate() {
            let offered: f64 = (0..width).map(|d| raw.x[d] * active.demand(i, d)).sum();
            let busy = match active.service[i] {
                Service::General(_) => Some((raw.busy)(i)),
                _ => None,
            };
            for (d, &c) in active.classes.iter().enumerate() {
                let demand = active.demand(i, d);
                if demand == 0.0 {
                    continue;
                }
                let (x, r) = (raw.x[d], raw.residence[i * width + d]);
                let share = x * demand;
                let utilization = match busy {
                    Some(b) if offered > 0.0 => b * (share / offered),
                    Some(_) => 0.0,
                    None => share / model.servers[k],
                };
                let f = ClassFigures {
                    throughput: x,
                    residence_time: r,
                    queue_length: x * r,
                    utilization,
                };
                figures[c * k_all + k] = f;
                let t = &mut totals[k];
                t.throughput += f.throughput;
                t.queue_length += f.queue_length;
                t.utilization += f.utilization;
            }
            let t = &mut totals[k];
            if t.throughput > 0.0 {
                t.residence_time = t.queue_length / t.throughput;
            }
        }
        Self {
            classes: model.classes.clone(),
            population: model.population.clone(),
            stations: model.stations.clone(),
            delay: model.delay.clone(),
            throughput,
            figures,
            totals,
        }
    }

    fn class_index(&self, name: &str) -> Result<usize, QueueError> {
        self.classes
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| class_error("no class is named", name, &self.classes))
    }

    fn station_index(&self, name: &str) -> Result<usize, QueueError> {
        self.stations
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| QueueError::UnknownStation {
                name: name.to_string(),
                known: self.stations.join(", "),
            })
    }

    /// The classes' names, in the network's order.
    pub fn classes(&self) -> impl Iterator<Item = &str> {
        self.classes.iter().map(String::as_str)
    }

    /// The stations' names, in the network's order.
    pub fn stations(&self) -> impl Iterator<Item = &str> {
        self.stations.iter().map(String::as_str)
    }

    /// The number of jobs of class `class`.
    pub fn population(&self, class: &str) -> Result<usize, QueueError> {
        Ok(self.population[self.class_index(class)?])
    }

    /// Cycles of class `class` completed per unit of time.
    pub fn throughput(&self, class: &str) -> Result<f64, QueueError> {
        Ok(self.throughput[self.class_index(class)?])
    }

    /// Time of one whole cycle of class `class`, delays included: its
    /// residence times summed, `N_c / X_c`.
    pub fn cycle_time(&self, class: &str) -> Result<f64, QueueError> {
        let c = self.class_index(class)?;
        let k_all = self.stations.len();
        Ok(self.figures[c * k_all..(c + 1) * k_all]
            .iter()
            .map(|f| f.residence_time)
            .sum())
    }

    /// Time of one cycle of class `class` at the stations that are not
    /// delays (think time is not response time).
    pub fn response_time(&self, class: &str) -> Result<f64, QueueError> {
        let c = self.class_index(class)?;
        let k_all = self.stations.len();
        Ok(self.figures[c * k_all..(c + 1) * k_all]
            .iter()
            .zip(&self.delay)
            .filter(|(_, delay)| !**delay)
            .map(|(f, _)| f.residence_time)
            .sum())
    }

    /// Class `class`'s figures at station `station`.
    pub fn of(&self, class: &str, station: &str) -> Result<&ClassFigures, QueueError> {
        let (c, k) = (self.class_index(class)?, self.station_index(station)?);
        Ok(&self.figures[c * self.stations.len() + k])
    }

    /// Class `class`'s residence time at `station`, over all its visits.
    pub fn residence_time(&self, class: &str, station: &str) -> Result<f64, QueueError> {
        Ok(self.of(class, station)?.residence_time)
    }

    /// Station `station`'s figures summed over the classes (see
    /// [`ClassFigures`]).
    pub fn station(&self, station: &str) -> Result<&ClassFigures, QueueError> {
        Ok(&self.totals[self.station_index(station)?])
    }

    /// Mean number of jobs at `station`, every class together.
    pub fn queue_length(&self, station: &str) -> Result<f64, QueueError> {
        Ok(self.station(station)?.queue_length)
    }

    /// Utilization of `station`, every class together (see
    /// [`ClassFigures::utilization`]).
    pub fn utilization(&self, station: &str) -> Result<f64, QueueError> {
        Ok(self.station(station)?.utilization)
    }
}
