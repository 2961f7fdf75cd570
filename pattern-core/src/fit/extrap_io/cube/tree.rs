//! The call tree of one profile: each cnode's children in order, the two
//! enumerations by which an index's positions name cnodes, and the
//! conversions between inclusive and exclusive values. All iterative: a
//! tree may be as deep as it has nodes.

use super::anchor::{Cnode, NO_PARENT};
use super::data::Combine;

/// Children lists (in document order) of an anchor's cnodes.
#[derive(Debug)]
pub(super) struct CallTree {
    /// `children[starts[c]..starts[c + 1]]` are the children of `c`.
    starts: Vec<usize>,
    children: Vec<u32>,
    parent: Vec<u32>,
    roots: Vec<u32>,
}

/// Which values a series takes, against those a metric stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Conversion {
    /// The stored values.
    Keep,
    /// Exclusive from inclusive: a cnode's value less its children's.
    ToExclusive,
    /// Inclusive from exclusive: the sum over the cnode's subtree.
    ToInclusive,
}

impl CallTree {
    /// The tree of cnodes in document order (each parent before its
    /// children, as the anchor parser guarantees).
    pub(super) fn new(cnodes: &[Cnode]) -> CallTree {
        let n = cnodes.len();
        let mut counts = vec![0usize; n + 1];
        let mut roots = Vec::new();
        for (i, c) in cnodes.iter().enumerate() {
            if c.parent == NO_PARENT {
                roots.push(i as u32);
            } else {
                counts[c.parent as usize + 1] += 1;
            }
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let starts = counts.clone();
        let mut next = counts;
        let mut children = vec![0u32; starts[n]];
        for (i, c) in cnodes.iter().enumerate() {
            if c.parent != NO_PARENT {
                let slot = &mut next[c.parent as usize];
                children[*slot] = i as u32;
                *slot += 1;
            }
        }
        CallTree {
            starts,
            children,
            parent: cnodes.iter().map(|c| c.parent).collect(),
            roots,
        }
    }

    /// The number of cnodes.
    pub(super) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    fn children(&self, c: u32) -> &[u32] {
        &self.children[self.starts[c as usize]..self.starts[c as usize + 1]]
    }

    /// Position to cnode for INCLUSIVE metrics (CubeLib's "wide"
    /// enumeration): a root, then all of a node's children numbered
    /// together when the node is reached, the first child's subtree next.
    /// EXCLUSIVE metrics use pre-order, which is document order.
    pub(super) fn wide_order(&self) -> Vec<u32> {
        let mut order = Vec::with_capacity(self.len());
        let mut stack = Vec::new();
        for &root in &self.roots {
            order.push(root);
            stack.push(root);
            while let Some(c) = stack.pop() {
                let children = self.children(c);
                order.extend_from_slice(children);
                stack.extend(children.iter().rev());
            }
        }
        order
    }

    /// The values of the `listed` cnodes (`values` holds `l` per listed
    /// cnode, in the same order), converted; a cnode not listed has zeros.
    pub(super) fn convert(
        &self,
        listed: &[u32],
        values: Vec<f64>,
        l: usize,
        combine: Combine,
        conversion: Conversion,
    ) -> Vec<f64> {
        match conversion {
            Conversion::Keep => values,
            Conversion::ToExclusive => self.to_exclusive(listed, values, l, combine),
            Conversion::ToInclusive => self.to_inclusive(listed, &values, l, combine),
        }
    }

    fn rows(&self, listed: &[u32]) -> Vec<u32> {
        let mut row = vec![u32::MAX; self.len()];
        for (r, &c) in listed.iter().enumerate() {
            row[c as usize] = r as u32;
        }
        row
    }

    fn to_exclusive(
        &self,
        listed: &[u32],
        values: Vec<f64>,
        l: usize,
        combine: Combine,
    ) -> Vec<f64> {
        let row = self.rows(listed);
        let mut out = values.clone();
        for (r, &c) in listed.iter().enumerate() {
            for &child in self.children(c) {
                // A child not listed has zeros, which change nothing.
                if let Some(&cr) = row.get(child as usize).filter(|&&cr| cr != u32::MAX) {
                    let cr = cr as usize;
                    let from = &values[cr * l..(cr + 1) * l];
                    subtract(&mut out[r * l..(r + 1) * l], from, combine);
                }
            }
        }
        out
    }

    fn to_inclusive(&self, listed: &[u32], values: &[f64], l: usize, combine: Combine) -> Vec<f64> {
        let n = self.len();
        let row = self.rows(listed);
        // Only the listed cnodes and their ancestors have non-zero sums...
        let mut marked = vec![false; n];
        for &c in listed {
            let mut c = c;
            while c != NO_PARENT && !marked[c as usize] {
                marked[c as usize] = true;
                c = self.parent[c as usize];
            }
        }
        // ...numbered in document order: a parent's row before its children's.
        let mut sum_row = vec![u32::MAX; n];
        let mut needed = 0usize;
        for (c, _) in marked.iter().enumerate().filter(|(_, m)| **m) {
            sum_row[c] = needed as u32;
            needed += 1;
        }
        let mut sums = vec![0.0; needed * l];
        // Reverse document order: every child before its parent.
        for c in (0..n).rev() {
            let s = sum_row[c];
            if s == u32::MAX {
                continue;
            }
            let s = s as usize;
            if let Some(&r) = row.get(c).filter(|&&r| r != u32::MAX) {
                let r = r as usize;
                sums[s * l..(s + 1) * l].copy_from_slice(&values[r * l..(r + 1) * l]);
            }
            for &child in self.children(c as u32) {
                let cs = sum_row[child as usize];
                if cs != u32::MAX {
                    let (head, tail) = sums.split_at_mut(cs as usize * l);
                    add(&mut head[s * l..(s + 1) * l], &tail[..l], combine);
                }
            }
        }
        let mut out = Vec::with_capacity(listed.len() * l);
        for &c in listed {
            let s = sum_row[c as usize] as usize;
            out.extend_from_slice(&sums[s * l..(s + 1) * l]);
        }
        out
    }
}

/// `into ⊕= from` for an inclusive sum.
fn add(into: &mut [f64], from: &[f64], combine: Combine) {
    match combine {
        Combine::Sum { .. } => into.iter_mut().zip(from).for_each(|(a, b)| *a += b),
        Combine::Min | Combine::Max if from.iter().all(|&v| v == 0.0) => {}
        Combine::Min => into.iter_mut().zip(from).for_each(|(a, &b)| *a = a.min(b)),
        Combine::Max => into.iter_mut().zip(from).for_each(|(a, &b)| *a = a.max(b)),
    }
}

/// `into ⊖= from` for an exclusive value: unsigned types clamp at 0 (the
/// child's value is cut to the parent's, as pycubexr does); the minimum
/// and maximum combine as in [`add`] (pycubexr's behaviour too).
fn subtract(into: &mut [f64], from: &[f64], combine: Combine) {
    match combine {
        Combine::Sum { unsigned: false } => into.iter_mut().zip(from).for_each(|(a, b)| *a -= b),
        Combine::Sum { unsigned: true } => into
            .iter_mut()
            .zip(from)
            .for_each(|(a, &b)| *a = if *a < b { 0.0 } else { *a - b }),
        Combine::Min | Combine::Max => add(into, from, combine),
    }
}

#[cfg(test)]
mod tests;
