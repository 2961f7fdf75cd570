//! Approximate multi-class MVA: Bard and Schweitzer's fixed point, and the
//! core the Linearizer (module `linearizer`, the default) solves.
//!
//! Exact MVA visits every population vector below `N`; Bard-Schweitzer
//! solves at `N` alone, estimating the queue a class-`c` job finds on
//! arrival from the queues at `N` itself:
//! `Q_k,c'(N − 1_c) ≈ Q_k,c'(N)` for the other classes and
//! `(N_c − 1)/N_c · Q_k,c(N)` for its own, so the queue it finds is
//! `Q_k(N) − Q_k,c(N)/N_c`. A general load-dependent station (and a
//! multi-server one, by default: [`MultiServer::Marginals`], as for one
//! class, the more accurate here too) adds to `D/α(N)·(1 + queue found)` a
//! correction for the first jobs, weighed by the marginals of the station
//! alone fed at the other jobs' load, as the single-class approximation
//! does. With [`MultiServer::Seidmann`] a `c`-server station is Seidmann et
//! al.'s decomposition: a single server of demand `D/c` (Schweitzer's
//! estimate on its own queue) and a delay of `D·(c − 1)/c`. The fixed
//! point is found by successive substitution (module `fixed`). The
//! Linearizer (module `linearizer`) adds to the jobs found its measured
//! correction and solves the same fixed point at `N` and at each `N − 1_j`.

use super::super::QueueError;
use super::super::{Method, MultiServer};
use super::fixed::{Fixed, Stop};
use super::linearizer;
use super::network::MultiClassNetwork;
use super::solution::{MultiClassSolution, Raw};

/// Settings of approximate multi-class MVA.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MultiClassApproximation {
    /// The iteration stops when no queue length changes by more than this
    /// times its class's population, and no throughput by more than this
    /// relatively. Default `1e-10`.
    pub tolerance: f64,
    /// The most iterations before giving up with
    /// [`QueueError::NoConvergence`]. Default 100,000.
    pub max_iterations: usize,
    /// Multi-server stations. Default [`MultiServer::Marginals`].
    pub multi_server: MultiServer,
    /// The approximation. Default [`Method::Linearizer`];
    /// [`Method::SchweitzerBard`] solves Bard-Schweitzer's fixed point
    /// alone.
    pub method: Method,
}

impl Default for MultiClassApproximation {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 100_000,
            multi_server: MultiServer::Marginals,
            method: Method::Linearizer,
        }
    }
}

impl MultiClassNetwork {
    /// Approximate multi-class MVA with the default
    /// [`MultiClassApproximation`]: Chandy and Neuse's Linearizer,
    /// multi-server stations by their marginals. Each fixed point costs
    /// `O(C·K)` per iteration for queues, delays and multi-server stations,
    /// plus `O(N)` per class at each general load-dependent station,
    /// independent of the populations otherwise; the Linearizer solves
    /// `3·C + 4` of them (Bard-Schweitzer one).
    ///
    /// ```
    /// use pattern_core::queue::{Method, MultiClassApproximation, MultiClassNetwork};
    ///
    /// // A class of one job sharing a queue with a class of six.
    /// let net = MultiClassNetwork::new()
    ///     .queue("cpu")
    ///     .delay("think")
    ///     .class("one", 1, &[("cpu", 1.0)])
    ///     .class("six", 6, &[("cpu", 0.2), ("think", 1.0)]);
    /// let exact = net.mva()?.throughput("one")?;
    /// let linearizer = net.mva_approx()?.throughput("one")?;
    /// let bard = MultiClassApproximation { method: Method::SchweitzerBard, ..Default::default() };
    /// let schweitzer = net.mva_approx_with(&bard)?.throughput("one")?;
    /// assert!((linearizer / exact - 1.0).abs() < 0.01);
    /// assert!((schweitzer / exact - 1.0).abs() > 0.05);
    /// # Ok::<(), pattern_core::queue::QueueError>(())
    /// ```
    pub fn mva_approx(&self) -> Result<MultiClassSolution, QueueError> {
        self.mva_approx_with(&MultiClassApproximation::default())
    }

    /// Approximate multi-class MVA with explicit settings.
    pub fn mva_approx_with(
        &self,
        settings: &MultiClassApproximation,
    ) -> Result<MultiClassSolution, QueueError> {
        if !(settings.tolerance.is_finite() && settings.tolerance > 0.0) {
            return Err(QueueError::InvalidOption {
                option: "tolerance",
                value: settings.tolerance.to_string(),
                expected: "a finite number > 0",
            });
        }
        let model = self.model()?;
        let active = model.active();
        let seidmann = settings.multi_server == MultiServer::Seidmann;
        let stop = Stop {
            tolerance: settings.tolerance,
            max_iterations: settings.max_iterations,
        };
        let fixed = match settings.method {
            Method::SchweitzerBard => {
                let population = active.population.clone();
                let mut fixed = Fixed::new(&active, seidmann, population, false);
                fixed.solve(stop)?;
                fixed
            }
            Method::Linearizer => linearizer::solve(&active, seidmann, stop)?,
        };
        let busy = |i: usize| fixed.busy(i);
        let raw = Raw {
            x: &fixed.x,
            residence: &fixed.residence,
            busy: &busy,
        };
        Ok(MultiClassSolution::new(&model, &active, raw))
    }
}
