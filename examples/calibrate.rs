//! Calibration end to end, like seed 001 Table 1 rows 1–3: measures the
//! kernels nop (return the input), inc (ten increments over a `Vec<i32>`)
//! and qsort (`sort_unstable` of a shuffled `Vec<i32>`) at 32 sizes from
//! 8,192 to 262,144 in steps of 8,192, fits their models and prints a Table-1-like table (model,
//! class, spread of the coefficient of variation over the sizes, the noise
//! test of the fitter).
//!
//! All three go through the same harness settings: a kernel shorter than
//! 300 ns is timed in batches (`Harness::auto_batch`: nop's calls take a
//! few nanoseconds, a tenth of reading the clock) and the clock's overhead
//! is subtracted; the time waited for a CPU is left out and the sizes of a
//! round are visited in random order, so that a loaded machine adds noise
//! rather than a trend. The fitter's noise test keeps a term only where the
//! repetitions show it, and only if it changes the time by more than the
//! clock resolves (its overhead per call of a timed run). Run with `cargo run --release --example calibrate`
//! (about 4–7 s on the 2-core CI machine, longer when it is loaded); add
//! `-- --extrap FILE` to also write the measurements in Extra-P's text
//! format for cross-checking (`extrap --text FILE`).
use pattern_core::fit::extrap_io::Experiment;
use pattern_core::fit::measure::{Harness, Measurement};
use pattern_core::fit::{Fit, Fitter, TermClass};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Duration;

/// Evenly spaced sizes, as in the paper (which used all 256 multiples of
/// 1,024 and 256 repetitions): every 8,192 elements up to 262,144. Evenly
/// spaced, the points sit mostly where inc's input no longer fits in the L1
/// cache; a geometric range from 1,024 gave half its points inside L1, where
/// each element costs 10–35 % less, and the fitter rightly read that step as
/// an `x·log₂x` term.
const STEP: usize = 8192;
const SIZES: usize = 32;
const REPETITIONS: usize = 31;
/// A kernel faster than this (about 10 times the clock's overhead) is timed
/// in batches that take at least this long...
const BATCH_TARGET: Duration = Duration::from_nanos(300);
/// ...with at most this many calls (twice as many inputs are alive at once;
/// with 8 or 16, nop still rose by 20–40 % over the sizes).
const MAX_BATCH: usize = 32;

fn sizes() -> Vec<usize> {
    (1..=SIZES).map(|k| k * STEP).collect()
}

fn nop(v: Vec<i32>) -> Vec<i32> {
    v
}

fn inc(mut v: Vec<i32>) -> Vec<i32> {
    for _ in 0..10 {
        for e in v.iter_mut() {
            *e = e.wrapping_add(1);
        }
        // Keep the ten passes from being merged into one.
        black_box(&mut v);
    }
    v
}

fn qsort(mut v: Vec<i32>) -> Vec<i32> {
    v.sort_unstable();
    v
}

struct Row {
    task: &'static str,
    paper: &'static str,
    expected: TermClass,
    measurement: Measurement,
    fit: Fit,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let extrap_file = match args.as_slice() {
        [] => None,
        [flag, file] if flag == "--extrap" => Some(file.clone()),
        _ => return Err("usage: calibrate [--extrap FILE]".into()),
    };
    let sizes = sizes();
    let harness = |label: &str| {
        Harness::new()
            .warmup(1)
            .repetitions(REPETITIONS)
            .auto_batch(BATCH_TARGET, MAX_BATCH)
            .subtract_timer_overhead(true)
            .exclude_waiting(true)
            .random_order(true)
            .label(label)
    };
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    // With the noise test (on by default): a term only where the data show
    // it beyond the spread of the repetitions.
    let fitter = Fitter::default();

    let mut rows = Vec::new();
    let mut measure = |task: &'static str,
                       paper: &'static str,
                       expected: TermClass,
                       m: Measurement|
     -> Result<(), Box<dyn std::error::Error>> {
        // Below the clock's resolution a trend is the harness's, not the
        // kernel's (see `Measurement::resolution_ns`).
        let fit = m.fit(&fitter.clone().resolution(m.resolution_ns()))?;
        rows.push(Row {
            task,
            paper,
            expected,
            measurement: m,
            fit,
        });
        Ok(())
    };
    let m = harness("nop").run(&sizes, |x| vec![1i32; x], nop);
    measure("nop", "5422.97", TermClass::CONSTANT, m)?;
    let m = harness("inc").run(&sizes, |x| vec![1i32; x], inc);
    measure("inc", "536.185·x", TermClass::extrap(1, 1, 0), m)?;
    let m = harness("qsort").run(
        &sizes,
        |x| {
            let mut v: Vec<i32> = (0..x as i32).collect();
            v.shuffle(&mut rng);
            v
        },
        qsort,
    );
    measure("qsort", "1034.17·x·log₂(x)", TermClass::extrap(1, 1, 1), m)?;

    let overhead = rows[0].measurement.timer_overhead_ns().unwrap_or(f64::NAN);
    let per_task = |f: &dyn Fn(&Measurement) -> String| {
        rows.iter()
            .map(|r| format!("{} {}", r.task, f(&r.measurement)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "Models of sequential task blocks, measured in nanoseconds ({} sizes from {} to {}, \
         {REPETITIONS} repetitions, median per size; cf. seed 001 Table 1). Clock overhead \
         {overhead:.0} ns, subtracted; calls per timed run: {}; timed runs that waited for \
         a CPU (wait left out): {}.\n",
        sizes.len(),
        sizes[0],
        sizes[sizes.len() - 1],
        per_task(&|m| m.batch().to_string()),
        per_task(&|m| m.waited().iter().sum::<usize>().to_string()),
    );
    println!(
        "| task | fitted model [ns] | class | paper's model (Table 1) | CV % (min, q1, median, q3, max) | LOO SMAPE % | noise test |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for r in &rows {
        let class = r.fit.class().expect("one parameter");
        let verdict = if class == r.expected {
            String::new()
        } else {
            // How much the unexpected term weighs at the largest size: a few
            // percent means it fits noise (the paper forced 31 of its 162
            // Extra-P models back to linear for this reason, §4.2).
            let x = *sizes.last().expect("sizes") as f64;
            let total = r.fit.model().eval(&[("x", x)])?;
            let share = 100.0 * (total - r.fit.constant()).abs() / total.abs();
            format!(
                " (expected {}; the term is {share:.1} % of the model at x = {x})",
                r.expected
            )
        };
        let cv = r
            .measurement
            .cv_summary()
            .map_or("n/a".to_string(), |s| format!("{s:.2}"));
        println!(
            "| {} | {} | {class}{verdict} | {} | {cv} | {:.2} | {} |",
            r.task,
            rounded(&r.fit),
            r.paper,
            r.fit.stats().cv_smape,
            noise_test(&r.fit)
        );
    }
    if let Some(file) = extrap_file {
        let mut experiment = Experiment::new(&["x"]);
        for r in &rows {
            experiment.add_measurement(&r.measurement, "time");
        }
        std::fs::write(&file, experiment.to_text()?)?;
        println!("\nmeasurements written to {file} (check with `extrap --text {file} --median`)");
    }
    Ok(())
}

/// The outcome of the fitter's noise test: for a kept term, how far beyond
/// chance it is; for a dropped one, which term the search had chosen.
fn noise_test(fit: &Fit) -> String {
    let Some(t) = fit.significance() else {
        return "—".to_string();
    };
    let terms: Vec<String> = t.terms.iter().map(|c| c.expr("x").to_string()).collect();
    let verdict = match fit.resolution() {
        _ if !t.significant => "dropped".to_string(),
        Some(r) if !r.resolved => format!(
            "significant but below the clock's resolution ({:.2} ns < {:.2} ns), dropped",
            r.span, r.resolution
        ),
        _ => "kept".to_string(),
    };
    let p = if t.p_value == 0.0 {
        "p < 1e-300".to_string()
    } else {
        format!("p = {:.1e}", t.p_value)
    };
    format!(
        "{} {verdict}: χ² = {:.1}, {p} (level {:.1e})",
        terms.join(" + "),
        t.chi2,
        t.threshold
    )
}

/// The model with coefficients rounded to 6 significant digits.
fn rounded(fit: &Fit) -> String {
    let sig = |v: f64| {
        let digits = (5 - v.abs().log10().floor() as i32).max(0) as usize;
        format!("{v:.digits$}")
    };
    let mut parts = Vec::new();
    for t in fit.terms() {
        let (_, class) = &t.factors[0];
        parts.push(format!("{}·{}", sig(t.coefficient), class.expr("x")));
    }
    if fit.constant() != 0.0 || parts.is_empty() {
        parts.push(sig(fit.constant()));
    }
    parts.join(" + ").replace("+ -", "- ")
}
