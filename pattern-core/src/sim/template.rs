//! What one thread of a stage does with each element: a small graph of
//! steps, each starting when the steps before it have ended; the element is
//! done when the last step (`exit`) has.

use super::SimError;

/// A step.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Leaf {
    /// `ns` of work on one core of each of `width` nodes from `node` (a
    /// multi-processor task runs on its whole group at once).
    Compute {
        node: usize,
        width: usize,
        ns: f64,
        /// The bytes it moves to and from each node's memory (0: none):
        /// on a node with a memory, part of `ns` waits on it.
        bytes: f64,
        /// Whether its element was handed over by the stage before
        /// ([`Memory::split`](crate::machine::Memory::split)).
        handed: bool,
        /// Names the step in traces and errors (an atom, a phase).
        label: usize,
        /// An atom's own step, which direct execution may measure.
        direct: bool,
        /// Pinned, the step runs `lane` cores after its thread's: a
        /// mapReduce's worker `k` on a node, as the executor pins its
        /// helper threads after the calling one (0 for any other step).
        lane: usize,
    },
    /// `bytes` from node `from` to node `to`.
    Transfer { from: usize, to: usize, bytes: f64 },
    /// A time that uses no resource (a shuffle or a redistribution given
    /// by its model).
    Delay(f64),
    /// Nothing: where parallel steps fork and join.
    Noop,
}

/// The steps of a stage, numbered from its entry (0); successors in one
/// flat list.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Template {
    pub(crate) leaves: Vec<Leaf>,
    /// How many steps each waits for.
    pub(crate) preds: Vec<u32>,
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    pub(crate) exit: u32,
}

impl Template {
    /// The steps reachable from `entry` (by `successors`), each built by
    /// `leaf` from its index.
    pub(crate) fn build(
        entry: usize,
        exit: usize,
        successors: &[Vec<usize>],
        mut leaf: impl FnMut(usize) -> Result<Leaf, SimError>,
    ) -> Result<Template, SimError> {
        let mut index = std::collections::HashMap::new();
        let mut order = vec![entry];
        index.insert(entry, 0u32);
        let mut i = 0;
        while i < order.len() {
            for &s in &successors[order[i]] {
                index.entry(s).or_insert_with(|| {
                    order.push(s);
                    (order.len() - 1) as u32
                });
            }
            i += 1;
        }
        let mut t = Template {
            leaves: Vec::with_capacity(order.len()),
            preds: vec![0; order.len()],
            succ_start: Vec::with_capacity(order.len() + 1),
            succ: Vec::new(),
            exit: index[&exit],
        };
        for &o in &order {
            t.leaves.push(leaf(o)?);
            t.succ_start.push(t.succ.len() as u32);
            for s in &successors[o] {
                let k = index[s];
                t.succ.push(k);
                t.preds[k as usize] += 1;
            }
        }
        t.succ_start.push(t.succ.len() as u32);
        Ok(t)
    }

    /// This template with a step before its entry and one after its exit.
    pub(crate) fn around(self, before: Option<Leaf>, after: Option<Leaf>) -> Template {
        if before.is_none() && after.is_none() {
            return self;
        }
        let n = self.leaves.len();
        let mut successors: Vec<Vec<usize>> = (0..n)
            .map(|i| {
                self.successors(i as u32)
                    .iter()
                    .map(|&s| s as usize)
                    .collect()
            })
            .collect();
        let mut leaves = self.leaves;
        let (mut entry, mut exit) = (0, self.exit as usize);
        if let Some(b) = before {
            leaves.push(b);
            successors.push(vec![entry]);
            entry = leaves.len() - 1;
        }
        if let Some(a) = after {
            leaves.push(a);
            successors.push(Vec::new());
            successors[exit].push(leaves.len() - 1);
            exit = leaves.len() - 1;
        }
        let built = Template::build(entry, exit, &successors, |i| Ok(leaves[i].clone()));
        built.expect("copying steps cannot fail")
    }

    pub(crate) fn successors(&self, leaf: u32) -> &[u32] {
        let (a, b) = (
            self.succ_start[leaf as usize],
            self.succ_start[leaf as usize + 1],
        );
        &self.succ[a as usize..b as usize]
    }

    /// The node a stage's thread lives on: its first compute step's.
    pub(crate) fn home(&self) -> usize {
        (self.leaves.iter())
            .find_map(|l| match l {
                Leaf::Compute { node, .. } => Some(*node),
                _ => None,
            })
            .unwrap_or(0)
    }

    /// The executor's threads this stage's thread stands for: a
    /// mapReduce's workers on a node (its lanes), else 1.
    pub(crate) fn lanes(&self) -> usize {
        (self.leaves.iter())
            .map(|l| match *l {
                Leaf::Compute { lane, .. } => lane.saturating_add(1),
                _ => 1,
            })
            .max()
            .unwrap_or(1)
    }

    /// The highest node a step uses, plus one.
    pub(crate) fn nodes_used(&self) -> usize {
        (self.leaves.iter())
            .map(|l| match *l {
                Leaf::Compute { node, width, .. } => node.saturating_add(width),
                Leaf::Transfer { from, to, .. } => from.max(to).saturating_add(1),
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }
}
