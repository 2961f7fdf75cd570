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
use super::normalizing::{ln_geometric_sum, log_add};
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
    /// The most bisection steps before giving up with
    /// [`QueueError::NoConvergence`]. Default 2,000 (bracketing the
    /// throughput over f64's whole range takes about 1,100; then 35 more
    /// reach 1e-10).
    pub max_iterations: usize,
    /// Multi-server stations. Default [`MultiServer::Marginals`].
    pub multi_server: MultiServer,
}

impl Default for Approximation {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 2_000,
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
        // ln α(j) of the general stations, once (the bisection evaluates
        // their marginals at every step).
        let ln_alpha: Vec<Vec<f64>> = net
            .service
            .iter()
            .map(|s| match s {
                Service::General(alpha) => alpha.iter().map(|a| a.ln()).collect(),
                _ => Vec::new(),
            })
            .collect();
        // A job's least time at a general station, D·min j/α(j) (served
        // at the fastest rate per job): Schweitzer's correction may round
        // a residence time below it, to zero where rates are near f64's
        // largest.
        let least: Vec<f64> = net
            .service
            .iter()
            .zip(&net.demand)
            .map(|(s, d)| match s {
                Service::General(alpha) => {
                    let fastest = alpha
                        .iter()
                        .enumerate()
                        .map(|(i, a)| a / (i + 1) as f64)
                        .fold(0.0, f64::max);
                    d / fastest
                }
                _ => 0.0,
            })
            .collect();
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
                        service => {
                            load_dependent(service, &ln_alpha[k], d, x * shrink, population)?
                                .max(least[k])
                        }
                    };
                    Some(r)
                })
                .collect()
        };
        let jobs = |x: f64| -> Result<Option<f64>, QueueError> {
            match residence(x).map(|r| x * r.iter().sum::<f64>()) {
                Some(j) if j.is_nan() => Err(QueueError::NonFinite {
                    quantity: "residence time",
                    value: j,
                }),
                j => Ok(j),
            }
        };
        // Bracket the root: `hi` doubles until the jobs exceed N (or a
        // queue saturates, which `jobs` reports as None).
        let (mut lo, mut hi) = (0.0f64, n / net.demand.iter().sum::<f64>());
        let mut steps = 0;
        while jobs(hi)?.is_some_and(|j| j < n) {
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
        // Regula falsi, Illinois variant (a retained end's value is halved),
        // bisecting while the upper end is past a saturation point: a
        // dozen steps where bisection takes forty, each an O(N) pass over
        // the marginals of every general load-dependent station.
        let (mut f_lo, mut f_hi) = (jobs(lo)?.map_or(-n, |j| j - n), jobs(hi)?.map(|j| j - n));
        let mut kept = 0i8; // > 0: lo kept last, < 0: hi kept last
        let x = loop {
            let mid = match f_hi {
                Some(fh) if fh > f_lo => {
                    let m = hi - fh * (hi - lo) / (fh - f_lo);
                    if m > lo && m < hi { m } else { 0.5 * (lo + hi) }
                }
                _ => 0.5 * (lo + hi),
            };
            steps += 1;
            let f = jobs(mid)?.map(|j| j - n);
            match f {
                Some(f) if f.abs() <= settings.tolerance * n => break mid,
                Some(f) if f < 0.0 => {
                    lo = mid;
                    f_lo = f;
                    if kept < 0 {
                        f_hi = f_hi.map(|v| v / 2.0);
                    }
                    kept = -1;
                }
                _ => {
                    hi = mid;
                    f_hi = f;
                    if kept > 0 {
                        f_lo /= 2.0;
                    }
                    kept = 1;
                }
            }
            let change = (hi - lo) / hi;
            if change <= settings.tolerance {
                break lo;
            }
            if steps >= settings.max_iterations {
                return Err(QueueError::NoConvergence {
                    iterations: steps,
                    change,
                });
            }
        };
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
            // From the residence times themselves, not n/x: x may have
            // overflowed to infinity where they underflowed.
            residence[bottleneck] += n / cap - residence.iter().sum::<f64>();
            x = cap;
        }
        if let Some(r) = residence.iter().find(|r| !r.is_finite()) {
            return Err(QueueError::NonFinite {
                quantity: "residence time",
                value: *r,
            });
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
                    1.0 - marginals(&ln_alpha[k], x, net.demand[k], population)[0]
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
fn load_dependent(
    service: &Service,
    ln_alpha: &[f64],
    d: f64,
    rate: f64,
    population: usize,
) -> Option<f64> {
    if let Service::Multi(c) = service {
        return multi_server(*c, d, rate, population);
    }
    let a = service.alpha(population);
    let p = marginals(ln_alpha, rate, d, population - 1);
    let correction: f64 = p
        .iter()
        .enumerate()
        .map(|(i, p)| (i + 1) as f64 * (a / service.alpha(i + 1) - 1.0) * p)
        .sum();
    Some(single(d / a, rate)? * (1.0 + correction).max(0.0))
}

/// [`load_dependent`] for `c` servers in `O(c)`: the correction
/// `Σ_{j<c} (c − j)·p(j − 1)` needs the first `c − 1` marginals, and the
/// normalization's tail beyond `c` jobs is a geometric sum. Past
/// [`MAX_MARGINAL_SERVERS`] servers, Seidmann's decomposition.
fn multi_server(c: usize, d: f64, rate: f64, population: usize) -> Option<f64> {
    let cf = c as f64;
    if c > MAX_MARGINAL_SERVERS {
        return Some(single(d / cf, rate)? + d * (cf - 1.0) / cf);
    }
    let max = population - 1;
    if rate <= 0.0 || d == 0.0 {
        return Some(single(d / cf, rate)? * (1.0 + (cf - 1.0)));
    }
    // ln of the unnormalized p(j) = (λD)^j / j! for j < c.
    let ln_load = (rate * d).ln();
    let head = (c - 1).min(max);
    let mut log_p = Vec::with_capacity(head + 1);
    log_p.push(0.0);
    let mut total = 0.0;
    for j in 1..=head {
        let next = log_p[j - 1] + ln_load - (j as f64).ln();
        total = log_add(total, next);
        log_p.push(next);
    }
    if max >= c {
        // j = c..=max: p(j) = p(c − 1)·ρ^(j − c + 1), ρ = λD/c.
        let ln_rho = ln_load - cf.ln();
        let terms = (max - c + 1) as f64;
        let ln_geometric = ln_geometric_sum(ln_rho, terms);
        total = log_add(total, log_p[c - 1] + ln_geometric);
    }
    let correction: f64 = (1..c)
        .filter(|&j| j - 1 <= head)
        .map(|j| (cf - j as f64) * (log_p[j - 1] - total).exp())
        .sum();
    Some(single(d / cf, rate)? * (1.0 + correction))
}

/// The most servers a station's marginals are summed over in the
/// approximation (`O(c)` per step); beyond, Seidmann's decomposition.
pub(crate) const MAX_MARGINAL_SERVERS: usize = 1_000_000;

/// The station alone as a birth-death process: `p(j) ∝ Π_{i≤j} rate·D/α(i)`
/// for `j = 0..=max` (`ln_alpha[i − 1] = ln α(i)`, computed once per solve),
/// normalized by the largest term: adds and one `exp` per term, no
/// subtraction.
pub(crate) fn marginals(ln_alpha: &[f64], rate: f64, d: f64, max: usize) -> Vec<f64> {
    let mut p = vec![0.0; max + 1];
    if rate <= 0.0 || d == 0.0 {
        p[0] = 1.0;
        return p;
    }
    let ln_load = (rate * d).ln();
    let mut top = 0.0f64;
    for j in 1..=max {
        p[j] = p[j - 1] + ln_load - ln_alpha[j - 1];
        top = top.max(p[j]);
    }
    let mut total = 0.0;
    for v in p.iter_mut() {
        *v = (*v - top).exp();
        total += *v;
    }
    p.iter_mut().for_each(|v| *v /= total);
    p
}
