//! Cost contracts on real timings (issue 38): opt-in, never in the default
//! `cargo test` (timings depend on the machine and its load). Run with
//!
//! ```sh
//! cargo test --release --test contract_timed -- --ignored
//! ```
//!
//! The annotations are this machine's; on another, the failed report says
//! by how much and prints the annotation to paste.

use pattern_core::contract::ClassOrder;
use pattern_core::{check_cost, cost};

/// Sorts a block.
#[cost("0.75 * x * log2(x)")]
fn qsort(mut v: Vec<i32>) -> Vec<i32> {
    v.sort_unstable();
    v
}

/// The same sort, annotated linear.
#[cost("11 * x")]
fn qsort_linear(v: Vec<i32>) -> Vec<i32> {
    qsort(v)
}

/// `0..x` in a scrambled order (a xorshift Fisher–Yates, seeded).
fn shuffled(x: usize) -> Vec<i32> {
    let mut v: Vec<i32> = (0..x as i32).collect();
    let mut s = 0x9E37_79B9_7F4A_7C15_u64;
    for i in (1..v.len()).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.swap(i, (s % (i as u64 + 1)) as usize);
    }
    v
}

fn sizes() -> Vec<usize> {
    (10..=18).map(|k| 1 << k).collect()
}

#[test]
#[ignore = "timings: cargo test --release --test contract_timed -- --ignored"]
fn qsort_keeps_its_annotation() {
    let report = check_cost!(qsort, shuffled, sizes = sizes(), tolerance = 0.25).unwrap();
    assert!(report.holds(), "{report}");
}

#[test]
#[ignore = "timings: cargo test --release --test contract_timed -- --ignored"]
fn a_sort_annotated_linear_is_caught() {
    let report = check_cost!(qsort_linear, shuffled, sizes = sizes(), tolerance = 0.25).unwrap();
    assert!(!report.holds(), "{report}");
    assert_eq!(report.class, ClassOrder::Higher, "{report}");
}
