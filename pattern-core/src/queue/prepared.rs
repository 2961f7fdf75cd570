//! A checked network in the form the solvers use: each station's rate
//! multipliers evaluated once, up to the population.

use super::QueueError;
use super::network::{Kind, Network};

/// How a station serves, for the solvers.
#[derive(Clone, Debug)]
pub(crate) enum Service {
    /// Load-independent single server.
    Queue,
    /// Infinite servers (also a multi-server station with at least as many
    /// servers as jobs: it never queues).
    Delay,
    /// `c` servers, `2 <= c < N`.
    Multi(usize),
    /// `alpha[j - 1] = α(j)` for `j = 1..=N`.
    General(Vec<f64>),
}

#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    pub demand: Vec<f64>,
    pub service: Vec<Service>,
    /// The servers a station's utilization is divided among (`c` for a
    /// multi-server station, even one solved as a delay; else 1).
    pub servers: Vec<f64>,
    /// Whether the user made it a delay (its time is not response time).
    pub delay: Vec<bool>,
}

impl Service {
    /// Whether the station needs its marginal probabilities (its rate
    /// depends on the jobs present).
    pub(crate) fn load_dependent(&self) -> bool {
        matches!(self, Service::Multi(_) | Service::General(_))
    }

    /// `α(j)` for `1 <= j <= N`.
    pub(crate) fn alpha(&self, j: usize) -> f64 {
        match self {
            Service::Queue => 1.0,
            Service::Delay => j as f64,
            Service::Multi(c) => j.min(*c) as f64,
            Service::General(alpha) => alpha[j - 1],
        }
    }
}

impl Prepared {
    /// Checks `network` and evaluates every rate multiplier up to
    /// `population`.
    pub(crate) fn new(network: &Network, population: usize) -> Result<Self, QueueError> {
        network.check()?;
        let stations = network.stations();
        let too_large = || QueueError::TooLarge {
            population,
            stations: stations.len(),
        };
        let mut demand = Vec::new();
        let mut service = Vec::new();
        demand
            .try_reserve_exact(stations.len())
            .map_err(|_| too_large())?;
        service
            .try_reserve_exact(stations.len())
            .map_err(|_| too_large())?;
        let servers = stations
            .iter()
            .map(|s| match s.raw_kind() {
                Kind::MultiServer(c) => *c as f64,
                _ => 1.0,
            })
            .collect();
        let delay = stations
            .iter()
            .map(|s| matches!(s.raw_kind(), Kind::Delay))
            .collect();
        for s in stations {
            demand.push(s.demand());
            service.push(match s.raw_kind() {
                Kind::Queue | Kind::MultiServer(1) => Service::Queue,
                Kind::Delay => Service::Delay,
                Kind::MultiServer(c) if *c >= population => Service::Delay,
                Kind::MultiServer(c) => Service::Multi(*c),
                Kind::LoadDependent(rate) => {
                    let mut alpha = Vec::new();
                    alpha
                        .try_reserve_exact(population)
                        .map_err(|_| too_large())?;
                    for j in 1..=population {
                        let a = (rate.0)(j);
                        if !(a.is_finite() && a > 0.0) {
                            return Err(QueueError::InvalidRate {
                                station: s.name().to_string(),
                                jobs: j,
                                value: a,
                            });
                        }
                        alpha.push(a);
                    }
                    Service::General(alpha)
                }
            });
        }
        if demand.iter().all(|&d| d == 0.0) {
            return Err(QueueError::ZeroDemand);
        }
        Ok(Self {
            demand,
            service,
            servers,
            delay,
        })
    }
}
