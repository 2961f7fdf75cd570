//! What the runners' tests share (tests/exec.rs for the executor,
//! tests/exec_rayon.rs for the rayon runner): designs, kernels, a
//! histogram job.
// Each test crate uses its own part of these.
#![allow(dead_code)]

use pattern_core::Design;
use pattern_core::exec::{Cores, Job, Kernels};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Waits until `ready()` or 20 s pass (a guard against a hang if a
/// runner were serial: the test then fails on its assertion instead).
pub fn wait_until(ready: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ready() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// `structure` over the atoms the tests' kernels run.
pub fn design(structure: &str) -> Design {
    Design::parse(&format!(
        "meet = 1; add1 = x; double = x; slow = x; a = 1; b = 1; c = 1; {structure}"
    ))
    .unwrap()
}

/// The elements `0..n`.
pub fn numbers(n: i64) -> Vec<i64> {
    (0..n).collect()
}

/// Kernels on integers: add one, double, a slow step.
pub fn arithmetic() -> Kernels<i64> {
    Kernels::new()
        .add("add1", |v: &mut i64| *v += 1)
        .add("double", |v: &mut i64| *v *= 2)
        // A little uneven work, so that workers overtake each other.
        .add("slow", |v: &mut i64| {
            let spins = (*v as u64).wrapping_mul(7919) % 3000;
            for i in 0..spins {
                std::hint::black_box(i);
            }
        })
}

/// A kernel whose first `n` calls wait for each other: they are in flight
/// together if and only if the runner runs `n` of them at once.
pub fn rendezvous(n: usize) -> impl Fn(&mut i64) + Send + Sync + 'static {
    let arrived = Arc::new(AtomicUsize::new(0));
    move |_| {
        let me = arrived.fetch_add(1, Ordering::SeqCst) + 1;
        if me <= n {
            wait_until(|| arrived.load(Ordering::SeqCst) >= n);
        }
    }
}

/// Records, per atom call, the system's number of the only core the
/// calling thread may run on (`usize::MAX` if it may run on several).
pub fn record_core(slot: usize) -> impl Fn(&mut Vec<usize>) + Send + Sync + 'static {
    move |v| {
        let ids = Cores::of_current_thread().ids();
        v[slot] = if ids.len() == 1 { ids[0] } else { usize::MAX };
    }
}

/// A histogram job: images in, a count per byte value out.
#[derive(Debug)]
pub struct Histogram {
    pub images: Vec<Vec<u8>>,
    pub counts: Vec<(usize, u64)>,
}

impl Job for Histogram {
    type Input = Vec<u8>;
    type Value = u64;
    type Output = u64;
    fn inputs(&self) -> &[Vec<u8>] {
        &self.images
    }
    fn set_output(&mut self, output: Vec<(usize, u64)>) {
        self.counts = output;
    }
}

/// The histogram's map (its first `meet` calls wait for each other),
/// reduce, and `clear`, which empties a job's images.
pub fn histogram_kernels(meet: usize) -> Kernels<Histogram> {
    let arrived = Arc::new(AtomicUsize::new(0));
    Kernels::new()
        .add_map("hmap", move |img: &Vec<u8>| {
            let me = arrived.fetch_add(1, Ordering::SeqCst) + 1;
            if me <= meet {
                wait_until(|| arrived.load(Ordering::SeqCst) >= meet);
            }
            let mut h = vec![0u64; 256];
            for &b in img {
                h[b as usize] += 1;
            }
            h.into_iter().enumerate().filter(|(_, c)| *c > 0).collect()
        })
        .add_reduce("hreduce", |_key, counts: &[u64]| counts.iter().sum())
        .add("clear", |job: &mut Histogram| job.images.clear())
}

/// `count` jobs of `images` images of 100 bytes each.
pub fn jobs(count: usize, images: usize) -> Vec<Histogram> {
    (0..count)
        .map(|j| Histogram {
            images: (0..images)
                .map(|i| {
                    (0..100)
                        .map(|p| ((p * 31 + i * 7 + j) % 97) as u8)
                        .collect()
                })
                .collect(),
            counts: Vec::new(),
        })
        .collect()
}
