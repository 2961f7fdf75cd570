//! The histogram's map and reduce phases as its probes run them: on one
//! worker or on several at once, like the executor's mapReduce (worker 0
//! on the calling thread, the others on threads pinned to the next cores),
//! with the buckets kept from job to job as a run keeps them.

use super::{KEYS, hist_map, hist_reduce, image};
use pattern_core::exec::{Cores, KeyValues, WorkerGroups, block_len};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread;

/// Emptied buckets kept from one job for the next, as the executor keeps a
/// run's ([`WorkerGroups::with_buffers`], [`KeyValues::into_values_recycling`]).
/// A probe's jobs of one size run one after the other (see [`super::job_after_job`]),
/// so each maps into the buckets of the one before, with their room and
/// their pages, as the run's jobs do.
#[derive(Default)]
pub(super) struct Spare(Mutex<Vec<Vec<u64>>>);

impl Spare {
    /// `buckets` empty buckets with room for `room` values each: a run's
    /// buckets once it has run a while with two or more workers. Which
    /// worker maps which blocks changes from job to job, the buckets go
    /// from worker to worker, and the lists gathered for the reduce (room
    /// for all of a key's values) join them: a bucket soon has room for
    /// whatever a worker puts in it; a probe's few jobs would still be
    /// growing theirs.
    fn with_room(buckets: usize, room: usize) -> Spare {
        Spare(Mutex::new(
            (0..buckets).map(|_| Vec::with_capacity(room)).collect(),
        ))
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Vec<Vec<u64>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A bucket: a kept one if there is one, else a new one.
    fn take(&self) -> Vec<u64> {
        self.kept().pop().unwrap_or_default()
    }

    /// Keeps `bucket`, emptied.
    fn keep(&self, mut bucket: Vec<u64>) {
        if bucket.capacity() > 0 {
            bucket.clear();
            self.kept().push(bucket);
        }
    }

    /// The buckets kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.kept().len()
    }
}

/// For each of `sizes`, [`Spare::with_room`] `buckets` buckets for its
/// jobs (touched first by the harness's warm-up job).
pub(super) fn with_room_at(sizes: &[usize], buckets: usize) -> Vec<(usize, Spare)> {
    sizes
        .iter()
        .map(|&x| (x, Spare::with_room(buckets, x)))
        .collect()
}

/// The buckets of [`with_room_at`] for jobs of `x` images (none kept if `x`
/// is not one of its sizes).
pub(super) fn spare_at(spares: &[(usize, Spare)], x: usize) -> &Spare {
    static NONE_KEPT: Spare = Spare(Mutex::new(Vec::new()));
    spares
        .iter()
        .find(|(at, _)| *at == x)
        .map_or(&NONE_KEPT, |(_, spare)| spare)
}

/// What `workers` map workers hold after mapping `x` images, exactly as
/// the executor's map phase leaves it: blocks of [`block_len`] images dealt
/// to the workers in turn, each image mapped and grouped by its worker
/// into buckets from `spare`.
pub(super) fn map_phase(x: usize, workers: usize, spare: &Spare) -> Vec<WorkerGroups<u64>> {
    let img = image();
    let block = block_len(x, workers);
    let mut groups: Vec<WorkerGroups<u64>> = (0..workers)
        .map(|_| WorkerGroups::with_buffers(KEYS, &mut || spare.take()))
        .collect();
    for i in 0..x {
        let b = i / block;
        // The keys are the map's own, below KEYS: never out of range.
        let _ = groups[b % workers].add(b, hist_map(&img));
    }
    groups
}

/// [`map_phase`] as the executor's map workers run it: worker 0 on the
/// calling thread, worker `w` on a thread of its own on the core at
/// position `w mod cores`, at once, each taking the next block of a shared
/// counter (a worker on a slower core takes fewer), so that a reduce on
/// the first core finds the other workers' values where their cores left
/// them.
pub(super) fn map_phase_across(
    x: usize,
    workers: usize,
    cores: &Cores,
    spare: &Spare,
) -> Vec<WorkerGroups<u64>> {
    if cores.len() < 2 || workers < 2 {
        return map_phase(x, workers, spare);
    }
    let block = block_len(x, workers);
    let blocks = x.div_ceil(block);
    let next = AtomicUsize::new(0);
    on_workers(workers, cores, |_| {
        let img = image();
        let mut groups = WorkerGroups::with_buffers(KEYS, &mut || spare.take());
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= blocks {
                break groups;
            }
            for _ in b * block..x.min((b + 1) * block) {
                // The keys are the map's own: never out of range.
                let _ = groups.add(b, hist_map(&img));
            }
        }
    })
}

/// `work(w)` for every worker `w` at once: worker 0 on the calling thread
/// (pinned to the first core), the others on threads of their own pinned to
/// the core at position `w mod cores` (the executor's mapReduce phases);
/// their results in order. The helpers are spawned with every core allowed,
/// as the executor spawns them ([`Cores::spawning`]): spawned from the
/// pinned calling thread, each started on its core and waited there for
/// worker 0 to leave it, up to 2 ms a phase, which every two-core probe
/// counted until run 13.
pub(super) fn on_workers<R: Send>(
    workers: usize,
    cores: &Cores,
    work: impl Fn(usize) -> R + Sync,
) -> Vec<R> {
    let work = &work;
    thread::scope(|s| {
        let helpers: Vec<_> = cores.spawning(0, || {
            (1..workers)
                .map(|w| {
                    s.spawn(move || {
                        cores.pin_current(w % cores.len());
                        work(w)
                    })
                })
                .collect()
        });
        let mut done = vec![work(0)];
        done.extend(helpers.into_iter().filter_map(|h| h.join().ok()));
        done
    })
}

/// One key reduced as a reduce worker reduces it: gathered first where
/// several workers hold values (into a bucket from `spare`), its buckets
/// kept in `spare`; the key and its reduced value.
pub(super) fn reduce_one(k: KeyValues<u64>, spare: &Spare) -> (usize, u64) {
    let key = k.key();
    let values = k.into_values_recycling(&mut || spare.take(), &mut |b| spare.keep(b));
    let reduced = hist_reduce(key, black_box(&values));
    spare.keep(values);
    (key, reduced)
}

/// Every key reduced on `workers` workers at once, as the executor's reduce
/// phase runs ([`on_workers`]), each taking the next key of a shared
/// counter; the keys and their reduced values, in key order.
pub(super) fn reduce_across(
    keyed: Vec<KeyValues<u64>>,
    workers: usize,
    cores: &Cores,
    spare: &Spare,
) -> Vec<(usize, u64)> {
    if cores.len() < 2 || workers < 2 {
        return keyed.into_iter().map(|k| reduce_one(k, spare)).collect();
    }
    let slots: Vec<Mutex<Option<KeyValues<u64>>>> =
        keyed.into_iter().map(|k| Mutex::new(Some(k))).collect();
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, u64)> = on_workers(workers, cores, |_| {
        let mut done = Vec::new();
        while let Some(slot) = slots.get(next.fetch_add(1, Ordering::Relaxed)) {
            let taken = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(k) = taken {
                done.push(reduce_one(k, spare));
            }
        }
        done
    })
    .into_iter()
    .flatten()
    .collect();
    done.sort_unstable();
    done
}

/// Every key reduced as a reduce worker reduces it (gathered first where
/// several workers hold values, into a bucket from `spare`), its buckets
/// kept in `spare`; returns the count of keys.
pub(super) fn reduce_all(keyed: Vec<KeyValues<u64>>, spare: &Spare) -> usize {
    let keys = keyed.len();
    for k in keyed {
        black_box(reduce_one(k, spare));
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use pattern_core::exec::merge_groups;

    /// Mapped by two workers on two cores, the job groups exactly as by two
    /// workers on one thread: the same blocks, the same runs.
    #[test]
    fn the_map_phase_across_cores_groups_as_on_one_thread() {
        let cores = Cores::of_current_thread();
        let values = |groups: Vec<WorkerGroups<u64>>| -> Vec<(usize, Vec<u64>)> {
            merge_groups(groups)
                .into_iter()
                .map(|k| (k.key(), k.into_values()))
                .collect()
        };
        for workers in [1, 2, 3] {
            assert_eq!(
                values(map_phase_across(200, workers, &cores, &Spare::default())),
                values(map_phase(200, workers, &Spare::default())),
                "{workers} workers"
            );
        }
    }

    /// A probe's job maps into the buckets the job before emptied: after
    /// a job all 768 are kept, each with room for its key's values, and the
    /// next job takes every one of them and groups as with new buckets.
    #[test]
    fn a_probes_jobs_map_into_the_buckets_of_the_job_before() {
        let values = |keyed: Vec<KeyValues<u64>>| -> Vec<(usize, Vec<u64>)> {
            keyed
                .into_iter()
                .map(|k| (k.key(), k.into_values()))
                .collect()
        };
        let want = values(merge_groups(map_phase(100, 1, &Spare::default())));
        let spare = Spare::default();
        reduce_all(merge_groups(map_phase(100, 1, &spare)), &spare);
        assert_eq!(spare.len(), KEYS);
        assert!(
            spare
                .kept()
                .iter()
                .all(|b| b.is_empty() && b.capacity() >= 100)
        );
        let again = map_phase(100, 1, &spare);
        assert_eq!(spare.len(), 0, "every kept bucket taken");
        assert_eq!(values(merge_groups(again)), want);
        // Reduced, a job keeps its buckets too; gathered from two workers,
        // each key's list is a bucket an earlier key emptied (a new one for
        // the first key only), and all are kept.
        let cores = Cores::of_current_thread();
        let spare = Spare::default();
        assert_eq!(
            reduce_all(merge_groups(map_phase(100, 1, &spare)), &spare),
            KEYS
        );
        assert_eq!(spare.len(), KEYS);
        let spare = Spare::default();
        let two = map_phase(100, 2, &spare);
        assert_eq!(reduce_all(merge_groups(two), &spare), KEYS);
        assert_eq!(spare.len(), 2 * KEYS + 1);
        // Mapped and reduced on two cores at once: every key once, to its
        // value, and the buckets kept (which worker takes which blocks is
        // the race's: between one worker's 768 buckets and two workers'
        // with a new list for the first gathering of each).
        let histogram: Vec<(usize, u64)> = hist_map(&image())
            .into_iter()
            .map(|(k, c)| (k, 100 * c))
            .collect();
        let spare = Spare::default();
        let two = map_phase_across(100, 2, &cores, &spare);
        assert_eq!(
            reduce_across(merge_groups(two), 2, &cores, &spare),
            histogram
        );
        assert!(
            (KEYS..=2 * KEYS + 2).contains(&spare.len()),
            "{}",
            spare.len()
        );
    }
}
