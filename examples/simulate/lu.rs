//! Seed 003's block LU factorization as a flow graph: an n × n matrix in
//! column blocks of r columns, block column j on node j mod P, durations
//! from flop counts at one rate fitted from the seed's serial run.
//!
//! Iteration k (K = n/r of them, m = n − k·r rows left):
//! - (a) LU of the panel (m × r) on the owner of column k: m·r² − r³/3 flops;
//! - (b) L11 (r × r) sent to the owner of each later column j, which solves
//!   the triangular system (r³ flops) and sends T12 back to the owner of k;
//! - (c, d) the owner of k streams the multiplication requests L21(i)·T12(j)
//!   (two r × r blocks) to all nodes in turn, one connection per node, each
//!   carrying its requests one after the other; each multiplication is
//!   2r³ flops;
//! - (e) the product goes to the owner of j, which subtracts it (r² flops).
//!
//! The basic flow graph waits for every subtraction of iteration k before
//! the panel of k + 1 (merge-split pairs are barriers); the pipelined one
//! starts the panel of k + 1 once column k + 1 is done.

use pattern_core::sim::{TaskGraph, TaskId};

/// Bytes of an r × r block of doubles.
fn block(r: usize) -> f64 {
    (r * r * 8) as f64
}

/// The flops of iteration `k` of the block algorithm.
pub fn iteration_flops(n: usize, r: usize, k: usize) -> f64 {
    let rf = r as f64;
    let m = (n - k * r) as f64;
    let later = (n / r - k - 1) as f64;
    m * rf * rf - rf * rf * rf / 3.0
        + later * rf.powi(3)
        + later * later * (2.0 * rf.powi(3) + rf * rf)
}

/// The flops of the whole factorization by the block algorithm (what the
/// serial run does).
pub fn flops(n: usize, r: usize) -> f64 {
    (0..n / r).map(|k| iteration_flops(n, r, k)).sum()
}

/// The factorization's flow graph on `nodes` nodes, `rate` flops per ns;
/// from iteration `shrink.0` on, multiplications go to the first
/// `shrink.1` nodes only (the others' multiplication threads removed).
/// Returns the graph and, per iteration, the tasks that end it.
pub fn graph(
    n: usize,
    r: usize,
    nodes: usize,
    rate: f64,
    pipelined: bool,
    shrink: Option<(usize, usize)>,
) -> (TaskGraph, Vec<Vec<TaskId>>) {
    let k_all = n / r;
    let rf = r as f64;
    let owner = |j: usize| j % nodes;
    let mut g = TaskGraph::new();
    // The last task that wrote each column block.
    let mut column: Vec<Option<TaskId>> = vec![None; k_all];
    // The last transfer on each (from, to) connection: requests go in turn.
    let mut connection: Vec<Option<TaskId>> = vec![None; nodes * nodes];
    let mut barrier: Vec<TaskId> = Vec::new();
    let mut iterations = Vec::new();
    let mut next = 0usize; // the node the next multiplication goes to
    for k in 0..k_all {
        let m = (n - k * r) as f64;
        let mut deps: Vec<TaskId> = column[k].into_iter().collect();
        if !pipelined {
            deps.extend(&barrier);
        }
        let panel = g.compute(owner(k), (m * rf * rf - rf * rf * rf / 3.0) / rate, &deps);
        let mut ends = vec![panel];
        let mut t12 = Vec::new();
        for (j, col) in column.iter_mut().enumerate().skip(k + 1) {
            let l11 = send(
                &mut g,
                &mut connection,
                nodes,
                owner(k),
                owner(j),
                block(r),
                &[panel],
            );
            let mut deps = vec![l11];
            deps.extend(*col);
            let trsm = g.compute(owner(j), rf.powi(3) / rate, &deps);
            *col = Some(trsm);
            t12.push(send(
                &mut g,
                &mut connection,
                nodes,
                owner(j),
                owner(k),
                block(r),
                &[trsm],
            ));
        }
        let workers = match shrink {
            Some((from, keep)) if k >= from => keep,
            _ => nodes,
        };
        for (jj, j) in (k + 1..k_all).enumerate() {
            for _i in k + 1..k_all {
                let e = next % workers;
                next = e + 1;
                let request = send(
                    &mut g,
                    &mut connection,
                    nodes,
                    owner(k),
                    e,
                    2.0 * block(r),
                    &[t12[jj]],
                );
                let product = g.compute(e, 2.0 * rf.powi(3) / rate, &[request]);
                let back = send(
                    &mut g,
                    &mut connection,
                    nodes,
                    e,
                    owner(j),
                    block(r),
                    &[product],
                );
                let mut deps = vec![back];
                deps.extend(column[j]);
                let subtract = g.compute(owner(j), rf * rf / rate, &deps);
                column[j] = Some(subtract);
                ends.push(subtract);
            }
        }
        barrier = ends.clone();
        iterations.push(ends);
    }
    (g, iterations)
}

/// A transfer that waits for the previous one on the same connection (a
/// no-op within a node).
fn send(
    g: &mut TaskGraph,
    connection: &mut [Option<TaskId>],
    nodes: usize,
    from: usize,
    to: usize,
    bytes: f64,
    deps: &[TaskId],
) -> TaskId {
    let c = from * nodes + to;
    let mut all = deps.to_vec();
    if from != to {
        all.extend(connection[c]);
    }
    let t = g.transfer(from, to, bytes, &all);
    if from != to {
        connection[c] = Some(t);
    }
    t
}
