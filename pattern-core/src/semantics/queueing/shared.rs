//! Designs sharing one machine: each design a class of jobs (its elements
//! in flight), the machine's cores and memories shared by all of them.
//!
//! Two designs share no station (each has its own threads, queues and
//! channels); they meet on the nodes. Each node's cores and memory are
//! shared by processor sharing as for one design (`solve.rs`): while the
//! designs' threads need more of a resource than it has, every thread on it
//! runs slower by the same `s_r`. With `X_d(s)` design `d`'s throughput at
//! the slowdowns `s` (its own network solved by MVA) and `L_d,r` what an
//! element of it asks of resource `r` over what `r` holds at once, the load
//! is `U_r(s) = Σ_d X_d(s)·L_d,r`, and the fixed point is where every
//! resource is unsaturated (`s_r = 1`, `U_r ≤ 1`) or exactly saturated
//! (`s_r > 1`, `U_r = 1`). With one design it is the single design's.
//!
//! Unlike one design, several throughputs can saturate several resources
//! at once, so the slowdowns are found one resource at a time
//! (Gauss-Seidel): each resource's slowdown is set, the others held, by the
//! single design's root search on `ln U_r` (falling in `ln s_r`); sweeps
//! repeat until no resource is off its condition, at most [`MAX_SWEEPS`].
//! A node's cores are settled inside each trial of its memory's slowdown:
//! the two pull on the same threads, and settled in turn they crept to
//! their fixed point by about 1 % a sweep (200 sweeps did not reach it).

use super::program::memory_capacity;
use super::solve::{Net, falling_root, solve};
use super::{NodeLoad, Queueing, QueueingError, QueueingPrediction};
use crate::grammar::{Term, fold};
use crate::machine::Machine;
use crate::queue::{Network, Solution};

/// The most sweeps over the resources before
/// [`QueueingError::NoFixedPoint`].
const MAX_SWEEPS: usize = 200;

/// How far from full a saturated resource may end (`|ln U_r|`), and how far
/// past full an unsaturated one may be, relatively.
const TOLERANCE: f64 = 1e-9;

/// What the queueing semantics predicts for designs sharing one machine.
#[derive(Clone, Debug)]
pub struct SharedPrediction {
    /// Each design, in the order given.
    pub designs: Vec<SharedDesign>,
    /// Each node any design uses, from node 0 to the highest: the loads of
    /// all the designs together and the slowdowns every thread on it sees.
    pub nodes: Vec<SharedNode>,
}

/// One design among others on the machine.
#[derive(Clone, Debug)]
pub struct SharedDesign {
    /// Time per element in steady state with the others running (ns).
    pub time_per_element: f64,
    /// Elements per ns, with the others running.
    pub throughput: f64,
    /// The design alone on the machine, as [`Queueing::of`] predicts it.
    pub alone: QueueingPrediction,
    /// Its network with the others running, its demands already slowed.
    pub network: Network,
    /// Its MVA solution.
    pub solution: Solution,
}

/// A node shared by the designs.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedNode {
    /// The node's totals over the designs (its `work` and `traffic` summed,
    /// utilizations at the designs' throughputs together).
    pub load: NodeLoad,
    /// Each design's share of the node's cores: its throughput × work /
    /// cores, in the order of the designs; they sum to `load.utilization`.
    pub core_shares: Vec<f64>,
    /// Each design's share of the node's memory bandwidth, likewise.
    pub memory_shares: Vec<f64>,
}

impl SharedPrediction {
    /// Whether the designs slow each other: some resource is saturated.
    pub fn interfere(&self) -> bool {
        (self.nodes.iter()).any(|n| n.load.slowdown > 1.0 || n.load.memory_slowdown > 1.0)
    }
}

impl Queueing<'_> {
    /// The prediction for `terms` running at once on the machine, each fed
    /// by its own stream (a closed class of its elements in flight): each
    /// design's time per element beside its time alone, and where they
    /// interfere (the nodes' slowdowns and each design's share of them).
    /// The designs share the point's bindings.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::semantics::Queueing;
    ///
    /// let sort = Design::parse("qsort = 1000*x; tpool[3](qsort)")?;
    /// let scan = Design::parse("inc = 10*x; tpool[1](inc)")?;
    /// let m = Machine::new(1, 2);
    /// let q = Queueing::new(&m).at(&[("x", 100.0)]);
    /// let p = q.together(&[sort.term(), scan.term()])?;
    /// // Four threads always busy on two cores: each at half a core.
    /// assert!((p.nodes[0].load.slowdown - 2.0).abs() < 1e-6);
    /// assert!((p.designs[1].time_per_element - 2.0 * 1000.0).abs() < 1e-3);
    /// // Alone, the scan had a core of its own.
    /// assert!((p.designs[1].alone.time_per_element - 1000.0).abs() < 1e-9);
    /// assert!(p.interfere());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn together(&self, terms: &[&Term]) -> Result<SharedPrediction, QueueingError> {
        self.machine.check()?;
        if self.buffer == 0 {
            return Err(QueueingError::Buffer);
        }
        if terms.is_empty() {
            return Err(QueueingError::NoDesign);
        }
        let nets = (terms.iter())
            .map(|t| self.net(fold(t, &mut self.clone())?))
            .collect::<Result<Vec<Net>, QueueingError>>()?;
        let alone = (nets.iter())
            .map(|n| solve(n, self.machine))
            .collect::<Result<Vec<_>, _>>()?;
        let shared = Shared::new(&nets, self.machine);
        let (slowdown, solved) = shared.fixed_point()?;
        for (_, s) in &solved {
            let time = 1.0 / s.throughput();
            if !time.is_finite() {
                return Err(QueueingError::Overflow { value: time });
            }
        }
        Ok(shared.prediction(slowdown, solved, alone))
    }
}

/// The designs' networks and what each asks of each resource (cores at
/// `2j`, memory at `2j + 1` of node `j`).
struct Shared<'a> {
    nets: &'a [Net],
    machine: &'a Machine,
    nodes: usize,
    /// `load[d][r]`: what an element of design `d` asks of resource `r`
    /// over what `r` serves at once (ns).
    load: Vec<Vec<f64>>,
    work: Vec<Vec<f64>>,
    traffic: Vec<Vec<f64>>,
}

/// Each design's network at the slowdowns and its solution.
type Solved = Vec<(Network, Solution)>;

impl<'a> Shared<'a> {
    fn new(nets: &'a [Net], machine: &'a Machine) -> Self {
        let nodes = nets.iter().map(Net::nodes).max().unwrap_or(0).max(1);
        let work: Vec<Vec<f64>> = nets.iter().map(|n| n.work(nodes)).collect();
        let traffic: Vec<Vec<f64>> = nets.iter().map(|n| n.traffic(nodes)).collect();
        let load = (0..nets.len())
            .map(|d| {
                (0..2 * nodes)
                    .map(|r| {
                        let j = r / 2;
                        let cores = machine.node_cores(j);
                        if r % 2 == 0 {
                            work[d][j] / cores as f64
                        } else {
                            (machine.node_memory(j))
                                .map_or(0.0, |m| traffic[d][j] / memory_capacity(&m, cores))
                        }
                    })
                    .collect()
            })
            .collect();
        Self {
            nets,
            machine,
            nodes,
            load,
            work,
            traffic,
        }
    }

    /// Resource `r`'s load at the designs' solutions.
    fn usage(&self, r: usize, solved: &Solved) -> f64 {
        (solved.iter().enumerate())
            .map(|(d, (_, s))| s.throughput() * self.load[d][r])
            .sum()
    }

    /// The designs that ask anything of resource `r`.
    fn users(&self, r: usize) -> Vec<usize> {
        (0..self.nets.len())
            .filter(|&d| self.load[d][r] > 0.0)
            .collect()
    }

    /// The slowdowns at their fixed point and the designs' solutions there.
    fn fixed_point(&self) -> Result<(Vec<f64>, Solved), QueueingError> {
        let resources = 2 * self.nodes;
        let mut slowdown = vec![1.0; resources];
        let mut solved = (self.nets.iter())
            .map(|n| n.at(&slowdown))
            .collect::<Result<Solved, _>>()?;
        for _ in 0..MAX_SWEEPS {
            let mut settled = true;
            for r in 0..resources {
                let u = self.usage(r, &solved);
                let off = if slowdown[r] > 1.0 {
                    u.ln().abs() > TOLERANCE
                } else {
                    u > 1.0 + TOLERANCE
                };
                if off {
                    settled = false;
                    // A node's memory (odd) with its cores inside.
                    let inner = (r % 2 == 1 && !self.users(r - 1).is_empty()).then(|| r - 1);
                    self.settle(r, inner, &mut slowdown, &mut solved)?;
                }
            }
            if settled {
                return Ok((slowdown, solved));
            }
        }
        Err(QueueingError::NoFixedPoint {
            iterations: MAX_SWEEPS,
        })
    }

    /// Sets resource `r`'s slowdown, the others held: 1 if the designs fit
    /// in it there, else where they fill it exactly. With `inner`, that
    /// resource is settled again at every trial of `r`'s (a node's cores
    /// inside its memory's search): the two move together, and settled in
    /// turn they zig-zag towards their fixed point by a percent a sweep.
    fn settle(
        &self,
        r: usize,
        inner: Option<usize>,
        slowdown: &mut [f64],
        solved: &mut Solved,
    ) -> Result<(), QueueingError> {
        let mut users = self.users(r);
        if let Some(q) = inner {
            users.extend(self.users(q));
            users.sort_unstable();
            users.dedup();
        }
        let at = |u: f64, slowdown: &mut [f64]| -> Result<(f64, Solved), QueueingError> {
            slowdown[r] = u.exp();
            let mut trial = solved.clone();
            for &d in &users {
                trial[d] = self.nets[d].at(slowdown)?;
            }
            if let Some(q) = inner {
                self.settle(q, None, slowdown, &mut trial)?;
            }
            Ok((self.usage(r, &trial).ln(), trial))
        };
        let (f0, at_one) = at(0.0, slowdown)?;
        if f0 <= TOLERANCE {
            *solved = at_one;
            return Ok(());
        }
        let found = falling_root(|u| at(u, slowdown), 0.0, f0)?;
        *solved = found;
        Ok(())
    }

    fn prediction(
        &self,
        slowdown: Vec<f64>,
        solved: Solved,
        alone: Vec<QueueingPrediction>,
    ) -> SharedPrediction {
        let x: Vec<f64> = solved.iter().map(|(_, s)| s.throughput()).collect();
        let nodes = (0..self.nodes)
            .map(|j| {
                let share = |r: usize| -> Vec<f64> {
                    (0..x.len()).map(|d| x[d] * self.load[d][r]).collect()
                };
                let (core_shares, memory_shares) = (share(2 * j), share(2 * j + 1));
                SharedNode {
                    load: NodeLoad {
                        cores: self.machine.node_cores(j),
                        speed: self.machine.node_speed(j),
                        work: self.work.iter().map(|w| w[j]).sum(),
                        utilization: core_shares.iter().sum(),
                        slowdown: slowdown[2 * j],
                        traffic: self.traffic.iter().map(|t| t[j]).sum(),
                        memory_utilization: memory_shares.iter().sum(),
                        memory_slowdown: slowdown[2 * j + 1],
                    },
                    core_shares,
                    memory_shares,
                }
            })
            .collect();
        let designs = (solved.into_iter().zip(alone))
            .map(|((network, solution), alone)| SharedDesign {
                time_per_element: 1.0 / solution.throughput(),
                throughput: solution.throughput(),
                alone,
                network,
                solution,
            })
            .collect();
        SharedPrediction { designs, nodes }
    }
}
