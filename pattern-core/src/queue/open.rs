//! Open queueing networks: classes of jobs that arrive from outside at
//! given rates (Poisson), visit stations and leave. Where a closed network
//! answers "with `N` elements in flight, how fast?", an open one answers
//! "fed at `λ` elements per unit of time, how long does each take, and at
//! what rate does it break?".
//!
//! Product form (BCMP; Lazowska et al., ch. 6): with `D_ck` class `c`'s
//! demand at station `k` and `λ_c` its rate, station `k` of `m` servers is
//! busy `U_k = Σ_c λ_c·D_ck` servers on average, `ρ_k = U_k / m` each, and
//! is stable while `ρ_k < 1`. A class's residence time there is
//!
//! - a queue: `D_ck / (1 − ρ_k)`;
//! - `m` servers (M/M/m): `D_ck·(1 + C(m, U_k) / (m·(1 − ρ_k)))`, with
//!   Erlang's C the probability of waiting (from Erlang's B by its stable
//!   recursion, no subtraction of probabilities);
//! - a delay: `D_ck`.
//!
//! Queue lengths follow by Little's law, `Q_ck = λ_c·R_ck`. A saturated
//! station is an error naming it and its utilization; the rates may grow
//! by [`OpenSolution::headroom`] before the first station saturates.
//!
//! ```
//! use pattern_core::queue::OpenNetwork;
//!
//! // Web requests at 2 per second over a CPU (0.2 s each) and 2 disks (0.6 s).
//! let net = OpenNetwork::new()
//!     .queue("cpu")
//!     .multi_server("disks", 2)
//!     .class("web", 2.0, &[("cpu", 0.2), ("disks", 0.6)]);
//! let s = net.solve()?;
//! assert!((s.utilization("cpu")? - 0.4).abs() < 1e-12);
//! assert!((s.residence_time("web", "cpu")? - 0.2 / 0.6).abs() < 1e-12);
//! // The disks saturate first: at 1/0.6 of today's rate.
//! let (factor, station) = s.headroom();
//! assert_eq!(station, "disks");
//! assert!((factor - 1.0 / 0.6).abs() < 1e-12);
//! # Ok::<(), pattern_core::queue::QueueError>(())
//! ```

use super::QueueError;
use super::solution::StationResult;

/// What an open network's station is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenStation {
    /// One server, first come first served or processor sharing.
    Queue,
    /// `m` identical servers, one queue (M/M/m).
    MultiServer(usize),
    /// No queueing: every job served at once (a latency).
    Delay,
}

/// One class: its name, arrival rate and demands by station name.
#[derive(Clone, Debug)]
struct OpenClass {
    name: String,
    rate: f64,
    demands: Vec<(String, f64)>,
}

/// An open queueing network: stations, and classes arriving at rates.
/// Solved in product form (BCMP): a queue stretches a class's demand by
/// `1/(1 − ρ)`, an `m`-server station by Erlang's C, a delay not at all
/// (docs/queueing.md, "Open networks").
#[derive(Clone, Debug, Default)]
pub struct OpenNetwork {
    stations: Vec<(String, OpenStation)>,
    classes: Vec<OpenClass>,
}

impl OpenNetwork {
    /// A network without stations or classes.
    pub fn new() -> OpenNetwork {
        OpenNetwork::default()
    }

    /// Adds a single-server station.
    pub fn queue(self, name: impl Into<String>) -> OpenNetwork {
        self.station(name, OpenStation::Queue)
    }

    /// Adds a station of `servers` servers.
    pub fn multi_server(self, name: impl Into<String>, servers: usize) -> OpenNetwork {
        self.station(name, OpenStation::MultiServer(servers))
    }

    /// Adds a delay station.
    pub fn delay(self, name: impl Into<String>) -> OpenNetwork {
        self.station(name, OpenStation::Delay)
    }

    /// Adds a station of any kind.
    pub fn station(mut self, name: impl Into<String>, kind: OpenStation) -> OpenNetwork {
        self.stations.push((name.into(), kind));
        self
    }

    /// Adds a class arriving at `rate` jobs per unit of time, with its
    /// demand (visits × service time, in that unit) at each station it
    /// visits; the others it does not visit.
    pub fn class(
        mut self,
        name: impl Into<String>,
        rate: f64,
        demands: &[(&str, f64)],
    ) -> OpenNetwork {
        self.classes.push(OpenClass {
            name: name.into(),
            rate,
            demands: demands.iter().map(|(s, d)| (s.to_string(), *d)).collect(),
        });
        self
    }

    /// The stations, in order.
    pub fn stations(&self) -> impl Iterator<Item = (&str, OpenStation)> {
        self.stations.iter().map(|(n, k)| (n.as_str(), *k))
    }

    /// The demands as a matrix (class by station), every value checked.
    fn demands(&self) -> Result<Vec<Vec<f64>>, QueueError> {
        if self.stations.is_empty() {
            return Err(QueueError::EmptyNetwork);
        }
        if self.classes.is_empty() {
            return Err(QueueError::InvalidOption {
                option: "classes",
                value: "none".into(),
                expected: "at least one class with an arrival rate (`class`)",
            });
        }
        let names: Vec<&str> = self.stations.iter().map(|(n, _)| n.as_str()).collect();
        for (i, (name, kind)) in self.stations.iter().enumerate() {
            if names[..i].contains(&name.as_str()) {
                return Err(QueueError::DuplicateStation { name: name.clone() });
            }
            if *kind == OpenStation::MultiServer(0) {
                return Err(QueueError::NoServers {
                    station: name.clone(),
                });
            }
        }
        let classes: Vec<&str> = self.classes.iter().map(|c| c.name.as_str()).collect();
        let mut matrix = Vec::with_capacity(self.classes.len());
        for (i, class) in self.classes.iter().enumerate() {
            if classes[..i].contains(&class.name.as_str()) {
                return Err(QueueError::Class {
                    problem: "two classes are named",
                    name: class.name.clone(),
                    known: classes.join(", "),
                });
            }
            if !(class.rate.is_finite() && class.rate >= 0.0) {
                return Err(QueueError::InvalidArrivalRate {
                    class: class.name.clone(),
                    value: class.rate,
                });
            }
            let mut row = vec![0.0; names.len()];
            for (station, d) in &class.demands {
                let k = names.iter().position(|n| n == station).ok_or_else(|| {
                    QueueError::UnknownStation {
                        name: station.clone(),
                        known: names.join(", "),
                    }
                })?;
                if !(d.is_finite() && *d >= 0.0) {
                    return Err(QueueError::InvalidDemand {
                        station: station.clone(),
                        value: *d,
                    });
                }
                row[k] += d;
            }
            matrix.push(row);
        }
        Ok(matrix)
    }

    /// Solves the network: every class's residence time and queue length
    /// at every station. A station kept busy all the time or more is
    /// [`QueueError::Saturated`].
    pub fn solve(&self) -> Result<OpenSolution, QueueError> {
        let demands = self.demands()?;
        let k = self.stations.len();
        let rates: Vec<f64> = self.classes.iter().map(|c| c.rate).collect();
        // Busy servers at each station, and each server's utilization.
        let busy: Vec<f64> = (0..k)
            .map(|j| (0..rates.len()).map(|c| rates[c] * demands[c][j]).sum())
            .collect();
        let mut stretch = vec![1.0; k];
        let mut per_server = vec![0.0; k];
        for (j, (name, kind)) in self.stations.iter().enumerate() {
            let servers = match kind {
                OpenStation::Delay => continue,
                OpenStation::Queue => 1,
                OpenStation::MultiServer(m) => *m,
            };
            let rho = busy[j] / servers as f64;
            per_server[j] = rho;
            if rho >= 1.0 || rho.is_nan() {
                return Err(QueueError::Saturated {
                    station: name.clone(),
                    utilization: rho,
                    servers,
                });
            }
            stretch[j] = 1.0 + erlang_c(servers, busy[j]) / (servers as f64 * (1.0 - rho));
        }
        let mut results = Vec::with_capacity(rates.len());
        for (c, rate) in rates.iter().enumerate() {
            let row: Vec<StationResult> = (0..k)
                .map(|j| {
                    let residence_time = demands[c][j] * stretch[j];
                    let servers = match self.stations[j].1 {
                        OpenStation::MultiServer(m) => m as f64,
                        _ => 1.0,
                    };
                    StationResult {
                        queue_length: rate * residence_time,
                        utilization: rate * demands[c][j] / servers,
                        residence_time,
                    }
                })
                .collect();
            results.push(row);
        }
        if let Some(r) = results
            .iter()
            .flatten()
            .find(|r| !r.queue_length.is_finite())
        {
            return Err(QueueError::NonFinite {
                quantity: "queue length",
                value: r.queue_length,
            });
        }
        Ok(OpenSolution {
            stations: self.stations.clone(),
            classes: self
                .classes
                .iter()
                .map(|c| (c.name.clone(), c.rate))
                .collect(),
            busy,
            per_server,
            results,
        })
    }
}

/// Erlang's C: the probability that a job arriving at `m` servers busy
/// `a` on average (`a < m`) waits. From Erlang's B by its recursion
/// `B_k = a·B_{k−1} / (k + a·B_{k−1})`, each step a ratio of positive
/// numbers; `C = B / (1 − ρ·(1 − B))`, `ρ = a/m`.
pub(crate) fn erlang_c(m: usize, a: f64) -> f64 {
    if a <= 0.0 {
        return 0.0;
    }
    let mut b = 1.0;
    for k in 1..=m {
        b = a * b / (k as f64 + a * b);
        if b == 0.0 {
            break; // (underflow: a is far below the servers, nobody waits)
        }
    }
    let rho = a / m as f64;
    b / (1.0 - rho * (1.0 - b))
}

/// An open network's solution: each class's figures at each station.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenSolution {
    stations: Vec<(String, OpenStation)>,
    classes: Vec<(String, f64)>,
    busy: Vec<f64>,
    per_server: Vec<f64>,
    /// By class, then station.
    results: Vec<Vec<StationResult>>,
}

impl OpenSolution {
    fn station_index(&self, name: &str) -> Result<usize, QueueError> {
        (self.stations.iter().position(|(n, _)| n == name)).ok_or_else(|| {
            QueueError::UnknownStation {
                name: name.to_string(),
                known: self
                    .stations
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })
    }

    fn class_index(&self, name: &str) -> Result<usize, QueueError> {
        (self.classes.iter().position(|(n, _)| n == name)).ok_or_else(|| QueueError::Class {
            problem: "no class is named",
            name: name.to_string(),
            known: self
                .classes
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    /// Class `class`'s figures at station `station`: its queue length,
    /// the share of each server it keeps busy, its residence time.
    pub fn of(&self, class: &str, station: &str) -> Result<&StationResult, QueueError> {
        Ok(&self.results[self.class_index(class)?][self.station_index(station)?])
    }

    /// Class `class`'s residence time at `station`, over all its visits.
    pub fn residence_time(&self, class: &str, station: &str) -> Result<f64, QueueError> {
        Ok(self.of(class, station)?.residence_time)
    }

    /// Class `class`'s time in the network: its residence times at every
    /// station, delays included.
    pub fn response_time(&self, class: &str) -> Result<f64, QueueError> {
        let c = self.class_index(class)?;
        Ok(self.results[c].iter().map(|r| r.residence_time).sum())
    }

    /// Station `station`'s utilization: the share of each server busy
    /// (a queue's, an M/M/m's), or the jobs in service at a delay.
    pub fn utilization(&self, station: &str) -> Result<f64, QueueError> {
        let j = self.station_index(station)?;
        Ok(match self.stations[j].1 {
            OpenStation::Delay => self.busy[j],
            _ => self.per_server[j],
        })
    }

    /// The mean number of jobs at `station`, every class together.
    pub fn queue_length(&self, station: &str) -> Result<f64, QueueError> {
        let j = self.station_index(station)?;
        Ok(self.results.iter().map(|r| r[j].queue_length).sum())
    }

    /// The mean number of jobs in the network.
    pub fn jobs(&self) -> f64 {
        self.results.iter().flatten().map(|r| r.queue_length).sum()
    }

    /// How many times every class's rate may grow before the first station
    /// saturates, and that station (infinite, and the first station, when
    /// nothing queues).
    pub fn headroom(&self) -> (f64, &str) {
        let mut best = (f64::INFINITY, 0);
        for (j, (_, kind)) in self.stations.iter().enumerate() {
            if *kind != OpenStation::Delay && self.per_server[j] > 0.0 {
                let factor = 1.0 / self.per_server[j];
                if factor < best.0 {
                    best = (factor, j);
                }
            }
        }
        (best.0, &self.stations[best.1].0)
    }
}
