//! Allocations that change during a run (seed 003 §5: "remove 4 nodes
//! after iteration 1"): a node's cores or a task pool's workers, set at a
//! time, when a task of a flow graph ends, or when a number of elements
//! have left a design.

use super::{SimError, TaskId};

/// When an allocation changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum When {
    /// At this time, in ns.
    At(f64),
    /// When this task of the flow graph ends.
    Finished(TaskId),
    /// When this many elements have left the design.
    Left(usize),
}

/// What changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Change {
    /// The node has this many cores from then on: 0 removes it (its
    /// running steps wait until cores come back), more adds cores.
    Cores {
        /// The node.
        node: usize,
        /// Its cores from then on.
        cores: usize,
    },
    /// The task pool has this many workers from then on: a removed worker
    /// ends the element it holds first. Pools are numbered in the order
    /// they are written in the design, from 0.
    Workers {
        /// The pool.
        pool: usize,
        /// Its workers from then on (at least 1).
        workers: usize,
    },
}

/// The changes of one simulation.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Changes(Vec<(When, Change)>);

impl Changes {
    pub(crate) fn push(&mut self, when: When, change: Change) {
        self.0.push((when, change));
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn get(&self, i: usize) -> (When, Change) {
        self.0[i]
    }

    /// The changes at a time: (index, time).
    pub(crate) fn times(&self) -> Vec<(usize, f64)> {
        (self.0.iter().enumerate())
            .filter_map(|(i, (w, _))| match w {
                When::At(t) => Some((i, *t)),
                _ => None,
            })
            .collect()
    }

    /// The changes due when `task` ends.
    pub(crate) fn after_task(&self, task: usize) -> Vec<usize> {
        if self.0.is_empty() {
            return Vec::new();
        }
        (self.0.iter().enumerate())
            .filter(|(_, (w, _))| *w == When::Finished(TaskId(task)))
            .map(|(i, _)| i)
            .collect()
    }

    /// The changes due when `left` elements have left.
    pub(crate) fn after_elements(&self, left: usize) -> Vec<usize> {
        if self.0.is_empty() {
            return Vec::new();
        }
        (self.0.iter().enumerate())
            .filter(|(_, (w, _))| *w == When::Left(left))
            .map(|(i, _)| i)
            .collect()
    }

    fn check(&self, nodes: usize, tasks: Option<usize>, pools: usize) -> Result<(), SimError> {
        for &(when, change) in &self.0 {
            let bad = |reason: String| {
                Err(SimError::InvalidChange {
                    change: format!("{change:?} at {when:?}"),
                    reason,
                })
            };
            match when {
                When::At(t) if !(t.is_finite() && t >= 0.0) => {
                    return bad(format!("the time {t} is not a finite number >= 0"));
                }
                When::Finished(task) => match tasks {
                    None => return bad("a design has no tasks: use When::Left".into()),
                    Some(n) if task.0 >= n => {
                        return bad(format!("the graph has tasks 0..{n}"));
                    }
                    _ => {}
                },
                When::Left(_) if tasks.is_some() => {
                    return bad("a flow graph has no elements: use When::Finished".into());
                }
                _ => {}
            }
            match change {
                Change::Cores { node, .. } if node >= nodes => {
                    return bad(format!("the platform has nodes 0..{nodes}"));
                }
                Change::Workers { .. } if tasks.is_some() => {
                    return bad("a flow graph has no task pools".into());
                }
                Change::Workers { pool, .. } if pool >= pools => {
                    return bad(format!("the design has {pools} task pools"));
                }
                Change::Workers { workers: 0, .. } => {
                    return bad("a pool keeps at least one worker".into());
                }
                _ => {}
            }
        }
        Ok(())
    }

    pub(crate) fn check_graph(&self, nodes: usize, tasks: usize) -> Result<(), SimError> {
        self.check(nodes, Some(tasks), 0)
    }

    pub(crate) fn check_design(&self, nodes: usize, pools: usize) -> Result<(), SimError> {
        self.check(nodes, None, pools)
    }
}
