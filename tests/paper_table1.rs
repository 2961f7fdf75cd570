//! The atomic models of seed 001, Table 1: they parse, print back, simplify to
//! themselves, have the paper's growth classes, and evaluate at x = 1024 and
//! x = 262144 (the ends of the paper's measurement range) to the values
//! computed by hand (log2 1024 = 10, log2 262144 = 18).
use pattern_core::Expr;

/// (name, model as the paper prints it, class, value at 1024, value at 262144).
const TABLE_1: [(&str, &str, &str, f64, f64); 10] = [
    ("nop", "5422.97", "O(1)", 5422.97, 5422.97),
    (
        "inc",
        "536.185 * x",
        "O(x)",
        536.185 * 1024.0,
        536.185 * 262144.0,
    ),
    (
        "qsort",
        "1034.17 * x * log2(x)",
        "O(x·log₂x)",
        1034.17 * 1024.0 * 10.0,
        1034.17 * 262144.0 * 18.0,
    ),
    ("map_grppi", "1.241e7", "O(1)", 12_410_000.0, 12_410_000.0),
    ("reduce_grppi", "9.449e6", "O(1)", 9_449_000.0, 9_449_000.0),
    ("map_hadoop", "3.529e7", "O(1)", 35_290_000.0, 35_290_000.0),
    (
        "reduce_hadoop",
        "9376 * x",
        "O(x)",
        9376.0 * 1024.0,
        9376.0 * 262144.0,
    ),
    ("reduce_p", "38316", "O(1)", 38316.0, 38316.0),
    (
        "reduce_v",
        "0.353395 * x",
        "O(x)",
        0.353395 * 1024.0,
        0.353395 * 262144.0,
    ),
    ("transfer", "0.125 * x", "O(x)", 128.0, 32768.0),
];

#[test]
fn table1_models_evaluate_to_the_values_computed_by_hand() {
    for (name, text, _, at_1024, at_262144) in TABLE_1 {
        let model = Expr::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (x, want) in [(1024.0, at_1024), (262144.0, at_262144)] {
            let got = model.eval(&[("x", x)]).unwrap();
            assert!(
                (got - want).abs() <= 1e-12 * want.abs(),
                "{name} at {x}: {got} vs {want}"
            );
            let compiled = model.compile(&["x"]).unwrap().eval(&[x]);
            assert!(
                (compiled - want).abs() <= 1e-12 * want.abs(),
                "{name} compiled at {x}"
            );
        }
    }
}

#[test]
fn table1_models_print_parse_back_and_are_normal_forms() {
    let printed: Vec<String> = TABLE_1
        .iter()
        .map(|(_, text, ..)| Expr::parse(text).unwrap().simplify().to_string())
        .collect();
    assert_eq!(
        printed,
        [
            "5422.97",
            "536.185·x",
            "1034.17·x·log₂(x)",
            "1.241e7",
            "9449000",
            "3.529e7",
            "9376·x",
            "38316",
            "0.353395·x",
            "0.125·x",
        ]
    );
    for (name, text, ..) in TABLE_1 {
        let model = Expr::parse(text).unwrap();
        let normal = model.simplify();
        assert_eq!(normal, model, "{name} is already in normal form");
        assert_eq!(Expr::parse(&normal.to_string()).unwrap(), normal, "{name}");
        assert_eq!(Expr::parse(&normal.to_ascii()).unwrap(), normal, "{name}");
    }
}

#[test]
fn table1_growth_classes() {
    for (name, text, class, ..) in TABLE_1 {
        let model = Expr::parse(text).unwrap();
        assert_eq!(model.growth("x").unwrap().to_string(), class, "{name}");
    }
    let qsort = Expr::parse("1034.17 * x * log2(x)").unwrap();
    let inc = Expr::parse("536.185 * x").unwrap();
    let nop = Expr::parse("5422.97").unwrap();
    assert!(qsort.growth("x") > inc.growth("x"));
    assert!(inc.growth("x") > nop.growth("x"));
}

#[test]
fn table1_latex() {
    let qsort = Expr::parse("1034.17 * x * log2(x)").unwrap();
    assert_eq!(qsort.latex().to_string(), r"1034.17 \cdot x \cdot \log_2 x");
    let map = Expr::parse("1.241e7").unwrap();
    assert_eq!(map.latex().to_string(), r"1.241 \times 10^{7}");
}
