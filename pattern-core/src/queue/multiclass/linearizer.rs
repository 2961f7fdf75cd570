//! The Linearizer for several classes (Chandy and Neuse, 1982).
//!
//! Bard-Schweitzer estimates the queue of class `c` at station `k` that a
//! class-`j` job finds on arrival, `Q_k,c(N − 1_j)`, as
//! `(N_c − δ_cj)·Q_k,c(N)/N_c`: each class's share of a station's jobs
//! does not move when one job leaves. The Linearizer measures how far it
//! moves,
//!
//! `F_k,c,j = Q_k,c(N − 1_j)/(N_c − δ_cj) − Q_k,c(N)/N_c`,
//!
//! and estimates `Q_k,c(N − 1_j) ≈ (N_c − δ_cj)·(Q_k,c(N)/N_c + F_k,c,j)`,
//! assuming only that the change is the same one population lower. The
//! core (Bard-Schweitzer's fixed point with `F` added) is solved at `N`
//! and at each `N − 1_j` with the same `F`, `F` measured between them,
//! three times, as in the original; a last core at `N` gives the answer.
//! `C + 1` cores an iteration, each `O(K·C)` a step once its `F` terms,
//! `O(K·C²)`, are summed.
//!
//! A `c`-server station's residence time (Bolch et al.'s form) needs its
//! marginals `p(j | N − 1_j)` for `j < c − 1`. Bard-Schweitzer takes those
//! of the station alone, too wide where the station holds most of a few
//! jobs. Here they are carried as the multi-server Linearizer of
//! Krzesinski, Conway, de Souza e Silva and Muntz does (module `carried`): the
//! core computes them by exact MVA's recursion from its own estimate one
//! job lower, `p(j | n) + ΔP_j,d`, `ΔP` measured like `F`. Over the random
//! networks of `tests/queue_multiclass_linearizer.rs` the largest
//! throughput error falls from 17.0 % (the station alone, with `F`) to
//! 8.8 %. General load-dependent stations keep Bard-Schweitzer's
//! treatment (the station alone), as does Seidmann's decomposition; `F`
//! corrects the jobs found there too (without it, 23.6 % with multi-server
//! stations).
//!
//! With one class it is Chandy and Neuse's two-population scheme, not the
//! single-class solver's (which climbs exact MVA's steps over the last
//! eight populations: several classes would need every vector of that
//! box).

use super::super::QueueError;
use super::fixed::{Fixed, Stop};
use super::network::Active;

/// Chandy and Neuse's outer iterations: `F` measured three times.
const ITERATIONS: usize = 3;

/// The Linearizer's solution at the full population.
pub(super) fn solve<'a>(
    a: &'a Active,
    seidmann: bool,
    settings: Stop,
) -> Result<Fixed<'a>, QueueError> {
    let (c_all, k_all) = (a.width(), a.stations.len());
    let mut top = Fixed::new(a, seidmann, a.population.clone(), true);
    top.solve(settings)?;
    // One class of one job meets no one of its own: F is 0, and with no
    // other class the core is exact.
    let mut lower: Vec<Fixed> = (0..c_all)
        .map(|j| {
            let mut n = a.population.clone();
            n[j] -= 1;
            Fixed::new(a, seidmann, n, true)
        })
        .collect();
    if lower.iter().all(|l| l.population.iter().all(|&n| n == 0)) {
        return Ok(top);
    }
    // f[(i * C + c) * C + j] = F_i,c,j.
    let mut f = vec![0.0; k_all * c_all * c_all];
    for _ in 0..ITERATIONS {
        for low in lower.iter_mut() {
            low.extra = extra(&f, &low.population, k_all);
            low.solve(settings)?;
        }
        measure(&mut f, &top, &lower, k_all);
        measure_marginals(&mut top, &mut lower);
        top.extra = extra(&f, &top.population, k_all);
        top.solve(settings)?;
    }
    Ok(top)
}

/// `F_i,c,j` from the queues at `N` (`top`) and at each `N − 1_j`
/// (`lower[j]`); 0 where class `c` has no job left.
fn measure(f: &mut [f64], top: &Fixed, lower: &[Fixed], k_all: usize) {
    let c_all = top.population.len();
    for (j, low) in lower.iter().enumerate() {
        for i in 0..k_all {
            for c in 0..c_all {
                let (n, m) = (top.population[c] as f64, low.population[c] as f64);
                f[(i * c_all + c) * c_all + j] = if m == 0.0 {
                    0.0
                } else {
                    low.queue[i * c_all + c] / m - top.queue[i * c_all + c] / n
                };
            }
        }
    }
}

/// The jobs the Linearizer adds to those a class-`d` job finds at station
/// `i` at the population `n`: `Σ_c (n − 1_d)_c·F_i,c,d` (Bard-Schweitzer's
/// estimate is the rest).
fn extra(f: &[f64], n: &[usize], k_all: usize) -> Vec<f64> {
    let c_all = n.len();
    let mut out = vec![0.0; k_all * c_all];
    for i in 0..k_all {
        for d in 0..c_all {
            out[i * c_all + d] = (0..c_all)
                .map(|c| {
                    let left = n[c] as f64 - if c == d { 1.0 } else { 0.0 };
                    left.max(0.0) * f[(i * c_all + c) * c_all + d]
                })
                .sum();
        }
    }
    out
}

/// `ΔP_j,d = p(j | n − 1_d) − p(j | n)` from the marginals at `n`
/// (`top`) and at each `n − 1_d` (`lower[d]`), into `top` and every
/// `lower`.
fn measure_marginals(top: &mut Fixed, lower: &mut [Fixed]) {
    let c_all = lower.len();
    for i in 0..top.carried.p.len() {
        let c = top.carried.p[i].len();
        for j in 0..c {
            for (d, low) in lower.iter().enumerate() {
                let delta = low.carried.p[i][j] - top.carried.p[i][j];
                top.carried.shift[i][j * c_all + d] = delta;
            }
        }
        for low in lower.iter_mut() {
            low.carried.shift[i].clone_from(&top.carried.shift[i]);
        }
    }
}
