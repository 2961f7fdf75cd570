//! The order of a ranking: by time, times within [`TIME_TOLERANCE`] of
//! each other counting as equal (the normal form rounds fused pool
//! coefficients to 12 digits, so two designs of the same time may differ
//! in the last digits), such ties broken by fewer threads, the smaller
//! design, fewer steps from the original (the original first) and the
//! canonical text.

use super::RankedDesign;
use super::moves::canonical_key;
use std::cmp::Ordering;

/// Times within this relative distance of each other rank as equal.
pub(crate) const TIME_TOLERANCE: f64 = 1e-9;

/// Whether two times are equal to [`TIME_TOLERANCE`].
pub(crate) fn same_time(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= TIME_TOLERANCE * a.abs().max(b.abs())
}

/// The tie-break between designs of the same time.
fn tie_break(p: &RankedDesign, q: &RankedDesign) -> Ordering {
    p.threads
        .cmp(&q.threads)
        .then(p.design.term().size().cmp(&q.design.term().size()))
        .then(p.steps.len().cmp(&q.steps.len()))
        .then_with(|| canonical_key(p.design.term()).cmp(&canonical_key(q.design.term())))
}

/// Sorts fastest first and sets the margins. Sorted by time, the designs
/// fall into groups: each starts at the fastest design not yet grouped and
/// takes every design within [`TIME_TOLERANCE`] of that one (a transitive
/// grouping, unlike comparing neighbours); each group is then ordered by
/// [`tie_break`]. A design's margin is 1 when the next is in its group,
/// and the next's time over its own otherwise: more than 1, since the
/// next group starts beyond the tolerance of this one's first. Two
/// neighbours across groups may still be within the tolerance of each
/// other; the grouping, not the pair, decides. `n·log n`.
pub(crate) fn sort_ranked(ranked: &mut [RankedDesign]) {
    ranked.sort_by(|p, q| p.time.total_cmp(&q.time));
    let mut group_ends = Vec::new();
    let mut start = 0;
    while start < ranked.len() {
        let first = ranked[start].time;
        let end = ranked[start + 1..]
            .iter()
            .position(|r| !same_time(first, r.time))
            .map_or(ranked.len(), |k| start + 1 + k);
        ranked[start..end].sort_by(tie_break);
        group_ends.push(end);
        start = end;
    }
    // After every group is ordered: a group's last looks at the next
    // group's first as it now stands.
    let mut ends = group_ends.into_iter().peekable();
    for i in 0..ranked.len() {
        let last_of_group = ends.next_if_eq(&(i + 1)).is_some();
        ranked[i].margin = match ranked.get(i + 1) {
            None => None,
            Some(_) if !last_of_group => Some(1.0),
            Some(next) => Some(next.time / ranked[i].time),
        };
    }
}
