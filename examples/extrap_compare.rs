//! Our side of the Extra-P comparison (`scripts/extrap_compare.py` drives it):
//! `generate FILE` writes the fixed synthetic suite of `tests/fit_suite` (200
//! cases, 1–5 % noise) as one Extra-P text file, one REGION per case, and the
//! true models to `FILE.truth.json`; `generate FILE oracle NOISE` writes
//! Extra-P's 234 oracle functions twice with uniform noise of ±NOISE instead
//! (`tests/fit_suite/oracle.rs`); `fit FILE [default|compatible]` fits
//! every region of an Extra-P file and prints one JSON document with each
//! model's class and the fitting time per model. `compatible` is Extra-P's
//! absolute least squares (median of repetitions, as the script runs Extra-P).
//! Run: `cargo run --release --example extrap_compare -- generate /tmp/suite.txt`.
#[path = "../tests/fit_suite/mod.rs"]
mod fit_suite;

use pattern_core::fit::extrap_io::Experiment;
use pattern_core::fit::{Aggregate, Fitter};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("generate") if args.len() == 2 => generate(&args[1], fit_suite::suite()),
        Some("generate") if args.len() == 4 && args[2] == "oracle" => {
            let noise: f64 = args[3].parse()?;
            if !(0.0..1.0).contains(&noise) {
                return Err(format!("noise {noise}: give a fraction in [0, 1)").into());
            }
            generate(
                &args[1],
                fit_suite::oracle::noisy(noise, fit_suite::oracle::SEED),
            )
        }
        Some("fit") if (2..=3).contains(&args.len()) => {
            fit(&args[1], args.get(2).map_or("default", String::as_str))
        }
        _ => Err(
            "usage: extrap_compare generate FILE [oracle NOISE] | fit FILE [default|compatible]"
                .into(),
        ),
    }
}

fn generate(path: &str, cases: Vec<fit_suite::Case>) -> Result<(), Box<dyn std::error::Error>> {
    let mut experiment = Experiment::new(&["x"]);
    let mut truth = Vec::new();
    for case in cases {
        let region = format!("case_{:03}", case.id);
        for &(x, y) in &case.points {
            experiment.add(&region, "time", &[x], &[y]);
        }
        truth.push(serde_json::json!({
            "region": region,
            "power": case.class.power().to_string(),
            "log": case.class.log().to_string(),
            "c0": case.c0,
            "c1": case.c1,
            "leading": case.leading(),
            "sigma": case.sigma,
        }));
    }
    std::fs::write(path, experiment.to_text()?)?;
    std::fs::write(
        format!("{path}.truth.json"),
        serde_json::to_string_pretty(&truth)?,
    )?;
    eprintln!("wrote {} cases to {path}", truth.len());
    Ok(())
}

fn fit(path: &str, mode: &str) -> Result<(), Box<dyn std::error::Error>> {
    let fitter = match mode {
        "default" => Fitter::default(),
        "compatible" => Fitter::extrap_compatible().aggregate(Aggregate::Median),
        other => return Err(format!("unknown mode `{other}`").into()),
    };
    let experiment = Experiment::read_file(path)?;
    // Time the fitting only (not the file reading), best of several rounds.
    const ROUNDS: usize = 20;
    let mut best = f64::INFINITY;
    let mut fits = Vec::new();
    for _ in 0..ROUNDS {
        let start = Instant::now();
        fits = experiment.fit_all(&fitter);
        let seconds = start.elapsed().as_secs_f64();
        best = best.min(seconds / fits.len() as f64);
    }
    let mut cases = Vec::new();
    for (region, _, result) in fits {
        let fit = result?;
        let class = fit.class().expect("one parameter");
        cases.push(serde_json::json!({
            "region": region,
            "power": class.power().to_string(),
            "log": class.log().to_string(),
            "leading": fit.leading_coefficient(),
            "model": fit.to_extrap_string(),
        }));
    }
    let doc = serde_json::json!({
        "mode": mode,
        "seconds_per_model": best,
        "rounds": ROUNDS,
        "cases": cases,
    });
    println!("{}", serde_json::to_string(&doc)?);
    Ok(())
}
