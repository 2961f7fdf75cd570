//! Exact multi-class MVA over the population vectors (Reiser and
//! Lavenberg), with queues, delays, multi-server and general
//! load-dependent stations.
//!
//! For every vector `n ≤ N` (class by class), in mixed-radix order: class
//! `c`'s residence times from the figures at `n − 1_c`, its throughput
//! `X_c(n) = n_c / Σ_k R_k,c(n)`, then the queue lengths at `n`. A
//! load-dependent station needs its marginals `p_k(j | n − 1_c)`; those
//! with `j ≥ 1` follow from
//! `p_k(j | n) = Σ_c X_c(n)·D_k,c/α_k(j) · p_k(j − 1 | n − 1_c)`, and the
//! probability that it is empty is `G_{−k}(n)/G(n)`, never
//! `1 − Σ_{j≥1} p_k(j | n)`. That ratio is computed by the same kind of
//! recursion: with `X_c(n) = G(n − 1_c)/G(n)`, the network of queues and
//! delays alone over `G(n)` follows from its own MVA, and each other
//! load-dependent station `k'` is convolved in by
//! `B_j(n) = Σ_c X_c(n)·D_k',c/α_k'(j) · B_j−1(n − 1_c)` (`B_j` the terms
//! with `j` jobs at `k'`, over `G(n)`; beyond `c` servers the terms are
//! summed as one tail). Every step adds or multiplies positive numbers,
//! and every quantity is a ratio to `G(n)`, at most 1: nothing overflows
//! and no probability is lost.
//!
//! Memory: each step looks back at most one stride of the outermost class
//! (the one of the largest population), so only that many vectors are
//! kept, in a ring.

use super::super::QueueError;
use super::super::prepared::Service;
use super::network::{Active, MultiClassNetwork};
use super::solution::{MultiClassSolution, Raw};

/// The most steps [`MultiClassNetwork::mva`] takes, as
/// [`MultiClassNetwork::exact_steps`] counts them: about a second (measured
/// in docs/queueing.md). [`MultiClassNetwork::mva_within`] sets another
/// limit; [`MultiClassNetwork::mva_approx`] needs none.
pub const MAX_MULTICLASS_STEPS: f64 = 1e8;

impl MultiClassNetwork {
    /// Exact multi-class MVA at the classes' populations, refused with
    /// [`QueueError::BeyondExactClasses`] before it starts past
    /// [`MAX_MULTICLASS_STEPS`].
    ///
    /// Time: [`MultiClassNetwork::exact_steps`], about
    /// `∏_c (N_c + 1) · C · K` for queues and delays, plus `c` per
    /// `c`-server station and `N` per general load-dependent one, and
    /// again once per other load-dependent station (their complements).
    pub fn mva(&self) -> Result<MultiClassSolution, QueueError> {
        self.mva_within(MAX_MULTICLASS_STEPS)
    }

    /// Exact multi-class MVA, refused with
    /// [`QueueError::BeyondExactClasses`] before it starts if it would
    /// take more than `max_steps` steps (as
    /// [`MultiClassNetwork::exact_steps`] counts them).
    pub fn mva_within(&self, max_steps: f64) -> Result<MultiClassSolution, QueueError> {
        let model = self.model()?;
        let active = model.active();
        let layout = Layout::new(&active);
        let steps = layout.steps(&active);
        if steps > max_steps || max_steps.is_nan() {
            return Err(QueueError::BeyondExactClasses {
                populations: format!("{:?}", model.population),
                vectors: vectors(&active.population),
                steps,
                limit: max_steps,
            });
        }
        let mut solver = Solver::new(&active, layout)?;
        let last = solver.run()?;
        let busy = |i: usize| {
            let (off, len) = solver.layout.marginal[i];
            solver.ring[last + off + 1..last + off + len].iter().sum()
        };
        let raw = Raw {
            x: &solver.x,
            residence: &solver.residence,
            busy: &busy,
        };
        Ok(MultiClassSolution::new(&model, &active, raw))
    }

    /// The steps exact MVA would take: the population vectors
    /// `∏_c (N_c + 1)` times the classes `C` times the figures kept per
    /// vector — a queue length per station, `c − 1` marginals per
    /// `c`-server station, `N + 1` per general load-dependent one, and
    /// when there are load-dependent stations the queues and delays alone
    /// again and each such station's complement (`c + 1` or `N + 1` per
    /// other load-dependent station).
    pub fn exact_steps(&self) -> Result<f64, QueueError> {
        let active = self.model()?.active();
        Ok(Layout::new(&active).steps(&active))
    }
}

/// `∏_c (N_c + 1)`, as a float (it may not fit a `usize`).
fn vectors(population: &[usize]) -> f64 {
    population.iter().map(|&n| n as f64 + 1.0).product()
}

/// Where each figure lives in a row of the ring (one row per vector).
struct Layout {
    /// Slots per row. The first `K` hold the stations' queue lengths.
    width: usize,
    /// Per station: its marginals `p(j | n)`, `j = 0..len` (offset, len);
    /// `len` 0 for queues and delays.
    marginal: Vec<(usize, usize)>,
    /// With load-dependent stations: the network of queues and delays
    /// alone, its queue lengths (`K` slots from the offset) and the slot of
    /// `ln G_QD(n)/G(n)`.
    base: Option<(usize, usize)>,
    /// Per load-dependent station, its complement's convolutions: (the
    /// other station, offset, len).
    stages: Vec<Vec<(usize, usize, usize)>>,
}

impl Layout {
    fn new(a: &Active) -> Self {
        let k_all = a.stations.len();
        // Slots of a station's own marginals, and of a convolution with it.
        let lens = |i: usize| match a.service[i] {
            Service::Multi(c) => (c - 1, c + 1),
            Service::General(_) => (a.most[i] + 1, a.most[i] + 1),
            _ => (0, 0),
        };
        let mut width = k_all;
        let mut marginal = Vec::with_capacity(k_all);
        for i in 0..k_all {
            marginal.push((width, lens(i).0));
            width += lens(i).0;
        }
        let dependent: Vec<usize> = (0..k_all)
            .filter(|&i| a.service[i].load_dependent())
            .collect();
        let base = (!dependent.is_empty()).then(|| {
            let b = (width, width + k_all);
            width += k_all + 1;
            b
        });
        let mut stages = vec![Vec::new(); k_all];
        for &i in &dependent {
            for &j in dependent.iter().filter(|&&j| j != i) {
                let len = lens(j).1;
                stages[i].push((j, width, len));
                width += len;
            }
        }
        Self {
            width,
            marginal,
            base,
            stages,
        }
    }

    /// See [`MultiClassNetwork::exact_steps`].
    fn steps(&self, a: &Active) -> f64 {
        vectors(&a.population) * a.width() as f64 * self.width as f64
    }
}

/// The recursion's state: the ring of the last rows and the figures of
/// the vector being solved.
struct Solver<'a> {
    a: &'a Active,
    layout: Layout,
    ring: Vec<f64>,
    /// Rows kept: one stride of the outermost class, and one.
    window: usize,
    /// Index step of each class in the mixed-radix order.
    stride: Vec<usize>,
    /// The classes from the innermost digit to the outermost.
    order: Vec<usize>,
    /// Row offset of `n − 1_c` (None where `n_c = 0`).
    prev: Vec<Option<usize>>,
    /// `residence[i * C + d]` and `x[d]` at the current vector.
    residence: Vec<f64>,
    x: Vec<f64>,
    /// The same for the network of queues and delays alone.
    base_residence: Vec<f64>,
    base_x: Vec<f64>,
    /// Each class's demand at the queues and delays.
    base_demand: Vec<f64>,
}

impl<'a> Solver<'a> {
    fn new(a: &'a Active, layout: Layout) -> Result<Self, QueueError> {
        let width = a.width();
        let mut order: Vec<usize> = (0..width).collect();
        order.sort_by_key(|&d| a.population[d]);
        let mut stride = vec![0; width];
        let mut step = 1usize;
        for &d in &order {
            stride[d] = step;
            step = step.saturating_mul(a.population[d] + 1);
        }
        let window = order.last().map_or(1, |&d| stride[d] + 1);
        let too_large = || QueueError::TooLarge {
            population: a.total,
            stations: a.stations.len(),
        };
        let cells = window.checked_mul(layout.width).ok_or_else(too_large)?;
        let mut ring = Vec::new();
        ring.try_reserve_exact(cells).map_err(|_| too_large())?;
        ring.resize(cells, 0.0);
        let plain = |i: usize| matches!(a.service[i], Service::Queue | Service::Delay);
        let base_demand = (0..width)
            .map(|d| {
                (0..a.stations.len())
                    .filter(|&i| plain(i))
                    .map(|i| a.demand(i, d))
                    .sum()
            })
            .collect();
        let cells = a.stations.len() * width;
        Ok(Self {
            a,
            layout,
            ring,
            window,
            stride,
            order,
            prev: vec![None; width],
            residence: vec![0.0; cells],
            x: vec![0.0; width],
            base_residence: vec![0.0; cells],
            base_x: vec![0.0; width],
            base_demand,
        })
    }

    /// Every vector from 0 to `N`; the row offset of `N`.
    fn run(&mut self) -> Result<usize, QueueError> {
        let width = self.a.width();
        let mut n = vec![0usize; width];
        let mut idx = 0usize;
        let mut total = 0usize;
        loop {
            self.step(idx, &n, total)?;
            // The next vector: the innermost digit that can grow grows,
            // the ones inside it restart at 0.
            let Some(t) = self.order.iter().position(|&d| n[d] < self.a.population[d]) else {
                return Ok((idx % self.window) * self.layout.width);
            };
            for &d in &self.order[..t] {
                total -= n[d];
                n[d] = 0;
            }
            n[self.order[t]] += 1;
            total += 1;
            idx += 1;
        }
    }

    fn step(&mut self, idx: usize, n: &[usize], total: usize) -> Result<(), QueueError> {
        let row = (idx % self.window) * self.layout.width;
        for (d, &jobs) in n.iter().enumerate() {
            self.prev[d] =
                (jobs > 0).then(|| ((idx - self.stride[d]) % self.window) * self.layout.width);
        }
        if total == 0 {
            self.empty(row);
            return Ok(());
        }
        self.throughputs(n, total)?;
        for i in 0..self.a.stations.len() {
            let c = self.a.width();
            self.ring[row + i] = (0..c).map(|d| self.x[d] * self.residence[i * c + d]).sum();
        }
        if self.layout.base.is_some() {
            self.base(n, row)?;
        }
        for i in 0..self.a.stations.len() {
            if self.a.service[i].load_dependent() {
                let empty = self.complement(i, row);
                self.marginals(i, row, empty);
            }
        }
        Ok(())
    }

    /// The row of the empty network: no queue, every station empty.
    fn empty(&mut self, row: usize) {
        let l = &self.layout;
        self.ring[row..row + l.width].fill(0.0);
        for &(off, len) in &l.marginal {
            if len > 0 {
                self.ring[row + off] = 1.0;
            }
        }
        for &(_, off, _) in l.stages.iter().flatten() {
            self.ring[row + off] = 1.0;
        }
        // (ln G_QD(0)/G(0) = ln 1 = 0: already.)
    }

    /// Residence times and throughputs at `n` from the rows of `n − 1_c`.
    fn throughputs(&mut self, n: &[usize], total: usize) -> Result<(), QueueError> {
        let (a, c_all) = (self.a, self.a.width());
        for (d, &jobs) in n.iter().enumerate() {
            let Some(p) = self.prev[d] else {
                self.x[d] = 0.0;
                continue;
            };
            let mut cycle = 0.0;
            for i in 0..a.stations.len() {
                let dem = a.demand(i, d);
                let r = if dem == 0.0 {
                    0.0
                } else {
                    let (off, len) = self.layout.marginal[i];
                    let p_of = |j: usize| self.ring[p + off + j];
                    match &a.service[i] {
                        Service::Delay => dem,
                        Service::Queue => dem * (1.0 + self.ring[p + i]),
                        Service::Multi(c) => {
                            // Bolch et al.: R = D/c·(1 + Q + Σ_{j<c−1} (c−1−j)·p(j)).
                            let idle: f64 = (0..len).map(|j| (c - 1 - j) as f64 * p_of(j)).sum();
                            dem / *c as f64 * (1.0 + self.ring[p + i] + idle)
                        }
                        Service::General(alpha) => {
                            // R = D·Σ_{j=1..|n|} j/α(j)·p(j − 1 | n − 1_c).
                            let sum: f64 = (1..=total.min(len - 1))
                                .map(|j| j as f64 / alpha[j - 1] * p_of(j - 1))
                                .sum();
                            dem * sum
                        }
                    }
                };
                self.residence[i * c_all + d] = r;
                cycle += r;
            }
            let x = jobs as f64 / cycle;
            if !(x.is_finite() && x > 0.0) {
                return Err(QueueError::NonFinite {
                    quantity: "throughput",
                    value: x,
                });
            }
            self.x[d] = x;
        }
        Ok(())
    }

    /// The network of queues and delays alone at `n`: its queue lengths
    /// and `ln G_QD(n)/G(n)`, `−∞` where a class present visits none of
    /// them (`G_QD(n) = 0`).
    fn base(&mut self, n: &[usize], row: usize) -> Result<(), QueueError> {
        let (off, ratio) = self.layout.base.expect("called with a base");
        let (a, c_all, k_all) = (self.a, self.a.width(), self.a.stations.len());
        let plain = |i: usize| matches!(a.service[i], Service::Queue | Service::Delay);
        if (0..c_all).any(|d| n[d] > 0 && self.base_demand[d] == 0.0) {
            self.ring[row + off..row + off + k_all].fill(0.0);
            self.ring[row + ratio] = f64::NEG_INFINITY;
            return Ok(());
        }
        let mut first = None;
        for (d, &jobs) in n.iter().enumerate() {
            let Some(p) = self.prev[d] else { continue };
            first.get_or_insert((d, p));
            let mut cycle = 0.0;
            for i in 0..k_all {
                let dem = if plain(i) { a.demand(i, d) } else { 0.0 };
                let r = match a.service[i] {
                    Service::Queue => dem * (1.0 + self.ring[p + off + i]),
                    _ => dem,
                };
                self.base_residence[i * c_all + d] = r;
                cycle += r;
            }
            self.base_x[d] = jobs as f64 / cycle;
        }
        for i in 0..k_all {
            self.ring[row + off + i] = (0..c_all)
                .filter(|&d| n[d] > 0)
                .map(|d| self.base_x[d] * self.base_residence[i * c_all + d])
                .sum();
        }
        let (d, p) = first.expect("a class present");
        let value = self.ring[p + ratio] + self.x[d].ln() - self.base_x[d].ln();
        if value.is_nan() || value == f64::INFINITY {
            return Err(QueueError::NonFinite {
                quantity: "normalizing constant",
                value,
            });
        }
        self.ring[row + ratio] = value;
        Ok(())
    }

    /// `Σ_c X_c(n)·D_i,c · v(n − 1_c)`, `v` the slot `slot` of the rows
    /// of `n − 1_c` (only the classes present).
    fn feed(&self, i: usize, slot: usize) -> f64 {
        (0..self.a.width())
            .filter_map(|d| {
                self.prev[d].map(|p| self.x[d] * self.a.demand(i, d) * self.ring[p + slot])
            })
            .sum()
    }

    /// `G_{−i}(n)/G(n)`: the queues and delays convolved with every other
    /// load-dependent station in turn, each term over `G(n)`.
    fn complement(&mut self, i: usize, row: usize) -> f64 {
        let (_, ratio) = self
            .layout
            .base
            .expect("load-dependent stations have a base");
        let mut g = self.ring[row + ratio].exp();
        for s in 0..self.layout.stages[i].len() {
            let (j, off, len) = self.layout.stages[i][s];
            self.ring[row + off] = g;
            let mut sum = g;
            match &self.a.service[j] {
                Service::Multi(c) => {
                    // B_1..B_{c−1}, then the tail T = Σ_{m≥c} B_m, whose
                    // terms all divide by c: T(n) = Σ_c X·D/c·(B_{c−1} + T)(n − 1_c).
                    for m in 1..*c {
                        let v = self.feed(j, off + m - 1) / m as f64;
                        self.ring[row + off + m] = v;
                        sum += v;
                    }
                    let tail = (self.feed(j, off + c - 1) + self.feed(j, off + c)) / *c as f64;
                    self.ring[row + off + c] = tail;
                    sum += tail;
                }
                Service::General(alpha) => {
                    for m in 1..len {
                        let v = self.feed(j, off + m - 1) / alpha[m - 1];
                        self.ring[row + off + m] = v;
                        sum += v;
                    }
                }
                _ => unreachable!("stages are load-dependent stations"),
            }
            g = sum;
        }
        g
    }

    /// Station `i`'s marginals at `n`: `p(0 | n) = empty`, then
    /// `p(j | n) = Σ_c X_c·D_c/α(j) · p(j − 1 | n − 1_c)`.
    fn marginals(&mut self, i: usize, row: usize, empty: f64) {
        let (off, len) = self.layout.marginal[i];
        self.ring[row + off] = empty;
        for j in 1..len {
            let alpha = match &self.a.service[i] {
                Service::General(alpha) => alpha[j - 1],
                _ => j as f64, // j ≤ c − 2 < c servers
            };
            self.ring[row + off + j] = self.feed(i, off + j - 1) / alpha;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_one_stride_of_the_largest_class() {
        let net = MultiClassNetwork::new()
            .queue("cpu")
            .multi_server("disks", 3)
            .class("big", 50, &[("cpu", 1.0), ("disks", 2.0)])
            .class("small", 2, &[("cpu", 0.5)]);
        let active = net.model().unwrap().active();
        let layout = Layout::new(&active);
        // Two queue lengths, 2 marginals of the 3 servers, the queues and
        // delays alone (2 + 1): no complement with one such station.
        assert_eq!(layout.width, 2 + 2 + 3);
        let solver = Solver::new(&active, layout).unwrap();
        // The small class inside (stride 1), the big one outside (stride 3):
        // 4 rows of the 153 vectors.
        assert_eq!(solver.window, 4);
        assert_eq!(solver.ring.len(), 4 * 7);
        assert_eq!(net.exact_steps().unwrap(), 153.0 * 2.0 * 7.0);
    }

    #[test]
    fn servers_for_every_job_that_can_come_are_a_delay() {
        // 5 servers, and only the 3 jobs of `a` ever come: no queueing,
        // whatever the 10 jobs of `b` do elsewhere.
        let net = MultiClassNetwork::new()
            .multi_server("pool", 5)
            .queue("cpu")
            .class("a", 3, &[("pool", 2.0), ("cpu", 0.1)])
            .class("b", 10, &[("cpu", 0.3)]);
        let active = net.model().unwrap().active();
        assert!(matches!(active.service[0], Service::Delay));
        let s = net.mva().unwrap();
        assert_eq!(s.residence_time("a", "pool").unwrap(), 2.0);
        let u = s.utilization("pool").unwrap();
        assert!((u - s.throughput("a").unwrap() * 2.0 / 5.0).abs() < 1e-15);
    }
}
