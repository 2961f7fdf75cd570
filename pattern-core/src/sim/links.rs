//! The network's links and the transfers moving bytes over them: each
//! transfer crosses the links of its route ([`Network::route`]) at one
//! rate, set by the machine's [`Sharing`] rule.
//!
//! - **Max-min** (progressive filling): every rate grows at the same pace
//!   until a link is full; the transfers crossing a full link keep their
//!   rate, the others grow on. A start or an end changes the rates of the
//!   transfers connected to it through shared links only (its *component*),
//!   so only those are recomputed: the links of the changed transfer's
//!   route, and transitively every transfer on them and every link those
//!   cross.
//! - **Equal shares**: a transfer gets `bandwidth / k` of a link that `k`
//!   transfers cross and moves at the smallest of its links' shares; a
//!   start or an end changes the transfers on its own links only.
//!
//! Starts and ends only mark their links; the rates are recomputed once for
//! all the marks made at one time ([`Links::rerate`], before the clock
//! moves on): transfers that start together (an all-to-all's, after the
//! same latency) cost one recomputation, not one each. A transfer whose
//! rate changes has its bytes settled to the time of the change and a new
//! version: the end the caller scheduled for the old one is stale and
//! skipped ([`Links::is_current`]).
//!
//! [`Network::route`]: crate::machine::Network::route

use crate::machine::{Machine, Network, Sharing};

/// A link whose share lies within this fraction of the smallest is full at
/// the same level: their transfers are fixed together, so that rounding
/// never leaves a link with transfers and (almost) no capacity.
const SAME_LEVEL: f64 = 1e-12;

/// A transfer: its route and, while its bytes move, their progress.
#[derive(Clone, Copy, Debug, Default)]
struct Flow {
    job: usize,
    route: [u32; 5],
    len: u8,
    /// Its place in each of its links' lists while it moves.
    slots: [u32; 5],
    remaining: f64,
    rate: f64,
    updated: f64,
    version: u64,
    /// Max-min: the component pass that saw it last, and whether its rate
    /// is fixed in the filling under way.
    seen: u32,
    fixed: bool,
}

/// The links of a machine and the transfers on them.
pub(crate) struct Links {
    sharing: Sharing,
    network: Network,
    nodes: usize,
    bandwidth: Vec<f64>,
    /// The transfers moving bytes over each link.
    crossing: Vec<Vec<u32>>,
    flows: Vec<Flow>,
    free: Vec<usize>,
    /// Transfers whose rate changed at the last [`Links::rerate`]: their
    /// ends must be rescheduled ([`Links::due`]).
    pub(crate) changed: Vec<usize>,
    /// The links a start or an end touched since the last rerate.
    touched: Vec<u32>,
    is_touched: Vec<bool>,
    // Max-min's scratch: the component's links and transfers, each link's
    // capacity left and transfers not fixed, the links full at a level.
    pass: u32,
    link_seen: Vec<u32>,
    component_links: Vec<u32>,
    component_flows: Vec<u32>,
    left: Vec<f64>,
    unfixed: Vec<u32>,
    shares: Vec<f64>,
    full: Vec<u32>,
}

impl Links {
    /// The links of `machine` (checked), no transfer on them.
    pub(crate) fn new(machine: &Machine) -> Links {
        let network = *machine.network();
        let nodes = machine.nodes();
        let bandwidth = network.links(nodes);
        let n = bandwidth.len();
        Links {
            sharing: network.sharing,
            network,
            nodes,
            crossing: vec![Vec::new(); n],
            flows: Vec::new(),
            free: Vec::new(),
            changed: Vec::new(),
            touched: Vec::new(),
            is_touched: vec![false; n],
            pass: 0,
            link_seen: vec![0; n],
            component_links: Vec::new(),
            component_flows: Vec::new(),
            left: vec![0.0; n],
            unfixed: vec![0; n],
            shares: Vec::new(),
            full: Vec::new(),
            bandwidth,
        }
    }

    /// The latency of the route from node `from` to node `to` (two nodes).
    pub(crate) fn latency(&self, from: usize, to: usize) -> f64 {
        self.network.route(self.nodes, from, to).latency_ns
    }

    /// A transfer of `bytes` from `from` to `to` (two nodes) for `job`,
    /// not moving yet; its number.
    pub(crate) fn open(&mut self, job: usize, from: usize, to: usize, bytes: f64) -> usize {
        let route = self.network.route(self.nodes, from, to);
        let mut flow = Flow {
            job,
            len: route.links().len() as u8,
            remaining: bytes,
            ..Flow::default()
        };
        for (slot, &l) in flow.route.iter_mut().zip(route.links()) {
            // Links are numbered below 2·nodes + 2·racks + 1 <= 2^22.
            *slot = l as u32;
        }
        match self.free.pop() {
            Some(f) => {
                flow.version = self.flows[f].version + 1;
                flow.seen = self.flows[f].seen;
                self.flows[f] = flow;
                f
            }
            None => {
                self.flows.push(flow);
                self.flows.len() - 1
            }
        }
    }

    /// The job of transfer `f`.
    pub(crate) fn job(&self, f: usize) -> usize {
        self.flows[f].job
    }

    /// Whether transfer `f` has no bytes left to move.
    pub(crate) fn is_empty(&self, f: usize) -> bool {
        self.flows[f].remaining == 0.0
    }

    /// Transfer `f`'s slot is free again (after its end, or at once for a
    /// transfer of no bytes).
    pub(crate) fn release(&mut self, f: usize) {
        self.free.push(f);
    }

    /// When transfer `f` ends at its rate now, and its version.
    pub(crate) fn due(&self, f: usize) -> (f64, u64) {
        let flow = &self.flows[f];
        (flow.updated + flow.remaining / flow.rate, flow.version)
    }

    /// Whether an end scheduled for transfer `f` at `version` still holds.
    pub(crate) fn is_current(&self, f: usize, version: u64) -> bool {
        self.flows[f].version == version
    }

    /// Transfer `f`'s latency is over at `now`: its bytes join its links
    /// (their rates change at the next [`Links::rerate`]).
    pub(crate) fn start(&mut self, f: usize, now: f64) {
        let flow = &mut self.flows[f];
        flow.updated = now;
        flow.rate = 0.0;
        let (route, len) = (flow.route, usize::from(flow.len));
        for (i, &l) in route[..len].iter().enumerate() {
            let on = &mut self.crossing[l as usize];
            self.flows[f].slots[i] = on.len() as u32;
            on.push(f as u32);
        }
        self.touch(&route[..len]);
    }

    /// Transfer `f`'s bytes have all moved: it leaves its links (its
    /// version changes; the others' rates change at the next
    /// [`Links::rerate`]).
    pub(crate) fn end(&mut self, f: usize) {
        let Flow {
            route, len, slots, ..
        } = self.flows[f];
        let len = usize::from(len);
        for i in 0..len {
            let (l, slot) = (route[i] as usize, slots[i] as usize);
            self.crossing[l].swap_remove(slot);
            if let Some(&moved) = self.crossing[l].get(slot) {
                let m = &mut self.flows[moved as usize];
                let k = (m.route[..usize::from(m.len)].iter())
                    .position(|&x| x as usize == l)
                    .unwrap_or(0);
                m.slots[k] = slot as u32;
            }
        }
        self.flows[f].version += 1;
        self.flows[f].remaining = 0.0;
        self.touch(&route[..len]);
    }

    fn touch(&mut self, links: &[u32]) {
        for &l in links {
            if !self.is_touched[l as usize] {
                self.is_touched[l as usize] = true;
                self.touched.push(l);
            }
        }
    }

    /// Whether a start or an end since the last [`Links::rerate`] changed
    /// rates.
    pub(crate) fn is_touched(&self) -> bool {
        !self.touched.is_empty()
    }

    /// The rates at `now`, after the starts and ends since the last call:
    /// the transfers whose rate changed go to [`Links::changed`].
    pub(crate) fn rerate(&mut self, now: f64) {
        self.changed.clear();
        let links = std::mem::take(&mut self.touched);
        for &l in &links {
            self.is_touched[l as usize] = false;
        }
        match self.sharing {
            Sharing::EqualShare => self.equal_shares(&links, now),
            Sharing::MaxMin => self.max_min(&links, now),
        }
        self.touched = links;
        self.touched.clear();
    }

    /// The links transfer `f` crosses (the first `len` of `route`).
    fn route(&self, f: usize) -> ([u32; 5], usize) {
        let flow = &self.flows[f];
        (flow.route, usize::from(flow.len))
    }

    /// Transfer `f` moves at `rate` from `now` on: its bytes so far are
    /// settled at the old rate and its version changes.
    fn set_rate(&mut self, f: usize, rate: f64, now: f64) {
        let flow = &mut self.flows[f];
        if flow.rate == rate {
            return;
        }
        flow.remaining = (flow.remaining - flow.rate * (now - flow.updated)).max(0.0);
        flow.updated = now;
        flow.rate = rate;
        flow.version += 1;
        self.changed.push(f);
    }

    /// Equal shares: every transfer on `links` moves at the smallest of its
    /// links' shares.
    fn equal_shares(&mut self, links: &[u32], now: f64) {
        for &l in links {
            // By index: the lists do not change while rates do.
            for i in 0..self.crossing[l as usize].len() {
                let f = self.crossing[l as usize][i] as usize;
                let flow = &self.flows[f];
                let rate = (flow.route[..usize::from(flow.len)].iter())
                    .map(|&k| self.bandwidth[k as usize] / self.crossing[k as usize].len() as f64)
                    .fold(f64::INFINITY, f64::min);
                self.set_rate(f, rate, now);
            }
        }
    }

    /// Max-min fairness over the component of `links`.
    fn max_min(&mut self, links: &[u32], now: f64) {
        self.component(links);
        // Alone in its component (most transfers): its slowest link.
        if let [f] = self.component_flows[..] {
            let (route, len) = self.route(f as usize);
            let rate = (route[..len].iter())
                .map(|&l| self.bandwidth[l as usize])
                .fold(f64::INFINITY, f64::min);
            self.set_rate(f as usize, rate, now);
            return;
        }
        for &l in &self.component_links {
            let l = l as usize;
            self.left[l] = self.bandwidth[l];
            self.unfixed[l] = self.crossing[l].len() as u32;
        }
        for &f in &self.component_flows {
            self.flows[f as usize].fixed = false;
        }
        let mut unfixed = self.component_flows.len();
        // The links with transfers not fixed yet: fewer at every level.
        let mut active = std::mem::take(&mut self.component_links);
        while unfixed > 0 {
            active.retain(|&l| self.unfixed[l as usize] > 0);
            // The level: the smallest share of capacity left.
            self.shares.clear();
            let mut level = f64::INFINITY;
            for &l in &active {
                let share = self.left[l as usize] / f64::from(self.unfixed[l as usize]);
                self.shares.push(share);
                level = level.min(share);
            }
            let limit = level * (1.0 + SAME_LEVEL);
            self.full.clear();
            for (&l, &share) in active.iter().zip(&self.shares) {
                if share <= limit {
                    self.full.push(l);
                }
            }
            // Every transfer of a full link keeps the level.
            for i in 0..self.full.len() {
                let l = self.full[i] as usize;
                for j in 0..self.crossing[l].len() {
                    let f = self.crossing[l][j] as usize;
                    if self.flows[f].fixed {
                        continue;
                    }
                    self.flows[f].fixed = true;
                    unfixed -= 1;
                    let (route, len) = self.route(f);
                    for &k in &route[..len] {
                        let k = k as usize;
                        self.left[k] = (self.left[k] - level).max(0.0);
                        self.unfixed[k] -= 1;
                    }
                    self.set_rate(f, level, now);
                }
            }
        }
        self.component_links = active;
    }

    /// The links and transfers connected to `links` through shared links,
    /// into the component's lists.
    fn component(&mut self, links: &[u32]) {
        self.pass = self.pass.wrapping_add(1);
        if self.pass == 0 {
            // Marks wrapped around: clear them once.
            self.link_seen.iter_mut().for_each(|s| *s = 0);
            self.flows.iter_mut().for_each(|f| f.seen = 0);
            self.pass = 1;
        }
        let pass = self.pass;
        self.component_links.clear();
        self.component_flows.clear();
        for &l in links {
            if self.link_seen[l as usize] != pass {
                self.link_seen[l as usize] = pass;
                self.component_links.push(l);
            }
        }
        // The component's links list is its own work list.
        let mut next = 0;
        while next < self.component_links.len() {
            let l = self.component_links[next] as usize;
            next += 1;
            for i in 0..self.crossing[l].len() {
                let f = self.crossing[l][i] as usize;
                if self.flows[f].seen == pass {
                    continue;
                }
                self.flows[f].seen = pass;
                self.component_flows.push(f as u32);
                let (route, len) = self.route(f);
                for &k in &route[..len] {
                    if self.link_seen[k as usize] != pass {
                        self.link_seen[k as usize] = pass;
                        self.component_links.push(k);
                    }
                }
            }
        }
    }

    /// The rate of every transfer moving bytes now, by transfer number
    /// (0 for the others).
    #[cfg(test)]
    fn rates(&self) -> Vec<f64> {
        let mut moving = vec![false; self.flows.len()];
        for on in &self.crossing {
            for &f in on {
                moving[f as usize] = true;
            }
        }
        (self.flows.iter().zip(moving))
            .map(|(f, m)| if m { f.rate } else { 0.0 })
            .collect()
    }
}

#[cfg(test)]
mod tests;
