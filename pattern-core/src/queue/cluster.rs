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
use crate::machine::{Machine, MachineError};
use crate::{EvalError, Expr};

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

/// Seed 002's model: a machine (its nodes' cores and speeds), a workload,
/// the network's per-word time, and the two constants that calibration
/// fits.
#[derive(Clone, Debug, PartialEq)]
pub struct MpiModel {
    /// The nodes.
    pub machine: Machine,
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
    /// A machine out of range.
    #[error(transparent)]
    Machine(#[from] MachineError),
    /// A placement that does not match the nodes or places nothing.
    #[error("the placement {placement:?} does not fit {nodes} nodes with at least one process")]
    Placement {
        /// The placement given.
        placement: Vec<usize>,
        /// The nodes of the machine.
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
        self.machine.check()?;
        let nodes = self.machine.nodes();
        let n: usize = placement.iter().sum();
        if placement.len() != nodes || n == 0 {
            return Err(ClusterError::Placement {
                placement: placement.to_vec(),
                nodes,
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
        for (i, ((cores, speed), &ni)) in self.machine.each_node().zip(placement).enumerate() {
            let share = ni as f64 / nf;
            let others = (n - ni) as f64 / nf;
            let local = share * (ni as f64 - 1.0).max(0.0) / nf;
            let v_cpu = share * v_comp + local * v_comm + others * share * v_comm;
            let v_net = 2.0 * share * others;
            net = net
                .multi_server(format!("cpu{i}"), cores, v_cpu * cpu_time / speed)
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
    /// ([`spread`]).
    pub fn predict_spread(&self, n: usize) -> Result<f64, ClusterError> {
        Ok(self.predict(&spread(&self.machine, n))?.time)
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

/// `n` processes spread over a machine's nodes in proportion to their
/// cores (largest remainders first), as seed 002 profiles its runs:
/// uniformly distributed.
///
/// ```
/// use pattern_core::machine::Machine;
/// use pattern_core::queue::spread;
///
/// assert_eq!(spread(&Machine::new(2, 8), 3), [2, 1]);
/// ```
pub fn spread(machine: &Machine, n: usize) -> Vec<usize> {
    let cores: Vec<usize> = machine.each_node().map(|(c, _)| c).collect();
    let total = cores.iter().sum::<usize>().max(1) as f64;
    let shares: Vec<f64> = cores.iter().map(|&c| n as f64 * c as f64 / total).collect();
    let mut placed: Vec<usize> = shares.iter().map(|s| s.floor() as usize).collect();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (shares[a] - shares[a].floor(), shares[b] - shares[b].floor());
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    let left = n.saturating_sub(placed.iter().sum::<usize>());
    for &i in order.iter().cycle().take(left) {
        placed[i] += 1;
    }
    placed
}
