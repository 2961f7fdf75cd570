//! Seed 001's Tables 2, 3, 6 and 7 side by side: the model the composition
//! operators compute from the Table 1 atoms, the paper's measured model, and
//! the relative error of their leading coefficients, all computed here (the
//! measured models are the paper's reference data). Run with
//! `cargo run --release --example paper_tables`.
use pattern_core::accuracy::leading_coefficient_error;
use pattern_core::paper::{self, TABLE_2, TABLE_3, TABLE_6, TABLE_7};
use pattern_core::{Design, Expr};

fn design(term: &str) -> Result<Design, Box<dyn std::error::Error>> {
    Ok(Design::parse(&format!(
        "{}{term}",
        paper::table1_definitions()
    ))?)
}

/// `(composed, measured, error %)` for one configuration.
fn compare(term: &str, measured: &str) -> Result<(Expr, Expr, f64), Box<dyn std::error::Error>> {
    let composed = design(term)?.model_asymptotic();
    let measured = Expr::parse(measured)?;
    let error = 100.0 * leading_coefficient_error(&composed, &measured, "x")?;
    Ok((composed, measured, error))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("Table 2: seq, tpool and pipe (ns; composed = the operators on Table 1's atoms)");
    println!(
        "{:<18} {:<36} {:<24} {:>8} {:>8}",
        "configuration", "composed", "measured", "error %", "paper %"
    );
    for row in TABLE_2 {
        let (composed, measured, error) = compare(row.configuration, row.monolithic)?;
        println!(
            "{:<18} {:<36} {:<24} {:>8.2} {:>8.2}",
            row.configuration,
            format!("{composed:.6}"),
            measured.simplify().to_string(),
            error,
            row.printed_error
        );
    }
    println!(
        "(the paper's 25.71 and 63.03 divide by the composed value; the others, as here, by the measured one)"
    );

    println!(
        "\nTable 3: GrPPi's mapReduce, eq. (6): {}",
        Design::parse(&paper::grppi_design("n"))?.model()
    );
    println!(
        "{:<6} {:<16} {:<16} {:>8} {:>8}",
        "n", "composed", "measured", "error %", "paper %"
    );
    for row in TABLE_3 {
        let composed = Design::parse(&paper::grppi_design(&row.n.to_string()))?.model();
        let measured = Expr::parse(row.monolithic)?;
        let error = 100.0 * leading_coefficient_error(&composed, &measured, "x")?;
        println!(
            "{:<6} {:<16} {:<16} {:>8.2} {:>8.2}",
            row.n,
            format!("{composed:.4}"),
            measured.simplify().to_string(),
            error,
            row.printed_error
        );
    }

    println!(
        "\nTable 6: layering, pipe(tpool[n](qsort), tpool[n](inc)) vs tpool[n](pipe(qsort, inc))"
    );
    println!(
        "{:<4} {:<22} {:<22} {:>8} {:<22} {:>8} {:>6}",
        "n",
        "composed (both)",
        "measured pipe∘tpool",
        "error %",
        "measured tpool∘pipe",
        "error %",
        "equal"
    );
    for (n, pipe_of_pools, pool_of_pipe) in TABLE_6 {
        let left = design(&format!("pipe(tpool[{n}](qsort), tpool[{n}](inc))"))?;
        let right = design(&format!("tpool[{n}](pipe(qsort, inc))"))?;
        let same = left.model().canonical() == right.model().canonical();
        let (composed, m1, e1) = compare(&format!("tpool[{n}](pipe(qsort, inc))"), pool_of_pipe)?;
        let m0 = Expr::parse(pipe_of_pools)?;
        let e0 = 100.0 * leading_coefficient_error(&composed, &m0, "x")?;
        println!(
            "{:<4} {:<22} {:<22} {:>8.2} {:<22} {:>8.2} {:>6}",
            n,
            format!("{composed:.6}"),
            m0.to_string(),
            e0,
            m1.to_string(),
            e1,
            same
        );
    }

    println!("\nTable 7: a pipeline exchanged for a task pool of two over the sequence (law iv)");
    println!(
        "{:<26} {:<30} {:<18} {:>8}  {:<20} {:<20}",
        "configuration", "composed", "measured", "error %", "composed pipe", "measured pipe"
    );
    for (config, measured, measured_pipe) in TABLE_7 {
        let (composed, measured, error) = compare(config, measured)?;
        let pipe_term = config
            .replace("tpool[2](seq(", "pipe(")
            .replacen("))", ")", 1);
        let composed_pipe = design(&pipe_term)?.model_asymptotic();
        println!(
            "{:<26} {:<30} {:<18} {:>8.2}  {:<20} {:<20}",
            config,
            format!("{composed:.6}"),
            measured.to_string(),
            error,
            format!("{composed_pipe:.6}"),
            Expr::parse(measured_pipe)?.to_string()
        );
    }
    Ok(())
}
