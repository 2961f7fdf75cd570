//! Sensitivities: the dual-number derivatives against central finite
//! differences on random designs, the speed-up ranking on designs whose
//! answer is known by hand, and the bottleneck stages of pipelines with
//! crossing points derived independently.
mod common;

use pattern_core::explore::crossover::{PointKind, Span};
use pattern_core::explore::sensitivity::{
    SensitivityError, bottleneck_stages, design_sensitivity, sensitivity, speed_up_ranking,
};
use pattern_core::paper::table1_definitions;
use pattern_core::semantics::Throughput;
use pattern_core::strategies::shuffle_free_term;
use pattern_core::{Design, EvalError, Expr};
use proptest::prelude::*;

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs())
}

/// The model of `design` with one atom coefficient changed: the design
/// rebuilt from its text with the coefficient's number replaced, its model
/// as built by the operators (the normal form would round the sums of
/// coefficients to 12 digits, more than a finite difference can bear).
fn with_coefficient(design: &Design, atom: &str, index: usize, value: f64) -> Expr {
    let (model, _) = design
        .atoms()
        .iter()
        .find(|(name, _)| name == atom)
        .map(|(_, m)| (m.simplify(), ()))
        .unwrap();
    // Replace the index-th number outside exponents, counted in pre-order,
    // by walking the printed normal form's tree the same way.
    let mut seen = 0;
    let replaced = replace_number(&model, index, value, &mut seen, false);
    let text = design
        .atoms()
        .iter()
        .map(|(name, m)| {
            let m = if name == atom {
                replaced.clone()
            } else {
                m.clone()
            };
            format!("{name} = {m:#};\n")
        })
        .collect::<String>()
        + &design.term().to_string();
    raw_model(&Design::parse(&text).unwrap())
}

/// The throughput model as the operators build it, not in normal form.
fn raw_model(design: &Design) -> Expr {
    Throughput::new().expr(design.term())
}

/// A recursive walk is fine here: atom models from the strategies are a
/// few levels deep.
fn replace_number(e: &Expr, index: usize, value: f64, seen: &mut usize, exponent: bool) -> Expr {
    match e {
        Expr::Num(v) if !exponent => {
            *seen += 1;
            Expr::Num(if *seen - 1 == index { value } else { *v })
        }
        Expr::Num(_) | Expr::Var(_) => e.clone(),
        Expr::Pow(b, k) => {
            let b = replace_number(b, index, value, seen, false);
            let k2 = replace_number(k, index, value, seen, matches!(**k, Expr::Num(_)));
            Expr::Pow(Box::new(b), Box::new(k2))
        }
        Expr::Add(items) => Expr::Add(
            items
                .iter()
                .map(|i| replace_number(i, index, value, seen, false))
                .collect(),
        ),
        Expr::Mul(items) => Expr::Mul(
            items
                .iter()
                .map(|i| replace_number(i, index, value, seen, false))
                .collect(),
        ),
        Expr::Call(f, items) => Expr::Call(
            *f,
            items
                .iter()
                .map(|i| replace_number(i, index, value, seen, false))
                .collect(),
        ),
        Expr::Apply(n, items) => Expr::Apply(
            n.clone(),
            items
                .iter()
                .map(|i| replace_number(i, index, value, seen, false))
                .collect(),
        ),
    }
}

/// Central, forward and backward differences of `f` at `v` with step `h`.
fn differences(f: impl Fn(f64) -> f64, v: f64, h: f64) -> (f64, f64, f64) {
    let (lo, mid, hi) = (f(v - h), f(v), f(v + h));
    ((hi - lo) / (2.0 * h), (hi - mid) / h, (mid - lo) / h)
}

/// Whether a dual derivative `d` agrees with the central difference `c`:
/// to 1e-6 relative, or, for a derivative negligible at this point, to
/// 1e-9 in elasticity (`d·v/T`).
fn agrees(d: f64, c: f64, v: f64, time: f64) -> bool {
    (d - c).abs() <= 1e-6 * d.abs().max(c.abs()) || (d - c).abs() * v.abs() <= 1e-9 * time
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(300)))]

    #[test]
    fn derivatives_agree_with_finite_differences(
        term in shuffle_free_term(3),
        log_x in 1.0f64..20.0,
        n in 1.0f64..64.0,
        p in 1.0f64..64.0,
    ) {
        let design = Design::from_term(term).unwrap();
        let x = log_x.exp2();
        let at = [("x", x), ("n", n), ("p", p)];
        let s = design_sensitivity(&design, &at).unwrap();
        let rounded = design.model().eval(&at).unwrap();
        prop_assert!(relative(s.time, rounded) < 1e-10, "{} vs {rounded}", s.time);
        let model = raw_model(&design);
        let time = model.eval(&at).unwrap();
        let h_rel = 1e-5;
        for v in &s.variables {
            let eval = |value: f64| {
                let mut point = at.to_vec();
                point.iter_mut().filter(|(n, _)| *n == v.name).for_each(|(_, w)| *w = value);
                model.eval(&point).unwrap()
            };
            let (central, forward, backward) = differences(eval, v.value, h_rel * v.value);
            // A kink of a max within the step: no derivative to compare.
            prop_assume!((forward - backward).abs() <= 1e-3 * forward.abs().max(backward.abs()) + 1e-9 * time / v.value);
            prop_assert!(agrees(v.derivative, central, v.value, time), "{}: {} vs {central}", v.name, v.derivative);
        }
        for c in &s.coefficients {
            let eval = |value: f64| with_coefficient(&design, &c.atom, c.index, value).eval(&at).unwrap();
            let (central, forward, backward) = differences(eval, c.value, h_rel * c.value.abs());
            prop_assume!((forward - backward).abs() <= 1e-3 * forward.abs().max(backward.abs()) + 1e-9 * time / c.value.abs());
            prop_assert!(agrees(c.derivative, central, c.value, time), "{}: {} vs {central}", c.name, c.derivative);
        }
    }

    #[test]
    fn elasticities_of_the_atoms_sum_to_one(
        term in shuffle_free_term(3),
        log_x in 1.0f64..20.0,
        n in 1.0f64..64.0,
        p in 1.0f64..64.0,
    ) {
        // Every model is homogeneous of degree 1 in the atoms' times
        // (seq adds, pipe takes a max, tpool divides): scaling all atoms
        // by s scales T by s, so the elasticities sum to 1 (Euler).
        let design = Design::from_term(term).unwrap();
        let at = [("x", log_x.exp2()), ("n", n), ("p", p)];
        let ranking = speed_up_ranking(&design, &at).unwrap();
        let sum: f64 = ranking.iter().map(|r| r.elasticity.unwrap()).sum();
        prop_assert!((sum - 1.0).abs() < 1e-9, "{sum}");
        prop_assert!(ranking.windows(2).all(|w| w[0].elasticity >= w[1].elasticity));
        for r in &ranking {
            prop_assert!(r.gain >= -1e-9 * r.time_if_twice_as_fast);
        }
    }
}

#[test]
fn shares_of_a_sequence_and_the_bottleneck_of_a_pipe() {
    // seq(a, b), a = 3x, b = x: T = 4x, the shares 3/4 and 1/4; halving a
    // gives 2.5x, halving b 3.5x.
    let d = Design::parse("a = 3*x; b = x; seq(a, b)").unwrap();
    let r = speed_up_ranking(&d, &[("x", 10.0)]).unwrap();
    assert_eq!(r[0].atom, "a");
    assert!((r[0].elasticity.unwrap() - 0.75).abs() < 1e-15);
    assert!((r[0].time_if_twice_as_fast - 25.0).abs() < 1e-12);
    assert!((r[0].gain - 15.0).abs() < 1e-12);
    assert_eq!(r[1].atom, "b");
    assert!((r[1].elasticity.unwrap() - 0.25).abs() < 1e-15);
    assert!((r[1].gain - 5.0).abs() < 1e-12);

    // pipe(tpool[2](qsort), inc, nop) at x = 2^20: the sort stage,
    // 1034.17/2·20·x, is far above inc (536.185·x) and nop: all of the
    // elasticity is the sort's, none the others'. Halved (1034.17/4·20·x)
    // the sort is still the slowest stage: T halves.
    let d = Design::parse(&format!(
        "{}pipe(tpool[2](qsort), inc, nop)",
        table1_definitions()
    ))
    .unwrap();
    let x = 2f64.powi(20);
    let r = speed_up_ranking(&d, &[("x", x)]).unwrap();
    let time = 1034.17 / 2.0 * x * 20.0;
    assert_eq!(r[0].atom, "qsort");
    assert_eq!(r[0].elasticity, Some(1.0));
    assert!(relative(r[0].gain, time / 2.0) < 1e-12);
    for other in &r[1..] {
        assert_eq!(other.elasticity, Some(0.0), "{other:?}");
        assert_eq!(other.gain, 0.0);
    }
    // Atoms of the Table 1 definitions that the term does not use rank
    // last with nothing to gain.
    assert!(r.iter().any(|s| s.atom == "map_grppi" && s.gain == 0.0));
}

#[test]
fn derivatives_by_hand() {
    // T = max(c0·x·log2(x)/n, c1·x) with c0 = 1034.17, c1 = 536.185, at
    // x = 1024 and n = 2: the sort is the bottleneck (1034.17·5120 > 536.185·1024).
    let d = Design::parse("qsort = 1034.17*x*log2(x); inc = 536.185*x; pipe(tpool[n](qsort), inc)")
        .unwrap();
    let s = design_sensitivity(&d, &[("x", 1024.0), ("n", 2.0)]).unwrap();
    let time = 1034.17 * 1024.0 * 10.0 / 2.0;
    assert!(relative(s.time, time) < 1e-15);
    let names: Vec<&str> = s.coefficients.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["qsort.c0", "inc.c0"]);
    assert!(relative(s.coefficients[0].derivative, 1024.0 * 10.0 / 2.0) < 1e-15);
    assert_eq!(s.coefficients[1].derivative, 0.0);
    assert!((s.coefficients[0].elasticity.unwrap() - 1.0).abs() < 1e-15);
    let by_name = |name: &str| s.variables.iter().find(|v| v.name == name).unwrap();
    // ∂T/∂n = -T/n; ∂T/∂x = c0·(log2(x) + 1/ln 2)/n.
    assert!(relative(by_name("n").derivative, -time / 2.0) < 1e-15);
    assert!(by_name("n").count && !by_name("x").count);
    let dx = 1034.17 * (10.0 + 1.0 / std::f64::consts::LN_2) / 2.0;
    assert!(relative(by_name("x").derivative, dx) < 1e-14);

    // A plain model: its own numbers.
    let s = sensitivity(&Expr::parse("2*x^3 + 7").unwrap(), &[("x", 3.0)]).unwrap();
    let names: Vec<&str> = s.coefficients.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["model.c0", "model.c1"]);
    assert_eq!(s.coefficients[0].derivative, 27.0);
    assert_eq!(s.variables[0].derivative, 54.0);
}

#[test]
fn kinks_take_the_right_derivative() {
    // Two equal stages: at the tie, growing x makes the steeper one the
    // bottleneck, so ∂T/∂x is its slope (3), and the elasticity of its
    // coefficient is 1 (growing it makes it the maximum).
    let d = Design::parse("a = 3*x; b = x + 20; pipe(a, b)").unwrap();
    let s = design_sensitivity(&d, &[("x", 10.0)]).unwrap();
    assert_eq!(s.time, 30.0);
    assert_eq!(s.variables[0].derivative, 3.0);
    assert_eq!(s.coefficients[0].derivative, 10.0);
    // ceil has slope 0.
    let s = sensitivity(&Expr::parse("ceil(x/4)*100").unwrap(), &[("x", 5.0)]).unwrap();
    assert_eq!(s.variables[0].derivative, 0.0);
}

#[test]
fn bottleneck_of_a_three_stage_pipeline() {
    // nop = 5422.97, inc = 536.185·x, tpool[64](qsort) = 1034.17/64·x·log2(x):
    // nop is slowest below x = 5422.97/536.185, inc up to where
    // log2(x) = 64·536.185/1034.17, the sort above.
    let first = 5422.97 / 536.185;
    let second = (64.0 * 536.185 / 1034.17f64).exp2();
    let d = Design::parse(&format!(
        "{}pipe(nop, inc, tpool[64](qsort))",
        table1_definitions()
    ))
    .unwrap();
    let found = bottleneck_stages(&d, Span::new("x", 1.0, 1e12), &[]).unwrap();
    assert_eq!(found.stages, ["nop", "inc", "tpool[64](qsort)"]);
    let slowest: Vec<usize> = found.ranges.intervals.iter().map(|i| i.best).collect();
    assert_eq!(slowest, [0, 1, 2]);
    let at: Vec<f64> = found.ranges.points.iter().map(|p| p.at).collect();
    assert_eq!(at.len(), 2);
    assert!(relative(at[0], first) < 1e-9, "{} vs {first}", at[0]);
    assert!(relative(at[1], second) < 1e-9, "{} vs {second}", at[1]);
    assert!(
        found
            .ranges
            .points
            .iter()
            .all(|p| p.kind == PointKind::Crossing)
    );

    // A symbolic count bound, and a nested pipe flattened: the same.
    let d = Design::parse(&format!(
        "{}pipe(pipe(nop, inc), tpool[n](qsort))",
        table1_definitions()
    ))
    .unwrap();
    let found = bottleneck_stages(&d, Span::new("x", 1.0, 1e12), &[("n", 64.0)]).unwrap();
    assert_eq!(found.stages.len(), 3);
    assert!(relative(found.ranges.points[1].at, second) < 1e-9);
}

#[test]
fn errors() {
    let d = Design::parse("a = x; tpool[n](a)").unwrap();
    assert!(matches!(
        design_sensitivity(&d, &[("x", 2.0)]),
        Err(SensitivityError::Eval(EvalError::Unbound { ref name, .. })) if name == "n"
    ));
    assert!(matches!(
        bottleneck_stages(&d, Span::new("x", 1.0, 2.0), &[("n", 2.0)]),
        Err(SensitivityError::NotAPipeline { .. })
    ));
    let d = Design::parse("a = sqrt(x); b = 1; seq(a, b)").unwrap();
    let err = design_sensitivity(&d, &[("x", 0.0)]).unwrap_err();
    assert!(
        matches!(&err, SensitivityError::NonFiniteDerivative { parameter, .. } if parameter == "x"),
        "{err}"
    );
    let d = Design::parse("a = x; b = 2*x*k; pipe(a, b)").unwrap();
    assert!(matches!(
        bottleneck_stages(&d, Span::new("x", 1.0, 2.0), &[]),
        Err(SensitivityError::Crossover(_))
    ));
}

/// A mapReduce's counts, its shuffle's coefficients and the atoms inside
/// it: the derivatives agree with central differences, as on the random
/// designs above (which leave the shuffle out).
#[test]
fn map_reduce_derivatives_agree_with_finite_differences() {
    let text = "map = 3*x + 40; reduce = 2*x*log2(x); shuffle = 0.5*x + 7*o + 900;
                mapreduce[m = m, n = n, d = x/8, k = 64](map, shuffle, tpool[2](reduce))";
    let design = Design::parse(text).unwrap();
    let model = raw_model(&design);
    for (x, m, n) in [(1e3, 2.0, 4.0), (5e4, 8.0, 3.0), (2e6, 1.0, 16.0)] {
        let at = [("x", x), ("m", m), ("n", n)];
        let s = design_sensitivity(&design, &at).unwrap();
        let time = model.eval(&at).unwrap();
        assert!(relative(s.time, time) < 1e-10, "{} vs {time}", s.time);
        let names: Vec<&str> = s.variables.iter().map(|v| v.name.as_str()).collect();
        assert!(names.contains(&"m") && names.contains(&"n"), "{names:?}");
        for v in &s.variables {
            let eval = |value: f64| {
                let mut point = at.to_vec();
                point
                    .iter_mut()
                    .filter(|(n, _)| *n == v.name)
                    .for_each(|(_, w)| *w = value);
                model.eval(&point).unwrap()
            };
            let (central, _, _) = differences(eval, v.value, 1e-5 * v.value);
            assert!(
                agrees(v.derivative, central, v.value, time),
                "{}: {} vs {central}",
                v.name,
                v.derivative
            );
        }
        let atoms: Vec<&str> = s.coefficients.iter().map(|c| c.atom.as_str()).collect();
        assert!(
            atoms.contains(&"shuffle") && atoms.contains(&"reduce"),
            "{atoms:?}"
        );
        for c in &s.coefficients {
            let eval = |value: f64| {
                with_coefficient(&design, &c.atom, c.index, value)
                    .eval(&at)
                    .unwrap()
            };
            let (central, _, _) = differences(eval, c.value, 1e-5 * c.value.abs());
            assert!(
                agrees(c.derivative, central, c.value, time),
                "{}: {} vs {central}",
                c.name,
                c.derivative
            );
        }
    }
}
