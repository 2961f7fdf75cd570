//! The Linearizer (Chandy and Neuse, 1982) for one class.
//!
//! Schweitzer's estimate of the queue a job finds on arrival,
//! `Q_k(n − 1) ≈ (n − 1)·Q_k(n)/n`, assumes that a station's share of the
//! jobs does not change with the population. The Linearizer measures the
//! change instead, `F_k = Q_k(n − 1)/(n − 1) − Q_k(n)/n`, and estimates
//! `Q_k(n − 1) ≈ (n − 1)·(Q_k(n)/n + F_k)`, assuming only that the change
//! is the same one population lower. Chandy and Neuse solve Schweitzer's
//! step so corrected at `N` and at `N − 1`, measure `F` between the two,
//! and iterate three times. At their fixed point the step at `N` is
//! exactly MVA's step from the solution at `N − 1`; here the corrected step
//! is solved at `b = N − L + 1` ([`LEVELS`] `= L` populations) and exact
//! MVA's steps climb from it to `N`, `F` measured between `b` and `b + 1`:
//! Chandy and Neuse's scheme is `L = 2`. A larger `L` takes the estimate
//! further from `N` for a few more steps (each `O(K)`); over the random
//! networks of `tests/queue_approx.rs` the largest throughput error on
//! queues and delays is 1.56 % with `L = 2` (0.91 % iterated to
//! convergence), 0.90 % with `L = 4`, 0.28 % with `L = 8`. Three outer
//! iterations, as in the original: iterated to convergence the estimate
//! can drift where two stations compete for the jobs.
//!
//! A load-dependent station's step needs its marginals at `n − 1`. The
//! exact ones are `p(j) ∝ D^j/Π_{i≤j} α(i) · G_c(n − 1 − j)`, `G_c` the
//! normalizing constants of the rest of the network (its complement):
//! `G_c(t − 1)/G_c(t) = X_c(t)` is the complement's throughput with `t`
//! jobs. Schweitzer-Bard takes `X_c` constant (the station alone fed at the
//! throughput: Poisson-like marginals). With many of the jobs at the
//! station the complement slows as it empties, and the marginals are
//! narrower: alone, the station holds every job (a 7-server station at
//! N = 8, where Schweitzer-Bard errs by −17.5 %). Here
//! `X_c(t) = t / (z + t/cap)`, `cap` the complement's capacity (its slowest
//! station's servers over demand): a delay `z` and a queue in one, exact
//! for a complement of delays (`cap` infinite) and of one queue (`z = 0`);
//! `z` is fitted so that the marginals' mean at `n − 2` is the station's
//! queue there (a mean above the one at `z = 0` takes the station alone fed
//! faster than `cap`), and MVA's step from them at the throughput at
//! `n − 1` gives the marginals at `n − 1`: their mean is the queue at
//! `n − 1` and the station serves at the throughput, as exact MVA's do.
//! Up to [`MAX_SHAPED`] jobs (`O(n)` a fit); beyond, the marginals of the
//! station alone fed at the throughput at `n − 1` (`O(c)` for `c`
//! servers). At the bottom population, Schweitzer-Bard's correction,
//! without `F` for these stations: the bias of the station alone's
//! marginals, measured into `F`, would come back through them.

use super::QueueError;
use super::prepared::Service;
use super::schweitzer::{Model, Treat, correction};

/// The populations the Linearizer solves per outer iteration: Schweitzer's
/// step corrected by `F` at `N − LEVELS + 1`, exact MVA steps above it.
pub(super) const LEVELS: usize = 8;

/// The outer iterations, Chandy and Neuse's three: the bottom population
/// solved with `F = 0`, then twice with the `F` measured (fewer if the
/// throughput at `N` moves by no more than the tolerance).
pub(super) const ITERATIONS: usize = 3;

/// The most jobs over which a station's marginals are shaped to its
/// complement (`O(n)` per station and step); beyond, the station alone.
pub(super) const MAX_SHAPED: usize = 1024;

/// The Linearizer at `population` jobs (at least 1): its throughput and
/// residence times. `steps` counts the bisection steps of every core, at
/// most the model's `max_steps`.
pub(super) fn solve(
    model: &Model,
    population: usize,
    steps: &mut usize,
) -> Result<(f64, Vec<f64>), QueueError> {
    let k_all = model.net.demand.len();
    let bottom = population - (LEVELS.min(population) - 1);
    let b = bottom as f64;
    let caps = Capacities::new(model, population);
    // (b − 1)·F_k at the bottom, the change of station k's share of the
    // jobs measured between the bottom and the population above it.
    let mut extra = vec![0.0; k_all];
    let mut last = f64::NAN;
    // Each shaped station's last parameter: the next fit starts there.
    let mut warm = vec![None; k_all];
    let mut iteration = 0;
    loop {
        iteration += 1;
        let (x, residence) = model.core(bottom, &extra, steps)?;
        let q_bottom = queues(model, x, &residence);
        // The Linearizer's estimate one population below the bottom.
        let mut q_before: Vec<f64> = (0..k_all)
            .map(|k| ((b - 1.0) / b * q_bottom[k] + extra[k]).clamp(0.0, b - 1.0))
            .collect();
        let (mut x, mut residence, mut q) = (x, residence, q_bottom.clone());
        let mut q_above = Vec::new();
        for m in bottom + 1..=population {
            let queues_at = Queues {
                now: &q,
                before: &q_before,
            };
            (x, residence) = step(model, &caps, m, x, queues_at, &mut warm)?;
            q_before = std::mem::replace(&mut q, queues(model, x, &residence));
            if m == bottom + 1 {
                q_above.clone_from(&q);
            }
        }
        // From one job (no one to meet) every step is exact MVA's: no F.
        if bottom == 1 || iteration == ITERATIONS || ((x - last) / x).abs() <= model.tolerance {
            return Ok((x, residence));
        }
        last = x;
        for k in 0..k_all {
            // Not for load-dependent stations (see the module's doc).
            if model.treat[k] != Treat::Marginal {
                extra[k] = (b - 1.0) * (q_bottom[k] / b - q_above[k] / (b + 1.0));
            }
        }
    }
}

/// The queue that drives each station's residence time: all its jobs, but
/// those in the delay of Seidmann's decomposition.
fn queues(model: &Model, x: f64, residence: &[f64]) -> Vec<f64> {
    residence
        .iter()
        .zip(&model.treat)
        .zip(&model.net.demand)
        .map(|((r, t), d)| match t {
            Treat::Seidmann(c) => x * (r - d * (c - 1.0) / c).max(0.0),
            _ => x * r,
        })
        .collect()
}

/// The queues at `m − 1` and `m − 2` jobs.
#[derive(Clone, Copy)]
struct Queues<'a> {
    now: &'a [f64],
    before: &'a [f64],
}

/// Exact MVA's step from `m − 1` jobs (throughput `x`) to `m`: the
/// residence times from the queues at `m − 1`, and from the marginals at
/// `m − 1` for load-dependent stations (exact MVA's step from marginals at
/// `m − 2` shaped to the queues there, `warm` the shapes' last parameters),
/// and the throughput.
fn step(
    model: &Model,
    caps: &Capacities,
    m: usize,
    x: f64,
    q: Queues,
    warm: &mut [Option<(Family, f64)>],
) -> Result<(f64, Vec<f64>), QueueError> {
    let net = model.net;
    let mut residence = Vec::with_capacity(net.demand.len());
    for (k, warm) in warm.iter_mut().enumerate() {
        let d = net.demand[k];
        residence.push(match (model.treat[k], &net.service[k]) {
            (Treat::Queue, _) => d * (1.0 + q.now[k]),
            (Treat::Delay, _) => d,
            (Treat::Seidmann(c), _) => d / c * (1.0 + q.now[k]) + d * (c - 1.0) / c,
            (_, Service::Multi(c)) if *c >= m => d,
            (_, service) if m > MAX_SHAPED => {
                let a = service.alpha(m);
                let more = correction(service, &model.ln_alpha[k], d, x, m);
                (d / a * (1.0 + q.now[k] + more)).max(model.least[k])
            }
            (_, service) => {
                let shape = Shape {
                    service,
                    ln_alpha: &model.ln_alpha[k],
                    d,
                    cap: caps.without(k),
                    jobs: m - 2,
                };
                shape.residence_after(q.before[k], x, model.tolerance, warm)
            }
        });
    }
    let x = m as f64 / residence.iter().sum::<f64>();
    if !(x.is_finite() && x > 0.0) {
        return Err(QueueError::NonFinite {
            quantity: "throughput",
            value: x,
        });
    }
    Ok((x, residence))
}

/// Each station's capacity (the most jobs it serves per unit of time:
/// servers over demand, `max α/D` for a general one, infinite for a delay
/// or a demand of 0), kept as the two smallest: the capacity of the rest
/// of the network without any one station is the smallest of the others.
struct Capacities {
    least: (f64, usize),
    second: f64,
}

impl Capacities {
    fn new(model: &Model, population: usize) -> Self {
        let net = model.net;
        let mut least = (f64::INFINITY, usize::MAX);
        let mut second = f64::INFINITY;
        for k in 0..net.demand.len() {
            let d = net.demand[k];
            let servers = match (&net.service[k], model.treat[k]) {
                (_, Treat::Delay) => f64::INFINITY,
                (Service::General(alpha), _) => {
                    alpha[..population].iter().fold(0.0, |a, &b| b.max(a))
                }
                _ => net.servers[k],
            };
            let cap = if d > 0.0 { servers / d } else { f64::INFINITY };
            if cap < least.0 {
                second = least.0;
                least = (cap, k);
            } else if cap < second {
                second = cap;
            }
        }
        Self { least, second }
    }

    /// The capacity of the network without station `k`.
    fn without(&self, k: usize) -> f64 {
        if self.least.1 == k {
            self.second
        } else {
            self.least.0
        }
    }
}

/// A load-dependent station's marginals at `jobs` jobs in the network:
/// `p(j) ∝ Π_{i≤j} D·X_c(jobs − i + 1)/α(i)`, the complement's throughput
/// `X_c(t) = t/(z + t/cap)` (`z = e^u`), or `e^u` where the mean must be
/// above its value at `z = 0`.
struct Shape<'a> {
    service: &'a Service,
    ln_alpha: &'a [f64],
    d: f64,
    cap: f64,
    jobs: usize,
}

/// Which family the parameter `u` indexes.
#[derive(Clone, Copy, PartialEq)]
enum Family {
    /// `X_c(t) = t/(e^u + t/cap)`: the mean falls as `u` grows.
    Complement,
    /// `X_c = e^u`, at least `cap`: the mean grows with `u`.
    Alone,
}

impl Shape<'_> {
    fn ln_alpha(&self, j: usize) -> f64 {
        match self.service {
            Service::General(_) => self.ln_alpha[j - 1],
            service => service.alpha(j).ln(),
        }
    }

    /// The mean of the marginals `p`, and the sums exact MVA's step to
    /// `jobs + 1` and `jobs + 2` jobs needs: `S1 = Σ_i D/α(i + 1)·p(i)` and
    /// `S2 = Σ_i (i + 2)·D²/(α(i + 1)·α(i + 2))·p(i)`. One pass, the sums
    /// rescaled whenever a larger term appears (no subtraction).
    fn moments(&self, family: Family, u: f64) -> (f64, f64, f64) {
        let ln_d = self.d.ln();
        let (z, inverse_cap) = (u.exp(), 1.0 / self.cap);
        let (mut lw, mut top) = (0.0f64, 0.0f64);
        let (mut total, mut mean, mut s1, mut s2) = (0.0, 0.0, 0.0, 0.0);
        for j in 0..=self.jobs {
            if j > 0 {
                let ln_x = match family {
                    Family::Complement => {
                        let t = (self.jobs - j + 1) as f64;
                        -(z / t + inverse_cap).ln()
                    }
                    Family::Alone => u,
                };
                lw += ln_d + ln_x - self.ln_alpha(j);
            }
            if lw > top {
                let scale = (top - lw).exp();
                (total, mean) = (total * scale, mean * scale);
                (s1, s2) = (s1 * scale, s2 * scale);
                top = lw;
            }
            let w = (lw - top).exp();
            total += w;
            mean += j as f64 * w;
            let first = self.d / self.service.alpha(j + 1);
            s1 += first * w;
            s2 += (j + 2) as f64 * first * self.d / self.service.alpha(j + 2) * w;
        }
        (mean / total, s1 / total, s2 / total)
    }

    /// The residence time at `jobs + 2` jobs: exact MVA's steps from the
    /// marginals at `jobs` whose mean is `q`, at the throughput `x` at
    /// `jobs + 1`: `p'(j) = x·D/α(j)·p(j − 1)` for `j ≥ 1` (so the station
    /// serves at `x`, and holds on average `x·R`, as MVA requires), `p'(0)`
    /// the rest (none where the station cannot serve `x`), then
    /// `R = Σ_j j·D/α(j)·p'(j − 1)`.
    fn residence_after(
        &self,
        q: f64,
        x: f64,
        tolerance: f64,
        warm: &mut Option<(Family, f64)>,
    ) -> f64 {
        let (_, s1, s2) = self.marginals(q, tolerance, warm);
        let busy = x * s1;
        if busy >= 1.0 {
            s2 / s1
        } else {
            self.d / self.service.alpha(1) * (1.0 - busy) + x * s2
        }
    }

    /// [`Shape::moments`] of `j` jobs for certain.
    fn point(&self, j: usize) -> (f64, f64, f64) {
        let first = self.d / self.service.alpha(j + 1);
        let second = (j + 2) as f64 * first * self.d / self.service.alpha(j + 2);
        (j as f64, first, second)
    }

    /// [`Shape::moments`] of the marginals at `jobs` jobs whose mean is
    /// `q`, the parameter searched from `warm` (the last one found, kept).
    fn marginals(
        &self,
        q: f64,
        tolerance: f64,
        warm: &mut Option<(Family, f64)>,
    ) -> (f64, f64, f64) {
        let n = self.jobs as f64;
        if self.jobs == 0 || q <= tolerance * n.max(1.0) {
            return self.point(0);
        }
        if q >= n * (1.0 - tolerance) {
            return self.point(self.jobs);
        }
        let ln_cap = self.cap.ln();
        let (family, floor) = if self.cap.is_finite() && self.moments(Family::Alone, ln_cap).0 < q {
            (Family::Alone, ln_cap)
        } else {
            (Family::Complement, f64::NEG_INFINITY)
        };
        let (start, width) = match *warm {
            Some((last, u)) if last == family => (u.max(floor), 0.05),
            // A binomial's mean, `n·D/(D + z)`: the complement a delay.
            _ if family == Family::Complement => ((self.d * (n - q) / q).ln(), 1.0),
            _ => (floor, 1.0),
        };
        let sign = if family == Family::Alone { 1.0 } else { -1.0 };
        let root = Root {
            floor,
            width,
            tolerance: tolerance * n.max(1.0),
        };
        let u = root.solve(|u| sign * (self.moments(family, u).0 - q), start);
        *warm = Some((family, u));
        self.moments(family, u)
    }
}

/// Where [`Root::solve`] looks.
struct Root {
    /// The root is not below it (`f(floor) <= 0`).
    floor: f64,
    /// The first step of the bracket's search.
    width: f64,
    /// `|f|` small enough.
    tolerance: f64,
}

impl Root {
    /// The root of `f`, increasing, near `start`: the bracket doubles its
    /// width until `f` changes sign, then Illinois steps; within `e^±700`.
    fn solve(&self, f: impl Fn(f64) -> f64, start: f64) -> f64 {
        const LIMIT: f64 = 700.0;
        let floor = self.floor.max(-LIMIT);
        let start = start.clamp(floor, LIMIT);
        let f_start = f(start);
        if f_start.abs() <= self.tolerance {
            return start;
        }
        let (mut lo, mut hi, mut f_lo, mut f_hi) = (start, start, f_start, f_start);
        let mut width = self.width;
        while f_lo > 0.0 && lo > floor {
            (hi, f_hi) = (lo, f_lo);
            lo = (lo - width).max(floor);
            f_lo = f(lo);
            width *= 2.0;
        }
        while f_hi < 0.0 && hi < LIMIT {
            (lo, f_lo) = (hi, f_hi);
            hi = (hi + width).min(LIMIT);
            f_hi = f(hi);
            width *= 2.0;
        }
        if f_lo >= 0.0 {
            return lo;
        }
        if f_hi <= 0.0 {
            return hi;
        }
        self.illinois(f, (lo, f_lo), (hi, f_hi))
    }

    /// Regula falsi on the bracket, a retained end's value halved.
    fn illinois(&self, f: impl Fn(f64) -> f64, lo: (f64, f64), hi: (f64, f64)) -> f64 {
        let ((mut lo, mut f_lo), (mut hi, mut f_hi)) = (lo, hi);
        let mut kept = 0i8;
        for _ in 0..200 {
            let mid = {
                let m = hi - f_hi * (hi - lo) / (f_hi - f_lo);
                if m > lo && m < hi { m } else { 0.5 * (lo + hi) }
            };
            let v = f(mid);
            if v.abs() <= self.tolerance || hi - lo <= 1e-13 * (1.0 + mid.abs()) {
                return mid;
            }
            if v < 0.0 {
                (lo, f_lo) = (mid, v);
                if kept < 0 {
                    f_hi /= 2.0;
                }
                kept = -1;
            } else {
                (hi, f_hi) = (mid, v);
                if kept > 0 {
                    f_lo /= 2.0;
                }
                kept = 1;
            }
        }
        0.5 * (lo + hi)
    }
}
