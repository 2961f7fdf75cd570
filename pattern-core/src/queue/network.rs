//! The network: its stations, built with a builder and checked when solved.

use super::QueueError;
use std::fmt;
use std::sync::Arc;

/// A closed, single-class queueing network: stations that every job visits
/// in turn, each with its service demand `D` (visits × service time), and
/// a fixed population of jobs.
///
/// The builder methods take and return the network; the stations are
/// checked when it is solved ([`Network::mva`], [`Network::mva_approx`],
/// [`Network::sweep`], [`Network::bounds`]), so a bad station is an error
/// there, never a panic here.
///
/// ```
/// use pattern_core::queue::Network;
///
/// let net = Network::new()
///     .queue("disk", 0.03)
///     .multi_server("cpu", 2, 0.05)
///     .delay("think", 4.0);
/// let s = net.mva(20)?;
/// // Little's law over the whole cycle: N = X·(R + Z).
/// let cycle = s.throughput() * (s.response_time() + 4.0);
/// assert!((cycle - 20.0).abs() < 1e-9);
/// assert!(s.utilization("disk")? <= 1.0);
/// # Ok::<(), pattern_core::queue::QueueError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Network {
    stations: Vec<Station>,
}

/// One station of a [`Network`].
#[derive(Clone, Debug)]
pub struct Station {
    name: String,
    demand: f64,
    kind: Kind,
}

/// What kind of station it is, which fixes its service rate with `n` jobs
/// present: `α(n)/D`.
#[derive(Clone, Debug, PartialEq)]
pub enum StationKind {
    /// One server, first come first served (or processor sharing): `α(n) = 1`.
    Queue,
    /// `servers` identical servers: `α(n) = min(n, servers)`.
    MultiServer {
        /// The number of servers.
        servers: usize,
    },
    /// A general load-dependent rate `α(n)`, given by a function.
    LoadDependent,
    /// Infinite servers, no queueing (think time, a network latency):
    /// `α(n) = n`.
    Delay,
}

/// A load-dependent station's rate multiplier `α(n)`.
#[derive(Clone)]
pub(crate) struct Rate(pub(crate) Arc<dyn Fn(usize) -> f64 + Send + Sync>);

impl fmt::Debug for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("α(n)")
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Kind {
    Queue,
    MultiServer(usize),
    LoadDependent(Rate),
    Delay,
}

impl Network {
    /// A network without stations.
    pub fn new() -> Self {
        Self::default()
    }

    /// A single-server queue with service demand `demand`.
    pub fn queue(self, name: impl Into<String>, demand: f64) -> Self {
        self.with(name, demand, Kind::Queue)
    }

    /// A station of `servers` identical servers with service demand
    /// `demand`: with `n` jobs present it serves at rate `min(n, servers)/D`.
    pub fn multi_server(self, name: impl Into<String>, servers: usize, demand: f64) -> Self {
        self.with(name, demand, Kind::MultiServer(servers))
    }

    /// A load-dependent station: with `n ≥ 1` jobs present it serves at
    /// rate `α(n)/D`. `α` must return a finite number `> 0` for every `n`
    /// up to the population (checked when solved).
    pub fn load_dependent(
        self,
        name: impl Into<String>,
        demand: f64,
        alpha: impl Fn(usize) -> f64 + Send + Sync + 'static,
    ) -> Self {
        self.with(name, demand, Kind::LoadDependent(Rate(Arc::new(alpha))))
    }

    /// A delay (infinite servers): every job spends `demand` there, without
    /// queueing. Think time is a delay.
    pub fn delay(self, name: impl Into<String>, demand: f64) -> Self {
        self.with(name, demand, Kind::Delay)
    }

    fn with(mut self, name: impl Into<String>, demand: f64, kind: Kind) -> Self {
        self.stations.push(Station {
            name: name.into(),
            demand,
            kind,
        });
        self
    }

    /// The stations, in the order they were added.
    pub fn stations(&self) -> &[Station] {
        &self.stations
    }

    /// Checks every station: a name of its own, a finite demand `>= 0`, at
    /// least one server.
    pub(crate) fn check(&self) -> Result<(), QueueError> {
        if self.stations.is_empty() {
            return Err(QueueError::EmptyNetwork);
        }
        let mut seen = std::collections::HashSet::new();
        for s in &self.stations {
            if !seen.insert(s.name.as_str()) {
                return Err(QueueError::DuplicateStation {
                    name: s.name.clone(),
                });
            }
            if !(s.demand.is_finite() && s.demand >= 0.0) {
                return Err(QueueError::InvalidDemand {
                    station: s.name.clone(),
                    value: s.demand,
                });
            }
            if let Kind::MultiServer(0) = s.kind {
                return Err(QueueError::NoServers {
                    station: s.name.clone(),
                });
            }
        }
        Ok(())
    }
}

impl Station {
    /// The station's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its service demand `D`: visits × service time.
    pub fn demand(&self) -> f64 {
        self.demand
    }

    /// What kind of station it is.
    pub fn kind(&self) -> StationKind {
        match self.kind {
            Kind::Queue => StationKind::Queue,
            Kind::MultiServer(servers) => StationKind::MultiServer { servers },
            Kind::LoadDependent(_) => StationKind::LoadDependent,
            Kind::Delay => StationKind::Delay,
        }
    }

    /// The rate multiplier `α(n)` with `n ≥ 1` jobs present: the station
    /// serves at rate `α(n)/D`.
    pub fn rate(&self, n: usize) -> f64 {
        match &self.kind {
            Kind::Queue => 1.0,
            Kind::MultiServer(c) => n.min(*c) as f64,
            Kind::LoadDependent(alpha) => (alpha.0)(n),
            Kind::Delay => n as f64,
        }
    }

    pub(crate) fn raw_kind(&self) -> &Kind {
        &self.kind
    }
}
