//! The predictions of a run from its own kernel times: the program's design
//! with the atoms as constants, priced by the queueing semantics and by the
//! simulator on the machine of the runtime that runs the program. Nothing
//! here is tuned per case: every point gets the same machine of its runtime.

use crate::programs::{Kernel, Program};
use pattern_core::Design;
use pattern_core::exec::probe;
use pattern_core::machine::{Machine, Runtime};
use pattern_core::sim::Simulation;
use std::error::Error;

/// Elements a simulation runs: enough for a steady state.
const SIMULATED_ELEMENTS: usize = 2_000;

/// The places of a channel between two stages (the programs' `bounded(4)`).
const BUFFER: usize = 4;

/// The runtime that runs `program`: rayon for the pools, std threads for
/// the pipelines (rayon has no pipeline).
pub fn runtime_of(program: &Program) -> Runtime {
    match program {
        Program::Pool(..) => Runtime::Rayon,
        Program::Pipe(_) => Runtime::Threads,
    }
}

/// The machine the predictions of programs run by `runtime` use: this
/// computer's cores as one node, with that runtime's waiting part as the
/// probe measures it (`pattern machine --probe --runtime R`).
pub fn machine(runtime: Runtime, options: &probe::Options) -> Result<Machine, Box<dyn Error>> {
    Ok(probe::measure(&options.clone().runtime(runtime))?.machine)
}

/// The design of `program` on arrays of `x` integers, with each kernel's
/// time in ns as a constant atom and the bytes it moves, e.g.
/// `qsort = 212345.6 [bytes = 1048576]; tpool[4](qsort)`.
pub fn design_text(program: &Program, kernel_ns: &[(Kernel, f64)], x: usize) -> String {
    let mut text = String::new();
    for kernel in program.kernels() {
        let ns = kernel_ns
            .iter()
            .find(|(k, _)| *k == kernel)
            .map_or(0.0, |(_, ns)| *ns);
        text.push_str(&format!("{} = {ns:.1}", kernel.name()));
        match kernel.bytes(x) {
            0 => text.push_str("; "),
            bytes => text.push_str(&format!(" [bytes = {bytes}]; ")),
        }
    }
    text.push_str(&program.name());
    text
}

/// The queueing and the simulated time per element of `program` in ns,
/// each `None` where it cannot be evaluated.
pub fn predict(
    program: &Program,
    kernel_ns: &[(Kernel, f64)],
    x: usize,
    machine: &Machine,
) -> Result<(Option<f64>, Option<f64>), Box<dyn Error>> {
    let design = Design::parse(&design_text(program, kernel_ns, x))?;
    let finite = |t: f64| (t.is_finite() && t > 0.0).then_some(t);
    let queueing = design
        .queueing(machine, &[])
        .ok()
        .and_then(|p| finite(p.time_per_element));
    let simulated = Simulation::new(&design, machine)
        .elements(SIMULATED_ELEMENTS)
        .buffer(BUFFER)
        .run()
        .ok()
        .and_then(|r| finite(r.time_per_element()));
    Ok((queueing, simulated))
}
