//! Asymptotic bounds: what a network can do at best and at worst, without
//! solving it, and the population `N*` where adding jobs stops paying.

use super::QueueError;
use super::network::Network;
use super::prepared::{Prepared, Service};

/// Asymptotic bounds of a network at one population (Lazowska et al.,
/// ch. 5), for stations of any kind: a station's demand per server counts
/// toward the bottleneck (`D/c`, `D/max α`), its least time per job
/// (`D`, `D·min_j j/α(j)`) toward the time of a lone job, and delays are
/// think time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// The population.
    pub population: usize,
    /// Throughput at most `min(N/(D + Z), 1/D_max)`.
    pub throughput_upper: f64,
    /// Throughput at least `N/(N·D_worst + Z)`: every job queues behind all
    /// others at every station.
    pub throughput_lower: f64,
    /// Response time at least `max(D, N·D_max − Z)`.
    pub response_lower: f64,
    /// Response time at most `N·D_worst`.
    pub response_upper: f64,
    /// The population where the two throughput asymptotes cross,
    /// `N* = (D + Z)/D_max`: beyond it, more jobs only queue.
    pub saturation: f64,
}

impl Network {
    /// The asymptotic bounds at `population` jobs.
    ///
    /// ```
    /// use pattern_core::queue::Network;
    /// let net = Network::new().queue("cpu", 0.2).queue("disk", 0.5).delay("think", 3.0);
    /// let b = net.bounds(10)?;
    /// assert_eq!(b.throughput_upper, 2.0); // 1/D_max
    /// assert!((b.saturation - 7.4).abs() < 1e-12); // (0.7 + 3)/0.5
    /// let x = net.mva(10)?.throughput();
    /// assert!(b.throughput_lower <= x && x <= b.throughput_upper);
    /// # Ok::<(), pattern_core::queue::QueueError>(())
    /// ```
    pub fn bounds(&self, population: usize) -> Result<Bounds, QueueError> {
        let net = Prepared::new(self, population.max(1))?;
        let (mut lone, mut worst, mut think, mut max) = (0.0, 0.0, 0.0, 0.0f64);
        for (k, (d, service)) in net.demand.iter().zip(&net.service).enumerate() {
            if net.delay[k] {
                think += d;
                continue;
            }
            let (first, slowest, fastest) = match service {
                Service::Queue | Service::Delay | Service::Multi(_) => (1.0, 1.0, net.servers[k]),
                // With company a job may be served faster than alone (α(j)
                // growing faster than j): its least time is D·min j/α(j).
                Service::General(alpha) => (
                    alpha
                        .iter()
                        .enumerate()
                        .map(|(i, a)| a / (i + 1) as f64)
                        .fold(0.0, f64::max),
                    alpha.iter().copied().fold(f64::INFINITY, f64::min),
                    alpha.iter().copied().fold(0.0, f64::max),
                ),
            };
            lone += d / first;
            worst += d / slowest;
            max = max.max(d / fastest);
        }
        let n = population as f64;
        let upper = if max > 0.0 {
            (n / (lone + think)).min(1.0 / max)
        } else {
            n / (lone + think)
        };
        Ok(Bounds {
            population,
            throughput_upper: upper,
            throughput_lower: n / (n * worst + think),
            response_lower: lone.max(n * max - think),
            response_upper: n * worst,
            saturation: if max > 0.0 {
                (lone + think) / max
            } else {
                f64::INFINITY
            },
        })
    }
}
