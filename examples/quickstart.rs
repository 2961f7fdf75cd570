//! The quick start of the crate docs: parse a model, simplify it, evaluate it
//! and read its growth class. Run with `cargo run --example quickstart`.
use pattern_core::Expr;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Extra-P prints fitted models like this; they parse unchanged.
    let qsort = Expr::parse("5422.97 + 1034.17 * x^(1) * log2(x)^(1)")?;
    let model = qsort.simplify();
    assert_eq!(model.to_string(), "1034.17·x·log₂(x) + 5422.97");

    let ns = model.eval(&[("x", 1024.0)])?;
    let by_hand = 1034.17 * 1024.0 * 10.0 + 5422.97; // log2(1024) = 10
    assert!((ns - by_hand).abs() < 1e-6);

    assert_eq!(model.growth("x").unwrap().to_string(), "O(x·log₂x)");
    assert_eq!(model.dominant("x").to_string(), "1034.17·x·log₂(x)");
    println!(
        "{model} = {ns} ns at x = 1024, {}",
        model.growth("x").unwrap()
    );
    Ok(())
}
