//! Annotate → design → model: the paper's qsort, inc and nop as real Rust
//! functions with `#[cost]`, the pipeline and task-pool designs of seed 001
//! written with `design!`, their models printed, and a cost budget the
//! compiler checks. Run with `cargo run --release --example annotated`.
use pattern_core::{cost, cost_budget, cost_of, cost_summary, design};

/// Sorts the elements (seed 001, Table 1 row 3).
#[cost("1034.17 * x * log2(x)")]
pub fn qsort(v: &mut [i32]) {
    v.sort_unstable();
}

/// Increments every element ten times (Table 1 row 2).
#[cost("536.185 * x")]
pub fn inc(v: &mut [i32]) {
    for _ in 0..10 {
        for e in v.iter_mut() {
            *e = e.wrapping_add(1);
        }
    }
}

/// Passes the elements on unchanged (Table 1 row 1; the paper's framework
/// overhead is in the model).
#[cost("5422.97")]
pub fn nop(_v: &mut [i32]) {}

design!(
    /// The three-stage pipeline with a pool of four sorters.
    pub type Pipeline = pipe(tpool[4](qsort), inc, nop)
);
design!(
    /// The same work as one task pool over the sequence (law iv's other side).
    pub type Pool = tpool[3](seq(qsort, inc, nop))
);

// The build fails if a change makes the pipeline slower than 6 s per
// element of 10^6 integers.
cost_budget!(Pipeline, x = 1e6, max = 6e9);
cost_budget!(Pool, x = 1e6, max = 8e9);

cost_summary! {
    /// Both designs at the ends of the paper's range and at 10^6.
    pub const SUMMARY = [Pipeline, Pool] at x = [1024, 262144, 1e6];
}

fn main() {
    // The functions are unchanged.
    let mut data: Vec<i32> = (0..1000).rev().collect();
    qsort(&mut data);
    inc(&mut data);
    nop(&mut data);
    assert_eq!(data[0], 10);

    println!("Annotated functions:");
    for annotation in [cost_of!(qsort), cost_of!(inc), cost_of!(nop)] {
        let e = annotation.expr();
        println!(
            "  {:<6} {:<22} {}",
            annotation.name,
            e.to_string(),
            e.growth("x").map_or("?".into(), |g| g.to_string())
        );
    }

    for (name, term, model, asymptotic, latency, threads) in [
        (
            "Pipeline",
            Pipeline::term(),
            Pipeline::model().simplify(),
            Pipeline::model_asymptotic().simplify(),
            Pipeline::latency().simplify(),
            Pipeline::resources().threads.simplify(),
        ),
        (
            "Pool",
            Pool::term(),
            Pool::model().simplify(),
            Pool::model_asymptotic().simplify(),
            Pool::latency().simplify(),
            Pool::resources().threads.simplify(),
        ),
    ] {
        println!("\n{name} = {term}");
        println!("  throughput {model}");
        println!("  paper's    {asymptotic}");
        println!("  latency    {latency}");
        println!("  threads    {threads}");
    }

    println!("\nPer element at x = 10^6, computed by the compiler:");
    println!("  Pipeline {:.4e} ns (budget 6e9)", Pipeline::cost_at(1e6));
    println!("  Pool     {:.4e} ns (budget 8e9)", Pool::cost_at(1e6));

    println!("\nThe compile-time summary (a &'static str):\n\n{SUMMARY}");

    // A design as a value, with a symbolic thread count.
    let symbolic = design!(tpool[n](seq(qsort, inc)));
    println!("A pool of n threads: {}", symbolic.model());
}
