//! The fixed point Bard-Schweitzer solves at `N` and the Linearizer at `N`
//! and each `N − 1_j` (its `F` added to the jobs found): the residence
//! times from the queues, the throughputs from the residence times, by
//! successive substitution.

use super::super::QueueError;
use super::super::normalizing::{ln_geometric_sum, log_add};
use super::super::prepared::Service;
use super::carried::Carried;
use super::network::Active;

/// When the successive substitution stops: no queue length moves by more
/// than `tolerance` times its class's population, no throughput by more
/// than `tolerance` relatively; or after `max_iterations`, an error.
#[derive(Clone, Copy)]
pub(super) struct Stop {
    pub tolerance: f64,
    pub max_iterations: usize,
}

/// The fixed point's state at one population vector.
pub(super) struct Fixed<'a> {
    a: &'a Active,
    seidmann: bool,
    /// The population vector solved (the Linearizer's `N − 1_j` too).
    pub population: Vec<usize>,
    /// Per station, the most jobs it can hold at `population`.
    most: Vec<usize>,
    /// Jobs added to those a class-`d` job finds at station `i`,
    /// `extra[i * C + d]`: 0 for Bard-Schweitzer, the Linearizer's
    /// `Σ_c (n − 1_d)_c·F_i,c,d`.
    pub extra: Vec<f64>,
    /// Schweitzer's queue lengths `q[i * C + d]` (at a Seidmann station,
    /// of its single-server part).
    pub queue: Vec<f64>,
    pub residence: Vec<f64>,
    pub x: Vec<f64>,
    /// Per station, a job's least time per unit of demand there,
    /// `min_j j/α(j)` (served at the fastest rate per job).
    least: Vec<f64>,
    /// The Linearizer's marginals of `c`-server stations (module
    /// `carried`); empty for Bard-Schweitzer.
    pub carried: Carried,
}

impl<'a> Fixed<'a> {
    /// The state at `population` (a class may have 0 jobs), every class's
    /// jobs spread over its stations in proportion to its demands.
    pub(super) fn new(a: &'a Active, seidmann: bool, population: Vec<usize>, carry: bool) -> Self {
        let (c_all, k_all) = (a.width(), a.stations.len());
        let mut queue = vec![0.0; k_all * c_all];
        let mut x = vec![0.0; c_all];
        for d in 0..c_all {
            let total: f64 = (0..k_all).map(|i| a.demand(i, d)).sum();
            for i in 0..k_all {
                queue[i * c_all + d] = population[d] as f64 * a.demand(i, d) / total;
            }
            x[d] = population[d] as f64 / total;
        }
        let most = (0..k_all)
            .map(|i| {
                (0..c_all)
                    .filter(|&d| a.demand(i, d) > 0.0)
                    .map(|d| population[d])
                    .sum()
            })
            .collect();
        let least = a
            .service
            .iter()
            .zip(&a.most)
            .map(|(s, &m)| match s {
                // Past the flat tail's start `j/α(j)` only grows.
                Service::General(alpha) => alpha[..m.min(s.flat().unwrap_or(m))]
                    .iter()
                    .enumerate()
                    .map(|(j, a)| (j + 1) as f64 / a)
                    .fold(f64::INFINITY, f64::min),
                _ => 0.0,
            })
            .collect();
        let mut fixed = Self {
            a,
            seidmann,
            population,
            most,
            extra: vec![0.0; k_all * c_all],
            residence: vec![0.0; k_all * c_all],
            queue,
            x,
            least,
            carried: Carried::default(),
        };
        if carry && !seidmann {
            let carried = Carried::new(a, |i| {
                let service = &a.service[i];
                head(
                    fixed.offered(i),
                    &|j| service.alpha(j),
                    fixed.most[i],
                    service,
                )
            });
            fixed.carried = carried;
        }
        fixed
    }

    /// Successive substitution until no queue moves by more than the
    /// tolerance (relative to its class's population).
    pub(super) fn solve(&mut self, settings: Stop) -> Result<(), QueueError> {
        let (c_all, k_all) = (self.a.width(), self.a.stations.len());
        let mut next = vec![0.0; k_all * c_all];
        let mut change = f64::INFINITY;
        for _ in 0..settings.max_iterations {
            let totals: Vec<f64> = (0..k_all)
                .map(|i| self.queue[i * c_all..(i + 1) * c_all].iter().sum())
                .collect();
            let mut x = vec![0.0; c_all];
            for (d, x) in x.iter_mut().enumerate() {
                let n = self.population[d] as f64;
                if n == 0.0 {
                    // A class emptied by the Linearizer's N − 1_j.
                    continue;
                }
                let mut cycle = 0.0;
                for i in 0..k_all {
                    let own = self.queue[i * c_all + d] / n;
                    let found = (totals[i] - own + self.extra[i * c_all + d]).max(0.0);
                    let (r, part) = self.residence_at(i, d, found);
                    self.residence[i * c_all + d] = r;
                    next[i * c_all + d] = part;
                    cycle += r;
                }
                *x = n / cycle;
                if !(x.is_finite() && *x > 0.0) {
                    return Err(QueueError::NonFinite {
                        quantity: "throughput",
                        value: *x,
                    });
                }
            }
            let moved = self.carried.update(self.a, &x);
            // The throughputs too: with one station per class the queue
            // lengths are the populations from the first iteration, and
            // only the throughputs (a load-dependent station's load) move.
            change = (0..c_all)
                .filter(|&d| self.population[d] > 0)
                .map(|d| (x[d] / self.x[d] - 1.0).abs())
                .fold(moved, f64::max);
            for i in 0..k_all {
                for d in (0..c_all).filter(|&d| self.population[d] > 0) {
                    let q = x[d] * next[i * c_all + d];
                    let moved = (q - self.queue[i * c_all + d]).abs();
                    change = change.max(moved / self.population[d] as f64);
                    self.queue[i * c_all + d] = q;
                }
            }
            self.x = x;
            if change <= settings.tolerance {
                return Ok(());
            }
        }
        Err(QueueError::NoConvergence {
            iterations: settings.max_iterations,
            change,
        })
    }

    /// Class `d`'s residence time at station `i` when it finds `found`
    /// jobs there, and the part of it that feeds Schweitzer's queue (all
    /// of it but at a Seidmann station, whose delay part does not queue).
    fn residence_at(&self, i: usize, d: usize, found: f64) -> (f64, f64) {
        let a = self.a;
        let dem = a.demand(i, d);
        if dem == 0.0 {
            return (0.0, 0.0);
        }
        match &a.service[i] {
            Service::Delay => (dem, dem),
            Service::Queue => {
                let r = dem * (1.0 + found);
                (r, r)
            }
            Service::Multi(c) if self.seidmann => {
                let c = *c as f64;
                let part = dem / c * (1.0 + found);
                (part + dem * (c - 1.0) / c, part)
            }
            Service::Multi(c) if self.carried.has(i) => {
                let r = dem / *c as f64 * (1.0 + found + self.carried.waiting(i, d));
                (r, r)
            }
            service => {
                // At least the arriving job: class d has jobs.
                let m = self.most[i];
                let rate = |j: usize| service.alpha(j);
                let arrival = m - 1;
                // The other jobs' load: every class's at N, one job of d's less.
                let load = self.offered(i) - self.x[d] * dem / self.population[d] as f64;
                let p = head(load, &rate, arrival, service);
                let top = rate(m);
                let correction: f64 = p
                    .iter()
                    .enumerate()
                    .map(|(j, p)| (j + 1) as f64 * (1.0 / rate(j + 1) - 1.0 / top) * p)
                    .sum();
                let r = (dem / top * (1.0 + found) + dem * correction).max(dem * self.least[i]);
                (r, r)
            }
        }
    }

    /// `Σ_c X_c·D_i,c`: the work offered to station `i` per unit of time.
    fn offered(&self, i: usize) -> f64 {
        (0..self.a.width())
            .map(|d| self.x[d] * self.a.demand(i, d))
            .sum()
    }

    /// The probability that general load-dependent station `i`, alone at
    /// the load offered to it, is busy (a sum of positive terms).
    pub(super) fn busy(&self, i: usize) -> f64 {
        let service = &self.a.service[i];
        let (load, max) = (self.offered(i), self.most[i]);
        let p = head(load, &|j| service.alpha(j), max, service);
        let ahead: f64 = p[1..].iter().sum();
        if p.len() > max || load.is_nan() || load <= 0.0 {
            return ahead;
        }
        // The flat tail head() summed in closed form: p(f − 1)·Σ ρ^k.
        let f = p.len();
        let ln_rho = load.ln() - service.alpha(f).ln();
        ahead + (p[f - 1].ln() + ln_geometric_sum(ln_rho, (max - f + 1) as f64)).exp()
    }
}

/// The station alone as a birth-death process of at most `max` jobs fed
/// at `load` (work per unit of time): `p(j) ∝ Π_{i≤j} load/α(i)`, in log
/// space, normalized by a sum of positive terms. Where the rates stay
/// `α(f)` from `f ≤ max` jobs on (`c` servers, or a general station's
/// flat tail) only `p(0..f − 1)` are returned, the tail (geometric) summed
/// in closed form: the corrections weigh `1/α(j) − 1/α(f)`, 0 there.
pub(super) fn head(
    load: f64,
    alpha: &dyn Fn(usize) -> f64,
    max: usize,
    service: &Service,
) -> Vec<f64> {
    let servers = service.flat().filter(|&f| f <= max);
    let len = servers.unwrap_or(max + 1);
    let mut t = vec![f64::NEG_INFINITY; len];
    t[0] = 0.0;
    if load.is_nan() || load <= 0.0 {
        return vec_exp(&t, 0.0);
    }
    let ln_load = load.ln();
    let mut total = 0.0;
    for j in 1..len {
        t[j] = t[j - 1] + ln_load - alpha(j).ln();
        total = log_add(total, t[j]);
    }
    if let Some(c) = servers {
        // j = c..=max: t(j) = t(c − 1)·ρ^(j − c + 1), ρ = load/α(c).
        let ln_rho = ln_load - alpha(c).ln();
        let terms = (max - c + 1) as f64;
        let ln_geometric = ln_geometric_sum(ln_rho, terms);
        total = log_add(total, t[c - 1] + ln_geometric);
    }
    vec_exp(&t, total)
}

/// `exp(t − total)` for each term.
fn vec_exp(t: &[f64], total: f64) -> Vec<f64> {
    t.iter().map(|v| (v - total).exp()).collect()
}
