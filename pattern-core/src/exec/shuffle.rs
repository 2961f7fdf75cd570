//! The shuffle of a mapReduce on its workers: each map worker deals the
//! pairs it emits to `p` partitions (key `k` to partition `k mod p`), and
//! each reduce worker groups one partition by key, so that no phase runs
//! on one thread alone. Grouping keeps [`group_by_key`]'s order: keys
//! increasing, and within a key the values in input order (a worker takes
//! its inputs in increasing order, so a partition's lists are merged by
//! input index).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A pair emitted by the map: the input it came from, its key, its value.
type Tagged<V> = (usize, usize, V);

/// What the map emitted for one input, and the input's position.
type Emitted<V> = (usize, Vec<(usize, V)>);

/// What one map worker emitted, dealt to the partitions.
pub(crate) struct Dealt<V> {
    /// Per partition, the worker's pairs in input order.
    lists: Vec<Vec<Tagged<V>>>,
    /// A key outside `0..keys` the worker met, if any.
    pub(crate) bad_key: Option<usize>,
}

impl<V> Dealt<V> {
    pub(crate) fn new(partitions: usize) -> Dealt<V> {
        Dealt {
            lists: (0..partitions.max(1)).map(|_| Vec::new()).collect(),
            bad_key: None,
        }
    }

    /// Deals the pairs `input` emitted; keys must be below `keys`.
    pub(crate) fn deal(&mut self, input: usize, pairs: Vec<(usize, V)>, keys: usize) {
        let p = self.lists.len();
        for (k, v) in pairs {
            if k >= keys {
                self.bad_key.get_or_insert(k);
                continue;
            }
            self.lists[k % p].push((input, k, v));
        }
    }
}

/// The workers' lists gathered per partition: partition `r` holds every
/// worker's list `r`.
pub(crate) fn gather<V>(workers: Vec<Dealt<V>>) -> Vec<Vec<Vec<Tagged<V>>>> {
    let partitions = workers.first().map_or(0, |w| w.lists.len());
    let mut gathered: Vec<Vec<Vec<Tagged<V>>>> = (0..partitions).map(|_| Vec::new()).collect();
    for worker in workers {
        for (r, list) in worker.lists.into_iter().enumerate() {
            gathered[r].push(list);
        }
    }
    gathered
}

/// One partition grouped by key: its lists merged by input index (each is
/// in input order already), then grouped as [`group_by_key`] does.
pub(crate) fn group_partition<V>(lists: Vec<Vec<Tagged<V>>>, keys: usize) -> Vec<(usize, Vec<V>)> {
    let total: usize = lists.iter().map(Vec::len).sum();
    let mut merged: Vec<(usize, V)> = Vec::with_capacity(total);
    let mut heads: Vec<std::vec::IntoIter<Tagged<V>>> =
        lists.into_iter().map(Vec::into_iter).collect();
    // The next pair of each list, by input index (ties: list order, which
    // only one list can hold for a given input).
    let mut next: Vec<Option<Tagged<V>>> = heads.iter_mut().map(Iterator::next).collect();
    let mut heap: BinaryHeap<Reverse<(usize, usize)>> = next
        .iter()
        .enumerate()
        .filter_map(|(l, t)| t.as_ref().map(|(i, ..)| Reverse((*i, l))))
        .collect();
    while let Some(Reverse((_, l))) = heap.pop() {
        // Every pair of this input in list `l` comes before the others'.
        while let Some((input, k, v)) = next[l].take() {
            merged.push((k, v));
            next[l] = heads[l].next();
            match &next[l] {
                Some((i, ..)) if *i == input => continue,
                Some((i, ..)) => {
                    heap.push(Reverse((*i, l)));
                    break;
                }
                None => break,
            }
        }
    }
    // The keys were checked when dealt.
    group_by_key(vec![merged], keys).unwrap_or_default()
}

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
/// The executor runs it on each partition of a job's pairs (on the
/// partition's own thread, see [`Kernels::add_map`](super::Kernels::add_map)); public so that its
/// cost can be measured as an atom of its own.
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

/// The shuffle as the executor runs it on a mapReduce's `threads` threads,
/// for timing it as an atom: the map outputs (one list of `(key, value)`
/// pairs per input, in input order) dealt to `threads` partitions by key,
/// input `i` by thread `i mod threads` (the executor's map threads deal
/// what they emit), then each partition grouped on a thread of its own.
/// The result is [`group_by_key`]'s.
///
/// ```
/// use pattern_core::exec::{group_by_key, shuffle_on_threads};
///
/// let outputs = vec![vec![(0, 'a'), (2, 'b')], vec![(2, 'c'), (1, 'd')]];
/// let want = group_by_key(outputs.clone(), 3)?;
/// assert_eq!(shuffle_on_threads(outputs, 3, 2)?, want);
/// # Ok::<(), pattern_core::exec::KeyOutOfRange>(())
/// ```
pub fn shuffle_on_threads<V: Send>(
    outputs: Vec<Vec<(usize, V)>>,
    keys: usize,
    threads: usize,
) -> Result<Vec<(usize, Vec<V>)>, KeyOutOfRange> {
    let threads = threads.clamp(1, outputs.len().max(1));
    // Each thread's inputs, with their positions.
    let mut shares: Vec<Vec<Emitted<V>>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, pairs) in outputs.into_iter().enumerate() {
        shares[i % threads].push((i, pairs));
    }
    let dealt: Vec<Dealt<V>> = std::thread::scope(|s| {
        let handles: Vec<_> = shares
            .into_iter()
            .map(|share| {
                s.spawn(move || {
                    let mut d = Dealt::new(threads);
                    for (i, pairs) in share {
                        d.deal(i, pairs, keys);
                    }
                    d
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    if let Some(key) = dealt.iter().find_map(|d| d.bad_key) {
        return Err(KeyOutOfRange { key, keys });
    }
    let mut grouped: Vec<(usize, Vec<V>)> = std::thread::scope(|s| {
        let handles: Vec<_> = gather(dealt)
            .into_iter()
            .map(|lists| s.spawn(move || group_partition(lists, keys)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    grouped.sort_unstable_by_key(|(k, _)| *k);
    Ok(grouped)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dealt by several workers, grouped per partition and put back in key
    /// order: exactly `group_by_key` of the map outputs in input order.
    #[test]
    fn partitions_grouped_are_the_one_thread_grouping() {
        // 40 inputs, each emitting a few pairs (repeated keys included).
        let outputs: Vec<Vec<(usize, u32)>> = (0..40u32)
            .map(|i| {
                (0..(i % 5))
                    .map(|j| (((i * 7 + j * 3) % 13) as usize, i * 10 + j))
                    .collect()
            })
            .collect();
        let want = group_by_key(outputs.clone(), 13).unwrap();
        for (workers, partitions) in [(1, 1), (2, 2), (3, 4), (4, 3)] {
            let mut dealt: Vec<Dealt<u32>> = (0..workers).map(|_| Dealt::new(partitions)).collect();
            // Inputs handed out in turn; each worker sees increasing indices.
            for (i, pairs) in outputs.iter().enumerate() {
                dealt[(i * 7 + 3) % workers].deal(i, pairs.clone(), 13);
            }
            let mut got: Vec<(usize, Vec<u32>)> = gather(dealt)
                .into_iter()
                .flat_map(|lists| group_partition(lists, 13))
                .collect();
            got.sort_by_key(|(k, _)| *k);
            assert_eq!(got, want, "{workers} workers, {partitions} partitions");
        }
    }

    #[test]
    fn the_shuffle_on_threads_is_group_by_key() {
        let outputs: Vec<Vec<(usize, u32)>> = (0..33u32)
            .map(|i| {
                (0..(i % 6))
                    .map(|j| (((i * 5 + j) % 17) as usize, i * 10 + j))
                    .collect()
            })
            .collect();
        let want = group_by_key(outputs.clone(), 17).unwrap();
        for threads in [0, 1, 2, 3, 5, 64] {
            assert_eq!(
                shuffle_on_threads(outputs.clone(), 17, threads).unwrap(),
                want
            );
        }
        let bad = shuffle_on_threads(vec![vec![(1, 'a')], vec![(9, 'b')]], 3, 2);
        assert_eq!(bad, Err(KeyOutOfRange { key: 9, keys: 3 }));
        assert_eq!(
            shuffle_on_threads(Vec::<Vec<(usize, u8)>>::new(), 3, 4),
            Ok(Vec::new())
        );
    }

    #[test]
    fn a_key_outside_is_reported_not_dealt() {
        let mut d: Dealt<u8> = Dealt::new(2);
        d.deal(0, vec![(1, 1), (5, 2), (0, 3)], 3);
        assert_eq!(d.bad_key, Some(5));
        let grouped: Vec<_> = gather(vec![d])
            .into_iter()
            .flat_map(|l| group_partition(l, 3))
            .collect();
        assert_eq!(grouped, vec![(0, vec![3]), (1, vec![1])]);
    }
}
