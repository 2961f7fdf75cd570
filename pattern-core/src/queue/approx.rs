//! Approximate MVA for large populations: its settings and its entry
//! points. Schweitzer-Bard's fixed point (module `schweitzer`) solves at
//! `N` alone, estimating the queue a job finds on arrival from the queue
//! at `N` itself; the Linearizer (module `linearizer`), the default,
//! corrects that estimate by the change it measures between populations.
//! Their errors against exact MVA are measured in `tests/queue_approx.rs`
//! and stated in `docs/queueing.md`.

use super::QueueError;
use super::linearizer;
use super::network::Network;
use super::prepared::{Prepared, Service};
use super::schweitzer::{Model, marginals};
use super::solution::{Labels, Solution};

/// How [`Network::mva_approx_with`] treats multi-server stations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MultiServer {
    /// The station's marginal probabilities at `N − 1` are those of the
    /// station alone, fed at the network's throughput scaled by
    /// `(N − 1)/N` (as Schweitzer scales the queue); the same treatment as
    /// general load-dependent stations. The Linearizer shapes them further
    /// (see [`Method::Linearizer`]).
    #[default]
    Marginals,
    /// Seidmann et al.: a `c`-server station of demand `D` is a single
    /// server of demand `D/c` followed by a delay of `D·(c − 1)/c`.
    Seidmann,
}

/// Which approximation [`Network::mva_approx_with`] (one class) and
/// [`MultiClassNetwork::mva_approx_with`](super::MultiClassNetwork::mva_approx_with)
/// (several) solve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// Chandy and Neuse's Linearizer (1982), the default. One class:
    /// Schweitzer's step at `N − 7`, corrected by the change of each
    /// station's share of the jobs measured one population above, then
    /// exact MVA's steps up to `N`, each load-dependent station's marginals
    /// shaped to its queue; its largest throughput error over the random
    /// networks of `tests/queue_approx.rs` is a twentieth of
    /// Schweitzer-Bard's (0.28 % against 6.8 % on queues and delays, 0.68 %
    /// against 14.8 % with multi-server stations), for two to four times
    /// its time. Several classes: the core solved at `N` and at each
    /// `N − 1_c`, the change of each class's share measured between them,
    /// multi-server stations' marginals carried (1.62 % against 23.3 % on
    /// queues and delays). Figures in docs/queueing.md.
    #[default]
    Linearizer,
    /// Schweitzer-Bard: one fixed point at `N`, the cheapest.
    SchweitzerBard,
}

/// Settings of approximate MVA.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Approximation {
    /// The iteration stops when the throughput changes by no more than
    /// this, relatively. Default `1e-10`.
    pub tolerance: f64,
    /// The most steps before giving up with [`QueueError::NoConvergence`]:
    /// bisection steps on the throughput, summed over every solve (the
    /// Linearizer's lowest population is solved three times). Default 2,000
    /// (bracketing the throughput over f64's whole range takes about
    /// 1,100; then 35 more reach 1e-10).
    pub max_iterations: usize,
    /// Multi-server stations. Default [`MultiServer::Marginals`].
    pub multi_server: MultiServer,
    /// The approximation. Default [`Method::Linearizer`].
    pub method: Method,
}

impl Default for Approximation {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 2_000,
            multi_server: MultiServer::Marginals,
            method: Method::Linearizer,
        }
    }
}

impl Network {
    /// Approximate MVA at `population` jobs with the default
    /// [`Approximation`]: the Linearizer.
    pub fn mva_approx(&self, population: usize) -> Result<Solution, QueueError> {
        self.mva_approx_with(population, &Approximation::default())
    }

    /// Approximate MVA with explicit settings.
    ///
    /// ```
    /// use pattern_core::queue::{Approximation, Method, Network};
    ///
    /// // One 7-server station, a short queue and a think time, 8 jobs.
    /// let net = Network::new()
    ///     .multi_server("cpu", 7, 8.0)
    ///     .queue("disk", 0.1)
    ///     .delay("think", 0.5);
    /// let exact = net.mva(8)?.throughput();
    /// let linearizer = net.mva_approx(8)?.throughput();
    /// let schweitzer = Approximation { method: Method::SchweitzerBard, ..Default::default() };
    /// let bard = net.mva_approx_with(8, &schweitzer)?.throughput();
    /// assert!((linearizer / exact - 1.0).abs() < 0.005);
    /// assert!((bard / exact - 1.0) < -0.17); // Schweitzer-Bard: −17.9 %
    /// # Ok::<(), pattern_core::queue::QueueError>(())
    /// ```
    pub fn mva_approx_with(
        &self,
        population: usize,
        settings: &Approximation,
    ) -> Result<Solution, QueueError> {
        if !(settings.tolerance.is_finite() && settings.tolerance > 0.0) {
            return Err(QueueError::InvalidOption {
                option: "tolerance",
                value: settings.tolerance.to_string(),
                expected: "a finite number > 0",
            });
        }
        let net = Prepared::new(self, population)?;
        let labels = Labels::new(self, &net);
        let k_all = net.demand.len();
        if population == 0 {
            return Ok(labels.solution(0, 0.0, &vec![0.0; k_all], &vec![0.0; k_all]));
        }
        let seidmann = settings.multi_server == MultiServer::Seidmann;
        let model = Model::new(&net, seidmann, settings.tolerance, settings.max_iterations);
        let mut steps = 0;
        let (x, residence) = match settings.method {
            Method::SchweitzerBard => model.core(population, &vec![0.0; k_all], &mut steps)?,
            Method::Linearizer => linearizer::solve(&model, population, &mut steps)?,
        };
        let (x, residence) = model.capped(self, population, x, residence)?;
        let utilization: Vec<f64> = (0..k_all)
            .map(|k| match &net.service[k] {
                Service::General(_) => {
                    1.0 - marginals(&model.ln_alpha[k], x, net.demand[k], population)[0]
                }
                _ => x * (net.demand[k] / net.servers[k]),
            })
            .collect();
        Ok(labels.solution(population, x, &residence, &utilization))
    }
}
