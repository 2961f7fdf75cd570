//! The cost contracts of the paper's qsort, inc and nop on this machine
//! (issue 38): each `#[cost]` annotation checked against the function's
//! timings, where timings belong — a bench target, never the default
//! `cargo test`. Run with `cargo bench --bench contract`: it prints each
//! report, writes its JSON and SVG to `target/contract/`, and exits with 1
//! if a right annotation does not hold or the deliberately wrong one (a
//! sort annotated linear) is not caught. `scripts/contract_honesty.sh`
//! runs it 20 times for docs/contract.md's figures.
//!
//! The annotations are this machine's (the paper's, 1034.17·x·log₂x for
//! qsort, were its own machine's and harness's): on another machine the
//! check tells by how much, and prints the annotation to paste.
use pattern_core::contract::Report;
use pattern_core::{check_cost, cost};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

/// Sorts a shuffled block.
#[cost("0.75 * x * log2(x)")]
fn qsort(mut v: Vec<i32>) -> Vec<i32> {
    v.sort_unstable();
    v
}

/// The same sort, deliberately annotated linear: the class too low.
#[cost("11 * x")]
fn qsort_linear(v: Vec<i32>) -> Vec<i32> {
    qsort(v)
}

/// Increments every element ten times.
#[cost("0.68 * x")]
fn inc(mut v: Vec<i32>) -> Vec<i32> {
    for _ in 0..10 {
        v.iter_mut().for_each(|e| *e = e.wrapping_add(1));
        // Keep the ten passes from being merged into one.
        black_box(&mut v);
    }
    v
}

/// Returns its input.
#[cost("2")]
fn nop(v: Vec<i32>) -> Vec<i32> {
    v
}

/// `0..x` shuffled (seeded: every run sorts the same inputs).
fn shuffled(rng: &mut ChaCha8Rng, x: usize) -> Vec<i32> {
    let mut v: Vec<i32> = (0..x as i32).collect();
    v.shuffle(rng);
    v
}

/// `2^from` to `2^to`, one size per doubling.
fn doublings(from: u32, to: u32) -> Vec<usize> {
    (from..=to).map(|k| 1usize << k).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let dir = std::path::Path::new("target/contract");
    std::fs::create_dir_all(dir)?;
    let mut wrong = 0;
    let mut check = |report: Report, meant_to_hold: bool, started: Instant| {
        let took = started.elapsed().as_secs_f64();
        println!("{report}  measured and checked in {took:.2} s\n");
        let files = [
            (format!("{}.json", report.function), Ok(report.to_json())),
            (format!("{}.svg", report.function), report.svg()),
        ];
        for (name, text) in files {
            if let Err(e) = text.map(|t| std::fs::write(dir.join(&name), t)) {
                eprintln!("{name}: {e}");
            }
        }
        wrong += usize::from(report.holds() != meant_to_hold);
    };
    // Measurements before a verdict fails (CONTRACT_ATTEMPTS, default 3):
    // scripts/contract_honesty.sh compares 1 and 3.
    let n: usize = match std::env::var("CONTRACT_ATTEMPTS") {
        Ok(v) => v.parse()?,
        Err(_) => pattern_core::contract::DEFAULT_ATTEMPTS,
    };
    let t = Instant::now();
    let sorts = doublings(10, 18);
    check(
        check_cost!(
            qsort,
            |x| shuffled(&mut rng, x),
            sizes = sorts.clone(),
            attempts = n
        )?,
        true,
        t,
    );
    let t = Instant::now();
    check(
        check_cost!(
            qsort_linear,
            |x| shuffled(&mut rng, x),
            sizes = sorts,
            attempts = n
        )?,
        false,
        t,
    );
    let t = Instant::now();
    check(
        check_cost!(
            inc,
            |x| vec![1i32; x],
            sizes = doublings(13, 18),
            attempts = n
        )?,
        true,
        t,
    );
    let t = Instant::now();
    check(
        check_cost!(
            nop,
            |x| vec![1i32; x],
            sizes = doublings(10, 16),
            attempts = n
        )?,
        true,
        t,
    );
    if wrong > 0 {
        eprintln!("{wrong} verdict(s) not as meant");
        std::process::exit(1);
    }
    Ok(())
}
