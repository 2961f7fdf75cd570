//! The multi-class network: its stations and classes, built with a builder,
//! and the checked form the solvers use.

use super::super::QueueError;
use super::super::network::{Kind, Rate};
use super::super::prepared::{MAX_RATES, Service};
use std::sync::Arc;

/// A closed queueing network of several classes of jobs: stations (queues,
/// delays, `c`-server and load-dependent stations, as [`super::super::Network`]
/// has), and classes, each with its name, its population and its service
/// demand (visits × service time) at each station it visits.
///
/// Stations and classes are added with builder methods that take and
/// return the network; everything is checked when it is solved
/// ([`MultiClassNetwork::mva`], [`MultiClassNetwork::mva_approx`]), so bad
/// input is an error there, never a panic here. A class does not visit the
/// stations its demands leave out (demand 0); two demands of one class at
/// one station add up, as visits do.
///
/// ```
/// use pattern_core::queue::MultiClassNetwork;
///
/// // Lazowska et al., Quantitative System Performance, p. 142.
/// let net = MultiClassNetwork::new()
///     .queue("cpu")
///     .queue("disk")
///     .class("a", 1, &[("cpu", 1.0), ("disk", 3.0)])
///     .class("b", 1, &[("cpu", 2.0), ("disk", 4.0)]);
/// let s = net.mva()?;
/// assert!((s.throughput("a")? - 3.0 / 19.0).abs() < 1e-15);
/// assert!((s.of("b", "disk")?.queue_length - 14.0 / 19.0).abs() < 1e-15);
/// // Every class's jobs are somewhere: N_c = X_c · cycle time.
/// assert!((s.throughput("b")? * s.cycle_time("b")? - 1.0).abs() < 1e-12);
/// assert!(s.throughput("c").is_err()); // no such class
/// # Ok::<(), pattern_core::queue::QueueError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct MultiClassNetwork {
    stations: Vec<(String, Kind)>,
    classes: Vec<Class>,
}

/// One class: its name, population and demands by station name.
#[derive(Clone, Debug)]
struct Class {
    name: String,
    population: usize,
    demands: Vec<(String, f64)>,
}

impl MultiClassNetwork {
    /// A network without stations or classes.
    pub fn new() -> Self {
        Self::default()
    }

    /// A single-server station (first come first served, or processor
    /// sharing).
    pub fn queue(self, name: impl Into<String>) -> Self {
        self.station(name, Kind::Queue)
    }

    /// A station of `servers` identical servers: with `n` jobs present
    /// (of any classes) it serves at `min(n, servers)` times the rate of
    /// one.
    pub fn multi_server(self, name: impl Into<String>, servers: usize) -> Self {
        self.station(name, Kind::MultiServer(servers))
    }

    /// A load-dependent station: with `n ≥ 1` jobs present (of any
    /// classes) it serves at `α(n)` times the rate of one server, shared
    /// among them. `α` must return a finite number `> 0` for every `n` up
    /// to the total population (checked when solved).
    pub fn load_dependent(
        self,
        name: impl Into<String>,
        alpha: impl Fn(usize) -> f64 + Send + Sync + 'static,
    ) -> Self {
        self.station(name, Kind::LoadDependent(Rate(Arc::new(alpha))))
    }

    /// A delay (infinite servers): every job spends its demand there,
    /// without queueing. Think time is a delay.
    pub fn delay(self, name: impl Into<String>) -> Self {
        self.station(name, Kind::Delay)
    }

    fn station(mut self, name: impl Into<String>, kind: Kind) -> Self {
        self.stations.push((name.into(), kind));
        self
    }

    /// A class of `population` jobs with its demand at each station it
    /// visits, by station name.
    pub fn class(
        mut self,
        name: impl Into<String>,
        population: usize,
        demands: &[(&str, f64)],
    ) -> Self {
        self.classes.push(Class {
            name: name.into(),
            population,
            demands: demands.iter().map(|(s, d)| (s.to_string(), *d)).collect(),
        });
        self
    }

    /// The stations' names, in the order they were added.
    pub fn station_names(&self) -> impl Iterator<Item = &str> {
        self.stations.iter().map(|(n, _)| n.as_str())
    }

    /// The classes' names and populations, in the order they were added.
    pub fn classes(&self) -> impl Iterator<Item = (&str, usize)> {
        self.classes.iter().map(|c| (c.name.as_str(), c.population))
    }

    /// Checks the network and evaluates every rate multiplier up to the
    /// total population.
    pub(super) fn model(&self) -> Result<Model, QueueError> {
        let stations: Vec<String> = self.stations.iter().map(|(n, _)| n.clone()).collect();
        self.check_stations()?;
        let classes: Vec<String> = self.classes.iter().map(|c| c.name.clone()).collect();
        let population: Vec<usize> = self.classes.iter().map(|c| c.population).collect();
        let total = population
            .iter()
            .try_fold(0usize, |t, &n| t.checked_add(n))
            .ok_or(QueueError::TooLarge {
                population: usize::MAX,
                stations: stations.len(),
            })?;
        if total == 0 {
            return Err(QueueError::InvalidOption {
                option: "classes",
                value: if classes.is_empty() {
                    "none"
                } else {
                    "no jobs"
                }
                .into(),
                expected: "at least one class with a population >= 1 (`class`)",
            });
        }
        let mut demand = vec![vec![0.0; classes.len()]; stations.len()];
        for (c, class) in self.classes.iter().enumerate() {
            if classes[..c].contains(&class.name) {
                return Err(class_error("two classes are named", &class.name, &classes));
            }
            for (station, d) in &class.demands {
                let k = stations.iter().position(|n| n == station).ok_or_else(|| {
                    QueueError::UnknownStation {
                        name: station.clone(),
                        known: stations.join(", "),
                    }
                })?;
                if !(d.is_finite() && *d >= 0.0) {
                    return Err(QueueError::InvalidDemand {
                        station: station.clone(),
                        value: *d,
                    });
                }
                demand[k][c] += d;
                if !demand[k][c].is_finite() {
                    return Err(QueueError::InvalidDemand {
                        station: station.clone(),
                        value: demand[k][c],
                    });
                }
            }
            if class.population > 0 && demand.iter().all(|row| row[c] == 0.0) {
                return Err(class_error(
                    "every demand is 0 (the throughput would be unbounded) of the class",
                    &class.name,
                    &classes,
                ));
            }
        }
        let mut service = Vec::with_capacity(stations.len());
        for (k, (name, kind)) in self.stations.iter().enumerate() {
            service.push(prepare(name, kind, total, &demand[k])?);
        }
        let servers = self
            .stations
            .iter()
            .map(|(_, kind)| match kind {
                Kind::MultiServer(c) => *c as f64,
                _ => 1.0,
            })
            .collect();
        let delay = self
            .stations
            .iter()
            .map(|(_, kind)| matches!(kind, Kind::Delay))
            .collect();
        Ok(Model {
            classes,
            population,
            stations,
            demand,
            service,
            servers,
            delay,
        })
    }

    /// Names of their own and at least one server.
    fn check_stations(&self) -> Result<(), QueueError> {
        if self.stations.is_empty() {
            return Err(QueueError::EmptyNetwork);
        }
        for (i, (name, kind)) in self.stations.iter().enumerate() {
            if self.stations[..i].iter().any(|(n, _)| n == name) {
                return Err(QueueError::DuplicateStation { name: name.clone() });
            }
            if let Kind::MultiServer(0) = kind {
                return Err(QueueError::NoServers {
                    station: name.clone(),
                });
            }
        }
        Ok(())
    }
}

/// [`QueueError::Class`] with the network's classes.
pub(super) fn class_error(problem: &'static str, name: &str, classes: &[String]) -> QueueError {
    QueueError::Class {
        problem,
        name: name.to_string(),
        known: classes.join(", "),
    }
}

/// How a station serves at a total population of `total` jobs: a
/// multi-server station of one server is a queue, one of at least as many
/// servers as jobs a delay (it never queues).
fn prepare(name: &str, kind: &Kind, total: usize, demand: &[f64]) -> Result<Service, QueueError> {
    Ok(match kind {
        Kind::Queue | Kind::MultiServer(1) => Service::Queue,
        Kind::Delay => Service::Delay,
        Kind::MultiServer(c) if *c >= total => Service::Delay,
        Kind::MultiServer(c) => Service::Multi(*c),
        Kind::LoadDependent(rate) => {
            if total > MAX_RATES {
                return Err(QueueError::TooManyRates {
                    station: name.to_string(),
                    population: total,
                    limit: MAX_RATES,
                });
            }
            let largest = demand.iter().copied().fold(0.0, f64::max);
            let mut alpha = Vec::new();
            alpha
                .try_reserve_exact(total)
                .map_err(|_| QueueError::TooLarge {
                    population: total,
                    stations: 1,
                })?;
            for j in 1..=total {
                let a = (rate.0)(j);
                if !(a.is_finite() && a > 0.0 && (largest / a).is_finite()) {
                    return Err(QueueError::InvalidRate {
                        station: name.to_string(),
                        jobs: j,
                        value: a,
                    });
                }
                alpha.push(a);
            }
            Service::General(alpha.into())
        }
    })
}

/// A checked network: demands by station then class.
#[derive(Clone, Debug)]
pub(super) struct Model {
    pub classes: Vec<String>,
    pub population: Vec<usize>,
    pub stations: Vec<String>,
    /// `demand[k][c]`: class `c`'s demand at station `k`.
    pub demand: Vec<Vec<f64>>,
    pub service: Vec<Service>,
    /// The servers a station's utilization is divided among (`c` for a
    /// multi-server station, even one solved as a delay; else 1).
    pub servers: Vec<f64>,
    /// Whether the user made it a delay (its time is not response time).
    pub delay: Vec<bool>,
}

/// The part of a model the solvers work on: the classes with jobs and the
/// stations they visit, with local indices (station `i`, class `d`).
#[derive(Clone, Debug)]
pub(super) struct Active {
    /// The model's index of each active class.
    pub classes: Vec<usize>,
    /// The model's index of each active station.
    pub stations: Vec<usize>,
    /// Populations of the active classes.
    pub population: Vec<usize>,
    /// `demand[i * C + d]`, `C` the active classes.
    pub demand: Vec<f64>,
    pub service: Vec<Service>,
    /// The total population `M`.
    pub total: usize,
    /// Per station, the most jobs it can hold: the populations of the
    /// classes that visit it.
    pub most: Vec<usize>,
}

impl Model {
    /// The classes with jobs and the stations where they have a demand.
    pub(super) fn active(&self) -> Active {
        let classes: Vec<usize> = (0..self.classes.len())
            .filter(|&c| self.population[c] > 0)
            .collect();
        let stations: Vec<usize> = (0..self.stations.len())
            .filter(|&k| classes.iter().any(|&c| self.demand[k][c] > 0.0))
            .collect();
        let demand = stations
            .iter()
            .flat_map(|&k| classes.iter().map(move |&c| self.demand[k][c]))
            .collect();
        let population: Vec<usize> = classes.iter().map(|&c| self.population[c]).collect();
        let most: Vec<usize> = stations
            .iter()
            .map(|&k| {
                (0..classes.len())
                    .filter(|&d| self.demand[k][classes[d]] > 0.0)
                    .map(|d| population[d])
                    .sum()
            })
            .collect();
        // A station of at least as many servers as jobs can ever be there
        // never queues: a delay.
        let service = stations
            .iter()
            .zip(&most)
            .map(|(&k, &m)| match self.service[k] {
                Service::Multi(c) if c >= m => Service::Delay,
                ref s => s.clone(),
            })
            .collect();
        Active {
            total: population.iter().sum(),
            service,
            classes,
            stations,
            population,
            demand,
            most,
        }
    }
}

impl Active {
    /// The active classes, `C`.
    pub(super) fn width(&self) -> usize {
        self.classes.len()
    }

    /// Class `d`'s demand at station `i`.
    pub(super) fn demand(&self, i: usize, d: usize) -> f64 {
        self.demand[i * self.classes.len() + d]
    }
}
