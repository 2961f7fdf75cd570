//! The shuffle of a mapReduce as the executor runs it: every map worker
//! groups its own pairs by key right after each map call
//! ([`WorkerGroups`]), the workers' groups are matched by key
//! ([`merge_groups`], moving no values), and the reduce of a key gathers the
//! workers' values for it in input order ([`KeyValues::into_values`]). No
//! phase runs on one thread over all the pairs.
//!
//! A worker takes the inputs in contiguous *blocks*, numbered in input
//! order, and takes the blocks in increasing order; it remembers, per key,
//! where each block's values start. A key's values in input order are then
//! the blocks' runs in block order, whichever worker holds them.
//!
//! In a design's model (eq. (5)) the grouping is part of the map's cost:
//! time the map atom as a worker runs it, map call and grouping of its
//! pairs, and the operators divide it by `m·n` with the map. The shuffle is
//! then the gathering of the keys spread over several workers, shared by
//! the reduce's workers: `min(1, m·n − 1) · o · gather(x) / (m·n)`, with
//! `gather(d)` what a key of `d` values costs more to reduce when gathered
//! ([`KeyValues::into_values`]); nothing with one worker. The example
//! `validate` measures its histogram this way.

use super::shuffle::KeyOutOfRange;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Inputs per block for `inputs` inputs on `workers` workers: at most 64
/// (the runs of a key stay long enough to copy fast) and at least eight
/// blocks per worker (so that a worker slowed down by another process
/// leaves its share to the others).
///
/// ```
/// use pattern_core::exec::block_len;
///
/// assert_eq!(block_len(8192, 2), 64);
/// assert_eq!(block_len(512, 4), 16);
/// assert_eq!(block_len(3, 2), 1);
/// ```
pub fn block_len(inputs: usize, workers: usize) -> usize {
    (inputs / workers.max(1) / 8).clamp(1, 64)
}

/// The keys a worker can have in buckets without holding more than linear
/// memory: as in [`group_by_key`](super::group_by_key), dense while the
/// keys are at most twice the pairs plus 1,024.
fn dense_enough(keys: usize, pairs: usize) -> bool {
    keys <= pairs.saturating_mul(2).saturating_add(1024)
}

/// One map worker's pairs grouped by key, as the executor groups them on
/// the worker right after each map call.
///
/// Memory is linear in the pairs whatever the keys: a bucket per key while
/// the keys are at most twice the pairs plus 1,024, else the pairs in
/// arrival order, sorted by key at the end.
///
/// ```
/// use pattern_core::exec::{KeyOutOfRange, WorkerGroups, merge_groups};
///
/// // Two workers: the first maps blocks 0 and 2, the second block 1.
/// let mut first = WorkerGroups::new(3);
/// first.add(0, vec![(0, 'a'), (2, 'b')])?;
/// first.add(2, vec![(2, 'e')])?;
/// let mut second = WorkerGroups::new(3);
/// second.add(1, vec![(2, 'c'), (0, 'd')])?;
/// assert_eq!(second.add(1, vec![(3, 'z')]), Err(KeyOutOfRange { key: 3, keys: 3 }));
///
/// let grouped: Vec<(usize, Vec<char>)> = merge_groups(vec![first, second])
///     .into_iter()
///     .map(|k| (k.key(), k.into_values()))
///     .collect();
/// assert_eq!(grouped, [(0, vec!['a', 'd']), (2, vec!['b', 'c', 'e'])]);
/// # Ok::<(), KeyOutOfRange>(())
/// ```
#[derive(Debug)]
pub struct WorkerGroups<V> {
    keys: usize,
    pairs: usize,
    store: Store<V>,
}

#[derive(Debug)]
enum Store<V> {
    /// Few pairs for the keys: `(key, block, value)` in arrival order.
    Sparse(Vec<(usize, usize, V)>),
    Dense(Buckets<V>),
}

#[derive(Debug)]
struct Buckets<V> {
    values: Vec<Vec<V>>,
    /// Per key, `(block, start in the bucket)` of each block's run.
    runs: Vec<Vec<(usize, usize)>>,
    /// Per key, the block of its last run (`usize::MAX`: none yet); a
    /// small array, cheaper to test than the runs' last entry.
    last_block: Vec<usize>,
}

impl<V> Buckets<V> {
    /// Buckets for `keys` keys, each from `buffer` (a vector perhaps with
    /// room from an earlier job, emptied here).
    fn new(keys: usize, buffer: &mut dyn FnMut() -> Vec<V>) -> Self {
        Buckets {
            values: (0..keys)
                .map(|_| {
                    let mut bucket = buffer();
                    bucket.clear();
                    bucket
                })
                .collect(),
            runs: (0..keys).map(|_| Vec::new()).collect(),
            last_block: vec![usize::MAX; keys],
        }
    }

    /// `key` must be below the keys.
    fn push(&mut self, block: usize, key: usize, value: V) {
        if self.last_block[key] != block {
            self.last_block[key] = block;
            self.runs[key].push((block, self.values[key].len()));
        }
        self.values[key].push(value);
    }
}

impl<V> WorkerGroups<V> {
    /// An empty grouping for keys `0..keys`.
    pub fn new(keys: usize) -> Self {
        Self::with_buffers(keys, &mut Vec::new)
    }

    /// An empty grouping whose buckets are the vectors `buffer` gives,
    /// emptied (the executor hands back those of the job before, so that a
    /// run does not allocate its buckets anew for every job, and so can
    /// anything that groups job after job: see
    /// [`KeyValues::into_values_recycling`]).
    pub fn with_buffers(keys: usize, buffer: &mut dyn FnMut() -> Vec<V>) -> Self {
        let store = if dense_enough(keys, 0) {
            Store::Dense(Buckets::new(keys, buffer))
        } else {
            Store::Sparse(Vec::new())
        };
        WorkerGroups {
            keys,
            pairs: 0,
            store,
        }
    }

    /// Groups the pairs one map call emitted for an input of `block`. A
    /// worker adds its blocks in increasing order (the order it takes them
    /// in); blocks of different workers differ. A key at or above the keys
    /// is an error (the pairs before it are kept).
    pub fn add(&mut self, block: usize, pairs: Vec<(usize, V)>) -> Result<(), KeyOutOfRange> {
        let incoming = self.pairs.saturating_add(pairs.len());
        if matches!(self.store, Store::Sparse(_)) && dense_enough(self.keys, incoming) {
            self.make_dense();
        }
        let keys = self.keys;
        let out = |key| KeyOutOfRange { key, keys };
        // One loop per store, so that the loop over pairs does not branch
        // on it.
        match &mut self.store {
            Store::Dense(buckets) => {
                for (key, value) in pairs {
                    if key >= keys {
                        return Err(out(key));
                    }
                    buckets.push(block, key, value);
                    self.pairs += 1;
                }
            }
            Store::Sparse(flat) => {
                for (key, value) in pairs {
                    if key >= keys {
                        return Err(out(key));
                    }
                    flat.push((key, block, value));
                    self.pairs += 1;
                }
            }
        }
        Ok(())
    }

    /// The pairs grouped so far.
    pub fn pairs(&self) -> usize {
        self.pairs
    }

    /// Moves sparse pairs into buckets, in arrival order.
    fn make_dense(&mut self) {
        let mut buckets = Buckets::new(self.keys, &mut Vec::new);
        if let Store::Sparse(flat) = std::mem::replace(&mut self.store, Store::Sparse(Vec::new())) {
            for (key, block, value) in flat {
                buckets.push(block, key, value);
            }
        }
        self.store = Store::Dense(buckets);
    }

    /// The keys with values, in increasing order, each with its values in
    /// arrival order and its runs as `(block, length)`.
    fn finish(self) -> Vec<(usize, Part<V>)> {
        match self.store {
            Store::Dense(b) => b
                .values
                .into_iter()
                .zip(b.runs)
                .enumerate()
                .filter(|(_, (values, _))| !values.is_empty())
                .map(|(key, (values, starts))| {
                    let runs = lengths(&starts, values.len());
                    (key, Part { values, runs })
                })
                .collect(),
            Store::Sparse(mut flat) => {
                // Stable: arrival order within a key.
                flat.sort_by_key(|&(key, _, _)| key);
                let mut parts: Vec<(usize, Part<V>)> = Vec::new();
                for (key, block, value) in flat {
                    match parts.last_mut() {
                        Some((k, part)) if *k == key => part.push(block, value),
                        _ => {
                            let mut part = Part {
                                values: Vec::new(),
                                runs: Vec::new(),
                            };
                            part.push(block, value);
                            parts.push((key, part));
                        }
                    }
                }
                parts
            }
        }
    }
}

/// `(block, start)` runs of a bucket of `len` values as `(block, length)`.
fn lengths(starts: &[(usize, usize)], len: usize) -> Vec<(usize, usize)> {
    starts
        .iter()
        .enumerate()
        .map(|(i, &(block, start))| {
            let end = starts.get(i + 1).map_or(len, |&(_, next)| next);
            (block, end - start)
        })
        .collect()
}

/// One worker's values of one key, with the `(block, length)` of each run.
#[derive(Debug)]
struct Part<V> {
    values: Vec<V>,
    runs: Vec<(usize, usize)>,
}

impl<V> Part<V> {
    fn push(&mut self, block: usize, value: V) {
        match self.runs.last_mut() {
            Some((b, len)) if *b == block => *len += 1,
            _ => self.runs.push((block, 1)),
        }
        self.values.push(value);
    }
}

/// The values of one key, as the workers grouped them: the reduce of the
/// key gathers them ([`KeyValues::into_values`]).
#[derive(Debug)]
pub struct KeyValues<V> {
    key: usize,
    parts: Vec<Part<V>>,
}

impl<V> KeyValues<V> {
    /// The key.
    pub fn key(&self) -> usize {
        self.key
    }

    /// How many values the key has.
    pub fn len(&self) -> usize {
        self.parts.iter().map(|p| p.values.len()).sum()
    }

    /// Whether the key has no values (never, for a key
    /// [`merge_groups`] returns).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key's values in input order: the one worker's bucket as it is
    /// when one worker holds them all; else the workers' runs moved into
    /// one list in block order (a copy of the values, `O(values + runs ·
    /// log workers)`).
    pub fn into_values(self) -> Vec<V> {
        self.into_values_recycling(&mut Vec::new, &mut drop)
    }

    /// [`KeyValues::into_values`], taking the list it gathers into from
    /// `buffer` and handing the emptied buckets to `spent`: with
    /// [`WorkerGroups::with_buffers`], jobs grouped one after the other
    /// reuse one set of buckets, as the executor's mapReduce does.
    ///
    /// ```
    /// use pattern_core::exec::{WorkerGroups, merge_groups};
    ///
    /// let mut spare: Vec<Vec<u32>> = Vec::new();
    /// for job in 0..2 {
    ///     let mut groups = WorkerGroups::with_buffers(2, &mut || spare.pop().unwrap_or_default());
    ///     groups.add(0, vec![(0, job), (1, 10 + job)])?;
    ///     for k in merge_groups(vec![groups]) {
    ///         let mut kept = Vec::new();
    ///         let values = k.into_values_recycling(&mut Vec::new, &mut |b| kept.push(b));
    ///         assert_eq!(values.len(), 1);
    ///         spare.extend(kept);
    ///         spare.push(values); // `with_buffers` empties it
    ///     }
    /// }
    /// assert_eq!(spare.len(), 2);
    /// # Ok::<(), pattern_core::exec::KeyOutOfRange>(())
    /// ```
    pub fn into_values_recycling(
        self,
        buffer: &mut dyn FnMut() -> Vec<V>,
        spent: &mut dyn FnMut(Vec<V>),
    ) -> Vec<V> {
        let mut parts = self.parts;
        if parts.len() == 1 {
            return parts.pop().map(|p| p.values).unwrap_or_default();
        }
        let total = parts.iter().map(|p| p.values.len()).sum();
        let mut out = buffer();
        out.reserve(total);
        let (mut buckets, runs): (Vec<Vec<V>>, Vec<_>) =
            parts.into_iter().map(|p| (p.values, p.runs)).unzip();
        {
            let mut sources: Vec<_> = buckets
                .iter_mut()
                .zip(runs)
                .map(|(values, runs)| (values.drain(..), runs.into_iter().peekable()))
                .collect();
            // The next run of every part, smallest block first.
            let mut next: BinaryHeap<Reverse<(usize, usize)>> = sources
                .iter_mut()
                .enumerate()
                .filter_map(|(i, (_, runs))| runs.peek().map(|&(block, _)| Reverse((block, i))))
                .collect();
            while let Some(Reverse((_, i))) = next.pop() {
                let (values, runs) = &mut sources[i];
                if let Some((_, len)) = runs.next() {
                    out.extend(values.by_ref().take(len));
                }
                if let Some(&(block, _)) = runs.peek() {
                    next.push(Reverse((block, i)));
                }
            }
        }
        for bucket in buckets {
            spent(bucket);
        }
        out
    }
}

/// Matches the workers' groups by key: every key with values, in
/// increasing key order, with each worker's values for it. Moves no values
/// (`O(distinct keys · log)` per worker); the gathering is left to the
/// reduce of each key, on the reduce's workers.
pub fn merge_groups<V>(workers: Vec<WorkerGroups<V>>) -> Vec<KeyValues<V>> {
    let mut all: Vec<(usize, usize, Part<V>)> = Vec::new();
    for (w, groups) in workers.into_iter().enumerate() {
        all.extend(groups.finish().into_iter().map(|(key, p)| (key, w, p)));
    }
    // Within a key the worker order does not matter (runs carry their
    // blocks); stable for determinism.
    all.sort_by_key(|&(key, w, _)| (key, w));
    let mut keyed: Vec<KeyValues<V>> = Vec::new();
    for (key, _, part) in all {
        match keyed.last_mut() {
            Some(k) if k.key == key => k.parts.push(part),
            _ => keyed.push(KeyValues {
                key,
                parts: vec![part],
            }),
        }
    }
    keyed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grouped<V>(workers: Vec<WorkerGroups<V>>) -> Vec<(usize, Vec<V>)> {
        merge_groups(workers)
            .into_iter()
            .map(|k| (k.key(), k.into_values()))
            .collect()
    }

    #[test]
    fn recycled_buffers_hold_the_same_values_and_come_back_empty() {
        let mut spare: Vec<Vec<u32>> = (0..4).map(|_| Vec::with_capacity(64)).collect();
        let mut w: Vec<WorkerGroups<u32>> = (0..2)
            .map(|_| WorkerGroups::with_buffers(2, &mut || spare.pop().unwrap_or_default()))
            .collect();
        assert!(spare.is_empty(), "a bucket per key and worker");
        for block in 0..6 {
            let pairs = vec![
                (0, block as u32),
                (1, 10 + block as u32),
                (0, 20 + block as u32),
            ];
            w[block % 2].add(block, pairs).unwrap();
        }
        let mut spent = Vec::new();
        let gathered: Vec<(usize, Vec<u32>)> = merge_groups(w)
            .into_iter()
            .map(|k| {
                let key = k.key();
                let values = k
                    .into_values_recycling(&mut || Vec::with_capacity(100), &mut |b| spent.push(b));
                (key, values)
            })
            .collect();
        assert_eq!(
            gathered,
            [
                (0, vec![0, 20, 1, 21, 2, 22, 3, 23, 4, 24, 5, 25]),
                (1, vec![10, 11, 12, 13, 14, 15])
            ]
        );
        // The gathered lists came from the buffer; the workers' buckets,
        // emptied, with the room they had.
        assert!(gathered.iter().all(|(_, v)| v.capacity() >= 100));
        assert_eq!(spent.len(), 4);
        assert!(spent.iter().all(|b| b.is_empty() && b.capacity() >= 64));
    }

    #[test]
    fn runs_of_three_workers_come_back_in_block_order() {
        // Blocks 0..6 dealt 0,1,2,0,1,2; every input emits (b % 2, b).
        let mut w: Vec<WorkerGroups<usize>> = (0..3).map(|_| WorkerGroups::new(2)).collect();
        for b in 0..6 {
            w[b % 3].add(b, vec![(b % 2, b), (b % 2, 10 + b)]).unwrap();
        }
        assert_eq!(
            grouped(w),
            [
                (0, vec![0, 10, 2, 12, 4, 14]),
                (1, vec![1, 11, 3, 13, 5, 15])
            ]
        );
    }

    #[test]
    fn sparse_keys_hold_no_bucket_per_key_and_keep_arrival_order() {
        let keys = 1 << 40;
        let mut a = WorkerGroups::new(keys);
        a.add(0, vec![(keys - 1, 'a'), (5, 'b')]).unwrap();
        a.add(2, vec![(5, 'c')]).unwrap();
        assert!(matches!(a.store, Store::Sparse(_)));
        let mut b = WorkerGroups::new(keys);
        b.add(1, vec![(5, 'd')]).unwrap();
        assert_eq!(
            grouped(vec![a, b]),
            [(5, vec!['b', 'd', 'c']), (keys - 1, vec!['a'])]
        );
    }

    #[test]
    fn a_worker_turns_dense_once_its_pairs_reach_half_the_keys() {
        let mut w = WorkerGroups::new(1030);
        w.add(0, vec![(7, 1), (3, 2)]).unwrap();
        assert!(matches!(w.store, Store::Sparse(_)));
        w.add(1, vec![(7, 3), (3, 4)]).unwrap();
        // 4 pairs: 1030 <= 2 * 4 + 1024.
        assert!(matches!(w.store, Store::Dense(_)));
        assert_eq!(w.pairs(), 4);
        assert_eq!(grouped(vec![w]), [(3, vec![2, 4]), (7, vec![1, 3])]);
    }

    #[test]
    fn a_key_out_of_range_is_an_error() {
        let mut w = WorkerGroups::new(4);
        assert_eq!(
            w.add(0, vec![(1, ()), (4, ())]),
            Err(KeyOutOfRange { key: 4, keys: 4 })
        );
        let mut sparse = WorkerGroups::new(usize::MAX);
        assert_eq!(
            sparse.add(0, vec![(usize::MAX, ())]),
            Err(KeyOutOfRange {
                key: usize::MAX,
                keys: usize::MAX
            })
        );
    }

    #[test]
    fn block_length_stays_between_one_and_sixty_four() {
        assert_eq!(block_len(0, 4), 1);
        assert_eq!(block_len(100, 0), 12);
        assert_eq!(block_len(1 << 30, 1), 64);
    }
}
