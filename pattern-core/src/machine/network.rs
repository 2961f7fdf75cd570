//! How a machine's nodes are connected: the links, the topology that routes
//! a transfer over them, and the rule by which transfers share a link.
//!
//! Every link is full duplex unless said otherwise: its two directions are
//! two links of the same bandwidth. A transfer's bytes cross every link of
//! its route at one rate, set by the [`Sharing`] rule; its latency, the sum
//! of its route's latencies, is a delay before the bytes move that occupies
//! no link.
//!
//! - **Star** (the default): each node has one link to a switch that is
//!   never the bottleneck. A transfer crosses the sender's link out and the
//!   receiver's link in; its latency is [`Network::latency_ns`].
//! - **Racks**: nodes sit on rack switches, `nodes_per_rack` each in the
//!   order of the machine's nodes, and the rack switches on a backbone.
//!   Within a rack a transfer crosses the two node links, as in a star;
//!   between racks it also crosses the sender's rack uplink, the backbone
//!   (one link shared by every transfer between racks, both ways) and the
//!   receiver's rack uplink, and their latencies add to the nodes'.

use serde::{Deserialize, Serialize};

/// How the transfers crossing a link share its bandwidth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sharing {
    /// Max-min fairness by progressive filling (SimGrid's model, what TCP
    /// flows approximate): every transfer's rate grows at the same pace
    /// until one of its links is full; the transfers of a full link keep
    /// their rate and the others grow on. A transfer held back elsewhere
    /// leaves what it does not use of a link to the others.
    #[default]
    MaxMin,
    /// Equal shares: each transfer gets `bandwidth / k` of a link that `k`
    /// transfers cross, and moves at the smallest of its links' shares.
    /// What it leaves unused of a link is not handed on.
    EqualShare,
}

/// One link: a latency and a bandwidth.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// The delay a transfer takes to cross it before its bytes move, in ns.
    pub latency_ns: f64,
    /// Bytes per ns in each direction.
    pub bandwidth_bytes_per_ns: f64,
}

impl Link {
    /// A link of `latency_ns` and `bandwidth_bytes_per_ns`.
    pub fn new(latency_ns: f64, bandwidth_bytes_per_ns: f64) -> Link {
        Link {
            latency_ns,
            bandwidth_bytes_per_ns,
        }
    }
}

/// Nodes on rack switches, the rack switches on a backbone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Racks {
    /// Nodes on each rack switch, in the order of the machine's nodes (the
    /// last rack may hold fewer).
    pub nodes_per_rack: usize,
    /// Each rack switch's link to the backbone (full duplex).
    pub uplink: Link,
    /// The backbone: one link that every transfer between two racks
    /// crosses, in either direction.
    pub backbone: Link,
}

impl Racks {
    /// `nodes_per_rack` nodes on each rack, the racks' uplinks and the
    /// backbone as given.
    pub fn new(nodes_per_rack: usize, uplink: Link, backbone: Link) -> Racks {
        Racks {
            nodes_per_rack,
            uplink,
            backbone,
        }
    }
}

/// The shape of the network.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Topology {
    /// Every node's link on one switch that is never the bottleneck.
    #[default]
    Star,
    /// Nodes on rack switches, racks on a backbone.
    Racks(Racks),
}

/// The network of a machine: each node's link (its latency and bandwidth),
/// the topology and the sharing rule. See [`crate::machine`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Network {
    /// The latency of a transfer between two nodes, in ns (within a rack
    /// with [`Topology::Racks`]).
    pub latency_ns: f64,
    /// The bytes per ns of each node's link, in each direction.
    pub bandwidth_bytes_per_ns: f64,
    /// How transfers share a link.
    pub sharing: Sharing,
    /// How the nodes are connected.
    pub topology: Topology,
}

impl Default for Network {
    /// A star with no latency and a byte per ns on each link, shared max-min.
    fn default() -> Network {
        Network {
            latency_ns: 0.0,
            bandwidth_bytes_per_ns: 1.0,
            sharing: Sharing::MaxMin,
            topology: Topology::Star,
        }
    }
}

/// The route of a transfer over the links of [`Network::links`]: their
/// indices and the latency of the whole route.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Route {
    links: [usize; 5],
    len: usize,
    /// The sum of the latencies of the links crossed, in ns.
    pub latency_ns: f64,
}

impl Route {
    /// The indices of the links crossed, in [`Network::links`]' numbering.
    pub fn links(&self) -> &[usize] {
        &self.links[..self.len]
    }
}

impl Network {
    /// The racks of `nodes` nodes (1 in a star).
    pub fn racks(&self, nodes: usize) -> usize {
        match self.topology {
            Topology::Star => 1,
            Topology::Racks(r) => nodes.div_ceil(r.nodes_per_rack.max(1)),
        }
    }

    /// The rack of node `node`.
    pub fn rack_of(&self, node: usize) -> usize {
        match self.topology {
            Topology::Star => 0,
            Topology::Racks(r) => node / r.nodes_per_rack.max(1),
        }
    }

    /// The bandwidth of every link of a machine of `nodes` nodes, numbered:
    /// node `n`'s link out is `n`, in is `nodes + n`; with racks, rack `r`'s
    /// uplink up is `2·nodes + r`, down `2·nodes + racks + r`, and the
    /// backbone is the last.
    pub fn links(&self, nodes: usize) -> Vec<f64> {
        let mut links = vec![self.bandwidth_bytes_per_ns; 2 * nodes];
        if let Topology::Racks(r) = self.topology {
            let racks = self.racks(nodes);
            links.extend(std::iter::repeat_n(
                r.uplink.bandwidth_bytes_per_ns,
                2 * racks,
            ));
            links.push(r.backbone.bandwidth_bytes_per_ns);
        }
        links
    }

    /// The route from node `from` to node `to` (two different nodes of a
    /// machine of `nodes` nodes).
    pub fn route(&self, nodes: usize, from: usize, to: usize) -> Route {
        let mut route = Route {
            links: [from, nodes + to, 0, 0, 0],
            len: 2,
            latency_ns: self.latency_ns,
        };
        if let Topology::Racks(r) = self.topology {
            let (a, b) = (self.rack_of(from), self.rack_of(to));
            if a != b {
                let racks = self.racks(nodes);
                route.links[2] = 2 * nodes + a;
                route.links[3] = 2 * nodes + racks + b;
                route.links[4] = 2 * nodes + 2 * racks;
                route.len = 5;
                route.latency_ns += 2.0 * r.uplink.latency_ns + r.backbone.latency_ns;
            }
        }
        route
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_star_routes_over_two_node_links() {
        let n = Network {
            latency_ns: 7.0,
            ..Network::default()
        };
        let r = n.route(4, 1, 3);
        assert_eq!(r.links(), [1, 7]);
        assert_eq!(r.latency_ns, 7.0);
        assert_eq!(n.links(4), vec![1.0; 8]);
    }

    #[test]
    fn racks_add_both_uplinks_and_the_backbone_between_racks() {
        let racks = Racks::new(2, Link::new(3.0, 4.0), Link::new(5.0, 10.0));
        let n = Network {
            latency_ns: 1.0,
            bandwidth_bytes_per_ns: 2.0,
            sharing: Sharing::MaxMin,
            topology: Topology::Racks(racks),
        };
        // 5 nodes: racks {0, 1}, {2, 3}, {4}.
        assert_eq!(n.racks(5), 3);
        assert_eq!(n.route(5, 0, 1).links(), [0, 6]);
        let across = n.route(5, 1, 4);
        // Links: 10 node links, 3 up (10..13), 3 down (13..16), backbone 16.
        assert_eq!(across.links(), [1, 9, 10, 15, 16]);
        assert_eq!(across.latency_ns, 1.0 + 2.0 * 3.0 + 5.0);
        let links = n.links(5);
        assert_eq!(links.len(), 17);
        assert_eq!((links[0], links[12], links[16]), (2.0, 4.0, 10.0));
    }
}
