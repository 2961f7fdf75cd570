//! Mixed networks: closed classes (a population each) and open classes
//! (an arrival rate each) sharing the same stations.
//!
//! Solved by the standard reduction (Lazowska et al., *Quantitative System
//! Performance*, §7.4; Bolch et al., §8.2): the open classes load station
//! `k` with `U_k = Σ_open λ_c·D_ck` busy servers, whatever the closed
//! classes do, so the stability check comes first (a saturated station is
//! [`QueueError::Saturated`], naming it). The closed classes then see the
//! open load as a slower server: at a queue their demands become
//! `D/(1 − U_k)`, and the closed network so inflated is solved by the
//! multi-class solver, exact or approximate. An open job arriving at a
//! queue finds the closed jobs there and the open ones:
//! `R_ck = D_ck·(1 + Q_k^closed)/(1 − U_k)`. At a delay nothing interacts.
//! For queues and delays the reduction is exact (product form).
//!
//! A `c`-server station is exact too. Visited by one kind of class, it is
//! what that kind's solver makes of it (the closed classes' `c` servers,
//! the open classes' M/M/c queue by Erlang's C, as [`super::OpenNetwork`]
//! solves it). Visited by both, the open jobs are summed out of the product
//! form: the closed classes see a load-dependent station, `α̃(m)` servers'
//! worth with `m` of their jobs there (`c·(1 − U/c)` from `m = c` on;
//! module `servers`), and an open job's time there per unit of demand is
//! a probe's: a closed class of one job and demand 1, which on arrival
//! finds the others as they are without it (the arrival theorem), as a
//! Poisson arrival does (PASTA). That costs a second closed solution, with
//! the probe. A general load-dependent station may be visited by closed
//! classes only ([`QueueError::OpenAtLoadDependent`]).
//!
//! ```
//! use pattern_core::queue::MixedNetwork;
//!
//! // Lazowska et al., p. 147: two open classes and two closed ones.
//! let net = MixedNetwork::new()
//!     .queue("cpu")
//!     .queue("disk")
//!     .open_class("a", 1.0, &[("cpu", 0.25), ("disk", 1.0 / 6.0)])
//!     .open_class("b", 0.5, &[("cpu", 0.5), ("disk", 1.0)])
//!     .closed_class("c", 1, &[("cpu", 0.5), ("disk", 1.0)])
//!     .closed_class("d", 1, &[("cpu", 1.0), ("disk", 4.0 / 3.0)]);
//! let s = net.solve()?;
//! // The closed classes see demands (1, 3) and (2, 4): X = 3/19, 2/19.
//! assert!((s.throughput("c")? - 3.0 / 19.0).abs() < 1e-14);
//! assert!((s.of("c", "disk")?.queue_length - 15.0 / 19.0).abs() < 1e-14);
//! // An open job at the CPU: 0.25·(1 + 9/19)/(1 − 1/2).
//! assert!((s.residence_time("a", "cpu")? - 14.0 / 19.0).abs() < 1e-14);
//! // The open rates may grow 1.5 times before the disk (2/3 busy) saturates.
//! let (factor, station) = s.headroom();
//! assert!((factor - 1.5).abs() < 1e-12 && station == "disk");
//! # Ok::<(), pattern_core::queue::QueueError>(())
//! ```

mod servers;

use super::network::{Kind, Rate};
use super::open::erlang_c;
use super::{
    ClassFigures, MAX_MULTICLASS_STEPS, MultiClassApproximation, MultiClassNetwork, QueueError,
};
use std::sync::Arc;

/// What drives a class of a [`MixedNetwork`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Workload {
    /// A closed class: this many jobs, always in the network.
    Closed(usize),
    /// An open class: jobs arriving at this rate (Poisson), per unit of
    /// time, each leaving when done.
    Open(f64),
}

/// One class: its name, workload and demands by station name.
#[derive(Clone, Debug)]
struct Class {
    name: String,
    workload: Workload,
    demands: Vec<(String, f64)>,
}

/// A queueing network of closed and open classes (docs/queueing.md,
/// "Mixed networks"): stations as [`MultiClassNetwork`] has them, closed
/// classes with populations, open classes with arrival rates.
///
/// Built with builder methods; everything is checked when it is solved,
/// so bad input is an error there, never a panic. A class does not visit
/// the stations its demands leave out; two demands of one class at one
/// station add up.
///
/// ```
/// use pattern_core::queue::MixedNetwork;
///
/// let net = MixedNetwork::new()
///     .multi_server("cpu", 2)
///     .queue("disk")
///     .delay("think")
///     .closed_class("users", 10, &[("cpu", 0.05), ("disk", 0.03), ("think", 2.0)])
///     .open_class("batch", 4.0, &[("cpu", 0.1), ("disk", 0.1)]);
/// let s = net.solve()?;
/// // Little's law over the users' cycle.
/// let x = s.throughput("users")?;
/// assert!((x * s.cycle_time("users")? - 10.0).abs() < 1e-9);
/// // The batch jobs keep the disk 0.4 busy, whatever the users do.
/// assert!((s.of("batch", "disk")?.utilization - 0.4).abs() < 1e-12);
/// assert!(s.response_time("batch")? > 0.2);
/// # Ok::<(), pattern_core::queue::QueueError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct MixedNetwork {
    stations: Vec<(String, Kind)>,
    classes: Vec<Class>,
}

/// How the closed classes are solved.
enum Closed<'a> {
    Exact(f64),
    Approximate(&'a MultiClassApproximation),
}

/// How a station is solved, from its kind and who visits it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Treatment {
    Delay,
    /// One server: the closed demands inflated, the open ones by formula.
    Queue,
    /// `c` servers, one kind of class at most: as the kind alone solves it.
    Servers(usize),
    /// `c` servers that both kinds visit: the open jobs summed out
    /// (module `servers`).
    Shared(usize),
    /// A general load-dependent station (closed classes only).
    General,
}

impl Treatment {
    fn servers(self) -> f64 {
        match self {
            Treatment::Servers(c) | Treatment::Shared(c) => c as f64,
            _ => 1.0,
        }
    }
}

/// The checked network: demands by class then station, and the open load.
struct Checked {
    demand: Vec<Vec<f64>>,
    treatment: Vec<Treatment>,
    /// `U_k`: the servers the open classes keep busy at each station.
    busy: Vec<f64>,
}

impl MixedNetwork {
    /// A network without stations or classes.
    pub fn new() -> Self {
        Self::default()
    }

    /// A single-server station (first come first served, or processor
    /// sharing).
    pub fn queue(self, name: impl Into<String>) -> Self {
        self.station(name, Kind::Queue)
    }

    /// A station of `servers` identical servers.
    pub fn multi_server(self, name: impl Into<String>, servers: usize) -> Self {
        self.station(name, Kind::MultiServer(servers))
    }

    /// A load-dependent station serving at `α(n)` times one server's rate
    /// with `n` jobs present; closed classes only.
    pub fn load_dependent(
        self,
        name: impl Into<String>,
        alpha: impl Fn(usize) -> f64 + Send + Sync + 'static,
    ) -> Self {
        self.station(name, Kind::LoadDependent(Rate(Arc::new(alpha))))
    }

    /// A delay (infinite servers): no queueing.
    pub fn delay(self, name: impl Into<String>) -> Self {
        self.station(name, Kind::Delay)
    }

    fn station(mut self, name: impl Into<String>, kind: Kind) -> Self {
        self.stations.push((name.into(), kind));
        self
    }

    /// A closed class of `population` jobs, with its demand (visits ×
    /// service time) at each station it visits.
    pub fn closed_class(
        self,
        name: impl Into<String>,
        population: usize,
        demands: &[(&str, f64)],
    ) -> Self {
        self.class(name, Workload::Closed(population), demands)
    }

    /// An open class arriving at `rate` jobs per unit of time, with its
    /// demand at each station it visits.
    pub fn open_class(self, name: impl Into<String>, rate: f64, demands: &[(&str, f64)]) -> Self {
        self.class(name, Workload::Open(rate), demands)
    }

    /// A class of either kind.
    pub fn class(
        mut self,
        name: impl Into<String>,
        workload: Workload,
        demands: &[(&str, f64)],
    ) -> Self {
        self.classes.push(Class {
            name: name.into(),
            workload,
            demands: demands.iter().map(|(s, d)| (s.to_string(), *d)).collect(),
        });
        self
    }

    /// The stations' names, in the order they were added.
    pub fn station_names(&self) -> impl Iterator<Item = &str> {
        self.stations.iter().map(|(n, _)| n.as_str())
    }

    /// The classes' names and workloads, in the order they were added.
    pub fn classes(&self) -> impl Iterator<Item = (&str, Workload)> {
        self.classes.iter().map(|c| (c.name.as_str(), c.workload))
    }

    /// Solves the network, the closed classes by exact multi-class MVA
    /// (refused past [`MAX_MULTICLASS_STEPS`], as
    /// [`MultiClassNetwork::mva`]).
    pub fn solve(&self) -> Result<MixedSolution, QueueError> {
        self.solve_within(MAX_MULTICLASS_STEPS)
    }

    /// Solves the network, the closed classes by exact multi-class MVA
    /// refused past `max_steps` ([`MultiClassNetwork::mva_within`]).
    pub fn solve_within(&self, max_steps: f64) -> Result<MixedSolution, QueueError> {
        self.solve_by(Closed::Exact(max_steps))
    }

    /// Solves the network, the closed classes by the default approximate
    /// multi-class MVA.
    pub fn solve_approx(&self) -> Result<MixedSolution, QueueError> {
        self.solve_approx_with(&MultiClassApproximation::default())
    }

    /// Solves the network, the closed classes by approximate multi-class
    /// MVA with these settings ([`MultiClassNetwork::mva_approx_with`]).
    pub fn solve_approx_with(
        &self,
        settings: &MultiClassApproximation,
    ) -> Result<MixedSolution, QueueError> {
        self.solve_by(Closed::Approximate(settings))
    }

    fn solve_by(&self, how: Closed<'_>) -> Result<MixedSolution, QueueError> {
        let checked = self.check()?;
        let closed = self.closed(&checked, &how)?;
        Ok(self.assemble(&checked, &closed))
    }

    /// Checks names, servers, rates and demands, the stations the open
    /// classes may visit and their stability.
    fn check(&self) -> Result<Checked, QueueError> {
        if self.stations.is_empty() {
            return Err(QueueError::EmptyNetwork);
        }
        if self.classes.is_empty() {
            return Err(QueueError::InvalidOption {
                option: "classes",
                value: "none".into(),
                expected: "at least one class (`closed_class` or `open_class`)",
            });
        }
        let names: Vec<&str> = self.station_names().collect();
        for (k, (name, kind)) in self.stations.iter().enumerate() {
            if names[..k].contains(&name.as_str()) {
                return Err(QueueError::DuplicateStation { name: name.clone() });
            }
            if let Kind::MultiServer(0) = kind {
                return Err(QueueError::NoServers {
                    station: name.clone(),
                });
            }
        }
        let classes: Vec<&str> = self.classes.iter().map(|c| c.name.as_str()).collect();
        let mut demand = Vec::with_capacity(self.classes.len());
        for (c, class) in self.classes.iter().enumerate() {
            if classes[..c].contains(&class.name.as_str()) {
                return Err(QueueError::Class {
                    problem: "two classes are named",
                    name: class.name.clone(),
                    known: classes.join(", "),
                });
            }
            if let Workload::Open(rate) = class.workload
                && !(rate.is_finite() && rate >= 0.0)
            {
                return Err(QueueError::InvalidArrivalRate {
                    class: class.name.clone(),
                    value: rate,
                });
            }
            let mut row = vec![0.0; names.len()];
            for (station, d) in &class.demands {
                let k = names.iter().position(|n| n == station).ok_or_else(|| {
                    QueueError::UnknownStation {
                        name: station.clone(),
                        known: names.join(", "),
                    }
                })?;
                row[k] += d;
                if !(d.is_finite() && *d >= 0.0 && row[k].is_finite()) {
                    return Err(QueueError::InvalidDemand {
                        station: station.clone(),
                        value: if d.is_finite() { row[k] } else { *d },
                    });
                }
            }
            demand.push(row);
        }
        let treatment = self.treatments(&demand)?;
        let busy = self.open_load(&demand, &treatment)?;
        Ok(Checked {
            demand,
            treatment,
            busy,
        })
    }

    /// Each station's treatment, from its kind and the classes visiting.
    fn treatments(&self, demand: &[Vec<f64>]) -> Result<Vec<Treatment>, QueueError> {
        let visited = |k: usize, open: bool| {
            self.classes.iter().zip(demand).any(|(class, row)| {
                row[k] > 0.0
                    && match class.workload {
                        Workload::Open(_) => open,
                        Workload::Closed(n) => !open && n > 0,
                    }
            })
        };
        let mut out = Vec::with_capacity(self.stations.len());
        for (k, (name, kind)) in self.stations.iter().enumerate() {
            out.push(match kind {
                Kind::Delay => Treatment::Delay,
                Kind::Queue | Kind::MultiServer(1) => Treatment::Queue,
                Kind::MultiServer(c) if visited(k, true) && visited(k, false) => {
                    if *c > servers::MAX_SHARED_SERVERS {
                        return Err(QueueError::InvalidOption {
                            option: "servers",
                            value: format!("{c} at `{name}`, which open and closed classes share"),
                            expected: "at most 10,000,000 there (the open jobs are summed out over every server): give it fewer, or the open classes a station of their own",
                        });
                    }
                    Treatment::Shared(*c)
                }
                Kind::MultiServer(c) => Treatment::Servers(*c),
                Kind::LoadDependent(_) if visited(k, true) => {
                    let open = self.classes.iter().zip(demand).find(|(class, row)| {
                        row[k] > 0.0 && matches!(class.workload, Workload::Open(_))
                    });
                    return Err(QueueError::OpenAtLoadDependent {
                        station: name.clone(),
                        class: open.map(|(c, _)| c.name.clone()).unwrap_or_default(),
                    });
                }
                Kind::LoadDependent(_) => Treatment::General,
            });
        }
        Ok(out)
    }

    /// `U_k`, each station's servers kept busy by the open classes, checked
    /// below its servers.
    fn open_load(
        &self,
        demand: &[Vec<f64>],
        treatment: &[Treatment],
    ) -> Result<Vec<f64>, QueueError> {
        let mut busy = Vec::with_capacity(self.stations.len());
        for (k, (name, _)) in self.stations.iter().enumerate() {
            let u: f64 = self
                .classes
                .iter()
                .zip(demand)
                .filter_map(|(class, row)| match class.workload {
                    Workload::Open(rate) => Some(rate * row[k]),
                    Workload::Closed(_) => None,
                })
                .sum();
            let servers = treatment[k].servers();
            let rho = u / servers;
            if treatment[k] != Treatment::Delay && (rho >= 1.0 || rho.is_nan()) {
                return Err(QueueError::Saturated {
                    station: name.clone(),
                    utilization: rho,
                    servers: servers as usize,
                });
            }
            busy.push(u);
        }
        Ok(busy)
    }
}

/// The closed classes' figures, by class then station (open classes' rows
/// 0), the closed jobs an open job finds at each queue, and at each shared
/// multi-server station an open job's time per unit of demand.
struct ClosedFigures {
    x: Vec<f64>,
    residence: Vec<Vec<f64>>,
    /// The closed solver's utilization (used at general stations).
    utilization: Vec<Vec<f64>>,
    found: Vec<f64>,
    stretch: Vec<f64>,
}

/// The probe class: one job of demand 1 at every shared multi-server
/// station (a name no file can give). On arrival it finds the other jobs
/// as they are without it (the arrival theorem), as a Poisson arrival
/// finds them (PASTA): its time there is an open job's per unit of demand.
const PROBE: &str = "\u{0}probe";

impl MixedNetwork {
    /// The closed classes solved on the inflated network.
    fn closed(&self, ch: &Checked, how: &Closed<'_>) -> Result<ClosedFigures, QueueError> {
        let (c_all, k_all) = (self.classes.len(), self.stations.len());
        let mut fig = ClosedFigures {
            x: vec![0.0; c_all],
            residence: vec![vec![0.0; k_all]; c_all],
            utilization: vec![vec![0.0; k_all]; c_all],
            found: vec![0.0; k_all],
            stretch: vec![0.0; k_all],
        };
        let population = |c: &Class| match c.workload {
            Workload::Closed(n) => Some(n),
            Workload::Open(_) => None,
        };
        let any_open = self.classes.iter().any(|c| population(c).is_none());
        let jobs: usize = self.classes.iter().filter_map(population).sum();
        if !self.classes.iter().any(|c| population(c).is_some()) || (any_open && jobs == 0) {
            return Ok(fig); // the open classes alone
        }
        let solve = |net: MultiClassNetwork| match how {
            Closed::Exact(limit) => net.mva_within(*limit),
            Closed::Approximate(settings) => net.mva_approx_with(settings),
        };
        let s = solve(self.inflated(ch, false))?;
        for (c, class) in self.classes.iter().enumerate() {
            if population(class).is_none() {
                continue;
            }
            fig.x[c] = s.throughput(&class.name)?;
            for (k, (station, _)) in self.stations.iter().enumerate() {
                fig.residence[c][k] = s.residence_time(&class.name, station)?;
                fig.utilization[c][k] = s.of(&class.name, station)?.utilization;
            }
        }
        for (k, (station, _)) in self.stations.iter().enumerate() {
            fig.found[k] = s.queue_length(station)?;
        }
        if ch
            .treatment
            .iter()
            .any(|t| matches!(t, Treatment::Shared(_)))
        {
            let probed = solve(self.inflated(ch, true))?;
            for (k, (station, _)) in self.stations.iter().enumerate() {
                if let Treatment::Shared(_) = ch.treatment[k] {
                    fig.stretch[k] = probed.residence_time(PROBE, station)?;
                }
            }
        }
        Ok(fig)
    }

    /// The closed classes' network, the open load folded in: demands
    /// `D/(1 − U)` at a queue, a shared multi-server station the
    /// load-dependent one the open jobs leave (module `servers`); with
    /// `probe`, the probe class too.
    fn inflated(&self, ch: &Checked, probe: bool) -> MultiClassNetwork {
        let mut net = MultiClassNetwork::new();
        // The most jobs a station can hold: every closed one and the probe.
        let most = (self.classes.iter())
            .filter_map(|c| match c.workload {
                Workload::Closed(n) => Some(n),
                Workload::Open(_) => None,
            })
            .fold(1usize, usize::saturating_add);
        for (k, ((name, kind), t)) in self.stations.iter().zip(&ch.treatment).enumerate() {
            net = match (t, kind) {
                (Treatment::Delay, _) => net.delay(name),
                (Treatment::Queue, _) => net.queue(name),
                (Treatment::Servers(c), _) => net.multi_server(name, *c),
                (Treatment::Shared(c), _) => {
                    net.load_dependent(name, servers::effective_rate(*c, ch.busy[k], most))
                }
                (Treatment::General, Kind::LoadDependent(rate)) => {
                    let rate = rate.0.clone();
                    net.load_dependent(name, move |n: usize| rate(n))
                }
                (Treatment::General, _) => net.delay(name), // (never: General is load-dependent)
            };
        }
        for (class, row) in self.classes.iter().zip(&ch.demand) {
            let Workload::Closed(population) = class.workload else {
                continue;
            };
            let mut demands: Vec<(String, f64)> = Vec::new();
            for (k, (name, _)) in self.stations.iter().enumerate() {
                let (d, u) = (row[k], ch.busy[k]);
                if d == 0.0 {
                    continue;
                }
                match ch.treatment[k] {
                    Treatment::Queue => demands.push((name.clone(), d / (1.0 - u))),
                    _ => demands.push((name.clone(), d)),
                }
            }
            let refs: Vec<(&str, f64)> = demands.iter().map(|(n, d)| (n.as_str(), *d)).collect();
            net = net.class(class.name.clone(), population, &refs);
        }
        if probe {
            let shared: Vec<(&str, f64)> = (self.stations.iter().zip(&ch.treatment))
                .filter(|(_, t)| matches!(t, Treatment::Shared(_)))
                .map(|((name, _), _)| (name.as_str(), 1.0))
                .collect();
            net = net.class(PROBE, 1, &shared);
        }
        net
    }

    /// Every class's figures at every station, and the totals.
    fn assemble(&self, ch: &Checked, closed: &ClosedFigures) -> MixedSolution {
        let k_all = self.stations.len();
        let mut figures = Vec::with_capacity(self.classes.len() * k_all);
        let mut throughput = Vec::with_capacity(self.classes.len());
        for (c, class) in self.classes.iter().enumerate() {
            let x = match class.workload {
                Workload::Closed(_) => closed.x[c],
                Workload::Open(rate) => rate,
            };
            throughput.push(x);
            for k in 0..k_all {
                let (d, t) = (ch.demand[c][k], ch.treatment[k]);
                if d == 0.0 {
                    figures.push(ClassFigures::default());
                    continue;
                }
                let residence_time = match class.workload {
                    Workload::Closed(_) => closed.residence[c][k],
                    Workload::Open(_) => match t {
                        Treatment::Shared(_) => d * closed.stretch[k],
                        _ => open_residence(d, t, ch.busy[k], closed.found[k]),
                    },
                };
                let utilization = match (t, class.workload) {
                    (Treatment::General, _) => closed.utilization[c][k],
                    _ => x * d / t.servers(),
                };
                figures.push(ClassFigures {
                    throughput: x,
                    residence_time,
                    queue_length: x * residence_time,
                    utilization,
                });
            }
        }
        let mut totals = vec![ClassFigures::default(); k_all];
        for (k, t) in totals.iter_mut().enumerate() {
            for f in figures.iter().skip(k).step_by(k_all) {
                t.throughput += f.throughput;
                t.queue_length += f.queue_length;
                t.utilization += f.utilization;
            }
            if t.throughput > 0.0 {
                t.residence_time = t.queue_length / t.throughput;
            }
        }
        MixedSolution {
            classes: self.classes.iter().map(|c| c.name.clone()).collect(),
            workload: self.classes.iter().map(|c| c.workload).collect(),
            stations: self.stations.iter().map(|(n, _)| n.clone()).collect(),
            delay: ch
                .treatment
                .iter()
                .map(|t| *t == Treatment::Delay)
                .collect(),
            open_load: (ch.treatment.iter().zip(&ch.busy))
                .map(|(t, u)| match t {
                    Treatment::Delay => 0.0,
                    t => u / t.servers(),
                })
                .collect(),
            throughput,
            figures,
            totals,
        }
    }
}

/// An open class's residence time at a station of demand `d`, `u` servers
/// kept busy by the open classes, `found` closed jobs at its queue.
fn open_residence(d: f64, t: Treatment, u: f64, found: f64) -> f64 {
    match t {
        Treatment::Delay | Treatment::General => d,
        // No closed job there: exactly OpenNetwork's M/M/c stretch.
        Treatment::Queue | Treatment::Servers(_) if found == 0.0 => {
            let m = t.servers();
            d * (1.0 + erlang_c(m as usize, u) / (m * (1.0 - u / m)))
        }
        Treatment::Queue => d * (1.0 + found) / (1.0 - u),
        // (Never: a closed class makes it Shared, solved by the probe.)
        Treatment::Servers(_) | Treatment::Shared(_) => d,
    }
}

/// A [`MixedNetwork`]'s solution: each class's throughput and times, its
/// [`ClassFigures`] at each station, each station's totals.
///
/// Classes and stations are asked by name; an unknown name is an error.
/// A closed class's throughput is its cycles per unit of time, an open
/// class's its arrival rate. The figures obey Little's law at every
/// station; a closed class's queue lengths add up to its population.
#[derive(Clone, Debug, PartialEq)]
pub struct MixedSolution {
    classes: Vec<String>,
    workload: Vec<Workload>,
    stations: Vec<String>,
    delay: Vec<bool>,
    /// Per station, each server's utilization by the open classes.
    open_load: Vec<f64>,
    throughput: Vec<f64>,
    /// By class, then station.
    figures: Vec<ClassFigures>,
    /// By station.
    totals: Vec<ClassFigures>,
}

impl MixedSolution {
    fn class_index(&self, name: &str) -> Result<usize, QueueError> {
        (self.classes.iter().position(|n| n == name)).ok_or_else(|| QueueError::Class {
            problem: "no class is named",
            name: name.to_string(),
            known: self.classes.join(", "),
        })
    }

    fn station_index(&self, name: &str) -> Result<usize, QueueError> {
        (self.stations.iter().position(|n| n == name)).ok_or_else(|| QueueError::UnknownStation {
            name: name.to_string(),
            known: self.stations.join(", "),
        })
    }

    /// The classes' names, in the network's order.
    pub fn classes(&self) -> impl Iterator<Item = &str> {
        self.classes.iter().map(String::as_str)
    }

    /// The stations' names, in the network's order.
    pub fn stations(&self) -> impl Iterator<Item = &str> {
        self.stations.iter().map(String::as_str)
    }

    /// What drives class `class`: its population or its arrival rate.
    pub fn workload(&self, class: &str) -> Result<Workload, QueueError> {
        Ok(self.workload[self.class_index(class)?])
    }

    /// Class `class`'s jobs completed per unit of time: a closed class's
    /// cycles, an open class's arrival rate.
    pub fn throughput(&self, class: &str) -> Result<f64, QueueError> {
        Ok(self.throughput[self.class_index(class)?])
    }

    fn row(&self, c: usize) -> &[ClassFigures] {
        let k_all = self.stations.len();
        &self.figures[c * k_all..(c + 1) * k_all]
    }

    /// Class `class`'s residence times summed over every station, delays
    /// included: a closed class's cycle (`N_c / X_c`), an open class's
    /// time in the network.
    pub fn cycle_time(&self, class: &str) -> Result<f64, QueueError> {
        let c = self.class_index(class)?;
        Ok(self.row(c).iter().map(|f| f.residence_time).sum())
    }

    /// Class `class`'s response time: for a closed class its residence
    /// times at the stations that are not delays (think time is not
    /// response time), for an open class at every station (its time in
    /// the network, as [`super::OpenSolution::response_time`]).
    pub fn response_time(&self, class: &str) -> Result<f64, QueueError> {
        let c = self.class_index(class)?;
        let open = matches!(self.workload[c], Workload::Open(_));
        Ok((self.row(c).iter().zip(&self.delay))
            .filter(|(_, delay)| open || !**delay)
            .map(|(f, _)| f.residence_time)
            .sum())
    }

    /// Class `class`'s figures at station `station`.
    pub fn of(&self, class: &str, station: &str) -> Result<&ClassFigures, QueueError> {
        let (c, k) = (self.class_index(class)?, self.station_index(station)?);
        Ok(&self.figures[c * self.stations.len() + k])
    }

    /// Class `class`'s residence time at `station`, over all its visits.
    pub fn residence_time(&self, class: &str, station: &str) -> Result<f64, QueueError> {
        Ok(self.of(class, station)?.residence_time)
    }

    /// Station `station`'s figures summed over the classes.
    pub fn station(&self, station: &str) -> Result<&ClassFigures, QueueError> {
        Ok(&self.totals[self.station_index(station)?])
    }

    /// Mean number of jobs at `station`, every class together.
    pub fn queue_length(&self, station: &str) -> Result<f64, QueueError> {
        Ok(self.station(station)?.queue_length)
    }

    /// Utilization of `station`, every class together (per server; at a
    /// delay the mean jobs in service).
    pub fn utilization(&self, station: &str) -> Result<f64, QueueError> {
        Ok(self.station(station)?.utilization)
    }

    /// How many times every open class's rate may grow before the first
    /// station saturates, and that station (infinite, and the first
    /// station, when the open classes queue nowhere). The closed classes
    /// do not move it: they slow down instead.
    pub fn headroom(&self) -> (f64, &str) {
        let mut best = (f64::INFINITY, 0);
        for (k, &rho) in self.open_load.iter().enumerate() {
            if rho > 0.0 && 1.0 / rho < best.0 {
                best = (1.0 / rho, k);
            }
        }
        (best.0, &self.stations[best.1])
    }
}
