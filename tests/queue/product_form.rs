//! The product form by brute force: every state of a small closed network
//! enumerated and weighed, an answer independent of any MVA recursion.

use pattern_core::queue::{Network, StationKind};

/// Throughput and per-station mean queue lengths and busy probabilities at
/// population `n`, from `π(n_1..n_K) ∝ Π_k D_k^{n_k} / Π_{j≤n_k} α_k(j)`.
pub struct Exact {
    pub throughput: f64,
    pub queue: Vec<f64>,
    pub busy: Vec<f64>,
}

fn log_factor(net: &Network, k: usize, jobs: usize) -> f64 {
    let s = &net.stations()[k];
    if s.demand() == 0.0 {
        return if jobs == 0 { 0.0 } else { f64::NEG_INFINITY };
    }
    (1..=jobs).map(|j| s.demand().ln() - s.rate(j).ln()).sum()
}

/// `ln G(n)` and the state sums, by enumerating the compositions of `n`.
fn enumerate(net: &Network, n: usize, visit: &mut impl FnMut(&[usize], f64)) {
    let k = net.stations().len();
    let mut state = vec![0; k];
    fn rec(
        net: &Network,
        i: usize,
        left: usize,
        state: &mut Vec<usize>,
        visit: &mut impl FnMut(&[usize], f64),
    ) {
        if i + 1 == state.len() {
            state[i] = left;
            let w: f64 = (0..state.len()).map(|k| log_factor(net, k, state[k])).sum();
            visit(state, w);
            return;
        }
        for j in 0..=left {
            state[i] = j;
            rec(net, i + 1, left - j, state, visit);
        }
    }
    rec(net, 0, n, &mut state, visit);
}

fn log_g(net: &Network, n: usize) -> f64 {
    let mut terms = Vec::new();
    enumerate(net, n, &mut |_, w| terms.push(w));
    let max = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    max + terms.iter().map(|t| (t - max).exp()).sum::<f64>().ln()
}

pub fn solve(net: &Network, n: usize) -> Exact {
    let k = net.stations().len();
    let g = log_g(net, n);
    let mut queue = vec![0.0; k];
    let mut busy = vec![0.0; k];
    enumerate(net, n, &mut |state, w| {
        let p = (w - g).exp();
        for i in 0..k {
            queue[i] += state[i] as f64 * p;
            if state[i] > 0 {
                busy[i] += p;
            }
        }
    });
    Exact {
        throughput: (log_g(net, n - 1) - g).exp(),
        queue,
        busy,
    }
}

/// The utilization a solution reports for station `k`, from the exact
/// state probabilities.
pub fn utilization(net: &Network, exact: &Exact, k: usize) -> f64 {
    let s = &net.stations()[k];
    match s.kind() {
        StationKind::MultiServer { servers } => exact.throughput * s.demand() / servers as f64,
        StationKind::LoadDependent => exact.busy[k],
        _ => exact.throughput * s.demand(),
    }
}
