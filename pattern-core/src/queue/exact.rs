//! Exact Mean Value Analysis, single class, with queues, delays,
//! multi-server and general load-dependent stations.
//!
//! The recursion over the population `n = 1..=N` (Reiser and Lavenberg):
//! residence times from the queue lengths at `n − 1`, the throughput
//! `X(n) = n / Σ_k R_k(n)`, then the queue lengths at `n`. A load-dependent
//! station's residence time needs its marginal probabilities
//! `p_k(j | n − 1)`; those with `j ≥ 1` follow from
//! `p_k(j | n) = X(n)·D_k/α_k(j) · p_k(j − 1 | n − 1)`, and the probability
//! that it is empty comes from the normalizing constants (module
//! `normalizing`), never from `1 − Σ_{j≥1}`: every step multiplies or adds
//! positive numbers, so no probability mass is lost.

use super::QueueError;
use super::network::Network;
use super::normalizing::log_constants;
use super::prepared::{Prepared, Service};
use super::solution::{Labels, Solution, Sweep};

/// The most steps (station-populations) [`Network::mva`] takes: about a
/// second at 5 to 20 ns a step (measured in docs/queueing.md); 10^4 jobs
/// over 100 stations are 10^6. [`Network::mva_within`] sets another limit.
pub const MAX_EXACT_STEPS: f64 = 1e8;

/// A station's state between populations.
enum State {
    /// Queue length at `n − 1` (queues and delays).
    Plain(f64),
    /// A `c`-server station: its queue length and `p(j | n − 1)` for
    /// `j = 0..=c − 2`, all it needs (Bolch et al., eq. 8.30).
    Multi {
        queue: f64,
        marginal: Vec<f64>,
        log_g_without: Vec<f64>,
    },
    /// A general load-dependent station: `p(j | n − 1)` for `j = 0..n`.
    General {
        marginal: Vec<f64>,
        log_g_without: Vec<f64>,
    },
}

impl Network {
    /// Exact MVA at `population` jobs.
    ///
    /// Time `O(N·K)` for queues and delays, plus `O(N·c)` per `c`-server
    /// station and `O(N²)` per general load-dependent station (and the
    /// normalizing constants of the network without each of them).
    pub fn mva(&self, population: usize) -> Result<Solution, QueueError> {
        self.mva_within(population, MAX_EXACT_STEPS)
    }

    /// Exact MVA at `population` jobs, refused with
    /// [`QueueError::BeyondExact`] before it starts if it would take more
    /// than `max_steps` steps (station-populations, as
    /// [`MAX_EXACT_STEPS`] counts them).
    pub fn mva_within(&self, population: usize, max_steps: f64) -> Result<Solution, QueueError> {
        let mut last = None;
        let labels = solve(self, population, max_steps, false, |step, _| {
            last = Some((
                step.n,
                step.throughput,
                step.residence.to_vec(),
                step.utilization.to_vec(),
            ));
        })?;
        Ok(match last {
            Some((n, x, residence, utilization)) => labels.solution(n, x, &residence, &utilization),
            None => labels.solution(0, 0.0, &vec![0.0; labels.len()], &vec![0.0; labels.len()]),
        })
    }

    /// Exact MVA at every population `1..=max`, in the one pass that
    /// [`Network::mva`]`(max)` makes anyway, kept in flat arrays (two
    /// numbers per station and population).
    pub fn sweep(&self, max: usize) -> Result<Sweep, QueueError> {
        let stations = self.stations().len();
        let too_large = || QueueError::TooLarge {
            population: max,
            stations,
        };
        let cells = max.checked_mul(stations).ok_or_else(too_large)?;
        let (mut throughput, mut residence, mut busy) = (Vec::new(), Vec::new(), Vec::new());
        throughput.try_reserve_exact(max).map_err(|_| too_large())?;
        residence
            .try_reserve_exact(cells)
            .map_err(|_| too_large())?;
        let mut general = Vec::new();
        let labels = solve(self, max, MAX_EXACT_STEPS, true, |step, labels| {
            if step.n == 1 {
                general = labels.kept().collect();
            }
            throughput.push(step.throughput);
            residence.extend_from_slice(step.residence);
            busy.extend(general.iter().map(|&k| step.utilization[k]));
        })?;
        Ok(Sweep {
            labels,
            throughput,
            residence,
            busy,
        })
    }
}

/// The figures of one population, as the recursion hands them over.
struct Step<'a> {
    n: usize,
    throughput: f64,
    residence: &'a [f64],
    utilization: &'a [f64],
}

/// Runs the recursion to `population`, handing `report` the figures at
/// `population`, and with `every` at each smaller one `>= 1` too.
fn solve(
    network: &Network,
    population: usize,
    max_steps: f64,
    every: bool,
    mut report: impl FnMut(Step<'_>, &Labels),
) -> Result<Labels, QueueError> {
    let net = Prepared::new(network, population)?;
    if one_plain_station(&net, population, every, &mut report, network) {
        return Ok(Labels::new(network, &net));
    }
    let steps = net.exact_steps(population);
    if steps > max_steps {
        return Err(QueueError::BeyondExact {
            population,
            steps,
            limit: max_steps,
        });
    }
    let k_all = net.demand.len();
    let labels = Labels::new(network, &net);
    let mut states: Vec<State> = Vec::with_capacity(k_all);
    for k in 0..k_all {
        states.push(match &net.service[k] {
            Service::Queue | Service::Delay => State::Plain(0.0),
            Service::Multi(c) => State::Multi {
                queue: 0.0,
                marginal: one_then_zeros(c - 1),
                log_g_without: log_constants(&net, population, |i| i != k),
            },
            Service::General(_) => State::General {
                marginal: vec![1.0],
                log_g_without: log_constants(&net, population, |i| i != k),
            },
        });
    }
    let mut residence = vec![0.0; k_all];
    let mut log_g = 0.0;
    // Only a load-dependent station's marginals need G(n): a logarithm a
    // step is half the cost of a network of plain queues.
    let needs_log_g = states.iter().any(|s| !matches!(s, State::Plain(_)));
    let mut utilization = vec![0.0; k_all];
    if population == 0 {
        return Ok(labels);
    }
    for n in 1..=population {
        let mut cycle = 0.0;
        for k in 0..k_all {
            let d = net.demand[k];
            residence[k] = match (&net.service[k], &states[k]) {
                (Service::Delay, _) => d,
                (_, State::Plain(q)) => d * (1.0 + q),
                (
                    Service::Multi(c),
                    State::Multi {
                        queue, marginal, ..
                    },
                ) => {
                    let c = *c;
                    let idle: f64 = marginal
                        .iter()
                        .enumerate()
                        .map(|(j, p)| (c - 1 - j) as f64 * p)
                        .sum();
                    d / c as f64 * (1.0 + queue + idle)
                }
                (service, State::General { marginal, .. }) => {
                    // R = Σ_{j=1..n} j·D/α(j) · p(j − 1 | n − 1)
                    d * marginal
                        .iter()
                        .enumerate()
                        .map(|(i, p)| (i + 1) as f64 / service.alpha(i + 1) * p)
                        .sum::<f64>()
                }
                _ => unreachable!("states follow services"),
            };
            cycle += residence[k];
        }
        let x = n as f64 / cycle;
        if !(x.is_finite() && x > 0.0) {
            return Err(QueueError::NonFinite {
                quantity: "throughput",
                value: x,
            });
        }
        if needs_log_g {
            log_g -= x.ln();
        }
        for k in 0..k_all {
            let d = net.demand[k];
            let q = x * residence[k];
            utilization[k] = match (&net.service[k], &mut states[k]) {
                (_, State::Plain(queue)) => {
                    *queue = q;
                    x * (d / net.servers[k])
                }
                (
                    Service::Multi(c),
                    State::Multi {
                        queue,
                        marginal,
                        log_g_without,
                    },
                ) => {
                    *queue = q;
                    advance(
                        marginal,
                        x * d,
                        |j| j as f64,
                        (log_g_without[n] - log_g).exp(),
                        true,
                    );
                    x * (d / *c as f64)
                }
                (
                    service,
                    State::General {
                        marginal,
                        log_g_without,
                    },
                ) => {
                    let empty = (log_g_without[n] - log_g).exp();
                    advance(marginal, x * d, |j| service.alpha(j), empty, false);
                    marginal[1..].iter().sum()
                }
                _ => unreachable!("states follow services"),
            };
        }
        if !log_g.is_finite() {
            return Err(QueueError::NonFinite {
                quantity: "normalizing constant",
                value: log_g,
            });
        }
        if every || n == population {
            let step = Step {
                n,
                throughput: x,
                residence: &residence,
                utilization: &utilization,
            };
            report(step, &labels);
        }
    }
    Ok(labels)
}

/// A network of one queue or one delay at `population` jobs (and, with
/// `every`, at each smaller one), in closed form: the recursion keeps every
/// job at the station (`Q(n) = n`), so a queue's residence time is `n·D`
/// and its throughput `1/D`, a delay's `D` and `n/D`. Reported, and `true`,
/// for such a network only.
fn one_plain_station(
    net: &Prepared,
    population: usize,
    every: bool,
    report: &mut impl FnMut(Step<'_>, &Labels),
    network: &Network,
) -> bool {
    let (d, servers) = match (&net.demand[..], &net.servers[..]) {
        ([d], [servers]) => (*d, *servers),
        _ => return false,
    };
    let queue = match net.service[0] {
        Service::Queue => true,
        Service::Delay => false,
        _ => return false,
    };
    // A zero demand: the recursion says why there is no throughput.
    if !(d.is_finite() && d > 0.0) {
        return false;
    }
    // Figures beyond f64 at the largest population (residence `n·D`,
    // throughput `n/D`): the recursion reports which one has no value.
    let most = population.max(1) as f64;
    let residence = if queue { most * d } else { d };
    let throughput = most / residence;
    if ![residence, throughput, throughput * (d / servers)]
        .iter()
        .all(|v| v.is_finite() && *v > 0.0)
    {
        return false;
    }
    let labels = Labels::new(network, net);
    let first = if every { 1 } else { population.max(1) };
    for n in first..=population {
        let residence = if queue { n as f64 * d } else { d };
        let throughput = n as f64 / residence;
        report(
            Step {
                n,
                throughput,
                residence: &[residence],
                utilization: &[throughput * (d / servers)],
            },
            &labels,
        );
    }
    true
}

/// `(1, 0, .., 0)` of length `len` (at least 1): the marginals of an empty
/// network.
fn one_then_zeros(len: usize) -> Vec<f64> {
    let mut v = vec![0.0; len.max(1)];
    v[0] = 1.0;
    v
}

/// One population step of the marginals: `p(j | n) = X·D/α(j) · p(j − 1 | n − 1)`
/// for `j ≥ 1`, `p(0 | n) = empty`. A multi-server station keeps a fixed
/// length (`fixed`); a general one grows by one.
fn advance(
    marginal: &mut Vec<f64>,
    xd: f64,
    alpha: impl Fn(usize) -> f64,
    empty: f64,
    fixed: bool,
) {
    if !fixed {
        marginal.push(0.0);
    }
    for j in (1..marginal.len()).rev() {
        marginal[j] = xd / alpha(j) * marginal[j - 1];
    }
    marginal[0] = empty;
}
