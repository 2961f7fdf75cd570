//! A design's contract (issue 38, point 3): its time per element
//! predicted on a machine against runs of the design by the executor, with
//! the same verdict and report as a function's.

use super::check::Contract;
#[cfg(feature = "exec")]
use super::error::ContractError;
#[cfg(feature = "exec")]
use super::source::Source;
use crate::Design;
#[cfg(feature = "exec")]
use crate::Term;
#[cfg(feature = "exec")]
use crate::exec::{Executor, Kernels};
#[cfg(feature = "exec")]
use crate::fit::measure::{Measurement, Samples};
use crate::machine::Machine;

impl Contract {
    /// The contract of a design on `machine` (feature `queueing`): at each
    /// size, its time per element predicted by the queueing semantics (the
    /// design's threads on the machine's cores; with a core for every
    /// thread, the operators' model) against measured times per element,
    /// from `DesignRuns` (feature `exec`) or any [`Source`](super::Source).
    /// The class compared is the operators' model's. Every count must be
    /// a number (`tpool[4]`, not `tpool[n]`); the report names the design
    /// `name`.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::contract::{Contract, Recorded};
    /// use pattern_core::machine::Machine;
    ///
    /// // Two stages of 3x and 1x ns on one core share it: 4x per element.
    /// let design = Design::parse("a = 3 * x; b = x; pipe(a, b)")?;
    /// let times: Vec<(usize, Vec<f64>)> =
    ///     [1000, 2000, 4000].iter().map(|&x| (x, vec![4.1 * x as f64; 3])).collect();
    /// let report = Contract::of_design("pipe(a, b)", &design, &Machine::new(1, 1))
    ///     .sizes([1000, 2000, 4000])
    ///     .check(&mut Recorded::from_times("runs", &times))?;
    /// assert!(report.holds(), "{report}");
    /// assert!((report.ratios.median - 4.1 / 4.0).abs() < 1e-9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of_design(name: &str, design: &Design, machine: &Machine) -> Contract {
        let mut contract = Contract::of_model(name, design.model());
        contract.on = Some(Box::new((design.clone(), machine.clone())));
        contract
    }
}

/// Runs of a design by the executor (feature `exec`): at each size `x`,
/// `runs` runs over `elements` elements built by `input(x)`, the sizes
/// taking turns; each run's time per element in steady state
/// ([`Metrics::inter_departure_ns`](crate::exec::Metrics::inter_departure_ns))
/// is one repetition. Building the elements is outside the runs.
#[cfg(feature = "exec")]
pub struct DesignRuns<'k, E, G> {
    term: Term,
    executor: Executor<'k, E>,
    input: G,
    elements: usize,
    runs: usize,
}

#[cfg(feature = "exec")]
impl<'k, E: Send, G> DesignRuns<'k, E, G> {
    /// Runs `design` with `kernels` (one per atom, by name) on elements
    /// from `input`: 5 runs of 64 elements per size.
    pub fn new(design: &Design, kernels: &'k Kernels<E>, input: G) -> DesignRuns<'k, E, G> {
        DesignRuns {
            term: design.term().clone(),
            executor: Executor::new(kernels),
            input,
            elements: 64,
            runs: 5,
        }
    }

    /// Elements per run (default 64; at least 2, for a time between two
    /// departures).
    pub fn elements(mut self, n: usize) -> Self {
        self.elements = n.max(2);
        self
    }

    /// Runs per size (default 5; at least 1).
    pub fn runs(mut self, n: usize) -> Self {
        self.runs = n.max(1);
        self
    }

    /// The executor's options (pinning, channel capacity, ...).
    pub fn executor(mut self, executor: Executor<'k, E>) -> Self {
        self.executor = executor;
        self
    }
}

#[cfg(feature = "exec")]
impl<E: Send + 'static, G: FnMut(usize) -> E> Source for DesignRuns<'_, E, G> {
    fn measure(&mut self, sizes: &[usize]) -> Result<Measurement, ContractError> {
        let mut times = vec![Vec::with_capacity(self.runs); sizes.len()];
        for _ in 0..self.runs {
            for (&x, times) in sizes.iter().zip(&mut times) {
                let inputs: Vec<E> = (0..self.elements).map(|_| (self.input)(x)).collect();
                let run = (self.executor.run(&self.term, inputs))
                    .map_err(|e| ContractError::Run(e.to_string()))?;
                let ns = run
                    .metrics
                    .inter_departure_ns
                    .ok_or_else(|| ContractError::Run(format!("no time per element at x = {x}")))?;
                times.push(ns);
            }
        }
        let samples = sizes
            .iter()
            .zip(times)
            .map(|(&x, times_ns)| Samples {
                x,
                times_ns,
                stopped_early: false,
            })
            .collect();
        Ok(Measurement::from_samples("design runs", samples))
    }
}
