//! The queueing semantics: a design on a [`Machine`] as a closed queueing
//! network, solved by exact MVA (seed 002's method on seed 001's designs).
//!
//! The jobs are the elements in flight: each thread holds one, each channel
//! between threads up to [`Queueing::buffer`] (4, the executor's channel,
//! unless set). The stations are where an element waits for a thread:
//!
//! - a sequential part (an atom, a `seq` of atoms) on one thread is a
//!   single-server station whose demand is its cost model at the point;
//!   a `seq` of parallel parts runs each alone, one after the other: one
//!   station of their summed times per element;
//! - `tpool[n](t)` makes every station of `t` `n` times wider (`n` servers)
//!   and puts the pool's shared queue in front (a single server of demand
//!   [`Waiting::take_ns`]);
//! - `pipe` visits its stages in turn, with a hand-over station
//!   ([`Waiting::handoff_ns`]) between two stages;
//! - a mapReduce is one station: eq. (5) with the workers of a node capped
//!   at its cores.
//!
//! The cores are shared by processor sharing: while more threads are busy
//! than there are cores, every thread runs slower by the factor
//! `s = busy threads / cores`. The busy threads are the stations' mean
//! busy servers, `X·Σ D_k`, so `s` is a fixed point; as every demand is
//! slowed alike and MVA's times scale with the demands (`X(s) = X(1)/s`),
//! it has a closed form: `s = max(1, X(1)·Σ D_k/cores)` — 1 when the busy
//! threads fit the cores (the operators' limit), and otherwise the `s` at
//! which the cores are exactly saturated. With cores
//! to spare and long channels the prediction tends to the plain operators'.

use crate::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, Term, fold};
use crate::machine::{Machine, MachineError, Waiting};
use crate::queue::{Approximation, MultiServer, Network, QueueError, Solution};
use crate::semantics::MapReducePhases;
use crate::{EvalError, Expr};

/// A station of the network being built: `servers` threads each serving
/// one element at a time, `demand` ns of work per element, `width` cores
/// busy while a server serves.
#[derive(Clone, Debug, PartialEq)]
struct Part {
    name: String,
    servers: usize,
    demand: f64,
    width: f64,
}

/// The meaning of a sub-design: its stations, in the order an element
/// visits them, and how many elements it holds in flight.
#[derive(Clone, Debug, PartialEq)]
pub struct Fragment {
    parts: Vec<Part>,
    in_flight: usize,
    /// The cost model of a sequential fragment (one thread), for mapReduce.
    model: Option<Expr>,
}

/// What the queueing semantics predicts for a design.
#[derive(Clone, Debug)]
pub struct QueueingPrediction {
    /// Time per element in steady state (ns): `1/X`.
    pub time_per_element: f64,
    /// Elements per ns.
    pub throughput: f64,
    /// The slowdown of every thread from sharing the cores (1 when the busy
    /// threads fit).
    pub slowdown: f64,
    /// Elements in flight: the network's population.
    pub population: usize,
    /// The network, its demands already slowed down.
    pub network: Network,
    /// Its MVA solution.
    pub solution: Solution,
}

/// Why the queueing semantics could not give a prediction.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum QueueingError {
    /// A cost model could not be evaluated at the point.
    #[error("the model of `{atom}` cannot be evaluated: {source}")]
    Eval {
        /// The atom (or `shuffle`, `mapReduce`).
        atom: String,
        /// Why.
        source: EvalError,
    },
    /// A model gave a negative time.
    #[error("the model of `{atom}` gives {value} ns at this point: a time is >= 0")]
    Negative {
        /// The atom.
        atom: String,
        /// Its value.
        value: f64,
    },
    /// A count that is not bound to a positive integer.
    #[error("the count `{name}` needs a value: bind it to a positive integer with `at`")]
    Count {
        /// The count.
        name: String,
    },
    /// A pattern the single-machine network does not model.
    #[error(
        "the queueing semantics models designs on one shared-memory machine; `{pattern}` is not one"
    )]
    Unsupported {
        /// The pattern.
        pattern: &'static str,
    },
    /// A machine out of range.
    #[error(transparent)]
    Machine(#[from] MachineError),
    /// Channels of no place.
    #[error("a channel between threads holds at least 1 element in the queueing semantics (got 0)")]
    Buffer,
    /// The elements in flight do not fit a `usize`.
    #[error("the design holds more elements in flight than can be counted")]
    TooManyInFlight,
    /// The network could not be solved.
    #[error(transparent)]
    Queue(#[from] QueueError),
}

/// The queueing semantics, configured with a machine and a point.
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::machine::Machine;
/// use pattern_core::semantics::Queueing;
///
/// let d = Design::parse("qsort = 1034.17*x*log2(x); tpool[n](qsort)")?;
/// let two_cores = Machine::new(1, 2);
/// let at = |n: f64| [("x", 1024.0), ("n", n)];
/// let plain = |n: f64| d.model().eval(&at(n)).unwrap();
/// let queued = |n: f64| Queueing::new(&two_cores).at(&at(n)).of(d.term()).unwrap().time_per_element;
/// // One and two workers: as the operators say.
/// assert!((queued(2.0) / plain(2.0) - 1.0).abs() < 1e-9);
/// // Eight workers on two cores are no faster than two.
/// assert!((queued(8.0) / plain(2.0) - 1.0).abs() < 1e-9);
/// assert!((plain(8.0) / plain(2.0) - 0.25).abs() < 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Queueing<'m> {
    machine: &'m Machine,
    bindings: Vec<(String, f64)>,
    buffer: usize,
}

impl<'m> Queueing<'m> {
    /// The semantics on `machine`, with no variable bound yet and channels
    /// of 4 places.
    pub fn new(machine: &'m Machine) -> Self {
        Self {
            machine,
            bindings: Vec::new(),
            buffer: 4,
        }
    }

    /// The elements a channel between threads holds (4 unless set): with
    /// the threads, how many elements are in flight.
    pub fn buffer(mut self, places: usize) -> Self {
        self.buffer = places;
        self
    }

    fn waits(&self) -> &Waiting {
        self.machine.waiting_costs()
    }

    /// The cores of the node the design runs on.
    fn cores(&self) -> f64 {
        self.machine.node_cores(0) as f64
    }

    /// Binds the models' variables and the symbolic counts.
    pub fn at(mut self, bindings: &[(&str, f64)]) -> Self {
        self.bindings = bindings.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        self
    }

    /// The prediction for `term`.
    pub fn of(&self, term: &Term) -> Result<QueueingPrediction, QueueingError> {
        self.machine.check()?;
        if self.buffer == 0 {
            return Err(QueueingError::Buffer);
        }
        let fragment = fold(term, &mut self.clone())?;
        solve(fragment, self.cores())
    }

    fn bindings(&self) -> Vec<(&str, f64)> {
        self.bindings
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect()
    }

    fn eval(&self, name: &str, model: &Expr) -> Result<f64, QueueingError> {
        let v = model
            .eval(&self.bindings())
            .map_err(|source| QueueingError::Eval {
                atom: name.to_string(),
                source,
            })?;
        if v < 0.0 {
            return Err(QueueingError::Negative {
                atom: name.to_string(),
                value: v,
            });
        }
        Ok(v)
    }

    fn count(&self, count: &Count) -> Result<usize, QueueingError> {
        let value = match count {
            Count::Fixed(n) => *n as f64,
            Count::Symbol(name) => self
                .bindings
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| *v)
                .ok_or_else(|| QueueingError::Count { name: name.clone() })?,
        };
        if value >= 1.0 && value.fract() == 0.0 && value <= (1u64 << 53) as f64 {
            Ok(value as usize)
        } else {
            Err(QueueingError::Count {
                name: format!("{count}"),
            })
        }
    }
}

fn add(a: usize, b: usize) -> Result<usize, QueueingError> {
    a.checked_add(b).ok_or(QueueingError::TooManyInFlight)
}

fn mul(a: usize, b: usize) -> Result<usize, QueueingError> {
    a.checked_mul(b).ok_or(QueueingError::TooManyInFlight)
}

/// A one-thread fragment.
fn sequential(name: String, demand: f64, model: Expr) -> Fragment {
    Fragment {
        parts: vec![Part {
            name,
            servers: 1,
            demand,
            width: 1.0,
        }],
        in_flight: 1,
        model: Some(model),
    }
}

impl Semantics for Queueing<'_> {
    type Value = Fragment;
    type Error = QueueingError;

    fn atom(&mut self, atom: &Atom, _: &Scope) -> Result<Fragment, QueueingError> {
        let t = self.eval(&atom.name, &atom.model)?;
        Ok(sequential(atom.name.clone(), t, atom.model.clone()))
    }

    fn seq(&mut self, parts: Vec<Fragment>, _: &Scope) -> Result<Fragment, QueueingError> {
        if parts.iter().all(|p| p.model.is_some()) {
            // One thread runs them all: one station.
            let names: Vec<&str> = parts.iter().map(|p| p.parts[0].name.as_str()).collect();
            let demand = parts.iter().map(|p| p.parts[0].demand).sum();
            let model =
                crate::semantics::flat::sum(parts.iter().filter_map(|p| p.model.clone()).collect());
            return Ok(sequential(
                format!("seq({})", names.join(", ")),
                demand,
                model,
            ));
        }
        // Parallel parts one after the other: each runs alone on the
        // machine, the stream through one part, then through the next;
        // together one station of their summed time per element, as wide as
        // the cores they keep busy on average.
        let (mut time, mut work) = (0.0, 0.0);
        for p in parts {
            if p.parts.iter().all(|q| q.demand == 0.0) {
                continue; // free: no time, and no network to solve
            }
            work += p.parts.iter().map(|q| q.demand * q.width).sum::<f64>();
            time += solve(p, self.cores())?.time_per_element;
        }
        Ok(Fragment {
            parts: vec![Part {
                name: "seq".into(),
                servers: 1,
                demand: time,
                width: if time > 0.0 { work / time } else { 1.0 },
            }],
            in_flight: 1,
            model: None,
        })
    }

    fn pipe(&mut self, stages: Vec<Fragment>, _: &Scope) -> Result<Fragment, QueueingError> {
        let mut in_flight = 0;
        let mut all = Vec::new();
        let k = stages.len();
        for (i, stage) in stages.into_iter().enumerate() {
            if i > 0 {
                all.push(Part {
                    name: format!("handoff {i}"),
                    servers: 1,
                    demand: self.waits().handoff_ns,
                    width: 1.0,
                });
            }
            in_flight = add(in_flight, stage.in_flight)?;
            all.extend(stage.parts);
        }
        in_flight = add(in_flight, mul(k - 1, self.buffer)?)?;
        Ok(Fragment {
            parts: all,
            in_flight,
            model: None,
        })
    }

    fn tpool(&mut self, n: &Count, body: Fragment, _: &Scope) -> Result<Fragment, QueueingError> {
        let n = self.count(n)?;
        let mut parts = vec![Part {
            name: format!("queue of tpool[{n}]"),
            servers: 1,
            demand: self.waits().take_ns,
            width: 1.0,
        }];
        for p in body.parts {
            parts.push(Part {
                servers: mul(p.servers, n)?,
                ..p
            });
        }
        let in_flight = add(mul(n, body.in_flight)?, self.buffer)?;
        Ok(Fragment {
            parts,
            in_flight,
            model: None,
        })
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Fragment,
        shuffle: &Atom,
        reduce: Fragment,
        _: &Scope,
    ) -> Result<Fragment, QueueingError> {
        let (Some(map), Some(reduce)) = (map.model, reduce.model) else {
            return Err(QueueingError::Unsupported {
                pattern: "a mapReduce whose map or reduce is parallel",
            });
        };
        let (m, n) = (self.count(&params.m)?, self.count(&params.n)?);
        let phases = MapReducePhases::new(params, map, &shuffle.model, reduce);
        // The workers of a node share its cores.
        let workers = mul(m, n.min(self.machine.node_cores(0)))? as f64;
        let at = self.bindings();
        let value = |what: &str, e: &Expr| {
            e.eval(&at).map_err(|source| QueueingError::Eval {
                atom: what.to_string(),
                source,
            })
        };
        let x = value("x", &Expr::var("x"))?;
        let time = x * value("map", &phases.map_one)? / workers
            + value(&shuffle.name, &phases.shuffle)?
            + value("keys", &phases.keys)? * value("reduce", &phases.reduce_d)? / workers;
        Ok(Fragment {
            parts: vec![Part {
                name: "mapReduce".into(),
                servers: 1,
                demand: time,
                width: workers,
            }],
            in_flight: 1,
            model: None,
        })
    }

    fn on(&mut self, _: &Count, _: Fragment, _: &Scope) -> Result<Fragment, QueueingError> {
        Err(QueueingError::Unsupported { pattern: "on[p]" })
    }

    fn par(&mut self, _: &[Count], _: Vec<Fragment>, _: &Scope) -> Result<Fragment, QueueingError> {
        Err(QueueingError::Unsupported { pattern: "par" })
    }

    fn groups(&mut self, _: &Count, _: Fragment, _: &Scope) -> Result<Fragment, QueueingError> {
        Err(QueueingError::Unsupported { pattern: "groups" })
    }

    fn redist(
        &mut self,
        _: &Expr,
        _: Fragment,
        _: Fragment,
        _: &Scope,
    ) -> Result<Fragment, QueueingError> {
        Err(QueueingError::Unsupported {
            pattern: "seq[redist]",
        })
    }
}

/// The network at slowdown `s`.
fn network(parts: &[Part], s: f64) -> Network {
    parts
        .iter()
        .enumerate()
        .fold(Network::new(), |net, (i, p)| {
            let name = format!("{i}: {}", p.name);
            if p.servers == 1 {
                net.queue(name, p.demand * s)
            } else {
                net.multi_server(name, p.servers, p.demand * s)
            }
        })
}

/// Exact MVA where it is cheap (its cost grows with the population times
/// the servers of every multi-server station), Schweitzer-Bard's
/// approximation with Seidmann's multi-server stations beyond: a pool of
/// 10^5 workers, or 2^53, must not take hours.
fn mva(net: &Network, n: usize, parts: &[Part]) -> Result<Solution, QueueingError> {
    let multi: Vec<f64> = parts
        .iter()
        .filter(|p| p.servers > 1)
        .map(|p| p.servers.min(n) as f64)
        .collect();
    let cost = n as f64 * (parts.len() as f64 + multi.len() as f64 * multi.iter().sum::<f64>());
    if n <= MAX_EXACT_POPULATION && cost <= MAX_EXACT_COST {
        return Ok(net.mva(n)?);
    }
    let seidmann = Approximation {
        multi_server: MultiServer::Seidmann,
        ..Approximation::default()
    };
    Ok(net.mva_approx_with(n, &seidmann)?)
}

/// The largest population solved exactly.
const MAX_EXACT_POPULATION: usize = 100_000;
/// The largest estimated cost (station-steps) of an exact solution.
const MAX_EXACT_COST: f64 = 2e7;

/// Solves the fragment's network with the cores' slowdown at its fixed
/// point.
fn solve(fragment: Fragment, cores: f64) -> Result<QueueingPrediction, QueueingError> {
    let n = fragment.in_flight;
    let parts = &fragment.parts;
    // Work per element, counted in cores: busy threads = X·work·s.
    let work: f64 = parts.iter().map(|p| p.demand * p.width).sum();
    let c = cores;
    // Every demand is slowed alike, and MVA's times scale with the demands:
    // X(s) = X(1)/s. The cores are saturated where X(s)·work = c.
    let at_full_speed = mva(&network(parts, 1.0), n, parts)?;
    let s = (at_full_speed.throughput() * work / c).max(1.0);
    let net = network(parts, s);
    let solution = if s == 1.0 {
        at_full_speed
    } else {
        mva(&net, n, parts)?
    };
    let x = solution.throughput();
    Ok(QueueingPrediction {
        time_per_element: 1.0 / x,
        throughput: x,
        slowdown: s,
        population: n,
        network: net,
        solution,
    })
}
