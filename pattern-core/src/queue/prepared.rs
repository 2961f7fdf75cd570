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
    General(Rates),
}

/// A general station's rates `α(1..=N)`, and from how many jobs on they
/// stay the same: past there its marginals are geometric, summed in
/// closed form as a `c`-server station's are.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rates {
    alpha: Vec<f64>,
    /// The least `f ≥ 1` with `α(j) = α(f)` for every `j ≥ f` (`N` when
    /// the last two differ, 0 for no rates).
    flat: usize,
}

impl From<Vec<f64>> for Rates {
    fn from(alpha: Vec<f64>) -> Self {
        let last = alpha.last().copied();
        let repeats = alpha.iter().rev().take_while(|&&a| Some(a) == last).count();
        let flat = alpha.len() + 1 - repeats.max(1);
        Self { alpha, flat }
    }
}

impl FromIterator<f64> for Rates {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        Self::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl std::ops::Deref for Rates {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.alpha
    }
}

/// The largest population for which a general load-dependent station's
/// rates are evaluated (one call of `α` per population).
pub(crate) const MAX_RATES: usize = 1_000_000;

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

    /// The jobs `f` from which `α(j) = α(f)` for every `j ≥ f`, where
    /// that is known: `c` for `c` servers, a general station's [`Rates`].
    pub(crate) fn flat(&self) -> Option<usize> {
        match self {
            Service::Multi(c) => Some(*c),
            Service::General(rates) if rates.flat > 0 => Some(rates.flat),
            _ => None,
        }
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
    /// The steps exact MVA takes, about: `N·K` for the recursion, `N·c` per
    /// `c`-server and `N²` per general station, each also once per other
    /// load-dependent station's complement.
    pub(crate) fn exact_steps(&self, population: usize) -> f64 {
        let n = population as f64;
        let dependent: Vec<f64> = self
            .service
            .iter()
            .filter_map(|s| match s {
                Service::Multi(c) => Some(*c as f64),
                Service::General(_) => Some(n),
                _ => None,
            })
            .collect();
        let m = dependent.len() as f64;
        n * (self.demand.len() as f64 + (m + 1.0) * dependent.iter().sum::<f64>())
    }

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
                    if population > MAX_RATES {
                        return Err(QueueError::TooManyRates {
                            station: s.name().to_string(),
                            population,
                            limit: MAX_RATES,
                        });
                    }
                    let mut alpha = Vec::new();
                    alpha
                        .try_reserve_exact(population)
                        .map_err(|_| too_large())?;
                    for j in 1..=population {
                        let a = (rate.0)(j);
                        if !(a.is_finite() && a > 0.0 && (s.demand() / a).is_finite()) {
                            return Err(QueueError::InvalidRate {
                                station: s.name().to_string(),
                                jobs: j,
                                value: a,
                            });
                        }
                        alpha.push(a);
                    }
                    Service::General(alpha.into())
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

#[cfg(test)]
mod tests {
    use super::{Rates, Service};

    #[test]
    fn where_the_rates_turn_flat() {
        let flat = |alpha: &[f64]| Service::General(Rates::from(alpha.to_vec())).flat();
        assert_eq!(flat(&[1.0, 2.0, 3.0, 3.0, 3.0]), Some(3));
        assert_eq!(flat(&[1.0, 2.0, 3.0]), Some(3));
        assert_eq!(flat(&[3.0, 2.0, 3.0]), Some(3));
        assert_eq!(flat(&[2.0, 2.0]), Some(1));
        assert_eq!(flat(&[]), None);
        assert_eq!(Service::Multi(7).flat(), Some(7));
        assert_eq!(Service::Queue.flat(), None);
    }
}
