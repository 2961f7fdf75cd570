//! Approximate MVA for large populations: Schweitzer-Bard's fixed point.
//!
//! Exact MVA visits every population up to `N`; the approximation solves
//! at `N` alone, estimating the queue a job finds on arrival from the
//! queue at `N` itself: `Q_k(N − 1) ≈ (N − 1)/N · Q_k(N)`. Load-dependent
//! and multi-server stations add a correction for the first jobs, weighed
//! by the station's marginal probabilities (Bolch et al.'s multi-server
//! formula, generalized); Seidmann's decomposition is the alternative for
//! multi-server stations. Its error against exact MVA is measured in
//! `tests/queue_approx.rs` over 800 random networks and stated in
//! `docs/queueing.md`: median below 1 % in throughput, at most 7 % for
//! queues and delays, 15 % with multi-server stations (16 % Seidmann),
//! 11 % with load-dependent ones, largest at small populations.

use super::QueueError;
use super::network::Network;
use super::normalizing::log_add;
use super::prepared::{Prepared, Service};
use super::solution::{Labels, Solution};

/// How [`Network::mva_approx_with`] treats multi-server stations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MultiServer {
    /// The station's marginal probabilities at `N − 1` are those of the
    /// station alone, fed at the network's throughput scaled by
    /// `(N − 1)/N` (as Schweitzer scales the queue); the same treatment as
    /// general load-dependent stations.
    #[default]
    Marginals,
    /// Seidmann et al.: a `c`-server station of demand `D` is a single
    /// server of demand `D/c` followed by a delay of `D·(c − 1)/c`.
    Seidmann,
}

/// Settings of approximate MVA.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Approximation {
    /// The iteration stops when no queue length changes by more than this,
    /// relatively. Default `1e-10`.
    pub tolerance: f64,
    /// The most iterations before giving up with
    /// [`QueueError::NoConvergence`]. Default 100,000.
    pub max_iterations: usize,
    /// Multi-server stations. Default [`MultiServer::Marginals`].
    pub multi_server: MultiServer,
}

impl Default for Approximation {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 100_000,
            multi_server: MultiServer::Marginals,
        }
    }
}

impl Network {
    /// Approximate MVA (Schweitzer-Bard) at `population` jobs, with the
    /// default [`Approximation`].
    pub fn mva_approx(&self, population: usize) -> Result<Solution, QueueError> {
        self.mva_approx_with(population, &Approximation::default())
    }

    /// Approximate MVA with explicit settings.
    pub fn mva_approx_with(
        &self,
        population: usize,
        settings: &Approximation,
    ) -> Result<Solution, QueueError> {
        if !(settings.tolerance.is_finite() && settings.tolerance > 0.0) {
            return Err(QueueError::InvalidOption {
                option: "tolerance",
                value: settings.tolerance.to_string(),
                expected: "a finite number > 0",
            });
        }
        let net = Prepared::new(self, population)?;
        let labels = Labels::new(self, &net);
        let k_all = net.demand.len();
        if population == 0 {
            return Ok(labels.solution(0, 0.0, &vec![0.0; k_all], &vec![0.0; k_all]));
        }
        let n = population as f64;
        let shrink = (n - 1.0) / n;
        // Schweitzer's equations `R_k = D_k·(1 + (N − 1)/N · X·R_k)` give each
        // residence time as a function of X alone, increasing in X; so does
        // every other station's. The fixed point is the one root of
        // `X·Σ R_k(X) = N`, found by bisection: no iteration to diverge.
        let residence = |x: f64| -> Option<Vec<f64>> {
            (0..k_all)
                .map(|k| {
                    let d = net.demand[k];
                    let r = match &net.service[k] {
                        Service::Queue => single(d, x * shrink)?,
                        Service::Delay => d,
                        Service::Multi(c) if settings.multi_server == MultiServer::Seidmann => {
                            let c = *c as f64;
                            single(d / c, x * shrink)? + d * (c - 1.0) / c
                        }
                        service => load_dependent(service, d, x * shrink, population)?,
                    };
                    Some(r)
                })
                .collect()
        };
        let jobs = |x: f64| residence(x).map(|r| x * r.iter().sum::<f64>());
        // Bracket the root: `hi` doubles until the jobs exceed N (or a
        // queue saturates, which `jobs` reports as None).
        let (mut lo, mut hi) = (0.0f64, n / net.demand.iter().sum::<f64>());
        let mut steps = 0;
        while jobs(hi).is_some_and(|j| j < n) {
            lo = hi;
            hi *= 2.0;
            steps += 1;
            if steps > settings.max_iterations || !hi.is_finite() {
                return Err(QueueError::NoConvergence {
                    iterations: steps,
                    change: f64::INFINITY,
                });
            }
        }
        loop {
            let mid = 0.5 * (lo + hi);
            if jobs(mid).is_some_and(|j| j < n) {
                lo = mid;
            } else {
                hi = mid;
            }
            steps += 1;
            let change = (hi - lo) / hi;
            if change <= settings.tolerance {
                break;
            }
            if steps >= settings.max_iterations {
                return Err(QueueError::NoConvergence {
                    iterations: steps,
                    change,
                });
            }
        }
        let x = lo;
        let mut residence = residence(x).expect("below every saturation point");
        // At the root the residence times hold N jobs; scaling the
        // throughput to them keeps Little's law exact (`Σ Q = N`).
        let mut x = n / residence.iter().sum::<f64>();
        // Schweitzer's estimate lets a station run up to N/(N − 1) times past
        // its capacity; no network does: the throughput is capped at the
        // bottleneck's, the jobs it holds up waiting there.
        let cap = self.bounds(population)?.throughput_upper;
        if x > cap {
            let bottleneck = (0..k_all)
                .filter(|&k| !net.delay[k])
                .max_by(|&a, &b| {
                    let per = |k: usize| net.demand[k] / net.servers[k];
                    per(a).total_cmp(&per(b))
                })
                .unwrap_or(0);
            residence[bottleneck] += n / cap - n / x;
            x = cap;
        }
        if !(x.is_finite() && x > 0.0) {
            return Err(QueueError::NonFinite {
                quantity: "throughput",
                value: x,
            });
        }
        let utilization: Vec<f64> = (0..k_all)
            .map(|k| match &net.service[k] {
                Service::General(_) => {
                    1.0 - marginals(&net.service[k], x, net.demand[k], population)[0]
                }
                _ => x * (net.demand[k] / net.servers[k]),
            })
            .collect();
        Ok(labels.solution(population, x, &residence, &utilization))
    }
}

/// Schweitzer's residence time at a single server of demand `d` fed at
/// `rate` (the throughput scaled by `(N − 1)/N`): `d / (1 − rate·d)`, or
/// `None` past saturation.
fn single(d: f64, rate: f64) -> Option<f64> {
    let busy = rate * d;
    (busy < 1.0).then(|| d / (1.0 - busy))
}

/// Residence time at a load-dependent station of demand `d`, generalizing
/// Bolch et al.'s multi-server formula: with `a = α(N)`, the rate under
/// load, `R = D/a·(1 + Q(N−1)) + D·Σ_j j·(1/α(j) − 1/a)·p(j − 1 | N − 1)`.
/// `Q(N − 1)` is Schweitzer's, the marginals (which only weigh the first
/// jobs, where the rate differs from `a`) those of the station alone fed
/// at `rate`. Solved for `R`: `d/a / (1 − rate·d/a) · (1 + Σ_j j·(a/α(j) − 1)·p(j − 1))`.
fn load_dependent(service: &Service, d: f64, rate: f64, population: usize) -> Option<f64> {
    let a = service.alpha(population);
    let p = marginals(service, rate, d, population - 1);
    let correction: f64 = p
        .iter()
        .enumerate()
        .map(|(i, p)| (i + 1) as f64 * (a / service.alpha(i + 1) - 1.0) * p)
        .sum();
    Some(single(d / a, rate)? * (1.0 + correction).max(0.0))
}

/// The station alone as a birth-death process: `p(j) ∝ Π_{i≤j} rate·D/α(i)`
/// for `j = 0..=max`, normalized in log space (no subtraction).
pub(crate) fn marginals(service: &Service, rate: f64, d: f64, max: usize) -> Vec<f64> {
    if rate <= 0.0 || d == 0.0 {
        let mut p = vec![0.0; max + 1];
        p[0] = 1.0;
        return p;
    }
    let ln_load = (rate * d).ln();
    let mut log_p = Vec::with_capacity(max + 1);
    log_p.push(0.0);
    let mut total = 0.0;
    for j in 1..=max {
        let next = log_p[j - 1] + ln_load - service.alpha(j).ln();
        total = log_add(total, next);
        log_p.push(next);
    }
    log_p.iter().map(|l| (l - total).exp()).collect()
}
