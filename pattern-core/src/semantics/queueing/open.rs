//! A design fed at a rate: its stations in series as an open network,
//! elements arriving from outside as a Poisson stream.
//!
//! The stations are the closed network's (the same fold): a thread's part
//! a queue of its time alone, a pool's `n` workers `min(n, cores)` servers
//! (its node's cores run at most that many at once), the take and
//! hand-over stations as they are. The channels between stages are taken
//! as unbounded (an open network does not block a stage on a full
//! channel).
//!
//! The models' times are constants, so each station is a GI/D/m queue:
//! its wait is Allen and Cunneen's, `(c_a² + c_s²)/2` times the M/M/m
//! wait (Erlang's C), with `c_s² = 0` and the arrivals' squared coefficient
//! of variation `c_a²` carried from station to station by Whitt's QNA,
//! `c_d² = 1 + (1 − ρ²)(c_a² − 1) + ρ²(c_s² − 1)/√m` (Poisson at the first,
//! `c_a² = 1`: Pollaczek and Khinchine's M/D/1 exactly). Single servers in
//! a row are reduced exactly (Friedman, 1965): the run waits as its slowest
//! server alone, fed the run's input, and the others never wait. Below
//! saturation each node's cores and memory are assumed
//! shared without slowing the threads; the highest rate the design
//! sustains is the smallest of its stations' (`servers / demand`), its
//! nodes' cores' (`cores / work`) and its memories' (`capacity /
//! traffic`), and the first to reach it names what limits it.

use super::program::memory_capacity;
use super::solve::Net;
use super::{Queueing, QueueingError};
use crate::grammar::{Term, fold};
use crate::queue::erlang_c;

/// What the queueing semantics predicts for a design fed at a rate.
#[derive(Clone, Debug, PartialEq)]
pub struct RatePrediction {
    /// The rate fed, elements per ns.
    pub rate: f64,
    /// The mean time of an element from its arrival to its departure, ns.
    pub latency: f64,
    /// The highest rate the design sustains, elements per ns.
    pub max_rate: f64,
    /// What reaches it first: a station (`"2: qsort"`), or a node's cores
    /// or memory (`"node 0's cores"`).
    pub limit: String,
    /// Each station, in the order an element visits them.
    pub stations: Vec<RateStation>,
}

/// One station of a design fed at a rate.
#[derive(Clone, Debug, PartialEq)]
pub struct RateStation {
    /// Its name, numbered as in the closed network (`"0: take"`).
    pub name: String,
    /// Elements it serves at once.
    pub servers: usize,
    /// Its time per element alone, ns.
    pub demand: f64,
    /// The share of each server busy at the rate.
    pub utilization: f64,
    /// An element's time there, waiting included, ns.
    pub residence_time: f64,
}

impl Queueing<'_> {
    /// The prediction for `term` fed `rate` elements per ns: the mean
    /// latency, the highest sustainable rate and what limits it (see
    /// [`RatePrediction`]). A rate at or beyond the highest is
    /// [`QueueingError::Saturated`].
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    /// use pattern_core::semantics::Queueing;
    ///
    /// let d = Design::parse("a = 100; b = 300; pipe(a, tpool[4](b))")?;
    /// let m = Machine::new(1, 8);
    /// // One element every 200 ns: `a` is half busy, `b`'s 4 workers 37.5 %.
    /// let p = Queueing::new(&m).at_rate(d.term(), 1.0 / 200.0)?;
    /// assert!((p.stations[0].utilization - 0.5).abs() < 1e-12);
    /// assert!(p.latency > 400.0);
    /// // `a` breaks first, at one element per 100 ns.
    /// assert_eq!((p.max_rate, p.limit.as_str()), (0.01, "0: a"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn at_rate(&self, term: &Term, rate: f64) -> Result<RatePrediction, QueueingError> {
        self.machine.check()?;
        if !(rate.is_finite() && rate > 0.0) {
            return Err(QueueingError::Rate { rate });
        }
        let fragment = fold(term, &mut self.clone())?;
        let net = self.net(fragment)?;
        let (max_rate, limit) = self.highest_rate(&net);
        if rate >= max_rate {
            return Err(QueueingError::Saturated {
                rate,
                max_rate,
                limit,
            });
        }
        let mut stations: Vec<RateStation> = (net.parts.iter().enumerate())
            .map(|(i, part)| {
                let servers = self.servers(part.servers, part.program.home);
                let demand = part.program.time(&[]);
                RateStation {
                    name: format!("{i}: {}", part.name),
                    servers,
                    demand,
                    utilization: rate * demand / servers as f64,
                    residence_time: demand,
                }
            })
            .collect();
        add_waits(&mut stations, rate);
        Ok(RatePrediction {
            rate,
            latency: stations.iter().map(|s| s.residence_time).sum(),
            max_rate,
            limit,
            stations,
        })
    }

    /// The servers of a part of `servers` threads on node `home`: at most
    /// its cores.
    fn servers(&self, servers: usize, home: Option<usize>) -> usize {
        let cores = home.map_or(servers, |j| self.machine.node_cores(j).max(1));
        servers.min(cores).max(1)
    }

    /// The highest rate `net` sustains and what reaches it first.
    fn highest_rate(&self, net: &Net) -> (f64, String) {
        let mut best = (f64::INFINITY, String::from("nothing"));
        let mut consider = |rate: f64, what: &dyn Fn() -> String| {
            if rate < best.0 {
                best = (rate, what());
            }
        };
        for (i, part) in net.parts.iter().enumerate() {
            let demand = part.program.time(&[]);
            let servers = self.servers(part.servers, part.program.home) as f64;
            consider(servers / demand, &|| format!("{i}: {}", part.name));
        }
        let used = net.nodes();
        for (j, (work, traffic)) in net
            .work(used)
            .into_iter()
            .zip(net.traffic(used))
            .enumerate()
        {
            let cores = self.machine.node_cores(j);
            consider(cores as f64 / work, &|| format!("node {j}'s cores"));
            if let Some(m) = self.machine.node_memory(j) {
                let capacity = memory_capacity(&m, cores);
                consider(capacity / traffic, &|| format!("node {j}'s memory"));
            }
        }
        best
    }
}

/// Adds each station's mean wait to its residence time. A run of single
/// servers in a row waits as its slowest alone would, fed the run's input
/// (Friedman's reduction of constant-time single servers in series: every
/// other server of the run finds its elements at least its time apart);
/// other stations by [`Flow::through`].
fn add_waits(stations: &mut [RateStation], rate: f64) {
    let mut flow = Flow::poisson();
    let mut i = 0;
    while i < stations.len() {
        if stations[i].servers > 1 {
            let (servers, demand) = (stations[i].servers, stations[i].demand);
            stations[i].residence_time += flow.through(servers, demand, rate);
            i += 1;
            continue;
        }
        let end = (i..stations.len())
            .find(|&j| stations[j].servers > 1)
            .unwrap_or(stations.len());
        let slowest = (i..end)
            .max_by(|&a, &b| stations[a].demand.total_cmp(&stations[b].demand))
            .unwrap_or(i);
        stations[slowest].residence_time += flow.through(1, stations[slowest].demand, rate);
        i = end;
    }
}

/// The stream of elements between two stations: its squared coefficient of
/// variation and the least time between two elements.
#[derive(Clone, Copy, Debug)]
struct Flow {
    scv: f64,
    least_gap: f64,
}

impl Flow {
    /// Poisson arrivals.
    fn poisson() -> Flow {
        Flow {
            scv: 1.0,
            least_gap: 0.0,
        }
    }

    /// Through a station of `servers` servers of constant time `demand` at
    /// `rate`: the mean wait; the flow becomes the departures'.
    fn through(&mut self, servers: usize, demand: f64, rate: f64) -> f64 {
        let m = servers as f64;
        let rho = rate * demand / m;
        if demand == 0.0 {
            return 0.0; // (a free station passes the stream on)
        }
        if servers == 1 && demand <= self.least_gap {
            return 0.0; // (its elements come at least its time apart)
        }
        // The M/M/m wait, then Allen-Cunneen's and QNA's with constant
        // service times (c_s² = 0).
        let service_scv = 0.0;
        let mm = erlang_c(servers, rate * demand) * demand / (m * (1.0 - rho));
        let wait = (self.scv + service_scv) / 2.0 * mm;
        self.scv =
            1.0 + (1.0 - rho * rho) * (self.scv - 1.0) + rho * rho * (service_scv - 1.0) / m.sqrt();
        self.least_gap = if servers == 1 { demand } else { 0.0 };
        wait
    }
}
