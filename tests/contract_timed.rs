//! Cost contracts on real timings (issue 38): opt-in, never in the default
//! `cargo test` (timings depend on the machine and its load). Run with
//!
//! ```sh
//! cargo test --release --test contract_timed -- --ignored
//! ```
//!
//! The annotations are this machine's; on another, the failed report says
//! by how much and prints the annotation to paste.

use pattern_core::contract::{ClassOrder, Contract, DesignRuns};
use pattern_core::exec::Kernels;
use pattern_core::machine::Machine;
use pattern_core::{check_cost, cost, design};

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

/// Increments every element ten times.
#[cost("0.68 * x")]
fn inc(mut v: Vec<i32>) -> Vec<i32> {
    for _ in 0..10 {
        v.iter_mut().for_each(|e| *e = e.wrapping_add(1));
        std::hint::black_box(&mut v);
    }
    v
}

design!(type Sorting = pipe(qsort, inc));

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

#[test]
#[ignore = "timings: cargo test --release --test contract_timed -- --ignored"]
fn a_pipeline_keeps_its_prediction() {
    // The kernels take the element in place; the atoms' annotations come
    // from the functions through the design. On the shared 2-core machine
    // it held in 10 runs of 10, 4 at a retry (docs/contract.md).
    let kernels = Kernels::<Vec<i32>>::new()
        .add("qsort", |v| *v = qsort(std::mem::take(v)))
        .add("inc", |v| *v = inc(std::mem::take(v)));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let design = Sorting::design();
    let mut runs = DesignRuns::new(&design, &kernels, shuffled).elements(32);
    let report = Contract::of_design("Sorting", &design, &Machine::new(1, cores))
        .sizes((10..=14).map(|k| 1 << k))
        .tolerance(0.25)
        .check(&mut runs)
        .unwrap();
    println!("{report}");
    assert!(report.holds(), "{report}");
}
