//! Evaluating allocations: the plain operators' time at counts (also the
//! bound of the other semantics, with its slack), the memo of times already
//! evaluated, and an allocation's or a solution's record from counts in the
//! space's order. Helpers of the [`Allocator`](super::Allocator) and of the
//! search over sizes, below both so that neither calls up for them.

use super::search::Found;
use super::space::Space;
use super::{Allocation, AllocationError, OperatorsTime, Solution};
use crate::grammar::MAX_COUNT;
use std::collections::HashMap;

/// The relative slack of a bound from another model: a semantics whose
/// times are within 1e-9 of the operators' where they should be equal may
/// still be pruned soundly.
pub(super) const BOUND_SLACK: f64 = 1e-9;

/// The values of `counts` (by name) in the space's order.
pub(super) fn values_of(
    space: &Space,
    counts: &[(&str, u64)],
) -> Result<Vec<u64>, AllocationError> {
    if let Some((name, _)) = counts
        .iter()
        .find(|(n, _)| !space.names.iter().any(|m| m == n))
    {
        return Err(AllocationError::UnknownCount {
            name: name.to_string(),
            counts: space.names.join(", "),
        });
    }
    space
        .names
        .iter()
        .map(|name| match counts.iter().find(|(n, _)| n == name) {
            Some((_, c)) if (1..=MAX_COUNT).contains(c) => Ok(*c),
            Some((_, c)) => Err(AllocationError::EmptyRange {
                name: name.clone(),
                from: *c,
                to: *c,
            }),
            None => Err(AllocationError::UnknownCount {
                name: format!("(missing) {name}"),
                counts: space.names.join(", "),
            }),
        })
        .collect()
}

/// The allocation of `values` (in the space's order) taking `time` per
/// element: its counts by name and its threads.
pub(super) fn allocation(
    space: &Space,
    values: &[u64],
    time: f64,
) -> Result<Allocation, AllocationError> {
    let threads = space
        .threads(values)?
        .ok_or_else(|| AllocationError::BudgetTooSmall {
            budget: space.cap,
            minimum: u64::MAX,
        })?;
    Ok(Allocation {
        counts: space.named(values),
        threads,
        time_per_element: time,
    })
}

/// The times of the allocations evaluated: each is evaluated once (a
/// simulation, say), though the search with ties passes over some twice.
#[derive(Default)]
pub(super) struct Memo(HashMap<Vec<u64>, f64>);

impl Memo {
    /// The time of `counts`, by `time` the first time.
    pub(super) fn time(
        &mut self,
        counts: &[u64],
        time: impl FnOnce(&[u64]) -> Result<f64, AllocationError>,
    ) -> Result<f64, AllocationError> {
        if let Some(&t) = self.0.get(counts) {
            return Ok(t);
        }
        let t = time(counts)?;
        self.0.insert(counts.to_vec(), t);
        Ok(t)
    }

    /// `found` with its evaluations counted as the distinct allocations
    /// evaluated.
    pub(super) fn counted(&self, found: Found) -> Found {
        Found {
            evaluations: self.0.len() as u64,
            ..found
        }
    }
}

/// The solution of a search: its best counts by name, time and evaluations.
pub(super) fn solution(space: &Space, found: Found) -> Solution {
    Solution {
        allocation: Allocation {
            counts: space.named(&found.counts),
            threads: found.threads,
            time_per_element: found.time,
        },
        evaluations: found.evaluations,
        bound_evaluations: found.bound_evaluations,
    }
}

/// The operators' time at counts in the space's order.
pub(super) fn operators_time(
    ops: &OperatorsTime,
    space: &Space,
    counts: &[u64],
) -> Result<f64, AllocationError> {
    ops.at_values(counts)
        .map_err(|source| AllocationError::Model {
            what: format!("the design's model at {}", space.describe(counts)),
            source,
        })
}
