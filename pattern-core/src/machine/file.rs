//! A machine as a file: its JSON form, read with every value checked and
//! every error placed (line, column and the key's path), written back
//! exactly (`float_roundtrip`: a number reads back to the same bits).
//!
//! ```json
//! {
//!   "nodes": [{"count": 2, "cores": 4, "speed": 1.0,
//!              "memory": {"bandwidth_bytes_per_ns": 30, "core_bandwidth_bytes_per_ns": 20}}],
//!   "network": {"topology": "star", "latency_ns": 1000,
//!               "bandwidth_bytes_per_ns": 1.25, "sharing": "max-min"},
//!   "runtime": "rayon",
//!   "waiting": {"rayon": {"handoff_ns": 300, "take_ns": 120}}
//! }
//! ```
//!
//! `nodes` is required (a list of groups of identical nodes; `count` and
//! `speed` default to 1, `memory` ([`Memory`]) is optional); `network` defaults to a star with no latency and
//! a byte per ns; `runtime` (`executor`, `rayon` or `threads`) defaults to
//! the executor; `waiting` (each runtime's [`Waiting`], by its name; the
//! runtime's own is required when any is given) and `profile` (a
//! communication profile of seed 004, [`MachineProfile`]) are optional. With `"topology": "racks"` the
//! network also has `racks`: `{"nodes_per_rack": 4, "uplink":
//! {"latency_ns": .., "bandwidth_bytes_per_ns": ..}, "backbone": {..}}`.
//! An unknown key is an error.

use super::network::{Link, Network, Racks, Sharing, Topology};
use super::runtime::Runtime;
use super::values::{at_least_one, ns, positive};
use super::waiting::Waiting;
use super::{Machine, MachineError, Memory, Node};
use crate::comm::MachineProfile;
use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn one() -> usize {
    1
}

fn unit_speed() -> f64 {
    1.0
}

/// A group of identical nodes as written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeFile {
    #[serde(default = "one", deserialize_with = "at_least_one")]
    count: usize,
    #[serde(deserialize_with = "at_least_one")]
    cores: usize,
    #[serde(default = "unit_speed", deserialize_with = "positive")]
    speed: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    memory: Option<Memory>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkFile {
    #[serde(default, deserialize_with = "ns")]
    latency_ns: f64,
    #[serde(deserialize_with = "positive")]
    bandwidth_bytes_per_ns: f64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RacksFile {
    #[serde(deserialize_with = "at_least_one")]
    nodes_per_rack: usize,
    uplink: LinkFile,
    backbone: LinkFile,
}

#[derive(Clone, Copy, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
enum TopologyName {
    Star,
    Racks,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NetworkFile {
    #[serde(default = "star")]
    topology: TopologyName,
    #[serde(default, deserialize_with = "ns")]
    latency_ns: f64,
    #[serde(default = "unit_speed", deserialize_with = "positive")]
    bandwidth_bytes_per_ns: f64,
    #[serde(default)]
    sharing: Sharing,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    racks: Option<RacksFile>,
}

fn star() -> TopologyName {
    TopologyName::Star
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MachineFile {
    nodes: Vec<NodeFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    network: Option<NetworkFile>,
    #[serde(default, skip_serializing_if = "is_executor")]
    runtime: Runtime,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    waiting: BTreeMap<Runtime, Waiting>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    profile: Option<MachineProfile>,
}

fn is_executor(r: &Runtime) -> bool {
    *r == Runtime::Executor
}

impl From<Link> for LinkFile {
    fn from(l: Link) -> LinkFile {
        LinkFile {
            latency_ns: l.latency_ns,
            bandwidth_bytes_per_ns: l.bandwidth_bytes_per_ns,
        }
    }
}

impl From<LinkFile> for Link {
    fn from(l: LinkFile) -> Link {
        Link::new(l.latency_ns, l.bandwidth_bytes_per_ns)
    }
}

impl From<&Machine> for MachineFile {
    fn from(m: &Machine) -> MachineFile {
        let n = m.network;
        let (topology, racks) = match n.topology {
            Topology::Star => (TopologyName::Star, None),
            Topology::Racks(r) => (
                TopologyName::Racks,
                Some(RacksFile {
                    nodes_per_rack: r.nodes_per_rack,
                    uplink: r.uplink.into(),
                    backbone: r.backbone.into(),
                }),
            ),
        };
        MachineFile {
            nodes: (m.nodes.iter())
                .map(|g| NodeFile {
                    count: g.count,
                    cores: g.cores,
                    speed: g.speed,
                    memory: g.memory,
                })
                .collect(),
            network: Some(NetworkFile {
                topology,
                latency_ns: n.latency_ns,
                bandwidth_bytes_per_ns: n.bandwidth_bytes_per_ns,
                sharing: n.sharing,
                racks,
            }),
            runtime: m.runtime,
            waiting: m.waiting.clone(),
            profile: m.profile.clone(),
        }
    }
}

impl TryFrom<MachineFile> for Machine {
    type Error = String;

    fn try_from(f: MachineFile) -> Result<Machine, String> {
        if f.nodes.is_empty() {
            return Err("`nodes` is empty: a machine has at least one node".into());
        }
        let network = match f.network {
            None => Network::default(),
            Some(n) => {
                let topology = match (n.topology, n.racks) {
                    (TopologyName::Star, None) => Topology::Star,
                    (TopologyName::Star, Some(_)) => {
                        return Err(
                            "`network.racks` is given for a star: set `\"topology\": \"racks\"`"
                                .into(),
                        );
                    }
                    (TopologyName::Racks, None) => {
                        return Err("`\"topology\": \"racks\"` needs `network.racks`: \
                            {\"nodes_per_rack\": .., \"uplink\": {..}, \"backbone\": {..}}"
                            .into());
                    }
                    (TopologyName::Racks, Some(r)) => Topology::Racks(Racks::new(
                        r.nodes_per_rack,
                        r.uplink.into(),
                        r.backbone.into(),
                    )),
                };
                Network {
                    latency_ns: n.latency_ns,
                    bandwidth_bytes_per_ns: n.bandwidth_bytes_per_ns,
                    sharing: n.sharing,
                    topology,
                }
            }
        };
        if !f.waiting.is_empty() && !f.waiting.contains_key(&f.runtime) {
            let given: Vec<&str> = f.waiting.keys().map(|r| r.name()).collect();
            return Err(format!(
                "the design runs on `{}` (`runtime`), but `waiting` describes only {}: \
                 probe it with `pattern machine --probe --runtime {}` or set `runtime`",
                f.runtime,
                given.join(", "),
                f.runtime
            ));
        }
        let mut m = Machine {
            nodes: Vec::new(),
            network,
            waiting: f.waiting,
            runtime: f.runtime,
            profile: f.profile,
        };
        for g in f.nodes {
            let node = Node::new(g.cores).count(g.count).speed(g.speed);
            m = m.node(Node {
                memory: g.memory,
                ..node
            });
        }
        m.check().map_err(|e| e.to_string())?;
        Ok(m)
    }
}

impl Serialize for Machine {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        MachineFile::from(self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Machine {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Machine, D::Error> {
        let file = MachineFile::deserialize(d)?;
        Machine::try_from(file).map_err(D::Error::custom)
    }
}

/// Reads a machine from JSON text, naming where an error is: its line and
/// column, and the path of the key (`nodes[0].cores`).
pub(crate) fn from_json(text: &str) -> Result<Machine, MachineError> {
    let format = |line, column, key: Option<String>, message: String| MachineError::Format {
        file: None,
        line,
        column,
        key,
        message: strip_position(&message),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let machine: Machine = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let key = (path != ".").then_some(path);
        format(inner.line(), inner.column(), key, inner.to_string())
    })?;
    de.end()
        .map_err(|e| format(e.line(), e.column(), None, e.to_string()))?;
    Ok(machine)
}

/// serde_json's message without its " at line L column C" (given apart).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}
