//! The queueing semantics: a design on a [`Machine`] as a closed queueing
//! network, solved by exact MVA (seed 002's method on seed 001's designs),
//! its threads placed on the machine's nodes as the simulator places them.
//!
//! The jobs are the elements in flight: each thread holds one, each channel
//! between threads up to [`Queueing::buffer`] (4, the executor's channel,
//! unless set). The stations are where an element waits for a thread:
//!
//! - a sequential part (an atom, a `seq` of atoms) on one thread is a
//!   single-server station whose demand is its cost model at the point,
//!   over its node's speed; a `seq` of parallel parts runs each alone, one
//!   after the other: one station of their summed times per element;
//! - `tpool[n](t)` makes every station of `t` `n` times wider (`n` servers)
//!   and puts the pool's shared queue in front (a single server of demand
//!   [`Waiting::take_ns`]);
//! - `pipe` visits its stages in turn, with a hand-over station
//!   ([`Waiting::handoff_ns`]) on the sending stage's node between two;
//! - a mapReduce is one station: its `m·n` workers on nodes `0..m`, each
//!   phase ending when its slowest node ends, `x·M[map](1)/(m·min(n,
//!   c_j)·v_j)` on node `j` of `c_j` cores at speed `v_j`, the shuffle its
//!   model's time (a delay), the reduce like the map;
//! - a task group (`on[p]`, `par`, `groups`, `seq[redist]`) is one thread:
//!   each atom a step on one core of each node of its group (`p` bound to
//!   the group's size, the groups placed on the nodes as the simulator
//!   places them), its time at the slowest of them; `par` and `groups` run
//!   their parts at once, a redistribution is its cost's time (a delay).
//!   Communication functions (`allgather(p, b)`) are priced by the
//!   machine's profile ([`Machine::communication`]), with the contention
//!   of concurrent groups, as [`Throughput::machine`] prices them, and
//!   keep their cores busy (MPI waits by polling).
//!
//! Stages run on node 0 unless a group or a mapReduce places them. Each
//! node's cores are shared by processor sharing: while more threads are
//! busy on node `j` than it has cores, each of them runs slower by `s_j`.
//! The slowdowns are at their fixed point, where every node is either
//! unsaturated (`s_j = 1`) or exactly saturated; only the busiest nodes
//! (largest work over cores) can be, so the time per element is
//! `max(1/X(1), max_j W_j/c_j)` with `W_j` the core·ns per element on node
//! `j`; the slowdowns are found by a safeguarded root search (see
//! `solve.rs`), in closed form on one node: `s = max(1, X(1)·W/c)`. With
//! cores to spare and long channels the prediction tends to the plain
//! operators'.
//!
//! [`Throughput::machine`]: crate::semantics::Throughput::machine

mod error;
mod open;
mod program;
mod shared;
mod solve;

pub use error::QueueingError;
pub use open::{RatePrediction, RateStation};
pub use shared::{SharedDesign, SharedNode, SharedPrediction};

use crate::Expr;
use crate::comm::{Context, MachineProfile};
use crate::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, Term, fold};
use crate::machine::{Machine, Waiting};
use crate::queue::{Network, Solution};
use crate::semantics::{MapReducePhases, group_size};
use program::{ALL_PROCESSORS, Program, Stage};
#[cfg(feature = "explore")]
pub(crate) use solve::MAX_EXACT_COST;
use solve::{Net, Part, solve};

/// The meaning of a sub-design: one thread (its steps still symbolic,
/// until the groups around it are known) or the stations of a network.
#[derive(Clone, Debug, PartialEq)]
pub struct Fragment(Kind);

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Stage(Stage),
    Net(Net),
}

/// What the queueing semantics predicts for a design.
#[derive(Clone, Debug)]
pub struct QueueingPrediction {
    /// Time per element in steady state (ns): `1/X`.
    pub time_per_element: f64,
    /// Elements per ns.
    pub throughput: f64,
    /// The largest slowdown of a node's threads from sharing its cores (1
    /// when every node's busy threads fit).
    pub slowdown: f64,
    /// Each node the design uses, from node 0 to the highest.
    pub nodes: Vec<NodeLoad>,
    /// Elements in flight: the network's population.
    pub population: usize,
    /// The network, its demands already slowed down.
    pub network: Network,
    /// Its MVA solution.
    pub solution: Solution,
}

/// What a design asks of one node, in the queueing semantics.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeLoad {
    /// Its cores.
    pub cores: usize,
    /// Its speed (a step of `t` ns takes `t/speed`).
    pub speed: f64,
    /// The core·ns per element the design keeps it busy, at its speed.
    pub work: f64,
    /// The share of its cores busy: throughput × work / cores, at most 1.
    pub utilization: f64,
    /// How much slower its threads run for sharing its cores (1 when they
    /// fit; above 1 only where the node is saturated).
    pub slowdown: f64,
    /// The ns per element its calls wait on its memory, each at a core's
    /// bandwidth (0 without a memory in the machine or bytes in the atoms).
    pub traffic: f64,
    /// The share of its memory's bandwidth busy: throughput × traffic over
    /// the calls it serves at once at full speed ([`Memory`](crate::machine::Memory)), at most 1.
    pub memory_utilization: f64,
    /// How much slower its calls wait on memory for sharing its bandwidth
    /// (1 when it holds them all; above 1 only where it is saturated).
    pub memory_slowdown: f64,
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
/// let queued = |m: &Machine, n: f64| Queueing::new(m).at(&at(n)).of(d.term()).unwrap();
/// // One and two workers: as the operators say.
/// assert!((queued(&two_cores, 2.0).time_per_element / plain(2.0) - 1.0).abs() < 1e-9);
/// // Eight workers on two cores are no faster than two; each runs 4 times slower.
/// let eight = queued(&two_cores, 8.0);
/// assert!((eight.time_per_element / plain(2.0) - 1.0).abs() < 1e-9);
/// assert!((eight.nodes[0].slowdown - 4.0).abs() < 1e-9);
/// // On a node twice as fast, twice the throughput.
/// let fast = Machine::from_json(r#"{"nodes": [{"cores": 2, "speed": 2.0}]}"#)?;
/// assert!((queued(&fast, 8.0).time_per_element / plain(4.0) - 1.0).abs() < 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Queueing<'m> {
    machine: &'m Machine,
    profile: MachineProfile,
    bindings: Vec<(String, f64)>,
    buffer: usize,
}

impl<'m> Queueing<'m> {
    /// The semantics on `machine`, with no variable bound yet and channels
    /// of 4 places.
    pub fn new(machine: &'m Machine) -> Self {
        Self {
            machine,
            profile: machine.communication(),
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
        solve(&self.net(fragment)?, self.machine)
    }

    fn bindings(&self) -> Vec<(&str, f64)> {
        self.bindings
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect()
    }

    /// A model with its communication functions priced by the machine's
    /// profile.
    fn resolve(&self, what: &str, model: &Expr, scope: &Scope) -> Result<Expr, QueueingError> {
        let processors =
            (scope.processors.as_ref()).map_or_else(|| Expr::var(ALL_PROCESSORS), Count::to_expr);
        let context = Context {
            concurrent: scope.concurrent,
            processors,
        };
        (self.profile.resolve(model, &context)).map_err(|e| QueueingError::Comm {
            atom: what.to_string(),
            message: e.to_string(),
        })
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

    /// The stations of a fragment: a thread becomes one, evaluated.
    fn net(&self, fragment: Fragment) -> Result<Net, QueueingError> {
        match fragment.0 {
            Kind::Net(net) => Ok(net),
            Kind::Stage(stage) => Ok(Net {
                parts: vec![Part {
                    program: stage.evaluate(&self.bindings(), self.machine)?,
                    name: stage.name,
                    servers: 1,
                }],
                in_flight: 1,
            }),
        }
    }

    /// A thread's own CPU time on node `node` (a take, a hand-over).
    fn overhead(&self, name: String, node: usize, ns: f64) -> Part {
        let t = ns / self.machine.node_speed(node);
        Part {
            name,
            servers: 1,
            program: Program::on_node(node, t, t),
        }
    }
}

fn add(a: usize, b: usize) -> Result<usize, QueueingError> {
    a.checked_add(b).ok_or(QueueingError::TooManyInFlight)
}

fn mul(a: usize, b: usize) -> Result<usize, QueueingError> {
    a.checked_mul(b).ok_or(QueueingError::TooManyInFlight)
}

/// The threads of task groups: every part one thread.
fn stages(parts: Vec<Fragment>, pattern: &'static str) -> Result<Vec<Stage>, QueueingError> {
    (parts.into_iter())
        .map(|f| match f.0 {
            Kind::Stage(s) => Ok(s),
            Kind::Net(_) => Err(QueueingError::Unsupported { pattern }),
        })
        .collect()
}

/// The most groups of `groups[s]`.
const MAX_GROUPS: usize = 1 << 20;

fn names(parts: &[Stage]) -> String {
    (parts.iter().map(|p| p.name.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Semantics for Queueing<'_> {
    type Value = Fragment;
    type Error = QueueingError;

    fn atom(&mut self, atom: &Atom, scope: &Scope) -> Result<Fragment, QueueingError> {
        let model = self.resolve(&atom.name, &atom.model, scope)?;
        let bytes = (atom.bytes.as_ref())
            .map(|b| self.resolve(&atom.name, b, scope))
            .transpose()?;
        let stage = Stage::atom(&atom.name, model, bytes, scope.handed);
        Ok(Fragment(Kind::Stage(stage)))
    }

    fn seq(&mut self, parts: Vec<Fragment>, _: &Scope) -> Result<Fragment, QueueingError> {
        if parts.iter().all(|p| matches!(p.0, Kind::Stage(_))) {
            // One thread runs them all: one station.
            let parts = stages(parts, "seq")?;
            let name = format!("seq({})", names(&parts));
            return Ok(Fragment(Kind::Stage(Stage::join(name, parts, false))));
        }
        // Parallel parts one after the other: each runs alone on the
        // machine, the stream through one part, then through the next;
        // together one station of their summed time per element, spread on
        // the nodes in proportion to the work each keeps busy.
        let (mut time, mut work) = (0.0, Vec::<f64>::new());
        for p in parts {
            let net = self.net(p)?;
            if net.is_free() {
                continue; // no time, and no network to solve
            }
            let alone = solve(&net, self.machine)?;
            time += alone.time_per_element;
            work.resize(work.len().max(alone.nodes.len()), 0.0);
            for (j, n) in alone.nodes.iter().enumerate() {
                work[j] += n.work;
            }
        }
        let total: f64 = work.iter().sum();
        let spread: Vec<(usize, f64, f64)> = (work.iter().enumerate())
            .filter(|(_, w)| **w > 0.0)
            .map(|(j, &w)| (j, time * w / total, w))
            .collect();
        let delay = if spread.is_empty() { time } else { 0.0 };
        Ok(Fragment(Kind::Net(Net {
            parts: vec![Part {
                name: "seq".into(),
                servers: 1,
                program: Program::spread(&spread, delay),
            }],
            in_flight: 1,
        })))
    }

    fn pipe(&mut self, stages: Vec<Fragment>, _: &Scope) -> Result<Fragment, QueueingError> {
        let mut in_flight = 0;
        let mut all = Vec::new();
        let k = stages.len();
        let mut home = 0;
        for (i, stage) in stages.into_iter().enumerate() {
            let net = self.net(stage)?;
            if i > 0 {
                let handoff = self.waits().handoff_ns;
                all.push(self.overhead(format!("handoff {i}"), home, handoff));
            }
            home = net.home();
            in_flight = add(in_flight, net.in_flight)?;
            all.extend(net.parts);
        }
        in_flight = add(in_flight, mul(k - 1, self.buffer)?)?;
        Ok(Fragment(Kind::Net(Net {
            parts: all,
            in_flight,
        })))
    }

    fn tpool(&mut self, n: &Count, body: Fragment, _: &Scope) -> Result<Fragment, QueueingError> {
        let n = self.count(n)?;
        let body = self.net(body)?;
        let take = self.waits().take_ns;
        let mut parts = vec![self.overhead(format!("queue of tpool[{n}]"), body.home(), take)];
        for p in body.parts {
            parts.push(Part {
                servers: mul(p.servers, n)?,
                ..p
            });
        }
        let in_flight = add(mul(n, body.in_flight)?, self.buffer)?;
        Ok(Fragment(Kind::Net(Net { parts, in_flight })))
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Fragment,
        shuffle: &Atom,
        reduce: Fragment,
        scope: &Scope,
    ) -> Result<Fragment, QueueingError> {
        let models = |f: Fragment| match f.0 {
            Kind::Stage(s) => s.model,
            Kind::Net(_) => None,
        };
        let (Some(map), Some(reduce)) = (models(map), models(reduce)) else {
            return Err(QueueingError::Unsupported {
                pattern: "a mapReduce whose map or reduce is parallel",
            });
        };
        let (m, n) = (self.count(&params.m)?, self.count(&params.n)?);
        let shuffle_model = self.resolve(&shuffle.name, &shuffle.model, scope)?;
        let phases = MapReducePhases::new(params, map, &shuffle_model, reduce);
        // Each of the m·n workers takes an equal share of the elements,
        // and of the keys.
        let workers = Expr::num(m as f64 * n as f64);
        let map_ns = Expr::var("x") * phases.map_one / workers.clone();
        let reduce_ns = phases.keys * phases.reduce_d / workers;
        let parts = vec![
            Stage::workers(format!("map of {}", shuffle.name), m, n, map_ns),
            Stage::delay(&shuffle.name, phases.shuffle),
            Stage::workers(format!("reduce of {}", shuffle.name), m, n, reduce_ns),
        ];
        let name = format!("mapReduce[{m}, {n}]");
        Ok(Fragment(Kind::Stage(Stage::join(name, parts, false))))
    }

    fn on(&mut self, p: &Count, body: Fragment, _: &Scope) -> Result<Fragment, QueueingError> {
        let [body] = <[Stage; 1]>::try_from(stages(vec![body], "on[p] of a pipe or task pool")?)
            .expect("one part");
        let name = format!("on[{p}]({})", body.name);
        let mut placed = body.place(&p.to_expr(), &Expr::num(0.0));
        placed.name = name;
        Ok(Fragment(Kind::Stage(placed)))
    }

    fn par(
        &mut self,
        sizes: &[Count],
        parts: Vec<Fragment>,
        _: &Scope,
    ) -> Result<Fragment, QueueingError> {
        let parts = stages(parts, "par of a pipe or task pool")?;
        let name = format!(
            "par[{}]({})",
            (sizes.iter().map(|s| s.to_string()))
                .collect::<Vec<_>>()
                .join(", "),
            names(&parts)
        );
        let mut offset = Expr::num(0.0);
        let mut placed = Vec::with_capacity(parts.len());
        for (size, part) in sizes.iter().zip(parts) {
            placed.push(part.place(&size.to_expr(), &offset));
            offset = offset + size.to_expr();
        }
        Ok(Fragment(Kind::Stage(Stage::join(name, placed, true))))
    }

    fn groups(&mut self, s: &Count, body: Fragment, _: &Scope) -> Result<Fragment, QueueingError> {
        let [body] = <[Stage; 1]>::try_from(stages(vec![body], "groups of a pipe or task pool")?)
            .expect("one part");
        let copies = self.count(s)?;
        if copies > MAX_GROUPS {
            return Err(QueueingError::TooManyGroups {
                groups: copies,
                limit: MAX_GROUPS,
            });
        }
        let size = group_size(s);
        let name = format!("groups[{s}]({})", body.name);
        let placed = (0..copies)
            .map(|i| {
                body.clone()
                    .place(&size, &(size.clone() * Expr::num(i as f64)))
            })
            .collect();
        Ok(Fragment(Kind::Stage(Stage::join(name, placed, true))))
    }

    fn redist(
        &mut self,
        cost: &Expr,
        a: Fragment,
        b: Fragment,
        scope: &Scope,
    ) -> Result<Fragment, QueueingError> {
        let [a, b] =
            <[Stage; 2]>::try_from(stages(vec![a, b], "seq[redist] of a pipe or task pool")?)
                .expect("two parts");
        let cost = self.resolve("redistribution", cost, scope)?;
        let name = format!("seq[redist]({}, {})", a.name, b.name);
        let parts = vec![a, Stage::delay("redistribution", cost), b];
        Ok(Fragment(Kind::Stage(Stage::join(name, parts, false))))
    }
}
