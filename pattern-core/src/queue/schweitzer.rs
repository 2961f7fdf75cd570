//! Schweitzer-Bard's fixed point for one class, the core that both
//! approximations solve: at `n` jobs a job finds `(n − 1)/n` of each
//! station's queue on arrival (plus the Linearizer's correction), every
//! residence time a function of the throughput alone, the root of
//! `X·Σ R_k(X) = n` found by regula falsi. Load-dependent and multi-server
//! stations add a correction for the first jobs, weighed by the station's
//! marginal probabilities (Bolch et al.'s multi-server formula,
//! generalized), or are Seidmann's decomposition.

use super::QueueError;
use super::network::Network;
use super::normalizing::{ln_geometric_sum, log_add};
use super::prepared::{Prepared, Service};

/// How the approximations solve a station.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Treat {
    /// A single server.
    Queue,
    /// No queueing.
    Delay,
    /// Seidmann's decomposition of `c` servers: a queue of `D/c` and a
    /// delay of `D·(c − 1)/c`.
    Seidmann(f64),
    /// Through its marginal probabilities: a `c`-server station (up to
    /// [`MAX_MARGINAL_SERVERS`]) or a general load-dependent one.
    Marginal,
}

/// A prepared network with what the approximations compute once per solve.
pub(super) struct Model<'a> {
    pub net: &'a Prepared,
    pub treat: Vec<Treat>,
    /// `ln α(j)` of the general load-dependent stations, `j = 1..=N`.
    pub ln_alpha: Vec<Vec<f64>>,
    /// A job's least time at a general station, `D·min j/α(j)` (served at
    /// the fastest rate per job): Schweitzer's correction may round a
    /// residence time below it, to zero where rates are near f64's largest.
    pub least: Vec<f64>,
    pub tolerance: f64,
    pub max_steps: usize,
}

impl<'a> Model<'a> {
    /// The model of `net`: `seidmann` treats every multi-server station by
    /// Seidmann's decomposition (beyond [`MAX_MARGINAL_SERVERS`] servers
    /// always); `tolerance` and `max_steps` bound the root searches.
    pub(super) fn new(net: &'a Prepared, seidmann: bool, tolerance: f64, max_steps: usize) -> Self {
        let treat = net
            .service
            .iter()
            .map(|s| match s {
                Service::Queue => Treat::Queue,
                Service::Delay => Treat::Delay,
                Service::Multi(c) if seidmann || *c > MAX_MARGINAL_SERVERS => {
                    Treat::Seidmann(*c as f64)
                }
                _ => Treat::Marginal,
            })
            .collect();
        let ln_alpha = net
            .service
            .iter()
            .map(|s| match s {
                Service::General(alpha) => alpha.iter().map(|a| a.ln()).collect(),
                _ => Vec::new(),
            })
            .collect();
        let least = net
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
        Self {
            net,
            treat,
            ln_alpha,
            least,
            tolerance,
            max_steps,
        }
    }

    /// Schweitzer's residence times at `n` jobs as functions of the
    /// throughput `x`: a job finds `(n − 1)/n · x·R_k + extra_k` jobs at
    /// station `k` on arrival (`extra` is 0 for Schweitzer-Bard; the
    /// Linearizer's `(n − 1)·F_k`), never fewer than none. `None` past a
    /// saturation point.
    fn residence(&self, n: usize, x: f64, extra: &[f64]) -> Option<Vec<f64>> {
        let rate = x * ((n - 1) as f64 / n as f64);
        (0..self.net.demand.len())
            .map(|k| {
                let d = self.net.demand[k];
                let service = &self.net.service[k];
                let r = match self.treat[k] {
                    Treat::Queue => single(d, rate)? * (1.0 + extra[k]).max(0.0),
                    Treat::Delay => d,
                    Treat::Seidmann(c) => {
                        single(d / c, rate)? * (1.0 + extra[k]).max(0.0) + d * (c - 1.0) / c
                    }
                    Treat::Marginal => match service {
                        // At most as many jobs as servers: never a queue.
                        Service::Multi(c) if *c >= n => d,
                        _ => {
                            let a = service.alpha(n);
                            let more = correction(service, &self.ln_alpha[k], d, rate, n);
                            (single(d / a, rate)? * (1.0 + extra[k] + more).max(0.0))
                                .max(self.least[k])
                        }
                    },
                };
                // The queue's floor: a job's own service.
                Some(match self.treat[k] {
                    Treat::Queue => r.max(d),
                    Treat::Seidmann(c) => r.max(d / c + d * (c - 1.0) / c),
                    _ => r,
                })
            })
            .collect()
    }

    /// The jobs the residence times at throughput `x` hold, `x·Σ_k R_k`:
    /// `None` past a saturation point, an error where it is NaN.
    fn jobs(&self, n: usize, x: f64, extra: &[f64]) -> Result<Option<f64>, QueueError> {
        match self
            .residence(n, x, extra)
            .map(|r| x * r.iter().sum::<f64>())
        {
            Some(j) if j.is_nan() => Err(QueueError::NonFinite {
                quantity: "residence time",
                value: j,
            }),
            j => Ok(j),
        }
    }

    /// Schweitzer's fixed point at `n` jobs (with the Linearizer's
    /// `extra`), its throughput and residence times. Each residence time is
    /// a function of the throughput alone, increasing; so is every other
    /// station's. The fixed point is the one root of `X·Σ R_k(X) = n`,
    /// found by regula falsi: no iteration to diverge. `steps` counts the
    /// steps over every call, at most `max_steps`.
    pub(super) fn core(
        &self,
        n: usize,
        extra: &[f64],
        steps: &mut usize,
    ) -> Result<(f64, Vec<f64>), QueueError> {
        let nf = n as f64;
        // Bracket the root: `hi` doubles until the jobs exceed n (or a
        // queue saturates, which `jobs` reports as None).
        let (mut lo, mut hi) = (0.0f64, nf / self.net.demand.iter().sum::<f64>());
        while self.jobs(n, hi, extra)?.is_some_and(|j| j < nf) {
            lo = hi;
            hi *= 2.0;
            *steps += 1;
            if *steps > self.max_steps || !hi.is_finite() {
                return Err(QueueError::NoConvergence {
                    iterations: *steps,
                    change: f64::INFINITY,
                });
            }
        }
        let x = self.falsi(n, extra, (lo, hi), steps)?;
        let residence = self
            .residence(n, x, extra)
            .expect("below every saturation point");
        // At the root the residence times hold n jobs; scaling the
        // throughput to them keeps Little's law exact (`Σ Q = n`).
        let x = nf / residence.iter().sum::<f64>();
        Ok((x, residence))
    }

    /// Regula falsi, Illinois variant (a retained end's value is halved),
    /// on the bracket `(lo, hi)` of the throughput, bisecting while the
    /// upper end is past a saturation point: a dozen steps where bisection
    /// takes forty, each an O(N) pass over the marginals of every general
    /// load-dependent station.
    fn falsi(
        &self,
        n: usize,
        extra: &[f64],
        (mut lo, mut hi): (f64, f64),
        steps: &mut usize,
    ) -> Result<f64, QueueError> {
        let nf = n as f64;
        let jobs = |x: f64| self.jobs(n, x, extra);
        let (mut f_lo, mut f_hi) = (jobs(lo)?.map_or(-nf, |j| j - nf), jobs(hi)?.map(|j| j - nf));
        let mut kept = 0i8; // > 0: lo kept last, < 0: hi kept last
        loop {
            let mid = match f_hi {
                Some(fh) if fh > f_lo => {
                    let m = hi - fh * (hi - lo) / (fh - f_lo);
                    if m > lo && m < hi { m } else { 0.5 * (lo + hi) }
                }
                _ => 0.5 * (lo + hi),
            };
            *steps += 1;
            let f = jobs(mid)?.map(|j| j - nf);
            match f {
                Some(f) if f.abs() <= self.tolerance * nf => return Ok(mid),
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
            if change <= self.tolerance {
                return Ok(lo);
            }
            if *steps >= self.max_steps {
                return Err(QueueError::NoConvergence {
                    iterations: *steps,
                    change,
                });
            }
        }
    }

    /// Caps the throughput at the asymptotic bound and checks the figures.
    /// Schweitzer's estimate lets a station run up to `N/(N − 1)` times
    /// past its capacity; no network does: the throughput is capped at the
    /// bottleneck's, the jobs it holds up waiting there.
    pub(super) fn capped(
        &self,
        network: &Network,
        population: usize,
        mut x: f64,
        mut residence: Vec<f64>,
    ) -> Result<(f64, Vec<f64>), QueueError> {
        let net = self.net;
        let n = population as f64;
        let cap = network.bounds(population)?.throughput_upper;
        if x > cap {
            let bottleneck = (0..net.demand.len())
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
        Ok((x, residence))
    }
}

/// Schweitzer's residence time at a single server of demand `d` fed at
/// `rate` (the throughput scaled by `(N − 1)/N`): `d / (1 − rate·d)`, or
/// `None` past saturation.
fn single(d: f64, rate: f64) -> Option<f64> {
    let busy = rate * d;
    (busy < 1.0).then(|| d / (1.0 - busy))
}

/// The correction for the first jobs at a load-dependent station of
/// demand `d` at `n` jobs, generalizing Bolch et al.'s multi-server
/// formula: with `a = α(n)`, the rate under load,
/// `R = D/a·(1 + Q(n−1) + Σ_j j·(a/α(j) − 1)·p(j − 1 | n − 1))`; this is
/// the sum, with the marginals (which only weigh the first jobs, where the
/// rate differs from `a`) those of the station alone fed at `rate`.
/// Schweitzer's `Q(n − 1) = rate·R` solved for `R`:
/// `d/a / (1 − rate·d/a) · (1 + Σ)`.
pub(super) fn correction(service: &Service, ln_alpha: &[f64], d: f64, rate: f64, n: usize) -> f64 {
    if let Service::Multi(c) = service {
        return multi_server(*c, d, rate, n);
    }
    let a = service.alpha(n);
    if let Some(f) = service.flat().filter(|&f| f < n) {
        return flat_tail(service, ln_alpha, f, d, rate, n - 1);
    }
    let p = marginals(ln_alpha, rate, d, n - 1);
    p.iter()
        .enumerate()
        .map(|(i, p)| (i + 1) as f64 * (a / service.alpha(i + 1) - 1.0) * p)
        .sum()
}

/// [`correction`] for `c` servers in `O(c)`: `Σ_{j<c} (c − j)·p(j − 1)`
/// needs the first `c − 1` marginals, and the normalization's tail beyond
/// `c` jobs is a geometric sum.
fn multi_server(c: usize, d: f64, rate: f64, population: usize) -> f64 {
    let cf = c as f64;
    let max = population - 1;
    if rate <= 0.0 || d == 0.0 {
        return cf - 1.0;
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
    (1..c)
        .filter(|&j| j - 1 <= head)
        .map(|j| (cf - j as f64) * (log_p[j - 1] - total).exp())
        .sum()
}

/// [`correction`] in `O(f)` for rates that stay `a = α(f)` from `f ≤ max`
/// jobs on: the terms from `f` on are 0, and the normalization's tail there
/// is geometric, as [`multi_server`]'s.
fn flat_tail(service: &Service, ln_alpha: &[f64], f: usize, d: f64, rate: f64, max: usize) -> f64 {
    let a = service.alpha(f);
    let weight = |j: usize| j as f64 * (a / service.alpha(j) - 1.0);
    if rate <= 0.0 || d == 0.0 {
        return weight(1);
    }
    let ln_load = (rate * d).ln();
    let mut log_p = Vec::with_capacity(f);
    log_p.push(0.0);
    let mut total = 0.0;
    for j in 1..f {
        let next = log_p[j - 1] + ln_load - ln_alpha[j - 1];
        total = log_add(total, next);
        log_p.push(next);
    }
    let ln_rho = ln_load - ln_alpha[f - 1];
    let ln_geometric = ln_geometric_sum(ln_rho, (max - f + 1) as f64);
    total = log_add(total, log_p[f - 1] + ln_geometric);
    (1..f)
        .map(|j| weight(j) * (log_p[j - 1] - total).exp())
        .sum()
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

#[cfg(test)]
mod tests {
    use super::super::{Approximation, Method, Network};

    /// Rates flat from 5 jobs on sum their tail in closed form
    /// ([`super::flat_tail`]); jittered by 1e-14 there, job by job. Past
    /// the Linearizer's shaped populations both agree.
    #[test]
    fn flat_rates_sum_their_tail_in_closed_form() {
        let head = [0.6, 1.5, 2.2, 2.9];
        let net = |jitter: f64| {
            Network::new()
                .load_dependent("ld", 0.5, move |j| match head.get(j - 1) {
                    Some(a) => *a,
                    None => 3.2 * (1.0 + jitter * (j % 2) as f64),
                })
                .queue("q", 0.2)
                .delay("z", 9.0)
        };
        for method in [Method::Linearizer, Method::SchweitzerBard] {
            let settings = Approximation {
                method,
                ..Default::default()
            };
            let flat = net(0.0).mva_approx_with(3_000, &settings).unwrap();
            let jittered = net(1e-14).mva_approx_with(3_000, &settings).unwrap();
            let (x, y) = (flat.throughput(), jittered.throughput());
            assert!((x / y - 1.0).abs() < 1e-9, "{method:?}: X {x} {y}");
            for k in ["ld", "q"] {
                let (p, q) = (
                    flat.queue_length(k).unwrap(),
                    jittered.queue_length(k).unwrap(),
                );
                assert!((p / q - 1.0).abs() < 1e-9, "{method:?} {k}: {p} {q}");
            }
        }
    }

    /// `min(j, 7)` as general rates is 7 servers, at 100,000 jobs too: the
    /// same sums, in `O(c)` a step both.
    #[test]
    fn flat_rates_at_many_jobs_are_the_servers() {
        let net = |general: bool| {
            let net = Network::new().queue("q", 0.1).delay("z", 3.0);
            if general {
                net.load_dependent("s", 1.7, |j| j.min(7) as f64)
            } else {
                net.multi_server("s", 7, 1.7)
            }
        };
        for method in [Method::Linearizer, Method::SchweitzerBard] {
            let settings = Approximation {
                method,
                ..Default::default()
            };
            let general = net(true).mva_approx_with(100_000, &settings).unwrap();
            let servers = net(false).mva_approx_with(100_000, &settings).unwrap();
            let (x, y) = (general.throughput(), servers.throughput());
            assert!((x / y - 1.0).abs() < 1e-12, "{method:?}: X {x} {y}");
            // Saturated: 7 servers' capacity over the demand.
            assert!((x * 1.7 / 7.0 - 1.0).abs() < 1e-8, "{method:?}: X {x}");
            let (p, q) = (
                general.queue_length("s").unwrap(),
                servers.queue_length("s").unwrap(),
            );
            assert!((p / q - 1.0).abs() < 1e-12, "{method:?}: {p} {q}");
        }
    }
}
