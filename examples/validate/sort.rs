//! The paper's tasks for pipeline and task pool (§4.1.1): the atoms qsort,
//! inc and nop on arrays of seeded random integers, and the sort suite's
//! configurations over them. The models are the paper's (Table 1), as a
//! designer would write them before measuring; the validation measures its
//! own.

use crate::suite::Suite;
use pattern_core::exec::Kernels;
use pattern_core::{cost, cost_of};
use std::hint::black_box;

/// Sorts the array (Table 1 row 3).
#[cost("1034.17 * x * log2(x)")]
fn qsort(v: &mut [i32]) {
    v.sort_unstable();
}

/// Increments every element ten times (Table 1 row 2: "we repeat this
/// operation ten times to reduce the absolute noise").
#[cost("536.185 * x")]
fn inc(v: &mut [i32]) {
    for _ in 0..10 {
        for e in v.iter_mut() {
            *e = e.wrapping_add(1);
        }
        // Keep the ten passes from being merged into one.
        black_box(&mut *v);
    }
}

/// Returns the array unchanged (Table 1 row 1).
#[cost("5422.97")]
fn nop(v: &mut [i32]) {
    black_box(v);
}

/// SplitMix64: a fast, seeded generator for the arrays to sort.
pub(crate) fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// An array of `x` seeded random integers, followed by 4 KiB of spare
/// capacity: arrays allocated one after the other lie next to each other in
/// memory, and two workers of a task pool work on neighbouring arrays at
/// the same time. Padded by one cache line only, the hardware prefetcher of
/// one core, running up to a page ahead of the end of its array, kept
/// taking the first lines of the next array from the other core: on the CI
/// machine tpool[2](inc) at 4,096 elements reached a speedup of 1.76 over
/// tpool[1](inc), and 2.06 with a page between the arrays (without any
/// padding, the shared last line cost 7–16 % more). Where the generator put
/// the arrays is not a property of the design.
/// Spare capacity after each array: 4 KiB of `i32`.
const PAGE_PAD: usize = 1024;

fn random_array(x: usize, seed: u64) -> Vec<i32> {
    let mut s = seed;
    let mut v = Vec::with_capacity(x + PAGE_PAD);
    v.extend((0..x).map(|_| splitmix(&mut s) as i32));
    v
}

/// The sort suite: seq, task pools and pipelines of qsort, inc and nop
/// (the paper's §4.1.1) at 1,024 to 262,144 elements.
pub(crate) fn sort_suite() -> Suite<Vec<i32>> {
    let kernels = Kernels::<Vec<i32>>::new()
        .add(cost_of!(qsort).name, |v| qsort(v))
        .add(cost_of!(inc).name, |v| inc(v))
        .add(cost_of!(nop).name, |v| nop(v));
    // 1,024 to 262,144 elements (the paper's range), powers of two.
    let sizes: Vec<usize> = (0..=8).map(|k| 1024 << k).collect();
    let mut suite = Suite::new("qsort/inc/nop", kernels, &sizes, random_array)
        .element_bytes(|x| 4 * x)
        .measure("qsort")
        .measure("inc")
        .measure("nop")
        .with_handoff(true)
        .with_cache_reuse(true)
        .with_contention(true)
        .with_direct(true);
    for d in [
        "seq(qsort, nop)",
        "seq(qsort, inc)",
        "seq(inc, qsort)",
        "seq(inc, inc)",
        "seq(inc, nop)",
    ] {
        suite = suite.case("seq", d, true);
    }
    for n in [1, 2, 3, 4, 8] {
        suite = suite.case("tpool", &format!("tpool[{n}](qsort)"), true);
    }
    for n in [1, 2, 3, 4, 8] {
        suite = suite.case("tpool", &format!("tpool[{n}](inc)"), true);
    }
    for d in [
        "pipe(qsort, nop)",
        "pipe(qsort, inc)",
        "pipe(inc, qsort)",
        "pipe(inc, inc)",
        "pipe(inc, nop)",
        // More stages than cores.
        "pipe(inc, inc, inc)",
        "pipe(qsort, inc, nop)",
        "pipe(inc, inc, inc, inc)",
    ] {
        suite = suite.case("pipe", d, true);
    }
    for d in ["pipe(tpool[2](qsort), inc)", "pipe(inc, tpool[2](inc))"] {
        suite = suite.case("pipe of pools", d, true);
    }
    suite
}
