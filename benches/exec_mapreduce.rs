//! The executor's histogram mapReduce (seed 001 §4.1.2: 4,096 images of
//! 64×64 RGB pixels per job, 768 keys) on n = 1 and 2 threads, against the
//! grouping it replaced, measured in the same run: the map on n threads
//! collecting every input's pairs, then one thread grouping them all by key
//! (`group_by_key`), then the reduce on n threads. The executor's map
//! workers group their own pairs as they map, and the reduce gathers each
//! key's values from them.
//! Run with `cargo bench --bench exec_mapreduce`.
use criterion::{Criterion, criterion_group, criterion_main};
use pattern_core::Design;
use pattern_core::exec::{Executor, Job, Kernels, group_by_key};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const IMAGES: usize = 4096;
const KEYS: usize = 768;

/// A 64×64 RGB image whose channels take every value.
fn image() -> Arc<Vec<u8>> {
    let mut s = 15u64;
    let mut rgb = Vec::with_capacity(64 * 64 * 3);
    for y in 0..64usize {
        for x in 0..64usize {
            // SplitMix64's increment and finaliser, shortened.
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let noise = (s ^ (s >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            rgb.push((x * 4 + (noise & 0x3f) as usize) as u8);
            rgb.push((y * 4 + ((noise >> 8) & 0x3f) as usize) as u8);
            rgb.push(((x + y) * 2 + ((noise >> 16) & 0xff) as usize) as u8);
        }
    }
    Arc::new(rgb)
}

fn hist_map(rgb: &[u8]) -> Vec<(usize, u64)> {
    let mut counts = [0u64; KEYS];
    for px in rgb.chunks_exact(3) {
        counts[px[0] as usize] += 1;
        counts[256 + px[1] as usize] += 1;
        counts[512 + px[2] as usize] += 1;
    }
    counts.iter().copied().enumerate().collect()
}

fn hist_reduce(_key: usize, counts: &[u64]) -> u64 {
    counts.iter().sum()
}

struct Histogram {
    images: Vec<Arc<Vec<u8>>>,
    counts: Vec<(usize, u64)>,
}

impl Job for Histogram {
    type Input = Arc<Vec<u8>>;
    type Value = u64;
    type Output = u64;
    fn inputs(&self) -> &[Arc<Vec<u8>>] {
        &self.images
    }
    fn set_output(&mut self, output: Vec<(usize, u64)>) {
        self.counts = output;
    }
}

/// `f(i)` for every `i < len` on `n` threads pulling indices from a shared
/// counter, the results in index order: the executor's phases before the
/// change.
fn on_threads<R: Send>(n: usize, len: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let parts: Vec<Vec<(usize, R)>> = std::thread::scope(|s| {
        let work = || {
            let mut done = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= len {
                    break done;
                }
                done.push((i, f(i)));
            }
        };
        let helpers: Vec<_> = (1..n.min(len)).map(|_| s.spawn(work)).collect();
        let mut parts = vec![work()];
        parts.extend(helpers.into_iter().filter_map(|h| h.join().ok()));
        parts
    });
    let mut slots: Vec<Option<R>> = (0..len).map(|_| None).collect();
    for (i, r) in parts.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots.into_iter().flatten().collect()
}

/// The grouping the executor replaced: map on n threads, group on one,
/// reduce on n.
fn one_thread_grouping(images: &[Arc<Vec<u8>>], n: usize) -> Vec<(usize, u64)> {
    let emitted = on_threads(n, images.len(), |i| hist_map(&images[i]));
    let grouped = group_by_key(emitted, KEYS).unwrap_or_default();
    let sums = on_threads(n, grouped.len(), |i| {
        hist_reduce(grouped[i].0, &grouped[i].1)
    });
    grouped.iter().map(|(k, _)| *k).zip(sums).collect()
}

fn bench(c: &mut Criterion) {
    let img = image();
    let images: Vec<Arc<Vec<u8>>> = vec![img; IMAGES];
    let kernels = Kernels::<Histogram>::new()
        .add_map("hist_map", |rgb: &Arc<Vec<u8>>| hist_map(rgb))
        .add_reduce("hist_reduce", hist_reduce);
    let mut group = c.benchmark_group("histogram_4096_images");
    group.sample_size(20);
    for n in [1, 2] {
        let design = Design::parse(&format!(
            "hist_map = 1; hist_shuffle = 1; hist_reduce = 1;
             mapreduce[m = 1, n = {n}, d = x, k = {KEYS}](hist_map, hist_shuffle, hist_reduce)"
        ))
        .expect("the design parses");
        let job = || Histogram {
            images: images.clone(),
            counts: Vec::new(),
        };
        // Both paths give the same histogram.
        let run = Executor::new(&kernels)
            .run(design.term(), vec![job()])
            .expect("the job runs");
        assert_eq!(run.outputs[0].1.counts, one_thread_grouping(&images, n));
        group.bench_function(format!("executor_grouping_on_workers/n={n}"), |b| {
            b.iter(|| {
                let run = Executor::new(&kernels)
                    .run(design.term(), vec![job()])
                    .expect("the job runs");
                black_box(run.outputs)
            })
        });
        group.bench_function(format!("one_thread_grouping/n={n}"), |b| {
            b.iter(|| black_box(one_thread_grouping(&images, n)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
