//! Normalizing constants of the product form, in log space.
//!
//! The exact solver needs, for every load-dependent station `k`, the
//! probability that it is empty, `p_k(0 | n) = G_{-k}(n) / G(n)`, where
//! `G_{-k}` is the normalizing constant of the network without `k`. The
//! textbook recursion takes `p_k(0 | n) = 1 − Σ_{j≥1} p_k(j | n)` instead,
//! and that subtraction loses everything when the station is busy: one
//! 300-server station at N = 400 gives a negative throughput. Here every
//! quantity is a sum of positive terms, kept as logarithms so that `G`
//! (which spans thousands of orders of magnitude) never overflows.

use super::prepared::{Prepared, Service};

/// `ln(e^a + e^b)`, exact for `-inf` arguments.
pub(crate) fn log_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

/// `ln G(n)` for `n = 0..=population` of the network made of the stations
/// for which `keep(k)` holds. `G(0) = 1`.
pub(crate) fn log_constants(
    net: &Prepared,
    population: usize,
    keep: impl Fn(usize) -> bool,
) -> Vec<f64> {
    let fixed: Vec<usize> = (0..net.demand.len())
        .filter(|&k| keep(k) && !net.service[k].load_dependent())
        .collect();
    let mut log_g = load_independent(net, &fixed, population);
    for k in (0..net.demand.len()).filter(|&k| keep(k) && net.service[k].load_dependent()) {
        let d = net.demand[k];
        if d == 0.0 {
            continue; // F = (1, 0, 0, ..): the identity of convolution.
        }
        log_g = match &net.service[k] {
            Service::Multi(c) => convolve_multi(&log_g, d, *c),
            service => convolve(&log_g, &log_factors(d, population, |j| service.alpha(j))),
        };
    }
    log_g
}

/// `ln G` of queues and delays alone, by the MVA recursion itself:
/// `G(n) = G(n − 1) / X(n)`, every step a ratio of positive numbers.
fn load_independent(net: &Prepared, stations: &[usize], population: usize) -> Vec<f64> {
    let mut log_g = Vec::with_capacity(population + 1);
    log_g.push(0.0);
    let mut queue = vec![0.0; stations.len()];
    let mut residence = vec![0.0; stations.len()];
    for n in 1..=population {
        let mut cycle = 0.0;
        for (i, &k) in stations.iter().enumerate() {
            let d = net.demand[k];
            residence[i] = match net.service[k] {
                Service::Delay => d,
                _ => d * (1.0 + queue[i]),
            };
            cycle += residence[i];
        }
        if cycle == 0.0 {
            // No station can hold a job (or there is none): G(n) = 0.
            log_g.resize(population + 1, f64::NEG_INFINITY);
            return log_g;
        }
        let x = n as f64 / cycle;
        for (q, r) in queue.iter_mut().zip(&residence) {
            *q = x * r;
        }
        log_g.push(log_g[n - 1] - x.ln());
    }
    log_g
}

/// `ln F(j) = ln(D^j / Π_{i≤j} α(i))` for `j = 0..=population`.
fn log_factors(d: f64, population: usize, alpha: impl Fn(usize) -> f64) -> Vec<f64> {
    let ln_d = d.ln();
    let mut f = Vec::with_capacity(population + 1);
    f.push(0.0);
    for j in 1..=population {
        f.push(f[j - 1] + ln_d - alpha(j).ln());
    }
    f
}

/// `ln (A ⊛ F)(n) = ln Σ_j A(n − j)·F(j)`, all terms positive.
fn convolve(a: &[f64], f: &[f64]) -> Vec<f64> {
    (0..a.len())
        .map(|n| log_sum((0..=n).map(|j| a[n - j] + f[j])))
        .collect()
}

/// `ln Σ e^{t}` over the terms, scaled by the largest.
fn log_sum(terms: impl Iterator<Item = f64> + Clone) -> f64 {
    let max = terms.clone().fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        return max;
    }
    max + terms.map(|t| (t - max).exp()).sum::<f64>().ln()
}

/// Convolution with a `c`-server station in `O(N·c)`: beyond `c` jobs its
/// factors grow geometrically (`F(j + 1) = F(j)·D/c`), so the tail of the
/// sum follows `H(n) = F(c + 1)·A(n − c − 1) + (D/c)·H(n − 1)`.
fn convolve_multi(a: &[f64], d: f64, c: usize) -> Vec<f64> {
    let population = a.len() - 1;
    let head = log_factors(d, c.min(population) + 1, |j| j.min(c) as f64);
    let ln_step = (d / c as f64).ln();
    let mut tail = f64::NEG_INFINITY;
    (0..=population)
        .map(|n| {
            if n > c {
                tail = log_add(head[c + 1] + a[n - c - 1], ln_step + tail);
            }
            let direct = (0..=n.min(c)).map(|j| a[n - j] + head[j]);
            log_add(log_sum(direct), tail)
        })
        .collect()
}

/// `ln(ρ + ρ² + … + ρ^terms)` from `ln ρ`, without subtracting nearly
/// equal numbers: the geometric tail of a multi-server station's marginals.
pub(crate) fn ln_geometric_sum(ln_rho: f64, terms: f64) -> f64 {
    if ln_rho.abs() < 1e-12 {
        terms.ln()
    } else if ln_rho < 0.0 {
        ln_rho + (-(terms * ln_rho).exp_m1()).ln() - (-ln_rho.exp_m1()).ln()
    } else {
        ln_rho + terms * ln_rho + (-(-terms * ln_rho).exp()).ln_1p() - ln_rho.exp_m1().ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(demand: Vec<f64>, service: Vec<Service>) -> Prepared {
        let k = demand.len();
        Prepared {
            demand,
            service,
            servers: vec![1.0; k],
            delay: vec![false; k],
        }
    }

    /// `G(N)` by enumerating every state of two stations.
    fn brute_two(f1: impl Fn(usize) -> f64, f2: impl Fn(usize) -> f64, n: usize) -> f64 {
        (0..=n).map(|j| f1(j) * f2(n - j)).sum()
    }

    #[test]
    fn queue_and_delay_match_enumeration() {
        let net = prepared(vec![2.0, 3.0], vec![Service::Queue, Service::Delay]);
        let g = log_constants(&net, 12, |_| true);
        let fact = |j: usize| (1..=j).map(|i| i as f64).product::<f64>();
        for (n, g) in g.iter().enumerate() {
            let want = brute_two(
                |j| 2f64.powi(j as i32),
                |j| 3f64.powi(j as i32) / fact(j),
                n,
            );
            assert!((g.exp() - want).abs() <= 1e-12 * want, "n = {n}");
        }
    }

    #[test]
    fn multi_server_convolution_matches_the_general_one() {
        let base = prepared(vec![0.7, 1.3], vec![Service::Queue, Service::Multi(4)]);
        let general = prepared(
            vec![0.7, 1.3],
            vec![
                Service::Queue,
                Service::General((1..=30).map(|j: usize| j.min(4) as f64).collect()),
            ],
        );
        let a = log_constants(&base, 30, |_| true);
        let b = log_constants(&general, 30, |_| true);
        for (n, (a, b)) in a.iter().zip(&b).enumerate() {
            assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0), "n = {n}");
        }
    }

    #[test]
    fn a_station_of_zero_demand_changes_nothing() {
        let net = prepared(vec![1.0, 0.0], vec![Service::Queue, Service::Multi(3)]);
        let g = log_constants(&net, 5, |_| true);
        for (n, v) in g.iter().enumerate() {
            assert_eq!(*v, 0.0, "G({n}) = 1^n");
        }
    }
}
