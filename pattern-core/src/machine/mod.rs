//! The machine a design runs on: the one description of hardware that
//! every semantics and every command prices a design on.
//!
//! A [`Machine`] is nodes of cores (each group of identical nodes with its
//! cores and a speed), a [`Network`] between them (each node's link, a
//! star or racks on a backbone, and how transfers share a link), and,
//! optionally, what its threads cost to wait and hand an element over
//! ([`Waiting`]) under each [`Runtime`] that may run a design (measured by
//! `pattern machine --probe --runtime R`), with the runtime that will. It is data: it
//! reads from and writes to a JSON file ([`Machine::from_json`],
//! [`Machine::to_json`]; the format is in `docs/machine.md`).
//!
//! ```
//! use pattern_core::machine::{Machine, Node, Sharing};
//!
//! let m = Machine::new(4, 8)          // 4 identical nodes of 8 cores, speed 1.0, a star network
//!     .latency(1e3)                   // ns per transfer
//!     .bandwidth(12.5)                // bytes per ns of each node's link (full duplex)
//!     .sharing(Sharing::MaxMin)       // the default; Sharing::EqualShare is the other rule
//!     .node(Node::new(16).speed(2.0)); // one more node: 16 cores, twice as fast
//! assert_eq!(m.cores(), 48);
//! assert_eq!(m.nodes(), 5);
//! assert_eq!((m.node_cores(4), m.node_speed(4)), (16, 2.0));
//! let text = serde_json::to_string(&m)?;
//! let back: Machine = serde_json::from_str(&text)?;
//! assert_eq!(back, m);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Speeds scale work: a step whose model gives `t` ns takes `t / speed` on
//! a node of that speed (the models are measured at speed 1). The
//! simulator runs on the machine as it is; the queueing semantics places a
//! design's threads on its nodes; the plain operators assume a core per
//! thread, and [`Machine::assumptions`] says where a design breaks that on
//! a given machine.

mod error;
mod file;
mod memory;
mod network;
mod runtime;
mod values;
mod waiting;

pub use error::MachineError;
pub use memory::{Handed, HandedPoint, MAX_HANDED_POINTS, Memory};
pub use network::{Link, Network, Racks, Route, Sharing, Topology};
pub use runtime::Runtime;
pub use waiting::Waiting;

use crate::comm::Hockney;
use crate::comm::{CommFormula, MachineProfile};
use std::collections::BTreeMap;
use std::path::Path;

/// A group of identical nodes: how many, their cores, their speed and, if
/// known, their memory's bandwidth.
///
/// ```
/// use pattern_core::machine::{Memory, Node};
///
/// let fast = Node::new(16).speed(2.0).count(3).memory(Memory::new(40.0, 12.0));
/// assert_eq!((fast.count, fast.cores, fast.speed), (3, 16, 2.0));
/// assert_eq!(fast.memory.unwrap().lanes(), 40.0 / 12.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    /// How many nodes of this kind (1 unless set).
    pub count: usize,
    /// The cores of each.
    pub cores: usize,
    /// The speed of each core, relative to the speed at which the atoms'
    /// models were measured (1.0 unless set).
    pub speed: f64,
    /// Each node's memory, shared by its cores; `None`: atoms' bytes cost
    /// nothing beyond their models (the memory is never the bottleneck).
    pub memory: Option<Memory>,
}

impl Node {
    /// One node of `cores` cores at speed 1.
    pub fn new(cores: usize) -> Node {
        Node {
            count: 1,
            cores,
            speed: 1.0,
            memory: None,
        }
    }

    /// The same node, `factor` times as fast.
    pub fn speed(mut self, factor: f64) -> Node {
        self.speed = factor;
        self
    }

    /// `count` nodes of this kind.
    pub fn count(mut self, count: usize) -> Node {
        self.count = count;
        self
    }

    /// The same nodes, each with `memory`.
    pub fn memory(mut self, memory: Memory) -> Node {
        self.memory = Some(memory);
        self
    }
}

/// A machine: nodes, the network between them, and what waiting costs its
/// threads. See the [module overview](self).
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// Groups of identical nodes, in the order of the nodes' numbers; two
    /// neighbours never alike (merged).
    nodes: Vec<Node>,
    network: Network,
    /// What waiting costs the threads of each runtime measured.
    waiting: BTreeMap<Runtime, Waiting>,
    /// The runtime whose waiting the semantics price.
    runtime: Runtime,
    profile: Option<MachineProfile>,
}

impl Machine {
    /// `nodes` identical nodes of `cores` cores at speed 1, on a star
    /// network with no latency and a byte per ns on each link, shared
    /// max-min; waiting is free.
    pub fn new(nodes: usize, cores: usize) -> Machine {
        Machine::of(Node::new(cores).count(nodes))
    }

    /// The nodes of `node` (its count of them) alone, on a star network
    /// with no latency and a byte per ns; then [`Machine::node`] for more.
    ///
    /// ```
    /// use pattern_core::machine::{Machine, Node};
    ///
    /// let m = Machine::of(Node::new(16).speed(2.0)).node(Node::new(8).count(3));
    /// assert_eq!((m.nodes(), m.cores(), m.node_speed(0)), (4, 40, 2.0));
    /// ```
    pub fn of(node: Node) -> Machine {
        Machine {
            nodes: vec![node],
            network: Network::default(),
            waiting: BTreeMap::new(),
            runtime: Runtime::Executor,
            profile: None,
        }
    }

    /// One node with a core for each of `threads` threads: the plain
    /// operators' assumption, as a machine.
    pub fn core_per_thread(threads: usize) -> Machine {
        Machine::new(1, threads)
    }

    /// The same machine with the nodes of `node` after its own.
    pub fn node(mut self, node: Node) -> Machine {
        match self.nodes.last_mut() {
            Some(last)
                if last.cores == node.cores
                    && last.speed == node.speed
                    && last.memory == node.memory =>
            {
                last.count = last.count.saturating_add(node.count);
            }
            _ => self.nodes.push(node),
        }
        self
    }

    /// Every node so far with `memory` (nodes added later keep their own).
    ///
    /// ```
    /// use pattern_core::machine::{Machine, Memory};
    ///
    /// let m = Machine::new(1, 2).memory(Memory::new(30.0, 20.0));
    /// assert_eq!(m.node_memory(0), Some(Memory::new(30.0, 20.0)));
    /// ```
    pub fn memory(mut self, memory: Memory) -> Machine {
        for g in &mut self.nodes {
            g.memory = Some(memory);
        }
        self
    }

    /// The latency of a transfer between two nodes, in ns.
    pub fn latency(mut self, ns: f64) -> Machine {
        self.network.latency_ns = ns;
        self
    }

    /// The bytes per ns of each node's link, in each direction.
    pub fn bandwidth(mut self, bytes_per_ns: f64) -> Machine {
        self.network.bandwidth_bytes_per_ns = bytes_per_ns;
        self
    }

    /// How transfers share a link ([`Sharing::MaxMin`] unless set).
    pub fn sharing(mut self, sharing: Sharing) -> Machine {
        self.network.sharing = sharing;
        self
    }

    /// Puts the nodes on rack switches, the racks on a backbone.
    pub fn racks(mut self, racks: Racks) -> Machine {
        self.network.topology = Topology::Racks(racks);
        self
    }

    /// The whole network at once.
    pub fn network_of(mut self, network: Network) -> Machine {
        self.network = network;
        self
    }

    /// What the threads of the machine's runtime ([`Machine::runtime`])
    /// cost to wait and hand over.
    pub fn waiting(mut self, waiting: Waiting) -> Machine {
        self.waiting.insert(self.runtime, waiting);
        self
    }

    /// The same machine with its runtime's waiting part changed by `f`
    /// (from free waiting if it has none).
    ///
    /// ```
    /// use pattern_core::machine::Machine;
    ///
    /// let m = Machine::new(1, 2).with_waiting(|w| w.pinned(true).wake_latency_ns(5.0));
    /// assert!(m.waiting_costs().pinned);
    /// assert_eq!(m.waiting_costs().wake_latency_ns, 5.0);
    /// ```
    pub fn with_waiting(mut self, f: impl FnOnce(Waiting) -> Waiting) -> Machine {
        let w = f(self.waiting.get(&self.runtime).copied().unwrap_or_default());
        self.waiting.insert(self.runtime, w);
        self
    }

    /// The same machine with the design's threads run by `runtime`: every
    /// semantics then prices that runtime's waiting ([`Machine::waiting_costs`]).
    /// The executor unless set.
    ///
    /// ```
    /// use pattern_core::machine::{Machine, Runtime, Waiting};
    ///
    /// let m = Machine::new(1, 2)
    ///     .waiting(Waiting::new().take_ns(120.0)) // the executor's
    ///     .runtime(Runtime::Rayon)
    ///     .waiting(Waiting::new().take_ns(900.0)); // rayon's
    /// assert_eq!(m.waiting_costs().take_ns, 900.0);
    /// assert_eq!(m.clone().runtime(Runtime::Executor).waiting_costs().take_ns, 120.0);
    /// assert_eq!(m.waiting_of(Runtime::Threads), None);
    /// ```
    pub fn runtime(mut self, runtime: Runtime) -> Machine {
        self.runtime = runtime;
        self
    }

    /// The machine's communication profile (seed 004), in place of the one
    /// derived from its network ([`Machine::communication`]).
    pub fn comm_profile(mut self, profile: MachineProfile) -> Machine {
        self.profile = Some(profile);
        self
    }

    /// The number of nodes.
    pub fn nodes(&self) -> usize {
        self.nodes
            .iter()
            .fold(0usize, |n, g| n.saturating_add(g.count))
    }

    /// The cores of all nodes.
    pub fn cores(&self) -> usize {
        self.nodes.iter().fold(0usize, |n, g| {
            n.saturating_add(g.count.saturating_mul(g.cores))
        })
    }

    /// The groups of identical nodes, in the order of the nodes' numbers.
    pub fn groups(&self) -> &[Node] {
        &self.nodes
    }

    /// The group node `node` belongs to, if the machine has it.
    fn group_of(&self, node: usize) -> Option<&Node> {
        let mut first = 0usize;
        for g in &self.nodes {
            first = first.saturating_add(g.count);
            if node < first {
                return Some(g);
            }
        }
        None
    }

    /// Whether the machine has node `node` (numbered from 0).
    pub fn has_node(&self, node: usize) -> bool {
        self.group_of(node).is_some()
    }

    /// The cores of node `node` (0 if the machine has no such node).
    pub fn node_cores(&self, node: usize) -> usize {
        self.group_of(node).map_or(0, |g| g.cores)
    }

    /// The speed of node `node` (0 if the machine has no such node).
    pub fn node_speed(&self, node: usize) -> f64 {
        self.group_of(node).map_or(0.0, |g| g.speed)
    }

    /// The memory of node `node`, if the machine describes it.
    pub fn node_memory(&self, node: usize) -> Option<Memory> {
        self.group_of(node).and_then(|g| g.memory)
    }

    /// Each node's (cores, speed), node by node: `nodes()` entries.
    pub fn each_node(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        (self.nodes.iter()).flat_map(|g| std::iter::repeat_n((g.cores, g.speed), g.count))
    }

    /// The capacity of the nodes `0..nodes` (all of them if fewer): their
    /// cores times their speeds, in cores of speed 1.
    pub fn capacity(&self, nodes: usize) -> f64 {
        self.each_node()
            .take(nodes)
            .map(|(c, s)| c as f64 * s)
            .sum()
    }

    /// Whether every node is alike (one group).
    pub fn is_homogeneous(&self) -> bool {
        self.nodes.len() == 1
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// The runtime that runs the design's threads ([`Machine::runtime`]).
    pub fn runs_on(&self) -> Runtime {
        self.runtime
    }

    /// What waiting costs the threads of the machine's runtime (free when
    /// the machine does not say).
    pub fn waiting_costs(&self) -> &Waiting {
        const FREE: Waiting = Waiting::new();
        self.waiting.get(&self.runtime).unwrap_or(&FREE)
    }

    /// Whether the machine has a waiting part for its runtime.
    pub fn has_waiting(&self) -> bool {
        self.waiting.contains_key(&self.runtime)
    }

    /// The waiting part of `runtime`, if the machine has one.
    pub fn waiting_of(&self, runtime: Runtime) -> Option<&Waiting> {
        self.waiting.get(&runtime)
    }

    /// The runtimes whose waiting the machine describes, in the order of
    /// [`Runtime::ALL`].
    pub fn runtimes(&self) -> impl Iterator<Item = Runtime> + '_ {
        self.waiting.keys().copied()
    }

    /// The time of a transfer of `bytes` alone from node `from` to node
    /// `to` (two nodes): its route's latency plus the bytes at the smallest
    /// bandwidth on the route.
    pub fn transfer_time(&self, from: usize, to: usize, bytes: f64) -> f64 {
        let nodes = self.nodes();
        let route = self.network.route(nodes, from, to);
        let links = self.network.links(nodes);
        let slowest = (route.links().iter())
            .map(|&l| links[l])
            .fold(f64::INFINITY, f64::min);
        route.latency_ns + bytes / slowest
    }

    /// The Hockney model of the network (seed 000), in ns and bytes: a
    /// message of `w` bytes takes `α + w·β` with `α` the latency and `β`
    /// the inverse of a node link's bandwidth.
    pub fn hockney(&self) -> Hockney {
        Hockney::new(
            self.network.latency_ns,
            1.0 / self.network.bandwidth_bytes_per_ns,
        )
    }

    /// The communication profile (seed 004): the one given
    /// ([`Machine::comm_profile`]) or, by default, one derived from the
    /// network in ns, `τ` its latency and `t_c` the inverse of a node
    /// link's bandwidth: `send(b) = τ + t_c·b`, `bcast(p, b)` and
    /// `reduce(p, b)` over a binomial tree `log2(p)·(τ + t_c·b)`, and
    /// `gather`, `scatter`, `allgather` as `p` messages through one link,
    /// `τ·p + t_c·p·b`.
    pub fn communication(&self) -> MachineProfile {
        if let Some(p) = &self.profile {
            return p.clone();
        }
        let (tau, t_c) = (
            self.network.latency_ns,
            1.0 / self.network.bandwidth_bytes_per_ns,
        );
        let mut p = MachineProfile {
            name: "this machine's network".into(),
            unit: "ns".into(),
            functions: Default::default(),
            contention: None,
        };
        p = p.with_function("send", CommFormula::Linear { tau, t_c });
        for name in ["bcast", "reduce"] {
            p = p.with_function(name, CommFormula::Logarithmic { tau, t_c });
        }
        for name in ["gather", "scatter", "allgather"] {
            let f = CommFormula::LinearInP {
                tau1: 0.0,
                tau2: tau,
                t_c,
            };
            p = p.with_function(name, f);
        }
        p
    }

    /// Every value in its range: at least one node, every group at least
    /// one node of at least one core at a finite speed `> 0`, the nodes and
    /// cores countable, latencies finite and `>= 0`, bandwidths finite and
    /// `> 0`, racks of at least one node, waiting costs finite and `>= 0`.
    pub fn check(&self) -> Result<(), MachineError> {
        if self.nodes.is_empty() {
            return Err(MachineError::NoNodes);
        }
        let mut nodes = 0usize;
        let mut cores = 0usize;
        for (group, g) in self.nodes.iter().enumerate() {
            if g.count == 0 || g.cores == 0 {
                return Err(MachineError::NoCores {
                    group,
                    count: g.count,
                    cores: g.cores,
                });
            }
            if !(g.speed.is_finite() && g.speed > 0.0) {
                return Err(MachineError::Invalid {
                    key: "speed".into(),
                    value: g.speed,
                    expected: "a finite number > 0",
                });
            }
            if let Some((key, value, expected)) = g.memory.and_then(|m| m.invalid()) {
                return Err(MachineError::Invalid {
                    key: format!("nodes[{group}].memory.{key}"),
                    value,
                    expected,
                });
            }
            nodes = nodes.checked_add(g.count).ok_or(MachineError::TooLarge)?;
            cores = (g.count.checked_mul(g.cores))
                .and_then(|c| cores.checked_add(c))
                .ok_or(MachineError::TooLarge)?;
        }
        let mut links = vec![(
            "network.",
            Link::new(self.network.latency_ns, self.network.bandwidth_bytes_per_ns),
        )];
        if let Topology::Racks(r) = self.network.topology {
            if r.nodes_per_rack == 0 {
                return Err(MachineError::Invalid {
                    key: "network.racks.nodes_per_rack".into(),
                    value: 0.0,
                    expected: "at least 1",
                });
            }
            links.push(("network.racks.uplink.", r.uplink));
            links.push(("network.racks.backbone.", r.backbone));
        }
        for (prefix, link) in links {
            if !(link.latency_ns.is_finite() && link.latency_ns >= 0.0) {
                return Err(MachineError::Invalid {
                    key: format!("{prefix}latency_ns"),
                    value: link.latency_ns,
                    expected: "a finite number of ns >= 0",
                });
            }
            let b = link.bandwidth_bytes_per_ns;
            if !(b.is_finite() && b > 0.0) {
                return Err(MachineError::Invalid {
                    key: format!("{prefix}bandwidth_bytes_per_ns"),
                    value: b,
                    expected: "a finite number of bytes per ns > 0",
                });
            }
        }
        for (runtime, w) in &self.waiting {
            if let Some((key, value, expected)) = w.invalid() {
                return Err(MachineError::Invalid {
                    key: format!("waiting.{runtime}.{key}"),
                    value,
                    expected,
                });
            }
        }
        Ok(())
    }

    /// Reads a machine from JSON text (the format of `docs/machine.md`);
    /// an error names the line, the column and the key.
    ///
    /// ```
    /// use pattern_core::machine::Machine;
    ///
    /// let m = Machine::from_json(r#"{"nodes": [{"count": 2, "cores": 4}],
    ///     "network": {"topology": "star", "latency_ns": 1000,
    ///                 "bandwidth_bytes_per_ns": 1.25, "sharing": "max-min"}}"#)?;
    /// assert_eq!(m, Machine::new(2, 4).latency(1000.0).bandwidth(1.25));
    /// let bad = Machine::from_json("{\"nodes\": [{\"cores\": 0}]}").unwrap_err();
    /// assert_eq!(bad.to_string(), "line 1, column 23, at `nodes[0].cores`: 0 is out of range: at least 1");
    /// # Ok::<(), pattern_core::machine::MachineError>(())
    /// ```
    pub fn from_json(text: &str) -> Result<Machine, MachineError> {
        file::from_json(text)
    }

    /// Reads a machine file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Machine, MachineError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| MachineError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Machine::from_json(&text).map_err(|e| e.in_file(path))
    }

    /// The machine as a JSON file, pretty-printed; it reads back equal.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// One line for reports: `2 nodes of 4 cores, star network (1000 ns,
    /// 1.25 bytes/ns, max-min)`.
    pub fn summary(&self) -> String {
        let groups: Vec<String> = (self.nodes.iter())
            .map(|g| {
                let node = if g.count == 1 { "node" } else { "nodes" };
                let core = if g.cores == 1 { "core" } else { "cores" };
                let speed = if g.speed == 1.0 {
                    String::new()
                } else {
                    format!(" at speed {}", short(g.speed))
                };
                format!("{} {node} of {} {core}{speed}", g.count, g.cores)
            })
            .collect();
        let mut s = groups.join(" + ");
        if self.nodes() > 1 {
            let n = &self.network;
            let sharing = match n.sharing {
                Sharing::MaxMin => "max-min",
                Sharing::EqualShare => "equal shares",
            };
            let shape = match n.topology {
                Topology::Star => "star network".to_string(),
                Topology::Racks(r) => format!("racks of {} nodes", r.nodes_per_rack),
            };
            s += &format!(
                ", {shape} ({} ns, {} bytes/ns, {sharing})",
                short(n.latency_ns),
                short(n.bandwidth_bytes_per_ns)
            );
        }
        if let Some(w) = self.waiting.get(&self.runtime)
            && !w.is_free()
        {
            s += &format!(
                ", waiting ({}): hand-off {} ns, take {} ns{}",
                self.runtime,
                short(w.handoff_ns),
                short(w.take_ns),
                if w.pinned { ", threads pinned" } else { "" }
            );
        }
        s
    }

    /// Where the plain operators' assumption (a core for every thread, the
    /// nodes a design asks for) fails for a design on `nodes` nodes with at
    /// most `threads_per_node` threads on one of them: one line each, empty
    /// when it holds.
    ///
    /// ```
    /// use pattern_core::machine::Machine;
    ///
    /// let m = Machine::new(2, 4);
    /// assert!(m.assumptions(2, 4).is_empty());
    /// assert_eq!(m.assumptions(1, 6), ["up to 6 threads on a node of 4 cores: the operators assume a core per thread"]);
    /// assert_eq!(m.assumptions(3, 1), ["the design asks for 3 nodes, the machine has 2"]);
    /// ```
    pub fn assumptions(&self, nodes: u64, threads_per_node: u64) -> Vec<String> {
        let mut out = Vec::new();
        let have = self.nodes() as u64;
        if nodes > have {
            out.push(format!(
                "the design asks for {nodes} nodes, the machine has {have}"
            ));
        }
        let used = usize::try_from(nodes.clamp(1, have)).unwrap_or(usize::MAX);
        let fewest = self.each_node().take(used).map(|(c, _)| c).min();
        if let Some(cores) = fewest.filter(|&c| threads_per_node > c as u64) {
            out.push(format!(
                "up to {threads_per_node} threads on a node of {cores} cores: the operators assume a core per thread"
            ));
        }
        out
    }

    /// The fewest cores of the nodes `0..nodes` (of all nodes if fewer):
    /// the most threads a node may hold under the operators' assumption.
    pub fn fewest_cores(&self, nodes: usize) -> usize {
        self.each_node()
            .take(nodes.max(1))
            .map(|(c, _)| c)
            .min()
            .unwrap_or(0)
    }
}

/// `v` to 6 significant digits, for reading (files keep every digit).
fn short(v: f64) -> String {
    let rounded: f64 = format!("{v:.5e}").parse().unwrap_or(v);
    rounded.to_string()
}

#[cfg(test)]
mod tests;
