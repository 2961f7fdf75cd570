//! Seed 002's model of an MPI application on a cluster of multicore nodes.
//!
//! `n` processes run on the nodes (`n_i` on node `i`); each process repeats
//! a cycle of `φ = w/(n·s(n))` instructions followed by one send, `s(n)`
//! times. A cycle is a job of a closed network with one CPU station per
//! node (a multi-server station of its cores) and one network station per
//! node (its link):
//!
//! - CPU service per visit (eqs. 3 and 6): `CPU_Constant / (s(n)·n)`,
//!   divided by the node's relative speed. Eq. 2's `min(n, c)` is the
//!   multi-server station's own rate, `min(jobs present, c)/D`, so it is
//!   not divided in a second time.
//! - Network service per visit (eqs. 4, 5 and 7):
//!   `(T_s + m(n)·T_w) · Net_Constant`.
//! - Visits (eqs. 8 and 9), with `V_comp` and `V_comm` the shares of a
//!   cycle spent computing and in communication overhead:
//!   `V_cpu,i = (n_i/n)·V_comp + (n_i/n)((n_i − 1)/n)·V_comm + ((n − n_i)/n)(n_i/n)·V_comm`,
//!   `V_net,i = 2·(n_i/n)((n − n_i)/n)`.
//! - The run time (eq. 10): `T = R·s(n)`, `R` the MVA response time at
//!   population `n`.
//!
//! The two constants are fitted to a few profiled runs with
//! [`MpiModel::calibrate`] (module `calibrate`).

use super::{Network, QueueError, Solution};
use crate::{EvalError, Expr};

/// A node of a cluster: its cores and their relative speed (1 for the
/// reference processor; 2 runs the same instructions in half the time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    /// Cores of the node.
    pub cores: usize,
    /// Speed relative to the reference processor.
    pub speed: f64,
}

/// The nodes of a cluster, possibly heterogeneous.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cluster {
    nodes: Vec<Node>,
}

impl Cluster {
    /// A cluster without nodes.
    pub fn new() -> Self {
        Self::default()
    }

    /// `count` identical nodes of `cores` cores at speed 1.
    pub fn homogeneous(count: usize, cores: usize) -> Self {
        (0..count).fold(Self::new(), |c, _| c.node(cores, 1.0))
    }

    /// Adds a node.
    pub fn node(mut self, cores: usize, speed: f64) -> Self {
        self.nodes.push(Node { cores, speed });
        self
    }

    /// The nodes.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The cores of all nodes.
    pub fn cores(&self) -> usize {
        self.nodes.iter().map(|n| n.cores).sum()
    }

    /// `n` processes spread over the nodes in proportion to their cores
    /// (largest remainders first), as the seed profiles its runs: uniformly
    /// distributed.
    pub fn spread(&self, n: usize) -> Vec<usize> {
        let total = self.cores().max(1) as f64;
        let shares: Vec<f64> = self
            .nodes
            .iter()
            .map(|node| n as f64 * node.cores as f64 / total)
            .collect();
        let mut placed: Vec<usize> = shares.iter().map(|s| s.floor() as usize).collect();
        let mut order: Vec<usize> = (0..shares.len()).collect();
        order.sort_by(|&a, &b| {
            let (fa, fb) = (shares[a] - shares[a].floor(), shares[b] - shares[b].floor());
            fb.total_cmp(&fa).then(a.cmp(&b))
        });
        let left = n - placed.iter().sum::<usize>();
        for &i in order.iter().cycle().take(left) {
            placed[i] += 1;
        }
        placed
    }

    fn check(&self) -> Result<(), ClusterError> {
        if self.nodes.is_empty() {
            return Err(ClusterError::NoNodes);
        }
        for (i, node) in self.nodes.iter().enumerate() {
            if node.cores == 0 || !(node.speed.is_finite() && node.speed > 0.0) {
                return Err(ClusterError::InvalidNode {
                    node: i,
                    cores: node.cores,
                    speed: node.speed,
                });
            }
        }
        Ok(())
    }
}

/// What an MPI application does, as functions of the process count `n`.
#[derive(Clone, Debug, PartialEq)]
pub struct MpiWorkload {
    /// Sends per process, `s(n)` (seed: `C·ln(n) + D`).
    pub sends: Expr,
    /// Mean message size in words, `m(n)` (seed: `m_a/n + m_b`, or `A·n^-B`).
    pub message: Expr,
    /// Share of a cycle spent computing, `V_comp` (from a profiled run
    /// without contention: `(T_exe − T_oh)/T_exe`).
    pub compute: f64,
    /// Share of a cycle spent in communication overhead, `V_comm`
    /// (`T_oh/T_exe`, `T_oh` the time in `MPI_Wait`).
    pub communicate: f64,
}

impl MpiWorkload {
    /// The sub-visit ratios from a profiled run without contention: its
    /// execution time and the time its processes waited in MPI.
    pub fn shares_from_profile(execution: f64, wait: f64) -> Result<(f64, f64), ClusterError> {
        if !(execution.is_finite() && execution > 0.0 && wait >= 0.0 && wait <= execution) {
            return Err(ClusterError::InvalidValue {
                what: "profile (execution time > 0, 0 <= wait <= execution)",
                value: wait / execution,
            });
        }
        Ok(((execution - wait) / execution, wait / execution))
    }
}

/// Seed 002's model: a cluster, a workload, the network's per-word time,
/// and the two constants that calibration fits.
#[derive(Clone, Debug, PartialEq)]
pub struct MpiModel {
    /// The nodes.
    pub cluster: Cluster,
    /// The application.
    pub workload: MpiWorkload,
    /// Start-up time of a message, `T_s` (the seed takes 0).
    pub startup: f64,
    /// Time per word, `T_w`.
    pub per_word: f64,
    /// `CPU_Constant = κ·w`: the whole work's time on one reference core.
    pub cpu_constant: f64,
    /// `Net_Constant`: what probing the network missed (1 when exact).
    pub net_constant: f64,
}

/// A prediction of the model for one placement.
#[derive(Clone, Debug, PartialEq)]
pub struct MpiPrediction {
    /// The run time, `T = R·s(n)` (eq. 10).
    pub time: f64,
    /// The MVA response time of one cycle, `R`.
    pub cycle: f64,
    /// Sends per process at this `n`.
    pub sends: f64,
    /// The network's solution: per node `cpu{i}` and `net{i}`.
    pub solution: Solution,
}

/// Why the cluster model could not answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ClusterError {
    /// The cluster has no node.
    #[error("the cluster has no node: add one with `Cluster::node(cores, speed)`")]
    NoNodes,
    /// A node without cores or with a speed that is not a number > 0.
    #[error(
        "node {node} has {cores} cores at speed {speed}: a node needs cores >= 1 and a speed > 0"
    )]
    InvalidNode {
        /// The node's index.
        node: usize,
        /// Its cores.
        cores: usize,
        /// Its speed.
        speed: f64,
    },
    /// A placement that does not match the nodes or places nothing.
    #[error("the placement {placement:?} does not fit {nodes} nodes with at least one process")]
    Placement {
        /// The placement given.
        placement: Vec<usize>,
        /// The nodes of the cluster.
        nodes: usize,
    },
    /// A workload function could not be evaluated.
    #[error("cannot evaluate {what} at n = {n}: {source}")]
    Eval {
        /// `s(n)` or `m(n)`.
        what: &'static str,
        /// The process count.
        n: usize,
        /// Why.
        source: EvalError,
    },
    /// A value out of its range (a negative size, a share outside [0, 1]).
    #[error("{what} is {value}, out of range")]
    InvalidValue {
        /// What.
        what: &'static str,
        /// Its value.
        value: f64,
    },
    /// The queueing network could not be solved.
    #[error(transparent)]
    Queue(#[from] QueueError),
    /// Calibration had nothing to fit or did not converge.
    #[error("calibration failed: {0}")]
    Calibration(String),
}

impl MpiModel {
    /// The closed network of one placement (`placement[i]` processes on
    /// node `i`): stations `cpu{i}` (a multi-server station of the node's
    /// cores) and `net{i}` (its link), for every node with or without
    /// processes (a node without any is visited by none).
    pub fn network(&self, placement: &[usize]) -> Result<Network, ClusterError> {
        self.cluster.check()?;
        let nodes = self.cluster.nodes();
        let n: usize = placement.iter().sum();
        if placement.len() != nodes.len() || n == 0 {
            return Err(ClusterError::Placement {
                placement: placement.to_vec(),
                nodes: nodes.len(),
            });
        }
        let (v_comp, v_comm) = (self.workload.compute, self.workload.communicate);
        for (what, v) in [("V_comp", v_comp), ("V_comm", v_comm)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ClusterError::InvalidValue { what, value: v });
            }
        }
        for (what, v) in [
            ("CPU_Constant", self.cpu_constant),
            ("Net_Constant", self.net_constant),
            ("the time per word", self.per_word),
            ("the start-up time", self.startup),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ClusterError::InvalidValue { what, value: v });
            }
        }
        let sends = self.sends(n)?;
        let message = self.eval("m(n)", &self.workload.message, n)?;
        if message < 0.0 {
            return Err(ClusterError::InvalidValue {
                what: "m(n)",
                value: message,
            });
        }
        let nf = n as f64;
        let cpu_time = self.cpu_constant / (sends * nf);
        let net_time = (self.startup + message * self.per_word) * self.net_constant;
        let mut net = Network::new();
        for (i, (node, &ni)) in nodes.iter().zip(placement).enumerate() {
            let share = ni as f64 / nf;
            let others = (n - ni) as f64 / nf;
            let local = share * (ni as f64 - 1.0).max(0.0) / nf;
            let v_cpu = share * v_comp + local * v_comm + others * share * v_comm;
            let v_net = 2.0 * share * others;
            net = net
                .multi_server(format!("cpu{i}"), node.cores, v_cpu * cpu_time / node.speed)
                .queue(format!("net{i}"), v_net * net_time);
        }
        Ok(net)
    }

    /// The predicted run time of one placement (eq. 10).
    pub fn predict(&self, placement: &[usize]) -> Result<MpiPrediction, ClusterError> {
        let network = self.network(placement)?;
        let n = placement.iter().sum();
        let solution = network.mva(n)?;
        let sends = self.sends(n)?;
        let cycle = solution.response_time();
        Ok(MpiPrediction {
            time: cycle * sends,
            cycle,
            sends,
            solution,
        })
    }

    /// The predicted run time of `n` processes spread over the nodes
    /// ([`Cluster::spread`]).
    pub fn predict_spread(&self, n: usize) -> Result<f64, ClusterError> {
        Ok(self.predict(&self.cluster.spread(n))?.time)
    }

    /// The run times for `n = 1..=max` processes (spread), and the
    /// smallest `n` whose time is within `tolerance` (e.g. 0.05) of the
    /// best: where adding processes stops paying.
    pub fn saturation(
        &self,
        max: usize,
        tolerance: f64,
    ) -> Result<(usize, Vec<f64>), ClusterError> {
        let times = (1..=max)
            .map(|n| self.predict_spread(n))
            .collect::<Result<Vec<f64>, _>>()?;
        let best = times.iter().copied().fold(f64::INFINITY, f64::min);
        let n = times
            .iter()
            .position(|&t| t <= best * (1.0 + tolerance))
            .map_or(max, |i| i + 1);
        Ok((n, times))
    }

    fn sends(&self, n: usize) -> Result<f64, ClusterError> {
        let s = self.eval("s(n)", &self.workload.sends, n)?;
        if s > 0.0 {
            Ok(s)
        } else {
            Err(ClusterError::InvalidValue {
                what: "s(n)",
                value: s,
            })
        }
    }

    fn eval(&self, what: &'static str, e: &Expr, n: usize) -> Result<f64, ClusterError> {
        e.eval(&[("n", n as f64)])
            .map_err(|source| ClusterError::Eval { what, n, source })
    }
}
