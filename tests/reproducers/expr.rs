//! Reproducers in the expr area.

child_test!(expr_child_process_runs_on_a_small_stack, || {
    // A recursion that needs more than the 2 MiB stack would abort here.
    let depth = std::hint::black_box(1000u64);
    assert_eq!((0..depth).sum::<u64>(), 499_500);
});

use pattern_core::Expr;

/// The value of `e` at the bindings.
fn at(e: &Expr, bindings: &[(&str, f64)]) -> f64 {
    e.eval(bindings).expect("a value")
}

/// `simplify` keeps the value of `text` at `bindings`, relative to 1e-9.
fn simplify_keeps_value(text: &str, bindings: &[(&str, f64)]) {
    let e = Expr::parse(text).expect("parses");
    let s = e.simplify();
    let (a, b) = (at(&e, bindings), at(&s, bindings));
    assert!(
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()),
        "{text} = {a}, simplified {s} = {b}"
    );
    assert_eq!(s.simplify(), s, "simplify of {text} is idempotent");
}

const XYZ: &[(&str, f64)] = &[("x", 1.7), ("y", 2.3), ("z", 0.9)];

// A power of a sum beyond the term cap, multiplied: expanded, capped and
// expanded again without end.
child_test!(simplify_power_of_sum_times_two, || {
    simplify_keeps_value("2*(x+y+1)^8", XYZ)
});
child_test!(simplify_negated_power_of_sum, || {
    simplify_keeps_value("-(y+z+1)^8", XYZ)
});
child_test!(simplify_power_of_power_of_sum, || {
    simplify_keeps_value("((y+x)^6)^8", &[("x", 0.6), ("y", 0.5)])
});
child_test!(simplify_product_of_two_wide_sums, || {
    let a: Vec<String> = (0..70).map(|i| format!("a{i}")).collect();
    let b: Vec<String> = (0..70).map(|i| format!("b{i}")).collect();
    let text = format!("({})*({})*3", a.join("+"), b.join("+"));
    let bindings: Vec<(String, f64)> = a
        .iter()
        .chain(&b)
        .enumerate()
        .map(|(i, v)| (v.clone(), 1.0 + i as f64 / 100.0))
        .collect();
    let refs: Vec<(&str, f64)> = bindings.iter().map(|(v, x)| (v.as_str(), *x)).collect();
    simplify_keeps_value(&text, &refs)
});
child_test!(growth_of_max_with_power_of_sum, || {
    let e = Expr::parse("max(p, (x+z+1)^8)/b").unwrap();
    let g = e.growth("x").expect("a growth");
    assert_eq!(g.to_string(), "O(x^8)");
});
child_test!(canonical_of_max_with_power_of_sum, || {
    let e = Expr::parse("max(6, (y+z+1)^8)").unwrap();
    let c = e.canonical();
    let bindings = [("y", 0.1), ("z", 0.2)];
    let (a, b) = (at(&e, &bindings), at(&c, &bindings));
    assert!((a - b).abs() <= 1e-9 * a, "{e} = {a}, canonical {c} = {b}");
});

/// Whether `text` evaluates to a finite value at `bindings`.
fn finite(e: &Expr, bindings: &[(&str, f64)]) -> bool {
    e.eval(bindings).is_ok_and(f64::is_finite)
}

#[test]
fn simplify_keeps_overflow_and_nan_non_finite() {
    // Built through the API: the parser refuses constants without a value.
    let (n, x) = (Expr::num, || Expr::var("x"));
    let big = || n(1e308) * n(1e308);
    for (text, e) in [
        ("1e308*1e308", big()),
        ("1e308*1e308*x", big() * x()),
        ("0/0", n(0.0) / n(0.0)),
        ("0*(1/0)", n(0.0) * (n(1.0) / n(0.0))),
        ("x - x + 1e308*10", x() - x() + n(1e308) * n(10.0)),
        ("log2((x+x)^1024)", Expr::parse("log2((x+x)^1024)").unwrap()),
        ("(1/0)^0", (n(1.0) / n(0.0)).pow(0.0)),
        ("0*log2(0)", n(0.0) * n(0.0).log2()),
        ("(1e308*1e308 - 1e308*1e308)*x", (big() - big()) * x()),
    ] {
        let s = e.simplify();
        let at = [("x", 1024.0)];
        assert!(!finite(&e, &at), "{text} is not finite at x = 1024");
        assert!(
            !finite(&s, &at),
            "{text} simplified to {s}, which is finite"
        );
        let c = e.canonical();
        assert!(!finite(&c, &at), "{text} canonical {c} is finite");
    }
}

/// Finite numbers (signed zero, subnormals, the extremes) print back bit
/// for bit; a number without a value, which only the API can build, prints
/// as `1e999`, `-1e999` or `(0/0)`, which the parser (and serde) refuses at
/// its position.
#[test]
fn non_finite_print_as_text_the_parser_refuses_and_finite_print_back() {
    for v in [
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -0.0,
        0.0,
        1e-310,
        f64::MAX,
        f64::MIN_POSITIVE,
    ] {
        for e in [
            Expr::Num(v),
            Expr::Mul(vec![Expr::Num(v), Expr::Var("x".into())]),
        ] {
            let json = serde_json::to_string(&e).unwrap();
            let serde_back = serde_json::from_str::<Expr>(&json);
            for text in [e.to_string(), format!("{e:#}")] {
                let back = Expr::parse(&text);
                if !v.is_finite() {
                    let err = back.expect_err(&text);
                    // At the number (after a leading `-` or `(0/`).
                    assert!(err.offset() <= 3, "{text}: {err}");
                    assert!(serde_back.is_err(), "serde of {json}");
                    continue;
                }
                let back = back.unwrap_or_else(|err| panic!("{text}: {err}"));
                match (
                    e.eval_as::<f64>(&[("x", 2.0)]),
                    back.eval_as::<f64>(&[("x", 2.0)]),
                ) {
                    (Ok(a), Ok(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{text}"),
                    (a, b) => assert_eq!(a.is_err(), b.is_err(), "{text}: {a:?} {b:?}"),
                }
                assert_eq!(back.to_string(), e.to_string(), "{text} prints the same");
                let back = serde_back.as_ref().expect("serde reads a finite number");
                assert_eq!(back.to_string(), e.to_string(), "serde of {e:?}: {json}");
            }
        }
    }
    // `0/x` keeps its tree; `(n - n)/(x - x)` simplifies to a form without
    // a value, refused when read back.
    assert_eq!(
        Expr::parse("0/x").unwrap(),
        Expr::Mul(vec![
            Expr::Num(0.0),
            Expr::Var("x".into()).pow(Expr::Num(-1.0))
        ])
    );
    let e = Expr::parse("(n - n)/(x - x)").unwrap().simplify();
    assert!(e.eval(&[("n", 1.0), ("x", 2.0)]).is_err());
    assert!(serde_json::from_str::<Expr>(&serde_json::to_string(&e).unwrap()).is_err());
}

#[test]
fn nan_bindings_are_an_error() {
    let e = Expr::parse("max(x, 1)").unwrap();
    let err = e.eval(&[("x", f64::NAN)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "variable `x` is bound to NaN: give it a number"
    );
    assert!(Expr::parse("x").unwrap().eval(&[("x", f64::NAN)]).is_err());
}

child_test!(compile_constant_with_unresolved_function, || {
    for text in ["send(1)+1", "-send(1)", "2*send(1)", "send(1)*send(2) + 3"] {
        let err = Expr::parse(text).unwrap().compile(&[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`send` is not a built-in function: resolve it before evaluating (a communication function against a machine profile)",
            "{text}"
        );
    }
});

/// `depth` nested sums and products built through the public variants:
/// `x + 0.5·(x + 0.5·(x + ...))`.
fn deep_sum_product(depth: usize) -> Expr {
    let mut e = Expr::Var("x".into());
    for _ in 0..depth {
        e = Expr::Add(vec![
            Expr::Var("x".into()),
            Expr::Mul(vec![Expr::Num(0.5), e]),
        ]);
    }
    e
}

/// `depth` nested calls: `log2(1 + sqrt(1 + log2(1 + ... x)))`.
fn deep_calls(depth: usize) -> Expr {
    let mut e = Expr::Var("x".into());
    for i in 0..depth {
        let f = if i % 2 == 0 {
            pattern_core::expr::Func::Log2
        } else {
            pattern_core::expr::Func::Sqrt
        };
        e = Expr::Call(f, vec![Expr::Add(vec![Expr::Num(1.0), e])]);
    }
    e
}

/// Every operation but the normal form's, checked on a deep expression.
fn every_operation(e: &Expr, x: f64) {
    let copy = e.clone();
    assert_eq!(&copy, e);
    assert_eq!(copy.cmp(e), std::cmp::Ordering::Equal);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(e, &mut h);
    assert!(format!("{e:?}").len() > 1000);
    let text = e.to_string();
    assert!(format!("{e:#}").len() > 1000);
    assert!(e.latex().to_string().len() > 1000);
    let value = e.eval(&[("x", x)]).expect("a value");
    let compiled = e.compile(&["x"]).expect("compiles");
    assert!((compiled.eval(&[x]) - value).abs() <= 1e-9 * value.abs());
    assert_eq!(e.vars().len(), 1);
    assert!(e.size() > 100_000);
    let y = e.subs("x", &Expr::Var("y".into()));
    assert_eq!(y.eval(&[("y", x)]).expect("a value"), value);
    drop((copy, text, y));
}

/// The normal form's operations on a deep expression: its opaque factors
/// hold their whole subtree, so a deep chain of calls costs time quadratic
/// in its depth (docs/expressions.md); checked here for the stack.
fn normal_form_operations(e: &Expr, x: f64) {
    let value = e.eval(&[("x", x)]).expect("a value");
    let simplified = e.simplify();
    let s = simplified.eval(&[("x", x)]).expect("a value");
    assert!((s - value).abs() <= 1e-9 * value.abs(), "{s} vs {value}");
    let canonical = e.canonical();
    let c = canonical.eval(&[("x", x)]).expect("a value");
    assert!((c - value).abs() <= 1e-9 * value.abs(), "{c} vs {value}");
    assert!(e.growth("x").is_some());
}

// Through the public variants, deeper than any parse: on a 2 MiB stack.
child_test!(deep_sums_and_products_on_a_small_stack, || {
    every_operation(&deep_sum_product(100_000), 3.0);
    normal_form_operations(&deep_sum_product(10_000), 3.0);
});
child_test!(deep_calls_on_a_small_stack, || {
    every_operation(&deep_calls(100_000), 3.0);
    normal_form_operations(&deep_calls(1_000), 3.0);
});

/// Found by the random property run: a power of a constant without a value
/// (`0^-1`) raised again changed only on a second simplification. Such a
/// power has no value (`inf^-1` is 0 in floating point, not in the
/// function), so it is kept as written, in one pass.
#[test]
fn powers_of_valueless_constants_simplify_in_one_pass() {
    let inf = || Expr::num(0.0).pow(-1.0);
    for (text, e, want) in [
        (
            "0.01/(0.01/(m - m)) + 0.01",
            Expr::parse("0.01/(0.01/(m - m)) + 0.01").unwrap(),
            "0.01/(0.01/0) + 0.01",
        ),
        ("(0^-1)^-1", inf().pow(-1.0), "(1/0)^(-1)"),
        ("(2*0^-1)^-2", (2.0 * inf()).pow(-2.0), "1/(2/0)^2"),
        ("(0^-1)^2", inf().pow(2.0), "(1/0)^2"),
        ("1/(1/x)", Expr::parse("1/(1/x)").unwrap(), "x"),
    ] {
        let once = e.simplify();
        assert_eq!(once.to_string(), want, "{text}");
        assert_eq!(once.simplify(), once, "{text} is a fixed point");
        assert_eq!(
            once.eval(&[("x", 2.0), ("m", 3.0)]).is_ok(),
            text == "1/(1/x)",
            "{text}"
        );
    }
}

/// Found by the long fuzz run: the reciprocal of a power with a number for
/// exponent printed as `1/768^0.5`, which reads back as `768^-0.5` and
/// rounds differently in the last bit.
#[test]
fn reciprocals_of_numeric_powers_print_back_bit_for_bit() {
    let root = |b: Expr| Expr::Pow(Box::new(b), Box::new(Expr::Num(0.5)));
    for base in [Expr::Num(768.0), Expr::Num(0.5), Expr::Var("n".into())] {
        let e = Expr::Pow(Box::new(root(base)), Box::new(Expr::Num(-1.0)));
        for text in [e.to_string(), e.to_ascii()] {
            let back = Expr::parse(&text).unwrap();
            assert_eq!(back, e, "{text}");
            let at = [("n", 21.220639755545307)];
            assert_eq!(
                back.eval(&at).unwrap().to_bits(),
                e.eval(&at).unwrap().to_bits()
            );
        }
    }
    // A negative power itself still prints as a fraction.
    let e = Expr::Pow(Box::new(Expr::Num(768.0)), Box::new(Expr::Num(-0.5)));
    assert_eq!(e.to_string(), "1/768^0.5");
    assert_eq!(Expr::parse("1/768^0.5").unwrap(), e);
}

// A 900-term sum times a factor holding a 300-item `max` (the shape of the
// fuzz design whose model printed to 58 MB): distributing the product
// copied the `max` into every term, 900 times its size. Expansion now keeps
// such a product whole, and the three ways of writing it agree.
child_test!(a_product_that_would_copy_a_large_factor_stays_whole, || {
    let sum: Vec<String> = (0..900).map(|i| format!("{}*a{i}", i + 1)).collect();
    let max: Vec<String> = (0..300).map(|i| format!("b{i} + {i}")).collect();
    let (sum, max) = (sum.join(" + "), max.join(", "));
    let bindings: Vec<(String, f64)> = (0..900)
        .map(|i| (format!("a{i}"), 1.0 + i as f64 / 1000.0))
        .chain((0..300).map(|i| (format!("b{i}"), 0.5 * i as f64)))
        .chain([("x".to_string(), 3.0)])
        .collect();
    let refs: Vec<(&str, f64)> = bindings.iter().map(|(v, x)| (v.as_str(), *x)).collect();
    for text in [
        format!("({sum})*x*max({max})"),
        format!("x*max({max})*({sum})"),
        format!("({sum})*(x*max({max}))"),
    ] {
        let e = Expr::parse(&text).unwrap();
        let s = e.simplify();
        assert!(
            s.size() < 2 * e.size(),
            "{} nodes from {}",
            s.size(),
            e.size()
        );
        simplify_keeps_value(&text, &refs);
    }
});

// Issue 33: inputs at the sizes, built through the public API, run
// to completion on a 2 MiB thread (a quadratic step would take minutes).
// The bench `expr_scale` measures their time.

/// `log2(log2(...(x)))`, `depth` deep.
fn nested_logs(depth: usize) -> Expr {
    (0..depth).fold(Expr::var("x"), |e, _| e.log2())
}

child_test!(nested_logarithms_10_4_deep, || {
    let e = nested_logs(10_000);
    // A nest of logarithms is its own normal form.
    assert_eq!(e.simplify(), e);
    assert_eq!(e.canonical(), e);
    assert!(e.growth("x").is_some());
    // Three deep it has a value (x = 2^16: log2 three times is 2).
    assert_eq!(
        nested_logs(3).simplify().eval(&[("x", 65536.0)]).unwrap(),
        2.0
    );
});

child_test!(nested_squares_10_4_deep_keep_their_exponent, || {
    let e = (0..10_000).fold(Expr::var("x"), |e, _| e.pow(2.0));
    let s = e.simplify();
    // x^(2^10000): the exponent leaves i64 after 62 squarings, and the
    // power is kept as nested powers from there, each once.
    assert!(s.size() < 1000, "{} nodes", s.size());
    assert!(s.simplify().size() < 1000);
    assert_eq!(s.eval(&[("x", 1.0)]).unwrap(), 1.0);
    assert!(s.eval(&[("x", 2.0)]).is_err());
    assert!(e.eval(&[("x", 2.0)]).is_err());
    let _ = e.canonical();
    let _ = e.growth("x");
    // Sixty squarings are x^(2^60), exactly.
    let sixty = (0..60).fold(Expr::var("x"), |e, _| e.pow(2.0)).simplify();
    assert_eq!(sixty.to_string(), format!("x^{}", 2f64.powi(60)));
});

child_test!(alternating_sums_and_products_10_5_deep, || {
    let y = || Expr::var("y");
    let e = (0..100_000).fold(
        Expr::var("x"),
        |e, i| if i % 2 == 0 { e + y() } else { e * y() },
    );
    let at = [("x", 1.0), ("y", 1.0)];
    // At y = 1 every step adds one: x + 50000.
    assert_eq!(e.eval(&at).unwrap(), 50_001.0);
    let s = e.simplify();
    assert_eq!(s.eval(&at).unwrap(), 50_001.0);
    assert_eq!(s.simplify(), s);
    assert_eq!(e.canonical().eval(&at).unwrap(), 50_001.0);
});

child_test!(compiled_sum_and_max_of_10_5_variables, || {
    let names: Vec<String> = (0..100_000).map(|i| format!("v{i}")).collect();
    let vars: Vec<&str> = names.iter().map(String::as_str).collect();
    let values: Vec<f64> = (0..100_000).map(|i| i as f64).collect();
    let sum = Expr::Add(vars.iter().map(|v| Expr::var(v)).collect());
    assert_eq!(sum.compile(&vars).unwrap().eval(&values), 4_999_950_000.0);
    let max = Expr::max(vars.iter().map(|v| Expr::var(v)));
    assert_eq!(max.compile(&vars).unwrap().eval(&values), 99_999.0);
});
