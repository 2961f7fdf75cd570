//! The marginals of `c`-server stations the multi-class Linearizer carries
//! from one population to the next (module `linearizer`).

use super::super::prepared::Service;
use super::network::Active;

/// The most servers whose marginals the Linearizer carries (`c` numbers a
/// station; the recursion's terms grow as `load^j/j!`); beyond, the
/// station alone as in Bard-Schweitzer.
const MAX_CARRIED: usize = 64;

/// The marginals `p(j | n)`, `j < c`, of each `c`-server station, carried
/// from one iteration of the core to the next (the multi-server Linearizer
/// of Krzesinski, Conway, de Souza e Silva and Muntz): a class-`d` job
/// finds `p(j | n − 1_d) ≈ p(j | n) + ΔP_j,d`, `ΔP` measured like `F`.
#[derive(Default)]
pub(super) struct Carried {
    /// Per station, `p(j | n)` for `j < c`; empty where not carried.
    pub p: Vec<Vec<f64>>,
    /// Per station, `ΔP_j,d` at `[j * C + d]`.
    pub shift: Vec<Vec<f64>>,
}

impl Carried {
    /// Every `c`-server station's marginals, first those `alone(i)` gives
    /// (`p(0..c)`, or fewer where fewer jobs visit).
    pub(super) fn new(a: &Active, alone: impl Fn(usize) -> Vec<f64>) -> Self {
        let c_all = a.width();
        let mut out = Self::default();
        for (i, service) in a.service.iter().enumerate() {
            let (p, shift) = match service {
                Service::Multi(c) if *c <= MAX_CARRIED => {
                    let mut p = alone(i);
                    p.resize(*c, 0.0);
                    (p, vec![0.0; c * c_all])
                }
                _ => (Vec::new(), Vec::new()),
            };
            out.p.push(p);
            out.shift.push(shift);
        }
        out
    }

    /// Whether station `i`'s marginals are carried.
    pub(super) fn has(&self, i: usize) -> bool {
        self.p.get(i).is_some_and(|p| !p.is_empty())
    }

    /// What Bolch et al.'s residence time at `c` servers adds to the jobs a
    /// class-`d` job finds: `Σ_{j<c−1} (c − 1 − j)·p(j | n − 1_d)`.
    pub(super) fn waiting(&self, i: usize, d: usize) -> f64 {
        let (p, shift) = (&self.p[i], &self.shift[i]);
        let (c, c_all) = (p.len(), shift.len() / p.len());
        (0..c - 1)
            .map(|j| (c - 1 - j) as f64 * (p[j] + shift[j * c_all + d]).max(0.0))
            .sum()
    }

    /// The marginals at `n` from the throughputs `x` and those at each
    /// `n − 1_d`: `p(j) = Σ_d x_d·D_d·p(j − 1 | n − 1_d)/j` for `0 < j < c`,
    /// linear in `p(0)`, which follows from the servers' mean idleness,
    /// `Σ_{j<c} (c − j)·p(j) = c − Σ_d x_d·D_d`. Returns the largest change.
    pub(super) fn update(&mut self, a: &Active, x: &[f64]) -> f64 {
        let c_all = a.width();
        let mut moved: f64 = 0.0;
        for (i, (p, shift)) in self.p.iter_mut().zip(&self.shift).enumerate() {
            let c = p.len();
            if c == 0 {
                continue;
            }
            let load: f64 = (0..c_all).map(|d| x[d] * a.demand(i, d)).sum();
            // p(j) = alpha[j]·p(0) + beta[j].
            let (mut alpha, mut beta) = (vec![1.0; c], vec![0.0; c]);
            for j in 1..c {
                let shifted: f64 = (0..c_all)
                    .map(|d| x[d] * a.demand(i, d) * shift[(j - 1) * c_all + d])
                    .sum();
                alpha[j] = alpha[j - 1] * load / j as f64;
                beta[j] = (beta[j - 1] * load + shifted) / j as f64;
            }
            let weight = |v: &[f64]| -> f64 { (0..c).map(|j| (c - j) as f64 * v[j]).sum() };
            let p0 = ((c as f64 - load - weight(&beta)) / weight(&alpha)).clamp(0.0, 1.0);
            for j in 0..c {
                let next = (alpha[j] * p0 + beta[j]).clamp(0.0, 1.0);
                moved = moved.max((next - p[j]).abs());
                p[j] = next;
            }
        }
        moved
    }
}
