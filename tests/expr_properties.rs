//! Property tests of the cost-expression engine over random expressions of
//! bounded depth: simplification keeps the value and is idempotent, printing
//! parses back, serde round-trips, and the compiled form agrees with the tree.
//!
//! Variables are sampled in [1, 1000]: cost models are functions of sizes and
//! counts, and the normal form assumes positive variables (see `Expr::simplify`).
mod common;

use pattern_core::Expr;
use proptest::prelude::*;

const VARS: [&str; 3] = ["x", "n", "m"];

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        3 => (0.01f64..1.0e4).prop_map(Expr::num),
        1 => (1u32..20).prop_map(|k| Expr::num(f64::from(k))),
        4 => prop::sample::select(VARS.to_vec()).prop_map(Expr::var),
    ]
}

/// Exponents of the kinds PMNF and the operators produce.
fn exponent() -> impl Strategy<Value = Expr> {
    prop::sample::select(vec![
        Expr::num(2.0),
        Expr::num(3.0),
        Expr::num(-1.0),
        Expr::num(0.5),
        Expr::num(1.0) / 3.0,
        Expr::num(2.0) / 3.0,
        Expr::num(1.5),
    ])
}

/// Leaves with the numbers that break arithmetic: near the largest and the
/// smallest `f64`, subnormal, zero and negative zero.
fn extreme_leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        3 => leaf(),
        2 => prop::sample::select(vec![
            1e300, 1e-300, 1e308, 1.7976931348623157e308, 5e-324, 1e-310, 0.0, -0.0, 1e154, 1e-154,
        ])
        .prop_map(Expr::num),
        1 => (-300i32..300).prop_map(|e| Expr::num(10f64.powi(e))),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    expr_of(leaf())
}

/// Expressions over the leaves `leaf`.
fn expr_of(leaf: impl Strategy<Value = Expr> + 'static) -> impl Strategy<Value = Expr> {
    leaf.prop_recursive(4, 40, 4, |inner| {
        prop_oneof![
            3 => prop::collection::vec(inner.clone(), 2..4).prop_map(|v| v.into_iter().sum()),
            3 => prop::collection::vec(inner.clone(), 2..3).prop_map(|v| v.into_iter().product()),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| a - b),
            2 => (inner.clone(), inner.clone()).prop_map(|(a, b)| a / b),
            2 => (inner.clone(), exponent()).prop_map(|(a, k)| a.pow(k)),
            // log2 of something at least 1, as cost models take it of sizes.
            2 => inner.clone().prop_map(|a| (a.clone() * a + 1.0).log2()),
            1 => inner.clone().prop_map(|a| (a.clone() * a).sqrt()),
            2 => prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::max),
            1 => prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::min),
        ]
    })
}

fn point() -> impl Strategy<Value = Vec<(&'static str, f64)>> {
    (1.0f64..1000.0, 1.0f64..64.0, 1.0f64..16.0)
        .prop_map(|(x, n, m)| vec![("x", x), ("n", n), ("m", m)])
}

/// Multiplies the numbers of `e` by `1 + h` or `1 - h`, the sign alternating
/// with `flip` set.
fn perturb(e: &Expr, h: f64, flip: bool, count: &mut usize) -> Expr {
    match e {
        Expr::Num(v) => {
            *count += 1;
            let sign = if flip && (*count).is_multiple_of(2) {
                -1.0
            } else {
                1.0
            };
            Expr::Num(v * (1.0 + sign * h))
        }
        other => other.map_children(|c| perturb(c, h, flip, count)),
    }
}

/// The relative condition number of `e` at `at` with respect to its numbers,
/// estimated by perturbing them. Where it is large, the value depends on
/// rounding in the last digits (a difference of nearly equal terms), and two
/// equivalent forms may disagree in more than the last digits.
fn condition(e: &Expr, at: &[(&str, f64)]) -> f64 {
    let h = 1e-9;
    let Ok(v) = e.eval(at) else {
        return f64::INFINITY;
    };
    [false, true]
        .into_iter()
        .map(|flip| {
            let p = perturb(e, h, flip, &mut 0)
                .eval(at)
                .unwrap_or(f64::INFINITY);
            (p - v).abs() / (v.abs().max(1e-300) * h)
        })
        .fold(0.0, f64::max)
}

/// Leaves where the engine once changed a value: numbers without a value
/// (built through the API: the parser refuses them), logarithms in bases
/// without a logarithm (`log(0, m)`, `log(1, x)`) and halves, where a
/// rounded rewriting of `ceil`'s argument crosses an integer.
fn edge_leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        6 => leaf(),
        1 => prop::sample::select(vec![f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e308, 0.5])
            .prop_map(Expr::num),
        2 => (prop::sample::select(vec![2.0, 10.0]), prop::sample::select(VARS.to_vec()))
            .prop_map(|(b, v)| Expr::var(v).log(b)),
    ]
}

/// Expressions over [`edge_leaf`], with `ceil`, `floor` and `max`/`min` of
/// multiples.
fn edge_expr() -> impl Strategy<Value = Expr> {
    expr_of(edge_leaf()).prop_flat_map(|e| {
        prop_oneof![
            2 => Just(e.clone()),
            1 => Just(e.clone().ceil()),
            1 => Just(e.clone().floor()),
            1 => (0.5f64..4.0).prop_map(move |c| Expr::max(vec![e.clone(), c * e.clone()])),
        ]
    })
}

/// Points with powers of two, where `(x·y)^0.5` is an integer and
/// `x^0.5·y^0.5` is not quite (`ceil` at x = 2, y = 8: 4, and 5 from the
/// rewritten root). Sizes, at least 1, as the normal form assumes.
fn edge_point() -> impl Strategy<Value = Vec<(&'static str, f64)>> {
    let value = prop_oneof![
        prop::sample::select(vec![1.0, 2.0, 4.0, 8.0, 32.0]),
        1.0f64..1000.0,
    ];
    (value.clone(), value.clone(), value).prop_map(|(x, n, m)| vec![("x", x), ("n", n), ("m", m)])
}

/// Whether the parser refused the printed form of `e` for a constant
/// without a value (a division by zero, an overflow), and `e` indeed has
/// no value.
fn refused_without_value(
    e: &Expr,
    parsed: &Result<Expr, pattern_core::expr::ParseError>,
    at: &[(&str, f64)],
) -> bool {
    match parsed {
        Err(err) => {
            let refusal = err.expected().contains("within the range of `f64`")
                || err.expected() == "a divisor that is not zero";
            refusal && e.eval(at).is_err()
        }
        Ok(_) => false,
    }
}

/// Relative agreement to 1e-9 where the value is well conditioned in both
/// forms: the normal form rounds coefficients to 12 digits and expands
/// products (`(c - m)^2 = m^2 - 2cm + c^2`), and where either form amplifies
/// the last digits more than 100-fold, 1e-9 is not a fair demand.
fn agree(a: f64, b: f64, forms: [&Expr; 2], at: &[(&str, f64)]) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) || forms.iter().any(|e| condition(e, at) > 100.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(1000)))]

    #[test]
    fn simplify_preserves_the_value(e in expr(), at in point()) {
        let Ok(want) = e.eval(&at) else { return Ok(()) };
        let s = e.simplify();
        let got = s.eval(&at);
        prop_assert!(got.is_ok(), "{e}\n → {s}\n at {at:?}: {got:?}");
        let got = got.unwrap();
        prop_assert!(agree(got, want, [&e, &s], &at), "{e}\n → {s}\n at {at:?}: {got} vs {want}");
    }

    #[test]
    fn canonical_preserves_the_value_and_is_idempotent(e in expr(), at in point()) {
        let c = e.canonical();
        prop_assert_eq!(&c.canonical(), &c, "{}", e);
        let Ok(want) = e.eval(&at) else { return Ok(()) };
        let got = c.eval(&at);
        // Rounded coefficients can leave a residue below 0 under a root
        // where the tree has exactly 0: an ill-conditioned form.
        if got.is_err() && condition(&c, &at) > 100.0 {
            return Ok(());
        }
        prop_assert!(got.is_ok(), "{e}\n → {c}\n at {at:?}: {got:?}");
        let got = got.unwrap();
        prop_assert!(agree(got, want, [&e, &c], &at), "{e}\n → {c}\n at {at:?}: {got} vs {want}");
    }

    #[test]
    fn simplify_is_idempotent(e in expr()) {
        let once = e.simplify();
        let twice = once.simplify();
        prop_assert_eq!(&twice, &once, "{}", e);
    }

    #[test]
    fn printing_parses_back(e in expr(), at in point()) {
        for text in [e.to_string(), e.to_ascii()] {
            let back = Expr::parse(&text);
            // The parser refuses a constant without a value (`x/0`), which
            // a tree built through the API can hold: then it has no value.
            let Ok(back) = back else {
                prop_assert!(refused_without_value(&e, &back, &at), "{} does not parse: {:?}", text, back);
                continue;
            };
            if let (Ok(a), Ok(b)) = (e.eval(&at), back.eval(&at)) {
                prop_assert!(agree(a, b, [&e, &back], &at), "{text}: {a} vs {b}");
            }
        }
        // Normal forms read back to the very same tree.
        let s = e.simplify();
        for text in [s.to_string(), s.to_ascii()] {
            match Expr::parse(&text) {
                Ok(back) => prop_assert_eq!(back, s.clone()),
                back => prop_assert!(refused_without_value(&s, &back, &at), "{}: {:?}", text, back),
            }
        }
    }

    #[test]
    fn serde_round_trips(e in expr(), at in point()) {
        // Serde writes the ASCII form, so it reads back what the parser
        // reads from the text (the same value: `printing_parses_back`).
        for e in [e.clone(), e.simplify()] {
            let json = serde_json::to_string(&e).unwrap();
            match (serde_json::from_str::<Expr>(&json), Expr::parse(&e.to_ascii())) {
                (Ok(back), Ok(parsed)) => prop_assert_eq!(back, parsed),
                (Err(_), parsed) => prop_assert!(refused_without_value(&e, &parsed, &at), "{}", json),
                (Ok(back), Err(err)) => prop_assert!(false, "serde read {} where the parser refused: {}", back, err),
            }
        }
    }

    #[test]
    fn compiled_form_agrees_with_the_tree(e in expr(), at in point()) {
        let Ok(want) = e.eval(&at) else { return Ok(()) };
        let compiled = e.compile(&VARS).unwrap();
        let values: Vec<f64> = at.iter().map(|(_, v)| *v).collect();
        let got = compiled.eval(&values);
        prop_assert!(agree(got, want, [&e, &e], &at), "{e}: {got} vs {want}");
        let columns: Vec<Vec<f64>> = values.iter().map(|v| vec![*v; 3]).collect();
        let columns: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        let mut out = [0.0; 3];
        compiled.eval_batch(&columns, &mut out);
        prop_assert!(out.iter().all(|&o| o.to_bits() == got.to_bits()));
    }

    #[test]
    fn the_dominant_part_has_the_same_growth(e in expr()) {
        if let Some(g) = e.growth("x") {
            prop_assert_eq!(e.dominant("x").growth("x"), Some(g), "{}", e);
        }
    }


    /// A grid over two variables holds the tree's value at every point.
    #[test]
    fn grids_agree_with_the_tree(
        e in expr(),
        xs in prop::collection::vec(1.0f64..1000.0, 1..5),
        ns in prop::collection::vec(1.0f64..1000.0, 1..4),
    ) {
        let vars = ["x", "n", "m"];
        let compiled = e.compile(&vars).unwrap();
        let ms = [7.0];
        let grid = compiled.grid(&[("n", &ns), ("x", &xs), ("m", &ms)]).unwrap();
        prop_assert_eq!(grid.len(), xs.len() * ns.len());
        for (point, value) in grid.points() {
            let at = [("n", point[0]), ("x", point[1]), ("m", point[2])];
            match e.eval(&at) {
                Ok(want) => prop_assert!(
                    value == want || (value - want).abs() <= 1e-9 * want.abs().max(value.abs()),
                    "{e} at {at:?}: {value} vs {want}"
                ),
                Err(_) => prop_assert!(!value.is_finite(), "{e} at {at:?}: {value}"),
            }
        }
    }
}

proptest! {
    // A fixed seed: the extremes meet floating-point corners (docs/reliability.md)
    // that a random seed must not turn into a flaky run; PROPTEST_CASES
    // scales the search.
    #![proptest_config(ProptestConfig {
        cases: common::cases(2000),
        rng_seed: prop::test_runner::RngSeed::Fixed(20261123),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// With huge, tiny, subnormal and signed-zero numbers: where the tree
    /// has a value, simplify and canonical keep it (to the agreement above).
    #[test]
    fn simplify_and_canonical_keep_extreme_values(e in expr_of(extreme_leaf()), at in point()) {
        let Ok(want) = e.eval(&at) else { return Ok(()) };
        for form in [e.simplify(), e.canonical()] {
            let got = form.eval(&at);
            // Within a few decades of the largest f64, the normal form's
            // order (the coefficient first, a content factored out) can
            // overflow where the written order did not (docs/reliability.md).
            let huge = |f: &Expr| {
                let mut found = false;
                f.visit(&mut |n| found |= matches!(n, Expr::Num(v) if v.abs() > 1e290));
                found
            };
            if got.is_err() && (want.abs() > 1e290 || huge(&e)) {
                continue;
            }
            // A form that amplifies its last digits may lose the value at a
            // root (`sqrt` of a rounding residue below 0), as below.
            if got.is_err() && condition(&form, &at) > 100.0 {
                continue;
            }
            prop_assert!(got.is_ok(), "{e}\n → {form}\n at {at:?}: {got:?} vs {want}");
            let got = got.unwrap();
            // Underflow differs with the order of the operations: sqrt(t·t)
            // is 0 where t·t underflows, and t in normal form. Below 1e-100
            // (ns) a cost is zero.
            let underflow = got.abs() <= 1e-100 && want.abs() <= 1e-100;
            prop_assert!(underflow || agree(got, want, [&e, &form], &at), "{e}\n → {form}\n at {at:?}: {got} vs {want}");
        }
    }

    /// With extreme numbers, both printed forms parse back to the same value
    /// (infinity, NaN and -0 included), or to no value where the tree has
    /// none.
    #[test]
    fn extreme_values_print_back_exactly(e in expr_of(extreme_leaf()), at in point()) {
        let want = e.eval(&at);
        for text in [e.to_string(), e.to_ascii()] {
            let back = Expr::parse(&text);
            if back.is_err() {
                prop_assert!(refused_without_value(&e, &back, &at), "{} does not parse: {:?}", text, back);
                continue;
            }
            let got = back.unwrap().eval(&at);
            match (&want, &got) {
                // `1/(1/x)` reads back as `x`: the last bit may differ.
                (Ok(a), Ok(b)) => prop_assert!(
                    a.to_bits() == b.to_bits() || agree(*a, *b, [&e, &e], &at),
                    "{}: {} vs {}", text, a, b
                ),
                _ => prop_assert_eq!(want.is_ok(), got.is_ok(), "{}: {:?} vs {:?}", text, want, got),
            }
        }
    }
}

proptest! {
    // The classes a run of 10^5 generated expressions found (issue 33):
    // a value changed inside `ceil`/`floor`, a value given where there was
    // none (`(1e400)^-2` simplified to 0), none where there was one
    // (`log(0, m)`), and a normal form that was not one (`x / log(1, x)`).
    #![proptest_config(ProptestConfig {
        cases: common::cases(2000),
        rng_seed: prop::test_runner::RngSeed::Fixed(20261128),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// `simplify` keeps a value where there is one (exactly at a jump of
    /// `ceil`/`floor`), and gives none where there is none.
    #[test]
    fn simplify_neither_changes_nor_invents_a_value(e in edge_expr(), at in edge_point()) {
        let want = e.eval(&at);
        // `canonical` rounds coefficients to 12 digits to decide equality:
        // exactness at a jump is `simplify`'s.
        for (form, exact) in [(e.simplify(), true), (e.canonical(), false)] {
            let got = form.eval(&at);
            match (&want, &got) {
                (Ok(a), Ok(b)) => {
                    let jumps = exact && matches!(e, Expr::Call(pattern_core::expr::Func::Ceil | pattern_core::expr::Func::Floor, _));
                    if jumps {
                        prop_assert_eq!(a.to_bits(), b.to_bits(), "{}\n → {}\n at {:?}", e, form, at);
                    } else {
                        prop_assert!(agree(*a, *b, [&e, &form], &at), "{}\n → {}\n at {:?}: {} vs {}", e, form, at, a, b);
                    }
                }
                (Err(_), Ok(b)) => prop_assert!(false, "{}\n has no value at {:?}, but {} has {}", e, at, form, b),
                (Ok(a), Err(err)) => {
                    // A form that amplifies its last digits may lose the
                    // value at a root (as in the tests above).
                    prop_assert!(condition(&form, &at) > 100.0, "{}\n = {} at {:?}, but {} has none: {}", e, a, at, form, err);
                }
                (Err(_), Err(_)) => {}
            }
        }
    }

    /// A logarithm in a base without one (0, 1) has no value, also
    /// simplified (`log(0, m)` was -0, its normal form had none), and its
    /// normal form is a fixed point (`x / log(1, x)` was not).
    #[test]
    fn logarithms_in_bases_without_one_have_no_value(
        base in prop::sample::select(vec![0.0, 1.0, -2.0]),
        e in expr(),
        at in point(),
        shape in 0..3usize,
    ) {
        let log = Expr::var("x").log(base);
        let e = match shape {
            0 => log,
            1 => e / log,
            _ => e * log + 1.0,
        };
        prop_assert!(e.eval(&at).is_err(), "{}", e);
        let once = e.simplify();
        prop_assert!(once.eval(&at).is_err(), "{} → {}", e, once);
        prop_assert_eq!(once.simplify(), once.clone(), "{}", e);
    }

    /// A factor without a value at a point of the domain (positive
    /// variables) keeps it through zero, a denominator and an integer
    /// power: a negative base to a non-integer symbolic power
    /// (`0·(-m/x^2)^x`), a zero factor in a denominator kept as written
    /// (`0·a/(0·1e308·1e308·b)`), the logarithm of a negative sum
    /// (`0·ln(m - n - x)`, `log(m - n - x, 1)`) and the root of a negative
    /// value squared (`sqrt(-m)^2`, `sqrt(m - n - x)^8`), a divisor that is
    /// 0 moved up or cancelled (`1/(e/floor(m/(16·x)))`, `e·B^2/B` for
    /// `B = min(3, x, 0)`, `((1 - ceil(m/(16·x)))^-1·e)^-1`), all once 0
    /// or a value (found by the `expr` fuzz target).
    #[test]
    fn factors_without_a_value_keep_it(e in expr(), at in point(), shape in 0..10usize) {
        let (x, n, m) = (Expr::var("x"), Expr::var("n"), Expr::var("m"));
        // Negative at almost every point: x ≥ 1, n ≥ 1, m < 16.
        let negative = m.clone() - n.clone() - x.clone();
        let tiny = Expr::num(1e308) * Expr::num(1e308) * 0.0 * m.clone();
        let f = match shape {
            0 => 0.0 * (-m.clone() / x.clone().pow(2.0)).pow(x.clone()),
            1 => -0.0 * Expr::num(-1.3e-292).pow(x.clone()) + e.clone(),
            2 => 0.0 * e.clone() / tiny + 1.0,
            3 => 0.0 * negative.clone().ln() * e.clone(),
            4 => Expr::num(1.0).log(negative.clone()) + e.clone(),
            5 => (-m.clone()).sqrt().pow(2.0) + e.clone(),
            6 => e.clone() / negative.sqrt().pow(8.0),
            // Divisors that are 0 at the point (`m/(16·x)` is in (0, 1)).
            7 => (e.clone() / (m.clone() / (16.0 * x.clone())).floor()).recip(),
            8 => {
                let zero = Expr::min([Expr::num(3.0), x.clone(), Expr::num(0.0)]);
                e.clone() * zero.clone().pow(2.0) / zero
            }
            _ => {
                let zero = 1.0 - (m.clone() / (16.0 * x.clone())).ceil();
                (zero.pow(-1.0) * e.clone()).pow(-1.0)
            }
        };
        prop_assume!(f.eval(&at).is_err());
        let once = f.simplify();
        prop_assert!(once.eval(&at).is_err(), "{} → {} at {:?}", f, once, at);
        prop_assert_eq!(once.simplify(), once.clone(), "{}", f);
    }

    /// Over the same leaves, the normal form is a fixed point.
    #[test]
    fn simplify_is_idempotent_at_the_edges(e in edge_expr()) {
        let once = e.simplify();
        let twice = once.simplify();
        prop_assert_eq!(&twice, &once, "{}\n → {}\n → {}", e, once, twice);
    }

    /// A `max` or `min` of multiples of one product of variables is the
    /// largest (smallest) multiple, exactly.
    #[test]
    fn extrema_of_multiples_are_one_multiple(
        cs in prop::collection::vec(prop_oneof![-8.0f64..-0.1, 0.1f64..8.0], 2..5),
        vars in prop::collection::vec(prop::sample::select(VARS.to_vec()), 1..3),
        at in point(),
    ) {
        let m: Expr = vars.iter().map(|v| Expr::var(v)).product();
        for (max, want) in [(true, cs.iter().copied().fold(f64::MIN, f64::max)), (false, cs.iter().copied().fold(f64::MAX, f64::min))] {
            let args: Vec<Expr> = cs.iter().map(|&c| c * m.clone()).collect();
            let e = if max { Expr::max(args) } else { Expr::min(args) };
            let s = e.simplify();
            prop_assert_eq!(&s, &(want * m.clone()).simplify(), "{}", e);
            let (a, b) = (s.eval(&at).unwrap(), e.eval(&at).unwrap());
            prop_assert!(agree(a, b, [&e, &s], &at), "{}: {} vs {}", e, a, b);
        }
    }
}

/// A call of another language's maths, or one letter off a function, is a
/// parse error listing the functions; any other name is a machine function
/// that a profile resolves (a custom profile's `alltoall`).
#[test]
fn unknown_maths_is_refused_and_machine_functions_are_kept() {
    for text in [
        "log10(x)",
        "exp2(x)",
        "pow(x, 2)",
        "lg2(x)",
        "sqr(x)",
        "2 + abs(x)",
    ] {
        let e = Expr::parse(text).unwrap_err().to_string();
        assert!(e.contains("log2, ln, log, sqrt"), "{text}: {e}");
    }
    for text in ["alltoall(p, b)", "bcast(p, b)", "my_barrier(p)"] {
        let e = Expr::parse(text).unwrap();
        assert!(matches!(e, Expr::Apply(..)), "{text}: {e:?}");
    }
}
