//! The flagship tour of `pattern`: the paper's atomic cost models parsed,
//! simplified to PMNF, evaluated, classified by growth and rendered in LaTeX,
//! then a symbolic model in several variables. Run with
//! `cargo run --release --example tour`.
use pattern_core::Expr;

/// Seed 001, Table 1: atomic models in nanoseconds (x = input elements).
const TABLE_1: [(&str, &str); 10] = [
    ("nop", "5422.97"),
    ("inc", "536.185 * x"),
    ("qsort", "1034.17 * x * log2(x)"),
    ("map_grppi", "1.241e7"),
    ("reduce_grppi", "9.449e6"),
    ("map_hadoop", "3.529e7"),
    ("reduce_hadoop", "9376 * x"),
    ("reduce_p", "38316"),
    ("reduce_v", "0.353395 * x"),
    ("transfer", "0.125 * x"),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("Atomic models (seed 001, Table 1), in ns");
    println!(
        "{:<14} {:<20} {:<12} {:>16} {:>18}",
        "task", "model", "class", "x = 1024", "x = 262144"
    );
    for (name, text) in TABLE_1 {
        let model = Expr::parse(text)?.simplify();
        let class = model.growth("x").map_or("?".to_string(), |g| g.to_string());
        let compiled = model.compile(&["x"])?;
        println!(
            "{:<14} {:<20} {:<12} {:>16.1} {:>18.1}",
            name,
            model.to_string(),
            class,
            compiled.eval(&[1024.0]),
            compiled.eval(&[262144.0]),
        );
    }

    println!("\nA model fitted by Extra-P, pasted as printed:");
    let fitted = Expr::parse("-1487600.12 + 1039.05 * x^(1) * log2(x)^(1)")?;
    println!("  {fitted:#}\n  → {}", fitted.simplify());
    println!("  LaTeX: {}", fitted.simplify().latex());

    println!("\nSymbolic counts: qsort on a pool of n threads, Hadoop's shuffle on m nodes");
    let pool = Expr::parse("1034.17 * x * log2(x) / n")?;
    let shuffle = Expr::parse("(m*n - 1)/(m*n) * 12288 * x / 0.125")?;
    for (name, e) in [("tpool_n(qsort)", &pool), ("shuffle", &shuffle)] {
        let s = e.simplify();
        println!(
            "  {name:<15} {s}   vars {:?}, class in x {}",
            s.vars(),
            s.growth("x").map_or("?".into(), |g| g.to_string())
        );
    }
    let at = [("x", 262144.0), ("n", 4.0), ("m", 4.0)];
    println!(
        "  at x = 262144, n = 4, m = 4: {:.4e} ns and {:.4e} ns",
        pool.eval(&at)?,
        shuffle.eval(&at)?
    );

    println!("\nThe pipeline's asymptotic choice: max(qsort, inc, nop)");
    let pipe = Expr::parse("max(1034.17*x*log2(x), 536.185*x, 5422.97)")?;
    println!(
        "  pointwise {}\n  dominant  {}",
        pipe.simplify(),
        pipe.dominant("x")
    );

    println!("\nErrors name what went wrong and where:");
    if let Err(e) = Expr::parse("1034.17 * x * log2(x") {
        println!("{e}");
    }
    if let Err(e) = Expr::parse("1034.17 * x * log2(x)")?.eval(&[("x", 0.0)]) {
        println!("  {e}");
    }
    Ok(())
}
