//! Grouping by key on one thread: the reference the executor's grouping on
//! its workers ([`WorkerGroups`](super::WorkerGroups)) agrees with.

/// A key a map kernel emitted outside the keys the design declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the key {key} is outside the {keys} keys declared (0..{keys})")]
pub struct KeyOutOfRange {
    /// The key emitted.
    pub key: usize,
    /// The number of keys declared: keys run from 0 to `keys - 1`.
    pub keys: usize,
}

/// The shuffle of a mapReduce on one node: the map outputs (one list of
/// `(key, value)` pairs per input, in input order) grouped by key, for
/// every key that has values, in increasing key order; within a key,
/// values keep the input order. Keys must be below `keys`, the number the
/// design declares (its `k`).
///
/// Memory is linear in the pairs whatever the keys: dense keys are counted
/// into buckets, sparse ones (fewer pairs than keys) are sorted.
///
/// The executor does not run this: its map workers group their own pairs
/// ([`WorkerGroups`](super::WorkerGroups), [`merge_groups`](super::merge_groups)),
/// with the same result. This is the one-thread grouping, public as the
/// reference to compare with and the baseline to measure against.
///
/// ```
/// use pattern_core::exec::{KeyOutOfRange, group_by_key};
///
/// let grouped = group_by_key(vec![vec![(0, 'a'), (2, 'b')], vec![(2, 'c')]], 3);
/// assert_eq!(grouped, Ok(vec![(0, vec!['a']), (2, vec!['b', 'c'])]));
///
/// let outside = group_by_key(vec![vec![(7, 'a')]], 3);
/// assert_eq!(outside, Err(KeyOutOfRange { key: 7, keys: 3 }));
/// ```
pub fn group_by_key<V>(
    outputs: Vec<Vec<(usize, V)>>,
    keys: usize,
) -> Result<Vec<(usize, Vec<V>)>, KeyOutOfRange> {
    let mut pairs = 0usize;
    let mut top = 0usize;
    for (k, _) in outputs.iter().flatten() {
        if *k >= keys {
            return Err(KeyOutOfRange { key: *k, keys });
        }
        pairs += 1;
        top = top.max(*k + 1);
    }
    if top <= pairs.saturating_mul(2).saturating_add(1024) {
        // Dense: size every bucket once, count first, then move.
        let mut counts = vec![0usize; top];
        for (k, _) in outputs.iter().flatten() {
            counts[*k] += 1;
        }
        let mut buckets: Vec<Vec<V>> = counts.into_iter().map(Vec::with_capacity).collect();
        for output in outputs {
            for (k, v) in output {
                buckets[k].push(v);
            }
        }
        return Ok(buckets
            .into_iter()
            .enumerate()
            .filter(|(_, b)| !b.is_empty())
            .collect());
    }
    // Sparse: a stable sort keeps the input order within a key.
    let mut flat: Vec<(usize, V)> = outputs.into_iter().flatten().collect();
    flat.sort_by_key(|(k, _)| *k);
    let mut grouped: Vec<(usize, Vec<V>)> = Vec::new();
    for (k, v) in flat {
        match grouped.last_mut() {
            Some((last, values)) if *last == k => values.push(v),
            _ => grouped.push((k, vec![v])),
        }
    }
    Ok(grouped)
}
