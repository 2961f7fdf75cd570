//! What a solver returns: the network's throughput and response time, and
//! each station's queue length, utilization and residence time.

use super::QueueError;
use super::network::Network;
use super::prepared::{Prepared, Service};
use std::sync::Arc;

/// The solution of a [`super::Network`] at one population.
///
/// Station quantities are asked by name and an unknown name is an error.
/// The quantities obey Little's law: `queue_length = throughput ×
/// residence_time` at every station, and the queue lengths sum to the
/// population.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    pub(crate) population: usize,
    pub(crate) throughput: f64,
    pub(crate) labels: Labels,
    pub(crate) stations: Vec<StationResult>,
}

/// The stations' names and which are delays, shared by the solutions of
/// one network.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Labels {
    names: Arc<[String]>,
    delay: Arc<[bool]>,
    /// `D/c`, the utilization per unit of throughput; `None` for a general
    /// load-dependent station (its utilization is a probability).
    per_server: Arc<[Option<f64>]>,
}

impl Labels {
    pub(crate) fn new(network: &Network, prepared: &Prepared) -> Self {
        Self {
            names: network
                .stations()
                .iter()
                .map(|s| s.name().to_string())
                .collect(),
            delay: prepared.delay.iter().copied().collect(),
            per_server: (0..prepared.demand.len())
                .map(|k| match prepared.service[k] {
                    Service::General(_) => None,
                    _ => Some(prepared.demand[k] / prepared.servers[k]),
                })
                .collect(),
        }
    }

    /// Which utilizations a sweep must keep: the general stations'.
    pub(crate) fn kept(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).filter(|&k| self.per_server[k].is_none())
    }

    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    /// A solution from the residence times and utilizations at `n` jobs.
    pub(crate) fn solution(
        &self,
        n: usize,
        x: f64,
        residence: &[f64],
        utilization: &[f64],
    ) -> Solution {
        Solution {
            population: n,
            throughput: x,
            labels: self.clone(),
            stations: residence
                .iter()
                .zip(utilization)
                .map(|(&r, &u)| StationResult {
                    queue_length: x * r,
                    utilization: u,
                    residence_time: r,
                })
                .collect(),
        }
    }
}

/// Exact MVA at every population `1..=N` ([`super::Network::sweep`]), kept
/// in flat arrays: a [`Solution`] is built only for the populations asked.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    pub(crate) labels: Labels,
    pub(crate) throughput: Vec<f64>,
    pub(crate) residence: Vec<f64>,
    /// The general load-dependent stations' utilizations (the others'
    /// follow from the throughput).
    pub(crate) busy: Vec<f64>,
}

impl Sweep {
    /// The largest population, `N`.
    pub fn len(&self) -> usize {
        self.throughput.len()
    }

    /// Whether the sweep is empty (`N = 0`).
    pub fn is_empty(&self) -> bool {
        self.throughput.is_empty()
    }

    /// The throughputs at `1..=N` jobs (element `n − 1` at `n`).
    pub fn throughputs(&self) -> &[f64] {
        &self.throughput
    }

    /// The response times at `1..=N` jobs (element `n − 1` at `n`).
    pub fn response_times(&self) -> Vec<f64> {
        let k = self.labels.len();
        self.residence
            .chunks_exact(k.max(1))
            .map(|r| {
                r.iter()
                    .zip(self.labels.delay.iter())
                    .filter(|(_, d)| !**d)
                    .map(|(r, _)| r)
                    .sum()
            })
            .collect()
    }

    /// The solution at `n` jobs, `1 <= n <= N`.
    pub fn at(&self, n: usize) -> Option<Solution> {
        let k = self.labels.len();
        let x = *self.throughput.get(n.checked_sub(1)?)?;
        let kept = self.labels.kept().count();
        let mut busy = self.busy[(n - 1) * kept..n * kept].iter();
        let utilization: Vec<f64> = (0..k)
            .map(|i| match self.labels.per_server[i] {
                Some(d) => x * d,
                None => *busy.next().expect("one per general station"),
            })
            .collect();
        let residence = &self.residence[(n - 1) * k..n * k];
        Some(self.labels.solution(n, x, residence, &utilization))
    }

    /// The solutions at `1..=N` jobs, in order.
    pub fn iter(&self) -> impl Iterator<Item = Solution> + '_ {
        (1..=self.len()).filter_map(|n| self.at(n))
    }
}

/// One station's figures in a [`Solution`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StationResult {
    /// Mean number of jobs at the station (waiting or in service).
    pub queue_length: f64,
    /// Utilization: the fraction of time its server is busy (`X·D`); of
    /// each server for a multi-server station (`X·D/c`); the probability
    /// that it is not empty for a general load-dependent station; the mean
    /// number of jobs in service (`X·D`) for a delay.
    pub utilization: f64,
    /// Time a job spends there per cycle, over all its visits (`Q/X`).
    pub residence_time: f64,
}

impl Solution {
    /// The number of jobs.
    pub fn population(&self) -> usize {
        self.population
    }

    /// Jobs completed per unit of time.
    pub fn throughput(&self) -> f64 {
        self.throughput
    }

    /// Time of one cycle at the stations that queue: every station's
    /// residence time except the delays' (think time is not response time).
    pub fn response_time(&self) -> f64 {
        self.stations
            .iter()
            .zip(self.labels.delay.iter())
            .filter(|(_, delay)| !**delay)
            .map(|(s, _)| s.residence_time)
            .sum()
    }

    /// Time of one whole cycle, delays included: `N / X`.
    pub fn cycle_time(&self) -> f64 {
        self.stations.iter().map(|s| s.residence_time).sum()
    }

    /// Mean number of jobs at the station `name`.
    pub fn queue_length(&self, name: &str) -> Result<f64, QueueError> {
        Ok(self.station(name)?.queue_length)
    }

    /// Utilization of the station `name` (see [`StationResult::utilization`]).
    pub fn utilization(&self, name: &str) -> Result<f64, QueueError> {
        Ok(self.station(name)?.utilization)
    }

    /// Residence time of the station `name`: time per cycle, over all
    /// visits.
    pub fn residence_time(&self, name: &str) -> Result<f64, QueueError> {
        Ok(self.station(name)?.residence_time)
    }

    /// All figures of the station `name`.
    pub fn station(&self, name: &str) -> Result<&StationResult, QueueError> {
        self.labels
            .names
            .iter()
            .position(|n| n == name)
            .map(|k| &self.stations[k])
            .ok_or_else(|| QueueError::UnknownStation {
                name: name.to_string(),
                known: self.labels.names.join(", "),
            })
    }

    /// The stations' names and figures, in the network's order.
    pub fn stations(&self) -> impl Iterator<Item = (&str, &StationResult)> {
        self.labels
            .names
            .iter()
            .map(String::as_str)
            .zip(&self.stations)
    }

    /// The station with the highest utilization: the bottleneck.
    pub fn bottleneck(&self) -> &str {
        let k = (0..self.stations.len())
            .filter(|&k| !self.labels.delay[k])
            .max_by(|&a, &b| {
                self.stations[a]
                    .utilization
                    .total_cmp(&self.stations[b].utilization)
            })
            .unwrap_or(0);
        &self.labels.names[k]
    }
}
