//! Small mixed networks for `tests/queue_mixed.rs`: random ones, and
//! their product form summed state by state (the open jobs summed out at
//! each station), an answer independent of the reduction.

use pattern_core::queue::MixedNetwork;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A station of the random networks.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Queue,
    Delay,
    Servers(usize),
}

/// A small network: the kinds, closed classes (population, demands) and
/// open classes (rate, demands), demands by station.
#[derive(Clone, Debug)]
pub struct Net {
    pub kinds: Vec<Kind>,
    pub closed: Vec<(usize, Vec<f64>)>,
    pub open: Vec<(f64, Vec<f64>)>,
}

pub fn station(k: usize) -> String {
    format!("s{k}")
}

impl Net {
    pub fn build(&self) -> MixedNetwork {
        let mut net = MixedNetwork::new();
        for (k, kind) in self.kinds.iter().enumerate() {
            net = match kind {
                Kind::Queue => net.queue(station(k)),
                Kind::Delay => net.delay(station(k)),
                Kind::Servers(c) => net.multi_server(station(k), *c),
            };
        }
        let names: Vec<String> = (0..self.kinds.len()).map(station).collect();
        let demands = |row: &[f64]| -> Vec<(&str, f64)> {
            (row.iter().enumerate())
                .filter(|(_, d)| **d > 0.0)
                .map(|(k, d)| (names[k].as_str(), *d))
                .collect()
        };
        for (c, (n, row)) in self.closed.iter().enumerate() {
            net = net.closed_class(format!("c{c}"), *n, &demands(row));
        }
        for (c, (rate, row)) in self.open.iter().enumerate() {
            net = net.open_class(format!("o{c}"), *rate, &demands(row));
        }
        net
    }

    pub fn alpha(&self, k: usize, j: usize) -> f64 {
        match self.kinds[k] {
            Kind::Queue => 1.0,
            Kind::Delay => j as f64,
            Kind::Servers(c) => j.min(c) as f64,
        }
    }

    /// The open classes' busy servers at station `k`.
    pub fn open_load(&self, k: usize) -> f64 {
        self.open.iter().map(|(rate, row)| rate * row[k]).sum()
    }

    /// Per closed count `M = 0..=most` at station `k`: the open jobs there
    /// summed out, `h(M) = Σ_o (M + o)!/Π_{j ≤ M+o} α(j) · U^o/o!`, and the
    /// mean open jobs given `M`.
    fn open_sums(&self, k: usize, most: usize) -> Vec<(f64, f64)> {
        let u = self.open_load(k);
        (0..=most)
            .map(|m| {
                let mut t: f64 = (1..=m).map(|j| j as f64 / self.alpha(k, j)).product();
                let (mut h, mut mean) = (t, 0.0);
                for o in 1..100_000 {
                    t *= (m + o) as f64 / self.alpha(k, m + o) * u / o as f64;
                    h += t;
                    mean += o as f64 * t;
                    if o > m + 20 && t < 1e-18 * h {
                        break;
                    }
                }
                (h, mean / h)
            })
            .collect()
    }
}

/// The product form summed state by state (the open population summed
/// out at each station): closed throughputs `G(N − 1_c)/G(N)`, closed
/// queue lengths by class and station, open jobs by station.
pub struct Exact {
    pub x: Vec<f64>,
    pub closed: Vec<Vec<f64>>,
    pub open: Vec<f64>,
}

/// The states of one population, walked class by class and station by
/// station, summing `G`, `Σ w·m_kc` and `Σ w·E[o_k]`.
struct Walk<'a> {
    net: &'a Net,
    pop: &'a [usize],
    /// Per station, [`Net::open_sums`].
    open: Vec<Vec<(f64, f64)>>,
    state: Vec<Vec<usize>>,
    g: f64,
    closed: Vec<Vec<f64>>,
    open_jobs: Vec<f64>,
}

fn fact(n: usize) -> f64 {
    (1..=n).map(|j| j as f64).product()
}

impl Walk<'_> {
    /// Places class `c`'s `left` jobs at stations `k..`.
    fn place(&mut self, c: usize, k: usize, left: usize) {
        let k_all = self.net.kinds.len();
        if c == self.pop.len() {
            return self.add();
        }
        let visits = self.net.closed[c].1[k] > 0.0;
        if k + 1 == k_all {
            if left == 0 || visits {
                self.state[c][k] = left;
                let next = self.pop.get(c + 1).copied().unwrap_or(0);
                self.place(c + 1, 0, next);
                self.state[c][k] = 0;
            }
            return;
        }
        for j in 0..=if visits { left } else { 0 } {
            self.state[c][k] = j;
            self.place(c, k + 1, left - j);
        }
        self.state[c][k] = 0;
    }

    /// Adds the state's weight `Π_k Π_c D^m/m! · h_k(M_k)`.
    fn add(&mut self) {
        let k_all = self.net.kinds.len();
        let count = |k: usize| -> usize { self.state.iter().map(|s| s[k]).sum() };
        let mut w = 1.0;
        for k in 0..k_all {
            for (class, s) in self.net.closed.iter().zip(&self.state) {
                w *= class.1[k].powi(s[k] as i32) / fact(s[k]);
            }
            w *= self.open[k][count(k)].0;
        }
        self.g += w;
        for k in 0..k_all {
            self.open_jobs[k] += w * self.open[k][count(k)].1;
            for (row, s) in self.closed.iter_mut().zip(&self.state) {
                row[k] += w * s[k] as f64;
            }
        }
    }
}

/// `G`, `Σ w·m_kc` and `Σ w·E[o_k]` at population `pop`.
fn sums(net: &Net, pop: &[usize]) -> (f64, Vec<Vec<f64>>, Vec<f64>) {
    let k_all = net.kinds.len();
    let most: usize = pop.iter().sum();
    let mut walk = Walk {
        net,
        pop,
        open: (0..k_all).map(|k| net.open_sums(k, most)).collect(),
        state: vec![vec![0; k_all]; pop.len()],
        g: 0.0,
        closed: vec![vec![0.0; k_all]; pop.len()],
        open_jobs: vec![0.0; k_all],
    };
    walk.place(0, 0, pop.first().copied().unwrap_or(0));
    (walk.g, walk.closed, walk.open_jobs)
}

pub fn exact(net: &Net) -> Exact {
    let pop: Vec<usize> = net.closed.iter().map(|(n, _)| *n).collect();
    let (g, q, o) = sums(net, &pop);
    let x = (0..pop.len())
        .map(|c| {
            if pop[c] == 0 {
                return 0.0;
            }
            let mut less = pop.clone();
            less[c] -= 1;
            sums(net, &less).0 / g
        })
        .collect();
    Exact {
        x,
        closed: q
            .iter()
            .map(|row| row.iter().map(|v| v / g).collect())
            .collect(),
        open: o.iter().map(|v| v / g).collect(),
    }
}

/// A random network of 2–3 stations, 1–2 closed classes of 0–3 jobs and
/// 1–2 open classes, the busiest station's open load at most 0.85 per
/// server. With `one_kind` a multi-server station is visited by one
/// kind of class only (where the reduction is exact).
pub fn random_net(rng: &mut ChaCha8Rng, one_kind: bool) -> Net {
    let k_all = rng.random_range(2..=3);
    let mut kinds: Vec<Kind> = (0..k_all)
        .map(|_| match rng.random_range(0..4) {
            0 => Kind::Delay,
            1 => Kind::Servers(rng.random_range(2..=3)),
            _ => Kind::Queue,
        })
        .collect();
    let row = |rng: &mut ChaCha8Rng| -> Vec<f64> {
        let mut r: Vec<f64> = (0..k_all)
            .map(|_| {
                if rng.random_bool(0.25) {
                    0.0
                } else {
                    rng.random_range(0.1..2.0)
                }
            })
            .collect();
        if r.iter().all(|d| *d == 0.0) {
            r[0] = 1.0;
        }
        r
    };
    let mut closed: Vec<(usize, Vec<f64>)> = (0..rng.random_range(1..=2))
        .map(|_| (rng.random_range(0..=3), row(rng)))
        .collect();
    if closed.iter().all(|(n, _)| *n == 0) {
        closed[0].0 = 2;
    }
    let mut open: Vec<(f64, Vec<f64>)> = (0..rng.random_range(1..=2))
        .map(|_| (rng.random_range(0.1..1.0), row(rng)))
        .collect();
    if one_kind {
        kinds[0] = Kind::Queue; // (somewhere both kinds may meet)
        for (k, kind) in kinds.iter().enumerate() {
            if let Kind::Servers(_) = kind {
                let zeroed: &mut dyn Iterator<Item = &mut Vec<f64>> = if rng.random_bool(0.5) {
                    &mut closed.iter_mut().map(|(_, r)| r)
                } else {
                    &mut open.iter_mut().map(|(_, r)| r)
                };
                zeroed.for_each(|r| r[k] = 0.0);
            }
        }
        // A class left with no demand visits the first queue-like station.
        for r in closed
            .iter_mut()
            .map(|(_, r)| r)
            .chain(open.iter_mut().map(|(_, r)| r))
        {
            if r.iter().all(|d| *d == 0.0) {
                r[0] = 0.5;
            }
        }
    }
    let mut net = Net {
        kinds,
        closed,
        open,
    };
    let busiest = (0..k_all)
        .filter(|&k| !matches!(net.kinds[k], Kind::Delay))
        .map(|k| net.open_load(k) / net.alpha(k, usize::MAX))
        .fold(0.0, f64::max);
    let target = rng.random_range(0.2..0.85);
    if busiest > 0.0 {
        net.open
            .iter_mut()
            .for_each(|(rate, _)| *rate *= target / busiest);
    }
    net
}
