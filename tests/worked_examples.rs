//! The worked examples of seeds 000 and 004 hold their numbers: the examples'
//! code is compiled in here so that the figures they print are checked.
#[path = "../examples/matmul.rs"]
#[allow(dead_code)]
mod matmul;

#[test]
fn dryad_pmm_reproduces_table4_within_one_percent() {
    let model = matmul::dryad_25_nodes();
    let (m2, m3) = matmul::coefficients(&model);
    assert!((m2 / 6.764e-8 - 1.0).abs() < 0.01, "M² coefficient {m2}");
    assert!((m3 / 9.259e-12 - 1.0).abs() < 0.01, "M³ coefficient {m3}");
    // The model is exactly of the paper's form: two terms, in M² and M³.
    assert_eq!(format!("{model:.4}"), "9.28e-12·M^3 + 6.78e-8·M^2");
}
