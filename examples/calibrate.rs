//! Calibration end to end, like seed 001 Table 1 rows 1–3: measures the
//! kernels nop (return the input), inc (ten increments over a `Vec<i32>`)
//! and qsort (`sort_unstable` of a shuffled `Vec<i32>`) at sizes from 1,024
//! to 262,144, fits their models and prints a Table-1-like table (model,
//! class, spread of the coefficient of variation over the sizes).
//! Run with `cargo run --release --example calibrate` (a few seconds); add
//! `-- --extrap FILE` to also write the measurements in Extra-P's text
//! format for cross-checking (`extrap --text FILE`).
use pattern_core::fit::extrap_io::Experiment;
use pattern_core::fit::measure::{Harness, Measurement};
use pattern_core::fit::{Fit, Fitter, TermClass};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// 16 sizes from 1,024 to 262,144 (the paper used all 256 multiples of 1,024
/// and 256 repetitions; this keeps the run short).
const SIZES: [usize; 16] = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256];
const REPETITIONS: usize = 31;

fn sizes() -> Vec<usize> {
    SIZES.iter().map(|k| k * 1024).collect()
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
            .label(label)
    };
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let fitter = Fitter::default();

    let mut rows = Vec::new();
    let mut measure = |task: &'static str,
                       paper: &'static str,
                       expected: TermClass,
                       m: Measurement|
     -> Result<(), Box<dyn std::error::Error>> {
        let fit = m.fit(&fitter)?;
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

    println!(
        "Models of sequential task blocks, measured in nanoseconds ({} sizes from {} to {}, \
         {REPETITIONS} repetitions, median per size; cf. seed 001 Table 1).\n",
        sizes.len(),
        sizes[0],
        sizes[sizes.len() - 1]
    );
    println!(
        "| task | fitted model [ns] | class | paper's model (Table 1) | CV % (min, q1, median, q3, max) | LOO SMAPE % |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
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
            "| {} | {} | {class}{verdict} | {} | {cv} | {:.2} |",
            r.task,
            rounded(&r.fit),
            r.paper,
            r.fit.stats().cv_smape
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
