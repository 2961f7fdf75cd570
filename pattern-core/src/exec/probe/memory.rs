//! The memory's bandwidth ([`Memory`]): arrays far larger than the caches
//! incremented in place, element by element (each element read and
//! written: 8 bytes per `i32`, what a user's `for v in a { *v += 1 }`
//! moves), first by one thread, then by one thread per core at once. A
//! sample is one pass over every thread's array; its bandwidth is the bytes
//! of all the arrays over the time from a common start until the last
//! thread ends. Each bandwidth is the median of its samples, and the node's
//! is at least one core's (a sample of all cores slower than one core
//! alone is the machine's noise, not a narrower memory).
//!
//! Elements handed over ([`Handed`]): a pipeline of two threads joined by
//! a channel of 4 places, as a user's is; the first increments arrays from
//! a pool as large as the memory's arrays (from memory) and hands each
//! on, the second increments what it receives, timed call by call. Each
//! size's bandwidth is the bytes over the median call, for arrays moving
//! 32 KiB to 8 MiB.

use crate::machine::{Handed, Memory};
use std::sync::Barrier;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

/// The bytes moved by the handed calls probed: a call reads and writes
/// back an array of half as many bytes.
const HANDED_BYTES: [usize; 5] = [32 << 10, 128 << 10, 512 << 10, 2 << 20, 8 << 20];

/// The fewest arrays a size's pipeline hands over.
const HANDED_CALLS: usize = 16;

/// Bytes moved per element: read and written.
const BYTES_PER_ELEMENT: f64 = 8.0;

/// The memory's bandwidth as `threads` threads measure it, each over an
/// array of `mib` MiB, `samples` passes each (after one untimed pass that
/// maps the pages in); `None` with fewer than 1 MiB or no thread.
pub(super) fn measure(threads: usize, mib: usize, samples: usize) -> Option<Memory> {
    if threads == 0 || mib == 0 || samples == 0 {
        return None;
    }
    let one = median(passes(1, mib, samples))?;
    let all = if threads > 1 {
        median(passes(threads, mib, samples))?.max(one)
    } else {
        one
    };
    Some(Memory::new(all, one))
}

/// The bandwidth of elements handed from one thread to another, by size,
/// from pools of `mib` MiB (at least [`HANDED_CALLS`] arrays); `None` with
/// no pool.
pub(super) fn handed(mib: usize) -> Option<Handed> {
    if mib == 0 {
        return None;
    }
    let points: Vec<(f64, f64)> = (HANDED_BYTES.iter())
        .filter_map(|&bytes| {
            let len = bytes / 2 / std::mem::size_of::<i32>();
            let arrays = (mib * (1 << 20) / (bytes / 2)).max(HANDED_CALLS);
            let ns = median(handed_calls(len, arrays))?;
            (ns > 0.0).then(|| (bytes as f64, bytes as f64 / ns))
        })
        .collect();
    Handed::new(&points).ok()
}

/// The times of the second thread's calls on `arrays` arrays of `len`
/// integers, each incremented by the first thread just before.
fn handed_calls(len: usize, arrays: usize) -> Vec<f64> {
    // Distinct values, so that no page is shared.
    let pool: Vec<Vec<i32>> = (0..arrays).map(|i| vec![i as i32 | 1; len]).collect();
    let (send, receive) = sync_channel::<Vec<i32>>(4);
    std::thread::scope(|scope| {
        let second = scope.spawn(move || {
            (receive.iter())
                .map(|mut array| {
                    let start = Instant::now();
                    increment(&mut array);
                    start.elapsed().as_nanos() as f64
                })
                .collect::<Vec<f64>>()
        });
        for mut array in pool {
            increment(&mut array);
            if send.send(array).is_err() {
                break;
            }
        }
        drop(send);
        second.join().unwrap_or_default()
    })
}

/// The bandwidth of `samples` passes of `threads` threads, bytes per ns.
fn passes(threads: usize, mib: usize, samples: usize) -> Vec<f64> {
    let len = mib * (1 << 20) / 4;
    let mut arrays: Vec<Vec<i32>> = (0..threads).map(|_| vec![0i32; len]).collect();
    let barrier = Barrier::new(threads);
    let mut times: Vec<Vec<(Instant, Instant)>> = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (arrays.iter_mut())
            .map(|array| {
                let barrier = &barrier;
                scope.spawn(move || {
                    increment(array);
                    (0..samples)
                        .map(|_| {
                            barrier.wait();
                            let start = Instant::now();
                            increment(array);
                            (start, Instant::now())
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        times = handles.into_iter().filter_map(|h| h.join().ok()).collect();
    });
    if times.len() != threads {
        return Vec::new();
    }
    let bytes = BYTES_PER_ELEMENT * len as f64 * threads as f64;
    (0..samples)
        .filter_map(|s| {
            let start = times.iter().map(|t| t[s].0).min()?;
            let end = times.iter().map(|t| t[s].1).max()?;
            let ns = end.duration_since(start).as_nanos() as f64;
            (ns > 0.0).then(|| bytes / ns)
        })
        .collect()
}

/// One pass: every element read and written back.
fn increment(array: &mut [i32]) {
    for v in array.iter_mut() {
        *v = v.wrapping_add(1);
    }
    std::hint::black_box(array);
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_probe_gives_a_valid_memory() {
        let m = measure(2, 1, 3).unwrap();
        assert!(m.bandwidth_bytes_per_ns >= m.core_bandwidth_bytes_per_ns);
        assert!(m.core_bandwidth_bytes_per_ns > 0.0 && m.bandwidth_bytes_per_ns.is_finite());
        assert_eq!(measure(2, 0, 3), None);
        assert_eq!(measure(0, 1, 3), None);
    }

    #[test]
    fn a_small_probe_gives_a_handed_curve_of_every_size() {
        let h = handed(1).unwrap();
        let bytes: Vec<f64> = h.points().iter().map(|p| p.bytes).collect();
        assert_eq!(bytes, HANDED_BYTES.map(|b| b as f64));
        assert!(h.points().iter().all(|p| p.bytes_per_ns > 0.0));
        assert_eq!(handed(0), None);
    }
}
