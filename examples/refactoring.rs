//! Checking a refactoring with the laws: is the new design equivalent to the
//! old one, never worse over a range of inputs (and by how much), or worse
//! somewhere (the smallest failing point, shrunk by bisection)? Then the laws
//! as rewrite rules list the designs they know to be as good or better. Run
//! with `cargo run --release --example refactoring`.
use pattern_core::Design;
use pattern_core::compare::{Domain, Verdict, compare};
use pattern_core::laws::{Relation, Rewriter, rewrite};
use pattern_core::paper::table1_definitions;

fn design(term: &str) -> Result<Design, Box<dyn std::error::Error>> {
    Ok(Design::parse(&format!("{}{term}", table1_definitions()))?)
}

fn check(a: &str, b: &str, domain: &Domain) -> Result<(), Box<dyn std::error::Error>> {
    let c = compare(&design(a)?, &design(b)?, domain)?;
    println!("A = {a}\n    M[A] = {}", c.a);
    println!("B = {b}\n    M[B] = {}", c.b);
    println!("verdict: {c}");
    match &c.verdict {
        Verdict::NeverWorse(m) => println!(
            "margin: B is {:.2} % to {:.2} % faster",
            100.0 * (1.0 - 1.0 / m.least),
            100.0 * (1.0 - 1.0 / m.most)
        ),
        Verdict::Worse(cex) => println!(
            "counterexample: at {} B takes {:.1} ns, A {:.1} ns: {:.2} % slower",
            cex.at,
            cex.b,
            cex.a,
            100.0 * (cex.ratio - 1.0)
        ),
        Verdict::Equivalent(_) => {}
    }
    println!();
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let domain = Domain::new(); // x from 2 to 2^20, other variables 1 to 64
    println!("== Law (iv): a pool of two over the sequence, same two threads");
    check("pipe(qsort, inc)", "tpool[2](seq(qsort, inc))", &domain)?;

    println!("== Not a law: balancing 4 threads between the stages");
    check(
        "pipe(tpool[3](qsort), nop)",
        "pipe(tpool[2](qsort), tpool[2](nop))",
        &domain,
    )?;

    println!("== Layering (iii), with a symbolic thread count");
    check(
        "pipe(tpool[n](qsort), tpool[n](inc))",
        "tpool[n](pipe(qsort, inc))",
        &domain,
    )?;

    println!("== Not a law: a pool around the pipeline, the constant stage left out");
    check(
        "tpool[n](pipe(qsort, nop))",
        "pipe(tpool[n](qsort), nop)",
        &Domain::new().with("n", 1, 24)?,
    )?;

    let start = "pipe(tpool[4](qsort), tpool[4](inc))";
    println!("== What the laws find from {start} (3 steps)");
    for f in rewrite(design(start)?.term(), &Rewriter::new())?
        .iter()
        .take(8)
    {
        let relation = match &f.relation {
            Relation::Better { least, most, .. } => {
                format!("better, {least:.3}x to {most:.3}x")
            }
            Relation::Equivalent => "equivalent".to_string(),
            Relation::Worse { worst, at } => format!("WORSE, {worst:.3}x at {at}"),
        };
        let steps: Vec<String> = f.steps.iter().map(|r| format!("{r:?}")).collect();
        println!(
            "{:<44} {:<26} threads {:<3} via {}",
            f.term.to_string(),
            relation,
            f.threads.to_string(),
            steps.join(", ")
        );
    }
    Ok(())
}
