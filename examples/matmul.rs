//! Parallel matrix multiplication (seed 000) on Dryad and MPI: the
//! broadcast-multiply-roll algorithm composed from the Hockney model of its
//! collectives, reproducing the Dryad equation of the paper's Table 4
//! (`6.764e-8·M² + 9.259e-12·M³` s on 25 nodes) from its parameters, then
//! flat, binomial and pipelined broadcasts compared as the cluster grows.
//! Run with `cargo run --release --example matmul`.
use pattern_core::Expr;
use pattern_core::comm::Hockney;

/// The job time of PMM on N nodes (a √N×√N grid) for M×M matrices: √N
/// cycles, each broadcasting an m×m block along a row (m = M/√N), rolling an
/// m×m block, and multiplying two blocks (2m³ flops).
fn pmm(broadcast: &Expr, network: &Hockney, t_flops: f64, nodes: f64) -> Expr {
    let q = nodes.sqrt();
    let m = Expr::var("M") / q;
    let block = m.clone().pow(2.0);
    let roll = network.message(&block);
    let multiply = 2.0 * m.pow(3.0) * t_flops;
    (q * (broadcast.clone() + roll + multiply)).simplify()
}

/// Dryad's flat tree, overlapped with the multiplications: over the √N
/// cycles a process waits on average for half of the √N - 1 sends.
fn dryad_broadcast(network: &Hockney, nodes: f64) -> Expr {
    let q = Expr::num(nodes.sqrt());
    let block = (Expr::var("M") / nodes.sqrt()).pow(2.0);
    network.flat_tree(&q, &block) / 2.0
}

fn coefficient(model: &Expr, power: f64) -> f64 {
    let at = |m: f64| model.eval(&[("M", m)]).unwrap();
    // The model is a·M² + b·M³: read the coefficients off two points.
    let (m1, m2) = (1000.0f64, 2000.0f64);
    let (y1, y2) = (at(m1), at(m2));
    let b = (y2 / m2.powi(2) - y1 / m1.powi(2)) / (m2 - m1);
    let a = y1 / m1.powi(2) - b * m1;
    if power == 2.0 { a } else { b }
}

/// Table 4, Dryad on Tempest, 25 nodes × 1 core, 20 Gbps: T_flops and
/// T_io+comm per element (seconds).
const T_FLOPS: f64 = 1.16e-10;
const T_IO_COMM: f64 = 1.13e-7;

/// The Dryad model on 25 nodes, composed; the startup is negligible next to
/// the scheduling overhead (seed 000 §IV) and 40 % of the transfer is file
/// I/O.
pub fn dryad_25_nodes() -> Expr {
    let nodes = 25.0;
    let network = Hockney::new(0.0, 0.6 * T_IO_COMM).with_io(0.4 * T_IO_COMM);
    pmm(&dryad_broadcast(&network, nodes), &network, T_FLOPS, nodes)
}

/// The coefficients of M² and M³ of a model `a·M² + b·M³`.
pub fn coefficients(model: &Expr) -> (f64, f64) {
    (coefficient(model, 2.0), coefficient(model, 3.0))
}

fn main() {
    let (t_flops, t_io_comm) = (T_FLOPS, T_IO_COMM);
    let dryad = dryad_25_nodes();
    let (a, b) = coefficients(&dryad);
    println!("Dryad PMM on 25 nodes, composed: {dryad:.4} s");
    println!(
        "  M² coefficient {a:.4e} (Table 4: 6.764e-8, {:+.2} %), M³ coefficient {b:.4e} (Table 4: 9.259e-12, {:+.2} %)",
        100.0 * (a / 6.764e-8 - 1.0),
        100.0 * (b / 9.259e-12 - 1.0)
    );

    // The same job with MPI's binomial tree and with a pipelined tree, as
    // the cluster grows (M = 20000, Dryad's network; startup 50 µs).
    let network = Hockney::new(5e-5, t_io_comm);
    let big = [("M", 20000.0)];
    println!("\nOne block broadcast along a row and the whole job (M = 20000), seconds:");
    println!(
        "{:>6} {:>5} {:>12} {:>12} {:>12}   {:>10} {:>10} {:>10}",
        "nodes", "row", "flat", "binomial", "pipelined", "job flat", "job binom", "job pipe"
    );
    for nodes in [4.0f64, 16.0, 64.0, 256.0, 1024.0] {
        let q = Expr::num(nodes.sqrt());
        let block = Expr::num((20000.0 / nodes.sqrt()).powi(2));
        let flat = network.flat_tree(&q, &block);
        let binomial = network.binomial_tree(&q, &block);
        let pipelined = network.pipelined_tree_optimal(&q, &block);
        let job = |bcast: &Expr| {
            pmm(&bcast.clone(), &network, t_flops, nodes)
                .eval(&big)
                .unwrap()
        };
        let value = |e: &Expr| e.eval(&[]).unwrap();
        println!(
            "{nodes:>6} {:>5} {:>12.4} {:>12.4} {:>12.4}   {:>10.2} {:>10.2} {:>10.2}",
            nodes.sqrt(),
            value(&flat),
            value(&binomial),
            value(&pipelined),
            job(&flat),
            job(&binomial),
            job(&pipelined)
        );
    }
    println!(
        "(rows of 2 processes: one message whatever the tree; beyond, the flat tree's √N - 1 sends dominate.)"
    );
}
