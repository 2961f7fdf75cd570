//! A design's stations as a closed network, solved by MVA with each node's
//! threads slowed by sharing its cores, and their calls' memory parts by
//! sharing its memory, the slowdowns at their fixed point.
//!
//! A node's memory is one more resource, treated as its cores are: the
//! design keeps `T_j` lane·ns of it busy per element and it serves
//! `min(lanes, c_j)` calls at once at a core's bandwidth. Below, "node"
//! reads "resource" (its cores, or its memory) throughout.
//!
//! Node `j` has `c_j` cores and the design keeps `W_j` core·ns of it busy
//! per element (at its speed). At throughput `X` its threads need `X·W_j`
//! cores; while they need more than it has, each runs slower by `s_j`, and
//! the fixed point is where every node is either unsaturated (`s_j = 1`,
//! `X·W_j ≤ c_j`) or exactly saturated (`s_j > 1`, `X·W_j = c_j`).
//!
//! As `X` is one number, only the nodes of the largest `W_j/c_j` (the
//! bottleneck) can be saturated, at `X = min_j c_j/W_j`; every other node
//! then has cores to spare. So: solve at `s = 1`; if no node is over its
//! cores, done; otherwise slow the bottleneck's nodes by one factor `σ`
//! until `X(σ) = min_j c_j/W_j`. `X(σ)` falls continuously from above the
//! target to 0 and `σ·X(σ)` never falls (a demand grows at most `σ`-fold
//! and MVA's throughput scales inversely with the demands), so in `ln σ`
//! the target's root is unique up to flat stretches and a step of
//! `ln X(σ) − ln X*` never passes it. The first step is that one,
//! `σ = X(1)·W_j/c_j`: exact when every demand is on the bottleneck (one
//! node, the former closed form). Then secant steps, growing until they
//! pass the root, and regula falsi (Illinois) on the bracket: at most
//! [`MAX_ITERATIONS`] solutions, else [`QueueingError::NoFixedPoint`].

use super::program::{Program, memory_capacity};
use super::{NodeLoad, QueueingError, QueueingPrediction};
use crate::machine::Machine;
use crate::queue::{Approximation, MultiServer, Network, Solution};

/// A station: `servers` threads each serving one element at a time, each
/// element taking `program`'s time.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Part {
    pub(super) name: String,
    pub(super) servers: usize,
    pub(super) program: Program,
}

/// Stations in the order an element visits them, and the elements in
/// flight.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Net {
    pub(super) parts: Vec<Part>,
    pub(super) in_flight: usize,
}

impl Net {
    /// The nodes its stations run on: one past the highest.
    pub(super) fn nodes(&self) -> usize {
        (self.parts.iter())
            .map(|p| p.program.nodes)
            .max()
            .unwrap_or(0)
    }

    /// The node of its first station's thread.
    pub(super) fn home(&self) -> usize {
        (self.parts.iter())
            .find_map(|p| p.program.home)
            .unwrap_or(0)
    }

    /// Whether it takes no time and no core.
    pub(super) fn is_free(&self) -> bool {
        self.parts.iter().all(|p| p.program.is_free())
    }

    /// Core·ns per element on each of the nodes `0..nodes`.
    pub(super) fn work(&self, nodes: usize) -> Vec<f64> {
        let mut work = vec![0.0; nodes];
        for (node, w) in self.parts.iter().flat_map(|p| &p.program.work) {
            work[*node] += w;
        }
        work
    }

    /// Lane·ns of memory per element on each of the nodes `0..nodes`.
    pub(super) fn traffic(&self, nodes: usize) -> Vec<f64> {
        let mut traffic = vec![0.0; nodes];
        for (node, t) in self.parts.iter().flat_map(|p| &p.program.traffic) {
            traffic[*node] += t;
        }
        traffic
    }

    /// The network with node `j`'s demands slowed by `slowdown[j]`.
    fn network(&self, slowdown: &[f64]) -> Network {
        (self.parts.iter().enumerate()).fold(Network::new(), |net, (i, p)| {
            let name = format!("{i}: {}", p.name);
            let demand = p.program.time(slowdown);
            if p.servers == 1 {
                net.queue(name, demand)
            } else {
                net.multi_server(name, p.servers, demand)
            }
        })
    }

    /// The network at `slowdown` and its MVA solution.
    pub(super) fn at(&self, slowdown: &[f64]) -> Result<(Network, Solution), QueueingError> {
        let net = self.network(slowdown);
        let solution = mva(&net, self.in_flight, &self.parts)?;
        Ok((net, solution))
    }
}

/// The most MVA solutions the slowdowns' fixed point may take.
const MAX_ITERATIONS: usize = 100;
/// How close to the cores' throughput a solution ends the search
/// (relative).
const TOLERANCE: f64 = 1e-9;

/// Solves `net` on `machine` with each node's slowdown at its fixed point.
pub(super) fn solve(net: &Net, machine: &Machine) -> Result<QueueingPrediction, QueueingError> {
    let used = net.nodes().max(1);
    let node = |j: usize| (machine.node_cores(j), machine.node_speed(j));
    let (work, traffic) = (net.work(used), net.traffic(used));
    // Each node's cores (at 2j) and memory (at 2j + 1): what an element
    // asks of them over what they hold at once.
    let load: Vec<f64> = (0..2 * used)
        .map(|r| {
            let j = r / 2;
            if r % 2 == 0 {
                work[j] / node(j).0 as f64
            } else {
                (machine.node_memory(j))
                    .map_or(0.0, |m| traffic[j] / memory_capacity(&m, node(j).0))
            }
        })
        .collect();
    // The bound: the busiest resource's load.
    let peak = load.iter().copied().fold(0.0, f64::max);
    let mut slowdown = vec![1.0; 2 * used];
    let (mut network, mut solution) = net.at(&slowdown)?;
    let x1 = solution.throughput();
    // (a resource exactly full, to rounding, is not over)
    if x1 * peak > 1.0 + 1e-12 {
        let bottleneck: Vec<usize> = (0..2 * used)
            .filter(|&r| load[r] >= peak * (1.0 - 1e-12))
            .collect();
        (network, solution) = saturate(net, x1, peak, &bottleneck, &mut slowdown)?;
    }
    let time = (1.0 / solution.throughput()).max(peak);
    if !time.is_finite() {
        return Err(QueueingError::Overflow { value: time });
    }
    let x = 1.0 / time;
    let nodes = (0..used)
        .map(|j| NodeLoad {
            cores: node(j).0,
            speed: node(j).1,
            work: work[j],
            utilization: x * load[2 * j],
            slowdown: slowdown[2 * j],
            traffic: traffic[j],
            memory_utilization: x * load[2 * j + 1],
            memory_slowdown: slowdown[2 * j + 1],
        })
        .collect();
    Ok(QueueingPrediction {
        time_per_element: time,
        throughput: x,
        slowdown: slowdown.iter().copied().fold(1.0, f64::max),
        nodes,
        population: net.in_flight,
        network,
        solution,
    })
}

/// The slowdown `σ` of the `bottleneck` nodes at which the throughput is
/// the cores' `1/peak` (see the module overview), from `X(1)·peak > 1`.
fn saturate(
    net: &Net,
    x1: f64,
    peak: f64,
    bottleneck: &[usize],
    slowdown: &mut [f64],
) -> Result<(Network, Solution), QueueingError> {
    // f(u) = ln X(e^u) − ln(1/peak), falling, f(0) > 0; u = ln σ.
    let f = |u: f64| -> Result<(f64, (Network, Solution)), QueueingError> {
        for &j in bottleneck {
            slowdown[j] = u.exp();
        }
        let (network, solution) = net.at(slowdown)?;
        Ok(((solution.throughput() * peak).ln(), (network, solution)))
    };
    falling_root(f, 0.0, (x1 * peak).ln())
}

/// The root of `f`, falling in `u = ln σ` (a slowdown's logarithm), from a
/// point `lo` where `f(lo) = f_lo > 0`, with what `f` computed there. The
/// first step is `lo + f_lo`: exact where the quantity `e^f` is inversely
/// proportional to `σ` (every demand on the slowed resource). Then secant
/// steps, growing until they pass the root, and regula falsi (Illinois) on
/// the bracket: at most [`MAX_ITERATIONS`] evaluations, else
/// [`QueueingError::NoFixedPoint`].
pub(super) fn falling_root<T>(
    mut f: impl FnMut(f64) -> Result<(f64, T), QueueingError>,
    mut lo: f64,
    mut f_lo: f64,
) -> Result<T, QueueingError> {
    let mut hi: Option<(f64, f64)> = None;
    // Which end the last point replaced (Illinois: twice the same end
    // halves the other's value).
    let mut last_lo: Option<bool> = None;
    let mut grow = 1.0;
    let mut u = lo + f_lo;
    for _ in 0..MAX_ITERATIONS {
        let (fu, found) = f(u)?;
        if fu.abs() <= TOLERANCE {
            return Ok(found);
        }
        if fu > 0.0 {
            if hi.is_none() {
                // Still short of the root: a secant step, growing until
                // it passes it.
                let slope = ((fu - f_lo) / (u - lo)).clamp(-1.0, -1e-3);
                let next = u - grow * fu / slope;
                (lo, f_lo, grow) = (u, fu, grow * 2.0);
                u = next.min(u + MAX_STEP);
                continue;
            }
            if last_lo == Some(true) {
                hi = hi.map(|(h, fh)| (h, fh / 2.0));
            }
            (lo, f_lo, last_lo) = (u, fu, Some(true));
        } else {
            if last_lo == Some(false) {
                f_lo /= 2.0;
            }
            hi = Some((u, fu));
            last_lo = Some(false);
        }
        let (h, fh) = hi.expect("bracketed");
        if h - lo <= 1e-15 * h.abs().max(1.0) {
            return Ok(found);
        }
        let next = lo - f_lo * (h - lo) / (fh - f_lo);
        u = if next > lo && next < h {
            next
        } else {
            0.5 * (lo + h)
        };
    }
    Err(QueueingError::NoFixedPoint {
        iterations: MAX_ITERATIONS,
    })
}

/// The largest step of `ln σ` before the root is bracketed (a factor of
/// e^40, 2·10^17).
const MAX_STEP: f64 = 40.0;

/// Exact MVA where it is cheap (its cost grows with the population times
/// the servers of every multi-server station), Schweitzer-Bard's
/// approximation with Seidmann's multi-server stations beyond: a pool of
/// 10^5 workers, or 2^53, must not take hours.
fn mva(net: &Network, n: usize, parts: &[Part]) -> Result<Solution, QueueingError> {
    let multi: Vec<f64> = parts
        .iter()
        .filter(|p| p.servers > 1)
        .map(|p| p.servers.min(n) as f64)
        .collect();
    let cost = n as f64 * (parts.len() as f64 + multi.len() as f64 * multi.iter().sum::<f64>());
    if n <= MAX_EXACT_POPULATION && cost <= MAX_EXACT_COST {
        return Ok(net.mva(n)?);
    }
    let seidmann = Approximation {
        multi_server: MultiServer::Seidmann,
        ..Approximation::default()
    };
    Ok(net.mva_approx_with(n, &seidmann)?)
}

/// The largest population solved exactly.
const MAX_EXACT_POPULATION: usize = 100_000;
/// The largest estimated cost (station-steps) of an exact solution.
pub(crate) const MAX_EXACT_COST: f64 = 2e7;
